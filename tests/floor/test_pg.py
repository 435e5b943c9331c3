"""The PostgreSQL store against the real server: the same history as the in-memory twin,
whatever the delivery; migrations once; a killed connection loses and doubles nothing."""

from __future__ import annotations

import random
import threading

import psycopg
import pytest

from tablectl.floor.pg import PgStore, migrate, migrations
from tablectl.floor.store import MemoryStore, StoreUnavailableError
from tests.floor.conftest import terminate_backends
from tests.floor.pgserver import PgServer
from tests.floor.streams import events_of, snapshot, stream
from tests.floor.test_fold import BAD_BEAT

EVENTS = events_of(stream("t01", 1, 3) + stream("t02", "j9-1", 2))
SNAPS = [snapshot("t01", 1, 0), snapshot("t02", "j9-1", 0)]
TAILS = [snapshot("t01", 1, 66), snapshot("t02", "j9-1", 44)]


def history(store: MemoryStore | PgStore) -> list[dict[str, object]]:
    return [h.to_json() for h in store.hands()]


def deliver(store: MemoryStore | PgStore, seed: int) -> None:
    rnd = random.Random(seed)
    delivered = [e for e in EVENTS for _ in range(1 + (rnd.random() < 0.2))]
    rnd.shuffle(delivered)
    kept = [e for e in delivered if rnd.random() >= 0.15]
    store.ingest([], SNAPS)
    for i in range(0, len(kept), 17):
        store.ingest(kept[i:i + 17])
    store.ingest([], TAILS)
    by_key = {e.key: e for e in EVENTS}
    while gaps := store.gaps():
        for gap in gaps:
            store.ingest([by_key[(gap.table, gap.epoch, s)]
                          for s in range(gap.from_seq, gap.to_seq + 1)])


def test_the_database_holds_what_the_twin_holds(pg_url: str) -> None:
    twin = MemoryStore(rules=BAD_BEAT)
    twin.ingest(EVENTS, SNAPS)
    pg = PgStore(pg_url, rules=BAD_BEAT)
    try:
        for seed in (1, 2):
            deliver(pg, seed)
        assert history(pg) == history(twin)
        assert len(history(pg)) == 5
        counts = pg.counts()
        assert counts["events"] == len(EVENTS)
        assert {k: counts[k] for k in twin.counts()} == dict(twin.counts())
        assert counts["flags"] == 5
        assert pg.hands(table="t02")[0].table == "t02"
        second = pg.hands(table="t01")[1].started_at
        assert [h.number for h in pg.hands(table="t01", since=second)] == [2, 3]
    finally:
        pg.close()


def test_migrations_are_applied_once(pg_url: str) -> None:
    names = [name for _, name, _ in migrations()]
    assert names and names[0].startswith("0001_")
    with psycopg.connect(pg_url) as conn:
        assert migrate(conn) == names
        assert migrate(conn) == []
        rows = conn.execute("SELECT name FROM floor_migrations ORDER BY version").fetchall()
    assert [r[0] for r in rows] == names


def test_two_workers_share_streams_without_doubling(pg_url: str) -> None:
    stores = [PgStore(pg_url), PgStore(pg_url)]
    stores[0].connect()
    rnd = random.Random(5)
    delivered = list(EVENTS) + rnd.sample(EVENTS, 30)
    rnd.shuffle(delivered)
    halves = [delivered[0::2], delivered[1::2]]

    def run(store: PgStore, part: list[object]) -> None:
        for i in range(0, len(part), 5):
            store.ingest(part[i:i + 5])  # type: ignore[arg-type]

    threads = [threading.Thread(target=run, args=(s, p)) for s, p in zip(stores, halves,
                                                                         strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        # whatever one worker left waiting behind a gap, the other's later batch applied
        assert not stores[0].gaps()
        counts = stores[0].counts()
        twin = MemoryStore()
        twin.ingest(EVENTS)
        assert {k: counts[k] for k in twin.counts()} == dict(twin.counts())
    finally:
        for s in stores:
            s.close()


def test_a_killed_connection_keeps_nothing_of_the_batch_and_then_recovers(pg_url: str) -> None:
    store = PgStore(pg_url)
    try:
        store.ingest(EVENTS[:10], SNAPS)
        assert terminate_backends(pg_url.rsplit("/", 1)[1]) >= 1
        with pytest.raises(StoreUnavailableError):
            store.ingest(EVENTS[10:20])
        store.ingest(EVENTS[10:])            # the same batch again, on a new connection
        store.ingest(EVENTS[5:15])           # and some redelivered
        counts = store.counts()
        assert counts["events"] == len(EVENTS) and counts["hands"] == 5
        assert counts["winners"] == 5 and not store.gaps()
    finally:
        store.close()


def test_an_unreachable_database_is_a_clear_error() -> None:
    store = PgStore("postgresql://postgres@127.0.0.1:1/nowhere", connect_timeout=1)
    with pytest.raises(StoreUnavailableError, match="database unavailable"):
        store.ingest(EVENTS[:1])


def test_a_new_epoch_continues_the_hand_under_way(pg_url: str) -> None:
    events = stream("t01", 1, 1)
    rest = [{**b, "epoch": "j2-1", "seq": i + 1} for i, b in enumerate(events[10:])]
    store = PgStore(pg_url)
    try:
        store.ingest(events_of(events[:10]), SNAPS)
        store.ingest(events_of(rest))
        (hand,) = store.hands()
        assert (hand.result, hand.pot) == ("settled", 400)
        assert store.counts()["actions"] == 8 and not store.gaps()
    finally:
        store.close()


def test_a_restarted_server_keeps_nothing_of_the_batch_and_then_recovers() -> None:
    server = PgServer()
    store = PgStore(server.url, connect_timeout=1)
    try:
        store.ingest(EVENTS[:10], SNAPS)
        server.stop()
        with pytest.raises(StoreUnavailableError):       # the connection is gone
            store.ingest(EVENTS[10:20])
        with pytest.raises(StoreUnavailableError, match="database unavailable"):
            store.ingest(EVENTS[10:20])                  # and no new one while it is down
        server.start()
        store.ingest(EVENTS[10:])            # the same batch again, on a new connection
        store.ingest(EVENTS[5:15])           # and some redelivered
        counts = store.counts()
        assert counts["events"] == len(EVENTS) and counts["hands"] == 5
        assert counts["winners"] == 5 and not store.gaps()
    finally:
        store.close()
        server.remove()
