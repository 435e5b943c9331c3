"""The journal codec of controller inputs and checkpoints: exact round trips, clear refusals."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.controller import (
    CardRead,
    CodecError,
    Command,
    ControllerInput,
    DeviceStatus,
    ErrorCode,
    Location,
    LocationKind,
    ReadStatus,
    Reply,
    TableState,
    TagLeft,
    input_from_json,
    input_to_json,
)
from tablectl.controller.table import ActiveError, CachedReply, DeviceState, SeatState
from tablectl.domain.cards import FULL_DECK

times = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2040, 1, 1),
                     timezones=st.sampled_from([UTC, timezone(timedelta(hours=-5))]))
names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
                max_size=12)
locations = st.one_of(
    st.none(),
    st.builds(lambda s, k: Location(LocationKind.SEAT, seat=s, slot=k),
              st.integers(1, 10), st.none() | st.integers(1, 7)),
    st.builds(lambda i: Location(LocationKind.BOARD, index=i), st.integers(1, 5)),
    st.sampled_from([Location(LocationKind.MUCK), Location(LocationKind.BURN)]))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8)
card_reads = st.builds(
    lambda source, uid, card, antenna, read_id, at, loc, status, conf: CardRead(
        source=source, uid=None if card is not None else uid, card=card, antenna=antenna,
        read_id=read_id, at=at, location=loc, status=status, confidence=conf),
    names, st.sampled_from(["04A1B2C3D4E5F6", "04:a1:b2", "DEADBEEF"]),
    st.none() | st.sampled_from(FULL_DECK), st.integers(0, 63), names, times, locations,
    st.sampled_from(ReadStatus), st.floats(0, 1))
commands = st.builds(Command, name=names, user=names, id=names, at=times,
                     args=st.dictionaries(st.text(max_size=6), json_values, max_size=4),
                     sent_at=st.none() | times)
inputs: st.SearchStrategy[ControllerInput] = st.one_of(
    card_reads, commands,
    st.builds(TagLeft, source=names, uid=names, antenna=st.integers(0, 9), at=times,
              location=locations),
    st.builds(DeviceStatus, source=names, online=st.booleans(), at=times, kind=st.text()))


@given(inputs)
def test_every_input_round_trips_through_json(inp: ControllerInput) -> None:
    text = json.dumps(input_to_json(inp))
    back = input_from_json(json.loads(text))
    assert back == inp and type(back) is type(inp)
    assert back.at.utcoffset() == inp.at.utcoffset()
    assert type(inp).from_json(inp.to_json()) == inp


@pytest.mark.parametrize(("payload", "message"), [
    ({"type": "nope"}, "unknown input type"),
    ([], "JSON object"),
    ({"type": "command", "name": "undo", "user": "d", "id": "1", "args": {}},
     "missing field 'at'"),
    ({"type": "command", "name": "undo", "user": "d", "id": "1", "args": {},
      "at": "2026-01-01T00:00:00"}, "not an aware time"),
    ({"type": "command", "name": "undo", "user": "d", "id": "1", "args": [],
      "at": "2026-01-01T00:00:00Z"}, "wrong type"),
    ({"type": "device_status", "source": "shoe", "online": 1, "kind": "",
      "at": "2026-01-01T00:00:00Z"}, "wrong type"),
    ({"type": "card_read", "source": "shoe", "uid": "04A1", "card": "As", "antenna": 0,
      "location": None, "read_id": "r", "status": "accepted", "confidence": 1.0,
      "at": "2026-01-01T00:00:00Z"}, "exactly one of uid and card"),
    ({"type": "card_read", "source": "t", "uid": "04A1", "card": None, "antenna": 0,
      "location": "seat eleven", "read_id": "r", "status": "accepted", "confidence": 1.0,
      "at": "2026-01-01T00:00:00Z"}, "not an antenna role"),
    ({"type": "card_read", "source": "t", "uid": "04A1", "card": None, "antenna": True,
      "location": None, "read_id": "r", "status": "accepted", "confidence": 1.0,
      "at": "2026-01-01T00:00:00Z"}, "wrong type"),
])
def test_bad_payloads_are_refused_clearly(payload: Any, message: str) -> None:
    with pytest.raises(CodecError, match=message):
        input_from_json(payload)


@pytest.mark.parametrize("text", ["seat 0", "board 0", "seat 3 slot 0", "table", "seat"])
def test_bad_locations(text: str) -> None:
    with pytest.raises(ValueError, match="not"):
        Location.parse(text)


def test_inputs_refuse_naive_times_and_impossible_values() -> None:
    with pytest.raises(ValueError, match="aware"):
        DeviceStatus("shoe", True, datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="confidence"):
        CardRead(source="c", uid="04A1", antenna=0, read_id="r", at=datetime.now(UTC),
                 confidence=1.5)
    with pytest.raises(ValueError, match="not JSON"):
        Command(name="x", user="u", id="1", at=datetime.now(UTC),
                args={"when": datetime.now(UTC)})  # type: ignore[dict-item]


def test_checkpoint_round_trips_and_refuses_garbage() -> None:
    at = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
    state = TableState(
        seats=(SeatState(1, "Ada", 500), SeatState(4, "Bo", 0)), button=4, hand_number=12,
        errors=(ActiveError(ErrorCode.UNKNOWN_TAG, "tag 0BAD is in no registered deck", at,
                            {"uid": "0BAD"}),),
        devices=(DeviceState("shoe", "rfid-shoe", False),),
        replies=(CachedReply("dealer", "c1", Reply.success("c1", {"hand": 3}), False),
                 CachedReply("dealer", "c2", Reply.failure("c2", ErrorCode.OUT_OF_TURN,
                                                           "seat 3 is to act"), True)))
    assert TableState.from_json(json.loads(json.dumps(state.to_json()))) == state
    broken = state.to_json()
    broken["button"] = "4"
    with pytest.raises(CodecError, match="button"):
        TableState.from_json(broken)
    with pytest.raises(CodecError):
        TableState.from_json({"seats": []})
