"""``[game.run_it]``, ``max_bomb_pot`` and ``double_board`` in a table config: the house rules of
issue 28's formats (tablectl/config_games.py; docs/rules.md "Run it twice", "Bomb pots",
"Double board"), journaled with the setup."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tablectl.config import parse_config
from tablectl.controller.setup_json import setup_from_json, setup_to_json
from tablectl.domain.errors import ConfigError
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.game import PRESETS, RunItTwice, RunOddChip
from tests.controller.helpers import make_setup

BASE = {"table": {"id": "t1"}, "seats": [{"number": 1, "stack": 5}, {"number": 2, "stack": 5}],
        "sources": [{"kind": "manual"}], "deck": "d.csv", "journal": {"path": "j"}}
GAME = {"variant": "holdem", "structure": "no-limit",
        "stakes": {"small_blind": 1, "big_blind": 2}}


def test_run_it_twice_is_a_house_rule_of_the_config() -> None:
    cfg = parse_config({**BASE, "game": {**GAME, "run_it": {
        "max_runs": 3, "structures": ["no-limit", "pot-limit"], "odd_chip": "first-run"}}})
    assert cfg.game.run_it is not None
    assert cfg.game.run_it.rule() == RunItTwice(
        max_runs=3, structures=frozenset({BettingStructure.NO_LIMIT,
                                          BettingStructure.POT_LIMIT}),
        odd_chip=RunOddChip.FIRST_RUN)
    assert parse_config({**BASE, "game": GAME}).game.run_it is None


@pytest.mark.parametrize(("run_it", "words"), [
    ({"variants": ["stud"]}, "only board games are run more than once, not stud"),
    ({"max_runs": 4}, "game.run_it.max_runs"),
    ({"odd_chip": "to-the-dealer"}, "game.run_it.odd_chip"),
    ({"runs": 2}, "game.run_it.runs"),
])
def test_a_bad_run_it_section_is_said_with_its_key(run_it: object, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        parse_config({**BASE, "game": {**GAME, "run_it": run_it}})


def test_the_journaled_setup_keeps_the_run_it_rule() -> None:
    rule = RunItTwice(max_runs=2, structures=frozenset({BettingStructure.FIXED_LIMIT}),
                      games=frozenset({GameKind.OMAHA_HI_LO}))
    setup = make_setup(rules=replace(PRESETS[make_setup().preset], run_it=rule))
    assert setup_from_json(setup_to_json(setup)).rule_set.run_it == rule


def test_bomb_pots_and_double_boards_are_off_unless_the_config_allows_them() -> None:
    plain = parse_config({**BASE, "game": GAME}).game
    assert (plain.max_bomb_pot, plain.double_board) == (0, False)
    game = parse_config({**BASE, "game": {**GAME, "max_bomb_pot": 500,
                                          "double_board": True}}).game
    assert (game.max_bomb_pot, game.double_board) == (500, True)
    with pytest.raises(ConfigError, match=r"game\.max_bomb_pot"):
        parse_config({**BASE, "game": {**GAME, "max_bomb_pot": -1}})
