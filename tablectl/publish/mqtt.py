"""The MQTT client: an asyncio adapter over paho-mqtt 2.x (MQTT 5). With its
:mod:`~tablectl.publish.mqtt_loop` (driving paho from the loop) and
:mod:`~tablectl.publish.mqtt_wire` (what it hands to paho and takes from it), the only paho
imports; its settings are :mod:`~tablectl.publish.mqtt_settings`.

What it does, and why (docs/mqtt.md §5):

* **TCP_NODELAY** on every socket paho opens (``on_socket_open``, before CONNECT). paho does not
  set it; without it QoS 0 publishes wait for Nagle + delayed ACK (p99 21 ms measured).
* **Persistent session**: fixed client id, ``clean_start=False`` and a Session Expiry Interval,
  so the broker queues QoS 1 traffic across short disconnects.
* **Birth / LWT** (Sparkplug, Home Assistant): with an :class:`Availability`, the will is the
  retained ``offline`` payload and the retained ``online`` payload is published after every
  CONNACK; a clean exit publishes ``offline`` itself (a will fires only on abnormal loss).
* **PUBACK-awaited publishes**: :meth:`MqttPublisher.publish` at QoS 1 returns only when the
  broker acknowledged with a success reason code, so the journal's outbox marks an event
  published only then. If the connection drops first, it raises :class:`ConnectionLostError`;
  paho may still resend the message later, which consumers tolerate (dropped by ``seq``).
* **Reconnect** after any loss, forever until closed, backing off from ``reconnect_min``,
  doubling up to ``reconnect_max`` seconds (reset by a successful CONNACK). After every
  successful CONNACK it re-subscribes, publishes the birth, then yields a :class:`ConnectInfo`
  from :meth:`MqttPublisher.connections` (the daemon republishes its snapshot and flushes the
  outbox). paho's keepalive drops a connection that stops answering (PINGREQ after
  ``keepalive`` idle seconds, lost when no PINGRESP follows within another ``keepalive``).
* **Commands in**: :meth:`MqttPublisher.messages` yields :class:`IncomingMessage` values with
  their MQTT 5 request/response metadata. The sender's username is the last level of the
  command topic, which the broker ACL pins to the publisher (docs/mqtt.md §3,
  "Who sent a command").

Threading: there is no paho thread; :class:`~tablectl.publish.mqtt_loop.PahoLoop` drives
paho from the running loop (docs/mqtt.md §5). Reusable after exit, not re-entrant.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Self

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from firmware_bridge.outage import Outage
from tablectl.clock import SystemClock
from tablectl.publish.base import IncomingMessage, MessageProps
from tablectl.publish.errors import (
    BirthRefusedError,
    ConnectionLostError,
    NotConnectedError,
    PublishError,
    PublishRefusedError,
)
from tablectl.publish.mqtt_loop import PahoLoop
from tablectl.publish.mqtt_settings import Availability, ConnectInfo, MqttSettings
from tablectl.publish.mqtt_wire import (
    close_sockets_of,
    connect_props,
    has_nodelay,
    props_in,
    props_out,
)
from tablectl.publish.topics import Topic, TopicError, check_publishable

_LOGGER = logging.getLogger(__name__)

_DISCONNECTED = "disconnected"
_MISC_INTERVAL = 1.0        # seconds between loop_misc calls (keepalive checks)
_MAX_SOCKET_TIMEOUT = 5.0   # paho's default bound on a blocking TCP connect / TLS handshake
_MAX_HELD = 1000            # messages kept while a connection's birth is under way


class MqttPublisher(PahoLoop):
    """The daemon's MQTT connection: a :class:`~tablectl.publish.base.Publisher` and
    :class:`~tablectl.publish.base.Subscriber` over paho (see the module docstring).

    Use as ``async with MqttPublisher(settings, availability=...) as mqtt: ...``.
    """

    def __init__(self, settings: MqttSettings, *, availability: Availability | None = None,
                 wait_connected: bool = True, manual_ack: bool = False) -> None:
        """Prepare (nothing connects before ``async with``).

        Args:
            settings: broker address, credentials, session and backoff.
            availability: birth / will payloads, or None for a client without availability
                (a display, a console).
            wait_connected: when True, entering waits for the first CONNACK and fails if there
                is none; when False (the daemon at boot, broker maybe down) entering returns at
                once and :meth:`connections` reports the first connection when it happens.
            manual_ack: QoS 1 messages are acknowledged only by :meth:`ack` (a consumer that
                acknowledges after it stored a message: unacknowledged ones are delivered
                again on the next connection of the persistent session).
        """
        super().__init__()
        self._settings = settings
        self._availability = availability
        self._wait_connected = wait_connected
        self._manual_ack = manual_ack
        self._clock = SystemClock()
        self._client: mqtt.Client | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._connected = False
        self._connack_ok = False
        self._count = 0
        self._outage = Outage()
        """the broker being unreachable: a WARNING once, then at growing intervals"""
        self._first: asyncio.Future[None] | None = None
        self._first_failure: str | None = None
        """why the latest attempt before the first connection failed (for the error)"""
        self._pending_pub: dict[int, asyncio.Future[None]] = {}
        self._pending_sub: dict[int, asyncio.Future[list[int]]] = {}
        self._filters: dict[str, int] = {}
        self._messages: asyncio.Queue[IncomingMessage | None] = asyncio.Queue()
        self._connections: asyncio.Queue[ConnectInfo | None] = asyncio.Queue()
        self._tasks: set[asyncio.Task[None]] = set()
        self._born = False                     # the birth of this connection is out
        self._held: list[IncomingMessage] = []  # messages that came before the birth
        self._retained: asyncio.Future[bytes | None] | None = None  # the guard's read
        self._refused: BirthRefusedError | None = None
        self._takeovers = 0
        self._closing = False                  # __aexit__ began: after-connect work stops
        self._births = 0                       # births published (offline owed at exit)

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
        self._drive_loop()
        self._messages = asyncio.Queue()
        self._connections = asyncio.Queue()
        self._count = 0
        self._refused = None
        self._closing = False
        self._births = 0
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=s.client_id,
                             protocol=mqtt.MQTTv5, transport=s.transport,
                             manual_ack=self._manual_ack)
        if s.username is not None:
            client.username_pw_set(s.username, s.password)
        if s.tls is not None:
            client.tls_set_context(s.tls)
        if self._availability is not None:
            a = self._availability
            client.will_set(a.topic.value, a.offline, qos=1, retain=True)
        client.connect_timeout = min(_MAX_SOCKET_TIMEOUT, s.connect_timeout)
        self._drive(client)
        client.on_message = self._on_message
        self._record_address(client)   # the connecting is the supervisor's
        self._client = client
        loop = asyncio.get_running_loop()
        self._first = loop.create_future() if self._wait_connected else None
        self._first_failure = None
        self._supervisor = loop.create_task(self._supervise(client), name=f"mqtt-{s.client_id}")
        if self._first is None:
            return self
        try:
            async with asyncio.timeout(s.connect_timeout):
                await self._first
                info = await self._connections.get()
        except (TimeoutError, PublishError) as exc:
            await self._shutdown()
            if isinstance(exc, PublishError):
                raise
            why = (self._first_failure if self._first_failure is not None
                   else "no CONNACK, or the birth was not acknowledged")
            raise NotConnectedError(f"not connected to {s.host}:{s.port} within "
                                    f"{s.connect_timeout:g} s: {why}") from exc
        assert info is not None
        self._connections.put_nowait(info)           # let connections() see the first one too
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Publish ``offline`` (clean exit) if a birth was published, disconnect, close the
        socket.

        A connection attempt under way is let finish first (each of its steps is bounded by
        the connect timeout, at most 5 s), then its socket is closed. Work after a CONNACK
        under way (re-subscribe, the guard's retained read, the birth) just stops: before a
        first birth there is no ``online`` to take back, and the clean DISCONNECT discards the
        will (the guard may not even have allowed this client to speak for the topic).
        """
        if self._client is None:
            return
        self._closing = True
        if (self._connected and self._availability is not None and self._refused is None
                and self._births > 0):
            a = self._availability
            try:
                async with asyncio.timeout(self._settings.connect_timeout):
                    await self.publish(a.topic, a.offline, retain=True)
            except (PublishError, TimeoutError) as err:
                _LOGGER.warning("mqtt: could not publish offline status: %s", err)
        await self._shutdown()

    async def _shutdown(self) -> None:
        self._closing = True
        client, self._client = self._client, None
        if client is None:
            return
        self._connected = False               # a deliberate disconnect: not worth a warning
        supervisor, self._supervisor = self._supervisor, None
        if supervisor is not None:
            supervisor.cancel()               # waits for a connect attempt under way to end
            await asyncio.wait({supervisor})
            if not supervisor.cancelled() and supervisor.exception() is not None:
                _LOGGER.error("mqtt: connection supervisor failed",
                              exc_info=supervisor.exception())
        if client.socket() is not None:
            self._call(client, client.disconnect)  # paho closes the socket once it is written
            if client.socket() is not None:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self._settings.connect_timeout):
                        await self._lost.wait()
            if client.socket() is not None:   # the DISCONNECT could not be written: drop it
                self._call(client, self._drop_socket, client)
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        for task in tasks:          # retrieved: a failure is said here, not at interpreter exit
            if not task.cancelled() and (failure := task.exception()) is not None:
                _LOGGER.error("mqtt: after-connect work failed", exc_info=failure)
        self._fail_pending(_DISCONNECTED)
        self._messages.put_nowait(None)
        self._connections.put_nowait(None)

    # -- public API -----------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True from the birth after a CONNACK (the CONNACK itself without availability) to
        the next disconnect."""
        return self._connected and self._born

    @property
    def inflight(self) -> int:
        """Publishes sent and not yet acknowledged (for the metrics)."""
        return len(self._pending_pub)

    def nodelay(self) -> bool:
        """Whether the current socket has TCP_NODELAY set (read back with getsockopt)."""
        return has_nodelay(self._client.socket() if self._client is not None else None)

    async def publish(self, topic: Topic, payload: bytes, *, retain: bool = False,
                      qos: int = 1, secret: bool = False,
                      props: MessageProps | None = None) -> None:
        """Publish; at QoS 1 return after a success PUBACK (see ``Publisher.publish``).

        The PUBLISH is written to the socket before this first waits (unless the socket's
        buffer is full; then the loop writes the rest as soon as it can).
        """
        check_publishable(topic, secret=secret)
        if qos not in (0, 1):
            raise PublishError(f"unsupported qos {qos}", topic.value)
        client = self._client
        if client is None or not self._connected:
            raise NotConnectedError("not connected to the broker", topic.value)
        info = self._quiet(client.publish, topic.value, payload, qos=qos, retain=retain,
                           properties=props_out(props))
        if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            raise NotConnectedError(f"publish failed: {mqtt.error_string(info.rc)}",
                                    topic.value)
        if qos == 0:
            self._flush(client)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending_pub[info.mid] = fut
        self._flush(client)                   # a write error fails fut (ConnectionLostError)
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

    def ack(self, msg: IncomingMessage) -> None:
        """Acknowledge a QoS 1 message now (only with ``manual_ack``).

        A message of an earlier connection is not acknowledged (its packet id may name
        another message now): the broker delivers it again, and the consumer drops it as a
        duplicate.
        """
        client = self._client
        if (not self._manual_ack or msg.qos == 0 or client is None or not self._connected
                or msg.connection != self._count):
            return
        self._call(client, client.ack, msg.mid, msg.qos)

    async def messages(self) -> AsyncIterator[IncomingMessage]:
        """Incoming messages (all subscriptions, one stream) until the client closes; those
        of a connection come after its birth. Messages on the availability topic are the
        client's own.

        Raises:
            BirthRefusedError: the availability guard refused the birth.
        """
        while (msg := await self._messages.get()) is not None:
            yield msg
        if self._refused is not None:
            raise self._refused

    async def connections(self) -> AsyncIterator[ConnectInfo]:
        """One :class:`ConnectInfo` per (re)connection, after re-subscribe and birth.

        The first connection is included. React by republishing the retained snapshot and
        flushing the outbox. Ends when the client closes.
        """
        while (info := await self._connections.get()) is not None:
            yield info
        if self._refused is not None:
            raise self._refused

    def _drop_socket(self, client: mqtt.Client) -> None:
        """Close paho's socket without a DISCONNECT (paho's ``connect_async`` does exactly
        that, through the socket callbacks, and only records the address again)."""
        self._record_address(client)
        self._handle_disconnect("socket dropped")

    def _record_address(self, client: mqtt.Client) -> None:
        """paho's ``connect_async``: where and how to connect (persistent session), nothing
        more; it closes a socket still open."""
        s = self._settings
        client.connect_async(s.host, s.port, s.keepalive, clean_start=False,
                             properties=connect_props(s))

    async def _supervise(self, client: mqtt.Client) -> None:
        """Connect, serve the connection until it is lost, back off, and again, forever."""
        s = self._settings
        delay = 0.0
        while not self._stays_off():
            self._connack_ok = False
            if await self._open(client):
                await self._serve(client)
            if self._stays_off():
                return
            if self._connack_ok:               # as paho: a successful CONNACK resets it
                delay = 0.0
            delay = float(s.reconnect_min) if delay == 0 else min(delay * 2, s.reconnect_max)
            _LOGGER.debug("mqtt: next connection attempt in %.0f s", delay)
            await self._clock.sleep(delay)

    def _stays_off(self) -> bool:
        """The birth was refused: no more connections."""
        return self._refused is not None

    async def _open(self, client: mqtt.Client) -> bool:
        """One blocking ``reconnect()`` in a worker thread; register the socket it opened."""
        if client.socket() is not None:       # never left open by a loss; be sure anyway
            self._call(client, self._drop_socket, client)
        self._lost = asyncio.Event()
        loop = asyncio.get_running_loop()
        attempt = loop.run_in_executor(None, client.reconnect)
        try:
            await asyncio.shield(attempt)
        except asyncio.CancelledError:
            # closing: the thread still owns the client until the attempt ends (bounded by
            # paho's connect timeout); the caller then drops whatever it opened
            await asyncio.wait({attempt})
            if not attempt.cancelled() and (failure := attempt.exception()) is not None:
                close_sockets_of(failure)    # a failed attempt is no news now
            raise
        except (OSError, ValueError) as exc:  # refused, unreachable, TLS or websocket refused
            close_sockets_of(exc)
            s = self._settings
            reason = str(exc or type(exc).__name__)
            level, text = self._outage.failed(self._clock.monotonic(),
                                              f"cannot connect to {s.host}:{s.port}: {reason}")
            if self._first is not None and not self._first.done():
                # waiting for the first connection: the error raised then says why, once
                self._first_failure, level = reason, logging.DEBUG
            _LOGGER.log(level, "mqtt: %s", text)
            return False
        sock = client.socket()
        if sock is None:
            return False
        self._watch_readable(client, sock)
        self._flush(client)                   # CONNECT (paho only queued it in the thread)
        return True

    async def _serve(self, client: mqtt.Client) -> None:
        """Until the socket closes: ``loop_misc`` once a second (PINGREQ, dead connection)."""
        lost = self._lost
        while not lost.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_MISC_INTERVAL):
                    await lost.wait()
            if not lost.is_set():
                self._call(client, client.loop_misc)

    # -- internals on the asyncio loop ----------------------------------------------------

    async def _subscribe(self, topic_filter: str, qos: int) -> None:
        client = self._client
        if client is None or not self._connected:    # (never while reconnect() owns it)
            raise NotConnectedError("not connected", topic_filter)
        rc, mid = self._quiet(client.subscribe, topic_filter, options=SubscribeOptions(qos=qos))
        if rc != MQTTErrorCode.MQTT_ERR_SUCCESS or mid is None:
            raise NotConnectedError(f"subscribe failed: {mqtt.error_string(rc)}", topic_filter)
        fut: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        self._pending_sub[mid] = fut
        self._flush(client)
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
            level, text = self._outage.failed(self._clock.monotonic(),
                                              f"connection refused: {reason}")
            if self._first is not None and not self._first.done():
                # the error raised says it: not a log line as well
                self._first.set_exception(NotConnectedError(f"connection refused: {reason}"))
                level = logging.DEBUG
            _LOGGER.log(level, "mqtt: %s", text)
            return
        if self._closing:       # a CONNACK read while closing: nothing more to do for it
            return
        self._connected = True
        self._connack_ok = True
        self._count += 1
        if self._first is not None and not self._first.done():
            self._first.set_result(None)
        back = self._outage.recovered(self._clock.monotonic())
        _LOGGER.info("mqtt: connected (#%d, session_present=%s, nodelay=%s)%s", self._count,
                     session_present, self.nodelay(), f", {back}" if back else "")
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
                if a.guard is not None:
                    a.guard(await self._read_retained(a.topic))
                if self._closing:
                    return
                await self.publish(a.topic, a.online, retain=True)
                self._births += 1
        except BirthRefusedError as exc:
            self._refuse(exc)
            return
        except PublishError as exc:
            if self._closing:       # the client is closing under it: nothing went wrong
                _LOGGER.debug("mqtt: after-connect work stopped by the close (%s)", exc)
                return
            _LOGGER.warning("mqtt: after-connect work failed (%s); waiting for the next "
                            "connection", exc)
            return
        if self._closing:
            return
        self._born = True
        held, self._held = self._held, []
        for msg in held:
            self._messages.put_nowait(msg)
        self._connections.put_nowait(info)

    async def _read_retained(self, topic: Topic) -> bytes | None:
        """The payload retained on ``topic`` now, None when there is none.

        Subscribed at QoS 0 (not held back by the inflight window), twice: the broker sends
        a subscription's retained message before it answers the next SUBSCRIBE, so by the
        second SUBACK what is retained has come. Unsubscribed after.
        """
        client = self._client
        if client is None or self._closing:
            raise NotConnectedError("closing", topic.value)
        self._retained = asyncio.get_running_loop().create_future()
        try:
            await self._subscribe(topic.value, 0)
            await self._subscribe(topic.value, 0)
            return self._retained.result() if self._retained.done() else None
        finally:
            self._retained = None
            if self._connected:
                self._call(client, client.unsubscribe, topic.value)

    def _refuse(self, exc: BirthRefusedError) -> None:
        """Leave the broker without the will (a clean DISCONNECT) and stay off."""
        _LOGGER.debug("mqtt: birth refused: %s", exc)
        self._refused = exc
        client = self._client
        if client is not None and client.socket() is not None:
            self._connected = False
            self._call(client, client.disconnect)
        if self._first is not None and not self._first.done():
            self._first.set_exception(exc)
        self._messages.put_nowait(None)
        self._connections.put_nowait(None)

    def _handle_disconnect(self, reason: str) -> None:
        was = self._connected
        self._connected = False
        self._born = False
        self._fail_pending(reason)
        if not was:
            return
        if "taken over" not in reason.lower():
            _LOGGER.warning("mqtt: disconnected: %s", reason)
            return
        # another client with this client id: said at 1, 10, 100... times, not every second
        self._takeovers += 1
        level = (logging.WARNING if str(self._takeovers).rstrip("0") == "1"
                 else logging.DEBUG)
        _LOGGER.log(level, "mqtt: disconnected: %s (%d times: another client uses the "
                    "client id %s)", reason, self._takeovers, self._settings.client_id)

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

    # -- paho's message callback (the others are PahoLoop's, calling the _handle_ methods) --

    def _on_message(self, _client: mqtt.Client, _userdata: object,
                    msg: mqtt.MQTTMessage) -> None:
        try:
            topic = Topic(msg.topic)
        except TopicError:
            _LOGGER.warning("mqtt: ignoring message on %r", msg.topic[:160])
            return
        a = self._availability
        if a is not None and topic == a.topic:     # the guard's read; never a command
            if self._retained is not None and not self._retained.done():
                self._retained.set_result(bytes(msg.payload) if msg.payload else None)
            return
        incoming = IncomingMessage(topic, bytes(msg.payload), msg.qos, bool(msg.retain),
                                   props_in(msg.properties), msg.mid, self._count)
        if self._born:
            self._messages.put_nowait(incoming)
        elif len(self._held) < _MAX_HELD:
            self._held.append(incoming)
        else:     # a birth that does not come: the sender resends what got no reply
            _LOGGER.debug("mqtt: message on %s dropped before the birth", topic.value[:160])
