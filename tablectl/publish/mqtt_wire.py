"""What :class:`~tablectl.publish.mqtt.MqttPublisher` hands to paho and takes from it: MQTT 5
properties both ways (PUBLISH, CONNECT) and the socket options and clean-up of the sockets
paho opens. paho's types stop at this module and ``mqtt.py``."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.publish.base import MessageProps
from tablectl.publish.mqtt_settings import MqttSettings

if TYPE_CHECKING:
    from paho.mqtt.client import SocketLike


def set_nodelay(sock: object) -> None:
    """Set TCP_NODELAY on a TCP socket paho opened (a no-op for other sockets)."""
    raw = getattr(sock, "_socket", sock)       # paho's WebsocketWrapper keeps the real one
    if isinstance(raw, socket.socket) and raw.family in (socket.AF_INET, socket.AF_INET6):
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def has_nodelay(sock: object) -> bool:
    """Whether ``sock`` (paho's socket, or None) has TCP_NODELAY set, read back."""
    raw = getattr(sock, "_socket", sock)
    if not isinstance(raw, socket.socket):
        return False
    return bool(raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


def unread(sock: SocketLike) -> int:
    """Decrypted bytes an SSL socket (or paho's websocket wrapper over one) holds unread."""
    pending = getattr(sock, "pending", None)
    return int(pending()) if callable(pending) else 0


def close_sockets_of(exc: BaseException) -> None:
    """Close the sockets a failed ``reconnect()`` left open.

    When a TLS or websocket handshake fails, paho raises with the socket it had just opened
    still open and referenced only by the frames of the traceback: without this the garbage
    collector closes it, with a ResourceWarning, whenever the exception goes.
    """
    tb = exc.__traceback__
    while tb is not None:
        for value in list(tb.tb_frame.f_locals.values()):
            if isinstance(value, socket.socket):
                value.close()
        tb = tb.tb_next


_SHARED_PROPS: dict[MessageProps, Properties] = {}
"""paho Properties of the recurring, reply-less property sets (every event and snapshot
carries the same content type): built once. paho only reads them (``pack``)."""


def props_out(props: MessageProps | None) -> Properties | None:
    """paho PUBLISH properties of ``props``, None when it sets none."""
    if props is None or props == MessageProps():
        return None
    shareable = props.correlation_data is None and props.response_topic is None
    if shareable and (known := _SHARED_PROPS.get(props)) is not None:
        return known
    out = _build_props(props)
    if shareable and len(_SHARED_PROPS) < 32:
        _SHARED_PROPS[props] = out
    return out


def _build_props(props: MessageProps) -> Properties:
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


def props_in(props: Properties | None) -> MessageProps:
    """The :class:`MessageProps` of a received message's paho properties."""
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


def connect_props(settings: MqttSettings) -> Properties:
    """CONNECT properties: the persistent session's expiry and the Receive Maximum."""
    props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    props.SessionExpiryInterval = settings.session_expiry
    if settings.receive_maximum is not None:
        props.ReceiveMaximum = settings.receive_maximum
    return props
