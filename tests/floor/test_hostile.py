"""Hostile events on the floor's broker (issue 25, items 8 and 9), against the real parts: a
private mosquitto, ``tablectl floor run`` as a child process, a PostgreSQL database of the
test's own.

Each hostile message is published on a table's events topic, then the next good event of
every table: the floor must store those, set the hostile one aside in the quarantine with its
reason, and keep running. Before the decoder, the first of them (a seq of 2^63) stopped the
worker for every table (the batch was retried for ever), ``seats: 5`` made it exit at every
start, and ``"table": "fa"`` on ``fz``'s topic was stored under ``fa``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import threading
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import psycopg
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.floor.pg import PgStore
from tablectl.floor.service import FloorService, FloorSettings
from tablectl.floor.store import MemoryStore
from tablectl.publish.base import IncomingMessage
from tablectl.publish.topics import Topic
from tests.conftest import BrokerFactory, free_port
from tests.floor.stack import FloorProcess, db_rows
from tests.floor.streams import T0, body, events_of, stream
from tests.floor.test_cli import Run
from tests.floor.test_workers import worker_client
from tests.reliability.harness import poll_until

TABLES = ("t1", "t2", "fz")
WAIT = 60.0


def topic(table: str, kind: str = "events") -> str:
    return f"poker/v1/tables/{table}/{kind}"


def envelope(table: str, seq: int, etype: str = "board", data: Any = None, **over: Any
             ) -> dict[str, Any]:
    out = body(table, 1, 1, etype, {"cards": ["2c", "7d", "Jh"], "street": "flop"}
               if data is None else data, hand=1)
    out.update(seq=seq, **over)
    return out


def nested(depth: int) -> bytes:
    head = json.dumps(envelope("t1", 5001, "device", {"name": "x"})).encode()
    return head[:-2] + b', "deep": ' + b"[" * depth + b"]" * depth + b"}}"


# (name, table whose topic carries it, payload, what the quarantine's reason says)
HOSTILE: tuple[tuple[str, str, bytes, str], ...] = (
    ("seq 2^63", "t1", json.dumps(envelope("t1", 2**63)).encode(), "integer"),
    ("hand 2^63", "t2", json.dumps(envelope("t2", 5002, hand=2**63)).encode(), "integer"),
    ("NUL in a string", "fz", json.dumps(envelope("fz", 5003, "device", {
        "name": "sh\u0000oe", "kind": "rfid-shoe", "status": "online"})).encode(),
     "U+0000"),
    ("NaN", "t1", json.dumps(envelope("t1", 5004, "action", {
        "seat": 1, "kind": "bet", "amount": float("nan"), "to": 100, "all_in": False})
                               ).encode(), "NaN"),
    ("button x", "t2", json.dumps(envelope("t2", 5005, "hand_started", {
        "hand": {"id": "x", "number": 9}, "button": "x",
        "seats": [{"seat": 1, "name": "A", "stack": 10}]})).encode(), "button"),
    ("seats 5", "fz", json.dumps(envelope("fz", 5006, "hand_started", {
        "hand": {"id": "x", "number": 9}, "button": 1, "seats": 5})).encode(), "seats"),
    ("deep nesting", "t1", nested(1200), "nested deeper"),
    ("another table's id", "fz", json.dumps(envelope("fa", 1)).encode(), "table 'fa'"),
    ("negative amount", "t2", json.dumps(envelope("t2", 5009, "winner", {
        "pot": 0, "seat": 2, "amount": -400, "half": "whole", "description": "x"})).encode(),
     "amount"),
    ("not UTF-8", "t1", b'{"v":1,"table":"t1","type":"\xff\xfe"}', "not UTF-8"),
    ("seat 11", "t2", json.dumps(envelope("t2", 5011, "action", {
        "seat": 11, "kind": "call", "amount": 5, "to": 5, "all_in": False})).encode(), "seat"),
    ("not a card", "fz", json.dumps(envelope("fz", 5012, "showdown", {
        "seat": 1, "cards": ["Zz", "Ah"], "best": [], "high": None, "low": None})).encode(),
     "not a card"),
)


class Publisher:
    """One QoS 1 publisher that waits until the broker has each message."""

    def __init__(self, port: int) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id="hostile-tables")
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def send(self, where: str, payload: bytes, *, retain: bool = False) -> None:
        self.client.publish(where, payload, qos=1, retain=retain).wait_for_publish(10)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@contextlib.contextmanager
def publisher(port: int) -> Iterator[Publisher]:
    pub = Publisher(port)
    try:
        yield pub
    finally:
        pub.close()


def scrape(port: int) -> dict[str, float]:
    """The worker's Prometheus counters."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        lines = resp.read().decode().splitlines()
    return {line.split()[0]: float(line.split()[1]) for line in lines
            if line and not line.startswith("#")}


def count(db: str, query: str, *args: Any) -> int:
    rows = db_rows(db, query, args)
    return int(rows[0][0]) if rows else 0


def retained_snapshot(pub: Publisher, table: str) -> None:
    """A retained snapshot: the floor gets it when it subscribes (so the test knows it has)."""
    pub.send(topic(table, "state"), json.dumps({
        "v": 1, "table": table, "epoch": 1, "seq": 0, "type": "snapshot",
        "ts": T0.isoformat(), "hand": None, "data": {}}).encode(), retain=True)


async def subscribed(db: str, tables: tuple[str, ...]) -> None:
    await poll_until(lambda: count(db, "SELECT count(*) FROM tables WHERE id = ANY(%s)",
                                   list(tables)) == len(tables), WAIT, every=0.1)


@contextlib.asynccontextmanager
async def floor_process(port: int, db: str, log: Path, user: str, *extra: str
                        ) -> AsyncIterator[FloorProcess]:
    floor = FloorProcess(port, db, log, user=user, extra=extra)
    floor.start()
    try:
        yield floor
    finally:
        floor.stop()


async def test_hostile_events_are_quarantined_and_every_table_goes_on(
        mosquitto_factory: BrokerFactory, pg_url: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    broker = mosquitto_factory()
    good = {t: stream(t, 1, 1) for t in TABLES}
    metrics = free_port()
    with publisher(broker.port) as pub:
        for t in TABLES:
            retained_snapshot(pub, t)
        async with floor_process(broker.port, pg_url, tmp_path / "floor.log", "floor-h",
                                 "--metrics-port", str(metrics)) as floor:
            await subscribed(pg_url, TABLES)
            for i, (name, table, payload, _why) in enumerate(HOSTILE):
                pub.send(topic(table), payload)
                for t in TABLES:
                    pub.send(topic(t), json.dumps(good[t][i]).encode())
                try:
                    await poll_until(lambda n=i + 1: count(
                        pg_url, "SELECT count(*) FROM quarantine") == n and all(
                        count(pg_url, "SELECT count(*) FROM events WHERE table_id = %s",
                              t) == n for t in TABLES), WAIT, every=0.1)
                except TimeoutError:
                    pytest.fail(f"after {name}: the floor did not store the next events and "
                                f"quarantine it\n{floor.log_tail()}")
                assert floor.alive, floor.log_tail()
            for t in TABLES:
                for event in good[t][len(HOSTILE):]:
                    pub.send(topic(t), json.dumps(event).encode())
            await poll_until(lambda: count(pg_url, "SELECT count(*) FROM hands WHERE result "
                                                   "= 'settled'") == len(TABLES), WAIT, 0.1)
            assert floor.alive
            scraped = await asyncio.to_thread(scrape, metrics)
            assert scraped["tablectl_floor_quarantined_total"] == len(HOSTILE)
            assert scraped["tablectl_floor_undecodable_total"] == len(HOSTILE)
            assert scraped["tablectl_floor_store_failures_total"] == 0
    # every table's hand as the same events make it without the hostile ones
    twin = MemoryStore()
    twin.ingest(events_of([e for t in TABLES for e in good[t]]))
    assert count(pg_url, "SELECT count(*) FROM actions") == twin.counts()["actions"]
    assert db_rows(pg_url, "SELECT id FROM tables ORDER BY id") == [(t,) for t in
                                                                    sorted(TABLES)]
    out = Run(["floor", "quarantine", "--db", pg_url, "--json", "--limit", "100"], capsys)
    assert out.returncode == 0, out.stderr
    held = [json.loads(line) for line in out.stdout.splitlines()]
    by_digest = {h["sha256"]: h for h in held}
    for name, table, payload, why in HOSTILE:
        row = by_digest[hashlib.sha256(payload).hexdigest()]
        assert why in row["reason"], (name, row["reason"])
        assert row["table"] == table and row["topic"] == topic(table)
        assert row["size"] == len(payload) and row["count"] == 1
    text = Run(["floor", "quarantine", "--db", pg_url, "--table", "fz", "--limit", "2"],
               capsys)
    assert text.returncode == 0 and len(text.stdout.splitlines()) == 2
    assert all("  fz  poker/v1/tables/fz/events  " in line for line in text.stdout.splitlines())


async def test_a_poison_message_in_the_persistent_session_is_not_replayed_after_a_restart(
        mosquitto_factory: BrokerFactory, pg_url: str, tmp_path: Path) -> None:
    """``seats: 5`` made the worker exit 1 at every start: the broker kept the message in
    its persistent session and handed it over again each time."""
    broker = mosquitto_factory()
    good = stream("t1", 1, 1)
    poison = json.dumps(envelope("t1", 7001, "hand_started", {
        "hand": {"id": "x", "number": 1}, "button": 1, "seats": 5})).encode()
    log = tmp_path / "floor.log"
    with publisher(broker.port) as pub:
        retained_snapshot(pub, "t1")
        async with floor_process(broker.port, pg_url, log, "floor-r"):
            await subscribed(pg_url, ("t1",))
        # the worker is away: its session keeps what comes
        pub.send(topic("t1"), poison)
        pub.send(topic("t1"), json.dumps(good[0]).encode())
        for start in range(1, 4):
            async with floor_process(broker.port, pg_url, log, "floor-r") as floor:
                pub.send(topic("t1"), json.dumps(good[start]).encode())
                try:
                    await poll_until(lambda n=start + 1: count(
                        pg_url, "SELECT count(*) FROM events") == n, WAIT, every=0.1)
                except TimeoutError:
                    pytest.fail(f"start {start}: nothing stored\n{floor.log_tail()}")
                assert floor.alive, floor.log_tail()
    rows = db_rows(pg_url, "SELECT count, reason FROM quarantine")
    assert len(rows) == 1 and rows[0][0] == 1, rows     # quarantined once, never again
    assert "seats" in rows[0][1]


class _SlowQuarantine(MemoryStore):
    """Its quarantine blocks until released (in the worker's store thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.entered, self.release = threading.Event(), threading.Event()

    def quarantine(self, rows: Any) -> Any:
        self.entered.set()
        self.release.wait(10)
        return super().quarantine(rows)


class _Client:
    """The worker's MQTT connection as a twin: messages from a queue, acknowledgements kept."""

    def __init__(self) -> None:
        self.inbox: asyncio.Queue[IncomingMessage | None] = asyncio.Queue()
        self.acked: list[int] = []

    async def publish(self, *_a: Any, **_k: Any) -> None:
        return None

    async def subscribe(self, *_a: Any, **_k: Any) -> None:
        return None

    async def messages(self) -> AsyncIterator[IncomingMessage]:
        while (msg := await self.inbox.get()) is not None:
            yield msg

    def ack(self, msg: IncomingMessage) -> None:
        self.acked.append(msg.mid)


async def test_a_worker_stopped_mid_batch_acknowledges_the_batch_before_it_goes() -> None:
    """Stopped while the batch under way is being stored, the worker finishes it: stored
    and acknowledged (cut between the two, the broker would hand it over again)."""
    store, client = _SlowQuarantine(), _Client()
    poison = json.dumps(envelope("t1", 7001, "hand_started", {
        "hand": {"id": "x", "number": 1}, "button": 1, "seats": 5})).encode()
    client.inbox.put_nowait(IncomingMessage(Topic(topic("t1")), poison, mid=41, connection=1))
    service = FloorService(FloorSettings(user="floor-m", batch_max=10, batch_wait=0.01),
                           store, client)
    task = asyncio.create_task(service.run())
    try:
        await asyncio.to_thread(store.entered.wait, 10)
        service.stop()                   # the batch is in the store: its quarantine row
        await asyncio.sleep(0.2)         # the stop is under way, the store still busy
        store.release.set()
        await asyncio.wait_for(task, 10)
    finally:
        store.release.set()
        client.inbox.put_nowait(None)
    assert client.acked == [41]
    assert len(store.quarantined()) == 1


async def test_a_batch_the_database_refuses_is_split_and_only_the_bad_message_is_set_aside(
        mosquitto_factory: BrokerFactory, pg_url: str) -> None:
    """A message the decoder takes but PostgreSQL refuses (here a CHECK constraint of the
    test's, as a column refuses a value it cannot hold): before, the batch was taken for a
    lost connection and retried for ever, with every table behind it."""
    PgStore(pg_url).connect().close()        # migrated
    with psycopg.connect(pg_url) as conn:
        conn.execute("ALTER TABLE events ADD CONSTRAINT no_poison CHECK (type <> 'poison')")
    broker = mosquitto_factory()
    bodies = stream("t1", 1, 1)[:12] + stream("t2", 1, 1)[:12]
    poison = json.dumps(envelope("t3", 1, "poison", {})).encode()
    messages = [(topic(b["table"]), json.dumps(b).encode()) for b in bodies]
    messages.insert(7, (topic("t3"), poison))
    store = PgStore(pg_url)
    async with contextlib.AsyncExitStack() as stack:
        stack.callback(store.close)
        client = await stack.enter_async_context(worker_client(broker.port, "floor-s", 100))
        service = FloorService(FloorSettings(user="floor-s", batch_max=100, batch_wait=0.5),
                               store, client)
        for topic_filter in service.settings.filters():
            await client.subscribe(topic_filter, qos=1)
        with publisher(broker.port) as pub:
            for where, payload in messages:
                pub.send(where, payload)
        # all in the worker's hands before it starts: they make one batch
        await poll_until(lambda: client._messages.qsize() == len(messages), WAIT, every=0.05)
        task = asyncio.create_task(service.run())
        stack.push_async_callback(asyncio.wait_for, task, 10)
        stack.callback(service.stop)
        await poll_until(lambda: service.stats.messages == len(messages), WAIT, every=0.05)
        assert service.stats.batches == 1
        assert service.stats.quarantined == 1
        assert service.stats.store_failures == 0     # not taken for a database that is away
    assert count(pg_url, "SELECT count(*) FROM events") == len(bodies)
    rows = db_rows(pg_url, "SELECT table_id, reason FROM quarantine")
    assert len(rows) == 1 and rows[0][0] == "t3" and "no_poison" in rows[0][1], rows


class ReplayingTable:
    """A table's daemon as far as replays go: answers ``cmd/replay`` with the asked events
    (from ``events``), echoing the correlation data, on the reply topic it was given."""

    def __init__(self, port: int, table: str, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.asked: list[tuple[bytes, int, int]] = []
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=f"daemon-{table}")
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(f"poker/v1/tables/{table}/cmd/replay/+", qos=1)
        self.client.loop_start()

    def _on_message(self, client: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        args = json.loads(msg.payload)["args"]
        lo, hi = args["from_seq"], args["to_seq"]
        self.asked.append((msg.properties.CorrelationData, lo, hi))
        reply = {"v": 1, "id": "r", "status": "ok", "data": {
            "events": [{k: v for k, v in e.items() if k != "table"} for e in self.events
                       if lo <= e["seq"] <= hi]}}
        props = Properties(PacketTypes.PUBLISH)
        props.CorrelationData = msg.properties.CorrelationData
        client.publish(msg.properties.ResponseTopic, json.dumps(reply).encode(), qos=1,
                       properties=props)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


async def test_a_reply_to_no_request_of_the_worker_is_quarantined_and_a_real_one_fills_the_gap(
        mosquitto_factory: BrokerFactory, pg_url: str) -> None:
    """Every bridge user may write replay replies (docs/floor.md's ACL): before, a reply
    whose correlation data named table t2 was stored as t2's history, whoever sent it."""
    broker = mosquitto_factory()
    t1 = stream("t1", 1, 1)[:10]
    forged_events = [{k: v for k, v in e.items() if k != "table"}
                     for e in stream("t2", 1, 1)[:5]]
    forged = json.dumps({"v": 1, "id": "x", "status": "ok",
                         "data": {"events": forged_events}}).encode()
    store = PgStore(pg_url)
    table = ReplayingTable(broker.port, "t1", t1)
    async with contextlib.AsyncExitStack() as stack:
        stack.callback(table.close)
        stack.callback(store.close)
        client = await stack.enter_async_context(worker_client(broker.port, "floor-f", 50))
        service = FloorService(FloorSettings(user="floor-f", reorder=0.2, sweep=0.2), store,
                               client)
        task = asyncio.create_task(service.run())
        stack.push_async_callback(asyncio.wait_for, task, 10)
        stack.callback(service.stop)
        for topic_filter in service.settings.filters():   # subscribed before publishing
            await client.subscribe(topic_filter, qos=1)
        with publisher(broker.port) as pub:
            reply_topic = service.settings.reply_topic.value
            for corr in (b"t2\x1f1", b"t2\x1f1\x1f" + b"0" * 32, b""):
                props = Properties(PacketTypes.PUBLISH)
                if corr:
                    props.CorrelationData = corr
                pub.client.publish(reply_topic, forged, qos=1,
                                   properties=props).wait_for_publish(10)
            await poll_until(lambda: service.stats.quarantined == 3, WAIT, every=0.05)
            # t1 with events 4..6 lost: the worker asks t1, whose answer fills the gap
            for event in t1[:3] + t1[6:]:
                pub.send(topic("t1"), json.dumps(event).encode())
            await poll_until(lambda: count(pg_url, "SELECT applied FROM streams WHERE "
                                                   "table_id = 't1'") == len(t1), WAIT, 0.05)
    assert count(pg_url, "SELECT count(*) FROM events WHERE table_id = 't2'") == 0
    assert table.asked and all(corr.startswith(b"t1\x1f1\x1f") for corr, _, _ in table.asked)
    assert db_rows(pg_url, "SELECT id FROM tables ORDER BY id") == [("t1",)]
    rows = db_rows(pg_url, "SELECT count, reason FROM quarantine")   # one payload, 3 times
    assert len(rows) == 1 and rows[0][0] == 3 and "no request of this worker" in rows[0][1]
