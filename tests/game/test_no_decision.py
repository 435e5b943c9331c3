"""Nobody is asked for a decision that cannot matter (tablectl/game/contest.py), and the short
big blind knob (``short_big_blind``): what the others call and raise from."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tablectl.domain.games import GameKind
from tablectl.game import (
    Act,
    BetReturned,
    Burn,
    Hand,
    RuleSet,
    ShortBigBlind,
    Stakes,
)
from tests.game.helpers import CASINO, FL, NL, PHH, PL, deal, start

STUD = GameKind.STUD
DECK = [f"{r}{s}" for r in "AKQJT98765432" for s in "shdc"]


def _run_out(hand: Hand) -> int:
    """Deal from DECK until the hand ends; returns how many decisions it asked for."""
    asked = 0
    deck = list(DECK)
    while not hand.is_done:
        exp = hand.expected()
        if isinstance(exp, Act):
            asked += 1
            break
        deal(hand, deck.pop(0))
    return asked


@pytest.mark.parametrize("rules", [CASINO, PHH], ids=["casino", "phh"])
@pytest.mark.parametrize("game", [STUD, GameKind.RAZZ, GameKind.STUD_HI_LO])
def test_stud_with_every_opponent_all_in_for_the_ante_asks_for_no_bring_in(
        game: GameKind, rules: RuleSet) -> None:
    hand = start(game, FL, stacks=(1, 100, 1), button=3, rules=rules)
    assert _run_out(hand) == 0
    assert hand.is_done and sum(hand.final_stacks.values()) == 102
    # seat 2 put in its ante and nothing else: it cannot have lost more than that
    assert hand.final_stacks[2] >= 99


def test_stud_with_two_players_who_have_chips_still_brings_in() -> None:
    hand = start(STUD, FL, stacks=(1, 100, 100), button=3)
    deal(hand, "Ac Kc Qc Ad Kd Qd 2c 5s 9h")
    assert isinstance(hand.expected(), Act)


@pytest.mark.parametrize(("game", "structure"), [
    (GameKind.HOLDEM, NL), (GameKind.HOLDEM, FL), (GameKind.OMAHA, PL),
    (GameKind.OMAHA_HI_LO, FL)])
@pytest.mark.parametrize("rules", [CASINO, PHH], ids=["casino", "phh"])
def test_heads_up_big_blind_all_in_for_less_than_the_small_blind_owes_nothing(
        game: GameKind, structure: object, rules: RuleSet) -> None:
    stakes = Stakes(small_blind=2, big_blind=4, small_bet=4, big_bet=8)
    hand = start(game, structure, stacks=(1, 100), button=2, rules=rules,  # type: ignore[arg-type]
                 stakes=stakes)
    assert _run_out(hand) == 0
    # the button posted 2 as small blind; the big blind had 1: one chip goes back
    returned = [(e.seat, e.amount) for e in hand.events if isinstance(e, BetReturned)]
    assert returned == [(2, 1)]
    # so the small blind risked exactly one chip: it ends with 99, 100 (a split) or 101
    assert hand.final_stacks[2] in (99, 100, 101)
    assert sum(hand.final_stacks.values()) == 101


def test_heads_up_big_blind_all_in_for_exactly_the_small_blind_needs_no_call() -> None:
    hand = start(GameKind.HOLDEM, NL, stacks=(1, 100), button=2)
    deal(hand, "As Ks Ad Kd")
    assert isinstance(hand.expected(), Burn)


def test_heads_up_big_blind_all_in_for_more_than_the_small_blind_is_called_or_folded() -> None:
    hand = start(GameKind.HOLDEM, NL, stacks=(2, 100), button=2,
                 stakes=Stakes(small_blind=1, big_blind=4))
    deal(hand, "As Ks Ad Kd")
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 2 and legal.call_amount == 1


@pytest.mark.parametrize(("setting", "call", "min_to"), [
    (ShortBigBlind.FULL_BLIND, 2, 4), (ShortBigBlind.POSTED, 1, 3)])
@pytest.mark.parametrize("structure", [NL, FL])
def test_short_big_blind_call_and_minimum_raise(setting: ShortBigBlind, call: int,
                                                min_to: int, structure: object) -> None:
    rules = replace(CASINO, short_big_blind=setting)
    hand = start(GameKind.HOLDEM, structure, stacks=(100, 1, 100), button=3,  # type: ignore[arg-type]
                 rules=rules)
    deal(hand, "As Ks Qs Ad Kd Qd")
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 3
    assert (legal.call_amount, legal.min_to) == (call, min_to)


@pytest.mark.parametrize(("setting", "call"), [
    (ShortBigBlind.FULL_BLIND, 2), (ShortBigBlind.POSTED, 1)])
def test_big_blind_all_in_for_the_ante(setting: ShortBigBlind, call: int) -> None:
    rules = replace(CASINO, short_big_blind=setting)
    hand = start(GameKind.HOLDEM, NL, stacks=(100, 1, 100), button=3, rules=rules,
                 stakes=Stakes(small_blind=1, big_blind=2, ante=1))
    deal(hand, "As Ks Qs Ad Kd Qd")
    legal = hand.legal_actions()
    assert legal is not None and legal.call_amount == call


def test_presets_set_the_short_big_blind() -> None:
    assert CASINO.short_big_blind is ShortBigBlind.FULL_BLIND
    assert PHH.short_big_blind is ShortBigBlind.POSTED
