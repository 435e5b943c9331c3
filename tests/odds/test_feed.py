"""The odds feed and workers: latest request wins, stale figures are dropped, the topic is
secure, and the real worker process computes what the sans-IO core computes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from datetime import UTC, datetime
from typing import Any

import pytest

from tablectl.odds.feed import OddsFeed
from tablectl.odds.position import OddsRequest, compute, request_from_snapshot
from tablectl.odds.worker import InlineWorker, ProcessWorker
from tablectl.publish.base import MemoryPublisher
from tablectl.publish.envelope import SnapshotEnvelope
from tablectl.publish.topics import SecretTopicError, Topic
from tests.odds.priority import normal_share_for_idle_children
from tests.reliability.harness import poll_until

TABLE = "t01"


def _env(seats: list[tuple[int, str, list[str]]], board: list[str], seq: int,
         hand: str = "t01-000001") -> SnapshotEnvelope:
    data: dict[str, Any] = {
        "hand": {"id": hand, "number": 1}, "game": {"variant": "holdem"}, "street": "flop",
        "phase": "betting", "board": board, "burns": [],
        "seats": [{"seat": n, "name": f"P{n}", "status": status,
                   "cards": [{"card": c, "up": False} for c in cards]}
                  for n, status, cards in seats]}
    return SnapshotEnvelope(table=TABLE, epoch=2, seq=seq, ts=datetime(2026, 12, 1, tzinfo=UTC),
                            hand=5, data=data)


SEATS = [(1, "active", ["As", "Ah"]), (2, "active", ["Ks", "Kh"]), (3, "active", ["Qs", "Qh"])]


async def _drain(feed: OddsFeed, worker: InlineWorker) -> None:
    worker.run_pending()
    for _ in range(5):
        await asyncio.sleep(0)


async def test_latest_position_wins_and_is_published_on_the_secure_root() -> None:
    pub = MemoryPublisher()
    feed = OddsFeed(TABLE, lambda: pub, InlineWorker)
    worker = feed.worker
    assert isinstance(worker, InlineWorker)
    task = asyncio.create_task(feed.run(lambda: True))
    try:
        feed.update(_env(SEATS, ["2c", "7d", "9h"], seq=3))
        feed.update(_env(SEATS, ["2c", "7d", "9h"], seq=4))           # same position: ignored
        feed.update(_env(SEATS, ["2c", "7d", "9h", "Qc"], seq=5))     # replaces the waiting one
        await _drain(feed, worker)
        # the flop's figures were being computed when the turn came: dropped as stale
        assert worker.dropped == 1
        sent = [m for m in pub.sent if m.topic.value == f"secure/v1/tables/{TABLE}/odds"]
        assert len(sent) == 1 and sent[0].secret and not sent[0].retain
        last = json.loads(sent[-1].payload)
        assert last["type"] == "odds" and last["epoch"] == 2 and last["seq"] == 5
        assert last["hand"] == 5 and last["data"]["board"] == ["2c", "7d", "9h", "Qc"]
        request = request_from_snapshot(_env(SEATS, ["2c", "7d", "9h", "Qc"], seq=5).data)
        assert request is not None
        assert last["data"]["players"] == compute(request)["players"]
        # a fold changes the position: new figures for the two left
        feed.update(_env([*SEATS[:2], (3, "folded", ["Qs", "Qh"])], ["2c", "7d", "9h", "Qc"],
                         seq=6))
        await _drain(feed, worker)
        folded = json.loads(pub.sent[-1].payload)["data"]
        assert [p["seat"] for p in folded["players"]] == [1, 2]
        assert folded["dead"] == ["Qs", "Qh"]
        # one player left: the figures are withdrawn once
        count = len(pub.sent)
        only = [SEATS[0], (2, "folded", ["Ks", "Kh"]), (3, "folded", ["Qs", "Qh"])]
        feed.update(_env(only, ["2c", "7d", "9h", "Qc"], seq=7))
        feed.update(_env(only, ["2c", "7d", "9h", "Qc", "3d"], seq=8))
        await _drain(feed, worker)
        assert len(pub.sent) == count + 1
        assert json.loads(pub.sent[-1].payload)["data"]["players"] == []
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_stale_results_are_dropped() -> None:
    got: list[tuple[int, dict[str, object]]] = []
    worker = InlineWorker(lambda token, body: got.append((token, body)))
    requests: list[Any] = [request_from_snapshot(_env(SEATS, b, seq=i).data)
                           for i, b in enumerate((["2c", "7d", "9h"], ["2c", "7d", "9h", "Qc"],
                                                  ["2c", "7d", "9h", "Qc", "3d"]), 1)]
    assert all(r is not None for r in requests)
    worker.submit(1, requests[0])                 # starts at once (the worker is free)
    worker.submit(2, requests[1])                 # waits ...
    worker.submit(3, requests[2])                 # ... and is replaced
    assert worker.run_pending() == 2              # the first (stale by then) and the last
    assert [t for t, _ in got] == [3] and worker.dropped == 2
    with pytest.raises(ValueError, match="not newer"):
        worker.submit(3, requests[0])
    # withdrawn: the running request's figures are stale and the waiting one is not computed
    worker.submit(4, requests[0])
    worker.submit(5, requests[1])
    worker.withdraw(6)
    assert worker.run_pending() == 1 and [t for t, _ in got] == [3]


async def test_odds_never_go_to_a_public_topic() -> None:
    pub = MemoryPublisher()
    with pytest.raises(SecretTopicError):
        await pub.publish(Topic(f"poker/v1/tables/{TABLE}/odds"), b"{}", secret=True)
    feed = OddsFeed(TABLE, lambda: pub, InlineWorker)
    assert feed.topic.is_secure


async def _result(got: asyncio.Queue[tuple[int, dict[str, object]]],
                  ) -> tuple[int, dict[str, object]]:
    """The worker's next result. Its child runs in the idle scheduling class, which gets no
    core on a machine busy with a second suite: what it computes is judged here, so the child
    is given a normal share while the test waits (its class is checked below)."""
    for _ in range(60):
        normal_share_for_idle_children()
        with contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(got.get(), 1.0)
    raise AssertionError("the worker sent no result in 60 s")


async def test_the_process_worker_computes_off_the_loop() -> None:
    loop = asyncio.get_running_loop()
    got: asyncio.Queue[tuple[int, dict[str, object]]] = asyncio.Queue()
    worker = ProcessWorker(lambda t, b: got.put_nowait((t, b)), loop)
    try:
        requests: list[OddsRequest] = []
        for i, board in enumerate((["2c", "7d", "9h"], ["2c", "7d", "9h", "Qc"]), 1):
            request = request_from_snapshot(_env(SEATS, board, seq=i).data)
            assert request is not None
            requests.append(request)
            worker.submit(i, request)
        token, body = await _result(got)
        assert token == 2 and body == compute(requests[1])
        await asyncio.sleep(0.2)
        assert got.empty()                         # the first one's figures were stale
    finally:
        worker.close()


async def test_closing_the_process_worker_ends_its_child_at_once() -> None:
    """A stopped daemon or demo must not wait for the child to finish a computation nobody
    will read (in the idle scheduling class on a busy machine that took minutes): close()
    terminates it, busy or not."""
    loop = asyncio.get_running_loop()
    worker = ProcessWorker(lambda t, b: None, loop)
    request = request_from_snapshot(_env(SEATS, ["2c", "7d", "9h"], seq=1).data)
    assert request is not None
    worker.submit(1, request)                      # starts the child: tables, then the odds
    children = list(worker._pool._processes.values())  # type: ignore[union-attr]
    assert children
    worker.close()
    for child in children:
        await asyncio.to_thread(child.join, 30)
        assert child.exitcode == -signal.SIGTERM, child.exitcode


async def test_the_process_worker_computes_in_the_idle_scheduling_class() -> None:
    """Odds never take a core from the table: the child runs in Linux's SCHED_IDLE (the
    daemon's whole-stack tests give it a normal share back, to judge what it computes on a
    loaded machine; this is where its class is checked)."""
    loop = asyncio.get_running_loop()
    got: asyncio.Queue[tuple[int, dict[str, object]]] = asyncio.Queue()
    worker = ProcessWorker(lambda t, b: got.put_nowait((t, b)), loop)
    try:
        request = request_from_snapshot(_env(SEATS, ["2c", "7d", "9h", "Qc"], seq=1).data)
        assert request is not None
        worker.submit(1, request)
        children = list(worker._pool._processes.values())  # type: ignore[union-attr]
        assert children and all(c.pid is not None for c in children)

        def idle() -> bool:   # the child starts in the normal class, then its initializer runs
            return all(os.sched_getscheduler(c.pid) == os.SCHED_IDLE for c in children)
        await poll_until(idle, 60)
    finally:
        worker.close()
