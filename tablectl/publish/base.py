"""The publishing seams (:class:`Publisher`, :class:`Subscriber`) and their in-memory twin.

:class:`MemoryPublisher` is production code: a loopback "broker" in one object for demos,
replays and the daemon's tests. It keeps every message sent, the retained map (a zero-length
retained payload clears a topic, as on a broker), delivers published messages that match its own
subscriptions to :meth:`MemoryPublisher.messages`, and can be told to go offline or refuse
publishes so callers can test their failure paths.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Final, Protocol, Self

from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object
from tablectl.publish.errors import NotConnectedError, PublishError, PublishRefusedError
from tablectl.publish.topics import (
    Topic,
    TopicError,
    check_publishable,
    check_reply_topic,
    parse_command,
    topic_matches,
)

_REPLY_TO_LIMITS: Final = JsonLimits(max_bytes=16 * 1024, max_depth=6, max_string=512,
                                     max_items=64)
"""A command payload's limits (:data:`tablectl.publish.commands.COMMAND_LIMITS`)."""


@dataclass(frozen=True, slots=True)
class MessageProps:
    """MQTT 5 publish properties the API uses (all optional).

    Attributes:
        response_topic: where the receiver should reply (commands).
        correlation_data: opaque bytes to echo in the reply.
        message_expiry: seconds after which the broker drops the message if undelivered.
        content_type: e.g. ``application/json``.
        user_properties: ``(name, value)`` pairs, forwarded unchanged.
    """

    response_topic: str | None = None
    correlation_data: bytes | None = None
    message_expiry: int | None = None
    content_type: str | None = None
    user_properties: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class IncomingMessage:
    """A message received from the broker.

    Attributes:
        topic: where it was published.
        payload: the raw bytes.
        qos: the delivery QoS.
        retain: True for a retained message delivered at subscribe time.
        props: its MQTT 5 properties (defaults when the sender set none).
        mid: the packet id a QoS 1 delivery came with (for a client that acknowledges by
            itself, ``MqttPublisher(manual_ack=True)``); 0 otherwise.
        connection: which connection delivered it (1 for the first; a packet id means
            nothing on another connection).
    """

    topic: Topic
    payload: bytes
    qos: int = 1
    retain: bool = False
    props: MessageProps = field(default_factory=MessageProps)
    mid: int = 0
    connection: int = 0


class Publisher(Protocol):
    """Sends messages; QoS 1 publishes return only after the broker's PUBACK."""

    async def publish(self, topic: Topic, payload: bytes, *, retain: bool = False,
                      qos: int = 1, secret: bool = False,
                      props: MessageProps | None = None) -> None:
        """Publish ``payload`` to ``topic``.

        Args:
            topic: a concrete topic.
            payload: the bytes (b"" with ``retain=True`` clears a retained topic).
            retain: keep it as the topic's retained message.
            qos: 0 (returns once handed to the socket) or 1 (returns after PUBACK).
            secret: the payload is secret (hole cards...): refused outside ``secure/``.
            props: MQTT 5 properties.

        Raises:
            SecretTopicError: ``secret`` on a public topic; nothing sent.
            NotConnectedError: not connected; nothing sent.
            ConnectionLostError: the connection dropped before the PUBACK (it may arrive).
            PublishRefusedError: the broker refused it (e.g. 0x87 not authorised).
        """
        ...


class Subscriber(Protocol):
    """Receives messages for the filters it subscribed to."""

    async def subscribe(self, topic_filter: str, qos: int = 1) -> None:
        """Subscribe (kept across reconnects by the real client)."""
        ...

    def messages(self) -> AsyncIterator[IncomingMessage]:
        """Incoming messages in arrival order; ends when the client closes."""
        ...


async def send_reply(publisher: Publisher, request: IncomingMessage, payload: bytes) -> Topic:
    """Answer a command on its MQTT 5 response topic, echoing its correlation data, or, for
    an MQTT 3.1.1 client (which has no response topic), on the ``reply_to`` topic of its
    payload.

    The reply topic must lie in the sender's own reply area
    (``poker/v1/replies/{user}/...``, user = the command topic's last level), so a console
    cannot make the controller write into another user's replies.

    Returns:
        The topic replied to.

    Raises:
        TopicError: ``request`` is not a command, has neither a response topic nor a
            ``reply_to``, or its reply topic is outside the sender's reply area; nothing sent.
        PublishError: as :meth:`Publisher.publish`.
    """
    sender = parse_command(request.topic).user
    reply_to = request.props.response_topic or payload_reply_to(request.payload)
    if reply_to is None:
        raise TopicError(f"command on {request.topic.value} has no response topic and no "
                         "reply_to")
    topic = check_reply_topic(sender, reply_to)
    await publisher.publish(topic, payload, qos=1, props=MessageProps(
        correlation_data=request.props.correlation_data, content_type="application/json"))
    return topic


def payload_reply_to(payload: bytes) -> str | None:
    """The ``reply_to`` of a command payload (MQTT 3.1.1 consoles), None if it has none.

    >>> payload_reply_to(b'{"v": 1, "id": "c1", "reply_to": "poker/v1/replies/d/c"}')
    'poker/v1/replies/d/c'
    >>> payload_reply_to(b"not json") is None
    True
    >>> payload_reply_to(b"[" * 5000) is None      # read by the strict decoder: never raises
    True
    """
    try:
        body = decode_object(payload, _REPLY_TO_LIMITS)
    except StrictJsonError:
        return None
    value = body.get("reply_to")
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True, slots=True)
class SentMessage:
    """One message a :class:`MemoryPublisher` accepted."""

    topic: Topic
    payload: bytes
    qos: int
    retain: bool
    secret: bool
    props: MessageProps


class MemoryPublisher:
    """A :class:`Publisher` and :class:`Subscriber` in memory (see the module docstring).

    Attributes:
        sent: every accepted message, in order.
        retained: topic string -> the retained message.
        online: when False, :meth:`publish` raises :class:`NotConnectedError`.
    """

    def __init__(self) -> None:
        self.sent: list[SentMessage] = []
        self.retained: dict[str, SentMessage] = {}
        self.online = True
        self._filters: list[str] = []
        self._queue: asyncio.Queue[IncomingMessage | None] = asyncio.Queue()
        self._refuse: dict[str, int] = {}

    async def __aenter__(self) -> Self:
        """Return self."""
        return self

    async def __aexit__(self, *exc: object) -> None:
        """End :meth:`messages`."""
        self._queue.put_nowait(None)

    def refuse(self, topic_filter: str, reason_code: int = 0x87) -> None:
        """From now on, refuse publishes matching ``topic_filter`` as a broker ACL would."""
        self._refuse[topic_filter] = reason_code

    def inject(self, message: IncomingMessage) -> None:
        """Deliver ``message`` to :meth:`messages` as if another client had published it."""
        self._queue.put_nowait(message)

    def on(self, topic: Topic) -> list[bytes]:
        """Payloads sent to ``topic``, in order."""
        return [m.payload for m in self.sent if m.topic == topic]

    async def publish(self, topic: Topic, payload: bytes, *, retain: bool = False,
                      qos: int = 1, secret: bool = False,
                      props: MessageProps | None = None) -> None:
        """Record (and loop back) a message; see :meth:`Publisher.publish`."""
        check_publishable(topic, secret=secret)
        if qos not in (0, 1):
            raise PublishError(f"unsupported qos {qos}", topic.value)
        if not self.online:
            raise NotConnectedError("memory publisher is offline", topic.value)
        for flt, code in self._refuse.items():
            if topic_matches(flt, topic):
                raise PublishRefusedError(f"refused ({code:#x})", topic.value, code)
        msg = SentMessage(topic, bytes(payload), qos, retain, secret, props or MessageProps())
        self.sent.append(msg)
        if retain:
            if payload:
                self.retained[topic.value] = msg
            else:
                self.retained.pop(topic.value, None)
        if any(topic_matches(f, topic) for f in self._filters):
            self._queue.put_nowait(IncomingMessage(topic, msg.payload, qos, False, msg.props))

    async def subscribe(self, topic_filter: str, qos: int = 1) -> None:
        """Subscribe; matching retained messages are delivered at once, flagged retained.

        Raises:
            PublishError: a QoS other than 0 or 1 (as the real client).
        """
        if qos not in (0, 1):
            raise PublishError(f"unsupported qos {qos}", topic_filter)
        self._filters.append(topic_filter)
        for msg in self.retained.values():
            if topic_matches(topic_filter, msg.topic):
                self._queue.put_nowait(IncomingMessage(msg.topic, msg.payload, msg.qos, True,
                                                       msg.props))

    async def messages(self) -> AsyncIterator[IncomingMessage]:
        """Messages delivered to this twin, until it is closed."""
        while (msg := await self._queue.get()) is not None:
            yield msg
