"""Stud, stud hi-lo and razz: bring-in, completion, openers, partial bring-in, the deck."""

from __future__ import annotations

from dataclasses import replace

from tablectl.domain.games import GameKind
from tablectl.game import (
    ActionKind,
    BringInCard,
    Burn,
    DealBoard,
    DealDown,
    DealUp,
    OddChip,
    StudOpenerTie,
)
from tests.game.helpers import CASINO, PHH, act, deal, start, to_act

STUD = GameKind.STUD


def test_third_street_deal_order_and_lowest_card_brings_in_by_suit() -> None:
    hand = start(STUD, stacks=(100,) * 3, button=3)
    kinds = []
    for card in ["Ac", "Kc", "Qc", "Ad", "Kd", "Qd", "2s", "2c", "9h"]:
        kinds.append(type(hand.expected()))
        deal(hand, card)
    assert kinds == [DealDown] * 6 + [DealUp] * 3
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 2          # 2c is lower than 2s
    assert legal.kinds == {ActionKind.BRING_IN, ActionKind.COMPLETE}
    assert (legal.bring_in_amount, legal.min_to) == (2, 4)


def test_razz_highest_card_brings_in_spade_over_heart() -> None:
    hand = start(GameKind.RAZZ, stacks=(100,) * 3, button=3)
    deal(hand, "Ac 2c 3c 4d 5d 6d Kh Ks 7h")
    assert to_act(hand) == 2


def test_stud_hi_lo_bring_in_card_is_a_setting() -> None:
    cards = "Ac 2c 3c 4d 5d 6d Kh As 7h"
    low = start(GameKind.STUD_HI_LO, stacks=(100,) * 3, button=3)
    deal(low, cards)
    assert to_act(low) == 3                  # 7h is the lowest, the ace counts high
    high = start(GameKind.STUD_HI_LO, stacks=(100,) * 3, button=3,
                 rules=replace(CASINO, bring_in_card=BringInCard.HIGHEST))
    deal(high, cards)
    assert to_act(high) == 2                 # As is the highest up card
    ace_low = start(GameKind.STUD_HI_LO, stacks=(100,) * 3, button=3,
                    rules=replace(CASINO, bring_in_ace_low=True))
    deal(ace_low, cards)
    assert to_act(ace_low) == 2              # "an ace ranks below a two"


def _to_fourth(rules: object = CASINO, game: GameKind = STUD, ups: str = "2s 2c 9h",
               fourth: str = "5h Kh 9s") -> object:
    hand = start(game, stacks=(100,) * 3, button=3, rules=rules)  # type: ignore[arg-type]
    deal(hand, "Ac Kc Qc Ad Kd Qd " + ups)
    bring = to_act(hand)
    act(hand, bring, "bring-in")
    for _ in range(2):
        act(hand, to_act(hand), "call")
    exp = hand.expected()
    assert isinstance(exp, Burn)
    deal(hand, "3h " + fourth)
    return hand


def test_later_streets_best_showing_hand_acts_first() -> None:
    hand = _to_fourth()
    assert to_act(hand) == 3                 # 9h 9s
    razz = _to_fourth(game=GameKind.RAZZ, ups="Ks 7h 8h", fourth="5h 2h 4s")
    assert to_act(razz) == 2                 # 7-2 is the lowest showing (K-5, 7-2, 8-4)


def test_stud_opener_tie_by_suit_or_by_position() -> None:
    ups, fourth = "2s 2c 9h", "Jh Jd 8s"   # seats 1 (2s Jh) and 2 (2c Jd) show the same
    first = _to_fourth(ups=ups, fourth=fourth)
    assert to_act(first) == 1                # nearest the dealer's left
    by_suit = _to_fourth(rules=replace(CASINO, stud_opener_tie=StudOpenerTie.HIGH_CARD_BY_SUIT),
                         ups=ups, fourth=fourth)
    assert to_act(by_suit) == 1              # Jh beats Jd
    by_suit_other = _to_fourth(
        rules=replace(CASINO, stud_opener_tie=StudOpenerTie.HIGH_CARD_BY_SUIT),
        ups="2c 2s 9h", fourth="Jd Jh 8s")
    assert to_act(by_suit_other) == 2


def test_partial_bring_in_full_or_short() -> None:
    for rules, call in ((CASINO, 2), (PHH, 1)):
        hand = start(STUD, stacks=(2, 100, 100), button=3, rules=rules)
        deal(hand, "Ac Kc Qc Ad Kd Qd 2c 5s 9h")
        act(hand, 1, "bring-in")             # one chip left after the ante
        legal = hand.legal_actions()
        assert legal is not None and legal.call_amount == call, rules.name


def test_completion_counts_toward_the_cap_bring_in_does_not() -> None:
    hand = start(STUD, stacks=(100,) * 4, button=4)
    deal(hand, "Ac Kc Qc Jc Ad Kd Qd Jd 2c 5s 9h Th")
    act(hand, 1, "bring-in")
    act(hand, 2, "complete", 4)
    act(hand, 3, "raise", 8)
    act(hand, 4, "raise", 12)
    act(hand, 1, "raise", 16)                # completion + 3 raises: capped
    legal = hand.legal_actions()
    assert legal is not None and legal.bet_kind is None


def test_community_card_when_the_deck_runs_out() -> None:
    hand = start(STUD, stacks=(100,) * 8, button=8)
    deck = [f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs"]
    while not isinstance(hand.expected(), DealBoard):
        exp = hand.expected()
        if hasattr(exp, "legal"):
            legal = hand.legal_actions()
            assert legal is not None
            kind = next(k for k in ("bring-in", "check", "call") if ActionKind(k) in legal.kinds)
            act(hand, legal.seat, kind)
        else:
            deal(hand, deck.pop())
    # 8 x 6 cards + 3 burns = 51: one burn is all that is left before the community card
    assert len(deck) == 1
    assert hand.board == ()


def _razz_tie(odd: OddChip) -> dict[int, int]:
    hand = start(GameKind.RAZZ, stacks=(100,) * 3, button=3,
                 rules=replace(CASINO, stud_odd_chip=odd))
    deal(hand, "Ac Ad Th 2c 2d Tc Kc Qd Jh")
    act(hand, 1, "bring-in")                 # Kc is the highest up card
    act(hand, 2, "call")
    act(hand, 3, "fold")
    for street in ("6h 3c 3d", "6s 4c 4d", "7h 5c 5d", "7s 9c 9d"):
        deal(hand, street)
        first = to_act(hand)
        act(hand, first, "check")
        act(hand, 3 - first, "check")
    assert hand.is_done
    return dict(hand.final_stacks)


def test_stud_odd_chip_goes_to_the_high_card_by_suit() -> None:
    # both make 5-4-3-2-A; pot 7 (3 antes, 2 + 2); the 5d outranks the 5c
    assert _razz_tie(OddChip.HIGH_CARD_BY_SUIT) == {1: 100, 2: 101, 3: 99}
    assert _razz_tie(OddChip.LEFT_OF_BUTTON) == {1: 101, 2: 100, 3: 99}
