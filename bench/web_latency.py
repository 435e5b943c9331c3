"""Daemon publish -> browser latency of ``tablectl web``, against a bare MQTT subscriber.

Method: a private mosquitto on a free loopback port; ``tablectl web --config`` in a child
process (the production path: tablectl.publish's adapter, PublicSync, the SSE hub, uvicorn);
in this process a paho publisher plays the daemon and publishes the retained public snapshot
open loop, one every ``--interval-ms``, with ``seq`` = message number. Two receivers run in
threads of this process: a bare paho subscriber on the state topic (the baseline: what any
display gets from the broker) and an HTTP client reading ``/events/public`` (what a browser
gets). Latency = receive time - time just before the publish call, both ``time.monotonic()``
in this process. A message the SSE hub skipped (it sends only the latest view to a slow
reader) has no SSE figure. ``--runs`` runs, a fresh server each; medians over runs.

The last line printed is one JSON object with every figure (milliseconds).

Usage: ``.venv/bin/python bench/web_latency.py [--count 300] [--interval-ms 20] [--runs 3]``
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import Broker, free_port  # noqa: E402

TOPIC = "poker/v1/tables/t01/state"
CONFIG = """deck = "deck.csv"
[table]
id = "t01"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 100
big_blind = 200
[[seats]]
number = 1
stack = 20000
[[seats]]
number = 3
stack = 20000
[[sources]]
kind = "manual"
[mqtt]
url = "mqtt://127.0.0.1:{broker}"
[journal]
path = "j.sqlite"
[web]
port = {port}
"""


def wait_port(port: int) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    raise SystemExit(f"port {port} did not open")


def snapshot(seq: int) -> bytes:
    """The retained public snapshot, as the daemon publishes it (envelope and body); the pot
    carries ``seq`` too, since a browser's view holds the body only."""
    seats = [{"seat": s, "name": n, "stack": 20000 - seq, "bet": seq % 400, "status": "active",
              "cards": [{"card": None, "up": False}] * 2, "to_act": False}
             for s, n in ((1, "Ada"), (3, "Brook"), (5, "Cy"), (8, "Dee"))]
    body = {"hand": {"id": "h", "number": 1}, "phase": "betting", "street": "flop",
            "seats": seats, "board": ["Ah", "Kd", "7c"],
            "pots": [{"amount": seq, "eligible": [1]}], "to_act": None, "last_action": None,
            "results": [], "errors": [], "devices": []}
    return json.dumps({"table": "t01", "epoch": 1, "seq": seq, "type": "snapshot",
                       "ts": "2026-11-29T18:00:00.000Z", "hand": 1, "data": body}).encode()


def client(name: str) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=name, protocol=mqtt.MQTTv5)
    return c


def one_run(count: int, interval: float, work: Path) -> dict[str, list[float]]:
    broker_port, web_port = free_port(), free_port()
    conf = work / "mosquitto.conf"
    conf.write_text(f"listener {broker_port} 127.0.0.1\nallow_anonymous true\n"
                    "set_tcp_nodelay true\npersistence false\n")
    broker = Broker("127.0.0.1", broker_port, work, conf)
    broker.start()                   # waits until it accepts connections
    cfg = work / "t01.toml"
    cfg.write_text(CONFIG.format(broker=broker_port, port=web_port))
    web = subprocess.Popen([sys.executable, "-m", "tablectl", "--log-level", "warning", "web",
                            "--config", str(cfg)], cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    sent: dict[int, float] = {}
    got_mqtt: dict[int, float] = {}
    got_sse: dict[int, float] = {}
    try:
        wait_port(web_port)
        sub = client("bench-sub")
        subscribed = threading.Event()
        sub.on_connect = lambda c, *a: c.subscribe(TOPIC, qos=0)
        sub.on_subscribe = lambda *a: subscribed.set()

        def on_message(_c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
            got_mqtt.setdefault(json.loads(msg.payload)["seq"], time.monotonic())

        sub.on_message = on_message
        sub.connect("127.0.0.1", broker_port)
        sub.loop_start()
        subscribed.wait(10)

        done = threading.Event()

        def read_sse() -> None:
            with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/events/public",
                                        timeout=30) as resp:
                for raw in resp:
                    if raw.startswith(b"data: "):
                        snap = json.loads(raw[6:])["snapshot"]
                        if snap is not None:
                            seq = snap["pots"][0]["amount"]
                            got_sse.setdefault(seq, time.monotonic())
                            if seq == count:
                                done.set()
                                return

        reader = threading.Thread(target=read_sse, daemon=True)
        reader.start()
        pub = client("bench-daemon")
        pub.connect("127.0.0.1", broker_port)
        pub.loop_start()
        time.sleep(0.5)  # both readers connected
        start = time.monotonic()
        for seq in range(1, count + 1):
            time.sleep(max(0.0, start + seq * interval - time.monotonic()))
            payload = snapshot(seq)
            sent[seq] = time.monotonic()
            pub.publish(TOPIC, payload, qos=0, retain=True)
        done.wait(10)
        pub.loop_stop()
        sub.loop_stop()
    finally:
        web.terminate()
        web.wait(15)
        broker.stop()
    return {"mqtt": [1000 * (got_mqtt[s] - sent[s]) for s in sent if s in got_mqtt],
            "sse": [1000 * (got_sse[s] - sent[s]) for s in sent if s in got_sse]}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--interval-ms", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    figures: dict[str, list[float]] = {}
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            res = one_run(args.count, args.interval_ms / 1000, Path(tmp))
        for name, values in res.items():
            if not values:
                continue
            row = {"p50": pct(values, 0.5), "p99": pct(values, 0.99), "max": max(values),
                   "delivered": len(values) / args.count}
            print(f"run {run + 1} {name:4s}: p50 {row['p50']:.2f} ms  p99 {row['p99']:.2f} ms  "
                  f"max {row['max']:.2f} ms  delivered {100 * row['delivered']:.0f}%")
            for key, value in row.items():
                figures.setdefault(f"{name}_{key}", []).append(value)
    out: dict[str, object] = {key: round(statistics.median(values), 3)
                              for key, values in figures.items()}
    sse, bare = out["sse_p50"], out["mqtt_p50"]
    assert isinstance(sse, float) and isinstance(bare, float)
    out["sse_overhead_p50_ms"] = round(sse - bare, 3)
    out.update(count=args.count, interval_ms=args.interval_ms, runs=args.runs,
               cpus=os.cpu_count())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
