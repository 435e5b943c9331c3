"""Card read on the shoe's pty -> the matching event at an MQTT subscriber, against the floor.

Method: a private mosquitto on a free loopback port (``set_tcp_nodelay true``); in this process
a simulated RFID shoe served on a real pty (``hardware_sim.serve.PtyDevice``, the wire protocol
a real shoe speaks) and ``tablectl run --config`` as a child process reading it with pyserial
(no camera source). A paho console (TCP_NODELAY) starts hold'em hands at ten seats; a paho
subscriber on the events topic, in a process of its own as a display would be, timestamps
every message. Each sample is one hole card: the time just before the simulator writes the
frame of the read on the pty master to the arrival of that card's ``cards_dealt`` event at the
subscriber, both ``time.monotonic_ns()`` (CLOCK_MONOTONIC, one clock for every process on
Linux). The subscriber has its own process so that the simulated
shoe, which runs in this one, never holds the GIL the subscriber needs to take a message.
One read at a time, ``--gap-ms`` apart so the daemon has published the snapshot of the
previous read; after twenty hole cards the console folds the hand away and starts the next one.

Floor, in the same run and on the same broker: a bare paho QoS 1 publish (from this process)
of a same-sized payload to the same subscriber process (publish call -> on_message),
``--samples`` times.

The journal is where a table keeps it: a file in a temporary directory on the default file
system (``synchronous=FULL``: one fsync per input). ``--journal-dir /dev/shm`` shows the daemon
without the disk. Peak RSS is ``VmHWM`` of the daemon process from /proc after the run.

Targets (issue 6): p99 <= 3 ms; p50 <= 4x the floor's p50; daemon peak RSS <= 80 MB.
The last line printed is one JSON object with the figures (milliseconds, MB) of this run.

``--metrics`` turns the daemon's Prometheus metrics on (``[metrics] port``; a scrape at the end
checks that every read was counted): run it alternately with and without (or with
``--daemon-rev`` of a daemon before the metrics) to see what counting costs the read path.

``--daemon-rev REV`` runs the daemon of git revision ``REV`` (extracted with ``git archive``
into a temporary directory; everything else, the simulator and the clients included, is the
working tree's): run it alternately with and without to compare two daemons on one machine.

``--odds off|on|both`` turns the daemon's live odds (docs/odds.md) off (the default) or on, or
runs the bench once with each (odds off first) and prints the growth of the read p50; the JSON
line then holds both runs (``odds_off``, ``odds_on``) beside the first run's figures.

Usage: ``.venv/bin/python bench/latency.py [--samples 400] [--gap-ms 15]
[--journal-dir DIR] [--daemon-rev REV] [--metrics] [--dump FILE] [--odds off|on|both]``
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import uuid
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from firmware_bridge.frames import Frame, FrameDecoder
from firmware_bridge.messages import MessageType
from hardware_sim.devices import SimShoe
from hardware_sim.serve import PtyDevice
from tablectl.clock import SystemClock
from tablectl.domain.deck import Deck

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import Broker, free_port  # noqa: E402

TABLE = "bench"
USER = "dealer-bench"
SEATS = 10
CONFIG = """deck = "{root}/config/decks/demo-red.csv"
button = 1
[table]
id = "{table}"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 50
big_blind = 100
{seats}
[[sources]]
kind = "rfid-shoe"
name = "shoe"
url = "{pty}"
[access.roles]
{user} = "dealer"
[mqtt]
url = "mqtt://127.0.0.1:{port}"
[journal]
path = "{journal}"
{odds}"""


def nodelay(_client: mqtt.Client, _userdata: object, sock: object) -> None:
    if isinstance(sock, socket.socket):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def client(name: str) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=name, protocol=mqtt.MQTTv5)
    c.on_socket_open = nodelay
    return c


SUBSCRIBER = """
import json, socket, sys, time
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
port, table = int(sys.argv[1]), sys.argv[2]
def on_socket_open(_c, _u, sock):
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
def on_message(_c, _u, msg):
    now = time.monotonic_ns()
    body = json.loads(msg.payload)
    if msg.topic == "bench/floor":
        line = f"F {now} {body['n']}"
    elif msg.topic.endswith("/status"):
        line = f"S {now} {body.get('state')}"
    elif msg.topic.endswith("/odds"):
        line = f"O {now} {len(body['data'].get('players', []))}"
    else:
        line = f"E {now} {body.get('type')} {len(msg.payload)}"
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()
def on_subscribe(*_a):
    sys.stdout.write("READY 0 0\\n")
    sys.stdout.flush()
c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-sub", protocol=mqtt.MQTTv5)
c.on_socket_open, c.on_message, c.on_subscribe = on_socket_open, on_message, on_subscribe
c.connect("127.0.0.1", port)
c.subscribe([(f"poker/v1/tables/{table}/events", 1), ("bench/floor", 1),
             (f"poker/v1/tables/{table}/status", 1), (f"secure/v1/tables/{table}/odds", 1)])
c.loop_forever()
"""


class Subscriber:
    """A paho subscriber in a child process; it timestamps every message on the table's
    events topic, its status topic and the floor topic (``time.monotonic_ns()``)."""

    def __init__(self, port: int) -> None:
        self.cond = threading.Condition()
        self.events: list[tuple[float, str]] = []
        self.sizes: list[int] = []
        self.floor: dict[int, float] = {}
        self.odds = 0                   # odds messages with figures (odds on: proof of work)
        self.online = threading.Event()
        ready = threading.Event()
        self.proc = subprocess.Popen([sys.executable, "-c", SUBSCRIBER, str(port), TABLE],
                                     stdout=subprocess.PIPE, text=True)
        self._ready = ready
        threading.Thread(target=self._read, daemon=True).start()
        if not ready.wait(10):
            raise SystemExit("subscriber: no SUBACK")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            kind, stamp, what = line.split(" ", 2)
            what = what.strip()
            at = int(stamp) / 1e6               # ms
            with self.cond:
                if kind == "READY":
                    self._ready.set()
                elif kind == "F":
                    self.floor[int(what)] = at
                elif kind == "S":
                    if what == "online":
                        self.online.set()
                elif kind == "O":
                    self.odds += int(what) > 0
                else:
                    kind, size = what.split()
                    self.events.append((at, kind))
                    self.sizes.append(int(size))
                self.cond.notify_all()

    def wait_event(self, start: int, kind: str, timeout: float = 5.0) -> tuple[float, int]:
        """The arrival time (ms) and index of the first event of ``kind`` at or after
        ``start``."""
        found: list[tuple[float, int]] = []

        def check() -> bool:
            for i in range(start, len(self.events)):
                if self.events[i][1] == kind:
                    found.append((self.events[i][0], i))
                    return True
            return False

        with self.cond:
            if not self.cond.wait_for(check, timeout):
                raise SystemExit("no matching event arrived")
        return found[0]

    def wait_odds(self, seen: int, timeout: float) -> bool:
        """Wait until more than ``seen`` odds messages with figures have come."""
        with self.cond:
            return self.cond.wait_for(lambda: self.odds > seen, timeout)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


class Console:
    """Dealer commands over MQTT 5 request/response; waits for each reply."""

    def __init__(self, port: int) -> None:
        self.cond = threading.Condition()
        self.replies: dict[str, dict[str, object]] = {}
        self.client = client(USER)
        self.reply_topic = f"poker/v1/replies/{USER}/bench"
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(self.reply_topic, qos=1)
        self.client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        body = json.loads(msg.payload)
        with self.cond:
            self.replies[str(body["id"])] = body
            self.cond.notify_all()

    def send(self, name: str, args: dict[str, object] | None = None) -> dict[str, object]:
        cid = uuid.uuid4().hex
        props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        props.ResponseTopic = self.reply_topic
        props.CorrelationData = cid.encode()
        # the same id again is idempotent: resend while the daemon may still be subscribing
        for _ in range(10):
            self.client.publish(f"poker/v1/tables/{TABLE}/cmd/{name}/{USER}",
                                json.dumps({"v": 1, "id": cid, "args": args or {}}), qos=1,
                                properties=props)
            with self.cond:
                if self.cond.wait_for(lambda: cid in self.replies, 2):
                    break
        with self.cond:
            if cid not in self.replies:
                raise SystemExit(f"no reply to {name}")
            reply = self.replies[cid]
        if reply["status"] != "ok":
            raise SystemExit(f"{name} {args}: {reply}")
        return reply

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def daemon_tree(rev: str | None, work: Path) -> Path:
    """Where the daemon's ``tablectl`` comes from: this tree, or ``rev`` extracted."""
    if rev is None:
        return ROOT
    tree = work / "daemon-tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise SystemExit("no VmHWM")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class TimedWrites:
    """Times every write of the simulated shoe on the pty master (``time.monotonic_ns()``,
    taken just before the write), to find the one that carries a read."""

    def __init__(self, device: PtyDevice) -> None:
        link = device._link  # bench only: timestamp the device's own write
        assert link is not None
        self.writes: list[tuple[float, bytes]] = []
        real_write = link.write

        async def timed_write(data: bytes) -> None:
            self.writes.append((time.monotonic_ns() / 1e6, data))
            await real_write(data)

        link.write = timed_write  # type: ignore[method-assign]

    def read_written(self) -> float:
        """When the first TAG_SEEN frame since the last call was written (ms)."""
        decoder = FrameDecoder()
        try:
            for at, data in self.writes:
                if any(isinstance(f, Frame) and f.type == MessageType.TAG_SEEN
                       for f in decoder.feed(data)):
                    return at
        finally:
            self.writes.clear()
        raise SystemExit("no TAG_SEEN frame was written")


async def measure_reads(shoe: SimShoe, wire: TimedWrites, sub: Subscriber, console: Console,
                        *, samples: int, gap: float, odds: bool = False) -> list[float]:
    """Card read -> cards_dealt latencies (ms), hands of ten seats folded after the deal.

    ``odds``: after the deal, wait (up to 5 s) for the daemon's odds of the ten hands before
    folding, as a table's betting would; the positions of the folds are then valued while
    the next hand is being dealt."""
    out: list[float] = []
    while len(out) < samples:
        if shoe.remaining < 2 * SEATS:
            raise SystemExit("the shoe ran out")  # a fresh shoe is loaded per hand below
        await asyncio.to_thread(console.send, "start_hand")
        for _ in range(2 * SEATS):
            await asyncio.sleep(gap)
            mark = len(sub.events)
            wire.writes.clear()             # forget what was written before this read
            shoe.draw()
            arrived, _ = await asyncio.to_thread(sub.wait_event, mark, "cards_dealt")
            out.append(arrived - wire.read_written())
        if odds:
            await asyncio.to_thread(sub.wait_odds, sub.odds, 5.0)
        # fold everyone but the big blind: seats act in turn from the one to act
        for _ in range(SEATS - 1):
            await asyncio.to_thread(console.send, "action", {"kind": "fold"})
        await asyncio.to_thread(console.send, "next_hand")
        shoe.new_shoe()
    return out[:samples]


def measure_floor(port: int, sub: Subscriber, samples: int, gap: float,
                  size: int) -> list[float]:
    """Bare paho QoS 1 publish -> receive on the same broker and subscriber (ms)."""
    pub = client(f"bench-pub-{uuid.uuid4().hex[:6]}")
    pub.connect("127.0.0.1", port)
    pub.loop_start()
    sent: dict[int, float] = {}
    try:
        for n in range(samples):
            time.sleep(gap)
            payload = json.dumps({"n": n, "pad": "x" * max(0, size - 20)})
            sent[n] = time.monotonic_ns() / 1e6
            pub.publish("bench/floor", payload, qos=1)
            with sub.cond:
                if not sub.cond.wait_for(lambda: n in sub.floor, 5):  # noqa: B023 (waits here)
                    raise SystemExit("floor message lost")
    finally:
        pub.disconnect()
        pub.loop_stop()
    return [sub.floor[n] - sent[n] for n in sent]


async def run(args: argparse.Namespace, work: Path,
              odds: bool | None = None) -> tuple[list[float], list[float], float, int]:
    """The read latencies and the floor's, in order (ms), the daemon's peak RSS (MB) and the
    number of odds messages with figures the subscriber got.

    ``odds``: the daemon's live odds on or off (``[odds] enabled``); None writes no ``[odds]``
    section (a ``--daemon-rev`` from before live odds knows none)."""
    port = free_port()
    conf = work / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
                    "persistence false\n")
    broker = Broker("127.0.0.1", port, work, conf)
    broker.start()                     # set-up, unmeasured: waits until it accepts connections
    clock = SystemClock()
    deck = Deck.load(ROOT / "config/decks/demo-red.csv")
    shoe = SimShoe(deck, clock=clock, seed=1)
    pty = work / "shoe"
    journal_dir = Path(tempfile.mkdtemp(dir=args.journal_dir))
    metrics_port = free_port() if args.metrics else 0
    daemon: subprocess.Popen[bytes] | None = None
    try:
        seats = "\n".join(f"[[seats]]\nnumber = {i}\nname = \"P{i}\"\nstack = 100000\n"
                          for i in range(1, SEATS + 1))
        cfg = work / "table.toml"
        cfg.write_text(CONFIG.format(
            root=ROOT, table=TABLE, seats=seats, pty=pty, user=USER, port=port,
            journal=journal_dir / "journal.sqlite",
            odds="" if odds is None else f"[odds]\nenabled = {str(odds).lower()}\n")
                       + (f"[metrics]\nport = {metrics_port}\n" if metrics_port else ""))
        async with PtyDevice(shoe, pty, clock=clock) as device:
            wire = TimedWrites(device)
            sub = Subscriber(port)
            tree = daemon_tree(args.daemon_rev, work)
            daemon = subprocess.Popen(  # noqa: ASYNC220 (set-up, before any measurement)
                [sys.executable, "-m", "tablectl", "--log-level", "warning", "run",
                 "--config", str(cfg)], cwd=tree, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(tree)})
            console = Console(port)
            try:
                # the daemon imports, recovers, connects (its birth), opens the shoe
                if not await asyncio.to_thread(sub.online.wait, 60):
                    raise SystemExit("the daemon never came online")
                await asyncio.sleep(0.5)
                # warm-up hand (imports, first snapshots), not measured
                await measure_reads(shoe, wire, sub, console, samples=2 * SEATS,
                                    gap=args.gap_ms / 1000, odds=bool(odds))
                reads = await measure_reads(shoe, wire, sub, console, samples=args.samples,
                                            gap=args.gap_ms / 1000, odds=bool(odds))
                size = sorted(sub.sizes)[len(sub.sizes) // 2]
                floor = await asyncio.to_thread(measure_floor, port, sub, args.samples,
                                                args.gap_ms / 1000, size)
                rss = vm_hwm_mb(daemon.pid)
                odds_seen = sub.odds
                if metrics_port:
                    counted = await asyncio.to_thread(scraped_reads, metrics_port)
                    if counted < args.samples:
                        raise SystemExit(f"the metrics counted {counted} reads, not "
                                         f"{args.samples}")
            finally:
                console.close()
                sub.close()
    finally:
        if daemon is not None:
            daemon.terminate()
            try:
                daemon.wait(30)
            except subprocess.TimeoutExpired:   # a loaded machine: the figures still stand
                print("the daemon did not stop within 30 s of SIGTERM: killed",
                      file=sys.stderr)
                daemon.kill()
                daemon.wait(10)
        broker.stop()
        shutil.rmtree(journal_dir, ignore_errors=True)
    return reads, floor, rss, odds_seen


def scraped_reads(port: int) -> float:
    """Accepted shoe reads on the daemon's /metrics."""
    from urllib.request import urlopen

    from prometheus_client.parser import text_string_to_metric_families

    with urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    return sum(s.value for fam in text_string_to_metric_families(text) for s in fam.samples
               if s.name == "tablectl_reads_total" and s.labels.get("result") == "accepted")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--gap-ms", type=float, default=15.0)
    parser.add_argument("--journal-dir", default=None,
                        help="where the journal goes (default: the system temp directory)")
    parser.add_argument("--daemon-rev", default=None,
                        help="run the daemon of this git revision (default: the working tree)")
    parser.add_argument("--metrics", action="store_true",
                        help="turn the daemon's Prometheus metrics on")
    parser.add_argument("--dump", default=None,
                        help="also write every sample (ms, in order) to this JSON file")
    parser.add_argument("--odds", choices=["off", "on", "both"], default="off",
                        help="the daemon's live odds (both: a run with each, odds off first)")
    args = parser.parse_args()
    modes = {"off": [False], "on": [True], "both": [False, True]}[args.odds]
    runs: dict[bool, dict[str, object]] = {}
    for odds in modes:
        with tempfile.TemporaryDirectory() as tmp:
            reads, floor, rss, odds_seen = asyncio.run(
                run(args, Path(tmp), None if args.daemon_rev else odds))
        if args.dump:
            dump = Path(args.dump)
            if len(modes) > 1:
                dump = dump.with_name(f"{dump.stem}-odds-{'on' if odds else 'off'}{dump.suffix}")
            dump.write_text(json.dumps({"reads": reads, "floor": floor}))
        if len(modes) > 1:
            print(f"--- odds {'on' if odds else 'off'}")
        runs[odds] = figures(args, reads, floor, rss)
        runs[odds]["odds_messages"] = odds_seen
        print(f"odds messages with figures: {odds_seen}")
    out = dict(runs[modes[0]])
    out["odds"] = args.odds
    if len(modes) > 1:
        on, off = runs[True], runs[False]
        out.update(odds_off=off, odds_on=on)
        growth = float(on["read_p50"]) - float(off["read_p50"])  # type: ignore[arg-type]
        out["odds_p50_growth_ms"] = round(growth, 3)
        print(f"card read p50 with odds on - off: {growth:+.3f} ms (target <= 0.2 ms)")
    print(json.dumps(out))


def figures(args: argparse.Namespace, reads: list[float], floor: list[float],
            rss: float) -> dict[str, object]:
    """Print one run's figures; return them as the JSON line's fields."""
    fig = {"read_p50": pct(reads, 0.5), "read_p99": pct(reads, 0.99), "read_max": max(reads),
           "floor_p50": pct(floor, 0.5), "floor_p99": pct(floor, 0.99), "rss_peak_mb": rss}
    ratio = fig["read_p50"] / fig["floor_p50"]
    print(f"card read -> cards_dealt: p50 {fig['read_p50']:.2f} ms  p99 {fig['read_p99']:.2f} ms"
          f"  max {fig['read_max']:.2f} ms  ({args.samples} reads)")
    print(f"floor (paho QoS 1 publish -> receive): p50 {fig['floor_p50']:.2f} ms  "
          f"p99 {fig['floor_p99']:.2f} ms")
    print(f"p50 / floor p50 = {ratio:.1f}x (target <= 4x); p99 target <= 3 ms: "
          f"{'met' if fig['read_p99'] <= 3 else 'NOT met'}")
    print(f"daemon peak RSS (VmHWM, no camera): {fig['rss_peak_mb']:.1f} MB (target <= 80 MB)")
    out: dict[str, object] = {k: round(v, 3) for k, v in fig.items()}
    out.update(p50_over_floor=round(ratio, 2), samples=args.samples, gap_ms=args.gap_ms,
               journal_dir=args.journal_dir or tempfile.gettempdir(), cpus=os.cpu_count(),
               daemon_rev=args.daemon_rev or "working tree", metrics=args.metrics)
    return out


if __name__ == "__main__":
    main()
