"""The MQTT client: an asyncio adapter over paho-mqtt 2.x (MQTT 5). The only paho import.

What it does, and why (research/mqtt.md):

* **TCP_NODELAY** on every socket paho opens (``on_socket_open``, before CONNECT). paho does not
  set it; without it QoS 0 publishes wait for Nagle + delayed ACK (p99 21 ms measured).
* **Persistent session**: fixed client id, ``clean_start=False`` and a Session Expiry Interval,
  so the broker queues QoS 1 traffic across short disconnects.
* **Birth / LWT** (Sparkplug, Home Assistant): with an :class:`Availability`, the will is the
  retained ``offline`` payload and the retained ``online`` payload is published after every
  CONNACK; a clean exit publishes ``offline`` itself (a will fires only on abnormal loss).
* **PUBACK-awaited publishes**: :meth:`MqttPublisher.publish` at QoS 1 returns only when the
  broker acknowledged with a success reason code, so the journal's outbox marks an event
  published only then. If the connection drops first, the call raises
  :class:`ConnectionLostError`; paho may still resend the message after reconnecting, which
  consumers tolerate (duplicates are dropped by ``seq``).
* **Reconnect** with exponential backoff (paho's own, ``reconnect_min``..``reconnect_max``
  seconds). After every successful CONNACK the adapter re-subscribes, publishes the birth, and
  then yields a :class:`ConnectInfo` from :meth:`MqttPublisher.connections`; the daemon reacts by
  republishing its snapshot and flushing the outbox.
* **Commands in**: :meth:`MqttPublisher.messages` yields :class:`IncomingMessage` values carrying
  the MQTT 5 request/response metadata (response topic, correlation data, message expiry, user
  properties). MQTT does not tell a subscriber who published; the sender's username is the last
  level of the command topic, which the broker ACL pins to the publisher's username
  (docs/mqtt.md, "Who sent a command").

Threading: paho runs its network loop in its own thread (``loop_start``); every callback only
posts values to the asyncio loop with ``call_soon_threadsafe``; all state lives on the loop.
Reusable after exit, not re-entrant.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Literal, Self

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from tablectl.publish.base import IncomingMessage, MessageProps
from tablectl.publish.errors import (
    ConnectionLostError,
    NotConnectedError,
    PublishError,
    PublishRefusedError,
)
from tablectl.publish.topics import Topic, TopicError, check_publishable

_LOGGER = logging.getLogger(__name__)

_DISCONNECTED = "disconnected"


@dataclass(frozen=True, slots=True)
class MqttSettings:
    """How to reach the broker.

    Attributes:
        host / port: the broker's plain or TLS listener.
        client_id: fixed per controller (its persistent session is keyed by it); with
            ``use_username_as_clientid`` on the broker it must equal ``username``.
        username / password: credentials, None for anonymous.
        tls: a client SSL context for a TLS listener (mTLS: load the client cert into it).
        keepalive: seconds between PINGREQs when idle.
        session_expiry: seconds the broker keeps the session after a disconnect.
        reconnect_min / reconnect_max: backoff bounds in whole seconds.
        connect_timeout: seconds :meth:`MqttPublisher.__aenter__` waits for the first CONNACK.
        transport: ``"tcp"`` or ``"websockets"``.
    """

    host: str
    port: int = 1883
    client_id: str = "tablectl"
    username: str | None = None
    password: str | None = None
    tls: ssl.SSLContext | None = None
    keepalive: int = 30
    session_expiry: int = 3600
    reconnect_min: int = 1
    reconnect_max: int = 30
    connect_timeout: float = 10.0
    transport: Literal["tcp", "websockets"] = "tcp"


@dataclass(frozen=True, slots=True)
class Availability:
    """Birth and will: retained ``online`` after each CONNACK, ``offline`` as the LWT."""

    topic: Topic
    online: bytes
    offline: bytes


@dataclass(frozen=True, slots=True)
class ConnectInfo:
    """One successful (re)connection.

    Attributes:
        count: 1 for the first connection, +1 per reconnect.
        session_present: the broker still had our session (subscriptions, queued messages);
            when False assume anything may have been missed.
    """

    count: int
    session_present: bool


def _set_nodelay(sock: object) -> None:
    raw = getattr(sock, "_socket", sock)       # paho's WebsocketWrapper keeps the real one
    if isinstance(raw, socket.socket) and raw.family in (socket.AF_INET, socket.AF_INET6):
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _props_out(props: MessageProps | None) -> Properties | None:
    if props is None or props == MessageProps():
        return None
    out = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    if props.response_topic is not None:
        out.ResponseTopic = props.response_topic
    if props.correlation_data is not None:
        out.CorrelationData = props.correlation_data
    if props.message_expiry is not None:
        out.MessageExpiryInterval = props.message_expiry
    if props.content_type is not None:
        out.ContentType = props.content_type
    if props.user_properties:
        out.UserProperty = list(props.user_properties)
    return out


def _props_in(props: Properties | None) -> MessageProps:
    if props is None:
        return MessageProps()
    corr = getattr(props, "CorrelationData", None)
    users = getattr(props, "UserProperty", None) or []
    return MessageProps(
        response_topic=getattr(props, "ResponseTopic", None),
        correlation_data=bytes(corr) if corr is not None else None,
        message_expiry=getattr(props, "MessageExpiryInterval", None),
        content_type=getattr(props, "ContentType", None),
        user_properties=tuple((str(k), str(v)) for k, v in users))


class MqttPublisher:
    """The daemon's MQTT connection: a :class:`~tablectl.publish.base.Publisher` and
    :class:`~tablectl.publish.base.Subscriber` over paho (see the module docstring).

    Use as ``async with MqttPublisher(settings, availability=...) as mqtt: ...``.
    """

    def __init__(self, settings: MqttSettings, *, availability: Availability | None = None,
                 wait_connected: bool = True) -> None:
        """Prepare (nothing connects before ``async with``).

        Args:
            settings: broker address, credentials, session and backoff.
            availability: birth / will payloads, or None for a client without availability
                (a display, a console).
            wait_connected: when True, entering waits for the first CONNACK and fails if there
                is none; when False (the daemon at boot, broker maybe down) entering returns at
                once and :meth:`connections` reports the first connection when it happens.
        """
        self._settings = settings
        self._availability = availability
        self._wait_connected = wait_connected
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: mqtt.Client | None = None
        self._connected = False
        self._count = 0
        self._first: asyncio.Future[None] | None = None
        self._pending_pub: dict[int, asyncio.Future[None]] = {}
        self._pending_sub: dict[int, asyncio.Future[list[int]]] = {}
        self._filters: dict[str, int] = {}
        self._messages: asyncio.Queue[IncomingMessage | None] = asyncio.Queue()
        self._connections: asyncio.Queue[ConnectInfo | None] = asyncio.Queue()
        self._tasks: set[asyncio.Task[None]] = set()
        self._nodelay_sockets = 0

    # -- lifecycle ------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        """Connect; unless ``wait_connected=False``, wait for the first CONNACK and birth.

        Raises:
            NotConnectedError: refused (bad credentials, not authorised) or no CONNACK within
                ``settings.connect_timeout`` (only when waiting).
        """
        if self._client is not None:
            raise PublishError("MqttPublisher is not re-entrant")
        s = self._settings
        self._loop = asyncio.get_running_loop()
        self._messages = asyncio.Queue()
        self._connections = asyncio.Queue()
        self._count = 0
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=s.client_id,
                             protocol=mqtt.MQTTv5, transport=s.transport,
                             reconnect_on_failure=True)
        if s.username is not None:
            client.username_pw_set(s.username, s.password)
        if s.tls is not None:
            client.tls_set_context(s.tls)
        client.reconnect_delay_set(s.reconnect_min, s.reconnect_max)
        if self._availability is not None:
            a = self._availability
            client.will_set(a.topic.value, a.offline, qos=1, retain=True)
        client.on_socket_open = self._on_socket_open
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.SessionExpiryInterval = s.session_expiry
        self._client = client
        self._first = self._loop.create_future()
        client.connect_async(s.host, s.port, s.keepalive, clean_start=False, properties=props)
        client.loop_start()
        if not self._wait_connected:
            return self
        try:
            async with asyncio.timeout(s.connect_timeout):
                await self._first
                info = await self._connections.get()
        except (TimeoutError, PublishError) as exc:
            await self._shutdown()
            if isinstance(exc, PublishError):
                raise
            raise NotConnectedError(f"not connected to {s.host}:{s.port} within "
                                    f"{s.connect_timeout} s (no CONNACK, or the birth was "
                                    "not acknowledged)") from exc
        assert info is not None
        self._connections.put_nowait(info)           # let connections() see the first one too
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Publish ``offline`` (clean exit), disconnect, stop paho's thread."""
        if self._client is None:
            return
        if self._connected and self._availability is not None:
            a = self._availability
            try:
                async with asyncio.timeout(self._settings.connect_timeout):
                    await self.publish(a.topic, a.offline, retain=True)
            except (PublishError, TimeoutError) as err:
                _LOGGER.warning("mqtt: could not publish offline status: %s", err)
        await self._shutdown()

    async def _shutdown(self) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        self._connected = False               # a deliberate disconnect: not worth a warning
        client.disconnect()
        await asyncio.to_thread(client.loop_stop)
        for task in list(self._tasks):
            task.cancel()
        self._fail_pending(_DISCONNECTED)
        self._connected = False
        self._messages.put_nowait(None)
        self._connections.put_nowait(None)

    # -- public API -----------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True between a CONNACK and the next disconnect."""
        return self._connected

    def nodelay(self) -> bool:
        """Whether the current socket has TCP_NODELAY set (read back with getsockopt)."""
        sock = self._client.socket() if self._client is not None else None
        raw = getattr(sock, "_socket", sock)
        if not isinstance(raw, socket.socket):
            return False
        return bool(raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    async def publish(self, topic: Topic, payload: bytes, *, retain: bool = False,
                      qos: int = 1, secret: bool = False,
                      props: MessageProps | None = None) -> None:
        """Publish; at QoS 1 return after a success PUBACK (see ``Publisher.publish``)."""
        check_publishable(topic, secret=secret)
        if qos not in (0, 1):
            raise PublishError(f"unsupported qos {qos}", topic.value)
        client = self._client
        if client is None or not self._connected:
            raise NotConnectedError("not connected to the broker", topic.value)
        info = client.publish(topic.value, payload, qos=qos, retain=retain,
                              properties=_props_out(props))
        if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            raise NotConnectedError(f"publish failed: {mqtt.error_string(info.rc)}",
                                    topic.value)
        if qos == 0:
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending_pub[info.mid] = fut
        try:
            await fut
        except ConnectionLostError as exc:
            raise ConnectionLostError(str(exc), topic.value) from None
        except PublishRefusedError as exc:
            raise PublishRefusedError(str(exc), topic.value, exc.reason_code) from None
        finally:
            self._pending_pub.pop(info.mid, None)

    async def subscribe(self, topic_filter: str, qos: int = 1) -> None:
        """Subscribe now (if connected) and after every reconnect.

        Raises:
            PublishRefusedError: the broker refused the filter (SUBACK failure code).
        """
        if qos not in (0, 1):
            raise PublishError(f"unsupported qos {qos}", topic_filter)
        self._filters[topic_filter] = qos
        if self._connected:
            try:
                await self._subscribe(topic_filter, qos)
            except PublishRefusedError:
                del self._filters[topic_filter]       # do not retry it at every reconnect
                raise

    async def messages(self) -> AsyncIterator[IncomingMessage]:
        """Incoming messages (all subscriptions, one stream) until the client closes."""
        while (msg := await self._messages.get()) is not None:
            yield msg

    async def connections(self) -> AsyncIterator[ConnectInfo]:
        """One :class:`ConnectInfo` per (re)connection, after re-subscribe and birth.

        The first connection is included. React by republishing the retained snapshot and
        flushing the outbox. Ends when the client closes.
        """
        while (info := await self._connections.get()) is not None:
            yield info

    # -- internals on the asyncio loop ----------------------------------------------------

    async def _subscribe(self, topic_filter: str, qos: int) -> None:
        client = self._client
        if client is None:
            raise NotConnectedError("not connected", topic_filter)
        rc, mid = client.subscribe(topic_filter, options=SubscribeOptions(qos=qos))
        if rc != MQTTErrorCode.MQTT_ERR_SUCCESS or mid is None:
            raise NotConnectedError(f"subscribe failed: {mqtt.error_string(rc)}", topic_filter)
        fut: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        self._pending_sub[mid] = fut
        try:
            codes = await fut
        finally:
            self._pending_sub.pop(mid, None)
        if any(code >= 0x80 for code in codes):
            raise PublishRefusedError(f"subscription refused: {codes}", topic_filter, codes[0])

    def _fail_pending(self, reason: str) -> None:
        futures: list[asyncio.Future[None] | asyncio.Future[list[int]]] = [
            *self._pending_pub.values(), *self._pending_sub.values()]
        for fut in futures:
            if not fut.done():
                fut.set_exception(ConnectionLostError(f"connection lost ({reason})"))

    def _handle_connect(self, ok: bool, session_present: bool, reason: str) -> None:
        if not ok:
            _LOGGER.error("mqtt: connection refused: %s", reason)
            if self._first is not None and not self._first.done():
                self._first.set_exception(NotConnectedError(f"connection refused: {reason}"))
            return
        self._connected = True
        self._count += 1
        if self._first is not None and not self._first.done():
            self._first.set_result(None)
        _LOGGER.info("mqtt: connected (#%d, session_present=%s, nodelay=%s)", self._count,
                     session_present, self.nodelay())
        task = asyncio.get_running_loop().create_task(
            self._after_connect(ConnectInfo(self._count, session_present)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _after_connect(self, info: ConnectInfo) -> None:
        try:
            for topic_filter, qos in list(self._filters.items()):
                try:
                    await self._subscribe(topic_filter, qos)
                except PublishRefusedError as exc:
                    _LOGGER.error("mqtt: re-subscribe refused: %s", exc)
            if self._availability is not None:
                a = self._availability
                await self.publish(a.topic, a.online, retain=True)
        except PublishError as exc:
            _LOGGER.warning("mqtt: after-connect work failed (%s); waiting for the next "
                            "connection", exc)
            return
        self._connections.put_nowait(info)

    def _handle_disconnect(self, reason: str) -> None:
        was = self._connected
        self._connected = False
        self._fail_pending(reason)
        if was:
            _LOGGER.warning("mqtt: disconnected: %s", reason)

    def _handle_puback(self, mid: int, code: int, failed: bool, reason: str) -> None:
        fut = self._pending_pub.get(mid)
        if fut is None or fut.done():
            return
        if failed:
            fut.set_exception(PublishRefusedError(f"broker refused the publish: {reason}",
                                                  None, code))
        else:
            fut.set_result(None)

    def _handle_suback(self, mid: int, codes: list[int]) -> None:
        fut = self._pending_sub.get(mid)
        if fut is not None and not fut.done():
            fut.set_result(codes)

    # -- paho callbacks (paho's thread): post values to the loop, nothing else ------------

    def _post(self, fn: Callable[..., None], *args: object) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):    # the loop closed meanwhile
            loop.call_soon_threadsafe(fn, *args)

    def _on_socket_open(self, _client: mqtt.Client, _userdata: object, sock: object) -> None:
        _set_nodelay(sock)

    def _on_connect(self, _client: mqtt.Client, _userdata: object, flags: mqtt.ConnectFlags,
                    reason_code: ReasonCode, _props: Properties | None) -> None:
        self._post(self._handle_connect, not reason_code.is_failure, flags.session_present,
                   str(reason_code))

    def _on_disconnect(self, _client: mqtt.Client, _userdata: object,
                       _flags: mqtt.DisconnectFlags, reason_code: ReasonCode,
                       _props: Properties | None) -> None:
        self._post(self._handle_disconnect, str(reason_code))

    def _on_publish(self, _client: mqtt.Client, _userdata: object, mid: int,
                    reason_code: ReasonCode, _props: Properties | None) -> None:
        self._post(self._handle_puback, mid, reason_code.value, reason_code.is_failure,
                   str(reason_code))

    def _on_subscribe(self, _client: mqtt.Client, _userdata: object, mid: int,
                      reason_codes: list[ReasonCode], _props: Properties | None) -> None:
        self._post(self._handle_suback, mid, [rc.value for rc in reason_codes])

    def _on_message(self, _client: mqtt.Client, _userdata: object,
                    msg: mqtt.MQTTMessage) -> None:
        try:
            topic = Topic(msg.topic)
        except TopicError:
            _LOGGER.warning("mqtt: ignoring message on %r", msg.topic)
            return
        incoming = IncomingMessage(topic, bytes(msg.payload), msg.qos, bool(msg.retain),
                                   _props_in(msg.properties))
        self._post(self._messages.put_nowait, incoming)
