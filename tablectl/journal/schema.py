
"""The SQLite journal's schema: its tables, append-only triggers and upgrades, and the codec
of its rows (column lists and row -> record).

Tables (schema version 3)::

    meta(key, value)                 -- schema_version, epoch, journal_id, mark:NAME (marks)
    hands(id, number, epoch, started_at, ended_at, summary)
    inputs(seq, epoch, at, source, actor, kind, payload, hand_id, decision)
    events(id, epoch, seq, topic, type, payload, hand_id, created_at, published_at)
           UNIQUE(epoch, topic, seq)
    errors(id, code, detail, epoch, hand_id, raised_at, raised_by, cleared_at, cleared_by)
    refusals(id, epoch, at, user, topic, size, digest, code, reason, count)

``journal_id`` is a random number written when the file is created (and on the first open of
a journal made before it existed): it tells this journal's epochs from another journal's.

Append-only: triggers refuse ``DELETE`` on every table and ``UPDATE`` on inputs. Times are
ISO 8601 strings of aware UTC datetimes. Version 2 added ``inputs.decision`` (what was decided
about the input, JSON; NULL in rows written before): a version 1 journal is upgraded in place
when opened. Version 3 added ``refusals``: commands refused before the controller, a bounded
record each (never the payload), or one row for an aggregate of many.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Final

from tablectl.domain.errors import JournalError
from tablectl.domain.jsonvalue import load_json
from tablectl.journal.records import (
    ErrorRecord,
    EventRecord,
    HandRecord,
    JournalRecord,
    RefusalRecord,
    new_journal_id,
)

SCHEMA_VERSION: Final = 3
_REFUSALS: Final = """CREATE TABLE IF NOT EXISTS refusals(
    id INTEGER PRIMARY KEY, epoch INTEGER NOT NULL, at TEXT NOT NULL, user TEXT,
    topic TEXT NOT NULL, size INTEGER NOT NULL, digest BLOB, code TEXT NOT NULL,
    reason TEXT NOT NULL, count INTEGER NOT NULL)"""
_UPGRADES: Final = {1: "ALTER TABLE inputs ADD COLUMN decision TEXT",
                    2: _REFUSALS}
"""schema version -> the statement that brings a journal of that version to the next one"""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS hands(
    id INTEGER PRIMARY KEY, number INTEGER NOT NULL, epoch INTEGER NOT NULL,
    started_at TEXT NOT NULL, ended_at TEXT, summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs(
    seq INTEGER PRIMARY KEY, epoch INTEGER NOT NULL, at TEXT NOT NULL, source TEXT NOT NULL,
    actor TEXT, kind TEXT NOT NULL, payload TEXT NOT NULL,
    hand_id INTEGER REFERENCES hands(id), decision TEXT);
CREATE INDEX IF NOT EXISTS inputs_by_hand ON inputs(hand_id, seq);
CREATE TABLE IF NOT EXISTS events(
    id INTEGER PRIMARY KEY, epoch INTEGER NOT NULL, seq INTEGER NOT NULL, topic TEXT NOT NULL,
    type TEXT NOT NULL, payload TEXT NOT NULL, hand_id INTEGER REFERENCES hands(id),
    created_at TEXT NOT NULL, published_at TEXT, UNIQUE(epoch, topic, seq));
CREATE INDEX IF NOT EXISTS events_unpublished ON events(id) WHERE published_at IS NULL;
CREATE INDEX IF NOT EXISTS events_by_hand ON events(hand_id, id);
CREATE TABLE IF NOT EXISTS errors(
    id INTEGER PRIMARY KEY, code TEXT NOT NULL, detail TEXT NOT NULL, epoch INTEGER NOT NULL,
    hand_id INTEGER REFERENCES hands(id), raised_at TEXT NOT NULL, raised_by TEXT,
    cleared_at TEXT, cleared_by TEXT);
""" + _REFUSALS + """;
CREATE TRIGGER IF NOT EXISTS refusals_no_delete BEFORE DELETE ON refusals
    BEGIN SELECT RAISE(ABORT, 'journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS inputs_append_only BEFORE UPDATE ON inputs
    BEGIN SELECT RAISE(ABORT, 'journal inputs are append-only'); END;
CREATE TRIGGER IF NOT EXISTS inputs_no_delete BEFORE DELETE ON inputs
    BEGIN SELECT RAISE(ABORT, 'journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS hands_no_delete BEFORE DELETE ON hands
    BEGIN SELECT RAISE(ABORT, 'journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS errors_no_delete BEFORE DELETE ON errors
    BEGIN SELECT RAISE(ABORT, 'journal is append-only'); END;
"""

INPUT_COLS = "seq, epoch, at, source, kind, payload, actor, hand_id, decision"
EVENT_COLS = "id, epoch, seq, topic, type, payload, hand_id, created_at, published_at"
HAND_COLS = "id, number, epoch, started_at, ended_at, summary"
REFUSAL_COLS = "at, user, topic, size, digest, code, reason, count"
ERROR_COLS = ("id, code, detail, epoch, hand_id, raised_at, raised_by, cleared_at, "
               "cleared_by")

Row = tuple[object, ...]


def _time(value: object) -> datetime:
    assert isinstance(value, str)
    return datetime.fromisoformat(value)


def _opt_time(value: object) -> datetime | None:
    return None if value is None else _time(value)


def as_int(value: object) -> int:
    """An INTEGER column's value."""
    assert isinstance(value, int)
    return value


def _opt_int(value: object) -> int | None:
    return None if value is None else as_int(value)


def _str(value: object) -> str:
    assert isinstance(value, str)
    return value


def _opt_str(value: object) -> str | None:
    return None if value is None else _str(value)


def input_row(row: Row) -> JournalRecord:
    """An ``inputs`` row (``INPUT_COLS``) as a record."""
    return JournalRecord(seq=as_int(row[0]), epoch=as_int(row[1]), at=_time(row[2]),
                         source=_str(row[3]), kind=_str(row[4]),
                         payload=load_json(_str(row[5])), actor=_opt_str(row[6]),
                         hand_id=_opt_int(row[7]),
                         decision=None if row[8] is None else load_json(_str(row[8])))


def event_row(row: Row) -> EventRecord:
    """An ``events`` row (``EVENT_COLS``) as a record."""
    return EventRecord(id=as_int(row[0]), epoch=as_int(row[1]), seq=as_int(row[2]),
                       topic=_str(row[3]), type=_str(row[4]), payload=load_json(_str(row[5])),
                       hand_id=_opt_int(row[6]), created_at=_time(row[7]),
                       published_at=_opt_time(row[8]))


def hand_row(row: Row) -> HandRecord:
    """A ``hands`` row (``HAND_COLS``) as a record."""
    return HandRecord(id=as_int(row[0]), number=as_int(row[1]), epoch=as_int(row[2]),
                      started_at=_time(row[3]), ended_at=_opt_time(row[4]),
                      summary=load_json(_str(row[5])))


def error_row(row: Row) -> ErrorRecord:
    """An ``errors`` row (``ERROR_COLS``) as a record."""
    return ErrorRecord(id=as_int(row[0]), code=_str(row[1]), detail=load_json(_str(row[2])),
                       epoch=as_int(row[3]), hand_id=_opt_int(row[4]), raised_at=_time(row[5]),
                       raised_by=_opt_str(row[6]), cleared_at=_opt_time(row[7]),
                       cleared_by=_opt_str(row[8]))


def refusal_row(row: Row) -> RefusalRecord:
    """A ``refusals`` row (``REFUSAL_COLS``) as a record."""
    digest = row[4]
    assert digest is None or isinstance(digest, bytes)
    return RefusalRecord(at=_time(row[0]), user=_opt_str(row[1]), topic=_str(row[2]),
                         size=as_int(row[3]), digest=digest, code=_str(row[5]),
                         reason=_str(row[6]), count=as_int(row[7]))


def create_or_upgrade(conn: sqlite3.Connection, path: str) -> None:
    """Create the tables of a new journal, or bring an older one to :data:`SCHEMA_VERSION`
    in place; give a journal without an id its id. One transaction.

    Raises:
        JournalError: the file is a journal of an unknown schema version (nothing changed).
        sqlite3.DatabaseError: SQLite failed.
    """
    conn.executescript("BEGIN IMMEDIATE;" + _SCHEMA + "COMMIT;")
    conn.execute("BEGIN IMMEDIATE")
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None:
        conn.execute("INSERT INTO meta VALUES('schema_version', ?)", (SCHEMA_VERSION,))
        conn.execute("INSERT INTO meta VALUES('epoch', 0)")
    else:
        version = row[0]
        while version in _UPGRADES:
            conn.execute(_UPGRADES[version])
            version += 1
        if version != SCHEMA_VERSION:
            conn.execute("ROLLBACK")
            raise JournalError(f"{path}: journal schema {row[0]}, expected {SCHEMA_VERSION}")
        conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (SCHEMA_VERSION,))
    # a journal older than journal ids gets its id now (it keeps its epochs)
    conn.execute("INSERT OR IGNORE INTO meta VALUES('journal_id', ?)", (new_journal_id(),))
    conn.execute("COMMIT")
