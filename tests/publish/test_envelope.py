"""Payload envelopes: round trips, refusals, and the checked-in JSON Schemas."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tablectl.clock import ManualClock
from tablectl.journal import MemoryJournal, NewEvent
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
