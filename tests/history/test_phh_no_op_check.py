"""PHH replay accepts a check that changes nothing (PokerKit asks for it, so its histories
record it, where we rightly ask nothing), and only such a check."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.game import PRESETS, Stakes
from tablectl.history.phh import PhhHand, replay
from tests.game.pokerkit_oracle import pokerkit_state

PHH_RULES = PRESETS[RulesPreset.PHH]
HOLE = ["8c", "4h", "Qs", "4c", "Kd", "7c", "5c", "4s", "Jc", "8h"]
BOARD = ("TdQc6h", "2s", "Ah")


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    """Blinds 1/2, antes 3, stacks 10/1/19/1/1: the big blind (p2), p4 and p5 are all-in on
    the ante; p3 folds to the small blind's chip, and PokerKit asks the small blind (p1),
    whose chip covers everybody, to check. The actions are written as PokerKit played them,
    the finishing stacks are PokerKit's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = pokerkit_state(GameKind.HOLDEM, BettingStructure.NO_LIMIT,
                               Stakes(small_blind=1, big_blind=2, ante=3), [10, 1, 19, 1, 1])
        for card in HOLE:
            state.deal_hole(card)
        state.fold()
        assert state.actor_index == 0 and state.checking_or_calling_amount == 0
        state.check_or_call()
        for cards in BOARD:
            state.burn_card("??")
            state.deal_board(cards)
        assert not state.status
    actions = [f"d dh p{i + 1} {HOLE[i]}{HOLE[i + 5]}" for i in range(5)]
    actions += ["p3 f", "p1 cc"] + [f"d db {cards}" for cards in BOARD]
    return {"variant": "NT", "antes": [3] * 5, "blinds_or_straddles": [1, 2, 0, 0, 0],
            "min_bet": 2, "starting_stacks": [10, 1, 19, 1, 1], "actions": actions,
            "finishing_stacks": list(state.stacks)}


def test_the_no_op_check_pokerkit_records_is_accepted(recorded: dict[str, Any]) -> None:
    result = replay(PhhHand("noop.phh", recorded), PHH_RULES)
    assert result.ok, result.error
    assert result.match is True


@pytest.mark.parametrize("bad", ["p3 cc", "p2 cc", "p1 cbr 4", "p1 f"])
def test_only_a_no_op_check_is_accepted(recorded: dict[str, Any], bad: str) -> None:
    # p3 has folded, p2 is all-in; a bet or a fold would matter
    actions = [bad if a == "p1 cc" else a for a in recorded["actions"]]
    result = replay(PhhHand("bad.phh", {**recorded, "actions": actions}), PHH_RULES)
    assert not result.ok
    assert "engine expects" in (result.error or "")


def test_without_the_check_the_hand_replays_the_same(recorded: dict[str, Any]) -> None:
    actions = [a for a in recorded["actions"] if a != "p1 cc"]
    result = replay(PhhHand("plain.phh", {**recorded, "actions": actions}), PHH_RULES)
    assert result.ok and result.match is True
