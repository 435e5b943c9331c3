"""The journal cannot be written (disk full, read-only): the daemon applies nothing it could not
journal, raises an error state, and accepts no further input.

The daemon runs in process on the real SQLite journal; the faults are SQLite's own: a page
limit makes every write fail with SQLITE_FULL ("database or disk is full", what a full disk
gives), ``query_only`` with SQLITE_READONLY ("attempt to write a readonly database", what a
read-only file or mount gives). Neither changes what was already on disk.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tablectl.app import initial_state, table_setup
from tablectl.clock import ManualClock
from tablectl.config import load_config
from tablectl.controller.inputs import CardRead, Command
from tablectl.daemon import JOURNAL_UNAVAILABLE, TableDaemon
from tablectl.journal import JournalWriteError
from tablectl.journal.sqlite import SqliteJournal
from tablectl.publish import topics
from tablectl.publish.base import IncomingMessage, MemoryPublisher, MessageProps
from tests.reliability.harness import DEALER, TABLE, VARIANTS, write_config

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def break_journal(journal: SqliteJournal, how: str) -> None:
    """Make every further write fail as a full disk or a read-only file would."""
    conn: sqlite3.Connection = journal._conn
    if how == "disk-full":
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count={pages}")
    else:
        conn.execute("PRAGMA query_only=1")


def heal_journal(journal: SqliteJournal) -> None:
    """Undo :func:`break_journal`."""
    conn: sqlite3.Connection = journal._conn
    conn.execute("PRAGMA query_only=0")
    conn.execute("PRAGMA max_page_count=1073741823")


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TableDaemon, MemoryPublisher, SqliteJournal]]:
    variant, structure, stakes = VARIANTS[1]
    config = load_config(write_config(tmp_path, "mqtt://127.0.0.1:1", variant, structure,
                                      stakes))
    clock = ManualClock(start=NOW)
    publisher = MemoryPublisher()
    with SqliteJournal.open(config.journal.path, clock) as journal:
        daemon = TableDaemon(table_setup(config), initial_state(config), journal, publisher,
                             clock=clock)
        daemon.recover()
        yield daemon, publisher, journal


def command(daemon: TableDaemon, name: str, n: int = 1) -> Command:
    return Command(name=name, user=DEALER, id=f"c{name}{n}", at=daemon.clock.now(), args={})


def read(daemon: TableDaemon, uid: str, n: int) -> CardRead:
    return CardRead(source="shoe", uid=uid, antenna=0, read_id=f"shoe:1:{n}",
                    at=daemon.clock.now())


def state(daemon: TableDaemon) -> str:
    """Everything the controller shows, public and secure."""
    return json.dumps([daemon.controller.public_snapshot(),
                       daemon.controller.secure_snapshot()], sort_keys=True, default=str)


def count(journal: SqliteJournal) -> tuple[int, int]:
    """(inputs, events) in the journal."""
    inputs = journal.inputs()
    events = journal.unpublished()
    return len(inputs), len(events)


@pytest.mark.parametrize("how", ["disk-full", "read-only"])
async def test_an_input_the_journal_refuses_is_never_applied(
        table: tuple[TableDaemon, MemoryPublisher, SqliteJournal], how: str) -> None:
    daemon, publisher, journal = table
    uids = load_uids(daemon)
    assert daemon.apply(command(daemon, "start_hand")).reply.ok  # type: ignore[union-attr]
    daemon.apply(read(daemon, uids[0], 1))
    before, on_disk = state(daemon), count(journal)
    applied = daemon.applied

    break_journal(journal, how)
    # a full disk may still take what fits in the pages it has: deal until it refuses
    n = 1
    while True:
        n += 1
        assert n < len(uids), "the journal never filled up"
        before, on_disk, applied = state(daemon), count(journal), daemon.applied
        try:
            daemon.apply(read(daemon, uids[n - 1], n))
        except JournalWriteError:
            break
    assert daemon.faulted is not None
    assert state(daemon) == before and daemon.applied == applied and count(journal) == on_disk
    nxt = n + 1

    # a command over MQTT: an error reply naming the fault, nothing applied
    reply_topic = "poker/v1/replies/dealer-rel/x"
    await daemon.handle_message(IncomingMessage(
        topics.cmd(TABLE, "action", DEALER),
        json.dumps({"id": "a1", "args": {"seat": 4, "kind": "call"}}).encode(),
        props=MessageProps(response_topic=reply_topic, correlation_data=b"a1")))
    reply = json.loads(publisher.sent[-1].payload)
    assert reply["status"] == "error" and reply["error"]["code"] == JOURNAL_UNAVAILABLE
    assert state(daemon) == before

    # a card from a source: dropped, not applied
    async def one_read() -> AsyncIterator[CardRead]:
        yield read(daemon, uids[nxt - 1], nxt)
    await daemon.feed_source(one_read())
    assert state(daemon) == before and daemon.applied == applied

    # the error state is on the public snapshot
    snap = json.loads(json.dumps(daemon.public_snapshot()))
    assert snap["phase"] == "fault"
    assert JOURNAL_UNAVAILABLE in [e["code"] for e in snap["errors"]]

    # the disk is fine again: still no input until a restart (the operator's decision)
    heal_journal(journal)
    with pytest.raises(JournalWriteError):
        daemon.apply(read(daemon, uids[n - 1], n))
    assert count(journal) == on_disk

    # a restart rebuilds exactly the state before the fault: nothing was half-applied
    again = TableDaemon(daemon.setup, daemon._initial, journal,
                        MemoryPublisher(), clock=daemon.clock)
    again.recover()
    assert state(again) == before
    again.apply(read(again, uids[n - 1], n))
    assert count(journal)[0] == on_disk[0] + 1 and again.faulted is None


def load_uids(daemon: TableDaemon) -> list[str]:
    """UIDs of the table's deck."""
    deck = daemon.setup.decks[daemon.setup.deck_id]
    return [deck.uid_for(c) for c in deck.uids_by_card]
