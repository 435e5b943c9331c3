"""Drivers for controller tests: a table setup on the demo decks, a fake dealer's hands."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tablectl.controller import (
    CardRead,
    Command,
    ControllerInput,
    HandController,
    Location,
    Outcome,
    ReadStatus,
    SeatState,
    TableSetup,
    TableState,
)
from tablectl.domain.cards import FULL_DECK, Card
from tablectl.domain.deck import Deck
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.domain.jsonvalue import JsonValue
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
    Hand,
    SeatSetup,
    Showdown,
    ShowIn,
    Stakes,
)

DECKS_DIR = Path(__file__).resolve().parents[2] / "config" / "decks"
RED = Deck.load(DECKS_DIR / "demo-red.csv")
BLUE = Deck.load(DECKS_DIR / "demo-blue.csv")
DECKS = {"demo-red": RED, "demo-blue": BLUE}
ROLES = {"dealer-t01": "dealer", "floor-t01": "floor", "display-01": "display"}
DEALER, FLOOR = "dealer-t01", "floor-t01"
T0 = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)

FL, PL, NL = BettingStructure.FIXED_LIMIT, BettingStructure.POT_LIMIT, BettingStructure.NO_LIMIT
VARIANTS: list[tuple[GameKind, BettingStructure]] = [
    (GameKind.HOLDEM, NL), (GameKind.HOLDEM, FL), (GameKind.HOLDEM, PL),
    (GameKind.HOLDEM_HI_LO, FL), (GameKind.OMAHA, PL), (GameKind.OMAHA_HI_LO, FL),
    (GameKind.STUD, FL), (GameKind.STUD_HI_LO, FL), (GameKind.RAZZ, FL),
]


def stakes_for(game: GameKind, structure: BettingStructure) -> Stakes:
    if game.is_stud:
        return Stakes(ante=10, bring_in=20, small_bet=50, big_bet=100)
    if structure is FL:
        return Stakes(small_blind=25, big_blind=50, small_bet=50, big_bet=100)
    return Stakes(small_blind=50, big_blind=100)


def make_setup(game: GameKind = GameKind.HOLDEM, structure: BettingStructure = NL,
               **extra: object) -> TableSetup:
    return TableSetup(table="t01", game=game, structure=structure,
                      stakes=stakes_for(game, structure), deck_id="demo-red", decks=DECKS,
                      roles=ROLES, preset=RulesPreset.CASINO, **extra)  # type: ignore[arg-type]


def initial_state(stacks: tuple[int, ...] = (5000, 5000, 5000), button: int = 1,
                  seats: tuple[int, ...] | None = None) -> TableState:
    numbers = seats or tuple(range(1, len(stacks) + 1))
    return TableState.initial([SeatState(n, f"P{n}", s) for n, s in zip(numbers, stacks,
                                                                         strict=True)], button)


@dataclass
class Driver:
    """Feeds a controller, stamping each input one second after the last."""

    ctl: HandController
    now: datetime = T0
    n: int = 0
    inputs: list[ControllerInput] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)

    def tick(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now

    def feed(self, inp: ControllerInput) -> Outcome:
        self.inputs.append(inp)
        out = self.ctl.handle(inp)
        self.outcomes.append(out)
        return out

    def read(self, card: str | Card, *, location: str | None = None, source: str = "shoe",
             antenna: int = 0, status: ReadStatus = ReadStatus.ACCEPTED,
             deck: Deck = RED, uid: str | None = None, confidence: float = 1.0) -> Outcome:
        self.n += 1
        c = card if isinstance(card, Card) else Card.parse(card)
        return self.feed(CardRead(
            source=source if location is None else "table", uid=uid or deck.uid_for(c),
            antenna=antenna, read_id=f"r{self.n}", at=self.tick(),
            location=Location.parse(location) if location else None, status=status,
            confidence=confidence))

    def cmd(self, name: str, /, user: str = DEALER, cid: str | None = None,
            sent_at: datetime | None = None, **args: JsonValue) -> Outcome:
        self.n += 1
        at = self.tick()
        return self.feed(Command(name=name, user=user, id=cid or f"c{self.n}", at=at,
                                 args=args, sent_at=sent_at))

    def act(self, seat: int, kind: str, amount: int | None = None) -> Outcome:
        args: dict[str, JsonValue] = {"seat": seat, "kind": kind}
        if amount is not None:
            args["amount"] = amount
        return self.cmd("action", **args)


def fresh(game: GameKind = GameKind.HOLDEM, structure: BettingStructure = NL, *,
          stacks: tuple[int, ...] = (5000, 5000, 5000), button: int = 1,
          **extra: object) -> Driver:
    return Driver(HandController(make_setup(game, structure, **extra),
                                 initial_state(stacks, button)))


def card_expected(exp: object) -> bool:
    return isinstance(exp, DealHole | DealUp | DealDown | Burn | DealBoard)


class Dealer:
    """A seeded random dealer that drives the controller and, beside it, the engine itself.

    The engine (``mirror``) gets the same cards and decisions directly, so after every step the
    controller's hand must equal it. ``table=True`` deals through table antennas: every card of
    a dealing round is read at its seat or board position in a random order, burns unread.
    """

    def __init__(self, driver: Driver, rng: random.Random, *, table: bool = False) -> None:
        self.d = driver
        self.rng = rng
        self.table = table
        self.mirror: Hand | None = None
        self.cards: list[Card] = []

    def start(self) -> Outcome:
        out = self.d.cmd("start_hand")
        assert out.reply is not None and out.reply.ok, out.reply
        data = out.events[0].data
        setup = self.d.ctl.setup
        seats = [SeatSetup(s["seat"], s["stack"], s["name"])  # type: ignore[index]
                 for s in data["seats"]]  # type: ignore[union-attr]
        button = data["button"]
        self.mirror = Hand.start(game=setup.game, structure=setup.structure,
                                 rules=setup.rule_set, stakes=setup.stakes, seats=seats,
                                 button=button if isinstance(button, int) else 0,
                                 hand_id=str(data["hand"]["id"]))  # type: ignore[index]
        self.cards = list(FULL_DECK)
        self.rng.shuffle(self.cards)
        return out

    def step(self) -> bool:
        """One dealer step (a card, a dealing round, a decision); False once the hand is over."""
        mirror = self.mirror
        assert mirror is not None
        exp = mirror.expected()
        if card_expected(exp):
            if self.table:
                self._table_round(mirror)
            else:
                card = self.cards.pop()
                self.d.read(card)
                mirror.apply(CardIn(card))
        elif isinstance(exp, Act):
            legal = exp.legal
            kind = self.rng.choice(sorted(legal.kinds, key=lambda k: k.value))
            amount: int | None = None
            if kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
                amount = self.rng.choice([legal.min_to, legal.max_to])
            out = self.d.act(exp.seat, kind.value.replace("-", "_"), amount)
            assert out.reply is not None and out.reply.ok, out.reply
            mirror.apply(ActionIn(exp.seat, kind, amount))
        elif isinstance(exp, Showdown):
            out = self.d.cmd("action", seat=exp.seat, kind="show")
            assert out.reply is not None and out.reply.ok, out.reply
            mirror.apply(ShowIn(exp.seat))
        else:
            return False
        return True

    def _table_round(self, mirror: Hand) -> None:
        probe = mirror.copy()
        run = []
        while card_expected(exp := probe.expected()):
            run.append(exp)
            try:
                probe.apply(CardIn(None))
            except ValueError:  # the last card settles a hand of unknown cards
                break
        dealt = [(exp, None if isinstance(exp, Burn) else self.cards.pop()) for exp in run]
        reads: list[tuple[str, Card]] = []
        count = {s.seat: len(s.cards) for s in mirror.view().seats}
        for exp, card in dealt:
            if card is None:
                continue
            if isinstance(exp, DealBoard):
                reads.append((f"board {exp.index + 1}", card))
            else:
                seat = exp.seat  # type: ignore[union-attr]
                count[seat] += 1
                reads.append((f"seat {seat} slot {count[seat]}", card))
        self.rng.shuffle(reads)
        for where, card in reads:
            out = self.d.read(card, location=where, antenna=self.rng.randrange(40))
            assert out.errors == (), out.errors
        for _exp, card in dealt:
            mirror.apply(CardIn(card))

    def play(self, max_steps: int = 500) -> None:
        """Play the started hand to its end, checking the controller against the engine."""
        for _ in range(max_steps):
            if not self.step():
                return
            assert self.d.ctl.hand_view() == self.mirror.view()  # type: ignore[union-attr]
        raise AssertionError("hand did not end")
