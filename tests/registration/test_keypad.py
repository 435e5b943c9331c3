"""KeypadSource over the simulated keypad on the real codec: each press arrives once as its
mapped command (short on release, long on LONG, never both), with a deterministic unique id,
the keypad's user and the injected clock's time; online/offline as DeviceStatus."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from hardware_sim.devices import SimKeypad
from hardware_sim.serve import PipeDevice, PtyDevice
from tablectl.clock import ManualClock, SystemClock
from tablectl.controller.inputs import Command, DeviceStatus
from tablectl.sources.base import SourceEvent
from tablectl.sources.keypad import (
    DEFAULT_KEY_MAP,
    Key,
    KeyCommand,
    KeypadSource,
    parse_key_map,
)
from tests.firmware_bridge.conftest import Driver


class Events:
    """Collects a source's events in the background."""

    def __init__(self, source: KeypadSource) -> None:
        self.got: list[SourceEvent] = []
        self._changed = asyncio.Condition()
        self._task = asyncio.create_task(self._run(source))

    async def _run(self, source: KeypadSource) -> None:
        async for event in source.events():
            async with self._changed:
                self.got.append(event)
                self._changed.notify_all()

    async def until(self, pred: Callable[[], bool], within: float = 10.0) -> None:
        """Wait (real time, bounded) until ``pred()`` holds."""
        async with asyncio.timeout(within), self._changed:
            await self._changed.wait_for(pred)

    @property
    def commands(self) -> list[Command]:
        return [e for e in self.got if isinstance(e, Command)]

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


def action(kind: str) -> dict[str, object]:
    return {"kind": kind, "amount": None}


async def test_presses_become_the_mapped_commands_once_each(
        clock: ManualClock, driver: Driver) -> None:
    keypad = SimKeypad(clock=clock, seed=4)
    pipe = PipeDevice(keypad, clock=clock)
    source = KeypadSource("keypad-t01", "sim-keypad", clock=clock, opener=pipe.open)
    async with source:
        events = Events(source)
        await driver.until(lambda: any(isinstance(e, DeviceStatus) for e in events.got))
        online = events.got[0]
        assert isinstance(online, DeviceStatus) and online.online and online.kind == "keypad"
        for key in (1, 2, 3, 4, 7, 6, 0):
            keypad.press(key)
            keypad.release(key)
        await driver.until(lambda: len(events.commands) == 7)
        got = [(c.name, dict(c.args)) for c in events.commands]
        assert got == [("action", action("fold")), ("action", action("check")),
                       ("action", action("call")), ("action", action("bet")),
                       ("action", action("raise")), ("start_hand", {}), ("next_hand", {})]
        keypad.press(5)
        keypad.release(5)                          # short: undo
        keypad.long_press(5)                       # long: misdeal, and no undo
        keypad.press(11)
        keypad.release(11)                         # unmapped: nothing
        keypad.press(2)
        await driver.advance(1.0)                  # held past long_after: LONG, no long command
        keypad.release(2)                          # ... so release sends the short one
        await driver.until(lambda: len(events.commands) == 10)
        await driver.advance(0.5)
        names = [c.name for c in events.commands[7:]]
        assert names == ["undo", "misdeal", "action"]
        assert dict(events.commands[-1].args) == action("check")
        assert len(events.commands) == 10          # nothing more came
        ids = [c.id for c in events.commands]
        assert len(set(ids)) == len(ids)
        assert all(i.startswith(f"keypad-t01:{keypad.boot_id:08x}:") for i in ids)
        assert all(c.user == "keypad-t01" for c in events.commands)
        times = [c.at for c in events.commands]     # the manual clock's wall time
        assert times == sorted(times) and online.at <= times[0] and times[-1] <= clock.now()
        assert times[-1] - times[0] >= timedelta(seconds=1.0)   # the held key came later
        await events.stop()
    await pipe.aclose()


async def test_unplug_delivers_queued_presses_once_and_reports_offline(
        clock: ManualClock, driver: Driver) -> None:
    keypad = SimKeypad(clock=clock, seed=9)
    pipe = PipeDevice(keypad, clock=clock)
    source = KeypadSource("kp", "sim", clock=clock, opener=pipe.open, user="dealer-t01",
                          key_map={**DEFAULT_KEY_MAP, Key(9): KeyCommand("kill_hand")})
    async with source:
        events = Events(source)
        await driver.until(lambda: any(isinstance(e, DeviceStatus) for e in events.got))
        keypad.press(1)
        keypad.release(1)
        await driver.until(lambda: len(events.commands) == 1)
        await pipe.unplug()
        keypad.press(9)                            # pressed while the cable is out
        keypad.release(9)
        await driver.until(lambda: any(isinstance(e, DeviceStatus) and not e.online
                                       for e in events.got))
        pipe.replug()
        await driver.until(lambda: len(events.commands) == 2, within=30)
        await driver.advance(2.0)
        assert [c.name for c in events.commands] == ["action", "kill_hand"]
        assert all(c.user == "dealer-t01" for c in events.commands)
        first_id = events.commands[0].id
        await events.stop()
    await pipe.aclose()
    # the same device stream gives the same ids (deterministic): a second run from scratch
    clock2 = ManualClock()
    driver2 = Driver(clock2)
    keypad2 = SimKeypad(clock=clock2, seed=9)
    pipe2 = PipeDevice(keypad2, clock=clock2)
    async with KeypadSource("kp", "sim", clock=clock2, opener=pipe2.open) as source2:
        events2 = Events(source2)
        await driver2.until(lambda: any(isinstance(e, DeviceStatus) for e in events2.got))
        keypad2.press(1)
        keypad2.release(1)
        await driver2.until(lambda: len(events2.commands) == 1)
        assert events2.commands[0].id == first_id
        await events2.stop()
    await pipe2.aclose()


def test_parse_key_map_reads_actions_and_command_names() -> None:
    km = parse_key_map({"1": "fold", "4": "raise", "5 long": "misdeal", "10": "kill_hand"})
    assert km[Key(1)] == KeyCommand("action", {"kind": "fold", "amount": None})
    assert km[Key(4)].args["kind"] == "raise"
    assert km[Key(5, long=True)] == KeyCommand("misdeal")
    assert km[Key(10)] == KeyCommand("kill_hand")
    for bad in ({"x": "fold"}, {"1 short": "fold"}, {"1": " "}, {"300": "fold"}):
        with pytest.raises(ValueError):
            parse_key_map(bad)
    with pytest.raises(ValueError, match="unknown action kind"):
        KeyCommand.action("shove")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
async def test_keypad_over_a_real_pty(tmp_path: Path) -> None:
    clock = SystemClock()
    keypad = SimKeypad(clock=clock, seed=2)
    path = tmp_path / "usb-Sim_Keypad-if00"
    async with (PtyDevice(keypad, path, clock=clock),
                KeypadSource("keypad-t01", str(path), clock=clock) as source):
        events = Events(source)
        await events.until(lambda: any(isinstance(e, DeviceStatus) for e in events.got))
        keypad.press(3)
        keypad.release(3)
        keypad.long_press(5)
        await events.until(lambda: len(events.commands) >= 2)
        assert [(c.name, dict(c.args)) for c in events.commands] == [
            ("action", action("call")), ("misdeal", {})]
        await events.stop()
