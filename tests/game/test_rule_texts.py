"""The house rule texts the project was given, rule by rule (docs/rules.md summarises the
texts and names these tests).

``P*``: the limit Omaha house's ten steps (preset ``pacific-omaha``); ``I*``: the island
casino's hold'em, hi-lo and stud rules (preset ``island``).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from tablectl.domain.games import GameKind, RulesPreset
from tablectl.game import (
    PRESETS,
    ActionKind,
    Burn,
    DealBoard,
    DealDown,
    DealHole,
    DealUp,
    ForcedBet,
    ForcedKind,
    Half,
    Hand,
    HandSetupError,
    Rake,
    SeatSetup,
    ShowdownHand,
    Stakes,
)
from tests.game.helpers import FL, act, deal, start, to_act

PACIFIC = PRESETS[RulesPreset.PACIFIC_OMAHA]
ISLAND = PRESETS[RulesPreset.ISLAND]
OMAHA = GameKind.OMAHA


def pacific_hand(stacks: tuple[int, ...] = (10_000,) * 4, *, small_bet: int = 200,
                 big_bet: int = 400, rules: object = PACIFIC) -> Hand:
    """Chips in cents: a $2/$4 table is small_bet=200, big_bet=400 (dollar=100)."""
    stakes = Stakes.from_limits(small_bet, big_bet, rules, dollar=100)  # type: ignore[arg-type]
    return Hand.start(game=OMAHA, structure=FL, rules=rules, stakes=stakes,  # type: ignore[arg-type]
                      seats=[SeatSetup(i + 1, s) for i, s in enumerate(stacks)],
                      button=len(stacks))


# --- pacific-omaha ---------------------------------------------------------------------------


def test_p01_p04_blinds_posted_by_first_and_second_seat_left_of_dealer() -> None:
    hand = pacific_hand()
    forced = [(e.seat, e.kind) for e in hand.events if isinstance(e, ForcedBet)]
    assert forced == [(1, ForcedKind.SMALL_BLIND), (2, ForcedKind.BIG_BLIND)]


@pytest.mark.parametrize(("small_bet", "small_blind"), [
    (200, 100),   # $2/$4: half of $2 = $1
    (300, 100),   # $3/$6: half of $3 = $1.50, rounded down to $1
    (500, 200),   # $5/$10: $2.50 -> $2
    (100, 50),    # $1/$2: stakes not higher than $1, no rounding: 50 cents
])
def test_p02_p03_small_blind_is_half_the_lower_limit_rounded_down_to_a_dollar(
        small_bet: int, small_blind: int) -> None:
    stakes = Stakes.from_limits(small_bet, 2 * small_bet, PACIFIC, dollar=100)
    assert stakes.small_blind == small_blind


def test_p05_big_blind_equals_the_higher_limit_and_is_enforced() -> None:
    hand = pacific_hand()
    posted = {e.kind: e.amount for e in hand.events if isinstance(e, ForcedBet)}
    assert posted[ForcedKind.BIG_BLIND] == 400
    with pytest.raises(HandSetupError, match="big blind must equal the big bet"):
        Hand.start(game=OMAHA, structure=FL, rules=PACIFIC, stakes=Stakes(
            small_blind=100, big_blind=200, small_bet=200, big_bet=400),
            seats=[SeatSetup(1, 1000), SeatSetup(2, 1000)], button=2)


def test_p06_p07_four_cards_one_at_a_time_from_the_left_of_the_big_blind() -> None:
    hand = pacific_hand()
    order = []
    while isinstance(hand.expected(), DealHole):
        exp = hand.expected()
        assert isinstance(exp, DealHole)
        order.append(exp.seat)
        deal(hand, ["2c", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc", "Jc", "Qc", "Kc",
                    "Ac", "2d", "3d", "4d"][len(order) - 1])
    assert order == [3, 4, 1, 2] * 4
    casino = start(OMAHA, stacks=(100,) * 4, button=4)
    first = casino.expected()
    assert isinstance(first, DealHole) and first.seat == 1   # casino: left of the button


HOLES16 = "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 2d 3d 4d"


def test_p08_p09_p10_first_round_left_of_big_blind_at_the_lower_limit_call_the_big_blind() -> None:
    hand = pacific_hand()
    deal(hand, HOLES16)
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 3
    assert ActionKind.CHECK not in legal.kinds                 # must at least call the BB
    assert (legal.call_amount, legal.min_to) == (400, 600)     # raises go by the lower limit
    act(hand, 3, "raise", 600)
    assert hand.legal_actions().min_to == 800  # type: ignore[union-attr]


def test_p11_p12_flop_without_burn_second_round_left_of_dealer_lower_limit() -> None:
    hand = pacific_hand()
    deal(hand, HOLES16)
    for seat in (3, 4, 1):
        act(hand, seat, "call")
    act(hand, 2, "check")
    assert isinstance(hand.expected(), DealBoard)              # the text burns no card
    deal(hand, "5d 6d 7d")
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 1 and legal.min_to == 200


def test_p13_p16_later_rounds_use_the_higher_limit() -> None:
    hand = pacific_hand()
    deal(hand, HOLES16)
    for seat in (3, 4, 1):
        act(hand, seat, "call")
    act(hand, 2, "check")
    deal(hand, "5d 6d 7d")
    act(hand, 1, "bet", 200)
    for seat in (2, 3, 4):
        act(hand, seat, "call")
    deal(hand, "8d")                                            # the turn
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 1 and legal.min_to == 400
    for seat in (1, 2, 3, 4):
        act(hand, seat, "check")
    deal(hand, "9d")                                            # the river
    legal = hand.legal_actions()
    assert legal is not None and legal.min_to == 400


def test_p17_p18_showdown_two_hole_cards_and_three_board_cards() -> None:
    hand = pacific_hand((10_000, 10_000))
    # heads-up the button (seat 2) is the small blind; dealing starts left of the big blind,
    # i.e. with seat 2: seat 2 gets As 2c 3d 4h, seat 1 Kh Kd 7c 7d
    deal(hand, "As Kh 2c Kd 3d 7c 4h 7d")
    act(hand, 2, "call")
    act(hand, 1, "check")
    for board in ("Ks Qs Js", "9s", "5c"):
        deal(hand, board)
        for seat in (1, 2):
            act(hand, seat, "check")
    shown = {e.seat: e.high for e in hand.events if isinstance(e, ShowdownHand)}
    # four spades on board and one in hand is no flush in Omaha (two hole cards, three board)
    assert shown == {1: "Three of a kind, kings", 2: "High card, ace"}
    assert dict(hand.final_stacks) == {1: 10_400, 2: 9_600}


def test_p19_rake_is_a_setting() -> None:
    assert PACIFIC.rake.percent == 0
    raked = replace(PACIFIC, rake=Rake(Fraction(1, 10), cap=300))
    hand = pacific_hand((10_000, 10_000), rules=raked)
    deal(hand, "As Kh 2c Kd 3d 7c 4h 7d")
    act(hand, 2, "call")
    act(hand, 1, "check")
    for board in ("Ks Qs Js", "9s", "5c"):
        deal(hand, board)
        for seat in (1, 2):
            act(hand, seat, "check")
    assert hand.rake == 80 and dict(hand.final_stacks) == {1: 10_320, 2: 9_600}


def test_p20_all_in_policy_side_pots() -> None:
    hand = pacific_hand((500, 10_000, 10_000))
    deal(hand, "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc")
    act(hand, 3, "raise", 600)
    act(hand, 1, "call")                        # all-in for 500
    act(hand, 2, "call")
    pots = hand.view().pots
    assert [(p.amount, p.eligible) for p in pots] == [(1500, (1, 2, 3)), (200, (2, 3))]


# --- island ----------------------------------------------------------------------------------


def test_i08_i07_i05_i10_blinds_first_to_act_and_button_last_after_the_flop() -> None:
    hand = start(stacks=(100,) * 4, button=4, rules=ISLAND)
    forced = [(e.seat, e.kind) for e in hand.events if isinstance(e, ForcedBet)]
    assert forced == [(1, ForcedKind.SMALL_BLIND), (2, ForcedKind.BIG_BLIND)]
    deal(hand, "2c 3c 4c 5c 2d 3d 4d 5d")
    assert to_act(hand) == 3                     # left of the blinds
    for seat in (3, 4, 1):
        act(hand, seat, "call")
    act(hand, 2, "check")
    deal(hand, "6c 7s 8s 9h")                    # burn + flop
    acted = []
    for _ in range(4):
        acted.append(to_act(hand))
        act(hand, acted[-1], "check")
    assert acted == [1, 2, 3, 4]                 # left of the button first, the button last


def test_i09_one_or_two_blinds() -> None:
    one = start(stacks=(100,) * 3, button=3, rules=ISLAND,
                stakes=Stakes(big_blind=2, small_bet=2, big_bet=4))
    assert [e.kind for e in one.events if isinstance(e, ForcedBet)] == [ForcedKind.BIG_BLIND]
    two = start(stacks=(100,) * 3, button=3, rules=ISLAND)
    assert len([e for e in two.events if isinstance(e, ForcedBet)]) == 2


def test_i02_i04_i06_board_three_one_one_with_a_round_after_each() -> None:
    hand = start(stacks=(100, 100), button=2, rules=ISLAND)
    deal(hand, "2c 3c 4c 5c")
    act(hand, 2, "call")
    act(hand, 1, "check")
    seen = []
    for board in ("9h 6c 7s 8s", "Th 9s", "Jh Ts"):
        exp = hand.expected()
        assert isinstance(exp, Burn)
        deal(hand, board)
        seen.append(len(hand.board))
        assert hand.legal_actions() is not None  # a betting round follows each deal
        act(hand, 1, "check")
        act(hand, 2, "check")
    assert seen == [3, 4, 5] and hand.is_done


def test_i01_i12_board_plays_everyone_splits_any_hole_cards() -> None:
    hand = start(stacks=(100,) * 3, button=3, rules=ISLAND)
    deal(hand, "2c 3c 4c 2d 3d 4d")
    act(hand, 3, "call")
    act(hand, 1, "call")
    act(hand, 2, "check")
    for board in ("5c As Ks Qs", "6c Js", "7c Ts"):
        deal(hand, board)
        for seat in (1, 2, 3):
            act(hand, seat, "check")
    assert dict(hand.final_stacks) == {1: 100, 2: 100, 3: 100}


def test_i12_any_combination_of_hole_and_board_cards() -> None:
    hand = start(stacks=(100, 100), button=2, rules=ISLAND)
    deal(hand, "As 2h 7h 2d")                 # seat 1: As 7h, seat 2: 2h 2d
    act(hand, 2, "call")
    act(hand, 1, "check")
    for board in ("3c Ks Qs Js", "4c Ts", "5c 2c"):
        deal(hand, board)
        act(hand, 1, "check")
        act(hand, 2, "check")
    shown = {e.seat: e.high for e in hand.events if isinstance(e, ShowdownHand)}
    assert shown == {1: "Royal flush", 2: "Three of a kind, twos"}   # one hole card plays
    assert dict(hand.final_stacks) == {1: 102, 2: 98}


def test_i03_showdown_only_with_two_or_more_players() -> None:
    hand = start(stacks=(100,) * 3, button=3, rules=ISLAND)
    deal(hand, "2c 3c 4c 2d 3d 4d")
    act(hand, 3, "raise", 4)
    act(hand, 1, "fold")
    act(hand, 2, "fold")
    assert hand.is_done and not any(isinstance(e, ShowdownHand) for e in hand.events)


def _hold_em_hi_lo(holes: str, board: str) -> Hand:
    """Heads-up, checked down; ``board`` streets are "burn cards|burn card|burn card"."""
    hand = start(GameKind.HOLDEM_HI_LO, stacks=(100, 100), button=2, rules=ISLAND)
    deal(hand, holes)
    act(hand, 2, "call")
    act(hand, 1, "check")
    for street in board.split("|"):
        deal(hand, street)
        act(hand, 1, "check")
        act(hand, 2, "check")
    return hand


def test_i13_no_qualifying_low_high_takes_all() -> None:
    hand = _hold_em_hi_lo("Ah Kc Ad Kd", "2c 9c Tc Jh|3c Qd|4c Qs")
    halves = {a.half for r in hand.results for a in r.awards}
    assert halves == {Half.WHOLE}


def test_i14_low_must_be_unpaired_and_eight_or_better() -> None:
    paired = _hold_em_hi_lo("2h 9c 2d 9d", "Jc 3s 4c 7h|Jd Qd|Js Ks")  # 2-2-3-4-7: no low
    assert {a.half for r in paired.results for a in r.awards} == {Half.WHOLE}
    eight = _hold_em_hi_lo("Ah 9c 2d 9d", "Jc 3s 4c 8h|Jd 5s|Js Ks")
    lows = {e.seat: e.low for e in eight.events if isinstance(e, ShowdownHand)}
    assert lows[1] == "5-4-3-2-A low" and lows[2] is None


def test_i15_high_and_low_split_and_one_hand_can_scoop() -> None:
    split_hand = _hold_em_hi_lo("Ah Kc 2d Kd", "Jc 3s Kh 7c|Jd 8h|Js Qs")
    awards = {(a.seat, a.half): a.amount for r in split_hand.results for a in r.awards}
    assert awards == {(2, Half.HIGH): 2, (1, Half.LOW): 2}
    scoop = _hold_em_hi_lo("Ah 9c 2d 9d", "Jc 3s 4s 5s|Jd 8h|Js Kc")
    awards = {(a.seat, a.half): a.amount for r in scoop.results for a in r.awards}
    assert awards == {(1, Half.HIGH): 2, (1, Half.LOW): 2}   # wheel straight and A-5 low


def _stud8(ups: str, rules: object = ISLAND) -> Hand:
    hand = start(GameKind.STUD_HI_LO, stacks=(100,) * 3, button=3, rules=rules)  # type: ignore[arg-type]
    deal(hand, "Kc Qc Jc Kd Qd Jd " + ups)
    return hand


def test_i16_i17_i19_stud_hi_lo_lowest_up_card_brings_in_ace_high() -> None:
    assert to_act(_stud8("Ah 2s 9h")) == 2                     # the deuce, not the ace
    assert to_act(_stud8("9h 2s 2c")) == 3                     # 2c below 2s
    from tablectl.game import BringInCard
    assert to_act(_stud8("Ah 2s 9h", replace(ISLAND, bring_in_card=BringInCard.HIGHEST))) == 1
    assert to_act(_stud8("Ah 2s 9h", replace(ISLAND, bring_in_ace_low=True))) == 1


def test_i22_stud_high_brings_in_with_the_lowest_card_whatever_stud_hi_lo_knobs_say() -> None:
    from tablectl.game import BringInCard

    for rules in (ISLAND, replace(ISLAND, bring_in_card=BringInCard.HIGHEST),
                  replace(ISLAND, bring_in_ace_low=True)):
        for ups, seat in (("Ah 2s 9h", 2), ("9h 2s 2c", 3)):   # aces high; 2c below 2s
            hand = start(GameKind.STUD, stacks=(100,) * 3, button=3, rules=rules)
            deal(hand, "Kc Qc Jc Kd Qd Jd " + ups)
            assert to_act(hand) == seat, (rules.bring_in_card, rules.bring_in_ace_low, ups)


def test_i22_stud_high_lowest_up_card_brings_in() -> None:
    hand = start(GameKind.STUD, stacks=(100,) * 3, button=3, rules=ISLAND)
    deal(hand, "Kc Qc Jc Kd Qd Jd 4h 3s 9h")
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 2 and ActionKind.BRING_IN in legal.kinds


def test_i21_i23_i24_stud_streets_up_cards_then_a_last_down_card() -> None:
    hand = start(GameKind.STUD, stacks=(100, 100), button=2, rules=ISLAND)
    deck = iter(_STUD_DECK.split())
    kinds = []
    while not hand.is_done:
        exp = hand.expected()
        if isinstance(exp, DealDown | DealUp):
            kinds.append((exp.street.value, type(exp).__name__))
        legal = hand.legal_actions()
        if legal is None:
            deal(hand, next(deck))
        elif ActionKind.BRING_IN in legal.kinds:
            act(hand, legal.seat, "bring-in")
        else:
            act(hand, legal.seat, "check" if ActionKind.CHECK in legal.kinds else "call")
    by_street = {}
    for street, kind in kinds:
        by_street.setdefault(street, []).append(kind)
    assert by_street == {
        "third": ["DealDown"] * 4 + ["DealUp"] * 2, "fourth": ["DealUp"] * 2,
        "fifth": ["DealUp"] * 2, "sixth": ["DealUp"] * 2, "seventh": ["DealDown"] * 2}


_STUD_DECK = ("2c 7d 3c 8d 4h 9s "      # third: downs, downs, ups (seat 1 shows 4h)
              "Tc Ks Jc "               # burn, fourth street
              "Qc 2d As "
              "3d 4d 5d "
              "6d 8c 9c")


def test_i21_highest_showing_hand_opens_later_rounds() -> None:
    hand = start(GameKind.STUD, stacks=(100,) * 3, button=3, rules=ISLAND)
    deal(hand, "2c 3c 4c 2d 3d 4d 5h 6h 9s")
    act(hand, 1, "bring-in")
    act(hand, 2, "call")
    act(hand, 3, "call")
    deal(hand, "Ts 5s Kh 7h")                # burn; seat 1 pairs its fives
    assert to_act(hand) == 1


def test_i25_stud_best_five_of_seven() -> None:
    hand = start(GameKind.STUD, stacks=(100, 100), button=2, rules=ISLAND)
    deal(hand, "Ac 2c Ad 2d Ah 7s")           # seat 1: Ac Ad / Ah; seat 2: 2c 2d / 7s
    act(hand, 2, "bring-in")
    act(hand, 1, "call")
    for cards in ("Tc As 7c", "Td Kh Kc", "Th 3h 4c", "Ts 5h 6c"):
        deal(hand, cards)
        first = to_act(hand)
        act(hand, first, "check")
        act(hand, 3 - first, "check")
    shown = {e.seat: e.high for e in hand.events if isinstance(e, ShowdownHand)}
    assert shown[1] == "Four of a kind, aces"
