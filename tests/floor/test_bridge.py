"""The shipped table-side bridge (``config/mosquitto/bridge.conf``) on real brokers: over TLS,
only the table's public topics cross, a floor outage loses nothing (the table broker queues),
and a floor broker whose certificate our CA did not sign gets nothing."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.conftest import Broker, BrokerFactory
from tests.floor.proxy import Relay
from tests.floor.stack import floor_broker, make_pki, remove_pki, table_broker
from tests.security.conftest import CONFIG, load_render


class Sub:
    """A paho subscriber that records (topic, payload); subscribed once built (its broker has
    acknowledged the subscription: what is published from then on reaches it)."""

    def __init__(self, broker: Broker, topic_filter: str) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.cond = threading.Condition()
        subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=f"sub-{uuid.uuid4().hex[:6]}")
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *_args: subscribed.set()
        self.client.connect(broker.host, broker.port)
        self.client.subscribe(topic_filter, qos=1)
        self.client.loop_start()
        if not subscribed.wait(60):
            self.close()
            raise AssertionError(f"no SUBACK for {topic_filter} from {broker.url} in 60 s")

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.got.append((msg.topic, bytes(msg.payload)))
            self.cond.notify_all()

    def wait(self, n: int, timeout: float = 20) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: len(self.got) >= n, timeout)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def publish(broker: Broker, items: list[tuple[str, bytes]], *, retain: bool = False) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                         client_id=f"pub-{uuid.uuid4().hex[:6]}")
    client.connect(broker.host, broker.port)
    client.loop_start()
    for topic, payload in items:
        client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)
    client.disconnect()
    client.loop_stop()


def wait_bridge(floor: Broker, table: Broker, name: str, timeout: float = 20) -> None:
    """Wait until the table's bridge is connected: a status it publishes reaches the floor."""
    sub = Sub(floor, f"poker/v1/tables/{name}/status")
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            publish(table, [(f"poker/v1/tables/{name}/status", b"probe")])
            if sub.wait(1, timeout=0.5):
                return
        raise AssertionError("the bridge did not connect")
    finally:
        sub.close()


def wait_bridge_in(floor: Broker, table: Broker, timeout: float = 20) -> None:
    """Wait until the bridge's subscriptions on the floor broker are in place: a message on
    the last topic ``bridge.conf`` brings in reaches the table (the bridge subscribes in the
    file's order, and a broker takes one client's SUBSCRIBEs in order)."""
    sub = Sub(table, "poker/v1/tournaments/+/clock")
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            publish(floor, [("poker/v1/tournaments/probe/clock", b"probe")])
            if sub.wait(1, timeout=0.5):
                return
        raise AssertionError("the bridge's subscriptions did not reach the floor broker")
    finally:
        sub.close()


@pytest.fixture
def pki() -> Iterator[Path]:
    root = make_pki()
    yield root
    remove_pki(root)


async def test_only_public_topics_cross_and_an_outage_loses_nothing(
        mosquitto_factory: BrokerFactory, pki: Path) -> None:
    floor = floor_broker(mosquitto_factory, pki)
    async with Relay("127.0.0.1", floor.ports["tls"], pki=pki) as relay:
        table = table_broker(mosquitto_factory, "t07", relay.port, pki)
        sub = Sub(floor, "#")
        try:
            first = [("poker/v1/tables/t07/events", f"e{i}".encode()) for i in range(3)]
            others = [("secure/v1/tables/t07/holecards", b"As Kd"),
                      ("secure/v1/tables/t07/state", b"secret"),
                      ("poker/v1/tables/t08/events", b"other table"),
                      ("poker/v1/tables/t07/cmd/start_hand/dealer-t07", b"{}")]
            await asyncio.to_thread(publish, table, others + first)
            assert await asyncio.to_thread(sub.wait, 3)
            # the floor's acknowledgements of those reach the bridge first (cut before, the
            # bridge would rightly send one again after the outage: QoS 1 is at least once):
            # counted by the relay, which sees the packets, and handed on before the cut ends
            await relay.acknowledged(at_least=len(first))
            # the floor network goes down; the table goes on publishing
            await relay.close(handed_on=True)
            during = [("poker/v1/tables/t07/events", f"d{i}".encode()) for i in range(200)]
            during.append(("poker/v1/tables/t07/state", b"snap"))
            await asyncio.to_thread(publish, table, during)
            await asyncio.sleep(1.0)
            assert sub.got == first
            await relay.open()
            assert await asyncio.to_thread(sub.wait, 3 + len(during), 60)
            # one more behind it: the bridge sends again what it saw no PUBACK for before
            # anything queued after it, so a resend would be in by now
            last = [("poker/v1/tables/t07/events", b"last")]
            await asyncio.to_thread(publish, table, last)
            assert await asyncio.to_thread(sub.wait, 3 + len(during) + 1, 60)
            assert sub.got == first + during + last      # all of it, once, in order
        finally:
            sub.close()


def test_a_replay_command_crosses_in_and_its_reply_out(mosquitto_factory: BrokerFactory,
                                                      pki: Path) -> None:
    floor = floor_broker(mosquitto_factory, pki)
    table = table_broker(mosquitto_factory, "t07", floor.ports["tls"], pki)
    at_table = Sub(table, "poker/v1/tables/t07/cmd/#")
    at_floor = Sub(floor, "poker/v1/replies/#")
    try:
        wait_bridge(floor, table, "t07")
        wait_bridge_in(floor, table)
        publish(floor, [("poker/v1/tables/t07/cmd/replay/floor-01", b"ask"),
                        ("poker/v1/tables/t07/cmd/void_hand/floor-01", b"never")])
        publish(table, [("poker/v1/replies/floor-01/replay", b"answer"),
                        ("poker/v1/replies/dealer-t07/console", b"private")])
        # the floor's statistics of this table's players come in, retained; no other table's
        publish(floor, [("poker/v1/floor/tables/t08/stats", b"other"),
                        ("poker/v1/floor/tables/t07/stats", b"stats")], retain=True)
        assert at_table.wait(1) and at_floor.wait(1)
        time.sleep(0.5)
        assert at_table.got == [("poker/v1/tables/t07/cmd/replay/floor-01", b"ask")]
        assert at_floor.got == [("poker/v1/replies/floor-01/replay", b"answer")]
        late = Sub(table, "poker/v1/floor/#")       # after the fact: only a retained one
        assert late.wait(1)
        publish(table, [("poker/v1/floor/probe", b"after")])   # behind anything retained
        assert late.wait(2)
        late.close()
        assert late.got == [("poker/v1/floor/tables/t07/stats", b"stats"),
                            ("poker/v1/floor/probe", b"after")]
    finally:
        at_table.close()
        at_floor.close()


async def test_a_floor_broker_our_ca_did_not_sign_gets_nothing(
        mosquitto_factory: BrokerFactory, pki: Path) -> None:
    other = await asyncio.to_thread(make_pki)
    try:
        floor = floor_broker(mosquitto_factory, other)
        async with Relay("127.0.0.1", floor.ports["tls"]) as relay:
            table = table_broker(mosquitto_factory, "t07", relay.port, pki)
            sub = Sub(floor, "#")
            # the bridge tried the floor and dropped the connection (it refused the
            # certificate); a bridge that accepted it would have stayed connected from then on
            async with asyncio.timeout(20):
                while relay.ended < 1:  # noqa: ASYNC110 - the relay's counter, no event
                    await asyncio.sleep(0.02)
            await asyncio.to_thread(publish, table, [("poker/v1/tables/t07/events", b"e1")])
            assert not await asyncio.to_thread(sub.wait, 1, 1)
            sub.close()
            # the refused bridge's broker can hang on SIGTERM (its bridge clean-up): not what
            # this test is about, so it is not made to wait for the polite stop
            table.kill()
    finally:
        remove_pki(other)


def test_the_bridge_template_refuses_bad_values() -> None:
    render = load_render()
    text = (CONFIG / "bridge.conf").read_text()
    with pytest.raises(render.RenderError, match="TABLE"):
        render.render(text, {"TABLE": "t/07", "FLOOR_HOST": "10.0.0.5", "FLOOR_PORT": "8883"})
    with pytest.raises(render.RenderError, match="FLOOR_PORT"):
        render.render(text, {"TABLE": "t07", "FLOOR_HOST": "10.0.0.5", "FLOOR_PORT": "0"})
    with pytest.raises(render.RenderError, match="no value"):
        render.render(text, {"TABLE": "t07"})
    out = render.render(text, {"TABLE": "t07", "FLOOR_HOST": "10.0.0.5", "FLOOR_PORT": "8883"})
    assert "@" not in "".join(line for line in out.splitlines() if not line.startswith("#"))
    topic_lines = [line for line in out.splitlines() if line.startswith("topic")]
    assert len(topic_lines) == 8 and not any("secure" in line for line in topic_lines)
