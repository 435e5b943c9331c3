"""A table's side of the tournament clock (tablectl/daemon/level.py), sans-IO: the status the
service publishes decoded, hostile payloads refused with nothing changed, the follower's table
of states, and a level's stakes."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tablectl.daemon.level import (
    TRANSITIONS,
    Follower,
    Happening,
    Level,
    Link,
    StatusRefusedError,
    decode_status,
)
from tablectl.domain.games import BettingStructure
from tablectl.game.rules import Stakes
from tablectl.tournament.clock import MoveTo, Pause, Start, apply
from tablectl.tournament.service import status_of
from tablectl.tournament.store import Tournament
from tablectl.tournament.structure import Structure

T0 = datetime(2026, 12, 3, 19, 0, tzinfo=UTC)


def published(small: Structure, *, level: int = 1, at: datetime = T0, tid: str = "d1") -> bytes:
    """What the service publishes (tablectl/tournament/service.py), at ``level``."""
    t = Tournament.new(tid, small)
    clock = apply(t.clock, small, Start(), at)
    if level > 1:
        clock = apply(clock, small, MoveTo(level), at)
    return json.dumps(status_of(replace(t, clock=clock), at)).encode()


def test_the_services_own_status_is_taken(small: Structure) -> None:
    status = decode_status(published(small, level=2), "d1")
    assert status.level == Level(2, 100, 200, 200, big_blind_ante=True)
    assert (status.phase, status.at, status.hand_for_hand) == ("running", T0, False)
    third = decode_status(published(small, level=3), "d1").level
    assert third.label == "level 3 200/400 (ante 400)"


def _with(small: Structure, path: str, value: Any) -> bytes:
    body = json.loads(published(small))
    node = body
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[key]
    node[keys[-1]] = value
    return json.dumps(body).encode()


HOSTILE: list[tuple[str, Any, str]] = [
    ("clock.small_blind", -50, "must be 1 to 10**12"),
    ("clock.big_blind", 10**13, "must be 1 to 10**12"),
    ("clock.ante", -1, "must be 0 to 10**12"),
    ("clock.big_blind", "200", "not a whole number"),
    ("clock.big_blind", 200.5, "not a whole number"),
    ("clock.big_blind", True, "not a whole number"),
    ("clock.big_blind", None, "not a whole number"),
    ("clock.small_blind", 500, "above the big blind"),
    ("clock.level", 0, "not a level number"),
    ("clock.level", "3", "not a level number"),
    ("clock.phase", "dancing", "not a phase"),
    ("clock.ante_kind", "button", "not big_blind or ante"),
    ("clock.at", "yesterday", "not a time"),
    ("clock.at", "2026-12-03T19:00:00", "no time zone"),
    ("clock", [1, 2], "not an object"),
    ("tournament", "other", "of tournament 'other'"),
    ("schema", 2, "schema 2"),
    ("hand_for_hand", "yes", "not true or false"),
    ("hand_for_hand_go", -1, "not a round number"),
    ("hand_for_hand_go", "2", "not a round number"),
    ("hand_for_hand_go", 10**10, "not a round number"),
    ("clock.time_left", -1, "clock.time_left is not 0 to"),
    ("clock.time_left", 10**9, "clock.time_left is not 0 to"),
    ("clock.time_left", "5:00", "clock.time_left is not 0 to"),
    ("clock.next", "level 2", "not a level with a label"),
    ("clock.next", {"label": ""}, "not a level with a label"),
    ("clock.next", {"label": 7}, "not a level with a label"),
    ("players_left", -3, "players_left is not a whole number"),
    ("players_left", 2.5, "players_left is not a whole number"),
    ("average_stack", 10**13, "average_stack is not a whole number"),
]


@pytest.mark.parametrize(("path", "value", "reason"), HOSTILE,
                         ids=[f"{p}={v!r}" for p, v, _ in HOSTILE])
def test_a_hostile_status_is_refused_and_changes_nothing(small: Structure, path: str,
                                                         value: Any, reason: str) -> None:
    follower = Follower("d1", 90)
    follower.on_payload(published(small), T0)
    note = follower.on_payload(_with(small, path, value), T0 + timedelta(seconds=1))
    assert note.line is not None and reason in note.line and not note.changed
    assert follower.level == Level(1, 50, 100, 0) and follower.link is Link.FOLLOWING
    assert follower.refused is not None and reason in follower.refused
    body = follower.to_json(in_force=True, now=T0)
    assert (body["time_left"], body["players_left"], body["average_stack"]) == (600, 0, 0)


@pytest.mark.parametrize("payload", [
    b"", b"not json", b'{"schema":1,"tournament":"d1","clock":{"small_blind":NaN}}',
    b'{"schema":1,"schema":1}', b"[1,2]", b'{"a":' * 50 + b"1" + b"}" * 50,
    b'{"x":"' + b"a" * 9000 + b'"}', b"\xff\xfe", b'{"schema":1,"tournament":"d1"}',
])
def test_garbage_is_refused_with_a_reason(payload: bytes) -> None:
    follower = Follower("d1", 90)
    note = follower.on_payload(payload, T0)
    assert note.line is not None and "status refused, nothing changed" in note.line
    assert follower.level is None and follower.link is Link.NO_STATUS


def test_a_status_is_taken_whatever_its_time(small: Structure) -> None:
    """The floor's commands and tournament run may run on two clocks: the broker's order
    decides, never the status's time."""
    follower = Follower("d1", 90)
    follower.on_payload(published(small, level=2, at=T0 + timedelta(seconds=30)), T0)
    follower.on_payload(published(small, level=3, at=T0), T0)
    assert follower.level is not None and follower.level.number == 3


def test_every_state_and_happening_has_a_row() -> None:
    assert set(TRANSITIONS) == {(s, h) for s in Link for h in Happening}


def test_the_follower_says_when_its_level_is_no_longer_sure(small: Structure) -> None:
    follower = Follower("d1", 90)
    assert follower.until_stale(T0) is None
    note = follower.on_payload(published(small), T0 + timedelta(seconds=5))
    assert note.changed and follower.link is Link.FOLLOWING
    assert follower.until_stale(T0 + timedelta(seconds=5)) == 85
    assert not follower.check(T0 + timedelta(seconds=90)).changed
    stale = follower.check(T0 + timedelta(seconds=91))
    assert stale.changed and follower.link is Link.STALE
    assert stale.line is not None and "playing the last level known" in stale.line
    assert follower.level == Level(1, 50, 100, 0)          # still played
    # the status comes back with a new level: taken
    follower.on_payload(published(small, level=2, at=T0 + timedelta(seconds=95)),
                        T0 + timedelta(seconds=95))
    assert follower.link is Link.FOLLOWING and follower.level.number == 2  # type: ignore[union-attr]
    # the broker goes: link down; back: stale until a status comes (the retained one)
    assert follower.on_link(False).changed and follower.link is Link.LINK_DOWN
    assert follower.on_link(True).changed and follower.link is Link.STALE
    follower.on_payload(published(small, level=2, at=T0 + timedelta(seconds=100)),
                        T0 + timedelta(seconds=100))
    assert follower.link is Link.FOLLOWING


def test_a_retained_status_already_old_is_taken_but_said_stale(small: Structure) -> None:
    follower = Follower("d1", 90)
    note = follower.on_payload(published(small, level=2), T0 + timedelta(hours=1))
    assert follower.level is not None and follower.level.number == 2
    assert follower.link is Link.STALE and note.line is not None and "stale" in note.line


def test_the_snapshot_part_says_pending_until_the_table_plays_it(small: Structure) -> None:
    follower = Follower("d1", 90)
    follower.on_payload(published(small, level=2), T0)
    body = follower.to_json(in_force=False)
    assert body["pending"] is True and body["link"] == "following"
    assert body["level"] == {"number": 2, "label": "level 2 100/200 (big-blind ante 200)",
                             "small_blind": 100, "big_blind": 200, "ante": 200,
                             "ante_kind": "big_blind"}
    assert follower.to_json(in_force=True)["pending"] is False


def test_the_snapshot_part_has_the_clock_and_the_field_for_the_display(
        small: Structure) -> None:
    follower = Follower("d1", 90)
    t = Tournament.new("d1", small)
    for name in ("ann", "bob", "cat"):
        t = replace(t, field=t.field.register(name, small.starting_stack))
    running = replace(t, clock=apply(t.clock, small, Start(), T0))
    follower.on_payload(json.dumps(status_of(running, T0 + timedelta(seconds=100))).encode(),
                        T0 + timedelta(seconds=101))
    # 600 s from T0: 500 left at the status, 498.5 by the table's clock 1.5 s after it
    body = follower.to_json(in_force=True, now=T0 + timedelta(seconds=101.5))
    assert (body["phase"], body["time_left"], body["next_level"]) == (
        "running", 498.5, "level 2 100/200 (big-blind ante 200)")
    assert (body["players_left"], body["average_stack"]) == (3, 10000)
    # a table clock behind the service's never counts up
    assert follower.to_json(in_force=True, now=T0)["time_left"] == 500
    assert follower.to_json(in_force=True, now=T0 + timedelta(hours=1))["time_left"] == 0
    # paused: the time left stands; a status changing only the field republishes the snapshot
    paused = replace(running, clock=apply(running.clock, small, Pause(),
                                          T0 + timedelta(seconds=200)))
    note = follower.on_payload(json.dumps(status_of(
        paused, T0 + timedelta(seconds=300))).encode(), T0 + timedelta(seconds=300))
    assert note.changed and note.line is None
    body = follower.to_json(in_force=True, now=T0 + timedelta(seconds=900))
    assert (body["phase"], body["time_left"]) == ("paused", 400)


def test_a_levels_stakes() -> None:
    base = Stakes(small_blind=1, big_blind=2, straddle=4, bring_in=1, small_bet=2, big_bet=4)
    bba = Level(3, 100, 300, 300, big_blind_ante=True).stakes(BettingStructure.NO_LIMIT, base)
    assert (bba.small_blind, bba.big_blind, bba.ante, bba.big_blind_ante, bba.straddle) == (
        100, 300, 0, 300, 0)
    each = Level(4, 200, 400, 50, big_blind_ante=False).stakes(BettingStructure.POT_LIMIT, base)
    assert (each.ante, each.big_blind_ante) == (50, 0)
    fixed = Level(2, 100, 200).stakes(BettingStructure.FIXED_LIMIT, base)
    assert (fixed.small_bet, fixed.big_bet) == (200, 400)


def test_decoding_refuses_with_its_own_error_only() -> None:
    with pytest.raises(StatusRefusedError):
        decode_status(b"\x00" * 10, "d1")
