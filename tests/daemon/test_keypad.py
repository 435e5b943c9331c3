"""The dealer's keypad drives the daemon: key presses become the mapped commands, authorised
as the configured keypad user, with no seat or amount needed."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from hardware_sim.devices import SimKeypad, SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.app import run_daemon
from tablectl.clock import SystemClock
from tablectl.daemon import TableDaemon
from tablectl.sources.keypad import KeypadSource
from tablectl.sources.rfid import RfidShoeSource
from tests.conftest import Broker
from tests.daemon.helpers import Listener
from tests.daemon.test_end_to_end import write_config


def _types(listener: Listener) -> list[object]:
    return [e.get("type") for e in listener.events()]


async def test_keypad_starts_a_hand_and_calls(tmp_path: Path, mosquitto: Broker) -> None:
    config = write_config(tmp_path, mosquitto, "holdem", "fixed-limit",
                          {"small_blind": 100, "big_blind": 200, "small_bet": 200,
                           "big_bet": 400}, [3000, 3000, 3000])
    clock = SystemClock()
    shoe = SimShoe(config.load_deck(), clock=clock, seed=2)
    keypad = SimKeypad(clock=clock, seed=3)
    shoe_pipe, key_pipe = PipeDevice(shoe, clock=clock), PipeDevice(keypad, clock=clock)
    sources = [RfidShoeSource("shoe", "sim", clock=clock, opener=shoe_pipe.open),
               KeypadSource("keypad", "sim", clock=clock, opener=key_pipe.open,
                            user=config.access.keypad_user)]
    listener = Listener(mosquitto.host, mosquitto.port, "e2e")
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(config, clock=clock, sources=sources,
                                          ready=ready.set_result))
    try:
        daemon = await asyncio.wait_for(ready, 10)
        assert await asyncio.to_thread(listener.wait_for,
                                       lambda lst: lst.latest_state() is not None)
        keypad.press(6)
        keypad.release(6)                               # 6 = start_hand
        assert await asyncio.to_thread(listener.wait_for,
                                       lambda lst: "hand_started" in _types(lst))
        for _ in range(6):
            shoe.draw()
        to_act = None
        async with asyncio.timeout(10):
            while to_act is None:
                view = daemon.controller.hand_view()
                to_act = view.to_act if view is not None else None
                if to_act is None:
                    await asyncio.sleep(0.01)
        keypad.press(3)
        keypad.release(3)                               # 3 = call, for the seat to act
        assert await asyncio.to_thread(listener.wait_for, lambda lst: any(
            e.get("type") == "action" for e in lst.events()))
        action = next(e for e in listener.events() if e.get("type") == "action")
        assert action["data"]["seat"] == to_act  # type: ignore[index]
        assert action["data"]["kind"] == "call"  # type: ignore[index]
        journal_actors = {r.actor for r in daemon.journal.inputs() if r.kind == "command"}
        assert journal_actors == {"keypad"}
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        listener.close()
        await shoe_pipe.aclose()
        await key_pipe.aclose()
