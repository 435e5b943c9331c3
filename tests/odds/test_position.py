"""What the live odds value in a secure snapshot, and the body they publish."""

from __future__ import annotations

from typing import Any

import pytest

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
    double = {**_snap("holdem", seats, board=["2c", "7d", "9h"]),
              "double_board": {"boards": [["2c", "7d", "9h"], ["Kc", "4s", "5d"]]}}
    request = request_from_snapshot(double)
    assert request is not None and request.run == 1 and request.dead == ("Kc", "4s", "5d")
