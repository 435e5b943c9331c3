"""Publish -> receive latency through mosquitto: our MqttPublisher vs bare paho, NODELAY on/off.

Method (that of docs/mqtt.md §5.1): a private mosquitto on a free loopback port
(``set_tcp_nodelay true``), one subscriber in a separate process (bare paho), one publisher in
this process. Every payload carries ``time.monotonic_ns()`` taken just before the publish call
(CLOCK_MONOTONIC is system-wide on Linux); latency = receive-callback time - stamp. Open loop:
one message every ``--interval-ms``; ``--count`` messages per run; ``--runs`` runs per variant,
and the figures are medians over the runs. Variants:

* ``adapter_q0`` / ``adapter_q1``: :class:`tablectl.publish.mqtt.MqttPublisher` (NODELAY set,
  QoS 1 awaits the PUBACK);
* ``paho_nodelay_q0``: bare paho with TCP_NODELAY set in ``on_connect`` (the baseline);
* ``paho_q0`` / ``paho_q1``: bare paho as it comes (Nagle on);
* ``adapter_busy_q0`` / ``paho_nodelay_busy_q0``: as ``adapter_q0`` / ``paho_nodelay_q0``, but
  after each publish call the publishing thread keeps the CPU (pure Python, holding the GIL)
  for ``--busy-ms``, as the daemon does while it builds the next payload. Bare paho writes from
  its own thread (``loop_start``), which must first win the GIL back (up to the 5 ms switch
  interval): that is the hand-off the adapter avoids by writing on the loop, in the publish
  call itself.

The last line printed is one JSON object with every figure (milliseconds).

Usage: ``.venv/bin/python bench/publish.py [--count 1000] [--interval-ms 2] [--runs 3]
[--busy-ms 1]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tablectl.publish.topics import Topic

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import Broker, free_port  # noqa: E402

TOPIC = "bench/latency"
DONE = b"done"
PAD = b"x" * 480


def subscriber(port: int) -> None:
    """Child process: collect latencies until ``done``, then print them as JSON."""
    lat: list[float] = []
    finished = threading.Event()
    subscribed = threading.Event()

    def on_message(_c: paho.Client, _u: object, msg: paho.MQTTMessage) -> None:
        now = time.monotonic_ns()
        if msg.payload == DONE:
            finished.set()
            return
        sent = int(msg.payload[:20])
        lat.append((now - sent) / 1e6)

    client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
    client.on_message = on_message
    client.on_subscribe = lambda *_a: subscribed.set()
    client.connect("127.0.0.1", port)
    client.subscribe(TOPIC, qos=1)
    client.loop_start()
    subscribed.wait(10)
    print("ready", flush=True)
    finished.wait(600)
    client.disconnect()
    client.loop_stop()
    print(json.dumps(lat), flush=True)


def payload() -> bytes:
    return b"%020d" % time.monotonic_ns() + PAD


def burn(seconds: float) -> None:
    """Keep the CPU and the GIL for ``seconds`` (no system call that would release it)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        sum(range(50))


def run_paho(port: int, count: int, interval: float, *, qos: int, nodelay: bool,
             busy: float = 0.0) -> None:
    client = paho.Client(CallbackAPIVersion.VERSION2, protocol=paho.MQTTv5)
    connected = threading.Event()

    def on_connect(c: paho.Client, *_a: object) -> None:
        if nodelay:
            sock = c.socket()
            assert isinstance(sock, socket.socket)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connected.set()

    client.on_connect = on_connect
    client.connect("127.0.0.1", port)
    client.loop_start()
    connected.wait(10)
    t0 = time.monotonic()
    for i in range(count):
        delay = t0 + i * interval - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        client.publish(TOPIC, payload(), qos=qos)
        if busy:
            burn(busy)
    client.publish(TOPIC, DONE, qos=1).wait_for_publish(10)
    client.disconnect()
    client.loop_stop()


async def run_adapter(port: int, count: int, interval: float, qos: int,
                      busy: float = 0.0) -> None:
    topic = Topic(TOPIC)
    async with MqttPublisher(MqttSettings(host="127.0.0.1", port=port,
                                          client_id=f"bench-{os.getpid()}")) as pub:
        assert pub.nodelay()
        t0 = time.monotonic()
        for i in range(count):
            delay = t0 + i * interval - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            await pub.publish(topic, payload(), qos=qos)
            if busy:
                burn(busy)
        await pub.publish(topic, DONE, qos=1)


def measure(port: int, variant: str, count: int, interval: float, busy: float) -> list[float]:
    sub = subprocess.Popen([sys.executable, __file__, "--subscriber", str(port)],
                           stdout=subprocess.PIPE, text=True)
    assert sub.stdout is not None
    assert sub.stdout.readline().strip() == "ready"
    busy = busy if "busy" in variant else 0.0
    if variant.startswith("adapter"):
        asyncio.run(run_adapter(port, count, interval, qos=int(variant[-1]), busy=busy))
    else:
        run_paho(port, count, interval, qos=int(variant[-1]), nodelay="nodelay" in variant,
                 busy=busy)
    out, _ = sub.communicate(timeout=120)
    lat: list[float] = json.loads(out.strip().splitlines()[-1])
    if len(lat) != count:
        raise SystemExit(f"{variant}: received {len(lat)} of {count}")
    return lat


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--interval-ms", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--busy-ms", type=float, default=1.0,
                        help="CPU kept after each publish by the *_busy_* variants")
    parser.add_argument("--subscriber", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.subscriber:
        subscriber(args.subscriber)
        return
    variants = ["adapter_q0", "adapter_q1", "paho_nodelay_q0", "paho_q0", "paho_q1",
                "adapter_busy_q0", "paho_nodelay_busy_q0"]
    figures: dict[str, Any] = {"count": args.count, "interval_ms": args.interval_ms,
                               "runs": args.runs, "busy_ms": args.busy_ms}
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        conf = Path(tmp) / "mosquitto.conf"
        conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n"
                        "set_tcp_nodelay true\npersistence false\n"
                        "max_queued_messages 100000\n")
        broker = Broker("127.0.0.1", port, Path(tmp), conf)
        broker.start()               # waits until it accepts connections
        try:
            for variant in variants:
                p50s, p99s, maxes = [], [], []
                for _ in range(args.runs):
                    lat = measure(port, variant, args.count, args.interval_ms / 1000,
                                  args.busy_ms / 1000)
                    p50s.append(pct(lat, 50))
                    p99s.append(pct(lat, 99))
                    maxes.append(max(lat))
                row = {"p50_ms": round(statistics.median(p50s), 3),
                       "p99_ms": round(statistics.median(p99s), 3),
                       "max_ms": round(statistics.median(maxes), 3)}
                figures[variant] = row
                print(f"{variant:20s} p50 {row['p50_ms']:7.3f} ms  p99 {row['p99_ms']:7.3f} ms"
                      f"  max {row['max_ms']:7.3f} ms  (median of {args.runs} runs)", flush=True)
        finally:
            broker.stop()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
