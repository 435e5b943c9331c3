"""The Publisher / Subscriber contract, run against MemoryPublisher and MqttPublisher.

The same test functions run on the in-memory twin and on the real client against a private
mosquitto (one client that subscribes to what it publishes itself): what the daemon's tests
learn from the twin holds on the wire.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import pytest

from tablectl.publish import (
    IncomingMessage,
    MemoryPublisher,
    MessageProps,
    NotConnectedError,
    PublishError,
    SecretTopicError,
)
from tablectl.publish import topics as tp
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tests.conftest import Broker

WAIT = 15.0


@dataclass
class PubSub:
    """One implementation under test and how to take its broker away."""

    client: MemoryPublisher | MqttPublisher
    go_offline: Callable[[], Awaitable[None]]


@pytest.fixture(params=["memory", "mqtt"])
async def pubsub(request: pytest.FixtureRequest) -> AsyncIterator[PubSub]:
    if request.param == "memory":
        async with MemoryPublisher() as memory:
            async def memory_offline() -> None:
                memory.online = False
            yield PubSub(memory, memory_offline)
        return
    broker: Broker = request.getfixturevalue("mosquitto")
    settings = MqttSettings(host=broker.host, port=broker.port, client_id="contract",
                            reconnect_min=1, reconnect_max=2, connect_timeout=10)
    async with MqttPublisher(settings) as mqtt:
        async def mqtt_offline() -> None:
            broker.stop()
            async with asyncio.timeout(WAIT):
                while mqtt.connected:       # noqa: ASYNC110 (the client has no such event)
                    await asyncio.sleep(0.02)
        yield PubSub(mqtt, mqtt_offline)


async def take(pubsub: PubSub, n: int) -> list[IncomingMessage]:
    """The next ``n`` messages delivered to the client."""
    got: list[IncomingMessage] = []
    async with asyncio.timeout(WAIT):
        async for msg in pubsub.client.messages():
            got.append(msg)
            if len(got) == n:
                break
    return got


async def test_a_subscriber_gets_each_message_once_in_order_with_its_properties(
        pubsub: PubSub) -> None:
    client = pubsub.client
    await client.subscribe("poker/v1/tables/t1/#")
    props = MessageProps(response_topic="poker/v1/replies/d/c1", correlation_data=b"\x01\x02",
                         content_type="application/json",
                         user_properties=(("a", "1"), ("b", "2")))
    for i in range(20):
        await client.publish(tp.events("t1"), b"e%d" % i, qos=i % 2, props=props)
    got = await take(pubsub, 20)
    assert [m.payload for m in got] == [b"e%d" % i for i in range(20)]
    assert [m.qos for m in got] == [i % 2 for i in range(20)]
    assert all(m.topic == tp.events("t1") and not m.retain for m in got)
    assert all(m.props == props for m in got)


async def test_a_message_expiry_travels_with_the_message(pubsub: PubSub) -> None:
    await pubsub.client.subscribe("poker/v1/tables/t1/#")
    await pubsub.client.publish(tp.events("t1"), b"x", props=MessageProps(message_expiry=60))
    [got] = await take(pubsub, 1)
    expiry = got.props.message_expiry
    assert expiry is not None and 0 < expiry <= 60   # a broker may count down what is left


async def test_a_retained_message_reaches_a_later_subscriber_flagged_retained(
        pubsub: PubSub) -> None:
    await pubsub.client.publish(tp.state("t1"), b"old", retain=True)
    await pubsub.client.publish(tp.state("t1"), b"snapshot", retain=True)
    await pubsub.client.subscribe(tp.state("t1").value)
    [got] = await take(pubsub, 1)
    assert (got.topic, got.payload, got.retain) == (tp.state("t1"), b"snapshot", True)


async def test_an_empty_retained_payload_clears_the_topic(pubsub: PubSub) -> None:
    await pubsub.client.publish(tp.state("t1"), b"snapshot", retain=True)
    await pubsub.client.publish(tp.state("t1"), b"", retain=True)
    await pubsub.client.subscribe("poker/v1/tables/t1/#")
    await pubsub.client.publish(tp.events("t1"), b"marker")
    [got] = await take(pubsub, 1)
    assert got.payload == b"marker"                  # nothing retained came first


async def test_only_matching_filters_are_delivered(pubsub: PubSub) -> None:
    await pubsub.client.subscribe("poker/v1/tables/+/events")
    await pubsub.client.publish(tp.state("t1"), b"not subscribed")
    await pubsub.client.publish(tp.events("t2"), b"wildcard")
    [got] = await take(pubsub, 1)
    assert (got.topic, got.payload) == (tp.events("t2"), b"wildcard")


async def test_a_secret_is_refused_on_a_public_topic_and_nothing_is_sent(
        pubsub: PubSub) -> None:
    await pubsub.client.subscribe("#")
    with pytest.raises(SecretTopicError):
        await pubsub.client.publish(tp.events("t1"), b"As Kd", secret=True)
    await pubsub.client.publish(tp.secure_holecards("t1"), b"As Kd", secret=True)
    [got] = await take(pubsub, 1)
    assert (got.topic, got.payload) == (tp.secure_holecards("t1"), b"As Kd")


async def test_qos_2_is_refused_before_anything_is_sent(pubsub: PubSub) -> None:
    await pubsub.client.subscribe("poker/v1/tables/t1/#")
    with pytest.raises(PublishError, match="qos"):
        await pubsub.client.publish(tp.events("t1"), b"qos2", qos=2)
    with pytest.raises(PublishError, match="qos"):
        await pubsub.client.subscribe("poker/v1/#", qos=2)
    await pubsub.client.publish(tp.events("t1"), b"marker")
    [got] = await take(pubsub, 1)
    assert got.payload == b"marker"


async def test_without_a_broker_a_publish_is_refused_as_not_connected(pubsub: PubSub) -> None:
    await pubsub.go_offline()
    for qos in (0, 1):
        with pytest.raises(NotConnectedError):
            await pubsub.client.publish(tp.events("t1"), b"lost", qos=qos)
