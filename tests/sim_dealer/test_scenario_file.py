"""Scenario files: every problem reported at once with its key; nothing half-built."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware_sim.faults import FaultKind
from hardware_sim.scenario import ScenarioError, load_scenario, parse_scenario
from tablectl.domain.cards import Card
from tests.sim_dealer.conftest import DECKS, SCENARIOS

GOOD = {
    "deck": str(DECKS / "demo-red.csv"),
    "game": {"variant": "holdem", "structure": "no-limit",
             "stakes": {"small_blind": 100, "big_blind": 200}},
    "seats": [{"number": 1, "stack": 1000}, {"number": 2, "stack": 1000}],
}


def problems(data: dict[str, object]) -> dict[str, str]:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(data, base=Path("/"))
    return dict(info.value.problems)


def test_a_good_scenario_parses() -> None:
    s = parse_scenario({**GOOD, "faults": [{"kind": "foreign_tag", "at_card": 2,
                                            "foreign": "Qh", "clear": "unknown_tag"}],
                        "foreign_deck": str(DECKS / "demo-blue.csv")}, base=Path("/"))
    assert s.faults[0].kind is FaultKind.FOREIGN_TAG and s.faults[0].foreign == Card.parse("Qh")
    assert s.faults[0].clear == "unknown_tag" and s.hands == 1 and s.device == "shoe"


def test_every_problem_is_reported_with_its_key() -> None:
    found = problems({
        **GOOD, "colour": "red", "hands": 0,
        "game": {"variant": "holdem", "structure": "fixed-limit",
                 "stakes": {"small_blind": 100, "big_blind": 200, "bonus": 1}},
        "script": {"cards": ["As", "Zz", "As"], "actions": ["1 raise"]},
        "faults": [{"kind": "wrong_antenna", "at_card": 0}, {"kind": "meltdown"},
                   {"kind": "duplicate_read", "at_card": 1, "when": 3}],
        "strategy": {"weights": {"shove": 1, "call": -1}},
    })
    assert found["colour"] == "unknown key"
    assert found["hands"] == "must be at least 1"
    assert found["game.stakes.bonus"] == "unknown key"
    assert "Zz" in found["script.cards[1]"] and found["script.cards"] == "a card repeats"
    assert "needs a 'to' amount" in found["script.actions[0]"]
    assert "at_card and hand count from 1" in found["faults[0]"]
    assert found["faults[0].kind"] == 'wrong_antenna needs device = "table"'
    assert "'meltdown' is not one of" in found["faults[1].kind"]
    assert found["faults[2].when"] == "unknown key"
    assert found["strategy.weights.shove"] == "not an action kind"
    assert found["strategy.weights.call"] == "must be a number >= 0"


def test_the_engine_vets_the_game() -> None:
    found = problems({**GOOD, "game": {"variant": "stud", "structure": "fixed-limit",
                                       "stakes": {"big_blind": 200, "small_bet": 100,
                                                  "big_bet": 200}}})
    assert "stud has no blinds" in found["game"]


def test_unreadable_files_are_scenario_errors(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("seed = [")
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load_scenario(bad)


def test_shipped_scenarios_name_their_files() -> None:
    for path in SCENARIOS.glob("*.toml"):
        assert load_scenario(path).name == path.stem
