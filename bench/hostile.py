"""Hostile client: what a flood of refused commands costs the table and its dealer.

Method: a private mosquitto, ``tablectl run`` as a child process (manual cards only, a floor
user ``floor-hx``), and on the side a hostile client ``mallory`` with no role at the table.

1. quiet: ``--commands`` legitimate commands from the floor user, one at a time
   (``adjust_stack`` +1 / -1: each journaled with its fsync, an event and a snapshot), each
   timed from publish to reply;
2. flood: the same again while mallory sends refused commands at ``--rate`` a second (its
   payloads 200 bytes to 20 KB, half of them larger than a command may be);
3. burst, twice: mallory publishes ``--burst`` commands at once, then the floor user one
   command: the time to its reply is how long the dealer waits behind the burst (it was
   21 s for 5,000 before the refusals were made cheap); then mallory probes until the
   daemon answers it again (every message of the burst handled) and the RSS is read.

Figures: ``p99_quiet_ms`` and ``p99_flood_ms`` of the legitimate commands and their ratio
(same run); ``burst_dealer_s``; ``journal_bytes_per_refused``: the journal's growth over the
flood and the burst (the WAL folded in, the legitimate commands' own growth, measured in the
quiet phase, taken off) per refused command sent (target <= 512); ``rss_before_mb``,
``rss_after_first_burst_mb``, ``rss_after_mb``: the daemon's resident memory before the flood,
after the first and after the second burst, each drained (flat: a second burst adds nothing).

The last line printed is one JSON object with every figure.

Usage: ``.venv/bin/python bench/hostile.py [--commands 300] [--rate 1000] [--burst 5000]``
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import socket
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid
from multiprocessing.sharedctypes import Synchronized
from multiprocessing.synchronize import Event
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import Broker, private_broker  # noqa: E402
from tests.reliability.harness import HOSTILE_FLOOR as FLOOR  # noqa: E402
from tests.reliability.harness import HOSTILE_TABLE as TABLE  # noqa: E402
from tests.reliability.harness import DaemonProcess, hostile_config  # noqa: E402


def _nodelay(_client: mqtt.Client, _userdata: object, sock: object) -> None:
    """TCP_NODELAY, as the daemon's clients should (Nagle delays small commands)."""
    if isinstance(sock, socket.socket):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Client:
    """An MQTT 5 client under one username; ``call`` sends a command and waits its reply."""

    def __init__(self, broker: Broker, user: str) -> None:
        self.user = user
        self.cond = threading.Condition()
        self.replies: dict[bytes, float] = {}
        self.refused = 0
        self.status: list[dict[str, object]] = []
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=f"{user}-{uuid.uuid4().hex[:6]}")
        self.client.on_message = self._on_message
        self.client.on_socket_open = _nodelay
        self.client.connect(broker.host, broker.port)
        self.reply_topic = f"poker/v1/replies/{user}/bench"
        self.client.subscribe(self.reply_topic, qos=1)
        self.client.subscribe(f"poker/v1/tables/{TABLE}/status", qos=1)
        self.client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        with self.cond:
            if msg.topic.endswith("/status"):
                self.status.append(json.loads(msg.payload) if msg.payload else {})
            elif msg.properties is not None and getattr(msg.properties, "CorrelationData",
                                                        None):
                status = json.loads(msg.payload).get("status")
                self.replies[bytes(msg.properties.CorrelationData)] = now
                self.refused += status != "ok"
            self.cond.notify_all()

    def send(self, name: str, payload: bytes, corr: bytes, qos: int = 1) -> None:
        props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        props.ResponseTopic = self.reply_topic
        props.CorrelationData = corr
        self.client.publish(f"poker/v1/tables/{TABLE}/cmd/{name}/{self.user}", payload,
                            qos=qos, properties=props)

    def call(self, name: str, args: dict[str, object], timeout: float = 120.0) -> float:
        """Seconds from publish to reply."""
        corr = uuid.uuid4().bytes
        payload = json.dumps({"v": 1, "id": corr.hex(), "args": args}).encode()
        start = time.perf_counter()
        self.send(name, payload, corr)
        with self.cond:
            if not self.cond.wait_for(lambda: corr in self.replies, timeout):
                raise RuntimeError(f"no reply to {name}")
            return self.replies.pop(corr) - start

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def journal_bytes(path: Path) -> int:
    """The journal's size with its WAL folded in (the daemon stopped)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        return int(pages) * int(size)
    finally:
        conn.close()


def refusal_records(path: Path) -> tuple[int, float]:
    """How many refusal records the journal holds, and their mean size in bytes (the
    columns' own bytes; SQLite adds a few per row)."""
    conn = sqlite3.connect(path)
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name='refusals'").fetchone() is None:
            return 0, 0.0                      # a journal older than refusal records
        count, size = conn.execute(
            "SELECT count(*), sum(length(at) + coalesce(length(user), 0) + length(topic) + 8 "
            "+ coalesce(length(digest), 0) + length(code) + length(reason) + 8 + 8) "
            "FROM refusals").fetchone()
    finally:
        conn.close()
    return int(count), (float(size) / count if count else 0.0)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def flood(host: str, port: int, rate: float, stop: Event, sent: Synchronized[int]) -> None:
    """mallory's refused commands at ``rate`` a second until ``stop`` (a process of its own,
    so that it does not take the measuring client's interpreter lock)."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                         client_id=f"mallory-{uuid.uuid4().hex[:6]}")
    client.on_socket_open = _nodelay
    client.connect(host, port)
    client.loop_start()
    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    props.ResponseTopic = "poker/v1/replies/mallory/bench"
    payloads = [payload(i) for i in range(64)]
    topic = f"poker/v1/tables/{TABLE}/cmd/start_hand/mallory"
    start = time.perf_counter()
    n = 0
    while not stop.is_set():
        delay = start + n / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        client.publish(topic, payloads[n % 64], qos=1, properties=props)
        n += 1
        sent.value = n
    client.disconnect()
    client.loop_stop()


def payload(i: int) -> bytes:
    size = 200 if i % 2 else 20_000          # half of them over the 16 KiB a command may be
    return json.dumps({"v": 1, "id": f"m{i}", "args": {"x": "y" * size}}).encode()


class Table:
    """The daemon child process and its journal, started and stopped between phases."""

    def __init__(self, workdir: Path, broker: Broker) -> None:
        self.broker = broker
        self.journal = workdir / "journal.sqlite"
        self.proc = DaemonProcess(hostile_config(workdir, broker), workdir / "daemon.log")
        self.watcher = Client(broker, "watcher")

    def start(self) -> None:
        with self.watcher.cond:
            self.watcher.status.clear()
        self.proc.start()
        with self.watcher.cond:
            if not self.watcher.cond.wait_for(
                    lambda: any(s.get("state") == "online" for s in self.watcher.status), 60):
                raise RuntimeError("the daemon did not come online:\n" + self.proc.log_tail())

    def stop(self) -> int:
        self.proc.stop()
        return journal_bytes(self.journal)

    @property
    def pid(self) -> int:
        assert self.proc.proc is not None
        return self.proc.proc.pid


def drained(mallory: Client) -> int:
    """Probe until the daemon answers mallory again: its messages reach the daemon in order,
    so every one sent before was handled. Returns the probes sent (refused too)."""
    probes = 0
    while True:
        probes += 1
        corr = f"probe{probes}".encode()
        mallory.send("start_hand", b'{"v":1,"id":"probe"}', corr)
        with mallory.cond:
            if mallory.cond.wait_for(lambda c=corr: c in mallory.replies, 0.5):
                return probes
        if probes > 600:
            raise RuntimeError("the daemon never drained the burst")


def timed(floor: Client, n: int) -> list[float]:
    out = []
    for i in range(n):
        out.append(floor.call("adjust_stack", {"seat": 1, "amount": 1 if i % 2 else -1,
                                               "reason": "bench"}))
    if floor.refused:
        raise RuntimeError(f"{floor.refused} legitimate commands were refused")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=300, help="legitimate per phase")
    parser.add_argument("--rate", type=float, default=1000.0, help="refused commands a second")
    parser.add_argument("--burst", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        broker = private_broker(workdir, "max_queued_messages 100000\n")
        table = Table(workdir, broker)
        try:
            table.start()
            empty = table.stop()
            table.start()
            floor = Client(broker, FLOOR)
            timed(floor, 20)                                  # warm
            quiet = timed(floor, args.commands)
            floor.close()
            after_quiet = table.stop()
            per_legit = (after_quiet - empty) / (args.commands + 20)
            table.start()
            floor = Client(broker, FLOOR)
            timed(floor, 20)                                  # warm
            rss_before = rss_mb(table.pid)
            cpu_before = cpu_seconds(table.pid)
            flood_start = time.perf_counter()
            stop = multiprocessing.Event()
            sent = multiprocessing.Value("q", 0)
            flooder = multiprocessing.Process(target=flood, args=(broker.host, broker.port,
                                                                  args.rate, stop, sent))
            flooder.start()
            flooded = timed(floor, args.commands)
            flood_seconds = time.perf_counter() - flood_start
            stop.set()
            flooder.join(60)
            cpu_flood = cpu_seconds(table.pid)
            mallory = Client(broker, "mallory")
            rss_bursts = []
            probes = 0
            for _ in range(2):
                for i in range(args.burst):
                    mallory.send("start_hand", payload(i), b"b", qos=1)
                burst_dealer = floor.call("adjust_stack", {"seat": 1, "amount": 1,
                                                           "reason": "after the burst"})
                probes += drained(mallory)
                rss_bursts.append(rss_mb(table.pid))
            rss_after = rss_bursts[-1]
            refused = int(sent.value) + 2 * args.burst + probes
            mallory.close()
            floor.close()
            after_flood = table.stop()
            records, record_bytes = refusal_records(table.journal)
        except RuntimeError:
            print(table.proc.log_tail(80), file=sys.stderr)
            raise
        finally:
            table.watcher.close()
            table.proc.stop()
            broker.stop()
    legit = args.commands + 20 + 2
    growth = after_flood - after_quiet - legit * per_legit
    figures = {
        "commands": args.commands, "rate": args.rate, "refused_sent": refused,
        "p50_quiet_ms": round(statistics.median(quiet) * 1000, 2),
        "p99_quiet_ms": round(p99(quiet) * 1000, 2),
        "p50_flood_ms": round(statistics.median(flooded) * 1000, 2),
        "p99_flood_ms": round(p99(flooded) * 1000, 2),
        "p99_ratio": round(p99(flooded) / p99(quiet), 2),
        "burst": args.burst, "burst_dealer_s": round(burst_dealer, 3),
        "journal_bytes_per_legit": round(per_legit),
        "journal_bytes_per_refused": round(max(0.0, growth) / refused, 1),
        "refusal_records": records, "refusal_record_bytes": round(record_bytes, 1),
        "rss_before_mb": round(rss_before, 1), "rss_after_mb": round(rss_after, 1),
        "rss_after_first_burst_mb": round(rss_bursts[0], 1),
        "daemon_cpu_during_flood": round((cpu_flood - cpu_before) / flood_seconds, 2),
    }
    print(f"legitimate commands p99: quiet {figures['p99_quiet_ms']} ms, with {args.rate:g}/s "
          f"refused {figures['p99_flood_ms']} ms (x{figures['p99_ratio']}); after a burst of "
          f"{args.burst}: {figures['burst_dealer_s']} s; journal "
          f"{figures['journal_bytes_per_refused']} B per refused; RSS "
          f"{figures['rss_before_mb']} -> {figures['rss_after_mb']} MB")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
