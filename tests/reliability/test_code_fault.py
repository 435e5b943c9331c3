"""A fault in the table's own code on one input stops nothing and changes nothing.

Commands were already guarded (``serve_commands``); a source's events were not: a card read
whose handling raised inside the controller ended the feeding task and with it the daemon's
task group, the whole table, and a controller that had taken part of an input kept it while
the journal had rolled it back. The faults here are injected into the real controller
(a bug stands in for one), on the real SQLite journal.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tablectl.app import initial_state, table_setup
from tablectl.clock import ManualClock
from tablectl.config import load_config
from tablectl.controller import HandController
from tablectl.controller.inputs import CardRead, ControllerInput, DeviceStatus
from tablectl.controller.outcome import Outcome
from tablectl.daemon import TableDaemon
from tablectl.daemon.feeding import keep_feeding
from tablectl.journal.sqlite import SqliteJournal
from tablectl.publish.base import MemoryPublisher
from tablectl.sources.base import SourceEvent
from tests.reliability.harness import VARIANTS, write_config
from tests.reliability.test_journal_unwritable import command, count, load_uids, read, state

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


class BugError(RuntimeError):
    """What the injected fault raises."""


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[TableDaemon]:
    variant, structure, stakes = VARIANTS[1]
    config = load_config(write_config(tmp_path, "mqtt://127.0.0.1:1", variant, structure,
                                      stakes))
    clock = ManualClock(start=NOW)
    with SqliteJournal.open(config.journal.path, clock) as journal:
        d = TableDaemon(table_setup(config), initial_state(config), journal,
                        MemoryPublisher(), clock=clock)
        d.recover()
        assert d.apply(command(d, "start_hand")).reply.ok  # type: ignore[union-attr]
        yield d


@pytest.fixture
def poisoned(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """UIDs whose read the controller takes in full and then fails on (a bug after the
    state changed, the worst place for one)."""
    uids: set[str] = set()
    real = HandController.handle

    def handle(self: HandController, inp: ControllerInput, **kw: Any) -> Outcome:
        out = real(self, inp, **kw)
        if isinstance(inp, CardRead) and inp.uid in uids:
            raise BugError(f"injected fault on {inp.uid}")
        return out

    monkeypatch.setattr(HandController, "handle", handle)
    return uids


def test_an_input_failing_in_the_controller_leaves_it_as_before(
        daemon: TableDaemon, poisoned: set[str]) -> None:
    uids = load_uids(daemon)
    daemon.apply(read(daemon, uids[0], 1))
    before, on_disk, applied = state(daemon), count(daemon.journal), daemon.applied  # type: ignore[arg-type]
    poisoned.add(uids[1])
    with pytest.raises(BugError):
        daemon.apply(read(daemon, uids[1], 2))
    # the controller took the card before it failed; it was rebuilt from the journal
    assert state(daemon) == before
    assert count(daemon.journal) == on_disk and daemon.applied == applied  # type: ignore[arg-type]
    assert daemon.faulted is None
    poisoned.clear()
    daemon.apply(read(daemon, uids[1], 3))
    assert state(daemon) != before and daemon.applied == applied + 1


async def test_a_source_event_that_fails_is_skipped_and_the_next_applied(
        daemon: TableDaemon, poisoned: set[str], caplog: pytest.LogCaptureFixture) -> None:
    uids = load_uids(daemon)
    poisoned.add(uids[1])
    daemon.apply(read(daemon, uids[0], 1))
    before = state(daemon)
    applied = daemon.applied

    async def reads() -> AsyncIterator[CardRead]:
        yield read(daemon, uids[1], 2)          # fails in the controller
        yield read(daemon, uids[2], 3)

    with caplog.at_level(logging.ERROR):
        await daemon.feed_source(reads())       # returns: nothing raised out of it
    assert daemon.applied == applied + 1
    dealt = [e for e in daemon.journal.inputs() if e.kind == "card_read"]
    assert [e.payload["uid"] for e in dealt][-2:] == [uids[0], uids[2]]
    assert state(daemon) != before
    said = [r.getMessage() for r in caplog.records]
    assert any("a CardRead from a source failed: BugError" in m for m in said)


class Flaky:
    """A source whose events end in a fault of its own code: ``fail_first`` times before
    yielding anything, then once after one read, then it yields one read and ends."""

    name = "shoe"
    kind = "rfid-shoe"

    def __init__(self, daemon: TableDaemon, uids: list[str], fail_first: int) -> None:
        self.daemon, self.uids, self.fail_first = daemon, uids, fail_first
        self.calls = 0

    def events(self) -> AsyncIterator[SourceEvent]:
        self.calls += 1
        return self._events(self.calls)

    async def _events(self, call: int) -> AsyncIterator[SourceEvent]:
        if call <= self.fail_first:
            raise BugError(f"events call {call}")
        n = call - self.fail_first
        yield read(self.daemon, self.uids[n], 10 + n)
        if n == 1:
            raise BugError("after one read")


async def test_a_source_that_fails_is_taken_again_and_the_table_goes_on(
        daemon: TableDaemon, caplog: pytest.LogCaptureFixture) -> None:
    uids = load_uids(daemon)
    applied = daemon.applied
    src = Flaky(daemon, uids, fail_first=3)
    with caplog.at_level(logging.ERROR):
        await keep_feeding(daemon, src, retry=(0.001, 0.004))  # type: ignore[arg-type]
    assert src.calls == 5
    journaled = list(daemon.journal.inputs())[-6:]
    # the two reads, and the shoe shown offline while it was down, online once it read again
    assert [(e.kind, e.payload.get("online")) for e in journaled] == [
        ("device_status", False), ("device_status", True), ("card_read", None),
        ("device_status", False), ("device_status", True), ("card_read", None)]
    assert daemon.applied == applied + 6
    devices = json.loads(json.dumps(daemon.controller.public_snapshot()["devices"]))
    assert [d for d in devices if d["name"] == "shoe"] == [
        {"name": "shoe", "kind": "rfid-shoe", "status": "online"}]
    waits = [r.getMessage().split("taken again in ")[1].split(" s")[0]
             for r in caplog.records if "taken again in" in r.getMessage()]
    # doubling while it fails before yielding anything; back to the first after a read
    assert waits == ["0.001", "0.002", "0.004", "0.001"]


async def test_a_source_down_is_shown_offline_until_it_reads_again(
        daemon: TableDaemon) -> None:
    """A source that fails before yielding anything, and whose next events start with its own
    status, is not shown online by the feeder: its status is the device's to say."""
    uids = load_uids(daemon)

    class Reports(Flaky):
        async def _events(self, call: int) -> AsyncIterator[SourceEvent]:
            if call == 1:
                raise BugError("events call 1")
            yield DeviceStatus("shoe", False, NOW, kind="rfid-shoe")
            yield read(self.daemon, self.uids[1], 11)

    src = Reports(daemon, uids, fail_first=1)
    await keep_feeding(daemon, src, retry=(0.001, 0.004))  # type: ignore[arg-type]
    journaled = list(daemon.journal.inputs())[-3:]
    assert [(e.kind, e.payload.get("online")) for e in journaled] == [
        ("device_status", False), ("device_status", False), ("card_read", None)]
