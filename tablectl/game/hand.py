"""One hand of poker as a sans-IO state machine: cards and decisions in, events out.

Rules the machine enforces (the house-rule fields it reads are named in brackets; see
``docs/rules.md`` for every rule and its test):

* Seats are ordered clockwise by seat number. Position order starts with the first seat left
  of the button (button games) or of the dealer (stud); the button is last.
* Forced bets are posted when the hand starts: antes, a big-blind ante, then the small blind
  (first seat left of the button; heads-up the button), the big blind and an optional straddle
  (needs three seats). A seat that cannot cover a forced bet is all-in for what it has; the
  others still owe the full big blind. ``Stakes.small_blind == 0`` is a one-blind game.
* Button games deal every hole card one at a time clockwise [first_dealt], then burn [burns]
  and deal 3, 1 and 1 board cards. Stud deals two down cards and one up card (each a round
  from the dealer's left), then up, up, up and a last down card, burning before 4th to 7th
  street; if the deck cannot give every remaining player a 7th-street card [stud_short_deck]:
  one community card, or the burns (and discards) come back into play (``game/stud_deck.py``).
* Betting: pre-flop the seat left of the last blind acts first (heads-up the button), later
  rounds the first live seat left of the button. Stud third street: the lowest up card brings
  in (razz: the highest) [bring_in_card, bring_in_ace_low], later streets the best showing hand
  acts first (razz: the lowest) [stud_opener_tie]. An all-in opener passes the turn on.
  Fixed limit bets the small bet on the first two rounds, the big bet after; stud's bring-in may
  be completed to the small bet. Raise cap [raise_cap]; short all-in raises
  [short_all_in_reopens, limit_raise_after_short_all_in]; raises "to" the most an opponent can
  match [raise_capped_at_effective_stack]; partial bring-in [partial_bring_in]. Pot limit: a
  raise is at most the pot after calling. No limit and pot limit: the minimum raise is the
  larger of the minimum bet and the last full raise. Folding is allowed only facing a bet.
* A betting round ends when every seat that can still bet has acted and matched the highest
  bet; an uncalled bet goes back. When all but one seat fold, that seat wins without a showdown.
* Once a player is all-in and no more betting is possible, every live hand is turned face up
  before the rest is dealt [all_in_face_up]; unread cards must be shown then.
* Showdown: cards speak [showdown_by_input], every pot goes to the best eligible hands, hi-lo
  pots are split high/low only when an eligible player has an 8-or-better low (else high
  takes all); the high half gets the odd unit; ties split chip by chip [odd_chip,
  stud_odd_chip, split_unit]; the house rakes [rake].

Every rejected input raises :class:`RuleViolation` and leaves the hand as it was; an accepted
input is recorded in :attr:`Hand.inputs`, and :meth:`Hand.replay` rebuilds the same hand from
them (a prefix of them rebuilds an earlier moment).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from tablectl.domain.cards import Card
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.game.contest import matchable, nothing_to_decide
from tablectl.game.errors import CardOutOfTurn, DuplicateCard, RuleViolation
from tablectl.game.evaluate import stud_up_card_key
from tablectl.game.model import (
    Act,
    ActionIn,
    ActionKind,
    ActionTaken,
    BetReturned,
    BoardDealt,
    Burn,
    Burned,
    CardDealt,
    CardIn,
    CardsRecycled,
    DealBoard,
    DealDown,
    DealHole,
    DealUp,
    Done,
    Expectation,
    ForcedBet,
    ForcedKind,
    HandEnded,
    HandEvent,
    HandFaceUp,
    HandInput,
    HandView,
    LegalActions,
    MuckIn,
    PotResult,
    PotView,
    SeatCard,
    SeatView,
    Showdown,
    ShowIn,
    Street,
    StreetEnded,
)
from tablectl.game.pots import build_pots
from tablectl.game.rules import (
    BringInCard,
    FirstDealt,
    LimitRaiseAfterShortAllIn,
    PartialBringIn,
    Reopen,
    RuleSet,
    ShortBigBlind,
    Stakes,
    StudOpenerTie,
)
from tablectl.game.start_check import check_start
from tablectl.game.stud_deck import plan_seventh

BOARD_STREETS: Final = (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)
STUD_STREETS: Final = (Street.THIRD, Street.FOURTH, Street.FIFTH, Street.SIXTH, Street.SEVENTH)
HOLE_CARDS: Final[Mapping[GameKind, int]] = {
    GameKind.HOLDEM: 2, GameKind.HOLDEM_HI_LO: 2, GameKind.OMAHA: 4, GameKind.OMAHA_HI_LO: 4,
}
_BOARD_DEAL: Final = {Street.FLOP: (0, 1, 2), Street.TURN: (3,), Street.RIVER: (4,)}
_ONE_BET: Final = frozenset({ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE})
_FOLD_CALL: Final = frozenset({ActionKind.FOLD, ActionKind.CALL})
_CHECK: Final = frozenset({ActionKind.CHECK})
_CARD_EXPECTATIONS: Final = (DealHole, DealUp, DealDown, Burn, DealBoard)
_CARD_EXPECTATION_TYPES: Final = frozenset(_CARD_EXPECTATIONS)
_WAGER_KINDS: Final = {(facing, kind): (_FOLD_CALL if facing else _CHECK) | {kind}
                       for facing in (False, True) for kind in _ONE_BET}


@dataclass(frozen=True, slots=True)
class SeatSetup:
    """A seat taking part in the hand: its number, chips (chip units) and a display name."""

    seat: int
    stack: int
    name: str = ""


@dataclass(frozen=True, slots=True)
class HandStart:
    """Everything :meth:`Hand.start` was called with; with the inputs it rebuilds a hand."""

    game: GameKind
    structure: BettingStructure
    rules: RuleSet
    stakes: Stakes
    seats: tuple[SeatSetup, ...]
    button: int
    hand_id: str = ""


class _Player:
    __slots__ = ("acted", "acted_level", "acted_marker", "all_in", "bet", "cards", "committed",
                 "folded", "mucked", "name", "seat", "stack", "start", "up")

    def __init__(self, setup: SeatSetup) -> None:
        self.seat = setup.seat
        self.name = setup.name
        self.start = setup.stack
        self.stack = setup.stack
        self.bet = 0
        self.committed = 0
        self.folded = False
        self.mucked = False
        self.all_in = False
        self.cards: list[Card | None] = []
        self.up: list[bool] = []
        self.acted = False
        self.acted_marker = -1
        self.acted_level = 0

    def pay(self, amount: int) -> int:
        paid = amount if amount <= self.stack else self.stack
        self.stack -= paid
        self.bet += paid
        self.committed += paid
        if self.stack == 0:
            self.all_in = True
        return paid


class Hand:
    """A hand in progress (or finished). Create with :meth:`start` or :meth:`replay`.

    Not thread-safe; cheap to rebuild with :meth:`replay` (that is also how to copy it).
    """

    def __init__(self, start: HandStart) -> None:
        check_start(start)
        self._start = start
        self._game = start.game
        self._rules = start.rules
        self._stakes = start.stakes
        self._stud = start.game.is_stud
        self._limit = start.structure is BettingStructure.FIXED_LIMIT
        self._pot_limit = start.structure is BettingStructure.POT_LIMIT
        self._cap_bets = start.rules.raise_cap.bets if self._limit else None
        self._complete_mode = (start.rules.limit_raise_after_short_all_in
                               is LimitRaiseAfterShortAllIn.COMPLETE)
        self._effective_cap = start.rules.raise_capped_at_effective_stack
        self._reopen_adds_up = start.rules.short_all_in_reopens is Reopen.FULL_BET
        ordered = sorted(start.seats, key=lambda s: (s.seat <= start.button, s.seat))
        self._p = [_Player(s) for s in ordered]
        self._by_seat = {p.seat: i for i, p in enumerate(self._p)}
        self._n = len(self._p)
        self._streets = STUD_STREETS if self._stud else BOARD_STREETS
        self._street_index = -1
        self._street = self._streets[0]
        self._board: list[Card | None] = []
        self._burns: list[Card | None] = []
        self._seen: set[int] = set()  # card_key() of every card dealt, burned or shown
        self._dealt_count = 0
        self._queue: list[Expectation] = []
        self._queue_at = 0
        self._live = len(self._p)
        self._expect: Expectation = Done()
        self._inputs: list[HandInput] = []
        self._events: list[HandEvent] = []
        self._results: tuple[PotResult, ...] = ()
        self._rake_total = 0
        self._dead = 0
        self._showdown_queue: list[int] = []
        self._face_up: set[int] = set()  # hands turned face up for an all-in [all_in_face_up]
        self._run_out = False             # their shows are awaited, then the rest is dealt
        # betting round state
        self._level = 0
        self._full_level = 0
        self._min_inc = 0
        self._bets_count = 0
        self._marker = 0
        self._cap_lifted = False
        self._to_act: int | None = None
        self._bring_in_pending = False
        self._wagered = False
        self._last_aggressor: int | None = None
        self._big_blind_index: int | None = None
        self._last_blind_index: int | None = None
        self._done = False
        self._recycle_burn = False
        self._recycled: set[int] = set()
        events: list[HandEvent] = []
        self._post_forced(events)
        self._begin_street(0, events)
        self._events.extend(events)

    # --- construction -------------------------------------------------------------------

    @classmethod
    def start(cls, *, game: GameKind, structure: BettingStructure, rules: RuleSet,
              stakes: Stakes, seats: Sequence[SeatSetup], button: int,
              hand_id: str = "") -> Hand:
        """Start a hand: order the seats, post the forced bets, expect the first card.

        Args:
            game: the game dealt.
            structure: its betting structure (must be one :data:`ALLOWED_STRUCTURES` allows).
            rules: the house rules.
            stakes: forced bets and bet sizes in chip units.
            seats: 2 to 10 seats (stud: 8) with distinct numbers and positive stacks.
            button: the button's (stud: the dealer's) seat number; need not be a seat in
                the hand (a dead button).
            hand_id: an identifier for logs and hand histories.

        Raises:
            HandSetupError: the seats, stakes or structure do not make a hand.
        """
        return cls(HandStart(game, structure, rules, stakes, tuple(seats), button, hand_id))

    @classmethod
    def replay(cls, start: HandStart, inputs: Iterable[HandInput]) -> Hand:
        """Rebuild a hand from its start and inputs (raises RuleViolation on a bad input)."""
        hand = cls(start)
        for inp in inputs:
            hand.apply(inp)
        return hand

    def copy(self) -> Hand:
        """An independent hand in the same state (rebuilt by replay)."""
        return Hand.replay(self._start, self._inputs)

    # --- read-only state ---------------------------------------------------------------------

    @property
    def start_args(self) -> HandStart:
        """What the hand was started with."""
        return self._start

    @property
    def inputs(self) -> tuple[HandInput, ...]:
        """Every accepted input, in order."""
        return tuple(self._inputs)

    @property
    def events(self) -> tuple[HandEvent, ...]:
        """Every event so far, forced bets first."""
        return tuple(self._events)

    @property
    def is_done(self) -> bool:
        """True once every pot is awarded."""
        return self._done

    @property
    def results(self) -> tuple[PotResult, ...]:
        """How each pot was settled (empty until the hand is done)."""
        return self._results

    @property
    def rake(self) -> int:
        """Chips the house took."""
        return self._rake_total

    @property
    def street(self) -> Street | None:
        """The current street (the last one once the hand is done)."""
        return self._streets[self._street_index] if self._street_index >= 0 else None

    @property
    def final_stacks(self) -> Mapping[int, int]:
        """Seat number -> stack (the current stacks while the hand is running)."""
        return {p.seat: p.stack for p in sorted(self._p, key=lambda q: q.seat)}

    @property
    def position_seats(self) -> tuple[int, ...]:
        """Seat numbers in position order (first left of the button; the button last)."""
        return tuple(p.seat for p in self._p)

    def hole_cards(self, seat: int) -> tuple[Card | None, ...]:
        """The cards dealt to ``seat`` so far (None for unknown ones)."""
        return tuple(self._p[self._index_of(seat)].cards)

    @property
    def board(self) -> tuple[Card | None, ...]:
        """Board cards so far (stud: the community card, if one was dealt)."""
        return tuple(self._board)

    def back_in_play(self, card: Card) -> bool:
        """Whether ``card`` was dealt (or burned) before but came back into play and may be
        dealt once more (stud's seventh street, ``RuleSet.stud_short_deck``)."""
        key = card_key(card)
        return key in self._recycled and key not in self._seen

    def expected(self) -> Expectation:
        """What the hand needs next."""
        return self._expect

    def legal_actions(self) -> LegalActions | None:
        """The legal actions of the seat to act, or None when no decision is expected."""
        exp = self._expect
        return exp.legal if isinstance(exp, Act) else None

    def view(self) -> HandView:
        """A frozen snapshot of the hand."""
        seats = tuple(
            SeatView(p.seat, p.name, p.stack, p.bet, p.committed, p.folded, p.all_in,
                     tuple(SeatCard(c, u) for c, u in zip(p.cards, p.up, strict=True)))
            for p in sorted(self._p, key=lambda q: q.seat))
        return HandView(
            hand_id=self._start.hand_id, game=self._game, structure=self._start.structure,
            button=self._start.button, street=self.street, seats=seats,
            board=tuple(self._board), burns=tuple(self._burns), pots=self.pots(),
            to_act=self._p[self._to_act].seat if isinstance(self._expect, Act)
            and self._to_act is not None else None,
            expected=self._expect, results=self._results, rake=self._rake_total)

    def pots(self) -> tuple[PotView, ...]:
        """Pots collected so far (this street's bets not included; empty once awarded)."""
        if self._done:
            return ()
        committed = [p.committed - p.bet for p in self._p]
        live = [not p.folded for p in self._p]
        return tuple(PotView(amount, tuple(self._p[i].seat for i in eligible))
                     for amount, eligible in build_pots(committed, live, dead=self._dead))

    # --- verify / can / do -------------------------------------------------------------------

    def verify(self, inp: HandInput) -> None:
        """Raise :class:`RuleViolation` if ``inp`` is not acceptable now; change nothing."""
        match inp:
            case CardIn():
                self._verify_card(inp)
            case ActionIn():
                self._verify_action(inp)
            case ShowIn() | MuckIn():
                self._verify_showdown(inp)
            case _:
                raise RuleViolation(f"not a hand input: {inp!r}", self._expect)

    def can(self, inp: HandInput) -> bool:
        """Whether :meth:`apply` would accept ``inp``."""
        try:
            self.verify(inp)
        except RuleViolation:
            return False
        return True

    def apply(self, inp: HandInput) -> tuple[HandEvent, ...]:
        """Apply one input and return the events it caused.

        Raises:
            RuleViolation: the input is not acceptable now (DuplicateCard, CardOutOfTurn or
                a plain RuleViolation for decisions); the hand is unchanged.
        """
        events: list[HandEvent] = []
        kind = type(inp)
        if kind is CardIn:
            exp = self._expect
            card_in: CardIn = inp  # type: ignore[assignment]
            card = card_in.card
            if (card_in.seat is None and card_in.board is None and card_in.burn is None
                    and type(exp) in _CARD_EXPECTATION_TYPES):
                # the common case (a shoe or a replay): only the card itself is checked
                if card is not None:
                    key = card_key(card)
                    if key in self._seen:
                        raise DuplicateCard(f"{card} was already dealt in this hand", exp)
                    self._seen.add(key)
            else:
                self._verify_card(card_in)
                if card is not None:
                    self._seen.add(card_key(card))
            self._do_card(exp, card, events)
        elif kind is ActionIn:
            self._verify_action(inp)  # type: ignore[arg-type]
            self._do_action(inp, events)  # type: ignore[arg-type]
        else:
            self.verify(inp)
            self._do_showdown(inp, events)  # type: ignore[arg-type]
        self._inputs.append(inp)
        self._events.extend(events)
        return tuple(events)

    # --- cards ---------------------------------------------------------------------------------

    def _verify_card(self, inp: CardIn) -> None:
        exp = self._expect
        if not isinstance(exp, _CARD_EXPECTATIONS):
            raise CardOutOfTurn("no card is expected now", exp)
        if isinstance(exp, Burn | DealBoard):
            if inp.seat is not None:
                raise CardOutOfTurn(f"a card for seat {inp.seat}, but the next card is "
                                    f"{'a burn' if isinstance(exp, Burn) else 'a board card'}",
                                    exp)
        elif inp.seat is not None and inp.seat != exp.seat:
            raise CardOutOfTurn(f"a card for seat {inp.seat}, but the next card is for seat "
                                f"{exp.seat}", exp)
        if inp.board is not None and inp.board != isinstance(exp, DealBoard):
            raise CardOutOfTurn("board card flag disagrees with the next card", exp)
        if inp.burn is not None and inp.burn != isinstance(exp, Burn):
            raise CardOutOfTurn("burn flag disagrees with the next card", exp)
        if inp.card is not None and card_key(inp.card) in self._seen:
            raise DuplicateCard(f"{inp.card} was already dealt in this hand", exp)

    def _do_card(self, exp: Expectation, card: Card | None, events: list[HandEvent]) -> None:
        self._dealt_count += 1
        street = self._street
        kind = type(exp)
        if kind is Burn:
            self._burns.append(card)
            events.append(Burned(card, street))
            if self._recycle_burn and card is not None:   # joins the recycled cards
                self._seen.discard(card_key(card))
                self._recycled.add(card_key(card))
        elif kind is DealBoard:
            self._board.append(card)
            events.append(BoardDealt(card, exp.index, street))  # type: ignore[union-attr]
        else:
            p = self._p[self._by_seat[exp.seat]]  # type: ignore[union-attr]
            face_up = kind is DealUp
            p.cards.append(card)
            p.up.append(face_up)
            events.append(CardDealt(p.seat, card, face_up, street))
        self._queue_at += 1
        if self._queue_at < len(self._queue):
            self._expect = self._queue[self._queue_at]
        else:
            self._open_betting(events)

    # --- actions -------------------------------------------------------------------------------

    def _verify_action(self, inp: ActionIn) -> None:
        exp = self._expect
        if not isinstance(exp, Act):
            raise RuleViolation(f"seat {inp.seat} may not act: no decision is expected now",
                                exp)
        legal = exp.legal
        if inp.seat != exp.seat:
            raise RuleViolation(f"seat {inp.seat} acted out of turn: seat {exp.seat} is to act",
                                exp)
        if inp.kind not in legal.kinds:
            why = {
                ActionKind.CHECK: f": {legal.call_amount} to call",
                ActionKind.FOLD: ": checking is free",
                ActionKind.CALL: ": nothing to call",
            }.get(inp.kind, "")
            if inp.kind in _ONE_BET and legal.bet_kind is not None:
                why = f": a wager now is a {legal.bet_kind.value}"
            elif inp.kind in _ONE_BET:
                why = ": no more wagers are allowed (capped, not reopened, or nobody to bet into)"
            allowed = ", ".join(sorted(k.value for k in legal.kinds))
            raise RuleViolation(f"seat {inp.seat} may not {inp.kind.value}{why} "
                                f"(allowed: {allowed})", exp)
        if inp.kind in _ONE_BET:
            amount = inp.amount
            if amount is None:
                raise RuleViolation(f"{inp.kind.value} needs a 'to' amount "
                                    f"({legal.min_to}..{legal.max_to})", exp)
            if self._limit:
                if amount not in (legal.min_to, legal.max_to):
                    allowed_to = sorted({legal.min_to, legal.max_to})
                    raise RuleViolation(
                        f"fixed limit: seat {inp.seat} may {inp.kind.value} only to "
                        f"{' or '.join(map(str, allowed_to))}, not {amount}", exp)
            elif not legal.min_to <= amount <= legal.max_to:
                raise RuleViolation(f"seat {inp.seat} may {inp.kind.value} to "
                                    f"{legal.min_to}..{legal.max_to}, not {amount}", exp)
        elif inp.amount is not None:
            expected_amount = {ActionKind.CALL: legal.call_amount,
                               ActionKind.BRING_IN: legal.bring_in_amount}.get(inp.kind, 0)
            if inp.amount not in (expected_amount, self._p[self._by_seat[inp.seat]].bet
                                  + expected_amount):
                raise RuleViolation(f"{inp.kind.value} amount {inp.amount} is wrong "
                                    f"(it adds {expected_amount})", exp)

    def _act(self, i: int) -> Act:
        """The Act expectation (with its legal actions) for player index ``i``."""
        p = self._p[i]
        level = self._level
        owe = level - p.bet
        stack = p.stack
        if owe > 0:
            owe = matchable(self._p, i, level) - p.bet
        call = (owe if owe <= stack else stack) if owe > 0 else 0
        if self._bring_in_pending:
            bring = min(self._stakes.bring_in, p.stack)
            kinds = {ActionKind.BRING_IN}
            min_to = max_to = 0
            if p.stack > bring:
                kinds.add(ActionKind.COMPLETE)
                min_to = max_to = min(self._stakes.small_bet, p.stack + p.bet)
            return Act(p.seat, LegalActions(
                p.seat, frozenset(kinds), 0, bring,
                ActionKind.COMPLETE if ActionKind.COMPLETE in kinds else None, min_to, max_to))
        facing = owe > 0
        if not self._may_wager(i, call):
            key = (p.seat, facing, -1, call, 0, 0)
            act = _ACTS.get(key)
            if act is None:
                act = _remember(key, LegalActions(p.seat, _FOLD_CALL if facing else _CHECK, call))
            return act
        allin_to = p.stack + p.bet
        if level == 0:
            code = 0
        elif (self._stud and self._street_index == 0 and not self._wagered
              and level < self._stakes.small_bet):
            code = 1
        else:
            code = 2
        if self._limit:
            size = self._bet_size()
            if code == 1:
                target = self._stakes.small_bet
            elif level == 0:
                target = size
            elif self._complete_mode and self._full_level + size > level:
                target = self._full_level + size
            else:
                target = level + size
            min_to = max_to = target if target <= allin_to else allin_to
        else:
            inc = self._min_inc
            min_to = min(level + inc if level else inc, allin_to)
            max_to = allin_to
            if self._pot_limit:
                pot = sum(q.committed for q in self._p) + self._dead
                max_to = min(allin_to, level + pot + owe) if level else min(allin_to, pot)
                max_to = max(max_to, min_to)
        if self._effective_cap:
            effective = max(q.stack + q.bet for j, q in enumerate(self._p)
                            if j != i and not q.folded)
            if level < effective < min_to:
                min_to = effective
        key = (p.seat, facing, code, call, min_to, max_to)
        act = _ACTS.get(key)
        if act is None:
            act = _remember(key, LegalActions(p.seat, _WAGER_KINDS[facing, _BET_KINDS[code]],
                                              call, 0, _BET_KINDS[code], min_to, max_to))
        return act

    def _may_wager(self, i: int, call: int) -> bool:
        p = self._p[i]
        if p.stack <= call:
            return False
        level = self._level
        cap = self._cap_bets
        if cap is not None and not self._cap_lifted and self._bets_count >= cap:
            return False
        if p.acted and p.acted_marker >= self._marker and not (
                self._reopen_adds_up
                and level - p.acted_level >= (self._bet_size() if self._limit
                                              else self._min_inc)):
            return False
        for q in self._p:  # noqa: SIM110 (a plain loop: this runs for every decision)
            if q.stack + q.bet > level and q is not p and not q.folded:
                return True
        return False

    def _bet_size(self) -> int:
        return self._stakes.small_bet if self._street_index < 2 else self._stakes.big_bet

    def _do_action(self, inp: ActionIn, events: list[HandEvent]) -> None:
        i = self._by_seat[inp.seat]
        p = self._p[i]
        legal = self._expect.legal if isinstance(self._expect, Act) else None
        assert legal is not None
        kind = inp.kind
        added = 0
        if kind is ActionKind.FOLD:
            p.folded = True
            self._live -= 1
        elif kind is ActionKind.CALL:
            added = p.pay(legal.call_amount)
        elif kind is ActionKind.BRING_IN:
            added = p.pay(legal.bring_in_amount)
            self._bring_in_pending = False
            if (p.all_in and self._rules.partial_bring_in is PartialBringIn.FULL_BRING_IN):
                self._level = max(self._level, self._stakes.bring_in)
            else:
                self._level = max(self._level, p.bet)
        elif kind in _ONE_BET:
            assert inp.amount is not None
            target = inp.amount
            before = self._level
            self._bring_in_pending = False
            added = p.pay(target - p.bet)
            self._level = max(before, p.bet)
            self._register_wager(p, before)
            self._wagered = True
        p.acted = True
        p.acted_marker = self._marker
        p.acted_level = self._level
        events.append(ActionTaken(p.seat, kind, added, p.bet, p.all_in))
        if self._live == 1:
            self._end_street(events)
            return
        self._advance(i, events)

    def _register_wager(self, p: _Player, before: int) -> None:
        level = self._level
        inc = self._bet_size() if self._limit else self._min_inc
        rule = self._rules.short_all_in_reopens
        deemed = False
        if not p.all_in or (self._rules.first_raise_reopens and not self._wagered):
            full = True
        elif rule is Reopen.HALF_BET and self._limit:
            full = 2 * (level - self._full_level) >= inc
            deemed = full and level < self._full_level + inc
        else:  # FULL_BET adds up short all-ins per player, in _may_wager
            full = level - before >= inc
        if full:
            if not self._limit:
                self._min_inc = max(self._min_inc, level - before)
            # half-bet rule: the short all-in counts as the full raise it fell short of
            self._full_level = self._full_level + inc if deemed else level
            self._marker += 1
            self._last_aggressor = self._by_seat[p.seat]
        cap = self._rules.raise_cap
        if (full or cap.short_all_in_counts) and (
                cap.completion_counts or not self._stud or self._street_index
                or before >= self._stakes.small_bet):
            self._bets_count += 1

    def _needs_action(self, j: int) -> bool:
        q = self._p[j]
        if q.folded or q.all_in:
            return False
        if q.bet < self._level:
            return True
        if q.acted:
            return False
        return any(not r.folded and not r.all_in for r in self._p if r is not q)

    def _advance(self, i: int, events: list[HandEvent]) -> None:
        players = self._p
        if nothing_to_decide(players):
            self._end_street(events)
            return
        n = self._n
        level = self._level
        for step in range(1, n + 1):
            j = (i + step) % n
            q = players[j]
            if q.folded or q.all_in or (q.acted and q.bet >= level):
                continue
            if q.bet < level or self._needs_action(j):
                self._to_act = j
                self._expect = self._act(j)
                return
        self._end_street(events)

    # --- streets -----------------------------------------------------------------------------

    def _post_forced(self, events: list[HandEvent]) -> None:
        stakes = self._stakes
        if stakes.ante:
            for p in self._p:
                amount = p.pay(stakes.ante)
                events.append(ForcedBet(p.seat, ForcedKind.ANTE, amount, p.all_in))
        if self._stud:
            for p in self._p:
                p.bet = 0
            return
        n = self._n
        blinds: list[tuple[int, ForcedKind, int]] = []
        if stakes.small_blind:
            sb, bb = (n - 1, 0) if n == 2 else (0, 1)
            blinds += [(sb, ForcedKind.SMALL_BLIND, stakes.small_blind),
                       (bb, ForcedKind.BIG_BLIND, stakes.big_blind)]
        else:
            bb = 0
            blinds.append((bb, ForcedKind.BIG_BLIND, stakes.big_blind))
        if stakes.straddle and n >= 3:
            blinds.append(((bb + 1) % n, ForcedKind.STRADDLE, stakes.straddle))
        self._big_blind_index = bb
        if stakes.big_blind_ante:
            # one ante for the table: dead money in the main pot, not part of the big
            # blind's own stake when side pots are built
            p = self._p[bb]
            amount = p.pay(stakes.big_blind_ante)
            p.committed -= amount
            self._dead += amount
            events.append(ForcedBet(p.seat, ForcedKind.BIG_BLIND_ANTE, amount, p.all_in))
        for p in self._p:
            p.bet = 0
        level = 0
        full_blind = self._rules.short_big_blind is ShortBigBlind.FULL_BLIND
        for index, kind, amount in blinds:
            p = self._p[index]
            paid = p.pay(amount)
            events.append(ForcedBet(p.seat, kind, paid, p.all_in))
            if kind is not ForcedKind.SMALL_BLIND:
                level = max(level, amount if full_blind else paid)
        self._last_blind_index = blinds[-1][0]
        self._level = max([level, *(p.bet for p in self._p)])
        self._full_level = self._level
        self._min_inc = max(stakes.min_bet or stakes.big_blind, stakes.straddle if n >= 3 else 0)
        counted = 0
        if self._rules.raise_cap.blind_counts:
            counted = sum(1 for _, kind, _ in blinds if kind is not ForcedKind.SMALL_BLIND)
        self._bets_count = counted

    def _begin_street(self, k: int, events: list[HandEvent]) -> None:
        self._street_index = k
        self._street = street = self._streets[k]
        queue: list[Expectation] = []
        live = [p for p in self._p if not p.folded]
        if k > 0 and self._rules.burns:
            queue.append(_intern(Burn, street))
        if self._stud:
            if k == 0:
                for _ in range(2):
                    queue += [_intern(DealDown, p.seat, street) for p in live]
                queue += [_intern(DealUp, p.seat, street) for p in live]
            elif k < 4:
                queue += [_intern(DealUp, p.seat, street) for p in live]
            else:
                plan = plan_seventh(
                    self._rules.stud_short_deck, stub=52 - self._dealt_count,
                    players=len(live), burns=len(self._burns),
                    discards=sum(len(p.cards) for p in self._p if p.folded),
                    burning=self._rules.burns)
                if self._rules.burns and not plan.burn:
                    queue.pop(0)
                if plan.recycle:
                    self._recycle(plan.discards, events)
                queue += ([_intern(DealBoard, 0)] if plan.community
                          else [_intern(DealDown, p.seat, street) for p in live])
        elif k == 0:
            first = 0
            if (self._rules.first_dealt is FirstDealt.LEFT_OF_BIG_BLIND
                    and self._big_blind_index is not None):
                first = (self._big_blind_index + 1) % self._n
            order = tuple(self._p[(first + j) % self._n].seat for j in range(self._n))
            queue = _hole_queue(order, HOLE_CARDS[self._game])
        else:
            queue += _BOARD_QUEUES[street]
        self._queue = queue
        self._queue_at = 0
        if queue:
            self._expect = queue[0]
        else:
            self._open_betting(events)

    def _recycle(self, discards: bool, events: list[HandEvent]) -> None:
        """Seventh street ran short: the burns (and discards) may be dealt once more."""
        back = [c for c in self._burns if c is not None]
        if discards:
            back += [c for p in self._p if p.folded for c in p.cards if c is not None]
        for card in back:
            self._seen.discard(card_key(card))
            self._recycled.add(card_key(card))
        self._recycle_burn = True
        events.append(CardsRecycled(tuple(back), self._street, True))

    def _open_betting(self, events: list[HandEvent]) -> None:
        k = self._street_index
        for p in self._p:
            p.acted = False
            p.acted_marker = -1
        self._last_aggressor = None
        self._wagered = False
        contenders = sum(1 for p in self._p if not p.folded)
        self._cap_lifted = self._rules.raise_cap.lifted_heads_up and contenders == 2
        if k > 0 or self._stud:
            self._level = 0
            self._full_level = 0
            self._min_inc = self._stakes.min_bet or self._stakes.big_blind or \
                self._stakes.small_bet
            self._bets_count = 0
        if not self._stud and k == 0:
            assert self._last_blind_index is not None
            start = self._last_blind_index
            self._advance(start, events)
            return
        if self._stud:
            opener = self._stud_opener()
            if k == 0 and self._stakes.bring_in and not nothing_to_decide(self._p):
                # an all-in low card passes the bring-in to the next seat that can post it
                for step in range(self._n):
                    j = (opener + step) % self._n
                    if not self._p[j].folded and not self._p[j].all_in:
                        opener = j
                        break
                else:
                    self._advance(opener, events)
                    return
                self._bring_in_pending = True
                self._to_act = opener
                self._expect = self._act(opener)
                return
            self._advance((opener - 1) % self._n, events)
            return
        self._advance(self._n - 1, events)

    def _stud_opener(self) -> int:
        live = [i for i, p in enumerate(self._p) if not p.folded]
        razz = self._game is GameKind.RAZZ
        if self._street_index == 0:
            def up_key(i: int) -> tuple[int, int]:
                card = self._p[i].cards[2]
                if card is None:  # unknown up card: never the bring-in
                    return (99, 99)
                if self._game is GameKind.STUD_HI_LO:
                    if self._rules.bring_in_card is BringInCard.HIGHEST:
                        key = stud_up_card_key(card, low=False)
                        return (-key[0], -key[1])
                    if self._rules.bring_in_ace_low:
                        return (card.rank.low_value, card.suit.order)
                return stud_up_card_key(card, low=razz)
            best = min(live, key=lambda i: (up_key(i), i))
        else:
            tie_by_suit = self._rules.stud_opener_tie is StudOpenerTie.HIGH_CARD_BY_SUIT
            best = min(live, key=lambda i: (_showing_key(self._p[i], razz, tie_by_suit), i))
        return best

    def _end_street(self, events: list[HandEvent]) -> None:
        street = self._street
        top = self._p[0]
        second = 0
        for p in self._p[1:]:  # the highest bet and the next highest
            if p.bet > top.bet:
                second = top.bet
                top = p
            elif p.bet > second:
                second = p.bet
        if top.bet > second:
            back = top.bet - second
            top.stack += back
            top.committed -= back
            top.bet -= back
            if top.stack:
                top.all_in = False
            events.append(BetReturned(top.seat, back))
        for p in self._p:
            p.bet = 0
        self._level = 0
        self._to_act = None
        self._bring_in_pending = False
        events.append(StreetEnded(street, self.pots()))
        if self._live == 1:
            self._settle(events, showdown=False)
        elif self._rules.all_in_face_up and not self._face_up and nothing_to_decide(self._p):
            self._turn_face_up(events)
        else:
            self._next_street(events)

    def _next_street(self, events: list[HandEvent]) -> None:
        if self._street_index + 1 < len(self._streets):
            self._begin_street(self._street_index + 1, events)
        else:
            self._start_showdown(events)

    # --- showdown ----------------------------------------------------------------------------

    def _showdown_order(self) -> list[int]:
        live = [i for i, p in enumerate(self._p) if not p.folded]
        first = self._last_aggressor if self._last_aggressor in live else live[0]
        start = live.index(first) if first is not None else 0
        return live[start:] + live[:start]

    def _to_show(self, order: list[int]) -> list[int]:
        """Who must show by input: everybody not yet face up [showdown_by_input], else the
        hands with unread cards."""
        by_input = self._rules.showdown_by_input
        return [i for i in order if None in self._p[i].cards
                or (by_input and i not in self._face_up)]

    def _turn_face_up(self, events: list[HandEvent]) -> None:
        """An all-in and no more betting: every live hand face up, then the rest is dealt."""
        order = self._showdown_order()
        self._showdown_queue = self._to_show(order)
        self._face_up = set(order)
        for i in order:
            if i not in self._showdown_queue:
                p = self._p[i]
                events.append(HandFaceUp(p.seat, tuple(p.cards), self._street))
        self._run_out = True
        self._next_showdown(events)

    def _start_showdown(self, events: list[HandEvent]) -> None:
        self._showdown_queue = self._to_show(self._showdown_order())
        self._next_showdown(events)

    def _next_showdown(self, events: list[HandEvent]) -> None:
        if self._showdown_queue:
            self._expect = Showdown(self._p[self._showdown_queue[0]].seat, self._run_out)
            return
        if self._run_out:
            self._run_out = False
            self._next_street(events)
            return
        self._settle(events, showdown=True)

    def _verify_showdown(self, inp: ShowIn | MuckIn) -> None:
        exp = self._expect
        if not isinstance(exp, Showdown):
            raise RuleViolation("no showdown decision is expected now", exp)
        if inp.seat != exp.seat:
            raise RuleViolation(f"seat {inp.seat} is not next to show: seat {exp.seat} is",
                                exp)
        p = self._p[self._by_seat[inp.seat]]
        if isinstance(inp, ShowIn):
            if inp.cards is None:
                if None in p.cards:
                    raise RuleViolation(f"seat {inp.seat}'s cards are unknown: show them", exp)
                return
            known = [c for c in p.cards if c is not None]
            if len(inp.cards) != len(p.cards) or len(set(inp.cards)) != len(inp.cards):
                raise RuleViolation(f"seat {inp.seat} holds {len(p.cards)} cards", exp)
            if any(c not in inp.cards for c in known):
                raise RuleViolation(f"shown cards disagree with seat {inp.seat}'s known cards",
                                    exp)
            for c in inp.cards:
                if c not in known and card_key(c) in self._seen:
                    raise DuplicateCard(f"{c} was already dealt in this hand", exp)
        elif isinstance(inp, MuckIn) and exp.run_out:
            raise RuleViolation(f"seat {inp.seat} is all-in or covers the all-ins: its hand "
                                "is turned face up, not mucked", exp)
        elif isinstance(inp, MuckIn) and sum(1 for q in self._p if not q.folded
                                             and not q.mucked) == 1:
            raise RuleViolation("the last hand in may not muck", exp)

    def _do_showdown(self, inp: ShowIn | MuckIn, events: list[HandEvent]) -> None:
        p = self._p[self._by_seat[inp.seat]]
        if isinstance(inp, MuckIn):
            p.mucked = True
        elif inp.cards is not None:
            missing = [c for c in inp.cards if c not in p.cards]
            for k, c in enumerate(p.cards):
                if c is None:
                    p.cards[k] = missing.pop(0)
                    self._seen.add(card_key(p.cards[k]))  # type: ignore[arg-type]
        if self._run_out:
            events.append(HandFaceUp(p.seat, tuple(p.cards), self._street))
        self._showdown_queue.pop(0)
        self._next_showdown(events)

    def _settle(self, events: list[HandEvent], *, showdown: bool) -> None:
        from tablectl.game.showdown import settle

        results, award_events, rake = settle(
            game=self._game, rules=self._rules, players=self._p, board=self._board,
            dead=self._dead, showdown=showdown, first_round=self._street_index == 0)
        for ev in award_events:
            events.append(ev)
        for result in results:
            for award in result.awards:
                self._p[self._by_seat[award.seat]].stack += award.amount
        self._results = results
        self._rake_total = rake
        for p in self._p:
            p.bet = 0
        self._done = True
        self._to_act = None
        self._expect = Done()
        events.append(HandEnded(tuple(sorted((p.seat, p.stack) for p in self._p))))

    def _index_of(self, seat: int) -> int:
        try:
            return self._by_seat[seat]
        except KeyError:
            raise ValueError(f"seat {seat} is not in this hand") from None


_CARD_KEYS: dict[int, tuple[Card, int]] = {}


def card_key(card: Card) -> int:
    """``card.index`` (0..51), remembered per card object.

    Hashing a Card runs Python code for its two enums; the engine looks cards up on every
    deal, so it keys them by this int instead. The memo holds each card object it has seen
    (so an ``id`` is never reused while remembered) and is cleared when it grows large.
    """
    entry = _CARD_KEYS.get(id(card))
    if entry is not None and entry[0] is card:
        return entry[1]
    if len(_CARD_KEYS) >= _INTERN_LIMIT:
        _CARD_KEYS.clear()
    index = card.index
    _CARD_KEYS[id(card)] = (card, index)
    return index


_ACTS: dict[tuple[int, bool, int, int, int, int], Act] = {}
_BET_KINDS: Final = (ActionKind.BET, ActionKind.COMPLETE, ActionKind.RAISE)


def _remember(key: tuple[int, bool, int, int, int, int], legal: LegalActions) -> Act:
    """Share one Act value per distinct legal situation (keys are plain ints, so looking one
    up is cheaper than building it); bounded like ``_intern``."""
    if len(_ACTS) >= _INTERN_LIMIT:
        _ACTS.clear()
    act = _ACTS[key] = Act(legal.seat, legal)
    return act


_INTERNED: dict[tuple[object, ...], object] = {}
_INTERN_LIMIT: Final = 1 << 16
_T = TypeVar("_T")


def _intern(cls: Callable[..., _T], *args: object) -> _T:
    """One shared instance per distinct value of an immutable engine value (a flyweight).

    Hands build the same expectations, legal actions and card events over and over; sharing
    them saves most of the cost of creating frozen dataclasses. The table is cleared when it
    grows past a bound, so memory stays small whatever the amounts.
    """
    key = (cls, *args)
    value = _INTERNED.get(key)
    if value is None:
        if len(_INTERNED) >= _INTERN_LIMIT:
            _INTERNED.clear()
        value = _INTERNED[key] = cls(*args)
    return value  # type: ignore[return-value]


_HOLE_QUEUES: dict[tuple[tuple[int, ...], int], list[Expectation]] = {}
_BOARD_QUEUES: Final[Mapping[Street, tuple[Expectation, ...]]] = {
    street: tuple(DealBoard(index) for index in indices)
    for street, indices in _BOARD_DEAL.items()}


def _hole_queue(order: tuple[int, ...], rounds: int) -> list[Expectation]:
    """The hole-card deal, one card a round in ``order`` (a fresh list of shared values)."""
    key = (order, rounds)
    queue = _HOLE_QUEUES.get(key)
    if queue is None:
        if len(_HOLE_QUEUES) >= _INTERN_LIMIT:
            _HOLE_QUEUES.clear()
        queue = _HOLE_QUEUES[key] = [DealHole(seat, r) for r in range(rounds) for seat in order]
    return list(queue)


def _showing_key(p: _Player, razz: bool, tie_by_suit: bool) -> tuple[object, ...]:
    """Sort key of a stud player's up cards: the SMALLEST key acts first."""
    ups = [c for c, u in zip(p.cards, p.up, strict=True) if u and c is not None]
    counts: dict[int, int] = {}
    for c in ups:
        value = c.rank.low_value if razz else c.rank.high_value
        counts[value] = counts.get(value, 0) + 1
    groups = sorted(((n, v) for v, n in counts.items()), reverse=True)
    shape = tuple(n for n, _ in groups)
    ranks = tuple(v for _, v in groups)
    if razz:  # lowest hand first: fewer pairs, then lower ranks
        return (shape, ranks)
    suit = 0
    if tie_by_suit and ups:
        top = max(ups, key=lambda c: (counts[c.rank.high_value], c.rank.high_value,
                                      c.suit.order))
        suit = top.suit.order
    return (tuple(-n for n in shape), tuple(-v for v in ranks), -suit)
