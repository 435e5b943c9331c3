"""PokerKit 0.7.7 as a differential oracle: build the same hand in PokerKit and drive both.

Only the tests (and bench/) import this module; PokerKit is a test dependency. The PokerKit
games that PokerKit does not pre-define (fixed-limit Omaha high, a real fixed-limit Omaha
hi-lo, pot-limit hold'em, hold'em hi-lo, pot-limit Omaha hi-lo) are built from its mixins, as
research/pokerkit.md shows.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
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
    RuleSet,
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


State.get_hand = _memoised(State.get_hand, up=False)  # type: ignore[method-assign]
State.get_up_hand = _memoised(State.get_up_hand, up=True)  # type: ignore[method-assign]
AUTO = (A.ANTE_POSTING, A.BET_COLLECTION, A.BLIND_OR_STRADDLE_POSTING,
        A.HOLE_CARDS_SHOWING_OR_MUCKING, A.HAND_KILLING, A.CHIPS_PUSHING, A.CHIPS_PULLING)


class FixedLimitOmahaHoldem(FixedLimitPokerMixin, OmahaHoldemMixin, Holdem):  # type: ignore[misc]
    hand_types = (OmahaHoldemHand,)


class TrueFixedLimitOmahaHiLo(FixedLimitPokerMixin, OmahaHoldemMixin, Holdem):  # type: ignore[misc]
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
                   stacks: list[int]) -> Any:
    """A PokerKit state for the same hand; ``stacks`` in position order."""
    n = len(stacks)
    if game.is_stud:
        cls = {GameKind.STUD: FixedLimitSevenCardStud,
               GameKind.STUD_HI_LO: FixedLimitSevenCardStudHighLowSplitEightOrBetter,
               GameKind.RAZZ: FixedLimitRazz}[game]
        return cls(AUTO, True, stakes.ante, stakes.bring_in, stakes.small_bet,
                   stakes.big_bet)(stacks, n)
    blinds = (stakes.small_blind, stakes.big_blind) if stakes.small_blind else \
        (stakes.big_blind,)
    if structure is FL:
        cls = {GameKind.HOLDEM: FixedLimitTexasHoldem, GameKind.HOLDEM_HI_LO: FixedLimitHoldemHiLo,
               GameKind.OMAHA: FixedLimitOmahaHoldem,
               GameKind.OMAHA_HI_LO: TrueFixedLimitOmahaHiLo}[game]
        return cls(AUTO, True, stakes.ante, blinds, stakes.small_bet, stakes.big_bet)(stacks, n)
    cls = {(GameKind.HOLDEM, PL): PotLimitTexasHoldem, (GameKind.HOLDEM, NL): NoLimitTexasHoldem,
           (GameKind.OMAHA, PL): PotLimitOmahaHoldem,
           (GameKind.OMAHA_HI_LO, PL): PotLimitOmahaHiLo}[(game, structure)]
    return cls(AUTO, True, stakes.ante, blinds, stakes.min_bet or stakes.big_blind)(stacks, n)


@dataclass
class DiffResult:
    """The outcome of one differential hand."""

    ours: list[int]
    theirs: list[int]
    hand: Hand
    skipped: str = ""
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
              choose: Callable[[random.Random, Any], ActionIn] = _pick_action) -> DiffResult:
    """Play one seeded random hand through both engines, comparing at every step.

    Raises:
        MismatchError: the engines disagree on whose turn it is, on the legal actions, or on a
            card's recipient.
    """
    stakes, seats, button = random_setup(rng, game, structure)
    hand = Hand.start(game=game, structure=structure, rules=rules, stakes=stakes, seats=seats,
                      button=button)
    order = hand.position_seats
    index = {seat: i for i, seat in enumerate(order)}
    stacks = {s.seat: s.stack for s in seats}
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pk = pokerkit_state(game, structure, stakes, [stacks[s] for s in order])
        while not hand.is_done:
            exp = hand.expected()
            if isinstance(exp, Act):
                legal = exp.legal
                try:
                    _compare_legal(pk, legal, index[exp.seat])
                except MismatchError as exc:
                    label = _known_betting_difference(hand, pk, game)
                    if label is None:
                        raise
                    return DiffResult([], [], hand, known=label, detail=str(exc))
                action = choose(rng, legal)
                hand.apply(action)
                _apply_pk(pk, action)
                continue
            card = deck.pop()
            if isinstance(exp, Burn):
                if not pk.can_burn_card():
                    raise MismatchError(f"we burn, pokerkit does not: {exp}")
                pk.burn_card(str(card))
            elif isinstance(exp, DealBoard):
                if game.is_stud:
                    return DiffResult([], [], hand, skipped="stud community card")
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
    result = DiffResult(ours, list(pk.stacks), hand)
    if ours != result.theirs:
        label = _known_settlement_difference(hand, ours, result.theirs)
        if label is None:
            raise MismatchError(f"final stacks ours {ours}, pokerkit {result.theirs}")
        result.known = label
    result.pk = pk
    return result


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
}
"""PokerKit 0.7.7 behaviour we do not copy (docs/rules.md): label -> explanation."""


def _known_betting_difference(hand: Hand, pk: Any, game: GameKind) -> str | None:
    # private engine state, read here only to explain a difference
    ours_inc = hand._bet_size() if hand._limit else hand._min_inc
    if pk.completion_betting_or_raising_amount < ours_inc:
        return "pokerkit-raise-size-base"
    return None


def _known_settlement_difference(hand: Hand, ours: list[int], theirs: list[int]) -> str | None:
    """The hi-lo side pot bug: some showdown hand has a low, and the stacks differ only among
    contenders of a side pot in which no eligible player has a low."""
    if not hand.start_args.game.is_hi_lo or sum(ours) != sum(theirs):
        return None
    lows = {ev.seat for ev in hand.events
            if type(ev).__name__ == "ShowdownHand" and ev.low is not None}  # type: ignore[union-attr]
    if not lows:
        return None
    affected: set[int] = set()
    for result in hand.results:
        if len(result.eligible) > 1 and not lows & set(result.eligible):
            affected |= set(result.eligible)
    order = hand.position_seats
    changed = {order[i] for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b}
    if affected and changed <= affected | lows:
        return "pokerkit-hilo-side-pot"
    return None
