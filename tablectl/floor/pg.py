"""The floor's history in PostgreSQL (psycopg 3): migrations and the :class:`PgStore`.

Schema migrations are the numbered SQL files in ``tablectl/floor/migrations/``; :func:`migrate`
applies those not yet recorded in ``floor_migrations``, in order, each in its own transaction,
under an advisory lock so that several workers starting at once apply each file once.

:meth:`PgStore.ingest` is one transaction per batch (docs/floor.md, "Exactly once"):

1. the batch's streams are created if new (a new epoch carries the table's open hand over);
2. they are locked (``SELECT ... FOR UPDATE``, in key order, so two workers never deadlock),
   which serialises the workers that received events of the same stream;
3. the new events are inserted (``ON CONFLICT DO NOTHING``: a redelivered or replayed event is
   dropped), each stream is advanced with :func:`~tablectl.floor.fold.advance` from its locked
   state, and the rows it yields are written, keyed by the event that caused them;
4. the streams' new states are written and the transaction commits.

A lost connection (the server restarted, or the backend was terminated; psycopg's
``OperationalError`` and ``InterfaceError``, deadlocks and serialisation failures among them)
raises :class:`~tablectl.floor.store.StoreUnavailableError`: the transaction rolled back,
nothing of the batch is kept, and the next call reconnects; the service tries the same batch
again. Any other database error (a value a column cannot hold, a constraint) is about the
batch itself and raises :class:`~tablectl.floor.store.StoreRefusedError`: trying it again would
fail the same, so the service splits it and quarantines the message that fails
(docs/floor.md, "Quarantine").
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Sequence
from datetime import datetime
from importlib import resources
from typing import Any, Final

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from tablectl.floor.export import StoredHand
from tablectl.floor.fold import StreamState, advance
from tablectl.floor.model import (
    ActionRow,
    BoardRow,
    FlagRow,
    FloorEvent,
    FloorSnapshot,
    Gap,
    HandEndRow,
    HandRow,
    HandSummary,
    PotRow,
    QuarantineRow,
    Row,
    ShowdownRow,
    UndoRow,
    WinnerRow,
    named_winners,
)
from tablectl.floor.pg_setup import setup_problem
from tablectl.floor.rules import HouseRules
from tablectl.floor.stats import (
    PlayerStats,
    StatsQuery,
    TableStats,
    seated,
    seated_query,
    stats_from_rows,
    stats_sql,
    table_stats,
)
from tablectl.floor.store import (
    IngestResult,
    StoreRefusedError,
    StoreSetupError,
    StoreUnavailableError,
    latest_by_stream,
    table_info,
)

_LOGGER = logging.getLogger(__name__)

MIGRATION_LOCK: Final = 0x7AB1EC71
"""Advisory lock key held while migrations run."""


def package_migrations(package: str) -> Iterator[tuple[int, str, str]]:
    """``(version, file name, SQL)`` of every migration in ``package``'s ``migrations``
    folder (``NNN_name.sql``), in order."""
    folder = resources.files(package).joinpath("migrations")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".sql"):
            yield int(entry.name.split("_", 1)[0]), entry.name, entry.read_text("utf-8")


def apply_migrations(conn: psycopg.Connection[Any], package: str, table: str,
                     lock: int) -> list[str]:
    """Apply ``package``'s migrations not yet recorded in ``table``, under
    advisory lock ``lock``, in one transaction; returns their file names."""
    applied: list[str] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
        name_of = sql.Identifier(table)
        conn.execute(sql.SQL("CREATE TABLE IF NOT EXISTS {} (version integer PRIMARY KEY, "
                             "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT "
                             "now())").format(name_of))
        done = {row[0] for row in conn.execute(
            sql.SQL("SELECT version FROM {}").format(name_of))}
        for version, name, text in package_migrations(package):
            if version in done:
                continue
            conn.execute(text.encode("utf-8"))
            conn.execute(sql.SQL("INSERT INTO {} (version, name) VALUES (%s, %s)")
                         .format(name_of), (version, name))
            applied.append(name)
    return applied


def migrations() -> Iterator[tuple[int, str, str]]:
    """``(version, file name, SQL)`` of every floor migration, in order."""
    return package_migrations("tablectl.floor")


def migrate(conn: psycopg.Connection[Any]) -> list[str]:
    """Apply the floor migrations not applied yet; returns their file names."""
    return apply_migrations(conn, "tablectl.floor", "floor_migrations", MIGRATION_LOCK)


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


_KEY_COLUMNS: Final = (("table_id", "text"), ("epoch", "text"), ("seq", "bigint"),
                       ("hand_id", "text"))
_EVENT_COLUMNS: Final = (("table_id", "text"), ("epoch", "text"), ("seq", "bigint"),
                         ("type", "text"), ("hand", "bigint"), ("ts", "timestamptz"),
                         ("data", "jsonb"))
_WHICH: Final = (("run", "integer"), ("board", "integer"))
"""Which run and which board a board, showdown or winner row is about."""
_HAND_COLUMNS: Final = (("id", "text"), ("table_id", "text"), ("epoch", "text"),
                        ("seq", "bigint"), ("journal_hand", "bigint"), ("name", "text"),
                        ("number", "integer"), ("button", "integer"), ("seats", "jsonb"),
                        ("game", "jsonb"), ("stakes", "jsonb"), ("started_at", "timestamptz"),
                        ("bomb", "bigint"), ("boards", "integer"))


def _columns(rows: Sequence[tuple[Any, ...]]) -> list[list[Any]]:
    """Row tuples turned into one list per column (``unnest`` takes arrays)."""
    return [list(col) for col in zip(*rows, strict=True)]


def _bulk_insert(cur: psycopg.Cursor[Any], table: str, columns: Sequence[tuple[str, str]],
                 rows: Sequence[tuple[Any, ...]]) -> None:
    """``INSERT ... SELECT FROM unnest(arrays) ON CONFLICT DO NOTHING``: one statement for
    any number of rows (a pipelined ``executemany`` cost about 0.1 ms of client time per
    row)."""
    if not rows:
        return
    query = sql.SQL("INSERT INTO {} ({}) SELECT * FROM unnest({}) ON CONFLICT DO NOTHING").format(
        sql.Identifier(table), sql.SQL(", ").join(sql.Identifier(c) for c, _ in columns),
        sql.SQL(", ").join(sql.SQL("%b::" + kind + "[]") for _, kind in columns))
    cur.execute(query, _columns(rows))


def _j(value: Any) -> Jsonb | None:
    return None if value is None else Jsonb(value)


class PgStore:
    """A :class:`~tablectl.floor.store.Store` in PostgreSQL (see the module docstring).

    Use from one thread at a time (one connection).
    """

    def __init__(self, url: str, *, rules: HouseRules | None = None,
                 connect_timeout: float = 5.0) -> None:
        """Remember where the database is; :meth:`connect` (or the first call) connects."""
        self.url = url
        self.rules = rules
        self._timeout = connect_timeout
        self._conn: psycopg.Connection[Any] | None = None

    def connect(self) -> psycopg.Connection[Any]:
        """The open connection (opened and migrated if there is none).

        Raises:
            StoreUnavailableError: the database cannot be reached.
            StoreSetupError: it does not exist, or the server refuses the login.
        """
        if self._conn is not None and not self._conn.closed:
            return self._conn
        try:
            conn = psycopg.connect(self.url, connect_timeout=max(1, int(self._timeout)))
            names = migrate(conn)
        except psycopg.OperationalError as exc:
            if (problem := setup_problem(self.url, str(exc))) is not None:
                raise StoreSetupError(problem) from exc
            raise StoreUnavailableError(f"database unavailable: {_one_line(exc)}") from exc
        if names:
            _LOGGER.info("floor: applied migrations %s", ", ".join(names))
        self._conn = conn
        return conn

    def close(self) -> None:
        """Close the connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _lost(self, exc: Exception) -> StoreUnavailableError:
        """Forget the connection (the next call opens a new one) and say why."""
        with contextlib.suppress(psycopg.Error):
            self.close()
        self._conn = None
        return StoreUnavailableError(f"database connection lost: {_one_line(exc)}")

    def _failed(self, exc: psycopg.Error) -> StoreUnavailableError | StoreRefusedError:
        """What a database error means: the database is away (try again), or it refused
        what it was given (do not)."""
        if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
            return self._lost(exc)
        with contextlib.suppress(psycopg.Error):
            self.close()             # a fresh connection, whatever state the pipeline is in
        self._conn = None
        return StoreRefusedError(f"database refused it: {_one_line(exc)[:500]}")

    # ---- ingest -------------------------------------------------------------------------

    def ingest(self, events: Sequence[FloorEvent],
               snapshots: Sequence[FloorSnapshot] = ()) -> IngestResult:
        """See :meth:`tablectl.floor.store.Store.ingest`."""
        conn = self.connect()
        try:
            with conn.transaction(), conn.pipeline():
                return self._ingest(conn, events, snapshots)
        except psycopg.Error as exc:    # lost connection, aborted pipeline, deadlock, a value
            raise self._failed(exc) from exc

    def quarantine(self, rows: Sequence[QuarantineRow]) -> None:
        """See :meth:`tablectl.floor.store.Store.quarantine`."""
        if not rows:
            return
        conn = self.connect()
        try:
            with conn.transaction():
                conn.cursor().executemany(
                    "INSERT INTO quarantine (received_at, last_at, topic, table_id, reason, "
                    "payload, size, sha256) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                    "ON CONFLICT (topic, sha256) DO UPDATE SET count = quarantine.count + 1, "
                    "last_at = excluded.last_at, reason = excluded.reason",
                    [(r.received_at, r.received_at, r.topic, r.table, r.reason, r.payload,
                      r.size, r.digest) for r in rows])
        except psycopg.Error as exc:
            raise self._failed(exc) from exc

    def quarantined(self, *, table: str | None = None, limit: int = 100
                    ) -> list[QuarantineRow]:
        """See :meth:`tablectl.floor.store.Store.quarantined`."""
        conn = self.connect()
        try:
            with conn.transaction():
                rows = conn.execute(
                    "SELECT received_at, topic, table_id, reason, payload, size, sha256, "
                    "count, last_at FROM quarantine WHERE (%(t)s::text IS NULL OR "
                    "table_id = %(t)s) ORDER BY last_at DESC, id DESC LIMIT %(n)s",
                    {"t": table, "n": limit}).fetchall()
        except psycopg.Error as exc:
            raise self._failed(exc) from exc
        return [QuarantineRow(received_at=r[0], topic=r[1], table=r[2], reason=r[3],
                              payload=bytes(r[4]), size=r[5], digest=r[6], count=r[7],
                              last_at=r[8]) for r in rows]

    def _ingest(self, conn: psycopg.Connection[Any], events: Sequence[FloorEvent],
                snapshots: Sequence[FloorSnapshot]) -> IngestResult:
        result = IngestResult()
        seen = latest_by_stream(snapshots)
        keys = sorted({*(e.stream for e in events), *seen})
        if not keys:
            return result
        cur = conn.cursor()
        table_ids = sorted({k[0] for k in keys})
        cur.execute("INSERT INTO tables (id) SELECT unnest(%s::text[]) ON CONFLICT (id) DO "
                    "UPDATE SET last_seen = now()", (table_ids,))
        latest: dict[str, FloorSnapshot] = {}
        for snap in snapshots:           # only a table's newest snapshot of the batch counts
            prev = latest.get(snap.table)
            if prev is None or prev.epoch != snap.epoch or snap.seq >= prev.seq:
                latest[snap.table] = snap
        updates_t = []
        for snap in sorted(latest.values(), key=lambda s: s.table):
            game, stakes = table_info(snap)
            updates_t.append((snap.epoch, _j(game), _j(stakes), Jsonb(dict(snap.data)),
                              snap.seq, snap.ts, snap.table))
        if updates_t:
            cur.execute("UPDATE tables t SET epoch = u.e, game = coalesce(u.g, t.game), "
                        "stakes = coalesce(u.st, t.stakes), snapshot = u.sn, snapshot_seq = u.q, "
                        "snapshot_at = u.ts FROM unnest(%b::text[], %b::jsonb[], %b::jsonb[], "
                        "%b::jsonb[], %b::bigint[], %b::timestamptz[], %b::text[]) "
                        "AS u(e, g, st, sn, q, ts, id) WHERE t.id = u.id", _columns(updates_t))
        self._create_streams(cur, keys)
        reader = conn.cursor()          # a cursor of its own: cur's results are pipelined
        reader.execute(
            "SELECT s.table_id, s.epoch, s.applied, s.max_seen, s.state FROM streams s "
            "WHERE (s.table_id, s.epoch) IN (SELECT * FROM unnest(%s::text[], %s::text[])) "
            "ORDER BY s.table_id, s.epoch FOR UPDATE",
            ([k[0] for k in keys], [k[1] for k in keys]))
        locked = {(r[0], r[1]): r[2:] for r in reader.fetchall()}
        fresh: list[FloorEvent] = []
        by_stream: dict[tuple[str, str], dict[int, FloorEvent]] = {}
        for ev in sorted(events, key=lambda e: e.key):
            applied = locked[ev.stream][0]
            mine = by_stream.setdefault(ev.stream, {})
            if ev.seq <= applied or ev.seq in mine:
                result.duplicates += 1
                continue
            mine[ev.seq] = ev
            fresh.append(ev)
        _bulk_insert(cur, "events", _EVENT_COLUMNS,
                     [(e.table, e.epoch, e.seq, e.type, e.hand, e.ts, Jsonb(dict(e.data)))
                      for e in fresh])
        pendings: dict[tuple[str, str], dict[int, FloorEvent]] = {}
        for key in keys:
            applied, max_seen = locked[key][:2]
            pending = by_stream.get(key, {})
            if max_seen > applied:      # events of earlier batches wait behind a gap
                pending = {**self._waiting(conn.cursor(), key, applied), **pending}
            pendings[key] = pending
        info = self._games(conn, sorted({k[0] for k, p in pendings.items()
                                         if any(e.type == "hand_started" for e in p.values())}))
        rows: list[Row] = []
        updates = []
        for key in keys:
            applied, max_seen, state_json = locked[key]
            pending = pendings[key]
            top = max([max_seen, seen.get(key, 0), *pending])
            state = StreamState.from_json(state_json)
            game, stakes = info.get(key[0], (None, None))
            step = advance(key, state, pending, max_seen=top, rules=self.rules, game=game,
                           stakes=stakes)
            rows.extend(step.rows)
            result.applied += len(step.applied)
            result.waiting += len(pending) - len(step.applied)
            if step.gap is not None:
                result.gaps.append(step.gap)
            updates.append((step.state.applied, top, Jsonb(step.state.to_json()), *key))
        self._write(cur, rows, result)
        cur.execute("UPDATE streams s SET applied = u.a, max_seen = u.m, state = u.st, "
                    "updated_at = now() FROM unnest(%b::bigint[], %b::bigint[], %b::jsonb[], "
                    "%b::text[], %b::text[]) AS u(a, m, st, t, e) "
                    "WHERE s.table_id = u.t AND s.epoch = u.e", _columns(updates))
        return result

    @staticmethod
    def _create_streams(cur: psycopg.Cursor[Any], keys: Sequence[tuple[str, str]]) -> None:
        """Insert the streams not there yet, in one statement; a new one carries its table's
        open hand over (the JSON of ``StreamState.carried``: nothing applied, the hand of
        the table's newest stream)."""
        cur.execute(
            "INSERT INTO streams (table_id, epoch, state) "
            "SELECT k.t, k.e, jsonb_build_object('applied', 0, 'hand', (SELECT s.state->'hand' "
            "FROM streams s WHERE s.table_id = k.t ORDER BY s.created DESC LIMIT 1)) "
            "FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS k(t, e, n) "
            "WHERE NOT EXISTS (SELECT 1 FROM streams s WHERE s.table_id = k.t AND s.epoch = k.e)"
            " ORDER BY k.t, k.e ON CONFLICT DO NOTHING",
            ([k[0] for k in keys], [k[1] for k in keys]))

    @staticmethod
    def _games(conn: psycopg.Connection[Any], tables: Sequence[str]
               ) -> dict[str, tuple[Any, Any]]:
        """Game and stakes of the tables whose batch starts a hand (the hand row keeps them)."""
        if not tables:
            return {}
        rows = conn.execute("SELECT id, game, stakes FROM tables WHERE id = ANY(%s)",
                            (list(tables),)).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    @staticmethod
    def _waiting(cur: psycopg.Cursor[Any], key: tuple[str, str], applied: int
                 ) -> dict[int, FloorEvent]:
        cur.execute("SELECT seq, type, hand, ts, data FROM events WHERE table_id = %s AND "
                    "epoch = %s AND seq > %s ORDER BY seq", (*key, applied))
        return {seq: FloorEvent(key[0], key[1], seq, etype, ts, hand, data)
                for seq, etype, hand, ts, data in cur.fetchall()}

    def _write(self, cur: psycopg.Cursor[Any], rows: Sequence[Row],
               result: IngestResult) -> None:
        """Write rows in order, grouped where the order between kinds does not matter."""
        result.rows += len(rows)
        # hands first (details reference them), then details, then ends, undos and flags
        hands = [r for r in rows if isinstance(r, HandRow)]
        _bulk_insert(cur, "hands", _HAND_COLUMNS, [
            (h.id, h.table, h.epoch, h.seq, h.journal_hand, h.name, h.number, h.button,
             Jsonb(list(h.seats)), _j(h.game), _j(h.stakes), h.started_at, h.bomb, h.boards)
            for h in hands])
        self._insert(cur, "actions", (("street", "text"), ("seat", "integer"),
                                      ("kind", "text"), ("amount", "bigint"), ("to", "bigint"),
                                      ("all_in", "boolean"), ("forced", "boolean")),
                     [(r.street, r.seat, r.kind, r.amount, r.to, r.all_in, r.forced, r)
                      for r in rows if isinstance(r, ActionRow)])
        self._insert(cur, "boards", (("street", "text"), ("cards", "jsonb"), *_WHICH),
                     [(r.street, Jsonb(list(r.cards)), r.run, r.board, r) for r in rows
                      if isinstance(r, BoardRow)])
        self._insert(cur, "pots", (("street", "text"), ("pots", "jsonb"), ("total", "bigint")),
                     [(r.street, Jsonb(list(r.pots)), r.total, r) for r in rows
                      if isinstance(r, PotRow)])
        self._insert(cur, "showdowns", (("seat", "integer"), ("cards", "jsonb"),
                                        ("best", "jsonb"), ("high", "text"), ("low", "text"),
                                        *_WHICH),
                     [(r.seat, Jsonb(list(r.cards)), Jsonb(list(r.best)), r.high, r.low,
                       r.run, r.board, r)
                      for r in rows if isinstance(r, ShowdownRow)])
        self._insert(cur, "winners", (("pot", "integer"), ("seat", "integer"),
                                      ("amount", "bigint"), ("half", "text"),
                                      ("description", "text"), *_WHICH),
                     [(r.pot, r.seat, r.amount, r.half, r.description, r.run, r.board, r)
                      for r in rows
                      if isinstance(r, WinnerRow)])
        cur.executemany(
            "UPDATE actions SET undone = true WHERE table_id = %s AND epoch = %s AND seq = %s",
            [(r.table, r.epoch, r.seq) for r in rows if isinstance(r, UndoRow)])
        cur.executemany(
            "UPDATE hands SET ended_at = %s, result = %s, stacks = %s, rake = %s, pot = %s, "
            "runs = %s WHERE id = %s AND ended_at IS NULL",
            [(r.ended_at, r.result, Jsonb(list(r.stacks)), r.rake, r.pot, r.runs, r.hand_id)
             for r in rows if isinstance(r, HandEndRow)])
        settled = [r.hand_id for r in rows if isinstance(r, HandEndRow)
                   and r.result == "settled"]
        if settled:                      # the statistics' rows of each hand, once settled
            cur.execute("INSERT INTO player_hands SELECT * FROM player_hand_rows(%s::text[]) "
                        "ON CONFLICT DO NOTHING", (settled,))
        flags = [r for r in rows if isinstance(r, FlagRow)]
        cur.executemany(
            "INSERT INTO flags (hand_id, rule, kind, seat, detail) VALUES (%s, %s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING", [(f.hand_id, f.rule, f.kind, f.seat, f.detail)
                                       for f in flags])
        result.flags.extend(flags)

    @staticmethod
    def _insert(cur: psycopg.Cursor[Any], table: str, columns: Sequence[tuple[str, str]],
                values: Sequence[tuple[Any, ...]]) -> None:
        """Rows keyed by their event (the last item of each value: the row itself)."""
        _bulk_insert(cur, table, (*_KEY_COLUMNS, *columns), [
            (v[-1].table, v[-1].epoch, v[-1].seq, v[-1].hand_id, *v[:-1]) for v in values])

    # ---- queries ------------------------------------------------------------------------

    def gaps(self) -> list[Gap]:
        """See :meth:`tablectl.floor.store.Store.gaps`."""
        conn = self.connect()
        try:
            with conn.transaction():
                rows = conn.execute(
                    "SELECT s.table_id, s.epoch, s.applied, s.max_seen, (SELECT min(e.seq) "
                    "FROM events e WHERE e.table_id = s.table_id AND e.epoch = s.epoch AND "
                    "e.seq > s.applied) FROM streams s WHERE s.max_seen > s.applied "
                    "ORDER BY s.table_id, s.epoch").fetchall()
        except psycopg.Error as exc:
            raise self._lost(exc) from exc
        return [Gap(t, e, applied + 1, (first - 1) if first is not None else top)
                for t, e, applied, top, first in rows]

    def hands(self, *, table: str | None = None, since: datetime | None = None,
              limit: int = 100) -> list[HandSummary]:
        """See :meth:`tablectl.floor.store.Store.hands`."""
        conn = self.connect()
        try:
            with conn.transaction():
                rows = conn.execute(
                    "SELECT h.id, h.table_id, h.name, h.number, h.game->>'label', h.started_at,"
                    " h.ended_at, h.result, h.pot, coalesce((SELECT jsonb_agg(jsonb_build_object("
                    "'seat', w.seat, 'amount', w.amount, 'half', w.half, 'pot', w.pot) "
                    "|| CASE WHEN h.runs > 1 THEN jsonb_build_object('run', w.run) "
                    "ELSE '{}'::jsonb END "
                    "|| CASE WHEN h.boards > 1 THEN jsonb_build_object('board', w.board) "
                    "ELSE '{}'::jsonb END ORDER BY "
                    "w.seq) FROM winners w WHERE w.hand_id = h.id), '[]'::jsonb), "
                    "coalesce((SELECT array_agg(f.rule ORDER BY f.rule) FROM flags f WHERE "
                    "f.hand_id = h.id), '{}'), h.stakes, h.seats, "
                    "(SELECT t.snapshot->>'table_name' FROM tables t WHERE t.id = h.table_id), "
                    "h.runs, h.boards, h.bomb, coalesce((SELECT jsonb_agg(jsonb_build_object("
                    "'run', b.run, 'board', b.board, 'cards', b.cards) ORDER BY b.run, b.board) "
                    "FROM (SELECT DISTINCT ON (run, board) run, board, cards FROM boards "
                    "WHERE hand_id = h.id ORDER BY run, board, epoch DESC, seq DESC) b), "
                    "'[]'::jsonb) "
                    "FROM hands h "
                    "WHERE (%(t)s::text IS NULL OR h.table_id = %(t)s) AND "
                    "(%(s)s::timestamptz IS NULL OR h.started_at >= %(s)s) "
                    "ORDER BY h.started_at, h.id LIMIT %(n)s",
                    {"t": table, "s": since, "n": limit}).fetchall()
        except psycopg.OperationalError as exc:
            raise self._lost(exc) from exc
        return [HandSummary(id=r[0], table=r[1], name=r[2], number=r[3], game=r[4],
                            started_at=r[5], ended_at=r[6], result=r[7], pot=r[8],
                            winners=named_winners(r[9], r[12] or ()), flags=tuple(r[10]),
                            stakes=r[11], table_name=r[13], runs=r[14],
                            double_board=r[15] > 1, bomb=r[16], boards=tuple(r[17]))
                for r in rows]

    def stored_hands(self, *, table: str | None = None, since: datetime | None = None,
                     limit: int = 1000) -> list[StoredHand]:
        """Settled hands with their events, oldest first (for ``floor export``).

        A hand is read from its own stream, from its ``hand_started`` to its ``hand_ended``;
        a hand a daemon restart split over two epochs comes without its end, and the export
        reports it instead of writing it.
        """
        conn = self.connect()
        out = []
        try:
            with conn.transaction():
                rows = conn.execute(
                    "SELECT id, table_id, epoch, seq, number, game, stakes, started_at, "
                    "ended_at FROM hands WHERE result = 'settled' AND (%(t)s::text IS NULL OR "
                    "table_id = %(t)s) AND (%(s)s::timestamptz IS NULL OR started_at >= %(s)s) "
                    "ORDER BY started_at, id LIMIT %(n)s",
                    {"t": table, "s": since, "n": limit}).fetchall()
                for hid, tid, epoch, seq, number, game, stakes, started, ended in rows:
                    events = []
                    for etype, data, ts in conn.execute(
                            "SELECT type, data, ts FROM events WHERE table_id = %s AND "
                            "epoch = %s AND seq >= %s AND seq < %s ORDER BY seq",
                            (tid, epoch, seq, seq + 5000)).fetchall():
                        events.append((etype, data, ts))
                        if etype == "hand_ended":
                            break
                    out.append(StoredHand(hid, tid, number, game, stakes, started, ended,
                                          events))
        except psycopg.OperationalError as exc:
            raise self._lost(exc) from exc
        return out

    def player_stats(self, query: StatsQuery) -> list[PlayerStats]:
        """Player statistics over the settled hands ``query`` selects, computed in the
        database (:mod:`tablectl.floor.stats`; docs/floor.md, "Player statistics")."""
        text, params = stats_sql(query)
        conn = self.connect()
        try:
            with conn.transaction():
                rows = conn.execute(text.encode("utf-8"), params).fetchall()
        except psycopg.OperationalError as exc:
            raise self._lost(exc) from exc
        return stats_from_rows(query.by, rows)

    def table_stats(self, table: str) -> TableStats | None:
        """The statistics of the players seated at ``table`` (its latest snapshot's seats) in
        its game now; None for a table without a known game or nobody seated."""
        conn = self.connect()
        try:
            with conn.transaction():
                row = conn.execute("SELECT game, snapshot FROM tables WHERE id = %s",
                                   (table,)).fetchone()
        except psycopg.OperationalError as exc:
            raise self._lost(exc) from exc
        game = row[0] if row is not None and isinstance(row[0], dict) else {}
        players = seated(row[1] if row is not None and isinstance(row[1], dict) else None)
        query = seated_query(game, players)
        if query is None:
            return None
        return table_stats(table, game, players, self.player_stats(query))

    def counts(self) -> dict[str, int]:
        """Rows per table of the history (for tests and status lines)."""
        conn = self.connect()
        out = {}
        with conn.transaction():
            for name in ("tables", "events", "hands", "actions", "boards", "pots",
                         "showdowns", "winners", "flags", "quarantine"):
                row = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(
                    sql.Identifier(name))).fetchone()
                out[name] = int(row[0]) if row else 0
        return out


__all__ = ["MIGRATION_LOCK", "PgStore", "apply_migrations", "migrate", "migrations",
           "package_migrations"]
