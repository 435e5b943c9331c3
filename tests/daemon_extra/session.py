"""A table session on the wire: the real daemon (``run_daemon``) with a simulated shoe on the
real serial protocol, a private mosquitto, a dealer console sending commands through MQTT, and
an independent paho subscriber on ``poker/#`` and ``secure/#`` recording every payload's bytes.

The dealer keeps its own rules engine (the same game, stakes and seats) to know which card or
decision comes next, and remembers every hole card it dealt: which seat, face up or down, and
whether the seat showed at the showdown. The tests judge what was published against that.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import threading
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from hardware_sim.devices import SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.app import run_daemon
from tablectl.clock import SystemClock
from tablectl.config import TableConfig, load_config
from tablectl.daemon import TableDaemon
from tablectl.domain.cards import Card
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    CardDealt,
    CardIn,
    Done,
    Hand,
    HandFaceUp,
    SeatSetup,
    Showdown,
    ShowdownHand,
    ShowIn,
)
from tablectl.sources.rfid import RfidShoeSource
from tests.daemon.helpers import Console

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Endpoint:
    """Where the broker listens (a test's :class:`~tests.conftest.Broker` will do)."""

    host: str
    port: int

TABLE = "wire"
DEALER = "floor-wire"
STACK = 4000

LIMIT = {"small_blind": 50, "big_blind": 100, "small_bet": 100, "big_bet": 200}
STUD = {"ante": 10, "bring_in": 25, "small_bet": 100, "big_bet": 200}
BLINDS = {"small_blind": 50, "big_blind": 100}
VARIANTS: dict[str, tuple[str, str, dict[str, int]]] = {
    "NT": ("holdem", "no-limit", BLINDS),
    "FT": ("holdem", "fixed-limit", LIMIT),
    "PO": ("omaha", "pot-limit", BLINDS),
    "F7S": ("stud", "fixed-limit", STUD),
    "FR": ("razz", "fixed-limit", STUD),
}
"""PHH code -> (variant, structure, stakes): games PokerKit reads as we deal them (not FO/8,
which PokerKit plays pot-limit, nor the hi-lo games of its side-pot bug)."""


def write_config(tmp_path: Path, broker: Endpoint, code: str, seats: int = 4,
                 journal_dir: Path | None = None) -> TableConfig:
    """A table config for ``code`` (PHH rules preset, ``seats`` players of ``STACK``); the
    journal goes in ``journal_dir`` (default ``tmp_path``)."""
    variant, structure, stakes = VARIANTS[code]
    stake_lines = "\n".join(f"{k} = {v}" for k, v in stakes.items())
    seat_lines = "\n".join(f'[[seats]]\nnumber = {i + 1}\nname = "P{i + 1}"\nstack = {STACK}\n'
                           for i in range(seats))
    text = f"""
deck = "{ROOT}/config/decks/demo-red.csv"
other_decks = ["{ROOT}/config/decks/demo-blue.csv"]
button = 1
[table]
id = "{TABLE}"
[game]
variant = "{variant}"
structure = "{structure}"
preset = "phh"
[game.stakes]
{stake_lines}
{seat_lines}
[[sources]]
kind = "rfid-shoe"
name = "shoe"
url = "/dev/serial/by-id/sim-shoe"
[access.roles]
{DEALER} = "floor"
[mqtt]
url = "mqtt://{broker.host}:{broker.port}"
[journal]
path = "{journal_dir or tmp_path}/journal.sqlite"
"""
    path = tmp_path / "table.toml"
    path.write_text(text)
    return load_config(path)


def nodelay(_client: mqtt.Client, _userdata: object, sock: object) -> None:
    """Set TCP_NODELAY (paho does not): without it every small publish after a PUBACK waits
    for the broker's delayed ACK (about 40 ms a command, measured here)."""
    if isinstance(sock, socket.socket):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class FastConsole(Console):
    """The daemon tests' console with TCP_NODELAY on its socket."""

    def __post_init__(self) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=self.user)
        self.client.on_message = self._on_message
        self.client.on_socket_open = nodelay
        self.client.connect(self.host, self.port)
        self.reply_topic = f"poker/v1/replies/{self.user}/console"
        self.client.subscribe(self.reply_topic, qos=1)
        self.client.loop_start()


@dataclass
class Recorder:
    """A plain paho subscriber on ``poker/#`` and ``secure/#``: every payload's raw bytes."""

    host: str
    port: int
    raw: list[tuple[str, bytes]] = field(default_factory=list)
    cond: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=f"recorder-{uuid.uuid4().hex[:8]}")
        self.client.on_message = self._on_message
        self.client.on_socket_open = nodelay
        self.client.connect(self.host, self.port)
        self.client.subscribe([("poker/#", 1), ("secure/#", 1)])
        self.client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.raw.append((msg.topic, bytes(msg.payload)))
            self.cond.notify_all()

    def wait_for(self, pred: Callable[[list[tuple[str, bytes]]], bool],
                 timeout: float = 20.0) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: pred(self.raw), timeout)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@dataclass(frozen=True)
class HoleCard:
    """A hole card the dealer dealt."""

    seat: int
    card: Card
    up: bool


@dataclass(frozen=True)
class PlayedHand:
    """What the dealer knows of a hand it played."""

    number: int
    shoe: int
    """Which shoe (0, 1, ...): a card appears once per shoe."""
    holes: tuple[HoleCard, ...]
    shown_at: dict[int, int]
    """Seat -> how many payloads the recorder had when the dealer's engine showed the seat at
    the showdown or turned it face up for an all-in (before the dealer sent the input that
    lets the daemon show it)."""
    final_stacks: dict[int, int]
    cards: int = 0
    """Cards read from the shoe in the hand (burns included)."""
    decisions: int = 0
    """Action commands sent in the hand (shows and repeats after an undo included)."""
    undos: int = 0
    """Decisions taken back with ``undo`` (and sent again) in the hand."""


class WireDealer:
    """Deals from the shoe and decides through the MQTT console, like a person at the table."""

    def __init__(self, config: TableConfig, shoe: SimShoe, source: RfidShoeSource,
                 console: Console, daemon: TableDaemon, seed: int,
                 mark: Callable[[], int] = lambda: 0, undo_every: int = 0) -> None:
        self.config = config
        self.deck = config.load_deck()
        self.shoe = shoe
        self.source = source
        self.console = console
        self.daemon = daemon
        self.rng = random.Random(seed)
        self.shoe_number = 0
        self.mark = mark
        self.undo_every = undo_every
        self._actions = 0
        self._applied = asyncio.Event()
        daemon.on_outcome = lambda _inp, _out: self._applied.set()

    async def send(self, name: str, args: dict[str, object] | None = None) -> dict[str, object]:
        reply = await asyncio.to_thread(self.console.send, name, args)
        assert reply["status"] == "ok", (name, args, reply)
        return reply

    async def settle(self, target: int) -> None:
        """Wait until the daemon has applied ``target`` inputs."""
        async with asyncio.timeout(10):
            while self.daemon.applied < target:
                await self._applied.wait()
                self._applied.clear()

    def _decide(self, exp: Act) -> ActionIn:
        legal = exp.legal
        kinds = legal.kinds
        roll = self.rng.random()
        wager = legal.bet_kind if legal.bet_kind in kinds else None
        if wager is not None and roll < 0.25:
            big = self.rng.random() < 0.1
            return ActionIn(exp.seat, wager, legal.max_to if big else legal.min_to)
        if ActionKind.BRING_IN in kinds:
            return ActionIn(exp.seat, ActionKind.BRING_IN)
        if ActionKind.FOLD in kinds and ActionKind.CHECK not in kinds and roll > 0.8:
            return ActionIn(exp.seat, ActionKind.FOLD)
        if ActionKind.CHECK in kinds:
            return ActionIn(exp.seat, ActionKind.CHECK)
        if ActionKind.CALL in kinds:
            return ActionIn(exp.seat, ActionKind.CALL)
        if wager is not None:
            return ActionIn(exp.seat, wager, legal.min_to)
        return ActionIn(exp.seat, ActionKind.FOLD)

    async def top_up(self) -> None:
        """Between hands: every stack back to ``STACK``. With equal stacks a raise capped at
        the biggest stack it can win is always an all-in; a capped raise short of a full one
        by a deeper stack is legal here, but PokerKit (>= 0.7.4) no longer caps the minimum
        raise and could not read the hand back."""
        for seat in self.daemon.controller.checkpoint().seats:
            if seat.stack != STACK:
                await self.send("adjust_stack", {"seat": seat.seat, "amount": STACK - seat.stack,
                                                 "reason": "reset"})

    async def play(self) -> PlayedHand:
        """Play one whole hand, ``next_hand`` included."""
        if self.shoe.remaining < 40:
            self.shoe.new_shoe()
            self.source.new_shoe()
            self.shoe_number += 1
        await self.top_up()
        setup = self.daemon.setup
        state = self.daemon.controller.checkpoint()
        players = [SeatSetup(s.seat, s.stack, s.name) for s in state.seats if s.stack > 0]
        mirror = Hand.start(game=setup.game, structure=setup.structure, rules=setup.rule_set,
                            stakes=setup.stakes, seats=players,
                            button=0 if setup.game.is_stud else state.button)
        reply = await self.send("start_hand")
        data = reply["data"]
        assert isinstance(data, dict)
        number = data["hand"]["number"]
        shown_at: dict[int, int] = {}
        decisions = undos = 0

        def apply(inp: ActionIn | ShowIn | CardIn) -> None:
            for event in mirror.apply(inp):
                if isinstance(event, ShowdownHand | HandFaceUp):   # all-in hands face up
                    shown_at.setdefault(event.seat, self.mark())

        while True:
            exp = mirror.expected()
            if isinstance(exp, Done):
                break
            if isinstance(exp, Act):
                act = self._decide(exp)
                apply(act)
                args = {"seat": act.seat, "kind": act.kind.value, "amount": act.amount}
                await self.send("action", args)
                decisions += 1
                self._actions += 1
                if self.undo_every and self._actions % self.undo_every == 0 \
                        and not isinstance(mirror.expected(), Done):
                    # the dealer takes the decision back and enters it again
                    reply = await self.send("undo")
                    undone = {k: v for k, v in args.items() if v is not None}
                    undone["kind"] = act.kind.value.replace("-", "_")
                    assert reply["data"] == {"undone": undone}, reply
                    await self.send("action", args)
                    decisions += 1
                    undos += 1
                continue
            if isinstance(exp, Showdown):
                apply(ShowIn(exp.seat))
                await self.send("action", {"seat": exp.seat, "kind": "show"})
                decisions += 1
                continue
            before = self.daemon.applied
            card = self.shoe.order[0]  # the next card in the shoe: the engine sees it first
            apply(CardIn(card))
            self.shoe.draw(card)
            await self.settle(before + 1)
        await self.send("next_hand")
        holes = tuple(HoleCard(e.seat, e.card, e.face_up) for e in mirror.events
                      if isinstance(e, CardDealt) and e.card is not None)
        cards = sum(isinstance(i, CardIn) for i in mirror.inputs)
        return PlayedHand(number, self.shoe_number, holes, shown_at, dict(mirror.final_stacks),
                          cards=cards, decisions=decisions, undos=undos)


@dataclass
class Session:
    """A finished session: what the recorder got and what the dealer played."""

    config: TableConfig
    raw: list[tuple[str, bytes]]
    hands: list[PlayedHand]


async def play_session(tmp_path: Path, broker: Endpoint, code: str, hands: int,
                       seed: int, journal_dir: Path | None = None, seats: int = 4,
                       then: Callable[[TableDaemon, SimShoe], Awaitable[None]] | None = None,
                       undo_every: int = 0) -> Session:
    """Run the daemon for ``hands`` hands of ``code`` and return what was published;
    ``then`` runs after the hands, with the daemon still running."""
    config = write_config(tmp_path, broker, code, seats, journal_dir=journal_dir)
    clock = SystemClock()
    shoe = SimShoe(config.load_deck(), clock=clock, seed=seed)
    pipe = PipeDevice(shoe, clock=clock)
    source = RfidShoeSource("shoe", "sim", clock=clock, opener=pipe.open)
    recorder = Recorder(broker.host, broker.port)
    console = FastConsole(broker.host, broker.port, TABLE, DEALER)
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(config, clock=clock, sources=[source],
                                          ready=ready.set_result))
    played: list[PlayedHand] = []
    try:
        daemon = await asyncio.wait_for(ready, 10)
        state_topic = f"poker/v1/tables/{TABLE}/state"
        assert await asyncio.to_thread(recorder.wait_for,
                                       lambda raw: any(t == state_topic for t, _ in raw))
        dealer = WireDealer(config, shoe, source, console, daemon, seed,
                            mark=lambda: len(recorder.raw), undo_every=undo_every)
        for _ in range(hands):
            played.append(await dealer.play())

        # every hand_ended reached the subscriber (the outbox lags the table)
        assert await asyncio.to_thread(recorder.wait_for, lambda raw: sum(
            t.endswith("/events") and b'"type":"hand_ended"' in p for t, p in raw) >= hands,
            60.0), "the subscriber did not get every hand_ended"
        if then is not None:
            await then(daemon, shoe)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.to_thread(recorder.close)
        console.close()
        await pipe.aclose()
    return Session(config, list(recorder.raw), played)


def run_session(tmp_path: Path, broker: Endpoint, code: str, hands: int, seed: int,
                journal_dir: Path | None = None, seats: int = 4,
                undo_every: int = 0) -> Session:
    """:func:`play_session` in a fresh event loop (for a worker process)."""
    return asyncio.run(play_session(tmp_path, broker, code, hands, seed, journal_dir, seats,
                                    undo_every=undo_every))
