"""Tournaments in PostgreSQL (psycopg 3): migrations and :class:`PgTournamentStore`.

Migrations are the numbered SQL files in ``tablectl/tournament/migrations/``, applied as the
floor's are (``tablectl.floor.pg``: each once, in order, under an advisory lock) and recorded
in ``tournament_migrations``, so the tournament tables can share the floor's database.

:meth:`PgTournamentStore.update` is one transaction: the tournament's row is locked
(``SELECT ... FOR UPDATE``: two directors' commands run one after the other), its entries
and eliminations read, the change computed (a pure function: it may refuse, and then the
transaction rolls back), and the new row, entries (upserted) and new eliminations written.
The clock is four columns (status, period, started_at, used): a restart of the service
reads it back to the microsecond, and the time is computed from it
(:mod:`tablectl.tournament.clock`).

A lost connection raises :class:`~tablectl.tournament.errors.StoreUnavailableError` (nothing
was stored; the next call reconnects); a database that does not exist or refuses the login
raises :class:`~tablectl.tournament.errors.StoreSetupError` with what to do.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any, Final

import psycopg
from psycopg.types.json import Jsonb

from tablectl.floor.pg import apply_migrations, package_migrations
from tablectl.floor.pg_setup import setup_problem
from tablectl.tournament.clock import ClockState, Status
from tablectl.tournament.errors import StoreSetupError, StoreUnavailableError, TournamentError
from tablectl.tournament.field import Elimination, Entry, EntryStatus, Field
from tablectl.tournament.payouts import Result, results
from tablectl.tournament.store import Change, ChipCount, Tournament, unknown
from tablectl.tournament.structure import Structure

_LOGGER = logging.getLogger(__name__)

MIGRATION_LOCK: Final = 0x70C1_7A01
"""Advisory lock key held while the tournament migrations run."""


def migrations() -> Iterator[tuple[int, str, str]]:
    """``(version, file name, SQL)`` of every tournament migration, in order."""
    return package_migrations("tablectl.tournament")


def migrate(conn: psycopg.Connection[Any]) -> list[str]:
    """Apply the tournament migrations not applied yet; returns their file names."""
    return apply_migrations(conn, "tablectl.tournament", "tournament_migrations",
                            MIGRATION_LOCK)


_SELECT: Final = ("SELECT structure, status, period, started_at, used, seats_per_table, tables,"
                  " version FROM tournaments WHERE id = %s")
_SELECT_LOCKED: Final = _SELECT + " FOR UPDATE"


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class PgTournamentStore:
    """A :class:`~tablectl.tournament.store.TournamentStore` in PostgreSQL (see the module
    docstring). Use from one thread at a time (one connection)."""

    def __init__(self, url: str, *, connect_timeout: float = 5.0) -> None:
        """Remember where the database is; the first call connects (and migrates)."""
        self.url = url
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
        conn: psycopg.Connection[Any] | None = None
        try:
            conn = psycopg.connect(self.url, connect_timeout=max(1, int(self._timeout)))
            names = migrate(conn)
        except psycopg.OperationalError as exc:
            if conn is not None:
                conn.close()
            if (problem := setup_problem(self.url, str(exc))) is not None:
                raise StoreSetupError(problem) from exc
            raise StoreUnavailableError(f"database unavailable: {_one_line(exc)}") from exc
        if names:
            _LOGGER.info("tournament: applied migrations %s", ", ".join(names))
        self._conn = conn
        return conn

    def close(self) -> None:
        """Close the connection."""
        if self._conn is not None:
            with contextlib.suppress(psycopg.Error):
                self._conn.close()
            self._conn = None

    def _lost(self, exc: psycopg.Error) -> StoreUnavailableError:
        """Forget the connection (the next call opens a new one) and say what happened."""
        self.close()
        if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
            return StoreUnavailableError(f"database connection lost: {_one_line(exc)}")
        return StoreUnavailableError(f"database refused the change: {_one_line(exc)[:300]}")

    def create(self, tournament: Tournament) -> Tournament:
        """See :meth:`TournamentStore.create`."""
        conn = self.connect()
        stored = Tournament(tournament.id, tournament.structure, tournament.clock,
                            tournament.field, 1)
        try:
            with conn.transaction():
                row = conn.execute("INSERT INTO tournaments (id, name, structure, status, "
                                   "period, started_at, used, seats_per_table, tables, version)"
                                   " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, 1) "
                                   "ON CONFLICT (id) DO NOTHING RETURNING id",
                                   (stored.id, stored.structure.name,
                                    Jsonb(stored.structure.to_json()), *self._clock(stored),
                                    stored.field.seats_per_table,
                                    list(stored.field.tables))).fetchone()
                if row is None:
                    raise TournamentError(f"tournament {tournament.id!r} exists already")
                self._write_field(conn, stored)
        except psycopg.Error as exc:
            raise self._lost(exc) from exc
        return stored

    @staticmethod
    def _clock(t: Tournament) -> tuple[str, int, Any, float]:
        c = t.clock
        return c.status.value, c.period, c.started_at, c.used

    def load(self, tid: str) -> Tournament:
        """See :meth:`TournamentStore.load`."""
        conn = self.connect()
        try:
            with conn.transaction():
                return self._read(conn, tid, lock=False)
        except psycopg.Error as exc:
            raise self._lost(exc) from exc

    def update(self, tid: str, change: Change) -> Tournament:
        """See :meth:`TournamentStore.update`."""
        conn = self.connect()
        try:
            with conn.transaction():
                current = self._read(conn, tid, lock=True)
                changed = change(current)
                new = Tournament(tid, current.structure, changed.clock, changed.field,
                                 current.version + 1)
                conn.execute("UPDATE tournaments SET status = %s, period = %s, started_at = %s,"
                             " used = %s, tables = %s, version = %s, updated_at = now() "
                             "WHERE id = %s", (*self._clock(new), list(new.field.tables),
                                               new.version, tid))
                self._write_field(conn, new)
                if new.clock.status is Status.FINISHED:
                    self._write_results(conn, new)
        except psycopg.Error as exc:
            raise self._lost(exc) from exc
        return new

    @staticmethod
    def _write_results(conn: psycopg.Connection[Any], t: Tournament) -> None:
        """The results of a finished tournament (payouts.py), in its last change."""
        conn.execute("DELETE FROM tournament_results WHERE tournament_id = %s", (t.id,))
        rows = [(t.id, r.place, r.player, r.entry, r.amount or 0, t.structure.currency)
                for r in results(t.structure, t.field) if r.place is not None]
        if rows:
            conn.cursor().executemany(
                "INSERT INTO tournament_results (tournament_id, place, player, entry, "
                "amount_cents, currency) VALUES (%s, %s, %s, %s, %s, %s)", rows)

    def stored_results(self, tid: str) -> list[Result]:
        """The results written when ``tid`` finished (empty before), the best first."""
        conn = self.connect()
        try:
            with conn.transaction():
                return [Result(place, player, entry, amount) for place, player, entry, amount
                        in conn.execute("SELECT place, player, entry, amount_cents FROM "
                                        "tournament_results WHERE tournament_id = %s ORDER BY "
                                        "place, player", (tid,))]
        except psycopg.Error as exc:
            raise self._lost(exc) from exc

    def record_chips(self, tid: str, table: int, counts: list[ChipCount]) -> None:
        """See :meth:`TournamentStore.record_chips`."""
        conn = self.connect()
        try:
            with conn.transaction():
                conn.execute("DELETE FROM tournament_chip_counts WHERE tournament_id = %s AND "
                             "table_no = %s", (tid, table))
                if counts:
                    conn.cursor().executemany(
                        "INSERT INTO tournament_chip_counts (tournament_id, table_no, seat, "
                        "player, chips, hand) VALUES (%s, %s, %s, %s, %s, %s)",
                        [(tid, table, c.seat, c.player, c.chips, c.hand) for c in counts])
        except psycopg.Error as exc:
            raise self._lost(exc) from exc

    def chip_counts(self, tid: str) -> list[ChipCount]:
        """See :meth:`TournamentStore.chip_counts`."""
        conn = self.connect()
        try:
            with conn.transaction():
                return [ChipCount(*row) for row in conn.execute(
                    "SELECT table_no, seat, player, chips, hand FROM tournament_chip_counts "
                    "WHERE tournament_id = %s ORDER BY chips DESC, table_no, seat", (tid,))]
        except psycopg.Error as exc:
            raise self._lost(exc) from exc

    def ids(self) -> list[str]:
        """See :meth:`TournamentStore.ids`."""
        conn = self.connect()
        try:
            with conn.transaction():
                return [r[0] for r in conn.execute("SELECT id FROM tournaments ORDER BY id")]
        except psycopg.Error as exc:
            raise self._lost(exc) from exc

    def _read(self, conn: psycopg.Connection[Any], tid: str, *, lock: bool) -> Tournament:
        row = conn.execute(_SELECT_LOCKED if lock else _SELECT, (tid,)).fetchone()
        if row is None:
            raise unknown(tid)
        structure, status, period, started, used, seats, tables, version = row
        entries = tuple(
            Entry(player, number, EntryStatus(st), table, seat, chips)
            for player, number, st, table, seat, chips in conn.execute(
                "SELECT player, number, status, table_no, seat, chips FROM tournament_entries "
                "WHERE tournament_id = %s ORDER BY position", (tid,)))
        eliminations = tuple(
            Elimination(*r) for r in conn.execute(
                "SELECT ord, player, entry, hand, start_chips, table_no, seat FROM "
                "tournament_eliminations WHERE tournament_id = %s ORDER BY ord", (tid,)))
        return Tournament(tid, Structure.from_json(structure, f"tournament {tid}"),
                          ClockState(Status(status), period, started, used),
                          Field(entries, eliminations, tuple(tables), seats), version)

    @staticmethod
    def _write_field(conn: psycopg.Connection[Any], t: Tournament) -> None:
        cur = conn.cursor()
        if t.field.entries:
            cur.executemany(
                "INSERT INTO tournament_entries (tournament_id, player, number, position, "
                "status, table_no, seat, chips) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (tournament_id, player, number) DO UPDATE SET status = "
                "excluded.status, table_no = excluded.table_no, seat = excluded.seat",
                [(t.id, e.player, e.number, i, e.status.value, e.table, e.seat, e.chips)
                 for i, e in enumerate(t.field.entries)])
        if t.field.eliminations:
            cur.executemany(
                "INSERT INTO tournament_eliminations (tournament_id, ord, player, entry, hand, "
                "start_chips, table_no, seat) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (tournament_id, ord) DO NOTHING",
                [(t.id, x.order, x.player, x.entry, x.hand, x.start_chips, x.table, x.seat)
                 for x in t.field.eliminations])


__all__ = ["MIGRATION_LOCK", "PgTournamentStore", "migrate", "migrations"]
