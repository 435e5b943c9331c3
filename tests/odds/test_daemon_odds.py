"""Live odds from the real daemon (``run_daemon`` with ``[odds] enabled = true``, its worker
process) on a real mosquitto, judged on the wire by an independent subscriber.

The dealer deals from the simulated shoe and decides through the MQTT console; after every
card and every decision it waits until the subscriber has the figures of the position the
daemon is in (so the worker never has a newer position to drop a result for). Then every
position a secure snapshot showed (a card read, a fold) must have had its own odds message,
in order, with the figures :func:`tablectl.odds.position.compute` gives for it, the envelope
of that snapshot, a body valid against the checked-in schema; a withdrawal when nothing is
left to value; and nothing of it under ``poker/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from hardware_sim.devices import SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.app import run_daemon
from tablectl.clock import SystemClock
from tablectl.config import load_config
from tablectl.daemon import TableDaemon
from tablectl.odds.position import compute, request_from_snapshot
from tablectl.publish.envelope import SnapshotEnvelope
from tablectl.sources.rfid import RfidShoeSource
from tests.conftest import Broker
from tests.daemon_extra.checks import check_schemas
from tests.daemon_extra.session import (
    DEALER,
    TABLE,
    Endpoint,
    FastConsole,
    Recorder,
    WireDealer,
    write_config,
)
from tests.odds.priority import normal_share_for_idle_children

ODDS = f"secure/v1/tables/{TABLE}/odds"
PRECISION = 5.0
"""Monte Carlo 95% half-width, points: coarse, so that the positions sampled (before the
flop, stud's early streets) cost milliseconds in the worker and again in the test."""


class Expected:
    """The odds bodies the daemon owes, from the secure snapshots it published."""

    def __init__(self) -> None:
        self.last: Any = None
        self.cleared = True
        self.bodies: list[tuple[SnapshotEnvelope, dict[str, object]]] = []

    def snapshot(self, env: SnapshotEnvelope) -> None:
        request = request_from_snapshot(env.data, precision=PRECISION / 100)
        if request == self.last:
            return
        self.last = request
        if request is None:
            if not self.cleared:
                self.cleared = True
                self.bodies.append((env, {"hand": env.data.get("hand"), "players": []}))
            return
        self.cleared = False
        self.bodies.append((env, compute(request)))


class PacedDealer(WireDealer):
    """A :class:`WireDealer` that, after every card and command, waits for the odds."""

    def __init__(self, *args: Any, recorder: Recorder, expected: Expected,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recorder = recorder
        self.expected = expected
        self.position: Any = None

    async def caught_up(self) -> None:
        """Wait for the figures of the position the daemon is in now (its controller's
        secure view: the snapshot it publishes next, if it has not yet)."""
        view = self.daemon.controller.secure_snapshot_view()
        request = request_from_snapshot(view, precision=PRECISION / 100)
        if request == self.position:
            return
        self.position = request
        # figures shown before are withdrawn with the hand of the snapshot that ends them
        want = compute(request) if request is not None else {"hand": view.get("hand"),
                                                             "players": []}

        def done(raw: list[tuple[str, bytes]]) -> bool:
            odds = [json.loads(p)["data"] for t, p in raw if t == ODDS]
            return bool(odds) and odds[-1] == want
        # the worker runs in the idle scheduling class, which on a loaded machine (this suite
        # beside another) gets no core for minutes: this test checks what it computes, not
        # that it yields (tests/odds/test_feed.py checks its class), so it gets a normal share
        for _ in range(60):
            normal_share_for_idle_children()
            if await asyncio.to_thread(self.recorder.wait_for, done, 1.0):
                break
        else:
            got = [json.loads(p)["data"] for t, p in self.recorder.raw if t == ODDS]
            pytest.fail(f"no odds message for {want}; the last one: {got[-1:]}")

    async def send(self, name: str, args: dict[str, object] | None = None) -> dict[str, object]:
        reply = await super().send(name, args)
        await self.caught_up()
        return reply

    async def settle(self, target: int) -> None:
        await super().settle(target)
        await self.caught_up()


async def _session(tmp_path: Path, broker: Broker, code: str, hands: int,
                   seed: int) -> tuple[list[tuple[str, bytes]], Expected]:
    write_config(tmp_path, Endpoint(broker.host, broker.port), code, seats=3)
    path = tmp_path / "table.toml"
    path.write_text(path.read_text() + f"[odds]\nenabled = true\nprecision = {PRECISION}\n")
    config = load_config(path)
    clock = SystemClock()
    shoe = SimShoe(config.load_deck(), clock=clock, seed=seed)
    pipe = PipeDevice(shoe, clock=clock)
    source = RfidShoeSource("shoe", "sim", clock=clock, opener=pipe.open)
    recorder = Recorder(broker.host, broker.port)
    console = FastConsole(broker.host, broker.port, TABLE, DEALER)
    expected = Expected()
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(config, clock=clock, sources=[source],
                                          ready=ready.set_result))
    try:
        daemon = await asyncio.wait_for(ready, 10)
        feed_update = daemon.on_secure_snapshot
        assert feed_update is not None, "odds enabled but the daemon feeds no odds"

        def observed(env: SnapshotEnvelope) -> None:
            expected.snapshot(env)
            feed_update(env)
        daemon.on_secure_snapshot = observed
        assert await asyncio.to_thread(recorder.wait_for, lambda raw: any(
            t == f"poker/v1/tables/{TABLE}/state" for t, _ in raw))
        dealer = PacedDealer(config, shoe, source, console, daemon, seed,
                             recorder=recorder, expected=expected)
        for _ in range(hands):
            await dealer.play()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.to_thread(recorder.close)
        console.close()
        await pipe.aclose()
    return list(recorder.raw), expected


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("code", "hands", "seed"), [("PO", 2, 3), ("FR", 1, 5)])
async def test_the_daemon_publishes_the_odds_of_every_position_on_the_secure_root(
        tmp_path: Path, mosquitto: Broker, code: str, hands: int, seed: int) -> None:
    raw, expected = await _session(tmp_path, mosquitto, code, hands=hands, seed=seed)

    sent = [json.loads(p) for t, p in raw if t == ODDS]
    # every position had its own message, in order, with its snapshot's envelope
    assert [m["data"] for m in sent] == [body for _, body in expected.bodies]
    for message, (env, _) in zip(sent, expected.bodies, strict=True):
        assert (message["type"], message["seq"], message["hand"], message["epoch"]) == \
            ("odds", env.seq, env.hand, env.epoch)
    valued = [m["data"] for m in sent if m["data"]["players"]]
    withdrawn = [m for m in sent if not m["data"]["players"]]
    assert valued and len(withdrawn) >= hands      # each hand ends with them withdrawn
    # the session went where the figures change: more than one street, and a fold or more
    assert len({(d["hand"]["id"], d["street"]) for d in valued}) >= 2 * hands
    # a fold: the folded hand's cards become dead in the next figures, without its seat
    assert any({c for p in before["players"] for c in p["cards"]} & set(after["dead"])
               and len(after["players"]) < len(before["players"])
               for before, after in pairwise(valued))
    assert {len(d["players"]) for d in valued} >= {2, 3}
    assert all(abs(sum(p["equity"] for p in d["players"]) - 1) < 1e-3 for d in valued)

    report = check_schemas(raw)
    assert report.failures == []
    assert report.counts.get("OddsEnvelope") == len(sent)
    for topic, payload in raw:
        if not topic.startswith("secure/"):
            assert b'"odds"' not in payload and b'"equity"' not in payload, topic
