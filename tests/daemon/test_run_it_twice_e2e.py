"""One hand run twice through the real daemon (issue 28): the config's ``[game.run_it]``, the
simulated shoe on the real wire protocol, the SQLite journal, a real mosquitto, the dealer's
``run_it`` over MQTT, and independent subscribers of the public and the secure feed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hardware_sim.devices import SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.app import run_daemon
from tablectl.clock import SystemClock
from tablectl.config import load_config
from tablectl.daemon import TableDaemon
from tablectl.domain.cards import parse_cards
from tablectl.sources.rfid import RfidShoeSource
from tests.conftest import Broker
from tests.daemon.helpers import Console, Listener
from tests.daemon.test_end_to_end import write_config

HOLE = "2c Kh As 3d Kd Ad"          # seats 2, 3, 1 (button 1): seat 1 aces, seat 3 kings
RUN1 = "4c 7h 8s 9d 5c Jc 6c 2s"    # aces hold
RUN2 = "4d Ks 7c 2h 5d Th 6d 3s"    # kings make a set


async def test_a_hand_run_twice_through_the_daemon(tmp_path: Path, mosquitto: Broker) -> None:
    write_config(tmp_path, mosquitto, "holdem", "no-limit",
                 {"small_blind": 50, "big_blind": 100}, [5000, 5000, 5000])
    path = tmp_path / "table.toml"
    path.write_text(path.read_text().replace("[game.stakes]",
                                             "[game.run_it]\nmax_runs = 2\n[game.stakes]"))
    config = load_config(path)
    clock = SystemClock()
    shoe = SimShoe(config.load_deck(), clock=clock, seed=3)
    pipe = PipeDevice(shoe, clock=clock)
    source = RfidShoeSource("shoe", "sim", clock=clock, opener=pipe.open)
    public = Listener(mosquitto.host, mosquitto.port, "e2e")
    secure = Listener(mosquitto.host, mosquitto.port, "e2e", secure=True)
    console = Console(mosquitto.host, mosquitto.port, "e2e", "dealer-e2e")
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(config, clock=clock, sources=[source],
                                          ready=ready.set_result))

    async def send(name: str, **args: object) -> dict[str, object]:
        return await asyncio.to_thread(console.send, name, dict(args))

    async def draw(cards: str) -> None:
        applied = asyncio.Event()
        daemon.on_outcome = lambda _inp, _out: applied.set()
        for card in parse_cards(cards):
            target = daemon.applied + 1
            shoe.draw(card)
            async with asyncio.timeout(10):
                while daemon.applied < target:    # the daemon's loop applies the read
                    await applied.wait()
                    applied.clear()

    try:
        daemon = await asyncio.wait_for(ready, 10)
        assert await asyncio.to_thread(public.wait_for, lambda s: s.latest_state() is not None)
        assert (await send("start_hand"))["status"] == "ok"
        await draw(HOLE)
        for seat, kind, amount in ((1, "raise", 5000), (2, "fold", None), (3, "call", None)):
            reply = await send("action", seat=seat, kind=kind,
                               **({"amount": amount} if amount else {}))
            assert reply["status"] == "ok", reply
        too_many = await send("run_it", count=3)
        assert too_many["status"] == "error"
        assert too_many["error"]["code"] == "illegal_action"  # type: ignore[index]
        assert (await send("run_it", count=2))["status"] == "ok"
        await draw(RUN1 + " " + RUN2)
        assert await asyncio.to_thread(public.wait_for, lambda s: any(
            e.get("type") == "hand_ended" for e in s.events()))
        assert await asyncio.to_thread(public.wait_for, lambda s: (
            (s.latest_state() or {}).get("data", {}).get("phase") == "settled"))
        events = public.events()
        winners = [(e["data"]["run"], e["data"]["seat"], e["data"]["amount"])  # type: ignore[index]
                   for e in events if e.get("type") == "winner"]
        assert winners == [(1, 1, 5025), (2, 3, 5025)]
        runs = (public.latest_state() or {})["data"]["runs"]  # type: ignore[index]
        assert runs == {"count": 2, "boards": [["7h", "8s", "9d", "Jc", "2s"],
                                               ["Ks", "7c", "2h", "Th", "3s"]]}
        # no hole card on the public feed before the hands were turned face up
        face_up = next(i for i, e in enumerate(events) if e.get("type") == "face_up")
        hidden = {str(c) for c in parse_cards(HOLE)}
        early = " ".join(str(e.get("data")) for e in events[:face_up])
        assert not any(card in early for card in hidden)
        assert any(m.get("type") == "holecards" for t, m in secure.messages
                   if t.startswith("secure/"))
        seqs = [e["seq"] for e in events]
        assert seqs == list(range(1, len(seqs) + 1))
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        public.close()
        secure.close()
        console.close()
        await pipe.aclose()
