"""A console and a listener for daemon tests: plain paho clients on a real broker."""

from __future__ import annotations

import json
import socket
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties


def _nodelay(_client: mqtt.Client, _userdata: object, sock: object) -> None:
    """TCP_NODELAY, as every client of the daemon should (Nagle delays small commands)."""
    if isinstance(sock, socket.socket):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


@dataclass
class Listener:
    """Subscribes to a table's public (and optionally secure) topics and records everything."""

    host: str
    port: int
    table: str
    secure: bool = False
    messages: list[tuple[str, dict[str, object]]] = field(default_factory=list)
    raw: list[tuple[str, bytes]] = field(default_factory=list)
    cond: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=f"listener-{uuid.uuid4().hex[:8]}")
        self.client.on_message = self._on_message
        self.client.connect(self.host, self.port)
        self.client.subscribe(f"poker/v1/tables/{self.table}/#", qos=1)
        if self.secure:
            self.client.subscribe(f"secure/v1/tables/{self.table}/#", qos=1)
        self.client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.raw.append((msg.topic, bytes(msg.payload)))
            try:
                body = json.loads(msg.payload) if msg.payload else {}
            except json.JSONDecodeError:
                body = {"_raw": msg.payload.decode("latin-1")}
            self.messages.append((msg.topic, body))
            self.cond.notify_all()

    def events(self) -> list[dict[str, object]]:
        with self.cond:
            return [m for t, m in self.messages if t.endswith("/events")]

    def latest_state(self) -> dict[str, object] | None:
        with self.cond:
            states = [m for t, m in self.messages if t == f"poker/v1/tables/{self.table}/state"]
        return states[-1] if states else None

    def wait_for(self, pred: object, timeout: float = 10.0) -> bool:
        assert callable(pred)
        with self.cond:
            return self.cond.wait_for(lambda: pred(self), timeout)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@dataclass
class Console:
    """A dealer console: MQTT 5 request/response commands under its own username."""

    host: str
    port: int
    table: str
    user: str
    replies: dict[str, dict[str, object]] = field(default_factory=dict)
    cond: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=self.user)
        self.client.on_message = self._on_message
        self.client.on_socket_open = _nodelay
        self.client.connect(self.host, self.port)
        self.reply_topic = f"poker/v1/replies/{self.user}/console"
        self.client.subscribe(self.reply_topic, qos=1)
        self.client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        body = json.loads(msg.payload)
        with self.cond:
            self.replies[str(body.get("id"))] = body
            self.cond.notify_all()

    def send(self, name: str, args: dict[str, object] | None = None, *,
             cmd_id: str | None = None, timeout: float = 10.0,
             ts: datetime | None = None) -> dict[str, object]:
        """Send one command and wait for its reply."""
        cid = cmd_id or uuid.uuid4().hex
        props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        props.ResponseTopic = self.reply_topic
        props.CorrelationData = cid.encode()
        payload = {"v": 1, "id": cid, "ts": (ts or datetime.now(UTC)).isoformat(),
                   "args": args or {}}
        with self.cond:
            self.replies.pop(cid, None)
        self.client.publish(f"poker/v1/tables/{self.table}/cmd/{name}/{self.user}",
                            json.dumps(payload), qos=1, properties=props)
        with self.cond:
            ok = self.cond.wait_for(lambda: cid in self.replies, timeout)
            assert ok, f"no reply to {name} {args}"
            return self.replies[cid]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
