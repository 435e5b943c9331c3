"""All-in hands face up on the public feed (house rule ``all_in_face_up``): the moment no more
betting is possible, a ``face_up`` event names each live hand and the public snapshot shows
it; a card the seat gets later is public as it is dealt. Without the rule nothing is public
before the showdown."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tablectl.domain.games import GameKind, RulesPreset
from tablectl.game import PRESETS
from tablectl.terminal.view import describe_event
from tablectl.web.sync import LOG_TYPES

from .helpers import FL, NL, Driver, fresh

CASINO = PRESETS[RulesPreset.CASINO]
OFF = replace(CASINO, all_in_face_up=False)


def _read(d: Driver, cards: str) -> None:
    for card in cards.split():
        d.read(card)


def _public_events(d: Driver, kind: str) -> list[dict[str, Any]]:
    return [ev.data for out in d.outcomes for ev in out.events if ev.type == kind]


def _public_cards(d: Driver, seat: int) -> list[Any]:
    snap = d.ctl.public_snapshot()
    entry = next(s for s in snap["seats"] if s["seat"] == seat)  # type: ignore[union-attr,index]
    return [c["card"] for c in entry["cards"]]


def _all_in_preflop(rules: Any) -> Driver:
    # button 3: seat 1 small blind, seat 2 big blind, seat 3 first to act
    d = fresh(GameKind.HOLDEM, NL, stacks=(500, 5000, 5000), button=3, rules=rules)
    d.cmd("start_hand")
    _read(d, "Ah Kh Qh Ad Kd Qd")
    assert d.act(3, "fold").reply.ok                      # type: ignore[union-attr]
    assert d.act(1, "raise", 500).reply.ok                # type: ignore[union-attr]
    assert d.act(2, "call").reply.ok                      # type: ignore[union-attr]
    return d


def test_on_the_hands_are_public_before_the_flop() -> None:
    d = _all_in_preflop(CASINO)
    assert _public_events(d, "face_up") == [
        {"seat": 1, "cards": ["Ah", "Ad"], "street": "preflop"},
        {"seat": 2, "cards": ["Kh", "Kd"], "street": "preflop"}]
    assert _public_cards(d, 1) == ["Ah", "Ad"] and _public_cards(d, 2) == ["Kh", "Kd"]
    assert _public_cards(d, 3) == [None, None]              # folded: never shown
    snap = d.ctl.public_snapshot()
    assert (snap["phase"], snap["street"], snap["board"]) == ("dealing", "flop", [])
    _read(d, "2c 3d 4h 5s 9c 7d Jc 8s")          # burns, flop, turn, river
    assert _public_events(d, "winner")
    assert {e["seat"] for e in _public_events(d, "showdown")} == {1, 2}


def test_off_nothing_is_public_before_the_showdown() -> None:
    d = _all_in_preflop(OFF)
    assert not _public_events(d, "face_up")
    assert _public_cards(d, 1) == [None, None] and _public_cards(d, 2) == [None, None]
    _read(d, "2c 3d 4h 5s 9c 7d Jc")              # up to the river burn and card
    assert _public_cards(d, 1) == [None, None]
    d.read("8s")
    assert {e["seat"] for e in _public_events(d, "showdown")} == {1, 2}


def test_on_a_stud_down_card_dealt_after_is_public() -> None:
    # everyone but seat 2 all-in for the ante: face up on third street, seventh street's
    # down card of a face-up hand is public as dealt
    d = fresh(GameKind.STUD, FL, stacks=(10, 5000, 10), button=3, rules=CASINO)
    d.cmd("start_hand")
    _read(d, "Ac Kc Qc Ad Kd Qd 2c 5s 9h")
    assert [e["seat"] for e in _public_events(d, "face_up")] == [1, 2, 3]
    _read(d, "3h 4c 6d 7h 8h 3s 4d 6h 7s 8d 3c 4s 6s")  # (burn + 3 up) x3, burn
    d.read("Th")                                             # seventh street, seat 1 down
    last = [e for e in _public_events(d, "cards_dealt") if e["street"] == "seventh"][-1]
    assert last == {"seat": 1, "count": 1, "up": ["Th"], "street": "seventh"}
    assert _public_cards(d, 1)[-1] == "Th"


def test_displays_log_the_face_up_hands() -> None:
    d = _all_in_preflop(CASINO)
    stakes = d.ctl.public_snapshot()["stakes"]
    lines = [describe_event({"type": "face_up", **e}, stakes)  # type: ignore[arg-type]
             for e in _public_events(d, "face_up")]
    assert lines == ["seat 1 turns up Ah Ad (all-in)", "seat 2 turns up Kh Kd (all-in)"]
    assert "face_up" in LOG_TYPES                   # the web display's action log shows it
