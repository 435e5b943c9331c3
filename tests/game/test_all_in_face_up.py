"""All-in hands face up (``RuleSet.all_in_face_up``): once a player is all-in and no more
betting is possible, every live hand is turned face up before the rest is dealt (on in
``casino``, off in ``phh`` and as the ``RuleSet`` default)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tablectl.domain.cards import Card, parse_cards
from tablectl.domain.games import GameKind
from tablectl.game import (
    PRESETS,
    BoardDealt,
    Burn,
    Burned,
    CardIn,
    Hand,
    HandFaceUp,
    MuckIn,
    RuleSet,
    RuleViolation,
    Showdown,
    ShowdownHand,
    ShowIn,
    Stakes,
    Street,
)
from tests.game.helpers import CASINO, FL, NL, PHH, act, deal, start

FACE_UP = replace(PHH, all_in_face_up=True)
BY_INPUT = replace(CASINO, showdown_by_input=True)
HOLES = "Ah Kh Qh Ad Kd Qd"   # one card a round: seat 1 Ah Ad, seat 2 Kh Kd, seat 3 Qh Qd
BOARD = "2c 3d 4h 5s 9c 7d Jc 8s"   # burn, flop, burn, turn, burn, river


def _all_in_preflop(rules: RuleSet) -> Hand:
    """Three-handed no-limit: seat 1 (50 chips) all-in, seat 2 calls, seat 3 folds."""
    hand = start(GameKind.HOLDEM, NL, stacks=(50, 100, 100), rules=rules)
    deal(hand, HOLES)
    act(hand, 3, "fold")
    act(hand, 1, "raise", 50)
    act(hand, 2, "call")
    return hand


def test_presets_set_the_knob() -> None:
    assert CASINO.all_in_face_up and not PHH.all_in_face_up
    assert [p.value for p, r in PRESETS.items() if r.all_in_face_up] == ["casino"]
    assert not RuleSet().all_in_face_up


@pytest.mark.parametrize("rules", [CASINO, FACE_UP], ids=["casino", "phh-with-knob"])
def test_on_every_live_hand_is_face_up_before_the_run_out(rules: RuleSet) -> None:
    hand = _all_in_preflop(rules)
    events = hand.events
    first_card_after = next(k for k, e in enumerate(events) if isinstance(e, Burned | BoardDealt)
                            ) if any(isinstance(e, Burned) for e in events) else len(events)
    face_up = [e for e in events if isinstance(e, HandFaceUp)]
    assert [(e.seat, e.cards) for e in face_up] == [
        (1, tuple(parse_cards("Ah Ad"))), (2, tuple(parse_cards("Kh Kd")))]
    assert all(events.index(e) < first_card_after for e in face_up)
    assert isinstance(hand.expected(), Burn)      # the rest is dealt without asking anybody
    deal(hand, BOARD)
    assert hand.is_done
    # the final showdown asks nobody again; cards speak as before
    assert {e.seat for e in hand.events if isinstance(e, ShowdownHand)} == {1, 2}
    assert sum(hand.final_stacks.values()) == 250


def test_off_no_hand_is_turned_up_before_the_showdown() -> None:
    hand = _all_in_preflop(PHH)
    assert not [e for e in hand.events if isinstance(e, HandFaceUp)]
    deal(hand, BOARD)
    assert hand.is_done and not [e for e in hand.events if isinstance(e, HandFaceUp)]
    # the chips come out the same either way
    on = _all_in_preflop(CASINO)
    deal(on, BOARD)
    assert on.final_stacks == hand.final_stacks


def test_no_face_up_while_two_players_with_chips_can_still_bet() -> None:
    hand = start(GameKind.HOLDEM, NL, stacks=(50, 100, 100), rules=CASINO)
    deal(hand, HOLES)
    act(hand, 3, "call")
    act(hand, 1, "raise", 50)
    act(hand, 2, "call")
    act(hand, 3, "call")          # seats 2 and 3 still have chips: betting goes on
    assert not [e for e in hand.events if isinstance(e, HandFaceUp)]
    deal(hand, "2c 3d 4h 5s")
    act(hand, 2, "bet", 10)
    act(hand, 3, "fold")          # now nobody can bet: seats 1 and 2 face up on the flop
    assert [e.seat for e in hand.events if isinstance(e, HandFaceUp)] == [2, 1]
    assert isinstance(hand.expected(), Burn)


def _unread_hole(rules: RuleSet) -> Hand:
    hand = start(GameKind.HOLDEM, NL, stacks=(50, 100, 100), rules=rules)
    for card in ["Ah", None, "Qh", "Ad", "Kd", "Qd"]:   # seat 2's first card not read
        hand.apply(CardIn(Card.parse(card) if card else None))
    act(hand, 3, "fold")
    act(hand, 1, "raise", 50)
    act(hand, 2, "call")
    return hand


def test_on_an_unread_hand_must_be_shown_then_and_may_not_be_mucked() -> None:
    hand = _unread_hole(CASINO)
    assert [e.seat for e in hand.events if isinstance(e, HandFaceUp)] == [1]
    assert hand.expected() == Showdown(2, run_out=True)
    before = (hand.view(), hand.inputs, hand.events)
    with pytest.raises(RuleViolation, match="face up, not mucked"):
        hand.apply(MuckIn(2))
    assert (hand.view(), hand.inputs, hand.events) == before
    events = hand.apply(ShowIn(2, tuple(parse_cards("Kh Kd"))))
    assert events == (HandFaceUp(2, tuple(parse_cards("Kh Kd")), Street.PREFLOP),)
    assert isinstance(hand.expected(), Burn)
    deal(hand, BOARD)
    assert hand.is_done                           # not asked again at the end


def test_off_an_unread_hand_is_asked_for_at_the_showdown_and_may_muck() -> None:
    hand = _unread_hole(PHH)
    assert isinstance(hand.expected(), Burn)
    deal(hand, BOARD)
    assert hand.expected() == Showdown(2)
    hand.apply(MuckIn(2))
    assert hand.is_done and hand.final_stacks[1] == 100   # seat 1 takes both all-in stakes
    assert not [e for e in hand.events if isinstance(e, HandFaceUp)]


def test_on_with_showdown_by_input_every_hand_shows_before_the_run_out_once() -> None:
    hand = _all_in_preflop(BY_INPUT)
    asked = []
    while isinstance(exp := hand.expected(), Showdown):
        assert exp.run_out
        asked.append(exp.seat)
        hand.apply(ShowIn(exp.seat))
    assert asked == [1, 2]            # the last aggressor first
    assert [e.seat for e in hand.events if isinstance(e, HandFaceUp)] == [1, 2]
    deal(hand, BOARD)
    assert hand.is_done


def test_stud_all_in_for_the_ante_face_up_on_third_street() -> None:
    hand = start(GameKind.STUD, FL, stacks=(1, 100, 1), button=3,
                 stakes=Stakes(ante=1, bring_in=2, small_bet=4, big_bet=8), rules=CASINO)
    deal(hand, "Ac Kc Qc Ad Kd Qd 2c 5s 9h")
    face_up = [e for e in hand.events if isinstance(e, HandFaceUp)]
    assert [(e.seat, len(e.cards), e.street.value) for e in face_up] == [
        (1, 3, "third"), (2, 3, "third"), (3, 3, "third")]
    assert isinstance(hand.expected(), Burn)
