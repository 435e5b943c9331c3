"""JSON payloads on the MQTT API: one envelope per kind, validated, with generated JSON Schemas.

Every payload is a UTF-8 JSON object carrying ``"v": 1`` (the schema version). Events and
snapshots also carry ``table``, ``epoch``, ``seq``, ``type``, ``ts`` and ``hand``; the
controller's own content sits under ``data``, which this layer does not interpret (the daemon
defines it per ``type``). The JSON Schemas in ``tablectl/publish/schemas/`` are generated from
these models by :func:`json_schemas` and checked against the code in tests.

>>> from datetime import UTC, datetime
>>> ev = EventEnvelope(table="t07", journal="5f0c2a9e41d3b870", epoch=3, seq=12, type="board",
...                    hand=311, ts=datetime(2026, 1, 1, tzinfo=UTC),
...                    data={"cards": ["2c", "7d", "Jh"]})
>>> encode(ev)
b'{"v":1,"table":"t07","journal":"5f0c2a9e41d3b870","epoch":3,"seq":12,"type":"board","ts":"2026-01-01T00:00:00Z","hand":311,"data":{"cards":["2c","7d","Jh"]}}'
>>> decode(EventEnvelope, encode(ev)) == ev
True
>>> decode(EventEnvelope, b'{"v":1}')
Traceback (most recent call last):
...
tablectl.publish.envelope.EnvelopeError: bad EventEnvelope payload: ...
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final, Literal, TypeVar

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
)

from tablectl.journal import EventRecord
from tablectl.publish.errors import PublishError

SCHEMA_VERSION: Final = 1

_M = TypeVar("_M", bound=BaseModel)


class EnvelopeError(PublishError, ValueError):
    """A payload that does not match its envelope (bad JSON, missing or wrong fields)."""


class _Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    v: Literal[1] = Field(default=1, description="payload schema version")


_JOURNAL_DESCRIPTION: Final = (
    "id of the daemon's journal (random, given when the journal was created); with epoch it "
    "names one run: a different journal is a different table history. Absent from daemons "
    "older than journal ids")


def _journal_field() -> Any:
    return Field(default=None, min_length=1, max_length=64, pattern=r"^[0-9A-Za-z_.-]+$",
                 description=_JOURNAL_DESCRIPTION)


class EventEnvelope(_Payload):
    """One event on ``poker/v1/tables/{t}/events`` (or a secure stream).

    ``seq`` is contiguous per (journal, epoch, topic) from 1; a consumer that sees ``seq``
    jump has missed events (docs/mqtt.md, "Resync rules").
    """

    table: str = Field(min_length=1, description="table id")
    journal: str | None = _journal_field()
    epoch: int = Field(ge=1, description="controller run of this journal; increments at "
                                         "every start")
    seq: int = Field(ge=1, description="+1 per event of this topic within the epoch")
    type: str = Field(min_length=1, description="event type, e.g. board, winner")
    ts: AwareDatetime = Field(description="when the controller journaled the event")
    hand: int | None = Field(default=None, description="journal hand id, None between hands")
    data: dict[str, JsonValue] = Field(default_factory=dict, description="type-specific body")


class SnapshotEnvelope(_Payload):
    """The retained snapshot on ``.../state`` (public) or ``secure/.../state``.

    ``seq`` is the seq of the last event applied (0 before the epoch's first event), so a
    consumer can tell which events the snapshot already contains.
    """

    table: str = Field(min_length=1)
    journal: str | None = _journal_field()
    epoch: int = Field(ge=1)
    seq: int = Field(ge=0, description="seq of the last event folded into this snapshot")
    type: Literal["snapshot"] = "snapshot"
    ts: AwareDatetime
    hand: int | None = None
    data: dict[str, JsonValue] = Field(default_factory=dict)


class StatusPayload(_Payload):
    """Birth / LWT on ``.../status`` (retained): ``online`` at connect, ``offline`` as will."""

    table: str = Field(min_length=1)
    state: Literal["online", "offline"]
    version: str = Field(min_length=1, description="tablectl version")
    journal: str | None = _journal_field()
    epoch: int = Field(ge=1, description="lets a consumer ignore a stale LWT of an older run")


class CommandPayload(_Payload):
    """A console command on ``.../cmd/{name}/{user}``.

    ``id`` makes it idempotent (the controller answers a repeated id with the first reply);
    ``reply_to`` is for MQTT 3.1.1 clients without a response topic.
    """

    id: str = Field(min_length=1, max_length=128)
    ts: AwareDatetime | None = None
    args: dict[str, JsonValue] = Field(default_factory=dict)
    reply_to: str | None = None


class ReplyError(BaseModel):
    """Why a command failed."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    code: str = Field(min_length=1)
    message: str


class ReplyPayload(_Payload):
    """The one reply to a command, on the sender's ``poker/v1/replies/{user}/...`` topic."""

    id: str = Field(min_length=1, max_length=128)
    status: Literal["ok", "error"]
    error: ReplyError | None = None
    data: dict[str, JsonValue] = Field(default_factory=dict)


PAYLOAD_MODELS: Final[tuple[type[BaseModel], ...]] = (
    EventEnvelope, SnapshotEnvelope, StatusPayload, CommandPayload, ReplyPayload)


def encode(payload: BaseModel) -> bytes:
    """Compact UTF-8 JSON of a payload model."""
    return payload.model_dump_json().encode("utf-8")


def decode(model: type[_M], raw: bytes) -> _M:
    """Parse and validate ``raw`` as ``model``.

    Raises:
        EnvelopeError: not JSON, or not a valid ``model``.
    """
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        raise EnvelopeError(f"bad {model.__name__} payload: {exc}") from exc


def event_from_record(table: str, record: EventRecord,
                      journal: str | None = None) -> EventEnvelope:
    """The envelope of an outbox event of the journal ``journal`` (its ``ts`` is the
    journaling time, so a resend is byte-identical to the first send)."""
    return EventEnvelope.model_validate({
        "table": table, "journal": journal, "epoch": record.epoch, "seq": record.seq,
        "type": record.type, "ts": record.created_at, "hand": record.hand_id,
        "data": record.payload})


def encode_event(table: str, record: EventRecord, journal: str | None = None) -> bytes:
    """``encode(event_from_record(table, record, journal))``, without building and validating
    a model.

    The publisher's hot path: every field is already checked (the journal stores only JSON
    payloads, positive epochs and seqs, aware times), so this only writes the JSON, in the
    envelope's field order. It is the same JSON value as the model's encoding, and the same
    bytes whenever the payload holds no float (floats may be spelt differently); a resend of
    a record is byte-identical to its first send either way.
    """
    stamp = record.created_at.isoformat()
    if stamp.endswith("+00:00"):
        stamp = stamp[:-6] + "Z"
    hand = "null" if record.hand_id is None else str(int(record.hand_id))
    data = json.dumps(record.payload, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    run = "null" if journal is None else json.dumps(journal, ensure_ascii=False)
    return (f'{{"v":1,"table":{json.dumps(table, ensure_ascii=False)},"journal":{run},'
            f'"epoch":{record.epoch:d},'
            f'"seq":{record.seq:d},"type":{json.dumps(record.type, ensure_ascii=False)},'
            f'"ts":"{stamp}","hand":{hand},"data":{data}}}').encode()


def json_schemas() -> dict[str, dict[str, JsonValue]]:
    """The JSON Schema of every payload model, keyed by model name."""
    return {m.__name__: m.model_json_schema() for m in PAYLOAD_MODELS}


SCHEMA_DIR: Final = Path(__file__).with_name("schemas")


def schema_files() -> dict[str, str]:
    """File name -> text of every generated schema, as checked in under ``SCHEMA_DIR``.

    Regenerate with :func:`write_schemas`.
    """
    return {f"{name}.json": json.dumps(schema, indent=2, sort_keys=True) + "\n"
            for name, schema in json_schemas().items()}


def write_schemas(directory: Path = SCHEMA_DIR) -> None:
    """Write :func:`schema_files` into ``directory`` (after changing a payload model)."""
    directory.mkdir(exist_ok=True)
    for name, text in schema_files().items():
        (directory / name).write_text(text)
