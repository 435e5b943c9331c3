"""What the floor reads off the MQTT API, and the rows it writes: plain values, no I/O.

The floor treats a table's ``epoch`` as an opaque value: it is stored as text and only ever
compared for equality; ``(table, epoch, seq)`` names one event everywhere (docs/floor.md).
Payloads are parsed here loosely on purpose: the floor must keep recording when a daemon adds
a field, so only what the floor uses is checked, and anything else that is malformed is
refused with :class:`FloorInputError` (the message is dropped and logged, nothing written).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

EVENTS_SUFFIX: Final = "/events"
STATE_SUFFIX: Final = "/state"


class FloorInputError(ValueError):
    """A message the floor cannot use (not JSON, a field missing or of the wrong type)."""


def epoch_text(value: object, journal: object = None) -> str:
    """An envelope's run as the floor stores it (its "epoch" column): ``journal:epoch`` when
    the envelope names its journal (docs/mqtt.md: the run is ``(journal, epoch)``), else the
    epoch alone; text, compared only for equality.

    >>> epoch_text(3), epoch_text(3, "5f0c2a9e41d3b870"), epoch_text("x-1")
    ('3', '5f0c2a9e41d3b870:3', 'x-1')
    """
    if isinstance(value, bool) or not isinstance(value, int | str) or value == "":
        raise FloorInputError(f"epoch must be a number or a non-empty string, not {value!r}")
    if journal is None:
        return str(value)
    if not isinstance(journal, str) or not journal or ":" in journal:
        raise FloorInputError(f"journal must be a non-empty string without ':', not "
                              f"{journal!r}")
    return f"{journal}:{value}"


def epoch_wire(text: str) -> dict[str, int | str]:
    """The run's arguments of a ``cmd/replay`` to the daemon: as the envelopes named it.

    >>> epoch_wire("3"), epoch_wire("5f0c2a9e41d3b870:3"), epoch_wire("x-1")
    ({'epoch': 3}, {'journal': '5f0c2a9e41d3b870', 'epoch': 3}, {'epoch': 'x-1'})
    """
    journal, sep, epoch = text.rpartition(":")
    value: int | str = int(epoch) if epoch.isdigit() else epoch
    return {"journal": journal, "epoch": value} if sep else {"epoch": value}


def _object(raw: bytes, what: str) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FloorInputError(f"{what}: not JSON ({exc})") from None
    if not isinstance(body, dict):
        raise FloorInputError(f"{what}: not a JSON object")
    return body


def _int(body: Mapping[str, Any], key: str, what: str, low: int) -> int:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise FloorInputError(f"{what}: {key} must be an integer >= {low}, not {value!r}")
    return value


def _time(body: Mapping[str, Any], what: str) -> datetime:
    value = body.get("ts")
    try:
        stamp = datetime.fromisoformat(str(value))
    except ValueError:
        raise FloorInputError(f"{what}: ts is not an ISO time: {value!r}") from None
    if stamp.tzinfo is None:
        raise FloorInputError(f"{what}: ts has no time zone: {value!r}")
    return stamp


@dataclass(frozen=True, slots=True)
class FloorEvent:
    """One public event of one table.

    Attributes:
        table / epoch / seq: its name (unique; the floor's key for exactly once).
        type: the event type (``hand_started``, ``action``, ...).
        hand: the daemon's journal hand id, or None (also for replayed events, whose replies
            do not carry it).
        ts: when the daemon journaled it.
        data: the type's body (docs/mqtt.md §8.1).
    """

    table: str
    epoch: str
    seq: int
    type: str
    ts: datetime
    hand: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, int]:
        """``(table, epoch, seq)``."""
        return (self.table, self.epoch, self.seq)

    @property
    def stream(self) -> tuple[str, str]:
        """``(table, epoch)``: the stream whose seq this continues."""
        return (self.table, self.epoch)

    @classmethod
    def from_body(cls, body: Mapping[str, Any], *, table: str | None = None,
                  journal: str | None = None, what: str = "event") -> FloorEvent:
        """From an envelope's JSON object (``table`` and ``journal`` fill in for replayed
        events, whose reply names them once)."""
        name = body.get("table", table)
        if not isinstance(name, str) or not name:
            raise FloorInputError(f"{what}: table must be a non-empty string")
        if table is not None and name != table:
            raise FloorInputError(f"{what}: table {name!r} where {table!r} was asked")
        etype = body.get("type")
        if not isinstance(etype, str) or not etype:
            raise FloorInputError(f"{what}: type must be a non-empty string")
        hand = body.get("hand")
        if hand is not None and (isinstance(hand, bool) or not isinstance(hand, int)):
            raise FloorInputError(f"{what}: hand must be an integer or null")
        data = body.get("data", {})
        if not isinstance(data, dict):
            raise FloorInputError(f"{what}: data must be an object")
        return cls(table=name, epoch=epoch_text(body.get("epoch"),
                                                body.get("journal", journal)),
                   seq=_int(body, "seq", what, 1), type=etype, ts=_time(body, what),
                   hand=hand, data=data)

    @classmethod
    def parse(cls, raw: bytes) -> FloorEvent:
        """From an ``events`` message payload."""
        return cls.from_body(_object(raw, "event"))


@dataclass(frozen=True, slots=True)
class FloorSnapshot:
    """A table's public snapshot (``state``): its ``seq`` reveals events not seen yet."""

    table: str
    epoch: str
    seq: int
    ts: datetime
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def stream(self) -> tuple[str, str]:
        """``(table, epoch)``."""
        return (self.table, self.epoch)

    @classmethod
    def parse(cls, raw: bytes) -> FloorSnapshot:
        """From a ``state`` message payload."""
        body = _object(raw, "snapshot")
        name = body.get("table")
        if not isinstance(name, str) or not name:
            raise FloorInputError("snapshot: table must be a non-empty string")
        data = body.get("data", {})
        if not isinstance(data, dict):
            raise FloorInputError("snapshot: data must be an object")
        return cls(table=name, epoch=epoch_text(body.get("epoch"), body.get("journal")),
                   seq=_int(body, "seq", "snapshot", 0), ts=_time(body, "snapshot"),
                   data=data)


# ---- rows ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandRow:
    """A hand began (``hand_started``). ``id`` is ``table:epoch:seq`` of that event."""

    id: str
    table: str
    epoch: str
    seq: int
    journal_hand: int | None
    name: str
    number: int
    button: int | None
    seats: tuple[Mapping[str, Any], ...]
    started_at: datetime
    game: Mapping[str, Any] | None = None
    stakes: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class HandEndRow:
    """A hand ended (``hand_ended``): the result, the finishing stacks, the pot."""

    hand_id: str
    result: str
    stacks: tuple[Mapping[str, Any], ...]
    rake: int
    pot: int
    ended_at: datetime


@dataclass(frozen=True, slots=True)
class ActionRow:
    """A decision (``action``) or a forced bet (``forced_bet``, ``forced`` true)."""

    table: str
    epoch: str
    seq: int
    hand_id: str
    street: str | None
    seat: int
    kind: str
    amount: int
    to: int | None
    all_in: bool
    forced: bool


@dataclass(frozen=True, slots=True)
class UndoRow:
    """A correction took back the action recorded at ``(table, epoch, seq)``."""

    table: str
    epoch: str
    seq: int


@dataclass(frozen=True, slots=True)
class BoardRow:
    """The board after a ``board`` event (the whole board so far)."""

    table: str
    epoch: str
    seq: int
    hand_id: str
    street: str
    cards: tuple[str | None, ...]


@dataclass(frozen=True, slots=True)
class PotRow:
    """The pots after a betting round (``pot``)."""

    table: str
    epoch: str
    seq: int
    hand_id: str
    street: str
    pots: tuple[Mapping[str, Any], ...]
    total: int


@dataclass(frozen=True, slots=True)
class ShowdownRow:
    """A hand shown down: its cards, the five that play, in words."""

    table: str
    epoch: str
    seq: int
    hand_id: str
    seat: int
    cards: tuple[str, ...]
    best: tuple[str, ...]
    high: str | None
    low: str | None


@dataclass(frozen=True, slots=True)
class WinnerRow:
    """An award of (part of) a pot."""

    table: str
    epoch: str
    seq: int
    hand_id: str
    pot: int
    seat: int
    amount: int
    half: str
    description: str


@dataclass(frozen=True, slots=True)
class FlagRow:
    """A hand that qualifies for a house jackpot or high-hand prize (to be confirmed)."""

    hand_id: str
    rule: str
    kind: str
    seat: int
    detail: str


Row = (HandRow | HandEndRow | ActionRow | UndoRow | BoardRow | PotRow | ShowdownRow
       | WinnerRow | FlagRow)


@dataclass(frozen=True, slots=True)
class Gap:
    """Events of a stream the floor has not seen: ``from_seq..to_seq`` inclusive."""

    table: str
    epoch: str
    from_seq: int
    to_seq: int


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One hand as ``tablectl floor hands`` lists it."""

    id: str
    table: str
    name: str
    number: int
    game: str | None
    started_at: datetime
    ended_at: datetime | None
    result: str | None
    pot: int | None
    winners: tuple[Mapping[str, Any], ...]
    flags: tuple[str, ...] = ()
    stakes: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The hand as one JSON object (amounts in chip units, as stored; ``stakes`` says
        how many make a unit of which currency)."""
        return {"id": self.id, "table": self.table, "name": self.name, "number": self.number,
                "game": self.game, "started_at": self.started_at.isoformat(),
                "ended_at": self.ended_at.isoformat() if self.ended_at else None,
                "result": self.result, "pot": self.pot, "winners": list(self.winners),
                "flags": list(self.flags),
                "stakes": dict(self.stakes) if self.stakes is not None else None}
