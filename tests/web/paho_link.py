"""Test-side MQTT plumbing over paho: the web server's feeds and command channel, and a client
to publish contract payloads with.

The web package never imports paho (only ``tablectl.publish`` may); these objects satisfy
``tablectl.web.link``'s protocols so the tests can run the server against a real mosquitto.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import AsyncIterator, Sequence
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.web.link import FeedItem, LinkChange, LinkState, Message


def _client(client_id: str) -> mqtt.Client:
    return mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                       protocol=mqtt.MQTTv5)


class PahoFeed:
    """Subscribes to ``filters`` and yields messages and link changes (a ``Feed``)."""

    def __init__(self, port: int, filters: Sequence[str], *, host: str = "127.0.0.1",
                 username: str | None = None) -> None:
        self._filters = list(filters)
        self._queue: asyncio.Queue[FeedItem | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._client = _client(f"web-feed-{secrets.token_hex(4)}")
        if username:
            self._client.username_pw_set(username, "x")
        self._client.on_connect = self._on_connect
        self._client.on_message = self._on_message
        self._client.on_disconnect = self._on_disconnect
        self._client.connect(host, port)
        self._client.loop_start()

    def _put(self, item: FeedItem | None) -> None:
        self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                    props: Any = None) -> None:
        client.subscribe([(f, 1) for f in self._filters])
        self._put(LinkChange(LinkState.UP))

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        self._put(Message(msg.topic, bytes(msg.payload)))

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, rc: Any,
                       props: Any = None) -> None:
        self._put(LinkChange(LinkState.DOWN))

    async def __aiter__(self) -> AsyncIterator[FeedItem]:
        while (item := await self._queue.get()) is not None:
            yield item

    def close(self) -> None:
        """Disconnect and end the iteration."""
        self._client.disconnect()
        self._client.loop_stop()
        self._queue.put_nowait(None)


class PahoCommands:
    """Sends commands as ``user`` to ``.../cmd/{name}/{user}`` with MQTT 5 request/response."""

    def __init__(self, port: int, table: str, user: str, *, host: str = "127.0.0.1") -> None:
        self._table = table
        self._user = user
        self._loop = asyncio.get_running_loop()
        self._reply_topic = f"poker/v1/replies/{user}/web-{secrets.token_hex(4)}"
        self._pending: dict[bytes, asyncio.Future[bytes]] = {}
        self._client = _client(f"web-cmd-{secrets.token_hex(4)}")
        self._client.username_pw_set(user, "x")
        self._subscribed = asyncio.Event()
        self._client.on_connect = lambda c, *a: c.subscribe(self._reply_topic, qos=1)
        self._client.on_subscribe = lambda *a: self._loop.call_soon_threadsafe(
            self._subscribed.set)
        self._client.on_message = self._on_message
        self._client.connect(host, port)
        self._client.loop_start()

    async def ready(self) -> None:
        """Wait until the reply subscription is in place."""
        await asyncio.wait_for(self._subscribed.wait(), 10)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        corr = getattr(msg.properties, "CorrelationData", None)
        if corr is None:
            return

        def resolve() -> None:
            fut = self._pending.pop(bytes(corr), None)
            if fut is not None and not fut.done():
                fut.set_result(bytes(msg.payload))

        self._loop.call_soon_threadsafe(resolve)

    async def request(self, name: str, payload: bytes, *, expiry: float) -> bytes:
        corr = secrets.token_bytes(8)
        fut: asyncio.Future[bytes] = self._loop.create_future()
        self._pending[corr] = fut
        props = Properties(PacketTypes.PUBLISH)
        props.ResponseTopic = self._reply_topic
        props.CorrelationData = corr
        props.MessageExpiryInterval = max(1, int(expiry))
        self._client.publish(f"poker/v1/tables/{self._table}/cmd/{name}/{self._user}",
                             payload, qos=1, properties=props)
        try:
            async with asyncio.timeout(expiry):
                return await fut
        finally:
            self._pending.pop(corr, None)

    def close(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()


class SyncClient:
    """A blocking paho client for test publishers (the stand-in daemon)."""

    def __init__(self, port: int, client_id: str, *, host: str = "127.0.0.1",
                 password: str | None = None) -> None:
        self.client = _client(client_id)
        if password is not None:
            self.client.username_pw_set(client_id, password)
        self._connected = threading.Event()
        self.client.on_connect = lambda *a: self._connected.set()
        self.client.connect(host, port)
        self.client.loop_start()
        assert self._connected.wait(10), "test publisher could not connect"

    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        """Publish with QoS 1 and wait for the PUBACK."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        info.wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
