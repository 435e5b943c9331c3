"""A config's on/off switches take ``true`` or ``false`` only: a string, a number or a table
is refused with one line naming the key, never read as "on" (``double_board = "no"`` would
otherwise deal double boards)."""

from __future__ import annotations

import copy

import pytest

from tablectl.config import parse_config
from tablectl.domain.errors import ConfigError

BASE = {"table": {"id": "t1"}, "sources": [{"kind": "manual"}], "deck": "d.csv",
        "journal": {"path": "j"}, "game": {"variant": "holdem", "structure": "no-limit",
                                           "stakes": {"small_blind": 1, "big_blind": 2}},
        "seats": [{"number": 1, "name": "Ada", "stack": 500},
                  {"number": 2, "name": "Bo", "stack": 500}]}
SWITCHES = [("game", "double_board"), ("odds", "enabled"), ("web", "four_colour")]


@pytest.mark.parametrize(("section", "key"), SWITCHES)
@pytest.mark.parametrize("value", ["yes", "no", 1, 0, 1.0, float("nan"), 2**64, {"a": 1}, []])
def test_a_switch_that_is_not_true_or_false_is_refused(section: str, key: str,
                                                       value: object) -> None:
    data = copy.deepcopy(BASE)
    data.setdefault(section, {})[key] = value           # type: ignore[index]
    with pytest.raises(ConfigError) as err:
        parse_config(data)
    assert f"{section}.{key}" in str(err.value)


@pytest.mark.parametrize(("section", "key"), SWITCHES)
def test_true_and_false_are_taken(section: str, key: str) -> None:
    for value in (True, False):
        data = copy.deepcopy(BASE)
        data.setdefault(section, {})[key] = value       # type: ignore[index]
        parse_config(data)
