"""SimDealer: the table's "person" — plays whole hands through simulated devices and a console.

The dealer runs its own rules engine (:class:`tablectl.game.Hand`, same game, rules, stakes
and seats as the table) to know what comes next: which seat gets the next card, burns, board
cards, stud up cards, whose turn it is and what is legal. It then does what a human dealer
does, through the same channels a human uses:

* **cards** — on a shoe table it draws from a :class:`~hardware_sim.devices.SimShoe` (the shoe
  only reports the draw; the daemon assigns the card by dealing order); on an antenna table it
  places each card on a :class:`~hardware_sim.devices.SimTable` antenna (``seatN``,
  ``boardN``, ``burn``), moves a folded seat's cards to ``muck`` and clears the table when the
  pot is pushed;
* **decisions and corrections** — through a :class:`Console`: ``start_hand`` (no args),
  ``action {seat, kind, amount?}``, ``manual_card {card, seat|board|burn}`` for a card the
  device lost, ``clear_error {code}`` after a fault the daemon flags, ``next_hand`` once the
  pot is pushed, the MQTT command API in production (:class:`~hardware_sim.console.
  MqttConsole`) or an in-memory recorder in unit tests;
* **faults on demand** — :class:`FaultPlan` entries (byte faults, unplug, reboot, duplicate
  read, foreign tag, misread, wrong antenna, two cards at once, a card face up) fire at a given
  card of a given hand.

Decisions come from a :class:`Strategy`: :class:`RandomStrategy` (seeded, weighted legal
actions) or :class:`ScriptedStrategy` (a PHH-like list, e.g. ``"3 raise 600"``).

Every device step is followed by ``await ports.step()`` (:class:`DevicePorts`): the in-process
loopback host pumps the bytes there, a served device waits for the pace. Nothing here reads the
wall clock or sleeps; everything random comes from the seed, so one seed gives one byte stream.

>>> RandomStrategy(seed=1).weights[ActionKind.CALL]
4.0
>>> ScriptedAction.parse("3 raise 600")
ScriptedAction(seat=3, kind=<ActionKind.RAISE: 'raise'>, amount=600)
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, Protocol

from firmware_bridge.messages import TagSeen
from hardware_sim.adopt import table_of_reply
from hardware_sim.devices import SimDevice, SimShoe, SimTable
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    Burn,
    CardIn,
    DealBoard,
    DealDown,
    DealHole,
    DealUp,
    Done,
    Expectation,
    Hand,
    HandEvent,
    HandInput,
    HandStart,
    LegalActions,
    PotResult,
    RuleSet,
    RuleViolation,
    SeatSetup,
    Showdown,
    ShowIn,
    Stakes,
)

_LOGGER = logging.getLogger(__name__)

CardExpectation = DealHole | DealUp | DealDown | Burn | DealBoard
_CARD_EXPECTATIONS: Final = (DealHole, DealUp, DealDown, Burn, DealBoard)
_WAGERS: Final = frozenset({ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE})


class DealerError(Exception):
    """Root of the simulator's dealer errors (scenario, console, check)."""


class ConsoleRefusedError(DealerError):
    """The daemon answered a console command with ``ok: false``.

    Attributes:
        name: the command. reply: the whole reply.
    """

    def __init__(self, name: str, reply: Mapping[str, object]) -> None:
        self.name = name
        self.reply = dict(reply)
        super().__init__(f"command {name} refused: {reply.get('error')}")


# ---- seams -------------------------------------------------------------------------------------


class Console(Protocol):
    """The dealer console: one command, one reply (``{"id", "ok", "result"|"error"}``)."""

    async def command(self, name: str, args: Mapping[str, object]) -> Mapping[str, object]:
        """Send command ``name`` with ``args``; return the daemon's reply.

        Raises:
            TimeoutError: no reply in time (MQTT consoles).
        """
        ...


class DevicePorts(Protocol):
    """How the dealer's device actions reach a host (see :mod:`hardware_sim.ports`)."""

    async def step(self) -> None:
        """Called after every device action: let the bytes flow (and keep the pace)."""
        ...

    async def unplug(self, device: SimDevice) -> None:
        """Pull ``device``'s cable (it keeps its queue)."""
        ...

    async def replug(self, device: SimDevice) -> None:
        """Put the cable back; the host reconnects."""
        ...

    def arm(self, device: SimDevice, kind: str, seconds: float = 0.0) -> None:
        """A one-shot byte fault on ``device``'s next frame: ``garbage``, ``bitflip``,
        ``drop``, ``dup_frame`` or ``delay`` (by ``seconds``)."""
        ...


class Strategy(Protocol):
    """Chooses the decision of the seat to act."""

    def choose(self, hand: Hand, legal: LegalActions) -> ActionIn:
        """One of ``legal`` for ``legal.seat``.

        Raises:
            DealerError: a scripted decision is not legal now.
        """
        ...


# ---- strategies --------------------------------------------------------------------------------

DEFAULT_WEIGHTS: Final[Mapping[ActionKind, float]] = {
    ActionKind.FOLD: 1.0, ActionKind.CHECK: 4.0, ActionKind.CALL: 4.0, ActionKind.BET: 1.0,
    ActionKind.RAISE: 1.0, ActionKind.COMPLETE: 1.0, ActionKind.BRING_IN: 3.0,
}
_KIND_ORDER: Final = tuple(ActionKind)


class RandomStrategy:
    """Seeded random legal decisions.

    Args:
        seed: seeds the generator (one generator per strategy).
        weights: relative weight per action kind (missing kinds: :data:`DEFAULT_WEIGHTS`);
            all-zero weights for the legal kinds fall back to check / call / bring-in.
        all_in: probability that a no-limit or pot-limit wager goes to the maximum; otherwise
            it is the minimum (70 %) or uniform in between.

    Raises:
        ValueError: a negative weight or a probability outside 0..1.
    """

    def __init__(self, seed: int = 0, weights: Mapping[ActionKind, float] | None = None,
                 *, all_in: float = 0.05) -> None:
        merged = dict(DEFAULT_WEIGHTS)
        merged.update(weights or {})
        if any(w < 0 for w in merged.values()):
            raise ValueError("action weights must not be negative")
        if not 0.0 <= all_in <= 1.0:
            raise ValueError("all_in must be a probability")
        self.weights: Mapping[ActionKind, float] = merged
        self.all_in = all_in
        self._rng = random.Random(seed)

    def choose(self, hand: Hand, legal: LegalActions) -> ActionIn:
        """See :class:`Strategy`."""
        kinds = [k for k in _KIND_ORDER if k in legal.kinds]
        weights = [self.weights.get(k, 0.0) for k in kinds]
        if sum(weights) <= 0:
            passive = [k for k in kinds if k in (ActionKind.CHECK, ActionKind.CALL,
                                                  ActionKind.BRING_IN)]
            kind = passive[0] if passive else kinds[0]
        else:
            kind = self._rng.choices(kinds, weights)[0]
        if kind not in _WAGERS:
            return ActionIn(legal.seat, kind)
        low, high = legal.min_to, legal.max_to
        if hand.start_args.structure is BettingStructure.FIXED_LIMIT or high <= low:
            return ActionIn(legal.seat, kind, low)
        r = self._rng.random()
        if r < self.all_in:
            amount = high
        elif r < 0.7:
            amount = low
        else:
            amount = self._rng.randint(low, high)
        return ActionIn(legal.seat, kind, amount)


@dataclass(frozen=True, slots=True)
class ScriptedAction:
    """One scripted decision: ``seat``, ``kind`` and, for wagers, the "to" ``amount``."""

    seat: int
    kind: ActionKind
    amount: int | None = None

    @classmethod
    def parse(cls, text: str) -> ScriptedAction:
        """Parse ``"SEAT KIND [AMOUNT]"`` (``"3 raise 600"``, ``"5 call"``, ``"2 bring-in"``).

        Raises:
            ValueError: not in that form, unknown kind, or a wager without an amount.
        """
        parts = text.split()
        try:
            if len(parts) not in (2, 3):
                raise ValueError("expected 'SEAT KIND [AMOUNT]'")
            seat, kind = int(parts[0]), ActionKind(parts[1].lower())
            amount = int(parts[2]) if len(parts) == 3 else None
        except ValueError as exc:
            raise ValueError(f"bad scripted action {text!r}: {exc}") from None
        if kind in _WAGERS and amount is None:
            raise ValueError(f"bad scripted action {text!r}: {kind.value} needs a 'to' amount")
        return cls(seat, kind, amount)

    def __str__(self) -> str:
        return f"{self.seat} {self.kind.value}" + (f" {self.amount}" if self.amount else "")


class ScriptedStrategy:
    """Decisions from a list, in order, across hands; when the list runs out, ``then``
    decides (default: check, else call, else bring-in).

    Raises (from :meth:`choose`):
        DealerError: the script names another seat than the one to act, or an illegal action.
    """

    def __init__(self, actions: Sequence[ScriptedAction], then: Strategy | None = None) -> None:
        self._actions = list(actions)
        self._next = 0
        self._then = then

    @property
    def remaining(self) -> int:
        """Scripted decisions not used yet."""
        return len(self._actions) - self._next

    def choose(self, hand: Hand, legal: LegalActions) -> ActionIn:
        """See :class:`Strategy`."""
        if self._next >= len(self._actions):
            if self._then is not None:
                return self._then.choose(hand, legal)
            for kind in (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN):
                if kind in legal.kinds:
                    return ActionIn(legal.seat, kind)
            raise DealerError(f"script exhausted and seat {legal.seat} cannot check or call")
        scripted = self._actions[self._next]
        action = ActionIn(scripted.seat, scripted.kind, scripted.amount)
        try:
            hand.verify(action)
        except RuleViolation as exc:
            raise DealerError(f"scripted action #{self._next + 1} ({scripted}) is not legal: "
                              f"{exc.reason}") from exc
        self._next += 1
        return action


# ---- faults ------------------------------------------------------------------------------------


class FaultKind(StrEnum):
    """Faults the dealer can cause at a given card."""

    GARBAGE = "garbage"
    """Random bytes on the wire before the card's frame."""
    BITFLIP = "bitflip"
    """One bit of the card's frame flipped (CRC catches it; the device resends)."""
    DROP = "drop"
    """The card's frame lost on the wire (the device resends)."""
    DUP_FRAME = "dup_frame"
    """The card's frame twice on the wire (the host drops the copy)."""
    DELAY = "delay"
    """The card's frame written ``seconds`` late."""
    UNPLUG = "unplug"
    """The cable pulled before the card; ``cards`` cards dealt meanwhile; plugged back."""
    REBOOT = "reboot"
    """The device reboots right after the card's read, before it is sent (lost as on a power
    cut); the dealer enters the card by hand (``manual_card``)."""
    DUPLICATE_READ = "duplicate_read"
    """The shoe reads the card's tag twice."""
    FOREIGN_TAG = "foreign_tag"
    """A tag of another deck is read just before the card."""
    MISREAD = "misread"
    """The card passes unread (MISREAD); the dealer enters it by hand."""
    WRONG_ANTENNA = "wrong_antenna"
    """Table: the card lands on the wrong antenna, then is moved to the right one."""
    TWO_AT_ONCE = "two_at_once"
    """The card and the next one come out together."""
    FACE_UP = "face_up"
    """The card is dealt face up by mistake (the reader cannot tell)."""


CLEARS: Final[Mapping[FaultKind, tuple[str, ...]]] = {
    FaultKind.FOREIGN_TAG: ("second_deck", "unknown_tag"),
    FaultKind.WRONG_ANTENNA: ("wrong_antenna",),
}
"""The read errors the daemon may raise for a fault; the dealer clears the first one the
daemon confirms it had (a tag of another deck is ``second_deck`` when the card room registered
that deck, else ``unknown_tag``)."""

BYTE_FAULTS: Final = frozenset({FaultKind.GARBAGE, FaultKind.BITFLIP, FaultKind.DROP,
                                FaultKind.DUP_FRAME, FaultKind.DELAY})


@dataclass(frozen=True, slots=True)
class FaultPlan:
    """A fault at card ``at_card`` (1-based, burns counted) of hand ``hand`` (1-based).

    Attributes:
        seconds: DELAY, how late the frame is written.
        cards: UNPLUG, cards dealt while unplugged.
        power_cut: UNPLUG, the device also reboots (its queue is lost).
        foreign: FOREIGN_TAG, the card of the other deck whose tag is read.
        antenna: WRONG_ANTENNA, the antenna role it lands on (default: the first empty
            seat's after the right one, else the next seat's).
        clear: the read-error code the dealer clears with ``clear_error`` after the fault
            (default :data:`CLEARS` by kind; ``""``: none).
    """

    kind: FaultKind
    at_card: int
    hand: int = 1
    seconds: float = 0.3
    cards: int = 2
    power_cut: bool = False
    foreign: Card | None = None
    antenna: str | None = None
    clear: str | None = None

    def __post_init__(self) -> None:
        if self.at_card < 1 or self.hand < 1:
            raise ValueError("at_card and hand count from 1")
        if self.seconds < 0 or self.cards < 0:
            raise ValueError("seconds and cards must not be negative")


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """A fault that happened: its plan, the card it hit and a note."""

    plan: FaultPlan
    card: Card | None
    note: str


# ---- summary -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealtCard:
    """A card the dealer dealt.

    Attributes:
        card: the card. target: ``seatN``, ``boardN`` or ``burn``.
        face_up: dealt face up (stud up cards, or by mistake).
        read: True if the device reported it; False if it was entered with ``manual_card``.
    """

    card: Card
    target: str
    face_up: bool
    read: bool = True


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """A console command the dealer sent and the reply it got."""

    name: str
    args: Mapping[str, object]
    reply: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class HandSummary:
    """What happened in one hand, from the dealer's own engine (the expected results).

    Attributes:
        number: 1 for the dealer's first hand. hand_id: ``{table}-{number:06d}``.
        start: what the dealer's engine was started with (``Hand.replay(start, inputs)``
            rebuilds the hand).
        cards: every card dealt, in order. actions: every decision, in order.
        inputs: the engine inputs. events: the engine's events.
        results: how each pot was settled. final_stacks: (seat, stack) pairs.
        faults: faults that fired. commands: console commands and replies.
    """

    number: int
    hand_id: str
    start: HandStart
    cards: tuple[DealtCard, ...]
    actions: tuple[ActionIn, ...]
    inputs: tuple[HandInput, ...]
    events: tuple[HandEvent, ...]
    results: tuple[PotResult, ...]
    final_stacks: tuple[tuple[int, int], ...]
    faults: tuple[FaultRecord, ...] = ()
    commands: tuple[CommandRecord, ...] = ()

    def line(self) -> str:
        """One line for the CLI: game, cards, actions, winners, faults."""
        start = self.start
        before = {s.seat: s.stack for s in start.seats}
        net = {seat: stack - before.get(seat, 0) for seat, stack in self.final_stacks}
        wins = ", ".join(
            f"seat {a.seat} wins {a.amount}"
            + (f" {a.half.value}" if a.half.value != "whole" else "")
            + (f" ({a.description})" if a.description else "")
            for r in self.results for a in r.awards)
        if wins:
            wins += "; net " + ", ".join(f"seat {seat} {change:+}"
                                         for seat, change in sorted(net.items()) if change)
        faults = ",".join(f.plan.kind.value for f in self.faults)
        return (f"hand {self.number} {self.hand_id} {start.game.value}/{start.structure.value}: "
                f"{len(self.cards)} cards, {len(self.actions)} actions; {wins or 'no award'}"
                + (f"; faults: {faults}" if faults else ""))


# ---- the dealer --------------------------------------------------------------------------------


@dataclass(slots=True)
class _HandState:
    hand: Hand
    number: int
    card_no: int = 0
    cards: list[DealtCard] = field(default_factory=list)
    actions: list[ActionIn] = field(default_factory=list)
    faults: list[FaultRecord] = field(default_factory=list)
    commands: list[CommandRecord] = field(default_factory=list)
    order: list[Card] = field(default_factory=list)


class SimDealer:
    """Deals hands of one game through one simulated card device and a console.

    Args:
        game / structure / rules / stakes: the table's game, as the daemon's config says.
        seats: the seated players with their starting stacks (stacks carry over between
            hands; a seat with no chips left sits out).
        button: the button's seat for the first hand; it moves one seat clockwise (to the
            next seat with chips) after each hand. Stud ignores it: the dealer sits before
            seat 1 (button 0) and does not move, as the daemon's controller deals it.
        device: the :class:`SimShoe` or :class:`SimTable` that reads the cards; its deck is the
            deck dealt. A table needs antennas ``seatN`` for every seat, ``board1..5``,
            ``burn`` and ``muck`` (:func:`~hardware_sim.devices.standard_roles`).
        console: where commands go. ports: how device output reaches the host.
        strategy: decisions (default: :class:`RandomStrategy` with ``seed``).
        seed: seeds the table's shuffle (a shoe shuffles with its own seed).
        faults: faults to cause. cards: scripted cards, in dealing order (burns included),
            across hands; once used up, cards come at random.
        foreign_deck: the other deck, for FOREIGN_TAG faults.
        table_id: prefix of hand ids.
        strict: raise :class:`ConsoleRefusedError` when a command is refused.
        rebuy: a player who goes broke buys in again between hands, as at a real cash
            table: ``adjust_stack {seat, amount: their starting stack, reason: "rebuy"}``
            (the console user needs the floor role), so the table never runs out of players.

    Raises:
        ValueError: the device has no deck, or a table lacks an antenna.
    """

    def __init__(self, *, game: GameKind, structure: BettingStructure, rules: RuleSet,
                 stakes: Stakes, seats: Sequence[SeatSetup], button: int,
                 device: SimShoe | SimTable, console: Console, ports: DevicePorts,
                 strategy: Strategy | None = None, seed: int = 0,
                 faults: Sequence[FaultPlan] = (), cards: Sequence[Card] = (),
                 foreign_deck: Deck | None = None, table_id: str = "sim",
                 strict: bool = True, rebuy: bool = False) -> None:
        deck = device.deck
        if deck is None:
            raise ValueError("the dealer's device needs a deck")
        self.deck: Deck = deck
        self.game = game
        self.structure = structure
        self.rules = rules
        self.stakes = stakes
        self.device = device
        self.console = console
        self.ports = ports
        self.strategy: Strategy = strategy or RandomStrategy(seed)
        self.faults = tuple(faults)
        self.foreign_deck = foreign_deck
        self.table_id = table_id
        self.strict = strict
        self._names = {s.seat: s.name for s in seats}
        self.stacks: dict[int, int] = {s.seat: s.stack for s in sorted(seats, key=_seat)}
        self.rebuy = rebuy
        self._buy_ins = {s.seat: s.stack for s in seats if s.stack > 0}
        self.rebuys: list[tuple[int, int, int]] = []
        """``(after hand number, seat, amount)`` of every rebuy so far."""
        self.button = 0 if game.is_stud else button
        self.hands_played = 0
        self._script = list(cards)
        self._fired: list[FaultRecord] = []
        self._rng = random.Random(seed)
        if isinstance(device, SimTable):
            needed = [f"seat{s}" for s in self.stacks] + [f"board{i}" for i in range(1, 6)]
            needed += ["burn", "muck"]
            for role in needed:
                try:
                    device.antenna(role)
                except KeyError:
                    raise ValueError(f"the table has no {role} antenna") from None
        for plan in self.faults:
            if plan.kind is FaultKind.WRONG_ANTENNA and not isinstance(device, SimTable):
                raise ValueError("a wrong-antenna fault needs a table device")
            if plan.kind in (FaultKind.DUPLICATE_READ,) and not isinstance(device, SimShoe):
                raise ValueError("a duplicate-read fault needs a shoe")
            if plan.kind is FaultKind.FOREIGN_TAG and foreign_deck is None:
                raise ValueError("a foreign-tag fault needs foreign_deck")

    # ---- public API ------------------------------------------------------------------------

    @property
    def missed_faults(self) -> tuple[FaultPlan, ...]:
        """Planned faults of the hands played so far that never fired (their card was not
        dealt: the hand ended before it)."""
        fired = {id(f.plan) for f in self._fired}
        return tuple(p for p in self.faults if p.hand <= self.hands_played and id(p) not in fired)

    async def play(self, hands: int) -> list[HandSummary]:
        """Play ``hands`` hands (fewer if fewer than two seats have chips left)."""
        out: list[HandSummary] = []
        for _ in range(hands):
            if sum(1 for v in self.stacks.values() if v > 0) < 2:
                break
            out.append(await self.play_hand())
        return out

    def next_start(self) -> HandStart:
        """The start of the next hand: seats with chips, the button, the hand id."""
        seats = tuple(SeatSetup(s, v, self._names.get(s, "")) for s, v in self.stacks.items()
                      if v > 0)
        number = self.hands_played + 1
        return HandStart(self.game, self.structure, self.rules, self.stakes, seats,
                         self.button, f"{self.table_id}-{number:06d}")

    async def play_hand(self) -> HandSummary:
        """Deal one complete hand: start it on the console, deal every card, enter every
        decision, muck folded hands, settle, collect the cards; move the button.

        Raises:
            DealerError: fewer than two seats with chips, a scripted card or action that does
                not fit, or (strict) a refused command.
        """
        start = self.next_start()
        if len(start.seats) < 2:
            raise DealerError("fewer than two seats have chips")
        hand = Hand.replay(start, ())
        st = _HandState(hand, self.hands_played + 1)
        self._prepare_cards(st)
        reply = await self._command(st, "start_hand", {})
        table = table_of_reply(reply, start)
        if table is not None:
            # the daemon's table has a history of its own (an earlier run): deal its hand
            start, number = table
            self.stacks = {s.seat: s.stack for s in start.seats}
            self.button = start.button
            self.hands_played = number - 1
            st.hand = hand = Hand.replay(start, ())
            st.number = number
        while not hand.is_done:
            exp = hand.expected()
            match exp:
                case DealHole() | DealUp() | DealDown() | Burn() | DealBoard():
                    await self._deal(st, exp)
                case Act(legal=legal):
                    await self._act(st, legal)
                case Showdown(seat=seat):   # the house wants every hand shown by the dealer
                    await self._command(st, "action", {"seat": seat, "kind": "show"})
                    hand.apply(ShowIn(seat))
                case Done():  # pragma: no cover - is_done covers it
                    break
        await self._push(st)
        self.hands_played += 1
        self._fired.extend(st.faults)
        self.stacks.update(hand.final_stacks)
        self._move_button()        # as the daemon does at next_hand, before anyone rebuys
        if self.rebuy:
            await self._rebuy_broke(st)
        _LOGGER.info("%s: hand over: %s", start.hand_id, hand.results)
        return HandSummary(
            number=st.number, hand_id=start.hand_id, start=start, cards=tuple(st.cards),
            actions=tuple(st.actions), inputs=hand.inputs, events=hand.events,
            results=hand.results, final_stacks=tuple(sorted(hand.final_stacks.items())),
            faults=tuple(st.faults), commands=tuple(st.commands))

    # ---- dealing -----------------------------------------------------------------------------

    def _prepare_cards(self, st: _HandState) -> None:
        if isinstance(self.device, SimShoe):
            self.device.new_shoe()
            return
        order = [c for c in self.deck.uids_by_card if c not in self._script]
        self._rng.shuffle(order)
        st.order = order

    def _next_card(self, st: _HandState) -> Card | None:
        """The next scripted card, else (table) the next of the shuffled order, else None
        (the shoe decides)."""
        while self._script:
            card = self._script.pop(0)
            if not self._dealt(st, card):
                return card
        back = [c for c in self.deck.uids_by_card if st.hand.back_in_play(c)]
        if isinstance(self.device, SimTable):
            while st.order:
                card = st.order.pop(0)
                if not self._dealt(st, card):
                    return card
            if back:   # stud's seventh street ran short: burns (and discards) come back
                card = self._rng.choice(back)
                for antenna in ("burn", "muck"):
                    self.device.remove(antenna, card)
                return card
            raise DealerError("the deck is exhausted")
        if not self.device.remaining and back:   # the recycled cards go into the shoe
            self._rng.shuffle(back)
            self.device.order.extend(back)
        return None

    @staticmethod
    def _dealt(st: _HandState, card: Card) -> bool:
        return any(d.card == card for d in st.cards)

    def _faults_at(self, st: _HandState, card_no: int) -> list[FaultPlan]:
        return [f for f in self.faults if f.hand == st.number and f.at_card == card_no]

    async def _deal(self, st: _HandState, exp: CardExpectation) -> None:
        st.card_no += 1
        plans = self._faults_at(st, st.card_no)
        kinds = {p.kind for p in plans}
        device = self.device
        unplugged: FaultPlan | None = None
        for plan in plans:
            if plan.kind in BYTE_FAULTS:
                self.ports.arm(device, plan.kind.value, plan.seconds)
            elif plan.kind is FaultKind.FOREIGN_TAG:
                await self._foreign(st, plan, exp)
            elif plan.kind is FaultKind.UNPLUG:
                unplugged = plan
                await self.ports.unplug(device)
                if plan.power_cut:
                    device.reboot()
                st.faults.append(FaultRecord(plan, None, f"unplugged for {plan.cards} cards"))
        card = self._next_card(st)
        face_up = isinstance(exp, DealUp) or FaultKind.FACE_UP in kinds
        target = self._target(exp)
        if FaultKind.MISREAD in kinds:
            card = self._misread(card, target)
            self._apply_card(st, exp, card, face_up=face_up, read=False)
            st.faults.append(FaultRecord(_plan(plans, FaultKind.MISREAD), card,
                                         "passed unread"))
            await self.ports.step()
            await self._manual_card(st, card, exp)
            await self._clear_missed(st)
        elif FaultKind.TWO_AT_ONCE in kinds:
            await self._two_at_once(st, exp, card, plans)
        elif FaultKind.WRONG_ANTENNA in kinds and isinstance(device, SimTable):
            plan = _plan(plans, FaultKind.WRONG_ANTENNA)
            assert card is not None
            wrong = plan.antenna or self._wrong_antenna(target)
            device.place(wrong, card)
            await self.ports.step()
            await self._clear(st, plan)
            device.remove(wrong, card)
            device.place(target, card)
            st.faults.append(FaultRecord(plan, card, f"landed on {wrong}, moved to {target}"))
            self._apply_card(st, exp, card, face_up=face_up)
            await self.ports.step()
        else:
            card = self._read(card, target, face_up=face_up)
            self._apply_card(st, exp, card, face_up=face_up)
            if FaultKind.REBOOT in kinds:
                device.reboot()   # before the read left the device: it is lost
                st.faults.append(FaultRecord(_plan(plans, FaultKind.REBOOT), card,
                                             "device rebooted, read lost"))
                await self.ports.step()
                await self._manual_card(st, card, exp)
                await self._clear_missed(st)
            else:
                await self.ports.step()
        if FaultKind.FACE_UP in kinds:
            st.faults.append(FaultRecord(_plan(plans, FaultKind.FACE_UP), card,
                                         "dealt face up by mistake"))
        if FaultKind.DUPLICATE_READ in kinds and isinstance(device, SimShoe):
            device.duplicate_read()
            st.faults.append(FaultRecord(_plan(plans, FaultKind.DUPLICATE_READ), card,
                                         "read twice"))
            await self.ports.step()
        for plan in plans:
            if plan.kind in BYTE_FAULTS:
                st.faults.append(FaultRecord(plan, card, f"{plan.kind.value} on its frame"))
        if unplugged is not None:
            for _ in range(unplugged.cards):
                nxt = st.hand.expected()
                if not isinstance(nxt, _CARD_EXPECTATIONS):
                    break
                st.card_no += 1
                t = self._target(nxt)
                up = isinstance(nxt, DealUp)
                c = self._read(self._next_card(st), t, face_up=up)
                self._apply_card(st, nxt, c, face_up=up)
            await self.ports.replug(device)
            await self.ports.step()

    def _read(self, card: Card | None, target: str, *, face_up: bool) -> Card:
        """The device reads ``card`` (shoe: drawn; table: placed on ``target``)."""
        device = self.device
        if isinstance(device, SimShoe):
            read = device.draw_face_up(card) if face_up else device.draw(card)
            return self._card_of(read)
        assert card is not None
        device.place(target, card)
        return card

    def _card_of(self, read: TagSeen) -> Card:
        card = self.deck.card_for(read.uid_hex)
        if card is None:  # pragma: no cover - the shoe holds only its deck
            raise DealerError(f"the shoe read a tag outside its deck: {read.uid_hex}")
        return card

    def _misread(self, card: Card | None, target: str) -> Card:
        device = self.device
        if isinstance(device, SimShoe):
            before = list(device.order)
            device.misread(card)
            if card is None:
                card = next(c for c in before if c not in device.order)
            return card
        assert card is not None
        # an antenna table misses a card that lands outside every antenna's field
        return card

    async def _two_at_once(self, st: _HandState, exp: CardExpectation, card: Card | None,
                           plans: list[FaultPlan]) -> None:
        device = self.device
        plan = _plan(plans, FaultKind.TWO_AT_ONCE)
        if isinstance(device, SimShoe):
            if card is not None:
                device.order.remove(card)
                device.order.insert(0, card)
            second_card = self._next_card(st)
            if second_card is not None:
                device.order.remove(second_card)
                device.order.insert(1, second_card)
            first, second = (self._card_of(r) for r in device.two_at_once())
        else:
            assert card is not None
            first, second = card, self._next_card(st) or card
        self._apply_card(st, exp, first, face_up=isinstance(exp, DealUp))
        nxt = st.hand.expected()
        if not isinstance(nxt, _CARD_EXPECTATIONS):
            raise DealerError(f"two_at_once at card {st.card_no}: no card is dealt after it")
        st.card_no += 1
        if isinstance(device, SimTable):
            target = self._target(exp)
            device.place_many(target, [first, second])
            await self.ports.step()
            device.remove(target, second)
            device.place(self._target(nxt), second)
        self._apply_card(st, nxt, second, face_up=isinstance(nxt, DealUp))
        st.faults.append(FaultRecord(plan, first, f"came out with {second}"))
        await self.ports.step()

    async def _foreign(self, st: _HandState, plan: FaultPlan, exp: CardExpectation) -> None:
        assert self.foreign_deck is not None
        card = plan.foreign or next(iter(self.foreign_deck.uids_by_card))
        uid = bytes.fromhex(self.foreign_deck.uid_for(card))
        device = self.device
        if isinstance(device, SimShoe):
            device.foreign_tag(uid)
        else:
            target = self._target(exp)
            device.place(target, uid)
            await self.ports.step()
            device.remove(target, uid)
        st.faults.append(FaultRecord(plan, card, f"tag of deck {self.foreign_deck.deck_id}"))
        await self.ports.step()
        await self._clear(st, plan)

    def _apply_card(self, st: _HandState, exp: CardExpectation, card: Card, *,
                          face_up: bool, read: bool = True) -> None:
        target = self._target(exp)
        seat = exp.seat if isinstance(exp, DealHole | DealUp | DealDown) else None
        try:
            st.hand.apply(CardIn(card, seat=seat, board=isinstance(exp, DealBoard) or None,
                                 burn=isinstance(exp, Burn) or None))
        except RuleViolation as exc:
            raise DealerError(f"card {card} does not fit: {exc.reason}") from exc
        st.cards.append(DealtCard(card, target, face_up, read))

    async def _manual_card(self, st: _HandState, card: Card, exp: CardExpectation) -> None:
        args: dict[str, object] = {"card": str(card)}
        if isinstance(exp, DealHole | DealUp | DealDown):
            args["seat"] = exp.seat
        elif isinstance(exp, DealBoard):
            args["board"] = True
        else:
            args["burn"] = True
        await self._command(st, "manual_card", args)
        last = st.cards[-1] if st.cards and st.cards[-1].card == card else None
        if last is not None:
            st.cards[-1] = DealtCard(last.card, last.target, last.face_up, read=False)

    @staticmethod
    def _target(exp: Expectation) -> str:
        match exp:
            case DealHole(seat=seat) | DealUp(seat=seat) | DealDown(seat=seat):
                return f"seat{seat}"
            case DealBoard(index=index):
                return f"board{index + 1}"
            case Burn():
                return "burn"
            case _:  # pragma: no cover
                raise DealerError(f"not a card: {exp}")

    def _wrong_antenna(self, target: str) -> str:
        """An antenna the hand does not expect a card on: the first empty seat after the
        target (else the next seat in the hand); for board and burn cards the other one."""
        device = self.device
        assert isinstance(device, SimTable)
        if not target.startswith("seat"):
            return "burn" if target.startswith("board") else "board5"
        seat = int(target[4:])
        numbers = sorted(r.number for r in device.roles if r.kind == "seat" and not r.slot)
        empty = [n for n in numbers if self.stacks.get(n, 0) <= 0]
        if empty:
            after = [n for n in empty if n > seat]
            return f"seat{(after or empty)[0]}"
        seats = sorted(self.stacks)
        return f"seat{seats[(seats.index(seat) + 1) % len(seats)]}"

    # ---- decisions -----------------------------------------------------------------------------

    async def _act(self, st: _HandState, legal: LegalActions) -> None:
        action = self.strategy.choose(st.hand, legal)
        args: dict[str, object] = {"seat": action.seat, "kind": action.kind.value}
        if action.amount is not None:
            args["amount"] = action.amount
        await self._command(st, "action", args)
        try:
            st.hand.apply(action)
        except RuleViolation as exc:
            raise DealerError(f"action {action} refused by the rules: {exc.reason}") from exc
        st.actions.append(action)
        if action.kind is ActionKind.FOLD and isinstance(self.device, SimTable):
            for dealt in st.cards:
                if dealt.target == f"seat{action.seat}":
                    self.device.remove(dealt.target, dealt.card)
                    self.device.place("muck", dealt.card)
            await self.ports.step()

    async def _push(self, st: _HandState) -> None:
        """The pot goes to the winners, the cards are collected, the button moves on."""
        if isinstance(self.device, SimTable):
            self.device.clear()
            await self.ports.step()
        await self._command(st, "next_hand", {})

    async def _command(self, st: _HandState, name: str, args: Mapping[str, object], *,
                       required: bool = True) -> Mapping[str, object]:
        reply = await self.console.command(name, args)
        st.commands.append(CommandRecord(name, dict(args), dict(reply)))
        if self.strict and required and not reply.get("ok", False):
            raise ConsoleRefusedError(name, reply)
        return reply

    async def _clear(self, st: _HandState, plan: FaultPlan) -> None:
        """Clear the read error the daemon raised for ``plan`` (a refusal is not fatal: the
        daemon may not have flagged it, or the console user may not be floor staff)."""
        codes = (plan.clear,) if plan.clear is not None else CLEARS.get(plan.kind, ())
        for code in filter(None, codes):
            reply = await self._command(st, "clear_error", {"code": code}, required=False)
            if reply.get("ok", False):
                return

    async def _clear_missed(self, st: _HandState, attempts: int = 50) -> None:
        """Clear the ``missed_read`` error the daemon raises when its reader reports a card
        that passed unread (or a reboot that may have lost reads). The report travels on the
        serial line and may land a moment after the dealer's manual card: retry while the
        daemon says there is no such error yet (a refusal for another reason is final)."""
        for _ in range(attempts):
            reply = await self._command(st, "clear_error", {"code": "missed_read"},
                                        required=False)
            error = reply.get("error")
            code = error.get("code") if isinstance(error, Mapping) else None
            if reply.get("ok", False) or code != "no_such_error":
                return
            await self.ports.step()

    async def _rebuy_broke(self, st: _HandState) -> None:
        """Every seat left without chips buys its starting stack again (between hands)."""
        for seat, stack in sorted(self.stacks.items()):
            amount = self._buy_ins.get(seat, 0)
            if stack > 0 or amount <= 0:
                continue
            await self._command(st, "adjust_stack", {"seat": seat, "amount": amount,
                                                     "reason": "rebuy"})
            self.stacks[seat] = amount
            self.rebuys.append((st.number, seat, amount))

    def _move_button(self) -> None:
        if self.game.is_stud:
            return
        live = sorted(s for s, v in self.stacks.items() if v > 0)
        if not live:
            return
        after = [s for s in live if s > self.button]
        self.button = after[0] if after else live[0]


def _seat(s: SeatSetup) -> int:
    return s.seat


def _plan(plans: Sequence[FaultPlan], kind: FaultKind) -> FaultPlan:
    return next(p for p in plans if p.kind is kind)

