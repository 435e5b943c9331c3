"""The terminal display's resync and rendering, on payloads shaped like the daemon's."""

from __future__ import annotations

import json

from rich.console import Console

from tablectl.terminal.follow import TableFollower
from tablectl.terminal.view import TableView, render

T = "t9"


def _event(epoch: int, seq: int, kind: str, **data: object) -> bytes:
    return json.dumps({"v": 1, "table": T, "epoch": epoch, "seq": seq, "type": kind,
                       "ts": "2026-11-29T18:00:00+00:00", "hand": 1, "data": data}).encode()


def _snapshot(epoch: int, seq: int, **data: object) -> bytes:
    return json.dumps({"v": 1, "table": T, "epoch": epoch, "seq": seq, "type": "snapshot",
                       "ts": "2026-11-29T18:00:00+00:00", "hand": 1, "data": data}).encode()


def _status(epoch: int, state: str) -> bytes:
    return json.dumps({"v": 1, "table": T, "state": state, "version": "x",
                       "epoch": epoch}).encode()


STATE = f"poker/v1/tables/{T}/state"
EVENTS = f"poker/v1/tables/{T}/events"
STATUS = f"poker/v1/tables/{T}/status"


def test_events_feed_the_log_once_and_end_hands() -> None:
    f = TableFollower(T)
    f.feed(STATE, _snapshot(1, 0, stakes={"units_per_currency": 1}), now=0)
    assert f.feed(EVENTS, _event(1, 1, "hand_started", hand={"id": "h1"}), now=0).changed
    assert not f.feed(EVENTS, _event(1, 1, "hand_started", hand={"id": "h1"}), now=0).changed
    f.feed(EVENTS, _event(1, 3, "winner", seat=2, amount=50, half="whole",
                          description="Pair of aces"), now=0)
    f.feed(EVENTS, _event(1, 2, "board", cards=["As", "Kd", "2c"]), now=0)   # late, not lost
    f.feed(STATE, _snapshot(1, 4, phase="settled"), now=0)       # covers seq 4 already
    upd = f.feed(EVENTS, _event(1, 4, "hand_ended", hand={"id": "h1"}), now=0)
    assert [e["type"] for e in f.view.events] == ["hand_started", "winner", "board",
                                                  "hand_ended"]
    assert upd.hand_ended is not None and f.hands_ended == 1
    assert upd.hand_ended["board"] == ["As", "Kd", "2c"]
    assert f.view.snapshot == {"phase": "settled"}
    assert not f.feed(STATE, _snapshot(1, 3, phase="betting"), now=0).changed   # older


def test_new_epoch_resets_and_offline_marks_stale() -> None:
    f = TableFollower(T)
    f.feed(STATE, _snapshot(1, 5, phase="betting"), now=0)
    f.feed(STATUS, _status(1, "offline"), now=1)
    assert f.view.stale
    f.feed(STATE, _snapshot(2, 0, phase="idle"), now=2)
    f.feed(STATUS, _status(2, "online"), now=2)
    assert not f.view.stale
    assert f.view.snapshot == {"phase": "idle"}
    f.feed(STATUS, _status(1, "offline"), now=3)          # a late will of the old run
    assert not f.view.stale
    assert not f.feed(STATE, b"not json", now=4).changed


def test_render_hides_hole_cards_and_shows_the_table() -> None:
    snap = {
        "game": {"label": "Limit Omaha Hi-Lo 8 or Better"}, "hand": {"id": "t9-000001"},
        "phase": "betting", "street": "flop", "button": 1,
        "stakes": {"units_per_currency": 100},
        "seats": [{"seat": 1, "name": "Ada", "stack": 12345, "bet": 200, "status": "active",
                   "cards": [{"card": None, "up": False}] * 4},
                  {"seat": 2, "name": "Brook", "stack": 500, "bet": 0, "status": "folded",
                   "cards": []}],
        "board": ["Ah", "Kd", "7c"], "pots": [{"amount": 1200, "eligible": [1, 2]}],
        "to_act": {"seat": 1, "legal": [{"kind": "call", "amount": 200}]},
        "errors": [{"code": "duplicate_card", "message": "Ah was already dealt"}],
    }
    console = Console(record=True, width=100, color_system=None)
    console.print(render(TableView(snapshot=snap, stale=True)))
    text = console.export_text()
    for needle in ("Ada", "123.45", "A\u2665", "##", "main 12.00", "seat 1 to act: call 2.00",
                   "duplicate_card", "CONTROLLER OFFLINE"):
        assert needle in text, needle


def test_render_shows_every_run_of_a_hand_run_twice() -> None:
    from tablectl.terminal.view import describe_event
    snap = {"game": {"label": "No-Limit Hold'em"}, "stakes": {"units_per_currency": 100},
            "phase": "settled", "seats": [], "board": ["7h", "8s", "9d", "Jc", "2s"],
            "runs": {"count": 2, "boards": [["7h", "8s", "9d", "Jc", "2s"],
                                            ["7h", "8s", "9d", "Kd", "3s"]]}}
    console = Console(record=True, width=100, color_system=None)
    console.print(render(TableView(snapshot=snap)))
    text = console.export_text()
    assert "run 1  7\u2665 8\u2660 9\u2666 J\u2663 2\u2660" in text
    assert "run 2  7\u2665 8\u2660 9\u2666 K\u2666 3\u2660" in text
    assert describe_event({"type": "runs", "count": 2}, {}) == "run it 2 times"
    assert describe_event({"type": "board", "cards": ["Kd"], "run": 2}, {}) == "run 2 board Kd"
