"""``[[seats]] player_id``: an optional id of the player for the floor's statistics, checked
as names are (tablectl/config.py), carried by the seat's ``hand_started``, ``seat`` event and
snapshot entry as ``player`` (docs/mqtt.md §8), kept in the checkpoint (docs/floor.md,
"Definitions")."""

from __future__ import annotations

import pytest

from tablectl.app import initial_state
from tablectl.config import parse_config
from tablectl.controller import HandController, TableState
from tablectl.domain.errors import ConfigError
from tests.controller.helpers import Driver, make_setup
from tests.controller.test_payloads import PUBLIC_EVENT, PUBLIC_SNAPSHOT

BASE = {"table": {"id": "t1"}, "sources": [{"kind": "manual"}], "deck": "d.csv",
        "journal": {"path": "j"}, "game": {"variant": "holdem", "structure": "no-limit",
                                           "stakes": {"small_blind": 1, "big_blind": 2}}}


def _config(player_id: object) -> dict[str, object]:
    return {**BASE, "seats": [{"number": 1, "name": "Ada", "stack": 500,
                               "player_id": player_id},
                              {"number": 2, "name": "Bo", "stack": 500}]}


def test_a_seat_s_player_id_reaches_the_hand_the_snapshot_and_the_checkpoint() -> None:
    state = initial_state(parse_config(_config("  ada-0042 ")))
    assert [(s.name, s.player_id) for s in state.seats] == [("Ada", "ada-0042"), ("Bo", "")]
    assert TableState.from_json(state.to_json()).seats == state.seats
    d = Driver(HandController(make_setup(), state))
    out = d.cmd("start_hand")
    started = out.events[0]
    assert started.type == "hand_started"
    assert started.data["seats"] == [{"seat": 1, "name": "Ada", "stack": 500,
                                      "player": "ada-0042"},
                                     {"seat": 2, "name": "Bo", "stack": 500}]
    PUBLIC_EVENT.validate(started.to_json())
    snap = d.ctl.public_snapshot()
    seats = snap["seats"]
    assert isinstance(seats, list)
    assert [s.get("player") for s in seats[:3]] == ["ada-0042", None, None]  # type: ignore[union-attr]
    PUBLIC_SNAPSHOT.validate(snap)


@pytest.mark.parametrize(("value", "words"), [
    ("ada\u202e-42", "player_id: character U+202E at 3 cannot be shown"),
    ("ada\n42", "player_id: control character U+000A at 3"),
    ("x" * 200, "player_id: 200 characters, more than"),
    (42, "seats[0].player_id: must be text in quotes"),
])
def test_a_hostile_player_id_is_refused_in_one_line(value: object, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(_config(value))
    text = str(info.value)
    assert words in text and len(text.strip().splitlines()) == 1, text
