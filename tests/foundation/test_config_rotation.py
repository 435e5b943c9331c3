"""Rotations in a table config (issue 28): a rotation instead of one game, and bad rotations
said in the project's words, each with its key."""

from __future__ import annotations

import pytest

from tablectl.config import parse_config
from tablectl.config_games import described, first_game, rotation_of
from tablectl.domain.errors import ConfigError
from tablectl.domain.games import GameKind

BASE = {"table": {"id": "t1"}, "seats": [{"number": 1, "stack": 5}, {"number": 2, "stack": 5}],
        "sources": [{"kind": "manual"}], "deck": "d.csv", "journal": {"path": "j"}}
LIMITS = {"small_blind": 1, "big_blind": 2, "small_bet": 2, "big_bet": 4, "ante": 1,
          "bring_in": 1}


def test_horse_by_name_with_shared_stakes_and_a_stud_count() -> None:
    cfg = parse_config({**BASE, "game": {"rotation": "horse", "stud_hands": 6,
                                         "stakes": LIMITS}})
    rotation = rotation_of(cfg.game)
    assert rotation is not None and rotation.name == "horse"
    assert [(g.game.value, g.hands) for g in rotation.games] == [
        ("holdem", 0), ("omaha-hi-lo", 0), ("razz", 6), ("stud", 6), ("stud-hi-lo", 6)]
    assert first_game(cfg.game) == (GameKind.HOLDEM, cfg.game.structure)
    assert described(cfg.game) == "rotation horse"


def test_a_list_of_games_with_their_own_stakes_and_dealers_choice() -> None:
    cfg = parse_config({**BASE, "game": {
        "dealers_choice": True, "stakes": {"small_blind": 1, "big_blind": 2},
        "games": [{"variant": "holdem", "structure": "no-limit"},
                  {"variant": "omaha", "structure": "pot-limit", "hands": 3},
                  {"variant": "razz", "stakes": {"ante": 1, "bring_in": 1, "small_bet": 2,
                                                 "big_bet": 4}}]}})
    rotation = rotation_of(cfg.game)
    assert rotation is not None and rotation.dealers_choice
    assert [g.hands for g in rotation.games] == [0, 3, 8]       # razz: the default count
    assert rotation.games[2].stakes.bring_in == 1
    assert described(cfg.game) == "rotation of 3 games, dealer's choice"


@pytest.mark.parametrize(("game", "key", "words"), [
    ({"rotation": "hose"}, "game.rotation", "unknown rotation 'hose'; known: horse"),
    ({"rotation": "horse", "variant": "holdem"}, "game.rotation", "not variant and rotation"),
    ({"games": []}, "game.games", "a rotation needs at least one game"),
    ({"games": [{"variant": "badugi"}]}, "game.games[0].variant", "got 'badugi'"),
    ({"games": [{"variant": "razz", "hands": 0}]}, "game.games[0].hands",
     "must be at least 1, got 0"),
    ({"games": [{"variant": "stud", "structure": "no-limit"}]}, "game.games[0].structure",
     "stud is a limit game: no no-limit stud"),
    ({"games": [{"variant": "omaha", "structure": "no-limit"}]}, "game.games[0].structure",
     "omaha is dealt fixed-limit, pot-limit, not no-limit"),
    ({"games": [{"variant": "razz"}], "stakes": {"small_blind": 1, "big_blind": 2}},
     "game.games[0].stakes", "bring_in, small_bet, big_bet must be set for fixed-limit razz "
                             "(it has no stakes of its own: game.stakes)"),
    ({"rotation": "horse", "stakes": {"small_blind": 1, "big_blind": 2}}, "game",
     "stakes (holdem): small_bet, big_bet must be set"),
    ({"variant": "holdem", "dealers_choice": True}, "game.dealers_choice",
     "a table dealing one game has no choice to make"),
    ({}, "game.variant", 'or name a rotation: rotation = "horse"'),
])
def test_bad_rotations_are_said_with_their_key(game: dict[str, object], key: str,
                                                words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({**BASE, "game": {"stakes": LIMITS, **game}})
    problems = caught.value.problems
    assert any(k == key and words in m for k, m in problems), problems
