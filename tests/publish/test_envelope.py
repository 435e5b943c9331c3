"""Payload envelopes: round trips, refusals, and the checked-in JSON Schemas."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.clock import ManualClock
from tablectl.journal import EventRecord, MemoryJournal, NewEvent
from tablectl.publish.envelope import (
    SCHEMA_DIR,
    CommandPayload,
    EnvelopeError,
    EventEnvelope,
    ReplyError,
    ReplyPayload,
    SnapshotEnvelope,
    StatusPayload,
    decode,
    encode,
    encode_event,
    event_from_record,
    schema_files,
)

TS = datetime(2026, 11, 29, 17, 4, 5, 123000, tzinfo=UTC)


def test_the_research_example_event_decodes() -> None:
    raw = (b'{"v":1, "table":"t07", "epoch":42, "seq":1843, "hand":311, "type":"board",'
           b' "ts":"2026-11-29T17:04:05.123Z", "data":{"street":"flop",'
           b' "cards":["2c","7d","Jh"]}}')
    ev = decode(EventEnvelope, raw)
    assert (ev.epoch, ev.seq, ev.type, ev.hand, ev.ts) == (42, 1843, "board", 311, TS)
    assert ev.data == {"street": "flop", "cards": ["2c", "7d", "Jh"]}
    assert decode(EventEnvelope, encode(ev)) == ev


@pytest.mark.parametrize("raw", [
    b"not json", b"[]",
    b'{"v":2,"table":"t","epoch":1,"seq":1,"type":"x","ts":"2026-01-01T00:00:00Z"}',
    b'{"v":1,"table":"t","epoch":1,"seq":0,"type":"x","ts":"2026-01-01T00:00:00Z"}',
    b'{"v":1,"table":"t","epoch":1,"seq":1,"type":"x","ts":"2026-01-01T00:00:00"}',
    b'{"v":1,"table":"t","epoch":1,"seq":1,"type":"x","ts":"2026-01-01T00:00:00Z","extra":1}',
])
def test_bad_event_payloads_are_refused(raw: bytes) -> None:
    with pytest.raises(EnvelopeError):
        decode(EventEnvelope, raw)


def test_other_payloads_round_trip() -> None:
    samples = [
        SnapshotEnvelope(table="t07", epoch=3, seq=0, ts=TS, data={"seats": {}}),
        StatusPayload(table="t07", state="offline", version="0.1.0", epoch=3),
        CommandPayload(id="c-1", ts=TS, args={"seat": 3}),
        ReplyPayload(id="c-1", status="error",
                     error=ReplyError(code="wrong_phase", message="no hand")),
    ]
    for sample in samples:
        assert decode(type(sample), encode(sample)) == sample
        assert json.loads(encode(sample))["v"] == 1


def test_an_outbox_record_becomes_a_stable_envelope() -> None:
    clock = ManualClock(TS)
    journal = MemoryJournal(clock)
    journal.start_epoch()
    hand = journal.start_hand()
    (rec,) = journal.append_events([NewEvent("poker/v1/tables/t07/events", "board",
                                             {"cards": ["2c"]}, hand.id)])
    env = event_from_record("t07", rec)
    assert (env.table, env.epoch, env.seq, env.type, env.hand, env.ts) == (
        "t07", 1, 1, "board", hand.id, TS)
    clock.advance(10)
    assert encode(event_from_record("t07", rec)) == encode(env)   # a resend is byte-identical


def test_checked_in_schemas_match_the_code() -> None:
    files = schema_files()
    assert set(files) == {p.name for p in Path(SCHEMA_DIR).glob("*.json")}
    for name, text in files.items():
        assert (SCHEMA_DIR / name).read_text() == text, f"regenerate {name}: write_schemas()"
    event = json.loads(files["EventEnvelope.json"])
    assert set(event["required"]) >= {"table", "epoch", "seq", "type", "ts"}
    assert event["additionalProperties"] is False


_JSON_LEAF = st.none() | st.booleans() | st.integers(-2**53, 2**53) | st.text(max_size=12)
_JSON = st.recursive(_JSON_LEAF, lambda kids: st.lists(kids, max_size=4)
                     | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=20)


@given(payload=st.dictionaries(st.text(max_size=8), _JSON, max_size=6),
       table=st.text(min_size=1, max_size=10), kind=st.text(min_size=1, max_size=10),
       epoch=st.integers(1, 2**31), seq=st.integers(1, 2**31),
       hand=st.none() | st.integers(1, 2**31),
       ts=st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1),
                       timezones=st.sampled_from([UTC, timezone(timedelta(hours=-5))])))
def test_the_fast_event_encoding_is_the_models_byte_for_byte(
        payload: dict[str, object], table: str, kind: str, epoch: int, seq: int,
        hand: int | None, ts: datetime) -> None:
    rec = EventRecord(id=1, epoch=epoch, seq=seq, topic="poker/v1/tables/t/events", type=kind,
                      payload=payload, hand_id=hand, created_at=ts,  # type: ignore[arg-type]
                      published_at=None)
    assert encode_event(table, rec) == encode(event_from_record(table, rec))


def test_the_fast_event_encoding_keeps_the_value_of_floats() -> None:
    rec = EventRecord(id=1, epoch=1, seq=1, topic="t/events", type="read",
                      payload={"confidence": 0.1 + 0.2, "big": 1e16, "small": 1e-7},
                      hand_id=None, created_at=TS, published_at=None)
    assert json.loads(encode_event("t", rec)) == json.loads(encode(event_from_record("t", rec)))
