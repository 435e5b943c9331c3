"""What :class:`~tablectl.publish.mqtt.MqttPublisher` is built from and reports: how to reach
the broker (validated), the birth and will, and each successful connection."""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from tablectl.publish.topics import Topic


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
        connect_timeout: seconds :meth:`MqttPublisher.__aenter__` waits for the first CONNACK;
            it also bounds (with at most 5 s) each blocking TCP connect and TLS handshake.
        transport: ``"tcp"`` or ``"websockets"``.
        receive_maximum: the MQTT 5 Receive Maximum sent in CONNECT (how many QoS 1 messages
            the broker may have unacknowledged at this client), or None for the broker's own
            limit (mosquitto's ``max_inflight_messages``, 20 in config/mosquitto). A consumer
            that acknowledges a whole batch after storing it needs at least the batch.
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
    receive_maximum: int | None = None

    def __post_init__(self) -> None:
        problems = []
        if not 0 < self.port < 65536:
            problems.append(f"port {self.port} is not 1..65535")
        if self.keepalive < 1:
            problems.append(f"keepalive must be at least 1 s, not {self.keepalive}")
        if self.session_expiry < 0:
            problems.append(f"session_expiry must be 0 s or more, not {self.session_expiry}")
        if self.reconnect_min < 1:
            # 0 would retry a refused connection in a loop with no pause at all
            problems.append(f"reconnect_min must be at least 1 s, not {self.reconnect_min}")
        if self.reconnect_max < self.reconnect_min:
            problems.append(f"reconnect_max ({self.reconnect_max}) is below reconnect_min "
                            f"({self.reconnect_min})")
        if not self.connect_timeout > 0:
            problems.append(f"connect_timeout must be above 0 s, not {self.connect_timeout}")
        if self.transport not in ("tcp", "websockets"):
            problems.append(f"transport must be tcp or websockets, not {self.transport!r}")
        if self.receive_maximum is not None and not 0 < self.receive_maximum < 65536:
            problems.append(f"receive_maximum must be 1..65535, not {self.receive_maximum}")
        if problems:
            raise ValueError("MQTT settings: " + "; ".join(problems))


@dataclass(frozen=True, slots=True)
class Availability:
    """Birth and will: retained ``online`` after each CONNACK, ``offline`` as the LWT.

    ``guard``, if given, is called after each CONNACK and before the birth with the payload
    retained on ``topic`` (None when there is none): it may raise
    :class:`~tablectl.publish.errors.BirthRefusedError` to refuse the birth; the client then
    leaves the broker without its will firing and reconnects no more.
    """

    topic: Topic
    online: bytes
    offline: bytes
    guard: Callable[[bytes | None], None] | None = None


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
