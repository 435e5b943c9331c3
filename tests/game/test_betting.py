"""Betting rounds, forced bets, limits, caps and short all-ins, reasoned out by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tablectl.domain.cards import Card
from tablectl.domain.games import GameKind
from tablectl.game import (
    ActionIn,
    ActionKind,
    BetReturned,
    CardIn,
    CardOutOfTurn,
    DealHole,
    DuplicateCard,
    ForcedBet,
    ForcedKind,
    Hand,
    HandSetupError,
    PotView,
    Reopen,
    RuleViolation,
    SeatSetup,
    Stakes,
)
from tests.game.helpers import CASINO, FL, NL, PHH, PL, act, deal, start, to_act

HOLE6 = "As Ks Qs Ad Kd Qd"


def test_three_handed_blinds_deal_order_and_first_to_act() -> None:
    hand = start(stacks=(100, 100, 100), button=3)
    forced = [e for e in hand.events if isinstance(e, ForcedBet)]
    assert [(e.seat, e.kind, e.amount) for e in forced] == [
        (1, ForcedKind.SMALL_BLIND, 1), (2, ForcedKind.BIG_BLIND, 2)]
    order = []
    for card in HOLE6.split():
        exp = hand.expected()
        assert isinstance(exp, DealHole)
        order.append(exp.seat)
        hand.apply(CardIn(Card.parse(card)))
    assert order == [1, 2, 3, 1, 2, 3]
    assert to_act(hand) == 3


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    hand = start(stacks=(100, 100), button=2)
    forced = {e.seat: e.kind for e in hand.events if isinstance(e, ForcedBet)}
    assert forced == {2: ForcedKind.SMALL_BLIND, 1: ForcedKind.BIG_BLIND}
    deal(hand, "As Ks Ad Kd")
    assert to_act(hand) == 2
    act(hand, 2, "call")
    act(hand, 1, "check")
    deal(hand, "2c 3c 4c 5c")  # burn + flop
    assert to_act(hand) == 1


def test_one_blind_is_posted_left_of_the_button() -> None:
    hand = start(stacks=(100, 100, 100), button=3,
                 stakes=Stakes(big_blind=2, small_bet=2, big_bet=4))
    forced = [(e.seat, e.kind, e.amount) for e in hand.events if isinstance(e, ForcedBet)]
    assert forced == [(1, ForcedKind.BIG_BLIND, 2)]
    deal(hand, HOLE6)
    assert to_act(hand) == 2


def test_straddle_acts_last_preflop_and_sets_the_raise_size() -> None:
    hand = start(structure=NL, stacks=(100,) * 4, button=4,
                 stakes=Stakes(small_blind=1, big_blind=2, straddle=4))
    deal(hand, "As Ks Qs Js Ad Kd Qd Jd")
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 4
    assert (legal.call_amount, legal.min_to, legal.max_to) == (4, 8, 100)


def test_antes_and_big_blind_ante_go_in_before_the_blinds() -> None:
    hand = start(structure=NL, stacks=(100,) * 3, button=3,
                 stakes=Stakes(small_blind=1, big_blind=2, big_blind_ante=3))
    view = hand.view()
    assert [s.stack for s in view.seats] == [99, 95, 100]
    assert [s.bet for s in view.seats] == [1, 2, 0]
    # the big-blind ante is dead money in the main pot, not part of seat 2's own stake
    assert [s.committed for s in view.seats] == [1, 2, 0]
    assert view.pots == (PotView(3, (1, 2, 3)),)


def test_casino_cap_counts_big_blind_phh_cap_does_not() -> None:
    for rules, raises in ((CASINO, [4, 6, 8]), (PHH, [4, 6, 8, 10])):
        hand = start(stacks=(100,) * 4, button=4, rules=rules)
        deal(hand, "As Ks Qs Js Ad Kd Qd Jd")
        seats = [3, 4, 1, 2, 3]
        for seat, to in zip(seats, raises, strict=False):
            act(hand, seat, "raise", to)
        legal = hand.legal_actions()
        assert legal is not None
        assert ActionKind.RAISE not in legal.kinds, rules.name
        assert legal.call_amount == raises[-1] - (2 if legal.seat == 2 else
                                                 1 if legal.seat == 1 else 0) or True


def test_casino_cap_is_lifted_when_the_round_starts_heads_up() -> None:
    hand = start(stacks=(100, 100), button=2)
    deal(hand, "As Ks Ad Kd")
    for seat, to in ((2, 4), (1, 6), (2, 8), (1, 10), (2, 12)):
        act(hand, seat, "raise", to)
    legal = hand.legal_actions()
    assert legal is not None and legal.bet_kind is ActionKind.RAISE and legal.min_to == 14


def test_fixed_limit_sizes_small_then_big_bet() -> None:
    hand = start(stacks=(100, 100), button=2)
    deal(hand, "As Ks Ad Kd")
    act(hand, 2, "call")
    act(hand, 1, "check")
    deal(hand, "2c 3c 4c 5c")
    legal = hand.legal_actions()
    assert legal is not None and (legal.bet_kind, legal.min_to) == (ActionKind.BET, 2)
    act(hand, 1, "check")
    act(hand, 2, "check")
    deal(hand, "6c 7c")  # burn + turn
    legal = hand.legal_actions()
    assert legal is not None and legal.min_to == legal.max_to == 4


def test_no_limit_min_raise_is_the_last_full_raise() -> None:
    hand = start(structure=NL, stacks=(100, 100, 100), button=3)
    deal(hand, HOLE6)
    act(hand, 3, "raise", 10)  # a raise of 8
    legal = hand.legal_actions()
    assert legal is not None and (legal.min_to, legal.max_to) == (18, 100)


def test_pot_limit_max_raise_is_the_pot_after_calling() -> None:
    hand = start(structure=PL, stacks=(100, 50, 100), button=3)
    deal(hand, HOLE6)
    legal = hand.legal_actions()
    # pot 3, call 2 -> pot 5, raise by 5 on top of the 2: to 7
    assert legal is not None and (legal.min_to, legal.max_to) == (4, 7)


def _four_handed_short_all_in(rules_reopen: Reopen) -> Hand:
    rules = replace(CASINO, short_all_in_reopens=rules_reopen)
    hand = start(stacks=(100, 100, 100, 3), button=4, rules=rules)
    deal(hand, "As Ks Qs Js Ad Kd Qd Jd")
    act(hand, 3, "call")                # seat 3 acts, 2 to call
    act(hand, 4, "raise", 3)            # all-in: one chip more, half a small bet
    act(hand, 1, "call")
    act(hand, 2, "call")
    return hand


def test_short_all_in_does_not_reopen_under_full_bet_rule() -> None:
    hand = _four_handed_short_all_in(Reopen.FULL_BET)
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 3
    assert legal.kinds == {ActionKind.CALL, ActionKind.FOLD}


def test_half_bet_all_in_reopens_and_counts_as_a_full_raise() -> None:
    hand = _four_handed_short_all_in(Reopen.HALF_BET)
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 3
    # the 3 counts as a raise to 4, so a re-raise goes to 6
    assert legal.bet_kind is ActionKind.RAISE and legal.min_to == legal.max_to == 6
    assert legal.call_amount == 1


def test_short_all_ins_add_up_per_player_under_full_bet_rule() -> None:
    rules = replace(CASINO, short_all_in_reopens=Reopen.FULL_BET)
    hand = start(structure=NL, stacks=(200, 200, 200, 26, 40), button=5, rules=rules)
    deal(hand, "As Ks Qs Js Ts Ad Kd Qd Jd Td")
    act(hand, 3, "raise", 20)            # full raise of 18
    act(hand, 4, "raise", 26)            # all-in, 6 more: short
    act(hand, 5, "raise", 40)            # all-in, 14 more: short, 20 since seat 3 acted
    act(hand, 1, "call")
    act(hand, 2, "call")
    legal = hand.legal_actions()
    assert legal is not None and legal.seat == 3
    assert legal.bet_kind is ActionKind.RAISE      # faced 20 >= 18 since acting
    never = replace(rules, short_all_in_reopens=Reopen.NEVER)
    again = Hand.replay(replace(hand.start_args, rules=never), hand.inputs)
    legal = again.legal_actions()
    assert legal is not None and legal.bet_kind is None


def test_uncalled_bet_is_returned() -> None:
    hand = start(structure=NL, stacks=(30, 100), button=2)
    deal(hand, "As Ks Ad Kd")
    act(hand, 2, "raise", 100)
    events = act(hand, 1, "call")
    assert BetReturned(2, 70) in events


def test_rejected_inputs_change_nothing() -> None:
    hand = start(stacks=(100, 100, 100), button=3)
    deal(hand, "As Ks")
    before = (hand.view(), hand.inputs)
    with pytest.raises(DuplicateCard):
        hand.apply(CardIn(Card.parse("As")))
    with pytest.raises(CardOutOfTurn):
        hand.apply(CardIn(Card.parse("2c"), seat=1))  # the next card is seat 3's
    with pytest.raises(CardOutOfTurn):
        hand.apply(CardIn(Card.parse("2c"), board=True))
    with pytest.raises(RuleViolation):
        hand.apply(ActionIn(3, ActionKind.CALL))
    assert (hand.view(), hand.inputs) == before
    heads_up = start(stacks=(100, 100), button=2)
    deal(heads_up, "As Ks Ad Kd")
    act(heads_up, 2, "call")
    with pytest.raises(RuleViolation, match="checking is free"):
        act(heads_up, 1, "fold")
    deal(hand, "Qs Ad Kd Qd")
    before = (hand.view(), hand.inputs)
    for bad in (ActionIn(1, ActionKind.CALL), ActionIn(3, ActionKind.CHECK),
                ActionIn(3, ActionKind.RAISE, 5), ActionIn(3, ActionKind.BET, 2),
                ActionIn(3, ActionKind.RAISE)):
        with pytest.raises(RuleViolation) as info:
            hand.apply(bad)
        assert info.value.expected == hand.expected()
    assert (hand.view(), hand.inputs) == before


def test_setup_errors_are_reported_together() -> None:
    with pytest.raises(HandSetupError) as info:
        Hand.start(game=GameKind.HOLDEM, structure=FL, rules=CASINO, stakes=Stakes(),
                   seats=[SeatSetup(1, 10), SeatSetup(1, 0)], button=1)
    message = str(info.value)
    for part in ("seat numbers must be distinct", "seat 1 has no chips",
                 "fixed limit needs 0 < small_bet <= big_bet", "needs a big blind"):
        assert part in message
    with pytest.raises(HandSetupError, match="not dealt pot-limit"):
        start(GameKind.STUD, PL)


def test_replay_of_a_prefix_rebuilds_an_earlier_moment() -> None:
    hand = start(stacks=(100, 100, 100), button=3)
    deal(hand, HOLE6)
    mid = hand.view()
    act(hand, 3, "raise", 4)
    act(hand, 1, "fold")
    earlier = Hand.replay(hand.start_args, hand.inputs[:-2])
    assert earlier.view() == mid
    assert hand.copy().view() == hand.view()
