"""What the live odds value in a secure snapshot, and the body they publish."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tablectl.odds.payload import OddsBody
from tablectl.odds.position import compute, request_from_snapshot


def _seat(n: int, status: str, *cards: str | None, up: int = 0) -> dict[str, Any]:
    return {"seat": n, "name": f"P{n}", "status": status,
            "cards": [{"card": c, "up": i >= len(cards) - up} for i, c in enumerate(cards)]}


def _snap(variant: str, seats: list[dict[str, Any]], board: list[str] | None = None,
          burns: list[str] | None = None) -> dict[str, Any]:
    return {"hand": {"id": "h9", "number": 9}, "game": {"variant": variant}, "street": "flop",
            "phase": "betting", "seats": seats, "board": board or [], "burns": burns or []}


def test_folded_cards_and_burns_are_dead() -> None:
    snap = _snap("holdem", [_seat(1, "active", "As", "Ah"), _seat(2, "all_in", "Ks", "Kh"),
                            _seat(3, "folded", "Kc", "Kd"), _seat(4, "out"),
                            _seat(5, "empty")], board=["2c", "7d", "9h"], burns=["3s"])
    request = request_from_snapshot(snap)
    assert request is not None
    assert [p.seat for p in request.players] == [1, 2]
    assert request.dead == ("Kc", "Kd", "3s") and request.board == ("2c", "7d", "9h")
    body: Any = compute(request)
    assert body["hand"] == {"id": "h9", "number": 9} and body["exact"] is True
    kings = body["players"][1]
    assert kings["seat"] == 2 and kings["name"] == "P2" and kings["cards"] == ["Ks", "Kh"]
    # both other kings are dead: only runner-runner helps the kings
    assert kings["equity"] < 0.05


@pytest.mark.parametrize("seats", [
    [_seat(1, "active", "As", "Ah"), _seat(2, "active", "Ks", None)],      # not read yet
    [_seat(1, "active", "As", "Ah"), _seat(2, "active", "Ks")],            # still dealing
    [_seat(1, "active", "As", "Ah"), _seat(2, "folded", "Ks", "Kh")],      # one player left
])
def test_nothing_to_value(seats: list[dict[str, Any]]) -> None:
    assert request_from_snapshot(_snap("holdem", seats)) is None


def test_no_hand_or_unknown_game() -> None:
    seats = [_seat(1, "active", "As", "Ah"), _seat(2, "active", "Ks", "Kh")]
    assert request_from_snapshot({**_snap("holdem", seats), "hand": None}) is None
    assert request_from_snapshot(_snap("badugi", seats)) is None


def test_stud_values_down_and_up_cards_and_waits_for_a_street() -> None:
    seats = [_seat(1, "active", "As", "2s", "3d", up=1), _seat(2, "active", "Kh", "Kd", "Qc",
                                                                up=1)]
    request = request_from_snapshot(_snap("razz", seats))
    assert request is not None and request.players[0].cards == ("As", "2s", "3d")
    body: Any = compute(request)
    assert body["players"][0]["equity"] > 0.8
    seats[1]["cards"].append({"card": "5c", "up": True})
    assert request_from_snapshot(_snap("razz", seats)) is None


def test_a_position_the_evaluator_refuses_gives_an_error_body() -> None:
    seats = [_seat(1, "active", "As", "Ah"), _seat(2, "active", "As", "Kh")]
    request = request_from_snapshot(_snap("holdem", seats))
    assert request is not None
    body = compute(request)
    assert body["players"] == [] and "given twice" in str(body["error"])


@pytest.mark.parametrize(("variant", "seats"), [
    # a live seat without a card yet (antennas can read the seats in any order)
    ("holdem", [_seat(1, "active", "As", "Ah"), _seat(2, "active", "Ks", "Kh"),
                _seat(3, "active")]),
    # stud: third street is two down cards and one up card
    ("razz", [_seat(1, "active", "As"), _seat(2, "active", "Kh")]),
    ("stud", [_seat(1, "active", "As", "2s"), _seat(2, "active", "Kh", "Kd")]),
])
def test_nothing_to_value_while_the_first_cards_are_dealt(variant: str,
                                                          seats: list[dict[str, Any]]) -> None:
    assert request_from_snapshot(_snap(variant, seats)) is None


def test_stud_community_card_and_cards_dealt_again() -> None:
    # a deck too short for seventh street: one community card for everybody, and the burns
    # reshuffled and dealt again (the burn 9c is back in play, in seat 2's hand)
    seats = [_seat(1, "active", "As", "2s", "3d", "4c", "Kd", "Qd", up=4),
             _seat(2, "active", "Kh", "Ks", "Kc", "Jd", "Jc", "9c", up=4),
             _seat(3, "folded", "5c", "6c", "7c")]
    request = request_from_snapshot(_snap("razz", seats, board=["5d"], burns=["9c", "Th"]))
    assert request is not None and request.board == ("5d",)
    body: Any = compute(request)
    assert "error" not in body and body["exact"] is True and body["runouts"] == 1
    # every hand is complete: A-2-3-4-5 against kings
    assert [p["equity"] for p in body["players"]] == [1.0, 0.0]


def test_a_hand_run_twice_is_valued_on_the_run_being_dealt() -> None:
    seats = [_seat(1, "all_in", "As", "Ah"), _seat(2, "all_in", "Ks", "Kh")]
    run1 = ["2c", "7d", "9h", "Kc", "4s"]
    snap = {**_snap("holdem", seats, board=run1),
            "runs": {"count": 2, "boards": [run1, ["2c", "7d", "9h"]]}}
    request = request_from_snapshot(snap)
    assert request is not None and request.run == 2
    assert request.board == ("2c", "7d", "9h") and request.dead == ("Kc", "4s")
    body: Any = compute(request)
    assert body["run"] == 2
    # run 1's king is dead: the kings need the last king, or runner-runner
    assert body["players"][1]["equity"] < 0.1


def test_a_double_board_hand_is_valued_on_both_boards() -> None:
    seats = [_seat(1, "all_in", "As", "Ah"), _seat(2, "all_in", "Ks", "Kh")]
    one, two = ["2c", "7d", "9h"], ["Kc", "4s", "5d"]
    double = {**_snap("holdem", seats, board=one), "double_board": {"boards": [one, two]}}
    request = request_from_snapshot(double)
    assert request is not None and request.run == 0
    assert request.board == tuple(one) and request.board_2 == tuple(two) and request.dead == ()
    body: Any = compute(request)
    assert "error" not in body and body["board_2"] == two and "run" not in body
    # each board valued alone, the other board's cards dead: the figures are their means
    alone = [compute(replace(request, board=tuple(mine), dead=tuple(other), board_2=None))
             for mine, other in ((one, two), (two, one))]
    for i, player in enumerate(body["players"]):
        a, b = (float(h["players"][i]["equity"]) for h in alone)  # type: ignore[index]
        assert player["boards"] == [a, b]
        assert player["equity"] == pytest.approx((a + b) / 2, abs=1e-4)
    # aces ahead on board 1; the kings' set on board 2 is far ahead there
    assert body["players"][0]["boards"][0] > 0.8 and body["players"][1]["boards"][1] > 0.8
    assert sum(p["equity"] for p in body["players"]) == pytest.approx(1, abs=1e-3)
    assert body["exact"] is True
    OddsBody.model_validate(body)                      # as documented in its schema


def test_a_double_board_hand_split_one_board_each_is_half_the_pot_each() -> None:
    # the river on both: aces make a full house on board 1, kings quads on board 2
    seats = [_seat(1, "active", "As", "Ah"), _seat(2, "active", "Ks", "Kh")]
    one, two = ["Ad", "2c", "2d", "7h", "9s"], ["Kc", "Kd", "3c", "8h", "Th"]
    body: Any = compute(request_from_snapshot(  # type: ignore[arg-type]
        {**_snap("holdem", seats, board=one), "double_board": {"boards": [one, two]}}))
    assert [p["boards"] for p in body["players"]] == [[1.0, 0.0], [0.0, 1.0]]
    assert [p["equity"] for p in body["players"]] == [0.5, 0.5]
    assert [p["win"] for p in body["players"]] == [0.5, 0.5]
