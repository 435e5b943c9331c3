"""Double board: each street's cards to both boards, each pot split in two, one part per board
(tablectl/game/hand.py, streets.py, settlement.py; docs/rules.md, "Double board")."""

from __future__ import annotations

import pytest

from tablectl.domain.cards import parse_cards
from tablectl.domain.games import GameKind
from tablectl.game import (
    Act,
    Half,
    Hand,
    HandSetupError,
    PotAwarded,
    RuleViolation,
    RunsIn,
    SeatSetup,
    Stakes,
)
from tests.game.helpers import CASINO, FL, NL, act, deal
from tests.game.test_run_it_twice import RUN_IT


def double(game: GameKind, structure: object, stacks: tuple[int, ...]) -> Hand:
    stakes = Stakes(small_blind=1, big_blind=2, small_bet=2, big_bet=4)
    return Hand.start(game=game, structure=structure, rules=RUN_IT,  # type: ignore[arg-type]
                      stakes=stakes, seats=[SeatSetup(i + 1, s) for i, s in enumerate(stacks)],
                      button=len(stacks), boards=2)


def _awards(hand: Hand) -> list[tuple[int, int, int, int, Half]]:
    return [(ev.pot_index, ev.run, ev.seat, ev.amount, ev.half)
            for ev in hand.events if isinstance(ev, PotAwarded)]


def test_each_street_burns_once_and_deals_both_boards_and_the_odd_chip_goes_to_board_one(
        ) -> None:
    hand = double(GameKind.HOLDEM, NL, (100, 100, 100))
    deal(hand, "2c Kh As 3d Kd Ad")
    act(hand, 3, "raise", 100)
    act(hand, 1, "fold")
    act(hand, 2, "call")
    deal(hand, "4c 7h 8s 9d Ks 7c 2h")        # burn, flop of board 1, flop of board 2
    assert hand.boards == (tuple(parse_cards("7h 8s 9d")), tuple(parse_cards("Ks 7c 2h")))
    deal(hand, "5c Jc Th 6c 2s 3s")           # turns, rivers
    assert hand.boards == (tuple(parse_cards("7h 8s 9d Jc 2s")),
                           tuple(parse_cards("Ks 7c 2h Th 3s")))
    assert _awards(hand) == [(0, 1, 3, 101, Half.WHOLE), (0, 2, 2, 100, Half.WHOLE)]
    assert hand.final_stacks == {1: 99, 2: 100, 3: 101}


def test_hi_lo_per_board_and_betting_between_the_streets() -> None:
    hand = double(GameKind.OMAHA_HI_LO, FL, (40, 40))
    deal(hand, "Ac Qs 2c Qd Kd Js Kh Jd")
    act(hand, 2, "call")
    act(hand, 1, "check")
    deal(hand, "9h Qh 7s 3d Ks 8h 5s")         # burn, board 1's flop, board 2's flop
    assert isinstance(hand.expected(), Act)    # one betting round for both boards
    for cards in ("9d 9c 6d", "8d 4h Tc"):
        act(hand, 1, "check")
        act(hand, 2, "check")
        deal(hand, cards)
    act(hand, 1, "check")
    act(hand, 2, "check")
    # board 1: queens high, A-2-3-4-7 low split; board 2: kings high and A-2-5-6-8 low
    assert _awards(hand) == [(0, 1, 2, 1, Half.HIGH), (0, 1, 1, 1, Half.LOW),
                             (0, 2, 1, 1, Half.HIGH), (0, 2, 1, 1, Half.LOW)]
    assert hand.final_stacks == {1: 41, 2: 39}


def test_a_double_board_hand_is_not_run_twice_and_stud_has_none() -> None:
    hand = double(GameKind.HOLDEM, NL, (100, 100, 100))
    deal(hand, "2c Kh As 3d Kd Ad")
    act(hand, 3, "raise", 100)
    act(hand, 1, "fold")
    act(hand, 2, "call")
    with pytest.raises(RuleViolation, match="double-board hand is not run"):
        hand.apply(RunsIn(2))
    with pytest.raises(HandSetupError, match="double board"):
        Hand.start(game=GameKind.RAZZ, structure=FL, rules=CASINO,
                   stakes=Stakes(ante=1, bring_in=2, small_bet=4, big_bet=8),
                   seats=[SeatSetup(1, 50), SeatSetup(2, 50)], button=0, boards=2)
