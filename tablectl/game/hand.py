"""One hand of poker as a sans-IO state machine: cards and decisions in, events out.

The machine walks its game's street plan and hands each job to the module that owns it (the
house-rule fields read are named in brackets; ``docs/rules.md`` has every rule and its test):

* Seats are ordered clockwise by seat number. Position order starts with the first seat left
  of the button (button games) or of the dealer (stud); the button is last.
* Streets (``game/streets.py``, a table per game family): button games deal every hole card
  one at a time clockwise [first_dealt], then burn [burns] and deal 3, 1 and 1 board cards.
  Stud deals two down cards and one up card, then up, up, up and a last down card, burning
  before 4th to 7th street; if the deck cannot give every remaining player a 7th-street card
  [stud_short_deck]: one community card, or the burns (and discards) come back into play
  (``game/stud_deck.py``).
* Betting (``game/betting.py``; stud openers ``game/opener.py``): forced bets when the hand
  starts, who acts, legal actions and their sizes in each structure, the end of a round and
  the uncalled bet. When all but one seat fold, that seat wins without a showdown.
* Once a player is all-in and no more betting is possible, every live hand is turned face up
  before the rest is dealt [all_in_face_up]; unread cards must be shown then
  (``game/showdown.py``, which also orders the showdown [showdown_by_input]).
* Settlement (``game/settlement.py``): cards speak, every pot goes to the best eligible hands,
  hi-lo pots are split high/low only when an eligible player has an 8-or-better low (else high
  takes all); the high half gets the odd unit; ties split chip by chip [odd_chip,
  stud_odd_chip, split_unit]; the house rakes [rake].
* Run it twice [run_it]: once no betting remains and before the run-out's first card, the
  dealer may enter how many times the players run the rest of the board (``RunsIn``). Each
  run deals its own remaining streets (burns included) after the last one's river; every pot
  is split into equal parts, one per run (odd chips [run_it.odd_chip]), and each part is
  settled on its run's board.
* Double board (``HandStart.boards`` 2): each street burns once and deals its cards to the
  first board, then to the second; every pot is split in two, one part per board, settled
  as a hand run twice is.
* Bomb pots (``HandStart.bomb``): every player antes the agreed amount and posts no blind;
  the hole cards are dealt without a betting round, and the betting starts on the flop.

Every rejected input raises :class:`RuleViolation` and leaves the hand as it was; an accepted
input is recorded in :attr:`Hand.inputs`, and :meth:`Hand.replay` rebuilds the same hand from
them (a prefix of them rebuilds an earlier moment). The engine's caches are ``game/memo.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from tablectl.domain.cards import Card
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.game.betting import BettingRound
from tablectl.game.contest import nothing_to_decide
from tablectl.game.errors import CardOutOfTurn, DuplicateCard, RuleViolation
from tablectl.game.memo import card_key
from tablectl.game.model import (
    Act,
    ActionIn,
    ActionKind,
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
    HandEnded,
    HandEvent,
    HandInput,
    HandView,
    LegalActions,
    MuckIn,
    PotResult,
    PotView,
    RunsChosen,
    RunsIn,
    SeatCard,
    SeatView,
    ShowIn,
    Street,
    StreetEnded,
)
from tablectl.game.player import Player
from tablectl.game.pots import build_pots
from tablectl.game.rules import FirstDealt, RuleSet, Stakes
from tablectl.game.settlement import settle
from tablectl.game.showdown import ShowdownOrder
from tablectl.game.start import HandStart, SeatSetup, check_start
from tablectl.game.streets import PLANS, street_queue
from tablectl.game.stud_deck import NORMAL, plan_seventh

_CARD_EXPECTATIONS: Final = (DealHole, DealUp, DealDown, Burn, DealBoard)
_CARD_EXPECTATION_TYPES: Final = frozenset(_CARD_EXPECTATIONS)


class Hand:
    """A hand in progress (or finished). Create with :meth:`start` or :meth:`replay`.

    Not thread-safe; cheap to rebuild with :meth:`replay` (that is also how to copy it).
    """

    def __init__(self, start: HandStart) -> None:
        check_start(start)
        self._start = start
        self._game = start.game
        self._rules = start.rules
        self._plan = PLANS[start.game]
        ordered = sorted(start.seats, key=lambda s: (s.seat <= start.button, s.seat))
        self._p = [Player(s) for s in ordered]
        self._by_seat = {p.seat: i for i, p in enumerate(self._p)}
        self._n = len(self._p)
        self._streets = tuple(r.street for r in self._plan.rounds)
        self._street_index = -1
        self._street = self._streets[0]
        # every run's (or a double board's) board, run 1 first; the one of the run being dealt
        self._boards: list[list[Card | None]] = [[] for _ in range(start.boards)]
        self._board = self._boards[0]
        self._runs = 1
        self._runs_chosen = False
        # when no betting remained: cards dealt, the street whose round closed, board cards
        self._runout_at: int | None = None
        self._runout_street = -1
        self._runout_board = 0
        self._runout_pots: tuple[PotView, ...] | None = None   # unchanged once none can act
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
        self._betting = BettingRound(self._p, start, self._plan)
        self._showdown = ShowdownOrder(self._p, self._by_seat, start.rules)
        self._done = False
        self._recycle_burn = False
        self._recycled: set[int] = set()
        events: list[HandEvent] = []
        self._betting.post_forced(events, start.bomb)
        self._begin_street(0, events)
        self._events.extend(events)

    # --- construction -------------------------------------------------------------------

    @classmethod
    def start(cls, *, game: GameKind, structure: BettingStructure, rules: RuleSet,
              stakes: Stakes, seats: Sequence[SeatSetup], button: int,
              hand_id: str = "", bomb: int = 0, boards: int = 1) -> Hand:
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
            bomb: a bomb pot's ante (every player antes it, no blinds, no betting before the
                flop); 0 for a normal hand.
            boards: 2 for a double-board hand.

        Raises:
            HandSetupError: the seats, stakes or structure do not make a hand.
        """
        return cls(HandStart(game, structure, rules, stakes, tuple(seats), button, hand_id,
                             bomb, boards))

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
        """Board cards so far (stud: the community card, if one was dealt); the first run's
        when the hand is run more than once."""
        return tuple(self._boards[0])

    @property
    def runs(self) -> int:
        """How many times the rest of the board is run (1 unless a ``RunsIn`` said more)."""
        return self._runs

    @property
    def boards(self) -> tuple[tuple[Card | None, ...], ...]:
        """Every run's board so far, run 1 first (the runs not yet dealt: the shared cards)."""
        dealt = [tuple(b) for b in self._boards]
        shared = dealt[0][:self._runout_board]
        return tuple(dealt) + (shared,) * (self._runs - len(dealt))

    @property
    def run(self) -> int:
        """The run being dealt (1-based; a double-board hand is run once)."""
        return len(self._boards) - self._start.boards + 1

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
        to_act = self._betting.to_act if isinstance(self._expect, Act) else None
        return HandView(
            hand_id=self._start.hand_id, game=self._game, structure=self._start.structure,
            button=self._start.button, street=self.street, seats=seats,
            board=tuple(self._boards[0]), burns=tuple(self._burns), pots=self.pots(),
            to_act=self._p[to_act].seat if to_act is not None else None,
            expected=self._expect, results=self._results, rake=self._rake_total,
            runs=self._runs, boards=boards if len(boards := self.boards) > 1 else ())

    def pots(self) -> tuple[PotView, ...]:
        """Pots collected so far (this street's bets not included; empty once awarded)."""
        if self._done:
            return ()
        committed = [p.committed - p.bet for p in self._p]
        live = [not p.folded for p in self._p]
        return tuple(PotView(amount, tuple(self._p[i].seat for i in eligible))
                     for amount, eligible in build_pots(committed, live, dead=self._betting.dead))

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
            case RunsIn():
                self._verify_runs(inp)
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
        elif kind is RunsIn:
            self._verify_runs(inp)  # type: ignore[arg-type]
            self._runs = inp.count  # type: ignore[union-attr]
            self._runs_chosen = True
            events.append(RunsChosen(self._runs, tuple(self._board)))
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
            self._boards[exp.run - 1].append(card)  # type: ignore[union-attr]
            events.append(BoardDealt(card, exp.index, street,  # type: ignore[union-attr]
                                     exp.run))  # type: ignore[union-attr]
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
        self._betting.verify(inp, exp)

    def _do_action(self, inp: ActionIn, events: list[HandEvent]) -> None:
        i = self._by_seat[inp.seat]
        legal = self._expect.legal if isinstance(self._expect, Act) else None
        assert legal is not None
        events.append(self._betting.take(i, inp, legal))
        if inp.kind is ActionKind.FOLD:
            self._live -= 1
        if self._live == 1:
            self._end_street(events)
            return
        self._advance(i, events)

    def _advance(self, i: int, events: list[HandEvent]) -> None:
        """Pass the turn on from player index ``i`` (or end the round)."""
        self._turn(self._betting.next_to_act(i), events)

    def _turn(self, j: int | None, events: list[HandEvent]) -> None:
        if j is None:
            self._end_street(events)
        else:
            self._expect = self._betting.act(j)

    # --- run it twice ---------------------------------------------------------------------

    def _verify_runs(self, inp: RunsIn) -> None:
        exp = self._expect
        refusal = self._rules.run_it.refusal(self._game, self._start.structure, inp.count)
        if refusal is not None:
            raise RuleViolation(refusal, exp)
        if self._start.boards > 1:
            raise RuleViolation("a double-board hand is not run more than once", exp)
        if self._runs_chosen:
            raise RuleViolation(f"the players already agreed to run it {self._runs} "
                                f"time{'s' if self._runs > 1 else ''}", exp)
        if self._runout_at is None or self._done:
            raise RuleViolation("runs are agreed once every hand but one is all-in and no "
                                "betting remains", exp)
        if self._runout_street + 1 >= len(self._streets):
            raise RuleViolation("the board is complete: there is nothing left to run", exp)
        if self._dealt_count != self._runout_at:
            raise RuleViolation("the run-out has begun: runs are agreed before its first "
                                "card", exp)
        rounds = self._plan.rounds[self._runout_street + 1:]
        per_run = sum(r.board + (1 if r.burn and self._rules.burns else 0) for r in rounds)
        stub = 52 - self._dealt_count
        if inp.count * per_run > stub:
            raise RuleViolation(f"{stub} cards are left: not enough to run it {inp.count} "
                                "times", exp)

    def _next_run(self, events: list[HandEvent]) -> None:
        """The last street of a run is dealt: the next run deals its own remaining board."""
        self._board = list(self._boards[0][:self._runout_board])
        self._boards.append(self._board)
        self._begin_street(self._runout_street + 1, events)

    # --- streets -----------------------------------------------------------------------------

    def _begin_street(self, k: int, events: list[HandEvent]) -> None:
        self._street_index = k
        rnd = self._plan.rounds[k]
        self._street = rnd.street
        seventh = NORMAL
        if rnd.short_stub:
            live = [p for p in self._p if not p.folded]
            seventh = plan_seventh(
                self._rules.stud_short_deck, stub=52 - self._dealt_count,
                players=len(live), burns=len(self._burns),
                discards=sum(len(p.cards) for p in self._p if p.folded),
                burning=self._rules.burns)
            if seventh.recycle:
                self._recycle(seventh.discards, events)
        if rnd.hole:
            first = 0
            big_blind = self._betting.big_blind_index
            if (self._rules.first_dealt is FirstDealt.LEFT_OF_BIG_BLIND
                    and big_blind is not None):
                first = (big_blind + 1) % self._n
            seats = tuple(self._p[(first + j) % self._n].seat for j in range(self._n))
        else:
            seats = tuple(p.seat for p in self._p if not p.folded)
        queue = street_queue(rnd, seats=seats, burning=self._rules.burns,
                             board_dealt=len(self._board), seventh=seventh,
                             run=self.run, boards=self._start.boards)
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
        if self._start.bomb and self._street_index == 0:   # a bomb pot: no pre-flop betting
            self._end_street(events)
            return
        self._turn(self._betting.open(self._plan.rounds[self._street_index]), events)

    def _end_street(self, events: list[HandEvent]) -> None:
        self._betting.close(events)
        pots = self._runout_pots if self._runout_pots is not None else self.pots()
        events.append(StreetEnded(self._street, pots))
        if self._runout_at is None and self._live > 1 and nothing_to_decide(self._p):
            self._runout_at = self._dealt_count
            self._runout_street = self._street_index
            self._runout_board = len(self._board)
            self._runout_pots = pots    # no chip moves before the showdown: every street's
            # (and every run's) end has these pots, built once
        if self._live == 1:
            self._settle(events, showdown=False)
        elif (self._rules.all_in_face_up and not self._showdown.face_up
              and nothing_to_decide(self._p)):
            self._showdown.turn_face_up(self._betting.last_aggressor, self._street, events)
            self._next_showdown(events)
        else:
            self._next_street(events)

    def _next_street(self, events: list[HandEvent]) -> None:
        if self._street_index + 1 < len(self._streets):
            self._begin_street(self._street_index + 1, events)
        elif len(self._boards) < self._runs:
            self._next_run(events)
        else:
            self._showdown.start(self._betting.last_aggressor)
            self._next_showdown(events)

    # --- showdown and settlement -------------------------------------------------------------

    def _verify_showdown(self, inp: ShowIn | MuckIn) -> None:
        self._showdown.verify(inp, self._expect, self._seen)

    def _do_showdown(self, inp: ShowIn | MuckIn, events: list[HandEvent]) -> None:
        self._showdown.record(inp, self._seen, self._street, events)
        self._next_showdown(events)

    def _next_showdown(self, events: list[HandEvent]) -> None:
        exp = self._showdown.expectation()
        if exp is not None:
            self._expect = exp
        elif self._showdown.end_run_out():
            self._next_street(events)
        else:
            self._settle(events, showdown=True)

    def _settle(self, events: list[HandEvent], *, showdown: bool) -> None:
        results, award_events, rake = settle(
            game=self._game, rules=self._rules, players=self._p, boards=self._boards,
            dead=self._betting.dead, showdown=showdown, first_round=self._street_index == 0,
            mucks=self._showdown.mucks)
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
        self._betting.to_act = None
        self._expect = Done()
        events.append(HandEnded(tuple(sorted((p.seat, p.stack) for p in self._p))))

    def _index_of(self, seat: int) -> int:
        try:
            return self._by_seat[seat]
        except KeyError:
            raise ValueError(f"seat {seat} is not in this hand") from None
