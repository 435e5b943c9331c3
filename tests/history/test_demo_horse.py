"""A 100-hand H.O.R.S.E. demo through the engine (issue 28, "a 100-hand H.O.R.S.E. demo in
CI"): the games come in order, the button goes round once per button game and is frozen
through the stud games, and every hand's chips are conserved."""

from __future__ import annotations

import pytest

from tablectl.cli import main
from tablectl.domain.games import RulesPreset
from tablectl.game import PRESETS
from tablectl.history.demo import demo_rotation, play_rotation

SEATS = 6
STUD_HANDS = 2


def test_a_hundred_hands_of_horse_in_order_with_a_frozen_button() -> None:
    rules = PRESETS[RulesPreset.CASINO]
    rotation = demo_rotation(rules, stud_hands=STUD_HANDS)
    round_ = ([("holdem", b) for b in range(1, SEATS + 1)]
              + [("omaha-hi-lo", b) for b in range(1, SEATS + 1)]
              + [("razz", None)] * STUD_HANDS + [("stud", None)] * STUD_HANDS
              + [("stud-hi-lo", None)] * STUD_HANDS)
    expected = (round_ * (100 // len(round_) + 1))[:100]
    played = []
    for demo in play_rotation(rotation, rules, hands=100, seed=11, seats=SEATS):
        start = demo.hand.start_args
        played.append((start.game.value, demo.button))
        before = sum(s.stack for s in start.seats)
        assert sum(demo.hand.final_stacks.values()) + demo.hand.rake == before, demo.number
    assert played == expected


def test_the_cli_plays_horse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--engine-only", "--variant", "horse", "--hands", "20",
                 "--seed", "5"]) == 0
    out = capsys.readouterr().out.splitlines()
    games = [line.split("(")[1].split(")")[0] for line in out if line.startswith("hand ")]
    assert games == ["holdem"] * 6 + ["omaha-hi-lo"] * 6 + ["razz"] * 2 + ["stud"] * 2 + [
        "stud-hi-lo"] * 2 + ["holdem"] * 2
    assert out[-1].startswith("20 hands of horse (casino rules, seed 5)")
