"""Bomb pots: every player antes the agreed amount, no blinds, no betting before the flop
(tablectl/game/hand.py, betting.py; docs/rules.md, "Bomb pots")."""

from __future__ import annotations

import pytest

from tablectl.domain.games import GameKind
from tablectl.game import (
    Act,
    Burn,
    ForcedBet,
    ForcedKind,
    Hand,
    HandSetupError,
    PotAwarded,
    SeatSetup,
    Stakes,
)
from tests.game.helpers import CASINO, FL, NL, act, deal


def bomb(stacks: tuple[int, ...], amount: int, structure: object = NL) -> Hand:
    stakes = Stakes(small_blind=1, big_blind=2, small_bet=2, big_bet=4)
    return Hand.start(game=GameKind.HOLDEM, structure=structure,  # type: ignore[arg-type]
                      rules=CASINO, stakes=stakes,
                      seats=[SeatSetup(i + 1, s) for i, s in enumerate(stacks)],
                      button=len(stacks), bomb=amount)


def test_everybody_antes_and_the_betting_starts_on_the_flop() -> None:
    hand = bomb((100, 100, 100), 10)
    assert [(e.seat, e.kind, e.amount) for e in hand.events if isinstance(e, ForcedBet)] == [
        (1, ForcedKind.ANTE, 10), (2, ForcedKind.ANTE, 10), (3, ForcedKind.ANTE, 10)]
    assert sum(p.amount for p in hand.pots()) == 30
    deal(hand, "As Kd 2c Ah Kc 7d")
    assert isinstance(hand.expected(), Burn)       # no pre-flop betting
    deal(hand, "3s 9h 9c 4d")
    exp = hand.expected()
    assert isinstance(exp, Act) and exp.seat == 1  # first left of the button, on the flop
    assert exp.legal.bet_kind is not None and exp.legal.min_to == 2
    act(hand, 1, "bet", 10)
    act(hand, 2, "call")
    act(hand, 3, "fold")
    for cards in ("5s 6c", "5d Jh"):
        deal(hand, cards)
        act(hand, 1, "check")
        act(hand, 2, "check")
    assert [(e.seat, e.amount) for e in hand.events if isinstance(e, PotAwarded)] == [(1, 50)]
    assert hand.final_stacks == {1: 130, 2: 80, 3: 90}


def test_an_ante_that_takes_a_whole_stack_leaves_the_others_to_bet() -> None:
    hand = bomb((5, 100, 100), 10, FL)
    assert hand.view().seats[0].all_in
    deal(hand, "As Kd 2c Ah Kc 7d 3s 9h 9c 4d")
    exp = hand.expected()
    assert isinstance(exp, Act) and exp.seat == 2 and exp.legal.min_to == 2


def test_stud_has_no_bomb_pots() -> None:
    with pytest.raises(HandSetupError, match="bomb pot"):
        Hand.start(game=GameKind.STUD, structure=FL, rules=CASINO,
                   stakes=Stakes(ante=1, bring_in=2, small_bet=4, big_bet=8),
                   seats=[SeatSetup(1, 50), SeatSetup(2, 50)], button=0, bomb=5)
