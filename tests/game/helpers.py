"""Small drivers for hand tests: deal named cards, act, and read a hand's state."""

from __future__ import annotations

from collections.abc import Sequence

from tablectl.domain.cards import parse_cards
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.game import (
    PRESETS,
    Act,
    ActionIn,
    ActionKind,
    Burn,
    CardIn,
    Hand,
    HandEvent,
    RuleSet,
    SeatSetup,
    Stakes,
)

FL, PL, NL = BettingStructure.FIXED_LIMIT, BettingStructure.POT_LIMIT, BettingStructure.NO_LIMIT
CASINO = PRESETS[RulesPreset.CASINO]
PHH = PRESETS[RulesPreset.PHH]


def start(game: GameKind = GameKind.HOLDEM, structure: BettingStructure = FL, *,
          stacks: Sequence[int] = (100, 100, 100), button: int | None = None,
          rules: RuleSet = CASINO, stakes: Stakes | None = None) -> Hand:
    """Seats 1..n with ``stacks``; the button on the last seat unless given."""
    if stakes is None:
        if game.is_stud:
            stakes = Stakes(ante=1, bring_in=2, small_bet=4, big_bet=8)
        elif structure is FL:
            stakes = Stakes(small_blind=1, big_blind=2, small_bet=2, big_bet=4)
        else:
            stakes = Stakes(small_blind=1, big_blind=2)
    seats = [SeatSetup(i + 1, s) for i, s in enumerate(stacks)]
    return Hand.start(game=game, structure=structure, rules=rules, stakes=stakes, seats=seats,
                      button=len(stacks) if button is None else button)


def deal(hand: Hand, cards: str) -> list[HandEvent]:
    """Feed cards in order to whatever the hand expects (burns included)."""
    events: list[HandEvent] = []
    for card in parse_cards(cards):
        events += hand.apply(CardIn(card))
    return events


def deal_until_action(hand: Hand, cards: str) -> None:
    """Deal ``cards`` and check the hand then waits for a decision."""
    deal(hand, cards)
    assert isinstance(hand.expected(), Act), hand.expected()


def act(hand: Hand, seat: int, kind: str, amount: int | None = None) -> list[HandEvent]:
    """Apply ``ActionIn(seat, kind, amount)``."""
    return list(hand.apply(ActionIn(seat, ActionKind(kind), amount)))


def to_act(hand: Hand) -> int:
    exp = hand.expected()
    assert isinstance(exp, Act), exp
    return exp.seat


def burn_next(hand: Hand) -> bool:
    return isinstance(hand.expected(), Burn)
