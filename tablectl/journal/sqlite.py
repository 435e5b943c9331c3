# ruff: noqa: S608  (SQL is built only from the constant column lists of journal.schema)
"""The SQLite journal: WAL mode, ``synchronous=FULL``, one transaction per call.

Durability: every mutating method runs in its own ``BEGIN IMMEDIATE ... COMMIT``. In WAL mode
with ``synchronous=FULL`` SQLite fsyncs the write-ahead log at every commit, so when a method
returns its data survives a process kill and a power cut. When SQLite reports any failure
(disk full, read-only file or file system, I/O error, file size limit) the transaction is rolled
back and :class:`~tablectl.journal.records.JournalWriteError` is raised: a caller never sees
success for something that is not on disk.

Append-only: triggers refuse ``DELETE`` on every table and ``UPDATE`` on inputs; the only
updates are the outbox's ``published_at``, a hand's end, and an error's clearing.

The tables, their append-only triggers, the upgrade of older files and the row codec are
:mod:`~tablectl.journal.schema`. Times come from the injected clock.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Self, TypeVar

from tablectl.clock import Clock
from tablectl.domain.errors import JournalError, JournalStateError
from tablectl.domain.jsonvalue import JsonObject, dump_json, load_json
from tablectl.journal.integrity import check_open, inspect_file
from tablectl.journal.lock import WriterLock
from tablectl.journal.records import (
    ErrorRecord,
    EventRecord,
    HandRecall,
    HandRecord,
    InputRecord,
    JournalRecord,
    JournalWriteError,
    NewEvent,
    RefusalRecord,
    check_aware,
    check_count,
    check_mark,
    check_new_error,
    check_range,
    journal_id_text,
)
from tablectl.journal.schema import (
    ERROR_COLS,
    EVENT_COLS,
    HAND_COLS,
    INPUT_COLS,
    REFUSAL_COLS,
    as_int,
    create_or_upgrade,
    error_row,
    event_row,
    hand_row,
    input_row,
    refusal_row,
)

_LOGGER = logging.getLogger(__name__)
_T = TypeVar("_T")

class SqliteJournal:
    """A :class:`~tablectl.journal.records.Journal` in one SQLite file.

    Not thread-safe: use it from one thread (the daemon's event loop). Open with :meth:`open`.
    """

    def __init__(self, conn: sqlite3.Connection, path: str, clock: Clock) -> None:
        """Wrap an open, initialised connection; use :meth:`open` instead."""
        self._conn = conn
        self._path = path
        self._clock = clock
        self._closed = False
        # the writer's own epoch (set by start_epoch) and the hand ids known to exist: hands
        # are never deleted, so both spare a query per write on the hot path
        self._own_epoch: int | None = None
        self._journal_id: str | None = None
        self._known_hands: set[int] = set()
        self._in_transaction = False
        self._transaction_failed: str | None = None
        self._lock: WriterLock | None = None

    @classmethod
    def open(cls, path: str | Path, clock: Clock, *,
             max_page_count: int | None = None) -> SqliteJournal:
        """Open (creating if needed) the journal at ``path``.

        Args:
            path: the database file; its directory must exist and be writable (WAL mode keeps
                ``-wal`` and ``-shm`` files beside it).
            clock: where times come from.
            max_page_count: optional cap on the database size in pages (SQLite
                ``PRAGMA max_page_count``); a write beyond it raises :class:`JournalWriteError`
                as a full disk would.

        Raises:
            JournalWriteError: the file cannot be created, opened for writing, or put in WAL
                mode, or another process has it open for writing (see
                :class:`~tablectl.journal.lock.WriterLock`).
            JournalError: the file is not a journal of a known schema version.
            JournalRefusedError: the file is empty, truncated, corrupted or not a journal, or its
                ``-wal`` lies there alone (:mod:`tablectl.journal.integrity`); nothing was
                written to it.
        """
        spath = str(path)
        # what lies there decides before anything may write to it: the lock below creates an
        # empty file for a new journal, so the file is new when nothing was there before it
        existed = inspect_file(spath)
        lock = WriterLock.acquire(spath)      # one writer per file, before SQLite opens it
        try:
            conn = sqlite3.connect(spath, isolation_level=None, timeout=5.0)
        except sqlite3.Error as exc:
            lock.release()
            raise JournalWriteError("open", spath, str(exc)) from exc
        try:
            if existed:
                check_open(conn, spath)
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalWriteError("open", spath, f"cannot enable WAL (mode {mode!r})")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            if max_page_count is not None:
                conn.execute(f"PRAGMA max_page_count={int(max_page_count)}")
            create_or_upgrade(conn, spath)
        except sqlite3.DatabaseError as exc:
            conn.close()
            lock.release()
            raise JournalWriteError("open", spath, str(exc)) from exc
        except JournalError:
            conn.close()
            lock.release()
            raise
        _LOGGER.info("journal %s open (WAL, synchronous=FULL)", spath)
        journal = cls(conn, spath, clock)
        journal._lock = lock
        return journal

    def __enter__(self) -> Self:
        """Return self."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close."""
        self.close()

    def close(self) -> None:
        """Close the database (idempotent)."""
        if not self._closed:
            self._closed = True
            self._conn.close()
            if self._lock is not None:
                self._lock.release()

    @property
    def path(self) -> str:
        """The database file."""
        return self._path

    def pragma(self, name: str) -> object:
        """Read one PRAGMA value (``journal_mode``, ``synchronous``...), for checks and ops."""
        if not name.replace("_", "").isalpha():
            raise JournalStateError(f"not a pragma name: {name!r}")
        return self._read(lambda c: c.execute(f"PRAGMA {name}").fetchone()[0])

    # -- plumbing -------------------------------------------------------------------------

    def _read(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        if self._closed:
            raise JournalStateError("journal is closed")
        try:
            return fn(self._conn)
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self._path}: read failed: {exc}") from exc

    def _write(self, operation: str, fn: Callable[[sqlite3.Connection], _T], *,
               durable: bool = True) -> _T:
        """Run ``fn`` in one IMMEDIATE transaction; commit or roll back and raise.

        A durable commit is fsynced before this returns. With ``durable=False`` the commit is
        in the WAL but not yet fsynced: the next durable commit's fsync covers it (the WAL is
        written in order), and a process kill cannot lose it, only a power cut can.
        """
        if self._closed:
            raise JournalStateError("journal is closed")
        conn = self._conn
        if self._in_transaction:
            # part of the caller's transaction (see transaction()): it commits, or not, there
            if self._transaction_failed is not None:
                raise JournalWriteError(operation, self._path, "an earlier write of this "
                                        f"transaction failed: {self._transaction_failed}")
            try:
                return fn(conn)
            except sqlite3.Error as exc:
                # SQLite may have rolled the whole transaction back already (a full disk):
                # nothing more may be written in it, and its end rolls back the rest
                self._transaction_failed = str(exc)
                _LOGGER.error("journal %s: %s failed: %s", self._path, operation, exc)
                raise JournalWriteError(operation, self._path, str(exc)) from exc
        try:
            if not durable:
                conn.execute("PRAGMA synchronous=NORMAL")
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    result = fn(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise
            finally:
                if not durable:
                    conn.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as exc:
            _LOGGER.error("journal %s: %s failed: %s", self._path, operation, exc)
            raise JournalWriteError(operation, self._path, str(exc)) from exc
        return result

    def _rollback(self) -> None:
        """Roll back the open transaction (SQLite may have done it already)."""
        if self._conn.in_transaction:
            try:
                self._conn.execute("ROLLBACK")
            except sqlite3.Error:
                _LOGGER.exception("journal %s: rollback failed", self._path)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic, durable commit for every write of the block (see
        :meth:`Journal.transaction`)."""
        if self._closed:
            raise JournalStateError("journal is closed")
        if self._in_transaction:
            raise JournalStateError("journal transactions do not nest")
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            _LOGGER.error("journal %s: begin failed: %s", self._path, exc)
            raise JournalWriteError("begin", self._path, str(exc)) from exc
        self._in_transaction = True
        self._transaction_failed = None
        try:
            yield
            if self._transaction_failed is not None:
                raise JournalWriteError("commit", self._path, "a write of this transaction "
                                        f"failed: {self._transaction_failed}")
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                _LOGGER.error("journal %s: commit failed: %s", self._path, exc)
                raise JournalWriteError("commit", self._path, str(exc)) from exc
        except BaseException:
            self._rollback()
            # what the block learnt may be gone with it
            self._known_hands.clear()
            self._own_epoch = None
            raise
        finally:
            self._in_transaction = False
            self._transaction_failed = None

    def _now(self) -> str:
        return self._stamp()[1]

    def _stamp(self) -> tuple[datetime, str]:
        """Now, and as stored (ISO 8601); read back, the text gives the same instant."""
        now = check_aware(self._clock.now())
        return now, now.isoformat()

    @staticmethod
    def _epoch_of(conn: sqlite3.Connection) -> int:
        return as_int(conn.execute("SELECT value FROM meta WHERE key='epoch'").fetchone()[0])

    def _need_epoch(self, conn: sqlite3.Connection) -> int:
        if self._own_epoch is not None:
            return self._own_epoch
        epoch = self._epoch_of(conn)
        if epoch == 0:
            raise JournalStateError("no epoch: call start_epoch() first")
        return epoch

    def _check_hand(self, conn: sqlite3.Connection, hand_id: int | None) -> None:
        if hand_id is None or hand_id in self._known_hands:
            return
        if conn.execute("SELECT 1 FROM hands WHERE id=?", (hand_id,)).fetchone() is None:
            raise JournalStateError(f"unknown hand {hand_id}")
        self._known_hands.add(hand_id)

    @staticmethod
    def _open_hand(conn: sqlite3.Connection) -> HandRecord | None:
        row = conn.execute(f"SELECT {HAND_COLS} FROM hands ORDER BY id DESC LIMIT 1"
                           ).fetchone()
        if row is None or row[4] is not None:
            return None
        return hand_row(row)

    # -- epochs and inputs ----------------------------------------------------------------

    @property
    def journal_id(self) -> str:
        """This journal's id; JournalError for an older journal opened read-only."""
        if self._journal_id is None:
            row = self._read(lambda c: c.execute(
                "SELECT value FROM meta WHERE key='journal_id'").fetchone())
            if row is None:
                raise JournalError(f"journal {self._path} has no id yet (open it for writing)")
            self._journal_id = journal_id_text(as_int(row[0]))
        return self._journal_id

    @property
    def epoch(self) -> int:
        """The current (persisted) epoch; 0 before the first :meth:`start_epoch`."""
        if self._own_epoch is not None:
            return self._own_epoch
        return self._read(self._epoch_of)

    def mark(self, key: str) -> int | None:
        """See :meth:`Journal.mark` (kept in ``meta`` as ``mark:KEY``)."""
        check_mark(key, None)
        row = self._read(lambda conn: conn.execute(
            "SELECT value FROM meta WHERE key=?", (f"mark:{key}",)).fetchone())
        if row is None:
            return None
        if isinstance(row[0], bool) or not isinstance(row[0], int):
            raise JournalError(f"journal {self._path}: mark {key} is not a whole number")
        return row[0]

    def set_mark(self, key: str, value: int | None) -> None:
        """See :meth:`Journal.set_mark`."""
        check_mark(key, value)

        def do(conn: sqlite3.Connection) -> None:
            if value is None:
                conn.execute("DELETE FROM meta WHERE key=?", (f"mark:{key}",))
            else:
                conn.execute("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) "
                             "DO UPDATE SET value=excluded.value", (f"mark:{key}", value))
        self._write("set_mark", do)

    def start_epoch(self) -> int:
        """Persist and return epoch + 1 (call once per daemon start)."""
        def do(conn: sqlite3.Connection) -> int:
            conn.execute("UPDATE meta SET value = value + 1 WHERE key='epoch'")
            return self._epoch_of(conn)
        epoch = self._write("start_epoch", do)
        self._own_epoch = epoch
        _LOGGER.info("journal %s: epoch %d", self._path, epoch)
        return epoch

    def append_input(self, record: InputRecord) -> JournalRecord:
        """Append one input; it is on disk (fsynced) when this returns, or when the
        transaction it is part of commits.

        Raises:
            JournalWriteError: it could not be written; it is not in the journal.
            JournalStateError: no epoch yet, or ``record.hand_id`` is unknown.
        """
        if not isinstance(record, InputRecord):
            raise JournalStateError(f"not an InputRecord: {record!r}")
        payload = record.payload_json

        def do(conn: sqlite3.Connection) -> JournalRecord:
            epoch = self._need_epoch(conn)
            self._check_hand(conn, record.hand_id)
            at, text = self._stamp()
            cur = conn.execute(
                "INSERT INTO inputs(epoch, at, source, actor, kind, payload, hand_id, "
                "decision) VALUES(?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq",
                (epoch, text, record.source, record.actor, record.kind, payload,
                 record.hand_id, record.decision_json))
            decision = record.decision_json
            return JournalRecord(seq=as_int(cur.fetchone()[0]), epoch=epoch, at=at,
                                 source=record.source, kind=record.kind,
                                 payload=load_json(payload), actor=record.actor,
                                 hand_id=record.hand_id,
                                 decision=None if decision is None else load_json(decision))
        return self._write("append_input", do)

    def inputs(self, after_seq: int = 0) -> list[JournalRecord]:
        """All inputs with ``seq > after_seq``, in order."""
        return self._read(lambda c: [input_row(r) for r in c.execute(
            f"SELECT {INPUT_COLS} FROM inputs WHERE seq > ? ORDER BY seq", (after_seq,))])

    def input_at(self, seq: int) -> JournalRecord:
        """The input numbered ``seq`` (see :meth:`Journal.input_at`)."""
        row = self._read(lambda c: c.execute(
            f"SELECT {INPUT_COLS} FROM inputs WHERE seq = ?", (seq,)).fetchone())
        if row is None:
            raise JournalStateError(f"no input {seq!r} in the journal")
        return input_row(row)

    # -- hands ----------------------------------------------------------------------------

    def start_hand(self, number: int | None = None,
                   summary: JsonObject | None = None) -> HandRecord:
        """Open a hand (see :meth:`Journal.start_hand`)."""
        text = dump_json(summary or {}, "hand summary")
        if number is not None and (isinstance(number, bool) or not isinstance(number, int)
                                   or number < 1):
            raise JournalStateError("hand number must be a positive int")

        def do(conn: sqlite3.Connection) -> HandRecord:
            epoch = self._need_epoch(conn)
            if self._open_hand(conn) is not None:
                raise JournalStateError("a hand is already in progress")
            num = number
            if num is None:
                last = conn.execute("SELECT number FROM hands ORDER BY id DESC LIMIT 1"
                                    ).fetchone()
                num = 1 if last is None else as_int(last[0]) + 1
            cur = conn.execute(
                "INSERT INTO hands(number, epoch, started_at, summary) VALUES(?, ?, ?, ?) "
                "RETURNING " + HAND_COLS, (num, epoch, self._now(), text))
            return hand_row(cur.fetchone())
        return self._write("start_hand", do)

    def end_hand(self, hand_id: int, summary: JsonObject) -> HandRecord:
        """Close the open hand (see :meth:`Journal.end_hand`)."""
        text = dump_json(summary, "hand summary")

        def do(conn: sqlite3.Connection) -> HandRecord:
            self._need_epoch(conn)
            current = self._open_hand(conn)
            if current is None or current.id != hand_id:
                raise JournalStateError(f"hand {hand_id} is not the hand in progress")
            cur = conn.execute("UPDATE hands SET ended_at=?, summary=? WHERE id=? RETURNING "
                               + HAND_COLS, (self._now(), text, hand_id))
            return hand_row(cur.fetchone())
        return self._write("end_hand", do)

    def current_hand(self) -> HandRecord | None:
        """The hand in progress, or None."""
        return self._read(self._open_hand)

    def inputs_of_hand(self, hand_id: int) -> list[JournalRecord]:
        """The inputs of one hand, in order."""
        def do(conn: sqlite3.Connection) -> list[JournalRecord]:
            self._check_hand(conn, hand_id)
            return [input_row(r) for r in conn.execute(
                f"SELECT {INPUT_COLS} FROM inputs WHERE hand_id=? ORDER BY seq", (hand_id,))]
        return self._read(do)

    def last_hands(self, n: int) -> list[HandRecall]:
        """The last ``n`` hands, newest first, each with all its inputs and events."""
        check_count(n)

        def do(conn: sqlite3.Connection) -> list[HandRecall]:
            out = []
            for row in conn.execute(f"SELECT {HAND_COLS} FROM hands ORDER BY id DESC LIMIT ?",
                                    (n,)).fetchall():
                hand = hand_row(row)
                inputs = tuple(input_row(r) for r in conn.execute(
                    f"SELECT {INPUT_COLS} FROM inputs WHERE hand_id=? ORDER BY seq",
                    (hand.id,)))
                events = tuple(event_row(r) for r in conn.execute(
                    f"SELECT {EVENT_COLS} FROM events WHERE hand_id=? ORDER BY id",
                    (hand.id,)))
                out.append(HandRecall(hand=hand, inputs=inputs, events=events))
            return out
        return self._read(do)

    # -- outbox ---------------------------------------------------------------------------

    def append_events(self, events: Sequence[NewEvent]) -> list[EventRecord]:
        """Put events in the outbox in one transaction (see :meth:`Journal.append_events`)."""
        for event in events:
            if not isinstance(event, NewEvent):
                raise JournalStateError(f"not a NewEvent: {event!r}")

        def do(conn: sqlite3.Connection) -> list[EventRecord]:
            epoch = self._need_epoch(conn)
            at, now = self._stamp()
            out = []
            for event in events:
                self._check_hand(conn, event.hand_id)
                cur = conn.execute(
                    "INSERT INTO events(epoch, seq, topic, type, payload, hand_id, created_at) "
                    "VALUES(?, (SELECT coalesce(max(seq), 0) + 1 FROM events "
                    "WHERE epoch=? AND topic=?), ?, ?, ?, ?, ?) RETURNING id, seq",
                    (epoch, epoch, event.topic, event.topic, event.type, event.payload_json,
                     event.hand_id, now))
                row = cur.fetchone()
                out.append(EventRecord(
                    id=as_int(row[0]), epoch=epoch, seq=as_int(row[1]), topic=event.topic,
                    type=event.type, payload=load_json(event.payload_json),
                    hand_id=event.hand_id, created_at=at, published_at=None))
            return out
        return self._write("append_events", do)

    def unpublished(self) -> list[EventRecord]:
        """Events without a recorded PUBACK, in outbox order."""
        return self._read(lambda c: [event_row(r) for r in c.execute(
            f"SELECT {EVENT_COLS} FROM events WHERE published_at IS NULL ORDER BY id")])

    def mark_published(self, event_id: int) -> EventRecord:
        """Record the PUBACK of event ``event_id`` (idempotent: keeps the first time)."""
        def do(conn: sqlite3.Connection) -> EventRecord:
            conn.execute("UPDATE events SET published_at=? WHERE id=? AND published_at IS NULL",
                         (self._now(), event_id))
            row = conn.execute(f"SELECT {EVENT_COLS} FROM events WHERE id=?",
                               (event_id,)).fetchone()
            if row is None:
                raise JournalStateError(f"unknown event {event_id!r}")
            return event_row(row)
        # a lost mark only means the event is sent once more, which consumers drop by seq
        return self._write("mark_published", do, durable=False)

    def events_range(self, topic: str, epoch: int, from_seq: int,
                     to_seq: int) -> list[EventRecord]:
        """Events of ``topic`` in ``epoch`` with ``from_seq <= seq <= to_seq``, in seq order."""
        check_range(epoch, from_seq, to_seq)
        return self._read(lambda c: [event_row(r) for r in c.execute(
            f"SELECT {EVENT_COLS} FROM events WHERE topic=? AND epoch=? AND seq BETWEEN ? "
            "AND ? ORDER BY seq", (topic, epoch, from_seq, to_seq))])

    # -- refusals -------------------------------------------------------------------------

    def append_refusal(self, record: RefusalRecord) -> None:
        """Keep a refused command's bounded record (see :meth:`Journal.append_refusal`): a
        commit without an fsync of its own, outside any input's transaction.

        Raises:
            JournalWriteError: it could not be written.
        """
        if not isinstance(record, RefusalRecord):
            raise JournalStateError(f"not a RefusalRecord: {record!r}")

        def do(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO refusals(epoch, at, user, topic, size, digest, code, reason, "
                "count) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (self._need_epoch(conn), record.at.isoformat(), record.user, record.topic,
                 record.size, record.digest, record.code, record.reason, record.count))
        self._write("append_refusal", do, durable=False)

    def refusals(self) -> list[RefusalRecord]:
        """Every refusal record, oldest first."""
        return self._read(lambda c: [refusal_row(r) for r in c.execute(
            f"SELECT {REFUSAL_COLS} FROM refusals ORDER BY id")])

    # -- error states ---------------------------------------------------------------------

    def raise_error(self, code: str, detail: JsonObject | None = None, *,
                    by: str | None = None, hand_id: int | None = None) -> ErrorRecord:
        """Raise an error state (see :meth:`Journal.raise_error`)."""
        text = dump_json(check_new_error(code, detail, by, hand_id), "error detail")

        def do(conn: sqlite3.Connection) -> ErrorRecord:
            epoch = self._need_epoch(conn)
            self._check_hand(conn, hand_id)
            row = conn.execute(f"SELECT {ERROR_COLS} FROM errors WHERE code=? AND "
                               "cleared_at IS NULL", (code,)).fetchone()
            if row is not None:
                return error_row(row)
            cur = conn.execute(
                "INSERT INTO errors(code, detail, epoch, hand_id, raised_at, raised_by) "
                "VALUES(?, ?, ?, ?, ?, ?) RETURNING " + ERROR_COLS,
                (code, text, epoch, hand_id, self._now(), by))
            return error_row(cur.fetchone())
        return self._write("raise_error", do)

    def clear_error(self, code: str, *, by: str) -> ErrorRecord:
        """Clear the active error ``code`` (see :meth:`Journal.clear_error`)."""
        check_new_error(code, None, by, None)

        def do(conn: sqlite3.Connection) -> ErrorRecord:
            self._need_epoch(conn)
            cur = conn.execute(
                "UPDATE errors SET cleared_at=?, cleared_by=? WHERE code=? AND cleared_at IS "
                "NULL RETURNING " + ERROR_COLS, (self._now(), by, code))
            row = cur.fetchone()
            if row is None:
                raise JournalStateError(f"no active error {code!r}")
            return error_row(row)
        return self._write("clear_error", do)

    def active_errors(self) -> list[ErrorRecord]:
        """Active errors (including those active at the last shutdown), oldest first."""
        return self._read(lambda c: [error_row(r) for r in c.execute(
            f"SELECT {ERROR_COLS} FROM errors WHERE cleared_at IS NULL ORDER BY id")])
