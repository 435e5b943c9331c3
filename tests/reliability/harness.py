"""The full stack for fault tests and bench/soak.py: a private mosquitto, the daemon as a child
process (``python -m tablectl run``), a simulated shoe served on a real pty behind a stable
symlink, a SimDealer driving hands through the shoe and a retrying MQTT console, and readers of
the daemon's journal.

Nothing here asserts; tests and the bench decide what the figures mean.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import secrets
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from firmware_bridge.messages import Message, TagSeen
from hardware_sim.dealer import SimDealer
from hardware_sim.devices import SimDevice, SimShoe
from hardware_sim.faults import FaultPlan
from hardware_sim.ports import ServedPorts
from hardware_sim.strategies import RandomStrategy
from hardware_sim.turns import Turn
from tablectl.app import initial_state, table_setup
from tablectl.clock import SystemClock
from tablectl.config import TableConfig, load_config
from tablectl.controller import HandController
from tablectl.controller.inputs import input_from_json
from tablectl.domain.deck import Deck
from tablectl.game import SeatSetup
from tablectl.publish import topics
from tablectl.publish.base import MessageProps
from tablectl.publish.errors import PublishError
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tests.conftest import Broker

ROOT = Path(__file__).resolve().parents[2]
TABLE = "rel"
DEALER = "dealer-rel"
AUDITOR = "audit-rel"

VARIANTS: tuple[tuple[str, str, dict[str, int]], ...] = (
    ("holdem", "fixed-limit", {"small_blind": 100, "big_blind": 200, "small_bet": 200,
                               "big_bet": 400}),
    ("holdem", "no-limit", {"small_blind": 100, "big_blind": 200}),
    ("holdem-hi-lo", "fixed-limit", {"small_blind": 100, "big_blind": 200, "small_bet": 200,
                                     "big_bet": 400}),
    ("omaha", "pot-limit", {"small_blind": 100, "big_blind": 200}),
    ("omaha-hi-lo", "fixed-limit", {"small_blind": 100, "big_blind": 200, "small_bet": 200,
                                    "big_bet": 400}),
    ("stud", "fixed-limit", {"ante": 25, "bring_in": 50, "small_bet": 200, "big_bet": 400}),
    ("stud-hi-lo", "fixed-limit", {"ante": 25, "bring_in": 50, "small_bet": 200,
                                   "big_bet": 400}),
    ("razz", "fixed-limit", {"ante": 25, "bring_in": 50, "small_bet": 200, "big_bet": 400}),
)
STACKS = (3000, 2500, 1800, 5000)


def write_config(workdir: Path, broker_url: str, variant: str, structure: str,
                 stakes: Mapping[str, int], *, stacks: tuple[int, ...] = STACKS,
                 table: str = TABLE, extra: str = "") -> Path:
    """A table config: one RFID shoe at ``workdir/dev/shoe``, the journal in ``workdir``;
    ``extra`` (TOML tables, e.g. ``[tournament]``) is appended."""
    stake_lines = "\n".join(f"{k} = {v}" for k, v in stakes.items())
    seats = "\n".join(f"[[seats]]\nnumber = {i + 1}\nname = \"P{i + 1}\"\nstack = {s}\n"
                      for i, s in enumerate(stacks))
    text = f"""
deck = "{ROOT}/config/decks/demo-red.csv"
other_decks = ["{ROOT}/config/decks/demo-blue.csv"]
button = 1
[table]
id = "{table}"
[game]
variant = "{variant}"
structure = "{structure}"
[game.stakes]
{stake_lines}
{seats}
[[sources]]
kind = "rfid-shoe"
name = "shoe"
url = "{workdir}/dev/shoe"
[access.roles]
{DEALER} = "floor"
{AUDITOR} = "floor"
[mqtt]
url = "{broker_url}"
[journal]
path = "{workdir}/journal.sqlite"
{extra}"""
    (workdir / "dev").mkdir(parents=True, exist_ok=True)
    path = workdir / "table.toml"
    path.write_text(text)
    return path


# ---- the daemon as a child process -------------------------------------------------------


class DaemonProcess:
    """``python -m tablectl run --config FILE`` as a child; :meth:`kill` is a SIGKILL."""

    def __init__(self, config: Path, log: Path) -> None:
        self.config = config
        self.log_path = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills = 0

    def start(self) -> None:
        """Start a new daemon process (the previous one must be dead)."""
        log: IO[bytes] = self.log_path.open("ab")
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tablectl", "--log-level", "info", "run",
             "--config", str(self.config)],
            stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
        log.close()
        self.starts += 1

    def kill(self) -> None:
        """SIGKILL the daemon and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
            self.kills += 1

    def stop(self) -> None:
        """SIGTERM (then SIGKILL) the daemon."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    @property
    def alive(self) -> bool:
        """The process runs."""
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n: int = 40) -> str:
        """The last ``n`` lines the daemon logged."""
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])


# ---- the dealer's console: retries with the same id --------------------------------------


class RetryingConsole:
    """The daemon's MQTT command API as a :class:`hardware_sim.dealer.Console` that a dealer
    uses across daemon and broker crashes: when no reply comes within ``attempt`` seconds the
    same command (same ``id``) is sent again, until ``deadline``; the controller answers a
    repeated id with its first reply. Replies are returned in the dealer's form ``{"id",
    "ok", "result" | "error"}`` (the daemon's ``status`` is kept too).

    Attributes:
        retries: commands sent again. commands: (name, args, reply) of every command.
    """

    def __init__(self, broker_host: str, broker_port: int, *, table: str = TABLE,
                 user: str = DEALER, attempt: float = 1.0, deadline: float = 60.0) -> None:
        self._settings = MqttSettings(host=broker_host, port=broker_port,
                                      client_id=f"{user}-{secrets.token_hex(3)}", username=user,
                                      session_expiry=0, reconnect_min=1, reconnect_max=1)
        self._client = MqttPublisher(self._settings, wait_connected=False)
        self.table = table
        self.user = user
        self.attempt = attempt
        self.deadline = deadline
        self.reply_topic = topics.reply(user, f"rel-{secrets.token_hex(3)}")
        self._pending: dict[bytes, asyncio.Future[bytes]] = {}
        self._ids = itertools.count(1)
        self._token = secrets.token_hex(3)
        self._task: asyncio.Task[None] | None = None
        self.retries = 0
        self.commands: list[tuple[str, dict[str, object], Mapping[str, object]]] = []

    async def __aenter__(self) -> RetryingConsole:
        await self._client.__aenter__()
        await self._client.subscribe(self.reply_topic.value, qos=1)
        self._task = asyncio.create_task(self._read())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._client.__aexit__(None, None, None)

    async def _read(self) -> None:
        async for msg in self._client.messages():
            corr = msg.props.correlation_data
            fut = self._pending.get(corr) if corr is not None else None
            if fut is not None and not fut.done():
                fut.set_result(msg.payload)

    async def raw(self, name: str, args: Mapping[str, object], *, cmd_id: str | None = None,
                  extra: Mapping[str, object] | None = None) -> dict[str, Any]:
        """Send ``name`` (retrying) and return the daemon's reply as it is."""
        cid = cmd_id or f"rel-{self._token}-{next(self._ids)}"
        corr = cid.encode()
        payload = json.dumps({"id": cid, "args": dict(args), **(extra or {})}).encode()
        fut: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._pending[corr] = fut
        give_up = time.monotonic() + self.deadline
        first = True
        try:
            while True:
                if not first:
                    self.retries += 1
                first = False
                with contextlib.suppress(PublishError, TimeoutError):   # resent below
                    async with asyncio.timeout(self.attempt):
                        await self._client.publish(
                            topics.cmd(self.table, name, self.user), payload, qos=1,
                            props=MessageProps(response_topic=self.reply_topic.value,
                                               correlation_data=corr,
                                               message_expiry=int(self.deadline),
                                               content_type="application/json"))
                try:
                    async with asyncio.timeout(self.attempt):
                        raw = await asyncio.shield(fut)
                    break
                except TimeoutError:
                    if time.monotonic() > give_up:
                        raise TimeoutError(f"no reply to {name} {dict(args)}") from None
        finally:
            self._pending.pop(corr, None)
        reply = json.loads(raw)
        assert isinstance(reply, dict)
        return reply

    async def wait_turn(self, turn: Turn) -> None:
        """See :class:`hardware_sim.console.Console`: nothing to wait for, the stack's
        :class:`ConfirmingPorts` steps only once the daemon journaled every read."""

    async def command(self, name: str, args: Mapping[str, object]) -> Mapping[str, object]:
        """See :class:`hardware_sim.dealer.Console`."""
        reply = await self.raw(name, args)
        out = {**reply, "ok": reply.get("status") == "ok", "result": reply.get("data", {})}
        self.commands.append((name, dict(args), out))
        return out


async def poll_until(pred: Callable[[], bool], within: float, every: float = 0.01) -> None:
    """Poll ``pred`` (state of another process: no event to wait on) until it holds.

    Raises:
        TimeoutError: it did not hold within ``within`` seconds.
    """
    async with asyncio.timeout(within):
        while not pred():  # noqa: ASYNC110 - the journal is written by another process
            await asyncio.sleep(every)


# ---- the shoe and its ports: the dealer waits until the table took each card ------------


class CountingShoe(SimShoe):
    """A :class:`SimShoe` that counts the reads it emitted (TAG_SEEN)."""

    reads = 0

    def emit(self, message: Message) -> bool:
        """See :meth:`SimShoe.emit`."""
        if isinstance(message, TagSeen):
            self.reads += 1
        return super().emit(message)


class ConfirmingPorts(ServedPorts):
    """Served ports whose :meth:`step` also waits, as a dealer watching the table's screen
    does, until the journal holds as many card reads as the shoe emitted (minus ``lost``: reads
    a power cut destroyed on purpose). A read that never arrives makes the step time out."""

    def __init__(self, *, clock: SystemClock, pace: float, seed: int, journal: Path,
                 shoe: CountingShoe, timeout: float = 30.0) -> None:
        super().__init__(clock=clock, pace=pace, seed=seed)
        self.journal = journal
        self.shoe = shoe
        self.timeout = timeout
        self.lost = 0
        self.confirm = True
        self._boot = shoe.boot_id
        self._unplugged = False

    async def unplug(self, device: SimDevice) -> None:
        """See :meth:`ServedPorts.unplug` (no read can reach the table meanwhile)."""
        self._unplugged = True
        await super().unplug(device)

    async def replug(self, device: SimDevice) -> None:
        """See :meth:`ServedPorts.replug`."""
        await super().replug(device)
        self._unplugged = False

    def journaled_reads(self) -> int:
        """Card reads in the journal."""
        return journal_count(self.journal, "SELECT count(DISTINCT json_extract(payload, "
                             "'$.read_id')) FROM inputs WHERE kind='card_read'")

    async def step(self, *, settle: float = 5.0) -> None:
        """Pace and settle (see :meth:`ServedPorts.step`), then wait for the table to have
        journaled every read."""
        await super().step(settle=settle)
        if not self.confirm or self._unplugged:
            return
        if self.shoe.boot_id != self._boot:
            # a reboot (power cut) destroys the reads the shoe had not sent yet: every read
            # before it was journaled (the previous step waited for it), so the rest is lost
            self._boot = self.shoe.boot_id
            self.lost = self.shoe.reads - self.journaled_reads()
        want = self.shoe.reads - self.lost
        try:
            await poll_until(lambda: self.journaled_reads() >= want, self.timeout)
        except TimeoutError:
            raise TimeoutError(f"the table journaled {self.journaled_reads()} of {want} reads "
                               f"after {self.timeout} s") from None


# ---- the stack ---------------------------------------------------------------------------


@dataclass
class Stack:
    """One table: config, shoe on a pty, daemon process, dealer console."""

    workdir: Path
    broker_host: str
    broker_port: int
    config_path: Path
    config: TableConfig
    daemon: DaemonProcess
    shoe: CountingShoe
    ports: ConfirmingPorts
    console: RetryingConsole
    dealer: SimDealer
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def journal_path(self) -> Path:
        """The daemon's journal file."""
        return self.config.journal.path

    def inputs_count(self) -> int:
        """Inputs journaled so far (read-only, while the daemon writes)."""
        return journal_count(self.journal_path, "SELECT coalesce(max(seq), 0) FROM inputs")

    async def wait_device_connected(self, within: float = 20.0) -> None:
        """Wait until the daemon opened the shoe and handshook."""
        await poll_until(lambda: self.shoe.connected, within)

    async def drain_device(self, within: float = 30.0) -> None:
        """Wait until the shoe has no unacknowledged read left."""
        await poll_until(lambda: not self.shoe.session.queued, within)


@contextlib.asynccontextmanager
async def open_stack(workdir: Path, broker_host: str, broker_port: int, *, variant: str,
                     structure: str, stakes: Mapping[str, int], seed: int,
                     pace: float = 0.0, attempt: float = 1.0,
                     stacks: tuple[int, ...] = STACKS,
                     faults: Sequence[FaultPlan] = (), foreign_deck: Deck | None = None,
                     table: str = TABLE, extra: str = "") -> Any:
    """Start everything (the daemon included) and yield a :class:`Stack`; ``extra`` goes
    into the config (:func:`write_config`)."""
    url = f"mqtt://{broker_host}:{broker_port}"
    path = write_config(workdir, url, variant, structure, stakes, stacks=stacks, table=table,
                        extra=extra)
    config = load_config(path)
    setup = table_setup(config)
    clock = SystemClock()
    shoe = CountingShoe(config.load_deck(), clock=clock, seed=seed)
    daemon = DaemonProcess(path, workdir / "daemon.log")
    ports = ConfirmingPorts(clock=clock, pace=pace, seed=seed, journal=config.journal.path,
                            shoe=shoe)
    async with ports:
        ports.add_pty("shoe", shoe, workdir / "dev" / "shoe")
        async with RetryingConsole(broker_host, broker_port, attempt=attempt,
                                   table=table) as console:
            seats = [SeatSetup(s.number, s.stack, s.name) for s in config.seats]
            dealer = SimDealer(game=setup.game, structure=setup.structure,
                               rules=setup.rule_set, stakes=setup.stakes, seats=seats,
                               button=config.button or 1, device=shoe, console=console,
                               ports=ports, strategy=RandomStrategy(seed), seed=seed,
                               table_id=table, faults=faults, foreign_deck=foreign_deck)
            stack = Stack(workdir, broker_host, broker_port, path, config, daemon, shoe,
                          ports, console, dealer)
            daemon.start()
            try:
                await stack.wait_device_connected()
                yield stack
            finally:
                daemon.stop()


# ---- reading the journal -----------------------------------------------------------------


def journal_count(path: Path, sql: str) -> int:
    """One integer from the journal, read-only (0 if it does not exist yet)."""
    if not path.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                                timeout=5)) as conn:
            return int(conn.execute(sql).fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def journal_rows(path: Path, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows from the journal, read-only."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                            timeout=5)) as conn:
        return list(conn.execute(sql, args))


@dataclass(frozen=True)
class JournalView:
    """What the journal holds: ended hands' summaries, the events by topic, the inputs."""

    hands: list[dict[str, Any]]
    events: dict[str, list[tuple[int, int, str, Any]]]
    inputs: list[dict[str, Any]]


def read_journal(path: Path) -> JournalView:
    """Hands (ended, in order), events per topic as (epoch, seq, type, data), inputs."""
    hands = [json.loads(s) for (s,) in journal_rows(
        path, "SELECT summary FROM hands WHERE ended_at IS NOT NULL ORDER BY id")]
    events: dict[str, list[tuple[int, int, str, Any]]] = {}
    for topic, epoch, seq, etype, payload in journal_rows(
            path, "SELECT topic, epoch, seq, type, payload FROM events ORDER BY id"):
        events.setdefault(topic, []).append((epoch, seq, etype, json.loads(payload)))
    inputs = [json.loads(p) for (p,) in journal_rows(
        path, "SELECT payload FROM inputs ORDER BY seq")]
    return JournalView(hands, events, inputs)


def uninterrupted_events(config: TableConfig, inputs: list[dict[str, Any]]
                         ) -> dict[str, list[tuple[str, Any]]]:
    """The events one uninterrupted controller derives from ``inputs`` (journal JSON), per
    topic as (type, data): what the journal must hold if nothing was lost to a crash."""
    setup = table_setup(config)
    ctrl = HandController(setup, initial_state(config))
    public, secure = topics.events(TABLE).value, topics.secure_holecards(TABLE).value
    out: dict[str, list[tuple[str, Any]]] = {public: [], secure: []}
    for payload in inputs:
        outcome = ctrl.handle(input_from_json(payload))
        out[public] += [(e.type, json.loads(json.dumps(dict(e.data)))) for e in outcome.events]
        out[secure] += [(e.type, json.loads(json.dumps(dict(e.data))))
                        for e in outcome.secure_events]
    return out


def awards_of(summary: Mapping[str, Any]) -> set[tuple[int, int, str]]:
    """(seat, amount, half) of every award in a hand_ended summary."""
    return {(a["seat"], a["amount"], a["half"]) for a in summary.get("results", [])}


# ---- an MQTT display / audit consumer ----------------------------------------------------


class Watcher:
    """A display and an audit consumer in one paho client (own thread): records every
    ``events`` message, ``state`` snapshot and ``status``; re-subscribes on every connect.

    Attributes:
        events: (epoch, seq, type, data) as received, duplicates included.
        snapshots: (epoch, seq, data) of every state message, and when it came
            (``time.monotonic()``).
    """

    def __init__(self, host: str, port: int, table: str = TABLE) -> None:
        self.table = table
        self.events: list[tuple[int, int, str, Any]] = []
        self.snapshots: list[tuple[int, int, Any, float]] = []
        self.statuses: list[dict[str, Any]] = []
        self.stream: list[tuple[str, dict[str, Any], float]] = []
        """Everything in arrival order: (``events`` | ``state`` | ``status``, body, when)."""
        self.cond = threading.Condition()
        self.connects = 0
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=f"watch-{secrets.token_hex(4)}")
        self.client.reconnect_delay_set(min_delay=1, max_delay=1)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.connect(host, port)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, *_: object) -> None:
        client.subscribe(f"poker/v1/tables/{self.table}/#", qos=1)
        with self.cond:
            self.connects += 1

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        now = time.monotonic()
        try:
            body = json.loads(msg.payload)
        except ValueError:
            return
        with self.cond:
            kind = msg.topic.rsplit("/", 1)[-1]
            if kind in ("events", "state", "status"):
                self.stream.append((kind, body, now))
            if msg.topic.endswith("/events"):
                self.events.append((body["epoch"], body["seq"], body["type"], body["data"]))
            elif msg.topic.endswith("/state"):
                self.snapshots.append((body["epoch"], body["seq"], body["data"], now))
            elif msg.topic.endswith("/status"):
                self.statuses.append(body)
            self.cond.notify_all()

    def wait_for(self, pred: Any, timeout: float = 20.0) -> bool:
        """Wait until ``pred(self)`` holds."""
        with self.cond:
            return bool(self.cond.wait_for(lambda: pred(self), timeout))

    def close(self) -> None:
        """Disconnect."""
        self.client.disconnect()
        self.client.loop_stop()


def props_with_response(topic: str, corr: bytes) -> Properties:
    """PUBLISH properties of an MQTT 5 request."""
    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    props.ResponseTopic = topic
    props.CorrelationData = corr
    return props


HOSTILE_TABLE = "hx"
HOSTILE_DEALER = "dealer-hx"
HOSTILE_FLOOR = "floor-hx"


def hostile_config(workdir: Path, broker: Broker, extra: str = "") -> Path:
    """A hold'em table with manual cards only (no reader to wait for), a dealer and a floor
    user: the hostile-input tests' and ``bench/hostile.py``'s table."""
    text = f"""
deck = "{ROOT}/config/decks/demo-red.csv"
button = 1
[table]
id = "{HOSTILE_TABLE}"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 1
big_blind = 2
[[seats]]
number = 1
name = "Ann"
stack = 500
[[seats]]
number = 2
name = "Bo"
stack = 500
[[sources]]
kind = "manual"
[access.roles]
{HOSTILE_DEALER} = "dealer"
{HOSTILE_FLOOR} = "floor"
{extra}
[mqtt]
url = "{broker.url}"
[journal]
path = "{workdir}/journal.sqlite"
"""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "table.toml"
    path.write_text(text)
    return path
