"""MqttConsole against a real mosquitto: MQTT 5 request/response on the agreed topics, and a
whole hand dealt through it."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import pytest

from hardware_sim.console import MqttConsole
from hardware_sim.dealer import SimDealer
from hardware_sim.devices import SimShoe
from hardware_sim.ports import LoopbackPorts
from tablectl.clock import ManualClock
from tablectl.domain.deck import Deck
from tablectl.publish import topics
from tablectl.publish.base import IncomingMessage, MessageProps
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tests.conftest import Broker
from tests.sim_dealer.conftest import TABLE


class Daemon:
    """Stands in for the daemon's command intake: records requests, answers each one."""

    def __init__(self, client: MqttPublisher, *, silent: bool = False) -> None:
        self.client = client
        self.silent = silent
        self.requests: list[IncomingMessage] = []

    async def run(self) -> None:
        async for msg in self.client.messages():
            self.requests.append(msg)
            if self.silent or msg.props.response_topic is None:
                continue
            body = json.loads(msg.payload)
            name = topics.parse_command(msg.topic).name
            ok = name != "undo"
            reply = {"id": body["id"], "ok": ok, "result": {"echo": name}} if ok else {
                "id": body["id"], "ok": False,
                "error": {"code": "nothing_to_undo", "reason": "no decision to undo"}}
            await self.client.publish(
                topics.Topic(msg.props.response_topic), json.dumps(reply).encode(), qos=1,
                props=MessageProps(correlation_data=msg.props.correlation_data))


@contextlib.asynccontextmanager
async def daemon(broker: Broker, *, silent: bool = False) -> AsyncIterator[Daemon]:
    settings = MqttSettings(host=broker.host, port=broker.port, client_id="fake-daemon",
                            session_expiry=0)
    async with MqttPublisher(settings) as client:
        await client.subscribe(topics.cmd_filter("t1"), qos=1)   # SUBACKed: ready
        d = Daemon(client, silent=silent)
        task = asyncio.create_task(d.run())
        try:
            yield d
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def test_commands_are_mqtt5_requests_on_the_per_user_topic(mosquitto: Broker) -> None:
    async with daemon(mosquitto) as d, MqttConsole.connect(
            mosquitto.url, table="t1", user="dealer-t1", timeout=5) as console:
        reply = await console.command("action", {"seat": 3, "kind": "raise", "amount": 600})
        refused = await console.command("undo", {})
    assert reply["ok"] is True and reply["result"] == {"echo": "action"}
    assert refused["ok"] is False and refused["error"]["code"] == "nothing_to_undo"  # type: ignore[index]
    first = d.requests[0]
    assert first.topic.value == "poker/v1/tables/t1/cmd/action/dealer-t1"
    body = json.loads(first.payload)
    assert body["args"] == {"seat": 3, "kind": "raise", "amount": 600}
    assert reply["id"] == body["id"]
    assert first.props.correlation_data == body["id"].encode()
    assert first.props.response_topic is not None
    assert first.props.response_topic.startswith("poker/v1/replies/dealer-t1/")
    assert first.props.message_expiry == 5


async def test_no_reply_is_a_timeout(mosquitto: Broker) -> None:
    async with daemon(mosquitto, silent=True), MqttConsole.connect(
            mosquitto.url, table="t1", user="dealer-t1", timeout=0.3) as console:
        with pytest.raises(TimeoutError):
            await console.command("next_hand", {})


async def test_a_whole_hand_through_the_broker(mosquitto: Broker, red_deck: Deck) -> None:
    clock = ManualClock()
    shoe = SimShoe(red_deck, clock=clock, seed=8)
    ports = LoopbackPorts({"shoe": shoe}, clock=clock)
    ports.pump()
    async with daemon(mosquitto) as d, MqttConsole.connect(
            mosquitto.url, table="t1", user="dealer-t1", follow_state=False) as console:
        dealer = SimDealer(**TABLE, device=shoe, console=console, ports=ports, seed=8,  # type: ignore[arg-type]
                           table_id="t1")
        summary = await dealer.play_hand()
    sent = [(topics.parse_command(m.topic).name, json.loads(m.payload)["args"])
            for m in d.requests]
    assert sent == [(c.name, dict(c.args)) for c in summary.commands]
    assert sent[0] == ("start_hand", {}) and sent[-1] == ("next_hand", {})
    actions = [a for n, a in sent if n == "action"]
    assert [(a["seat"], a["kind"]) for a in actions] == [
        (x.seat, x.kind.value) for x in summary.actions]
