"""Run it twice: hand-worked hands whose pots are split by runs (tablectl/game/hand.py,
settlement.py; docs/rules.md, "Run it twice")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tablectl.domain.cards import FULL_DECK, parse_cards
from tablectl.domain.games import GameKind
from tablectl.game import (
    BoardDealt,
    Burn,
    Half,
    Hand,
    PotAwarded,
    RuleViolation,
    RunItTwice,
    RunOddChip,
    RunsChosen,
    RunsIn,
    Stakes,
)
from tests.game.helpers import CASINO, FL, NL, PL, act, deal, start

RUN_IT = replace(CASINO, run_it=RunItTwice(max_runs=3))


def _awards(hand: Hand) -> list[tuple[int, int, int, int, Half]]:
    """(pot, run, seat, amount, half) of every award."""
    return [(ev.pot_index, ev.run, ev.seat, ev.amount, ev.half)
            for ev in hand.events if isinstance(ev, PotAwarded)]


def _odd_pot_all_in(rules: object = RUN_IT) -> Hand:
    """Seat 1 folds its small blind; seats 2 and 3 are all-in for 100: a pot of 201."""
    hand = start(GameKind.HOLDEM, NL, stacks=(100, 100, 100), rules=rules)  # type: ignore[arg-type]
    deal(hand, "2c Kh As 3d Kd Ad")
    act(hand, 3, "raise", 100)
    act(hand, 1, "fold")
    act(hand, 2, "call")
    return hand


def test_a_pot_with_an_odd_chip_splits_across_two_runs_the_first_run_taking_it() -> None:
    hand = _odd_pot_all_in()
    assert isinstance(hand.expected(), Burn)
    events = hand.apply(RunsIn(2))
    assert events == (RunsChosen(2, ()),)
    deal(hand, "4c 7h 8s 9d 5c Jc 6c 2s")        # run 1: aces hold
    assert not hand.is_done and hand.run == 2
    run2 = deal(hand, "4d Ks 7c 2h 5d Th 6d 3s")  # run 2: kings make a set
    assert [ev.run for ev in run2 if isinstance(ev, BoardDealt)] == [2] * 5
    assert hand.boards == (tuple(parse_cards("7h 8s 9d Jc 2s")),
                           tuple(parse_cards("Ks 7c 2h Th 3s")))
    assert _awards(hand) == [(0, 1, 3, 101, Half.WHOLE), (0, 2, 2, 100, Half.WHOLE)]
    assert hand.final_stacks == {1: 99, 2: 100, 3: 101}
    assert Hand.replay(hand.start_args, hand.inputs).final_stacks == hand.final_stacks


def test_the_first_run_takes_every_odd_chip_when_the_house_says_so() -> None:
    rules = replace(CASINO, run_it=RunItTwice(max_runs=3, odd_chip=RunOddChip.FIRST_RUN))
    hand = _odd_pot_all_in(rules)
    hand.apply(RunsIn(3))
    deal(hand, "4c 7h 8s 9d 5c Jc 6c 2s")          # aces
    deal(hand, "4d Ks 7c 2h 5d Th 6d 3s")          # kings
    deal(hand, "4h 5s 5h 6s 6h 7d 8c 9c")          # aces
    # 201 in three runs: 67 each, the remainder 0; one unit each would be the same
    assert _awards(hand) == [(0, 1, 3, 67, Half.WHOLE), (0, 2, 2, 67, Half.WHOLE),
                             (0, 3, 3, 67, Half.WHOLE)]
    assert hand.final_stacks == {1: 99, 2: 67, 3: 134}


def test_hi_lo_is_settled_per_run_a_split_in_one_and_a_scoop_in_the_other() -> None:
    hand = start(GameKind.OMAHA_HI_LO, FL, stacks=(4, 4), rules=RUN_IT)
    deal(hand, "Ac Qs 2c Qd Kd Js Kh Jd")
    act(hand, 2, "raise", 4)     # the button's small blind raises all-in
    act(hand, 1, "call")
    hand.apply(RunsIn(2))
    deal(hand, "9h Qh 7s 3d 9d 9c 8d 4h")   # run 1: queens high, A-2-3-4-7 low
    deal(hand, "8c Ks 8h 5s 7h 6d 7d Tc")   # run 2: kings high and A-2-5-6-8 low
    assert _awards(hand) == [(0, 1, 2, 2, Half.HIGH), (0, 1, 1, 2, Half.LOW),
                             (0, 2, 1, 2, Half.HIGH), (0, 2, 1, 2, Half.LOW)]
    assert hand.final_stacks == {1: 6, 2: 2}


def test_side_pots_are_each_split_across_the_runs() -> None:
    hand = start(GameKind.HOLDEM, NL, stacks=(50, 100, 100), rules=RUN_IT)
    deal(hand, "As Ks Qs Ah Kh Qh")
    act(hand, 3, "raise", 100)
    act(hand, 1, "call")
    act(hand, 2, "call")
    hand.apply(RunsIn(2))
    deal(hand, "Tc 2c 7d 9h Td 3s Ts 4d")    # run 1: aces win the main, kings the side
    deal(hand, "6c Qd 8c 5h 6d Jc 6h 2d")    # run 2: queens make a set, win both
    assert _awards(hand) == [(0, 1, 1, 75, Half.WHOLE), (0, 2, 3, 75, Half.WHOLE),
                             (1, 1, 2, 50, Half.WHOLE), (1, 2, 3, 50, Half.WHOLE)]
    assert hand.final_stacks == {1: 75, 2: 50, 3: 125}


def test_runs_after_the_flop_share_the_flop() -> None:
    hand = start(GameKind.HOLDEM, NL, stacks=(100, 100), rules=RUN_IT)
    deal(hand, "As Ks Ah Kh")
    act(hand, 2, "call")
    act(hand, 1, "check")
    deal(hand, "2c 7d 9h 3c")
    act(hand, 1, "bet", 98)
    act(hand, 2, "call")
    hand.apply(RunsIn(2))
    deal(hand, "Tc Kd Td 4d")                # run 1: kings make a set
    assert hand.boards == (tuple(parse_cards("7d 9h 3c Kd 4d")),
                           tuple(parse_cards("7d 9h 3c")))
    deal(hand, "Ts 5h 6c 8d")                # run 2: aces hold
    assert hand.boards[1] == tuple(parse_cards("7d 9h 3c 5h 8d"))
    assert hand.final_stacks == {1: 100, 2: 100}


@pytest.mark.parametrize(("rules", "count", "reason"), [
    (CASINO, 2, "the house does not run hands more than once"),
    (RUN_IT, 4, "runs a hand at most 3 times"),
    (replace(CASINO, run_it=RunItTwice(max_runs=2, structures=frozenset({FL}))), 2,
     "no-limit hands are not run more than once here"),
])
def test_a_count_the_house_does_not_allow_is_refused(rules: object, count: int,
                                                     reason: str) -> None:
    hand = _odd_pot_all_in(rules)
    with pytest.raises(RuleViolation, match=reason):
        hand.apply(RunsIn(count))
    assert hand.runs == 1 and len(hand.inputs) == 9


def test_runs_are_agreed_only_with_no_betting_left_and_before_the_run_out() -> None:
    hand = start(GameKind.HOLDEM, NL, stacks=(100, 100, 100), rules=RUN_IT)
    deal(hand, "2c Kh As 3d Kd Ad")
    with pytest.raises(RuleViolation, match="no betting remains"):
        hand.apply(RunsIn(2))
    act(hand, 3, "raise", 100)
    act(hand, 1, "fold")
    act(hand, 2, "call")
    deal(hand, "4c")
    with pytest.raises(RuleViolation, match="the run-out has begun"):
        hand.apply(RunsIn(2))
    other = _odd_pot_all_in()
    other.apply(RunsIn(2))
    with pytest.raises(RuleViolation, match="already agreed"):
        other.apply(RunsIn(2))


def test_a_hand_all_in_on_the_river_has_nothing_left_to_run() -> None:
    hand = start(GameKind.HOLDEM, NL, stacks=(100, 100), rules=replace(RUN_IT,
                                                                        showdown_by_input=True))
    deal(hand, "As Ks Ah Kh")
    act(hand, 2, "call")
    act(hand, 1, "check")
    for cards in ("2c 7d 9h 3c", "4c 5d", "4h 8c"):
        deal(hand, cards)
        if cards == "4h 8c":
            act(hand, 1, "bet", 98)
            act(hand, 2, "call")
        else:
            act(hand, 1, "check")
            act(hand, 2, "check")
    with pytest.raises(RuleViolation):
        hand.apply(RunsIn(2))


def test_runs_the_stub_cannot_deal_are_refused() -> None:
    hand = start(GameKind.OMAHA, PL, stacks=(2,) * 8, rules=RUN_IT)
    deal(hand, " ".join(str(c) for c in FULL_DECK[:32]))
    for seat in (3, 4, 5, 6, 7, 8, 1):
        act(hand, seat, "call")
    with pytest.raises(RuleViolation, match="20 cards are left: not enough to run it 3 times"):
        hand.apply(RunsIn(3))
    hand.apply(RunsIn(2))       # two runs of three burns and five cards: 16


def test_stud_is_never_run_twice() -> None:
    with pytest.raises(ValueError, match="board games"):
        RunItTwice(max_runs=2, games=frozenset({GameKind.STUD}))
    hand = start(GameKind.STUD, FL, stacks=(5, 5), rules=RUN_IT,
                 stakes=Stakes(ante=1, bring_in=2, small_bet=4, big_bet=8))
    with pytest.raises(RuleViolation, match="stud hands are not run"):
        hand.apply(RunsIn(2))
