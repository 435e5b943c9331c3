"""Floor workers on a real mosquitto and PostgreSQL: what the broker lets a worker hold
unacknowledged, and two workers sharing the tables through one shared subscription."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tablectl.floor.command import mqtt_settings
from tablectl.floor.pg import PgStore
from tablectl.floor.service import FloorService, FloorSettings
from tablectl.floor.store import MemoryStore
from tablectl.publish.mqtt import MqttPublisher
from tests.conftest import BrokerFactory
from tests.floor.streams import events_of, snapshot, stream
from tests.reliability.harness import poll_until

# the shipped broker's limit (config/mosquitto/mosquitto.conf) on unacknowledged messages
INFLIGHT = "max_inflight_messages 20\n"


def publish_all(port: int, messages: list[tuple[str, bytes]]) -> None:
    """Publish at QoS 1 and wait until the broker has every one."""
    pub = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id="tables")
    pub.connect("127.0.0.1", port)
    pub.loop_start()
    try:
        for info in [pub.publish(topic, payload, qos=1) for topic, payload in messages]:
            info.wait_for_publish(10)
    finally:
        pub.disconnect()
        pub.loop_stop()


@contextlib.asynccontextmanager
async def worker_client(port: int, user: str, batch_max: int) -> AsyncIterator[MqttPublisher]:
    settings = mqtt_settings(f"mqtt://127.0.0.1:{port}", user=user, credentials=None,
                             cafile=None, batch_max=batch_max)
    async with MqttPublisher(settings, manual_ack=True) as client:
        yield client


async def test_a_worker_may_hold_more_than_a_batch_unacknowledged(
        mosquitto_factory: BrokerFactory) -> None:
    # A worker acknowledges after its commit: with the broker's 20 in flight, no batch could
    # ever hold more than 20 messages, whatever --batch-max says.
    broker = mosquitto_factory(INFLIGHT)
    async with worker_client(broker.port, "floor-rm", batch_max=100) as client:
        await client.subscribe("$share/floor/poker/v1/tables/+/events", qos=1)
        await asyncio.to_thread(publish_all, broker.port, [
            ("poker/v1/tables/t1/events", b"{}") for _ in range(150)])
        got = 0

        async def read() -> None:
            nonlocal got
            async for _msg in client.messages():     # never acknowledged
                got += 1
                if got == 150:
                    return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(read(), 10)
        assert got == 150


async def test_two_workers_share_the_tables_and_store_every_event_once(
        mosquitto_factory: BrokerFactory, pg_url: str) -> None:
    broker = mosquitto_factory(INFLIGHT)
    bodies = [b for i in range(4) for b in stream(f"t{i}", 1, 2)]
    messages = []
    for b in bodies:
        messages.append((f"poker/v1/tables/{b['table']}/events", json.dumps(b).encode()))
        if b["seq"] % 5 == 0:
            snap = {"v": 1, "table": b["table"], "epoch": 1, "seq": b["seq"], "ts": b["ts"],
                    "type": "snapshot", "hand": None, "data": {}}
            messages.append((f"poker/v1/tables/{b['table']}/state", json.dumps(snap).encode()))
    stores = [PgStore(pg_url), PgStore(pg_url)]
    services: list[FloorService] = []
    async with contextlib.AsyncExitStack() as stack:
        for i, store in enumerate(stores):
            stack.callback(store.close)
            client = await stack.enter_async_context(
                worker_client(broker.port, f"floor-0{i + 1}", batch_max=50))
            service = FloorService(FloorSettings(user=f"floor-0{i + 1}", batch_max=50),
                                   store, client)
            services.append(service)
            for topic_filter in service.settings.filters():   # subscribed before publishing
                await client.subscribe(topic_filter, qos=1)
            task = asyncio.create_task(service.run())
            stack.push_async_callback(asyncio.wait_for, task, 10)
            stack.callback(service.stop)
        await asyncio.to_thread(publish_all, broker.port, messages)
        probe = PgStore(pg_url)         # its own connection: each worker's is its thread's
        stack.callback(probe.close)
        await poll_until(lambda: probe.counts()["events"] >= len(bodies), 30, every=0.2)
        await poll_until(lambda: not probe.gaps(), 10, every=0.2)
        counts = probe.counts()
    twin = MemoryStore()
    twin.ingest(events_of(bodies), [snapshot(f"t{i}", 1, 0) for i in range(4)])
    assert {k: counts[k] for k in twin.counts()} == dict(twin.counts())
    assert counts["hands"] == 8
    taken = [s.stats.messages for s in services]
    assert all(taken) and sum(taken) == len(messages), taken   # each message to one worker
