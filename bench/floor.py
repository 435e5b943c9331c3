"""Floor: N tables through bridged brokers into ``tablectl floor run`` and PostgreSQL.

Method (everything on this machine, loopback only):

* a floor broker (mosquitto, TLS listener for the bridges), ``tablectl floor run`` as a child
  process, a fresh PostgreSQL database;
* ``--real`` real tables: ``tablectl run`` daemons on simulated shoes (tests/reliability
  harness), each on its own broker bridged with the shipped ``config/mosquitto/bridge.conf``;
  they play throughout. Their public stream (events and snapshots, as the floor broker
  received them) is recorded first;
* the other tables are light publishers replaying that recorded stream at a realistic pace
  (one event every ``--interval`` seconds per table on average, exponential gaps, a snapshot
  after every second event, as a daemon publishes one after each input), with their own table
  id, epoch, seq and the publish time as ``ts``; they answer ``cmd/replay`` from what they
  published. They publish to room edge brokers (one per 250 tables), each bridged to the floor
  with the shipped bridge's settings for ``poker/v1/tables/+/...`` (one bridge connection per
  edge rather than one per table);
* for each table count (``--tables 50,200,1000``) a window of ``--window`` seconds.

Figures per table count: events/s applied (sustained over the window), lag from a table's
publish (``ts``) to its event row in PostgreSQL (``received_at``, inside the batch's
transaction: the commit follows within the batch's commit time) p50/p99 in ms, rows/s (all
history tables), lost and doubled (must be 0/0), the floor service's CPU per 1,000 events,
the events per commit (how full the batches were),
and the baseline of the same run: the lag from publish to arrival at a plain MQTT subscriber
on the floor broker (p50/p99), with ``lag_p99_over_mqtt`` the ratio.

The last line printed is one JSON object with every figure.

The workers publish the seated players' statistics after every hand end (docs/floor.md) unless
``--no-stats`` (the baseline without them).

Usage: ``.venv/bin/python bench/floor.py [--tables 50,200,1000] [--window 20] [--real 2]
[--no-stats]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import heapq
import json
import os
import random
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hardware_sim.errors import DealerError  # noqa: E402
from tests.conftest import Broker, free_port  # noqa: E402
from tests.floor.conftest import create_database, database_url, drop_database  # noqa: E402
from tests.floor.stack import (  # noqa: E402
    QUEUE,
    FloorProcess,
    bridge_config,
    db_rows,
    make_pki,
    remove_pki,
)
from tests.reliability.harness import (  # noqa: E402
    AUDITOR,
    DEALER,
    VARIANTS,
    open_stack,
    poll_until,
)
from tests.security.conftest import wait_for_listener  # noqa: E402

EDGE_TABLES = 250


def start_broker(workdir: Path, extra: str = "") -> Broker:
    """A private anonymous mosquitto on a free port (plus ``extra`` config)."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = workdir / "mosquitto.conf"
    conf.write_text(f"per_listener_settings false\nlistener {port} 127.0.0.1\n"
                    "allow_anonymous true\nset_tcp_nodelay true\npersistence false\n"
                    f"log_dest stdout\nlog_type error\n{QUEUE}{extra}\n")
    broker = Broker("127.0.0.1", port, workdir, conf)
    broker.start()
    return broker


def edge_bridge(name: str, port: int, pki: Path) -> str:
    """The shipped bridge's settings for every table of a room edge broker."""
    text = bridge_config(name, port, pki)
    return text.replace(f"tables/{name}/", "tables/+/")


def client(port: int, name: str) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id=name)
    c.max_queued_messages_set(0)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def stamp() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class Recorder:
    """Records the real tables' public messages at the floor broker, in order; also the
    baseline: publish -> arrival lag of the light tables' events at a plain subscriber."""

    def __init__(self, port: int) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []
        self.mqtt_lag: list[float] = []
        self.record = True
        self.lock = threading.Lock()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                             client_id=f"rec-{uuid.uuid4().hex[:6]}")
        self.c.on_message = self._on_message
        self.c.connect("127.0.0.1", port)
        self.c.subscribe("poker/v1/tables/+/events", qos=1)
        self.c.subscribe("poker/v1/tables/+/state", qos=1)
        self.c.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        now = time.time()
        body = json.loads(msg.payload) if msg.payload else {}
        table = str(body.get("table", ""))
        with self.lock:
            if table.startswith("real") and self.record:
                self.messages.append((msg.topic.rsplit("/", 1)[1], body))
            elif table.startswith("n") and msg.topic.endswith("/events"):
                ts = datetime.fromisoformat(body["ts"]).timestamp()
                self.mqtt_lag.append(now - ts)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


class LightTables:
    """Light publishers for ``tables`` on one edge broker (one thread, one connection)."""

    def __init__(self, port: int, tables: list[str], script: list[tuple[str, dict[str, Any]]],
                 interval: float, seed: int) -> None:
        self.tables = tables
        self.script = script
        self.interval = interval
        self.rng = random.Random(seed)
        self.log: dict[str, list[dict[str, Any]]] = {t: [] for t in tables}
        self.pos = {t: self.rng.randrange(len(script)) for t in tables}
        self.epoch = {t: f"{t}-{uuid.uuid4().hex[:6]}" for t in tables}
        self.published = 0
        self.stop = threading.Event()
        self.c = client(port, f"light-{uuid.uuid4().hex[:6]}")
        self.c.on_message = self._on_replay
        self.c.subscribe("poker/v1/tables/+/cmd/replay/+", qos=1)
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        heap = [(time.monotonic() + self.rng.expovariate(1 / self.interval), t)
                for t in self.tables]
        heapq.heapify(heap)
        while not self.stop.is_set():
            due, table = heap[0]
            wait = due - time.monotonic()
            if wait > 0:
                self.stop.wait(min(wait, 0.05))
                continue
            heapq.heapreplace(heap, (due + self.rng.expovariate(1 / self.interval), table))
            self._next(table)

    def _next(self, table: str) -> None:
        log = self.log[table]
        while True:
            kind, body = self.script[self.pos[table] % len(self.script)]
            self.pos[table] += 1
            body = {k: v for k, v in body.items() if k != "journal"}  # the run is the epoch
            if kind == "events":
                ev = {**body, "table": table, "epoch": self.epoch[table], "seq": len(log) + 1,
                      "ts": stamp(), "hand": body.get("hand")}
                log.append(ev)
                self.c.publish(f"poker/v1/tables/{table}/events", json.dumps(ev), qos=1)
                self.published += 1
                if len(log) % 2 == 0:
                    snap = {**self._snapshot(), "table": table, "epoch": self.epoch[table],
                            "seq": len(log), "ts": stamp()}
                    self.c.publish(f"poker/v1/tables/{table}/state", json.dumps(snap), qos=1,
                                   retain=True)
                return

    def _snapshot(self) -> dict[str, Any]:
        for kind, body in self.script:
            if kind == "state":
                return {k: v for k, v in body.items() if k != "journal"}
        return {"v": 1, "type": "snapshot", "hand": None, "data": {}}

    def _on_replay(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        table = msg.topic.split("/")[3]
        args = json.loads(msg.payload).get("args", {})
        events = [{k: e[k] for k in ("epoch", "seq", "type", "ts", "data")}
                  for e in self.log.get(table, [])
                  if args.get("from_seq", 1) <= e["seq"] <= args.get("to_seq", 0)]
        props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        props.CorrelationData = msg.properties.CorrelationData  # type: ignore[union-attr]
        reply = {"v": 1, "id": json.loads(msg.payload)["id"], "status": "ok",
                 "data": {"events": events}}
        self.c.publish(msg.properties.ResponseTopic, json.dumps(reply),  # type: ignore[union-attr]
                       qos=1, properties=props)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.c.disconnect()
        self.c.loop_stop()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_level(n: int, args: argparse.Namespace, edges: list[Broker], *,
                    script: list[tuple[str, dict[str, Any]]], recorder: Recorder,
                    db: str, services: list[FloorProcess]) -> dict[str, Any]:
    light = n - args.real
    names = [f"n{n}-{i:04d}" for i in range(light)]
    groups = [names[i::len(edges)] for i in range(len(edges))]
    pubs = [LightTables(edges[i % len(edges)].port, g, script, args.interval, seed=n + i)
            for i, g in enumerate(groups) if g]
    recorder.mqtt_lag.clear()
    like = f"n{n}-%"
    pids = [s.proc.pid for s in services if s.proc is not None]
    for p in pubs:
        p.thread.start()
    await asyncio.sleep(min(5.0, args.window / 4))          # warm up
    start = datetime.now(UTC)
    count0 = db_rows(db, "SELECT count(*) FROM events")[0][0]
    rows0 = total_rows(db)
    cpu0, t0 = sum(map(cpu_seconds, pids)), time.monotonic()
    await asyncio.sleep(args.window)
    elapsed = time.monotonic() - t0
    cpu = sum(map(cpu_seconds, pids)) - cpu0
    count1 = db_rows(db, "SELECT count(*) FROM events")[0][0]
    rows1 = total_rows(db)
    for p in pubs:
        p.close()
    published = {(t, e["epoch"], e["seq"]) for p in pubs for t, log in p.log.items()
                 for e in log}
    with contextlib.suppress(TimeoutError):
        await poll_until(lambda: db_rows(db, "SELECT count(*) FROM events WHERE table_id "
                                         "LIKE %s", (like,))[0][0] >= len(published), 60, 0.5)
    stored = db_rows(db, "SELECT table_id, epoch, seq FROM events WHERE table_id LIKE %s",
                     (like,))
    lags = [float(r[0]) for r in db_rows(
        db, "SELECT extract(epoch FROM received_at - ts) FROM events WHERE table_id LIKE %s "
            "AND ts >= %s AND ts < %s", (like, start, datetime.now(UTC)))]
    # the events of one transaction share its xmin: how full the worker's batches were
    per_commit = db_rows(db, "SELECT count(*)::float / greatest(count(DISTINCT xmin::text), 1) "
                             "FROM events WHERE ts >= %s AND ts < %s", (start, datetime.now(UTC)))
    doubled = db_rows(db, "SELECT coalesce(sum(c - 1), 0) FROM (SELECT count(*) AS c FROM "
                          "hands WHERE table_id LIKE %s GROUP BY table_id, epoch, name) x",
                      (like,))[0][0]
    applied = count1 - count0
    mqtt_p99 = pct(recorder.mqtt_lag, 0.99)
    return {
        "tables": n, "events_published": len(published),
        "events_per_s": round(applied / elapsed, 1),
        "lag_p50_ms": round(pct(lags, 0.5) * 1000, 2),
        "lag_p99_ms": round(pct(lags, 0.99) * 1000, 2),
        "mqtt_p50_ms": round(pct(recorder.mqtt_lag, 0.5) * 1000, 2),
        "mqtt_p99_ms": round(mqtt_p99 * 1000, 2),
        "lag_p99_over_mqtt": round(pct(lags, 0.99) / mqtt_p99, 2) if mqtt_p99 else None,
        "rows_per_s": round((rows1 - rows0) / elapsed, 1),
        "lost": len(published - {tuple(r) for r in stored}), "doubled": int(doubled),
        "cpu_ms_per_1000_events": round(cpu / max(applied, 1) * 1e6, 1),
        "events_per_commit": round(float(per_commit[0][0] or 0), 1),
    }


def total_rows(db: str) -> int:
    return int(db_rows(db, "SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM hands)"
                           " + (SELECT count(*) FROM actions) + (SELECT count(*) FROM boards) + "
                           "(SELECT count(*) FROM pots) + (SELECT count(*) FROM showdowns) + "
                           "(SELECT count(*) FROM winners)")[0][0])


async def bench(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    pki = make_pki()
    db_name = create_database("floor_bench")
    db = database_url(db_name)
    tls_port = free_port()
    floor = start_broker(work / "floor", f"listener {tls_port} 127.0.0.1\n"
                         f"cafile {pki}/certs/ca.crt\ncertfile {pki}/certs/server.crt\n"
                         f"keyfile {pki}/certs/server.key\ntls_version tlsv1.2\n")
    wait_for_listener("127.0.0.1", tls_port, floor)
    extra = ("--no-stats",) if args.no_stats else ()
    service = FloorProcess(floor.port, db, work / "floor.log", user=AUDITOR, extra=extra)
    service.start()
    others = [FloorProcess(floor.port, db, work / f"floor{i}.log", user=user, extra=extra)
              for i, user in enumerate((DEALER,)[:args.workers - 1])]
    for other in others:
        other.start()
    recorder = Recorder(floor.port)
    brokers: list[Broker] = [floor]
    try:
        edges = [start_broker(work / f"edge{i}", edge_bridge(f"edge{i}", tls_port, pki))
                 for i in range(max(1, min(4, -(-max(args.tables) // EDGE_TABLES))))]
        brokers += edges
        async with contextlib.AsyncExitStack() as stack:
            stacks = []
            for i in range(args.real):
                name = f"real{i + 1}"
                tb = start_broker(work / name / "broker", bridge_config(name, tls_port, pki))
                brokers.append(tb)
                variant, structure, stakes = VARIANTS[i % 2 + 1]
                stacks.append(await stack.enter_async_context(open_stack(
                    work / name, tb.host, tb.port, variant=variant, structure=structure,
                    stakes=stakes, seed=i + 1, table=name, stacks=(10**6,) * 4)))
            stop = asyncio.Event()

            async def play(s: Any) -> None:
                with contextlib.suppress(DealerError):      # a table whose players went broke
                    while not stop.is_set():
                        await s.dealer.play_hand()
            for s in stacks:                                    # the recording
                await s.dealer.play_hand()
            await asyncio.sleep(1.0)
            with recorder.lock:
                recorder.record = False
                script = list(recorder.messages)
            if not any(k == "events" for k, _ in script):
                raise RuntimeError("nothing recorded from the real tables")
            players = [asyncio.create_task(play(s)) for s in stacks]
            levels = [await run_level(n, args, edges, script=script, recorder=recorder,
                                      db=db, services=[service, *others])
                      for n in args.tables]
            stop.set()
            await asyncio.wait(players, timeout=60)
    finally:
        recorder.close()
        service.stop()
        for other in others:
            other.stop()
        for b in reversed(brokers):
            b.stop()
        drop_database(db_name)
        remove_pki(pki)
    return {"levels": levels, "recorded_messages": len(script), "workers": args.workers,
            "stats": not args.no_stats}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="50,200,1000",
                        type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--window", type=float, default=20.0, help="seconds measured per level")
    parser.add_argument("--interval", type=float, default=2.0,
                        help="mean seconds between two events of one light table")
    parser.add_argument("--real", type=int, default=2, help="real daemons")
    parser.add_argument("--workers", type=int, default=1, choices=(1, 2),
                        help="floor service workers sharing the tables")
    parser.add_argument("--no-stats", action="store_true",
                        help="run the workers with --no-stats (no player statistics published "
                             "after each hand end), for a baseline")
    args = parser.parse_args()
    if args.real < 1 or min(args.tables) <= args.real:
        parser.error("--real must be at least 1 and below every table count")
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp:
        figures = asyncio.run(bench(args, Path(tmp)))
    for level in figures["levels"]:
        print(f"{level['tables']:>5} tables: {level['events_per_s']:>7} events/s, lag p50 "
              f"{level['lag_p50_ms']} ms p99 {level['lag_p99_ms']} ms (MQTT alone p99 "
              f"{level['mqtt_p99_ms']} ms), {level['rows_per_s']} rows/s, lost "
              f"{level['lost']} doubled {level['doubled']}, "
              f"{level['cpu_ms_per_1000_events']} CPU ms per 1000 events, "
              f"{level['events_per_commit']} events per commit")
    flat: dict[str, Any] = {"recorded_messages": figures["recorded_messages"],
                            "workers": figures["workers"], "stats": figures["stats"]}
    for level in figures["levels"]:
        for key, value in level.items():
            if key != "tables":
                flat[f"t{level['tables']}_{key}"] = value
    last = figures["levels"][-1]
    flat.update(lag_p99_ms=last["lag_p99_ms"], events_per_s=last["events_per_s"],
                lost=sum(lv["lost"] for lv in figures["levels"]),
                doubled=sum(lv["doubled"] for lv in figures["levels"]))
    print(json.dumps(flat))


if __name__ == "__main__":
    main()
