"""PokerKit 0.7.7 as a differential oracle: build the same hand in PokerKit and drive both.

Only the tests (and bench/) import this module; PokerKit is a test dependency. The PokerKit
games that PokerKit does not pre-define (fixed-limit Omaha high, a real fixed-limit Omaha
hi-lo, pot-limit hold'em, hold'em hi-lo, pot-limit Omaha hi-lo) are built from its mixins
(docs/rules.md, "PokerKit 0.7.7").
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from pokerkit import (
    Automation,
    EightOrBetterLowHand,
    FixedLimitPokerMixin,
    FixedLimitRazz,
    FixedLimitSevenCardStud,
    FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    FixedLimitTexasHoldem,
    Holdem,
    Mode,
    NoLimitTexasHoldem,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    OmahaHoldemMixin,
    PotLimitOmahaHoldem,
    PotLimitPokerMixin,
    StandardHighHand,
    State,
    TexasHoldemMixin,
    UnfixedLimitHoldem,
)
from pokerkit.lookups import Lookup

from tablectl.domain.cards import FULL_DECK, Card
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.game import (
    PRESETS,
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
    Rake,
    RakeScope,
    RuleSet,
    RunsIn,
    SeatSetup,
    Stakes,
)

A = Automation


def _memoised(method: Callable[..., Any], up: bool) -> Callable[..., Any]:
    """``State.get_hand`` / ``get_up_hand`` with a memo keyed on the cards they evaluate.

    PokerKit evaluates the same hand many times a hand (openers, hand killing, showing,
    pushing each pot), and its evaluator is pure Python: nearly all of a differential hand's
    time. The result only depends on the hand type and the cards, so it is remembered
    (bounded); PokerKit still does every evaluation once.
    """
    memo: dict[tuple[object, ...], Any] = {}

    def get(self: Any, player_index: int, board_index: int, hand_type_index: int) -> Any:
        if not self.statuses[player_index]:
            return None
        cards = tuple(self.hole_cards[player_index])
        key = (self.hand_types[hand_type_index], up, cards,
               tuple(self.hole_card_statuses[player_index]) if up else (),
               tuple(self.get_board_cards(board_index)))
        if key not in memo:
            if len(memo) > 200_000:
                memo.clear()
            memo[key] = method(self, player_index, board_index, hand_type_index)
        return memo[key]

    return get


def _memoised_key(method: Callable[..., Any]) -> Callable[..., Any]:
    """``Lookup._get_key`` with a memo per lookup class and cards (PokerKit validates and
    compares every five-card combination through it several times)."""
    memo: dict[tuple[object, ...], Any] = {}

    def get_key(self: Any, cards: Any) -> Any:
        if type(cards) is not tuple:
            return method(self, cards)
        key = (type(self), *cards)
        value = memo.get(key)
        if value is None:
            if len(memo) > 200_000:
                memo.clear()
            value = memo[key] = method(self, cards)
        return value

    return get_key


Lookup._get_key = _memoised_key(Lookup._get_key)  # type: ignore[method-assign]
State.get_hand = _memoised(State.get_hand, up=False)  # type: ignore[method-assign]
State.get_up_hand = _memoised(State.get_up_hand, up=True)  # type: ignore[method-assign]
AUTO = (A.ANTE_POSTING, A.BET_COLLECTION, A.BLIND_OR_STRADDLE_POSTING,
        A.HOLE_CARDS_SHOWING_OR_MUCKING, A.HAND_KILLING, A.CHIPS_PUSHING, A.CHIPS_PULLING)


class FixedLimitOmahaHoldem(FixedLimitPokerMixin, OmahaHoldemMixin, Holdem):  # type: ignore[misc]
    hand_types = (OmahaHoldemHand,)


class TrueFixedLimitOmahaHiLo(FixedLimitPokerMixin, OmahaHoldemMixin, Holdem):  # type: ignore[misc]
    """KNOWN_DIFFERENCES["pokerkit-fixed-limit-omaha-hi-lo-is-pot-limit"]."""

    hand_types = (OmahaHoldemHand, OmahaEightOrBetterLowHand)


class PotLimitTexasHoldem(PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem):  # type: ignore[misc]
    pass


class FixedLimitHoldemHiLo(FixedLimitPokerMixin, TexasHoldemMixin, Holdem):  # type: ignore[misc]
    hand_types = (StandardHighHand, EightOrBetterLowHand)


class PotLimitOmahaHiLo(PotLimitPokerMixin, OmahaHoldemMixin, UnfixedLimitHoldem):  # type: ignore[misc]
    hand_types = (OmahaHoldemHand, OmahaEightOrBetterLowHand)


FL, PL, NL = BettingStructure.FIXED_LIMIT, BettingStructure.POT_LIMIT, BettingStructure.NO_LIMIT
VARIANTS: tuple[tuple[GameKind, BettingStructure], ...] = (
    (GameKind.HOLDEM, FL), (GameKind.HOLDEM, PL), (GameKind.HOLDEM, NL),
    (GameKind.HOLDEM_HI_LO, FL), (GameKind.OMAHA, FL), (GameKind.OMAHA, PL),
    (GameKind.OMAHA_HI_LO, FL), (GameKind.OMAHA_HI_LO, PL),
    (GameKind.STUD, FL), (GameKind.STUD_HI_LO, FL), (GameKind.RAZZ, FL),
)

ORACLE_RULES: RuleSet = replace(PRESETS[RulesPreset.PHH], raise_capped_at_effective_stack=False)
"""PHH conventions minus the effective-stack cap PokerKit dropped in 0.7.4."""


def pokerkit_state(game: GameKind, structure: BettingStructure, stakes: Stakes,
                   stacks: list[int], rake: Rake | None = None, *, cash: bool = False,
                   boards: int = 1) -> Any:
    """A PokerKit state for the same hand; ``stacks`` in position order. ``cash``: PokerKit's
    cash-game mode, the only one in which it runs a hand more than once; ``boards``: 2 for
    a double board."""
    return pokerkit_game(game, structure, stakes, rake, cash=cash, boards=boards)(
        stacks, len(stacks))


def pokerkit_game(game: GameKind, structure: BettingStructure, stakes: Stakes,
                  rake: Rake | None = None, *, cash: bool = False, boards: int = 1) -> Any:
    """The PokerKit game (its ``HandHistory.from_game_state`` needs it) of
    :func:`pokerkit_state`."""
    kw: dict[str, Any] = ({"rake": pokerkit_rake(rake, game)}
                          if rake is not None and rake.percent else {})
    if cash:
        kw["mode"] = Mode.CASH_GAME
    if boards > 1:
        kw["starting_board_count"] = boards
    if game.is_stud:
        cls = {GameKind.STUD: FixedLimitSevenCardStud,
               GameKind.STUD_HI_LO: FixedLimitSevenCardStudHighLowSplitEightOrBetter,
               GameKind.RAZZ: FixedLimitRazz}[game]
        return cls(AUTO, True, stakes.ante, stakes.bring_in, stakes.small_bet,
                   stakes.big_bet, **kw)
    blinds = (stakes.small_blind, stakes.big_blind) if stakes.small_blind else \
        (stakes.big_blind,)
    if structure is FL:
        cls = {GameKind.HOLDEM: FixedLimitTexasHoldem, GameKind.HOLDEM_HI_LO: FixedLimitHoldemHiLo,
               GameKind.OMAHA: FixedLimitOmahaHoldem,
               GameKind.OMAHA_HI_LO: TrueFixedLimitOmahaHiLo}[game]
        return cls(AUTO, True, stakes.ante, blinds, stakes.small_bet, stakes.big_bet,
                   **kw)
    cls = {(GameKind.HOLDEM, PL): PotLimitTexasHoldem, (GameKind.HOLDEM, NL): NoLimitTexasHoldem,
           (GameKind.OMAHA, PL): PotLimitOmahaHoldem,
           (GameKind.OMAHA_HI_LO, PL): PotLimitOmahaHiLo}[(game, structure)]
    return cls(AUTO, True, stakes.ante, blinds, stakes.min_bet or stakes.big_blind,
               **kw)


@dataclass
class DiffResult:
    """The outcome of one differential hand."""

    ours: list[int]
    theirs: list[int]
    hand: Hand
    known: str = ""
    detail: str = ""
    notes: list[str] = field(default_factory=list)
    pk: Any = None


class MismatchError(AssertionError):
    """Our engine and PokerKit disagree (message says where)."""


def random_setup(rng: random.Random, game: GameKind, structure: BettingStructure,
                 ) -> tuple[Stakes, list[SeatSetup], int]:
    """Random seats 2-8 with short stacks that force side pots."""
    n = rng.randint(2, 8)
    seat_numbers = sorted(rng.sample(range(1, 11), n))
    if game.is_stud:
        stakes = Stakes(ante=rng.choice([0, 1]), bring_in=2, small_bet=4, big_bet=8)
    elif structure is FL:
        stakes = Stakes(small_blind=rng.choice([1, 1, 0]), big_blind=2, small_bet=2, big_bet=4,
                        ante=rng.choice([0, 0, 1]))
    else:
        stakes = Stakes(small_blind=rng.choice([1, 1, 0]), big_blind=2,
                        ante=rng.choice([0, 0, 1]))
    if n == 2 and not game.is_stud and not stakes.small_blind:
        # heads-up with one blind: PokerKit's heads-up reversal makes the button post it;
        # we keep the blind left of the button (see docs/rules.md) -- not compared here
        stakes = replace(stakes, small_blind=1)
    floor = stakes.ante + max(stakes.big_blind, stakes.bring_in) + 1
    seats = [SeatSetup(s, rng.choice([floor, rng.randint(floor, 30), rng.randint(floor, 80),
                                      200])) for s in seat_numbers]
    return stakes, seats, rng.choice(seat_numbers)


def edge_setup(rng: random.Random, game: GameKind, structure: BettingStructure,
               ) -> tuple[Stakes, list[SeatSetup], int, RuleSet]:
    """Edge-rich seats and stakes: stacks of 1 chip up to 150 bets, antes that equal or exceed
    a stack, blinds and bring-ins all-in for less, eight-handed stud, raked hands.

    Returns the stakes, the seats, the button and the rules (the oracle rules, raked in about
    a quarter of the hands).
    """
    stud = game.is_stud
    n = 8 if stud and rng.random() < 0.4 else rng.randint(2, 8)
    seat_numbers = sorted(rng.sample(range(1, 11), n))
    if stud:
        stakes = Stakes(ante=rng.choice([0, 1, 1, 2, 5]), bring_in=rng.choice([1, 2, 2, 3]),
                        small_bet=4, big_bet=8)
        bet = 4
    else:
        small_blind = rng.choice([0, 1, 1, 1, 2])
        if n == 2 and not small_blind:   # see KNOWN_DIFFERENCES["heads-up-one-blind"]
            small_blind = 1
        sizes = {"small_bet": 2, "big_bet": 4} if structure is FL else {}
        stakes = Stakes(small_blind=small_blind, big_blind=2,
                        ante=rng.choice([0, 0, 0, 1, 2, 3]), **sizes)
        bet = 2
    forced = stakes.ante + max(stakes.big_blind, stakes.bring_in)
    def stack() -> int:
        roll = rng.random()
        if roll < 0.12:
            return 1
        if roll < 0.3:
            return rng.randint(1, forced + 1)
        if roll < 0.6:
            return rng.randint(1, 10 * bet)
        if roll < 0.9:
            return rng.randint(1, 150 * bet)
        return 150 * bet
    seats = [SeatSetup(s, stack()) for s in seat_numbers]
    rules = ORACLE_RULES
    if rng.random() < 0.25:
        rules = replace(rules, rake=Rake(Fraction(rng.choice([5, 10]), 100),
                                         cap=rng.choice([None, 2, 5]), scope=RakeScope.PER_POT,
                                         no_flop_no_drop=rng.random() < 0.7))
    return stakes, seats, rng.choice(seat_numbers), rules


def pokerkit_rake(rake: Rake, game: GameKind) -> Callable[[int, Any], tuple[int, int]]:
    """Our rake as a PokerKit rake function: rounded down to the unit, capped per pot, and
    "no flop, no drop" as we read it (no rake when the hand ends in its first betting round;
    PokerKit's own reading, "a board card was dealt", never rakes stud)."""
    def take(amount: int, state: Any) -> tuple[int, int]:
        if rake.no_flop_no_drop:
            if game.is_stud:
                first_round = max(len(cards) for cards in state.hole_cards) <= 3
            else:
                first_round = not any(state.board_cards)
            if first_round:
                return 0, amount
        raked = rake.take(amount)
        return raked, amount - raked
    return take


def _pick_action(rng: random.Random, legal: Any) -> ActionIn:
    kinds = legal.kinds
    roll = rng.random()
    if legal.bet_kind is not None and roll < 0.3:
        if legal.min_to == legal.max_to or roll < 0.1:
            amount = legal.min_to
        elif roll < 0.2:
            amount = legal.max_to
        else:
            amount = rng.randint(legal.min_to, legal.max_to)
        return ActionIn(legal.seat, legal.bet_kind, amount)
    if ActionKind.BRING_IN in kinds:
        return ActionIn(legal.seat, ActionKind.BRING_IN)
    if ActionKind.FOLD in kinds and roll < 0.45:
        return ActionIn(legal.seat, ActionKind.FOLD)
    if ActionKind.CALL in kinds:
        return ActionIn(legal.seat, ActionKind.CALL)
    return ActionIn(legal.seat, ActionKind.CHECK)


def play_both(rng: random.Random, game: GameKind, structure: BettingStructure,
              rules: RuleSet = ORACLE_RULES,
              choose: Callable[[random.Random, Any], ActionIn] = _pick_action, *,
              edge: bool = False, runs: int = 1, boards: int = 1) -> DiffResult:
    """Play one seeded random hand through both engines, comparing at every step.

    ``edge``: the seats, stakes and rules of :func:`edge_setup` (``rules`` is then ignored);
    otherwise :func:`random_setup` with ``rules``. ``runs``: when both engines may run the
    hand more than once at the same moment (every hand but one all-in before the river), run
    it ``runs`` times in both (PokerKit in cash-game mode); else once. ``boards``: 2 for
    double-board hands (PokerKit's ``starting_board_count``).

    Raises:
        MismatchError: the engines disagree on whose turn it is, on the legal actions, or on a
            card's recipient.
    """
    if edge:
        stakes, seats, button, rules = edge_setup(rng, game, structure)
    else:
        stakes, seats, button = random_setup(rng, game, structure)
    notes: list[str] = []
    hand = Hand.start(game=game, structure=structure, rules=rules, stakes=stakes, seats=seats,
                      button=button, boards=boards)
    pending: list[tuple[int, str]] = []
    order = hand.position_seats
    index = {seat: i for i, seat in enumerate(order)}
    stacks = {s.seat: s.stack for s in seats}
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pk = pokerkit_state(game, structure, stakes, [stacks[s] for s in order], rules.rake,
                            cash=runs > 1, boards=boards)
        while not hand.is_done:
            if pk.can_select_runout_count():
                count = runs if runs > 1 and hand.can(RunsIn(runs)) else None
                if count is not None:
                    hand.apply(RunsIn(count))
                while pk.can_select_runout_count():   # each selector in turn (PokerKit
                    pk.select_runout_count(count)      # checks a given index as a count)
                continue
            exp = hand.expected()
            if not isinstance(exp, Act) and pk.actor_index is not None:
                _no_op_check(pk, hand)
                notes.append("pokerkit-no-op-check")
                continue
            if isinstance(exp, Act):
                legal = exp.legal
                try:
                    _compare_legal(pk, legal, index[exp.seat])
                except MismatchError as exc:
                    label = _known_betting_difference(hand, pk, game)
                    if label is None:
                        raise
                    return DiffResult([], [], hand, known=label, detail=str(exc), notes=notes)
                action = choose(rng, legal)
                hand.apply(action)
                _apply_pk(pk, action)
                continue
            if deck:
                card = deck.pop()
            else:   # stud's seventh street ran short: the cards back in play
                back = [c for c in FULL_DECK if hand.back_in_play(c)]
                if not back:
                    raise MismatchError(f"no card left for {exp}")
                card = rng.choice(back)
            if isinstance(exp, Burn):
                if not pk.can_burn_card():
                    raise MismatchError(f"we burn, pokerkit does not: {exp}")
                pk.burn_card(str(card))
            elif isinstance(exp, DealBoard) and boards > 1:
                # a double board: PokerKit gives single cards to its boards in turn, so each
                # board's cards of the street go to it in one call (we deal board 1's, then 2's)
                pending.append((exp.run, str(card)))
                hand.apply(CardIn(card))
                if not isinstance(hand.expected(), DealBoard):
                    for run in sorted({r for r, _ in pending}):
                        pk.deal_board("".join(c for r, c in pending if r == run))
                    pending.clear()
                continue
            elif isinstance(exp, DealBoard):
                pk.deal_board(str(card))
            elif isinstance(exp, DealHole | DealUp | DealDown):
                if pk.hole_dealee_index != index[exp.seat]:
                    raise MismatchError(f"hole card for seat {exp.seat} (position "
                                   f"{index[exp.seat]}), pokerkit deals to "
                                   f"{pk.hole_dealee_index}")
                pk.deal_hole(str(card))
            hand.apply(CardIn(card))
        if pk.status:
            raise MismatchError(f"our hand is done, pokerkit's is not (actor {pk.actor_index})")
    ours = [hand.final_stacks[s] for s in order]
    result = DiffResult(ours, list(pk.stacks), hand, notes=notes)
    if ours != result.theirs:
        label = _known_settlement_difference(hand, ours, result.theirs)
        if label is None:
            raise MismatchError(f"final stacks ours {ours}, pokerkit {result.theirs}")
        result.known = label
    result.pk = pk
    return result


def _no_op_check(pk: Any, hand: Hand) -> None:
    """PokerKit asks for a decision where we ask none: accepted only if it is a check that
    changes nothing (KNOWN_DIFFERENCES["pokerkit-no-op-check"])."""
    if pk.checking_or_calling_amount or pk.can_complete_bet_or_raise_to():
        raise MismatchError(f"pokerkit asks position {pk.actor_index} to act "
                            f"(call {pk.checking_or_calling_amount}), we expect "
                            f"{hand.expected()}")
    pk.check_or_call()


def _compare_legal(pk: Any, legal: Any, position: int) -> None:
    if pk.actor_index != position:
        raise MismatchError(f"we expect position {position} to act, pokerkit {pk.actor_index}")
    if ActionKind.BRING_IN in legal.kinds:
        if not pk.can_post_bring_in():
            raise MismatchError("we allow a bring-in, pokerkit does not")
        if pk.effective_bring_in_amount != legal.bring_in_amount:
            raise MismatchError(f"bring-in {legal.bring_in_amount} vs "
                                f"{pk.effective_bring_in_amount}")
    else:
        if ActionKind.FOLD in legal.kinds and not pk.can_fold():
            raise MismatchError("we allow a fold, pokerkit does not")
        if pk.checking_or_calling_amount != legal.call_amount:
            raise MismatchError(f"call {legal.call_amount} vs pokerkit "
                           f"{pk.checking_or_calling_amount}")
    theirs = pk.can_complete_bet_or_raise_to()
    if theirs != (legal.bet_kind is not None):
        raise MismatchError(f"wager allowed: ours {legal.bet_kind}, pokerkit {theirs}")
    if theirs:
        lo = pk.min_completion_betting_or_raising_to_amount
        hi = pk.max_completion_betting_or_raising_to_amount
        if (lo, hi) != (legal.min_to, legal.max_to):
            raise MismatchError(f"wager range ours {legal.min_to}..{legal.max_to}, "
                           f"pokerkit {lo}..{hi}")


def _apply_pk(pk: Any, action: ActionIn) -> None:
    match action.kind:
        case ActionKind.FOLD:
            pk.fold()
        case ActionKind.CHECK | ActionKind.CALL:
            pk.check_or_call()
        case ActionKind.BRING_IN:
            pk.post_bring_in()
        case _:
            pk.complete_bet_or_raise_to(action.amount)


def card_text(cards: list[Card]) -> str:
    return "".join(map(str, cards))


KNOWN_DIFFERENCES = {
    "pokerkit-raise-size-base": (
        "PokerKit measures raise sizes from zero each round (the big blind and the "
        "bring-in are not a bet), so a short all-in raise over them, or over a stud "
        "completion, counts as full and reopens the betting"),
    "pokerkit-hilo-side-pot": (
        "PokerKit splits every pot high/low once anybody has a low, sharing the 'low' "
        "half of a side pot without a qualifying low among its contenders"),
    "pokerkit-fold-out-rake-base": (
        "on a fold-out PokerKit gives the winner back the whole of their last bet before it "
        "rakes, not only the uncalled part, so it rakes a smaller pot than the one a dealer "
        "drops from"),
    "pokerkit-no-op-check": (
        "PokerKit still asks for a check when every opponent is all-in and the player's "
        "chips already cover them (a decision that cannot change a stack); we ask for "
        "nothing. The oracle plays PokerKit's check and compares the rest of the hand"),
    "pokerkit-fixed-limit-omaha-hi-lo-is-pot-limit": (
        "PokerKit's FixedLimitOmahaHoldemHighLowSplitEightOrBetter is built pot-limit; the "
        "oracle deals fixed-limit Omaha hi-lo with a class of its own made from PokerKit's "
        "mixins (TrueFixedLimitOmahaHiLo), so no hand meets it"),
    "heads-up-one-blind": (
        "heads-up with one blind PokerKit's heads-up reversal makes the button post it; we "
        "keep the blind left of the button. The set-ups never deal it (a small blind is "
        "added heads-up)"),
}
"""Every known PokerKit 0.7.7 defect or rule difference (docs/rules.md): label -> reason.

The differential test counts each label it meets; nothing else may differ."""


def _known_betting_difference(hand: Hand, pk: Any, game: GameKind) -> str | None:
    # private engine state, read here only to explain a difference
    ours_inc = hand._betting.full_raise()
    if pk.completion_betting_or_raising_amount < ours_inc:
        return "pokerkit-raise-size-base"
    return None


def _known_settlement_difference(hand: Hand, ours: list[int], theirs: list[int]) -> str | None:
    """The fold-out rake base (a raked hand without showdown where only the winner ends with
    more chips in PokerKit), or the hi-lo side pot bug: some showdown hand has a low, and the
    stacks differ only among contenders of a side pot in which no eligible player has a
    low."""
    changed_at = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
    showdown = any(type(ev).__name__ == "ShowdownHand" for ev in hand.events)
    if (hand.rake and not showdown and len(changed_at) == 1
            and 0 < theirs[changed_at[0]] - ours[changed_at[0]] <= hand.rake):
        return "pokerkit-fold-out-rake-base"
    if not hand.start_args.game.is_hi_lo or sum(ours) != sum(theirs):
        return None
    # per run or board of a hand with several (each part of a pot is split on its own board)
    lows_by_run: dict[int, set[int]] = {}
    for ev in hand.events:
        if type(ev).__name__ == "ShowdownHand" and ev.low is not None:  # type: ignore[union-attr]
            lows_by_run.setdefault(ev.run, set()).add(ev.seat)  # type: ignore[union-attr]
    lows = set().union(*lows_by_run.values())
    if not lows:
        return None
    affected: set[int] = set()
    for result in hand.results:
        if len(result.eligible) > 1 and any(not run_lows & set(result.eligible)
                                            for run_lows in lows_by_run.values()):
            affected |= set(result.eligible)
    order = hand.position_seats
    changed = {order[i] for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b}
    if affected and changed <= affected | lows:
        return "pokerkit-hilo-side-pot"
    return None
