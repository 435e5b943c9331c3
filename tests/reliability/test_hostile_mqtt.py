"""Hostile MQTT commands against ``tablectl run`` as a child process on a real mosquitto.

* item 1 of issue 25: no message ends the daemon (NaN, Infinity, deep nesting, huge integers,
  megabyte payloads, invalid UTF-8, control characters, odd topics), each answered with a
  bounded ``bad_request`` (or ``bad_topic`` / ``not_authorised``) reply, nothing applied;
* item 7: a name longer than a display shows, or with a control character, is refused;
* item 10: refused commands cost bounded disk (a refusal record, never the payload) and a
  flood from a user with no role is cut by its rate limit.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.conftest import Broker
from tests.reliability.harness import HOSTILE_DEALER as DEALER
from tests.reliability.harness import HOSTILE_FLOOR as FLOOR
from tests.reliability.harness import HOSTILE_TABLE as TABLE
from tests.reliability.harness import DaemonProcess, hostile_config


@dataclass
class Client:
    """A raw MQTT 5 client under one username: sends any bytes to any topic, keeps replies."""

    broker: Broker
    user: str
    replies: list[dict[str, object]] = field(default_factory=list)
    status: list[dict[str, object]] = field(default_factory=list)
    cond: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=f"{self.user}-{uuid.uuid4().hex[:6]}")
        self.client.on_message = self._on_message
        self.client.connect(self.broker.host, self.broker.port)
        self.reply_topic = f"poker/v1/replies/{self.user}/c"
        self.client.subscribe(self.reply_topic, qos=1)
        self.client.subscribe(f"poker/v1/tables/{TABLE}/status", qos=1)
        self.client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        body = json.loads(msg.payload) if msg.payload else {}
        with self.cond:
            (self.status if msg.topic.endswith("/status") else self.replies).append(body)
            self.cond.notify_all()

    def publish(self, name: str, payload: bytes, *, topic: str | None = None) -> None:
        props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        props.ResponseTopic = self.reply_topic
        self.client.publish(topic or f"poker/v1/tables/{TABLE}/cmd/{name}/{self.user}",
                            payload, qos=1, properties=props).wait_for_publish(10)

    def wait(self, pred: object, timeout: float = 20.0) -> bool:
        assert callable(pred)
        with self.cond:
            return self.cond.wait_for(lambda: pred(self), timeout)

    def command(self, name: str, args: dict[str, object] | None = None) -> dict[str, object]:
        """A well-formed command and its reply."""
        cid = uuid.uuid4().hex
        with self.cond:
            before = len(self.replies)
        self.publish(name, json.dumps({"v": 1, "id": cid, "args": args or {}}).encode())
        assert self.wait(lambda c: len(c.replies) > before), f"no reply to {name}"
        with self.cond:
            reply = self.replies[before]
        assert reply["id"] in (cid, "unknown"), reply    # "unknown": not even decoded
        return reply

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def daemon(tmp_path: Path, mosquitto: Broker) -> Iterator[DaemonProcess]:
    proc = DaemonProcess(hostile_config(tmp_path / "t", mosquitto), tmp_path / "daemon.log")
    proc.start()
    watcher = Client(mosquitto, "watcher")
    try:
        assert watcher.wait(lambda c: any(s.get("state") == "online" for s in c.status)), \
            proc.log_tail()
        yield proc
    finally:
        watcher.close()
        proc.stop()


HOSTILE: dict[str, bytes] = {
    "nan": b'{"v":1,"id":"a","args":{"x":NaN}}',
    "nan-amount": b'{"v":1,"id":"a","args":{"kind":"bet","amount":NaN}}',
    "infinity": b'{"v":1,"id":"a","args":{"x":Infinity}}',
    "minus-infinity": b'{"v":1,"id":"a","args":{"x":-Infinity}}',
    "deep": b'{"v":1,"id":"a","args":{"x":' + b"[" * 1100 + b"]" * 1100 + b"}}",
    "huge-int": b'{"v":1,"id":"a","args":{"amount":' + b"9" * 5000 + b"}}",
    "int-2-63": b'{"v":1,"id":"a","args":{"amount":9223372036854775808}}',
    "megabyte": b'{"v":1,"id":"a","args":{"x":"' + b"y" * 1_000_000 + b'"}}',
    "not-utf8": b'{"v":1,"id":"\xff\xfe","args":{}}',
    "nul-in-id": b'{"v":1,"id":"a\\u0000b","args":{}}',
    "bidi-in-arg": b'{"v":1,"id":"a","args":{"kind":"\\u202efold"}}',
    "empty": b"",
    "array": b"[1,2,3]",
    "dup-key": b'{"v":1,"id":"a","id":"b"}',
    "lone-surrogate": b'{"v":1,"id":"\\ud800"}',
}


@pytest.mark.parametrize("user", ["mallory", DEALER])
def test_no_hostile_message_ends_the_daemon(daemon: DaemonProcess, mosquitto: Broker,
                                            user: str) -> None:
    """Item 1: each hostile payload gets one bounded error reply; the daemon lives on and
    answers the dealer after them."""
    sender = Client(mosquitto, user)
    dealer = Client(mosquitto, DEALER) if user != DEALER else sender
    try:
        for name, payload in HOSTILE.items():
            before = len(sender.replies)
            sender.publish("action", payload)
            assert sender.wait(lambda c, n=before: len(c.replies) > n), \
                f"{name}: no reply\n{daemon.log_tail()}"
            reply = sender.replies[before]
            assert reply["status"] == "error", (name, reply)
            error = reply["error"]
            assert isinstance(error, dict)
            assert error["code"] in ("bad_request", "bad_args", "not_authorised"), (name, error)
            assert len(json.dumps(reply)) < 1024, name        # never the payload echoed
            assert daemon.alive, f"{name} ended the daemon\n{daemon.log_tail()}"
        # odd topics: a name or user no topic segment allows, too many levels
        for topic in (f"poker/v1/tables/{TABLE}/cmd/act ion/{user}",
                      f"poker/v1/tables/{TABLE}/cmd/{'x' * 300}/{user}",
                      f"poker/v1/tables/{TABLE}/cmd/-start/{user}"):
            sender.publish("x", b'{"v":1,"id":"t"}', topic=topic)
        assert daemon.alive, daemon.log_tail()
        # the dealer is still served
        reply = dealer.command("start_hand")
        assert reply["status"] == "ok", reply
        assert daemon.alive
        log = daemon.log_path.read_text(errors="replace")
        assert "y" * 200 not in log and "Traceback" not in log
    finally:
        sender.close()
        if dealer is not sender:
            dealer.close()


def test_a_name_a_display_cannot_show_is_refused(daemon: DaemonProcess,
                                                 mosquitto: Broker) -> None:
    """Item 7: seat_player with a 45,000-character name, a 33-character one, or one with a
    bidi override or a NUL is refused; a 32-character name is taken, normalised."""
    floor = Client(mosquitto, FLOOR)
    try:
        for seat, name in enumerate(["x" * 45_000, "y" * 33, "\u202eevil", "A\u0000B",
                                     "A\u200bB", "   "], start=3):
            reply = floor.command("seat_player", {"seat": seat, "name": name, "stack": 100})
            assert reply["status"] == "error", (name[:40], reply)
            error = reply["error"]
            assert isinstance(error, dict)
            assert error["code"] in ("bad_args", "bad_request"), reply
        reply = floor.command("seat_player", {"seat": 3, "name": " \u00c5sa" + "z" * 28,
                                              "stack": 100})
        assert reply["status"] == "ok", reply
        assert reply["data"] == {"seat": 3, "name": "\u00c5sa" + "z" * 28, "stack": 100}
        assert daemon.alive
    finally:
        floor.close()


def journal_bytes(path: Path) -> int:
    """The journal's size once its WAL is folded in (the daemon stopped)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return int(conn.execute("PRAGMA page_count").fetchone()[0]) * int(
            conn.execute("PRAGMA page_size").fetchone()[0])
    finally:
        conn.close()


def test_refused_commands_cost_bounded_disk_and_leave_the_dealer_served(
        tmp_path: Path, mosquitto: Broker) -> None:
    """Item 10: 500 commands of 200 KB from a user with no role: a bounded refusal record
    each (or counted), never the payload; the journal grows by less than 512 bytes per
    refused command; the dealer's command sent right after the flood is applied, not
    stale."""
    workdir = tmp_path / "t"
    proc = DaemonProcess(hostile_config(workdir, mosquitto), tmp_path / "daemon.log")
    journal = workdir / "journal.sqlite"
    watcher = Client(mosquitto, "watcher")
    try:
        proc.start()
        assert watcher.wait(lambda c: any(s.get("state") == "online" for s in c.status)), \
            proc.log_tail()
        proc.stop()
        before = journal_bytes(journal)
        with watcher.cond:
            watcher.status.clear()
        proc.start()
        assert watcher.wait(lambda c: any(s.get("state") == "online" for s in c.status)), \
            proc.log_tail()
        mallory = Client(mosquitto, "mallory")
        dealer = Client(mosquitto, DEALER)
        for i in range(500):
            args = {"x": "y" * 200_000} if i % 2 else {}
            mallory.publish("start_hand", json.dumps({"v": 1, "id": f"m{i}",
                                                      "args": args}).encode())
        reply = dealer.command("start_hand")
        assert reply["status"] == "ok", reply
        # mallory's messages reach the daemon in order: once a probe is answered (its rate
        # limit lets one through again), every message before it was handled
        probes = 0
        while not any(r.get("id") == "probe" for r in mallory.replies):
            assert probes < 120, proc.log_tail()
            mallory.publish("start_hand", b'{"v":1,"id":"probe"}')
            probes += 1
            mallory.wait(lambda c: any(r.get("id") == "probe" for r in c.replies), 0.5)
        mallory.close()
        dealer.close()
        proc.stop()
    finally:
        watcher.close()
        proc.stop()
    growth = journal_bytes(journal) - before
    assert growth < 500 * 512, growth
    conn = sqlite3.connect(journal)
    try:
        rows = conn.execute("SELECT user, code, size, length(digest), count FROM refusals"
                            ).fetchall()
        inputs = conn.execute("SELECT count(*) FROM inputs WHERE actor='mallory'").fetchone()
    finally:
        conn.close()
    assert inputs == (0,)                                  # nothing of mallory's is an input
    assert sum(r[4] for r in rows) == 500 + probes, rows   # every refusal accounted for
    kept = [r for r in rows if r[4] == 1]
    assert kept and all(r[0] == "mallory" and r[3] == 32 for r in kept)
    assert {r[1] for r in kept} <= {"bad_request", "not_authorised"}
    assert any(r[1] == "rate_limited" and r[4] > 1 for r in rows), rows
