"""The overlay's view of the live odds: held for the broadcast delay like the hole cards, kept
for their hand only, malformed ones dropped."""

from __future__ import annotations

import json
from typing import Any

from tablectl.web.link import Message
from tablectl.web.sync import OverlaySync

SECURE = "secure/v1/tables/t01"


def _msg(kind: str, data: dict[str, Any]) -> Message:
    return Message(f"{SECURE}/{kind}", json.dumps({"v": 1, "table": "t01", "epoch": 1,
                                                   "seq": 3, "type": kind, "data": data}).encode())


def _state(hand: str) -> Message:
    return _msg("state", {"hand": {"id": hand, "number": 1}, "seats": [], "board": []})


def _odds(hand: str, equity: float) -> Message:
    return _msg("odds", {"hand": {"id": hand, "number": 1}, "board": [], "players": [
        {"seat": 1, "win": equity, "tie": 0.0, "equity": equity}]})


def test_odds_wait_for_the_delay_and_belong_to_their_hand() -> None:
    overlay = OverlaySync("t01", 30.0)
    overlay.receive(_state("h1"), 0.0)
    overlay.receive(_odds("h1", 0.6), 1.0)
    assert overlay.release(29.0) is False and overlay.view()["odds"] is None
    assert overlay.release(30.0)                 # the state
    assert overlay.view()["odds"] is None
    assert overlay.release(31.0)                 # the odds, 30 s after they came
    view: Any = overlay.view()
    assert view["odds"]["players"][0]["equity"] == 0.6
    overlay.receive(_odds("h0", 0.1), 32.0)      # a late message of the hand before
    overlay.release(62.0)
    view = overlay.view()
    assert view["odds"]["players"][0]["equity"] == 0.6
    overlay.receive(_state("h2"), 63.0)          # the next hand: its own figures only
    overlay.release(93.0)
    assert overlay.view()["odds"] is None


def test_malformed_odds_are_dropped_at_once() -> None:
    overlay = OverlaySync("t01", 0.0)
    overlay.receive(_state("h1"), 0.0)
    assert not overlay.receive(_msg("odds", {"hand": {"id": "h1"}, "players": "x"}), 0.0)
    assert not overlay.receive(Message(f"{SECURE}/odds", b"not json"), 0.0)
    overlay.release(0.0)
    assert overlay.view()["odds"] is None
