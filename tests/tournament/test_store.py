"""The store contract, run against the in-memory twin and PostgreSQL alike; and the clock
surviving a restart of the service to the second."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from tablectl.tournament.clock import AddTime, ClockState, Pause, Start, apply, view
from tablectl.tournament.errors import StoreSetupError, StoreUnavailableError, TournamentError
from tablectl.tournament.pg import PgTournamentStore
from tablectl.tournament.store import MemoryTournamentStore, Tournament, TournamentStore
from tablectl.tournament.structure import Structure
from tests.floor.conftest import terminate_backends

T0 = datetime(2026, 12, 3, 19, 0, 0, 123456, tzinfo=UTC)


@pytest.fixture(params=["memory", "pg"])
def make_store(request: pytest.FixtureRequest) -> Iterator[type[object]]:
    """A factory of stores on one backing (a second store on PostgreSQL is a new process's
    connection to the same database)."""
    stores: list[TournamentStore] = []
    if request.param == "memory":
        shared = MemoryTournamentStore()

        def make() -> TournamentStore:
            return shared
    else:
        url = request.getfixturevalue("pg_url")

        def make() -> TournamentStore:
            store = PgTournamentStore(url)
            stores.append(store)
            return store
    yield make  # type: ignore[misc]
    for store in stores:
        store.close()


def played(t: Tournament) -> Tournament:
    """Registered, started, a pause, time added, two busts in one hand and a re-entry."""
    f = t.field
    for name in ("ann", "bob", "cat", "dan"):
        f = f.register(name, t.structure.starting_stack)
    f = f.bust("cat", hand="t1#3", start_chips=400).bust("dan", hand="t1#3", start_chips=900)
    f = f.reenter("cat", t.structure.starting_stack, 2)
    c = apply(t.clock, t.structure, Start(), T0)
    c = apply(c, t.structure, Pause(), T0 + timedelta(seconds=100))
    c = apply(c, t.structure, AddTime(-30), T0 + timedelta(seconds=200))
    return replace(t, clock=c, field=f)


def test_a_tournament_comes_back_as_it_was_stored(make_store: type, small: Structure) -> None:
    store = make_store()
    created = store.create(Tournament.new("daily-1", small))
    assert created.version == 1
    stored = store.update("daily-1", played)
    assert stored.version == 2
    again = make_store().load("daily-1")          # a new process reads it
    assert again == stored
    assert again.structure == small
    assert [(p.place, p.player) for p in again.field.ranking()] == [
        (None, "ann"), (None, "bob"), (None, "cat"), (4, "dan")]
    assert store.ids() == ["daily-1"]


def test_a_refused_change_stores_nothing(make_store: type, small: Structure) -> None:
    store = make_store()
    store.create(Tournament.new("t1", small))
    store.update("t1", played)

    def bad(t: Tournament) -> Tournament:
        t = replace(t, field=t.field.register("eve", 1))
        return replace(t, field=t.field.register("eve", 1))     # refused: already in

    with pytest.raises(TournamentError, match="eve is already registered"):
        store.update("t1", bad)
    t = make_store().load("t1")
    assert t.version == 2 and t.field.current("eve") is None


def test_unknown_and_duplicate_ids(make_store: type, small: Structure) -> None:
    store = make_store()
    with pytest.raises(TournamentError, match="there is no tournament 'nope'"):
        store.load("nope")
    with pytest.raises(TournamentError, match="there is no tournament"):
        store.update("nope", lambda t: t)
    store.create(Tournament.new("t1", small))
    with pytest.raises(TournamentError, match="exists already"):
        store.create(Tournament.new("t1", small))
    with pytest.raises(TournamentError, match="a tournament id is"):
        Tournament.new("Bad/Id", small)


def test_the_clock_survives_a_restart_to_the_second(make_store: type,
                                                    small: Structure) -> None:
    """Started, stored; the service 'restarts' 17 min 25.4 s later (a new store, the record
    read back): level 2 with 2:34.6 left, as the schedule says (600 + 600 - 1045.4)."""
    store = make_store()
    store.create(Tournament.new("t1", small))
    store.update("t1", lambda t: replace(t, clock=apply(t.clock, t.structure, Start(), T0)))
    back = make_store().load("t1")
    v = view(back.clock, back.structure, T0 + timedelta(seconds=1045.4))
    assert v.level.number == 2
    assert v.time_left == pytest.approx(154.6, abs=1e-6)


def test_pg_lost_connection_is_unavailable_then_reconnects(pg_url: str,
                                                           small: Structure) -> None:
    store = PgTournamentStore(pg_url)
    store.create(Tournament.new("t1", small))
    assert terminate_backends(pg_url.rsplit("/", 1)[1]) >= 1
    with pytest.raises(StoreUnavailableError, match="connection lost"):
        store.load("t1")
    assert store.load("t1").version == 1                      # the next call reconnects
    store.close()


def test_pg_refuses_a_row_it_cannot_hold_and_keeps_nothing(pg_url: str,
                                                           small: Structure) -> None:
    """A seat given twice (which the field never does) is refused by the database's own
    constraint: nothing of the change is kept."""
    store = PgTournamentStore(pg_url)
    store.create(Tournament.new("t1", small))
    store.update("t1", lambda t: replace(t, field=t.field.register("a", 5)))

    def clash(t: Tournament) -> Tournament:
        f = t.field.register("b", 5)
        entries = tuple(replace(e, table=1, seat=1) for e in f.entries)
        return replace(t, field=replace(f, entries=entries))

    with pytest.raises(StoreUnavailableError, match="refused"):
        store.update("t1", clash)
    t = store.load("t1")
    assert t.version == 2 and [e.player for e in t.field.entries] == ["a"]
    store.close()


def test_pg_a_missing_database_says_how_to_create_it(pg_url: str) -> None:
    store = PgTournamentStore(pg_url.rsplit("/", 1)[0] + "/no_such_tournament_db")
    with pytest.raises(StoreSetupError, match="createdb"):
        store.load("x")


def test_pg_migrations_run_once_beside_the_floor(pg_url: str, small: Structure) -> None:
    from tablectl.floor.pg import PgStore

    floor = PgStore(pg_url)
    floor.connect()                                            # the floor's tables too
    floor.close()
    for _ in range(2):
        store = PgTournamentStore(pg_url)
        if not store.ids():
            store.create(Tournament.new("t1", small))
        store.close()
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT name FROM tournament_migrations").fetchall()
        count = conn.execute("SELECT count(*) FROM floor_migrations").fetchone()
    assert rows == [("0001_tournament.sql",), ("0002_results.sql",), ("0003_chip_counts.sql",)]
    assert count is not None and count[0] >= 1


def test_clock_state_json_round_trip() -> None:
    c = ClockState()
    assert ClockState.from_json(c.to_json()) == c


def test_pg_two_directors_at_once_are_serialised(pg_url: str, small: Structure) -> None:
    """Two processes' commands at the same moment (two connections, two threads): the row
    lock makes one wait for the other, so both registrations are kept and the version counts
    both; without the lock, the second write would have dropped the first player."""
    import threading

    first = PgTournamentStore(pg_url)
    first.create(Tournament.new("t1", small))
    second = PgTournamentStore(pg_url)
    second.load("t1")
    inside = threading.Event()
    release = threading.Event()

    def slow(t: Tournament) -> Tournament:
        inside.set()
        release.wait(10)                  # holds the row lock while the other one tries
        return replace(t, field=t.field.register("ann", 5))

    worker = threading.Thread(target=lambda: first.update("t1", slow))
    worker.start()
    assert inside.wait(10)
    done = threading.Event()

    def quick() -> None:
        second.update("t1", lambda t: replace(t, field=t.field.register("bob", 5)))
        done.set()

    other = threading.Thread(target=quick)
    other.start()
    assert not done.wait(0.3)             # it waits for the lock
    release.set()
    worker.join(10)
    other.join(10)
    t = second.load("t1")
    assert t.version == 3 and sorted(e.player for e in t.field.entries) == ["ann", "bob"]
    first.close()
    second.close()
