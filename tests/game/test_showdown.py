"""Showdowns: every pot to its own eligible hands, hi/lo halves, odd chips and rake."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction

import pytest

from tablectl.domain.games import GameKind
from tablectl.game import (
    Half,
    OddChip,
    PotAwarded,
    Rake,
    RakeScope,
    ShowdownHand,
    Stakes,
    to_dict,
)
from tests.game.helpers import CASINO, NL, act, deal, start


def test_hi_lo_side_pot_without_a_low_goes_to_the_high_hand() -> None:
    # PokerKit 0.7.7 gives [6, 99, 86, 22] (docs/rules.md); the side pots have no low
    hand = start(GameKind.HOLDEM_HI_LO, stacks=(3, 100, 100, 10), button=4)
    deal(hand, "As Kh Qh Ah 2s Kd Qd Ad")
    act(hand, 3, "raise", 4)
    act(hand, 4, "call")
    act(hand, 1, "call")       # all-in for 3
    act(hand, 2, "call")
    deal(hand, "9c 3c 4d 8h")
    act(hand, 2, "bet", 2)
    act(hand, 3, "raise", 4)
    act(hand, 4, "raise", 6)   # all-in
    act(hand, 2, "call")
    act(hand, 3, "call")
    deal(hand, "9d Tc")
    act(hand, 2, "bet", 4)
    act(hand, 3, "call")
    deal(hand, "9h Jd")
    act(hand, 2, "check")
    act(hand, 3, "check")
    assert hand.is_done
    # main 12: aces high 6, seat 1's 8-4-3-2-A low 6; side 21 to the aces; side 8 to kings
    assert dict(hand.final_stacks) == {1: 6, 2: 94, 3: 86, 4: 27}
    halves = [(r.pot_index, a.seat, a.amount, a.half) for r in hand.results for a in r.awards]
    assert halves == [(0, 4, 6, Half.HIGH), (0, 1, 6, Half.LOW),
                      (1, 4, 21, Half.WHOLE), (2, 2, 8, Half.WHOLE)]
    lows = {e.seat: e.low for e in hand.events if isinstance(e, ShowdownHand)}
    assert lows == {1: "8-4-3-2-A low", 2: None, 3: None, 4: None}


def _three_way_board_split(rules_odd: OddChip, unit: int = 1) -> dict[int, int]:
    rules = replace(CASINO, odd_chip=rules_odd, split_unit=unit)
    hand = start(stacks=(100,) * 4, button=4, rules=rules)
    deal(hand, "2c 3c 4c 5c 2d 3d 4d 5d")
    act(hand, 3, "call")
    act(hand, 4, "call")
    act(hand, 1, "call")
    act(hand, 2, "check")
    deal(hand, "6c As Ks Qs")
    act(hand, 1, "bet", 2)
    act(hand, 2, "call")
    act(hand, 3, "call")
    act(hand, 4, "fold")
    for street in ("7c Js", "8c Ts"):
        deal(hand, street)
        for seat in (1, 2, 3):
            act(hand, seat, "check")
    assert hand.is_done
    return dict(hand.final_stacks)


def test_odd_chips_go_one_each_from_the_button_left() -> None:
    # pot 14, royal flush on board: 3 ways -> 5, 5, 4 (seats 1 and 2 first left of button 4)
    assert _three_way_board_split(OddChip.LEFT_OF_BUTTON) == {1: 101, 2: 101, 3: 100, 4: 98}


def test_pots_split_in_units_of_the_smallest_chip() -> None:
    # 14 in chips of 2: seven chips three ways -> 3, 2, 2 chips = 6, 4, 4
    assert _three_way_board_split(OddChip.LEFT_OF_BUTTON, unit=2) == {
        1: 102, 2: 100, 3: 100, 4: 98}


def test_pokerkit_odd_chip_rule_gives_all_to_the_first_winner() -> None:
    assert _three_way_board_split(OddChip.FIRST_WINNER_ALL) == {1: 102, 2: 100, 3: 100, 4: 98}


def _side_pot_hand(rake: Rake) -> dict[int, int]:
    hand = start(structure=NL, stacks=(30, 100, 100), button=3, rules=replace(CASINO, rake=rake))
    deal(hand, "As Ks 2h Ad Kd 3h")
    act(hand, 3, "raise", 60)
    act(hand, 1, "call")   # all-in 30
    act(hand, 2, "call")
    for street in ("4c 7c 8d 9s", "5c Jc", "6c Qd"):
        deal(hand, street)
        act(hand, 2, "check")
        act(hand, 3, "check")
    assert hand.is_done
    return dict(hand.final_stacks) | {0: hand.rake}


def test_rake_per_pot_rounds_down_per_pot() -> None:
    # main 90 -> 5% = 4.5 -> 4; side 60 -> 3
    stacks = _side_pot_hand(Rake(Fraction(1, 20), scope=RakeScope.PER_POT))
    assert stacks == {0: 7, 1: 86, 2: 97, 3: 40}


def test_rake_per_hand_has_one_cap() -> None:
    stacks = _side_pot_hand(Rake(Fraction(1, 10), cap=5, scope=RakeScope.PER_HAND))
    # main 90 -> 9 capped at 5; the side pot pays nothing more
    assert stacks == {0: 5, 1: 85, 2: 100, 3: 40}
    per_pot = _side_pot_hand(Rake(Fraction(1, 10), cap=5, scope=RakeScope.PER_POT))
    assert per_pot == {0: 10, 1: 85, 2: 95, 3: 40}


def test_no_flop_no_drop() -> None:
    rules = replace(CASINO, rake=Rake(Fraction(1, 10), cap=5))
    hand = start(structure=NL, stacks=(100,) * 3, button=3, rules=rules)
    deal(hand, "As Ks 2h Ad Kd 3h")
    act(hand, 3, "raise", 50)
    act(hand, 1, "fold")
    act(hand, 2, "fold")
    assert hand.rake == 0 and dict(hand.final_stacks) == {1: 99, 2: 98, 3: 103}


def test_winning_hands_are_described_and_events_are_json() -> None:
    hand = start(stacks=(100, 100), button=2)
    deal(hand, "Kh 2c Kd 7d")
    act(hand, 2, "call")
    act(hand, 1, "check")
    for street in ("3s 4h 9c Ks", "5s 4d", "6s 9h"):
        deal(hand, street)
        act(hand, 1, "check")
        act(hand, 2, "check")
    awards = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert [(a.seat, a.amount, a.description) for a in awards] == [
        (1, 4, "Full house, kings full of nines")]
    text = json.dumps([to_dict(e) for e in hand.events])
    assert '"type": "pot-awarded"' in text and '"card": "Kh"' in text


def _checked_down_with_unknown_cards(rules: object = CASINO) -> object:
    from tablectl.game import CardIn

    hand = start(stacks=(100, 100), button=2, rules=rules)  # type: ignore[arg-type]
    hand.apply(CardIn(None))                       # seat 1's cards are not read
    deal(hand, "Kd")
    hand.apply(CardIn(None))
    deal(hand, "Kc")
    act(hand, 2, "call")
    act(hand, 1, "check")
    for street in ("2c 3s 8d 9c", "4c Jd", "5c Qh"):
        deal(hand, street)
        act(hand, 1, "check")
        act(hand, 2, "check")
    return hand


def test_unknown_hole_cards_must_be_shown_or_mucked() -> None:
    from tablectl.domain.cards import parse_cards
    from tablectl.game import DuplicateCard, MuckIn, Showdown, ShowIn

    hand = _checked_down_with_unknown_cards()
    assert hand.expected() == Showdown(1)          # type: ignore[attr-defined]
    with pytest.raises(DuplicateCard):
        hand.apply(ShowIn(1, parse_cards("Kd 7h")))  # type: ignore[attr-defined]
    hand.apply(ShowIn(1, parse_cards("Ah Ad")))      # type: ignore[attr-defined]
    assert dict(hand.final_stacks) == {1: 102, 2: 98}  # type: ignore[attr-defined]
    mucked = _checked_down_with_unknown_cards()
    mucked.apply(MuckIn(1))                          # type: ignore[attr-defined]
    assert dict(mucked.final_stacks) == {1: 98, 2: 102}  # type: ignore[attr-defined]


def test_showdown_by_input_starts_with_the_last_aggressor() -> None:
    from tablectl.game import Showdown, ShowIn

    hand = start(stacks=(100,) * 3, button=3, rules=replace(CASINO, showdown_by_input=True))
    deal(hand, "As Ks Qs Ad Kd Qd")
    act(hand, 3, "call")
    act(hand, 1, "call")
    act(hand, 2, "check")
    for street in ("2c 3h 8d 9c", "4c Jh", "5c 7h"):
        deal(hand, street)
        if street.startswith("5c"):
            act(hand, 1, "check")
            act(hand, 2, "bet", 4)
            act(hand, 3, "call")
            act(hand, 1, "call")
        else:
            for seat in (1, 2, 3):
                act(hand, seat, "check")
    order = []
    while not hand.is_done:
        exp = hand.expected()
        assert isinstance(exp, Showdown)
        order.append(exp.seat)
        hand.apply(ShowIn(exp.seat))
    assert order == [2, 3, 1]


def _show_or_muck(hand: object, mucks: set[int]) -> list[int]:
    """Answer every showdown question: muck for the seats in ``mucks``, else show."""
    from tablectl.game import MuckIn, Showdown, ShowIn

    order = []
    while not hand.is_done:                          # type: ignore[attr-defined]
        exp = hand.expected()                        # type: ignore[attr-defined]
        assert isinstance(exp, Showdown), exp
        order.append(exp.seat)
        hand.apply(MuckIn(exp.seat) if exp.seat in mucks  # type: ignore[attr-defined]
                   else ShowIn(exp.seat))
    return order


@pytest.mark.parametrize("merge", [True, False])
def test_a_big_blind_all_in_for_the_ante_against_two_mucked_hands(merge: bool) -> None:
    # the hand that stopped settlement (max() of no hands) under merge_equal_pots: the big
    # blind is all-in for the big-blind ante (nothing in the betting), both others muck
    rules = replace(CASINO, showdown_by_input=True, merge_equal_pots=merge,
                    all_in_face_up=False)
    stakes = Stakes(small_blind=1, big_blind=2, big_blind_ante=3, small_bet=2, big_bet=4)
    hand = start(GameKind.OMAHA, stacks=(50, 50, 3), button=1, rules=rules, stakes=stakes)
    deal(hand, "As Ks Qs Js Ah Kh Qh Jh 2c 3d 4h 5s")   # seats 2, 3, 1 in turn
    act(hand, 1, "call")
    act(hand, 2, "call")
    for street in ("7c 8c 9d Td", "6c Th", "2d 9s"):
        deal(hand, street)
        act(hand, 2, "check")
        act(hand, 1, "check")
    assert _show_or_muck(hand, mucks={1, 2}) == [2, 3, 1]
    # main pot: the dead ante, to the only hand shown; the 4 above it: seat 2 mucked first,
    # which left it to seat 1 alone before seat 1 mucked too
    pots = [(r.amount, r.eligible, [(a.seat, a.amount) for a in r.awards])
            for r in hand.results]
    assert pots == [(3, (3,), [(3, 3)]), (4, (1,), [(1, 4)])]
    assert dict(hand.final_stacks) == {1: 52, 2: 48, 3: 3}


@pytest.mark.parametrize("merge", [True, False])
def test_a_side_pot_whose_hands_both_mucked_goes_to_the_last_to_muck(merge: bool) -> None:
    rules = replace(CASINO, showdown_by_input=True, merge_equal_pots=merge,
                    all_in_face_up=False)
    hand = start(stacks=(4, 100, 100), button=3, rules=rules)
    deal(hand, "2c 7d 3h 8s Ac Kd")
    act(hand, 3, "raise", 4)
    act(hand, 1, "call")       # all-in for 4
    act(hand, 2, "call")
    deal(hand, "5h 9c Tc Jd")
    act(hand, 2, "check")
    act(hand, 3, "bet", 2)
    act(hand, 2, "call")
    for street, bet in (("6h Qd", None), ("4d 2s", 4)):
        deal(hand, street)
        act(hand, 2, "check")
        if bet:
            act(hand, 3, "bet", bet)
            act(hand, 2, "call")
        else:
            act(hand, 3, "check")
    assert _show_or_muck(hand, mucks={2, 3}) == [3, 1, 2]
    # the all-in hand wins what it matched (12), never the 12 it could not win
    assert dict(hand.final_stacks) == {1: 12, 2: 102, 3: 90}
    assert sum(hand.final_stacks.values()) == 204
