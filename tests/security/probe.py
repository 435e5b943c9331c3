"""A small synchronous MQTT client for the security tests: connect, and record what happens.

Each ``Probe`` is one paho-mqtt 2.x client on its own network thread with automatic
reconnection switched off, so that a client the broker kicks off stays off and the test can
count it. Everything it receives is recorded in order; ``expect`` waits for one message and
returns everything received up to it, which lets a test use a later, allowed message as a
fence: the broker keeps the order of one publisher's messages to one subscriber, so a
forbidden message published before the fence would have arrived before it.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

WAIT = 5.0  # seconds: the bound of every wait (never a timing assertion)


def properties(packet_type: int, **values: object) -> Properties:
    """MQTT 5 properties, e.g. ``properties(PacketTypes.PUBLISH, ResponseTopic="a/b")``."""
    props = Properties(packet_type)  # type: ignore[no-untyped-call]
    for name, value in values.items():
        setattr(props, name, value)
    return props


def prop(props: Properties | None, name: str) -> object:
    """One property of a received message (``None`` when absent)."""
    return getattr(props, name, None)


def ok(code: ReasonCode) -> bool:
    """A success-family reason code (0x00 Success, 0x10 No matching subscribers, ...)."""
    return not code.is_failure


class RefusedError(Exception):
    """The broker (or the TLS handshake) did not let this client in."""


@dataclass(frozen=True)
class Received:
    """One delivered message."""

    topic: str
    payload: bytes
    retain: bool
    properties: Properties | None


@dataclass(frozen=True)
class Will:
    """A will message to register at CONNECT."""

    topic: str
    payload: bytes
    retain: bool = False
    qos: int = 1


@dataclass(frozen=True)
class Tls:
    """Trust anchor and, for mutual TLS, the client's certificate and key."""

    ca: Path
    cert: Path | None = None
    key: Path | None = None


@dataclass
class Probe:
    """One MQTT client; ``connect`` raises ``RefusedError`` unless CONNACK says success."""

    host: str
    port: int
    username: str | None = None
    password: str | None = None
    client_id: str = ""
    tls: Tls | None = None
    websockets: bool = False
    will: Will | None = None
    mqtt5: bool = True
    received: list[Received] = field(default_factory=list)
    disconnects: int = 0
    connack: ReasonCode | None = None
    session_present: bool = False

    def __post_init__(self) -> None:
        self._cond = threading.Condition()
        self._acks: dict[int, list[ReasonCode] | ReasonCode] = {}
        self._done = threading.Event()
        self._client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=mqtt.MQTTv5 if self.mqtt5 else mqtt.MQTTv311,
            transport="websockets" if self.websockets else "tcp",
            reconnect_on_failure=False,
        )
        if self.username is not None:
            self._client.username_pw_set(self.username, self.password)
        if self.tls is not None:
            self._client.tls_set(
                ca_certs=str(self.tls.ca),
                certfile=str(self.tls.cert) if self.tls.cert else None,
                keyfile=str(self.tls.key) if self.tls.key else None,
                cert_reqs=ssl.CERT_REQUIRED,
            )
        if self.will is not None:
            self._client.will_set(self.will.topic, self.will.payload, self.will.qos,
                                  self.will.retain)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.on_publish = self._on_publish
        self._client.on_subscribe = self._on_subscribe

    # --- paho callbacks (network thread) ---
    def _on_connect(self, _c: mqtt.Client, _u: object, flags: mqtt.ConnectFlags,
                    rc: ReasonCode, _p: Properties | None) -> None:
        with self._cond:
            self.connack = rc
            self.session_present = flags.session_present
            self._cond.notify_all()
        self._done.set()

    def _on_disconnect(self, _c: mqtt.Client, _u: object, _f: object, _rc: ReasonCode,
                       _p: Properties | None) -> None:
        with self._cond:
            self.disconnects += 1
            self._cond.notify_all()
        self._done.set()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        props = getattr(msg, "properties", None)
        with self._cond:
            self.received.append(Received(msg.topic, bytes(msg.payload), bool(msg.retain),
                                          props))
            self._cond.notify_all()

    def _on_publish(self, _c: mqtt.Client, _u: object, mid: int, rc: ReasonCode,
                    _p: Properties | None) -> None:
        with self._cond:
            self._acks[mid] = rc
            self._cond.notify_all()

    def _on_subscribe(self, _c: mqtt.Client, _u: object, mid: int, rcs: list[ReasonCode],
                      _p: Properties | None) -> None:
        with self._cond:
            self._acks[mid] = rcs
            self._cond.notify_all()

    # --- test-side API ---
    def connect(self, *, clean_start: bool = True, session_expiry: int = 0) -> Probe:
        """Connect and wait for CONNACK; raise ``RefusedError`` on any failure."""
        props = None
        if self.mqtt5:
            props = properties(PacketTypes.CONNECT)
            if session_expiry:
                props = properties(PacketTypes.CONNECT, SessionExpiryInterval=session_expiry)
        try:
            if self.mqtt5:
                self._client.connect(self.host, self.port, keepalive=30, clean_start=clean_start,
                                     properties=props)
            else:
                self._client.connect(self.host, self.port, keepalive=30)
        except OSError as exc:  # TCP refused, TLS handshake failed, websocket upgrade failed
            self._client.loop_stop()
            raise RefusedError(f"{type(exc).__name__}: {exc}") from exc
        self._client.loop_start()
        if not self._done.wait(WAIT):
            self.close()
            raise RefusedError("no CONNACK within the bound")
        if self.connack is None or self.connack.is_failure:
            reason = str(self.connack) if self.connack is not None else "connection closed"
            self.close()
            raise RefusedError(reason)
        return self

    def subscribe(self, *filters: str, qos: int = 1) -> list[ReasonCode]:
        """Subscribe and return the SUBACK reason code of each filter."""
        _rc, mid = self._client.subscribe([(f, qos) for f in filters])
        assert mid is not None
        acks = self._wait_ack(mid)
        assert isinstance(acks, list)
        return acks

    def publish(self, topic: str, payload: bytes, *, retain: bool = False,
                properties: Properties | None = None) -> ReasonCode:
        """Publish at QoS 1 and return the PUBACK reason code (0x87 = not authorised)."""
        info = self._client.publish(topic, payload, qos=1, retain=retain, properties=properties)
        assert info.mid is not None
        ack = self._wait_ack(info.mid)
        assert isinstance(ack, ReasonCode)
        return ack

    def _wait_ack(self, mid: int) -> list[ReasonCode] | ReasonCode:
        with self._cond:
            if not self._cond.wait_for(lambda: mid in self._acks or self.disconnects > 0, WAIT):
                raise AssertionError(f"no acknowledgement for packet {mid} within {WAIT} s")
            if mid not in self._acks:
                raise AssertionError(f"disconnected before packet {mid} was acknowledged")
            return self._acks.pop(mid)

    def expect(self, topic: str, payload: bytes | None = None,
               timeout: float = WAIT) -> list[Received]:
        """Wait for a message on ``topic`` (with ``payload``); return all received up to it."""

        def index() -> int | None:
            for i, msg in enumerate(self.received):
                if msg.topic == topic and (payload is None or msg.payload == payload):
                    return i
            return None

        with self._cond:
            if not self._cond.wait_for(lambda: index() is not None, timeout):
                seen = [(m.topic, m.payload) for m in self.received]
                raise AssertionError(f"{self.username}: no {topic} {payload!r}; got {seen}")
            i = index()
            assert i is not None
            return list(self.received[: i + 1])

    def clear(self) -> None:
        """Forget what was received so far."""
        with self._cond:
            self.received.clear()

    def quiet_for(self, seconds: float) -> list[Received]:
        """Wait a bounded time and return what arrived (for the few checks without a fence)."""
        time.sleep(seconds)
        with self._cond:
            return list(self.received)

    def wait_disconnected(self, timeout: float = WAIT) -> bool:
        """True once the broker has closed this client's connection."""
        with self._cond:
            return self._cond.wait_for(lambda: self.disconnects > 0, timeout)

    def crash(self) -> None:
        """Drop the connection without DISCONNECT, as a crashed or unplugged device does."""
        sock = self._client.socket()
        assert sock is not None
        raw = getattr(sock, "_socket", sock)  # paho wraps a websocket's socket
        assert isinstance(raw, socket.socket)
        raw.shutdown(socket.SHUT_RDWR)  # the broker sees the loss and fires the will
        self.wait_disconnected()
        self.close()

    def close(self) -> None:
        """Disconnect politely (if still connected) and stop the network thread."""
        self._client.disconnect()
        self._client.loop_stop()
