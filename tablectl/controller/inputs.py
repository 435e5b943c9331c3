"""What the hand controller takes in: card reads, dealer commands, device status changes.

Every input is a frozen value carrying the time it happened (``at``, aware): the controller
never reads a clock. Inputs are journaled before they are applied and replayed after a crash,
so each has a JSON codec that round-trips exactly: :func:`input_to_json` and
:func:`input_from_json` (or the ``to_json`` / ``from_json`` methods of each class).

>>> from datetime import UTC, datetime
>>> read = CardRead(source="shoe", uid="04A1B2", antenna=0, read_id="r1",
...                 at=datetime(2026, 11, 29, 18, 0, tzinfo=UTC))
>>> input_to_json(read)["type"]
'card_read'
>>> input_from_json(input_to_json(read)) == read
True
>>> Location.parse("seat 3 slot 2")
Location(kind=<LocationKind.SEAT: 'seat'>, seat=3, slot=2, index=None)
>>> str(Location.parse("Board 4"))
'board 4'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import ClassVar, Final, Self, TypeAlias

from tablectl.controller.errors import CodecError
from tablectl.controller.fields import Fields
from tablectl.controller.setup_json import ConfigChange
from tablectl.domain.cards import Card, CardParseError
from tablectl.domain.jsonvalue import JsonObject, JsonValue, freeze_json


class ReadStatus(StrEnum):
    """How sure a source is of a read."""

    ACCEPTED = "accepted"
    NEEDS_CONFIRMATION = "needs_confirmation"
    """A doubtful read (a camera below its confidence gate): held until the dealer decides."""


class LocationKind(StrEnum):
    """Roles of a table antenna (from the table's calibration map)."""

    SEAT = "seat"
    BOARD = "board"
    MUCK = "muck"
    BURN = "burn"


_LOCATION_RE: Final = re.compile(
    r"^\s*(?:(seat)\s+(\d+)(?:\s+slot\s+(\d+))?|(board)\s+(\d+)|(muck)|(burn))\s*$",
    re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Location:
    """Where a table antenna lies: ``seat N [slot K]``, ``board N`` (1-based), ``muck``, ``burn``.

    Attributes:
        kind: the role.
        seat: seat number for ``SEAT``.
        slot: the card slot of a seat antenna (1-based), if the map names one.
        index: board position for ``BOARD``, 1-based as written on the table (``board 1`` is the
            first flop card).
    """

    kind: LocationKind
    seat: int | None = None
    slot: int | None = None
    index: int | None = None

    def __post_init__(self) -> None:
        ok = {
            LocationKind.SEAT: self.seat is not None and self.seat >= 1 and self.index is None
            and (self.slot is None or self.slot >= 1),
            LocationKind.BOARD: self.index is not None and self.index >= 1
            and self.seat is None and self.slot is None,
        }.get(self.kind, self.seat is None and self.slot is None and self.index is None)
        if not ok:
            raise ValueError(f"not a valid {self.kind.value} location: {self!r}")

    @classmethod
    def parse(cls, text: str) -> Location:
        """Parse a calibration-map role (case-insensitive).

        Raises:
            ValueError: not one of the four role shapes.
        """
        m = _LOCATION_RE.match(text)
        if not m:
            raise ValueError(f"not an antenna role: {text!r} (expected 'seat N', 'seat N slot "
                             "K', 'board N', 'muck' or 'burn')")
        if m.group(1):
            return cls(LocationKind.SEAT, seat=int(m.group(2)),
                       slot=int(m.group(3)) if m.group(3) else None)
        if m.group(4):
            return cls(LocationKind.BOARD, index=int(m.group(5)))
        return cls(LocationKind.MUCK if m.group(6) else LocationKind.BURN)

    def __str__(self) -> str:
        if self.kind is LocationKind.SEAT:
            return f"seat {self.seat}" + (f" slot {self.slot}" if self.slot else "")
        if self.kind is LocationKind.BOARD:
            return f"board {self.index}"
        return self.kind.value


# --- small codec helpers ---------------------------------------------------------------------


def _time(value: datetime) -> str:
    return value.isoformat()


def _check_at(at: datetime, what: str) -> None:
    if not isinstance(at, datetime) or at.tzinfo is None or at.utcoffset() is None:
        raise ValueError(f"{what} must be an aware datetime")


class _CodecErrors:
    """How a journaled input's field is wrong."""

    @staticmethod
    def missing(key: str) -> Exception:
        return CodecError(f"missing field {key!r}")

    @staticmethod
    def wrong_type(key: str, kind: type) -> Exception:
        return CodecError(f"field {key!r} has the wrong type")


_ERRORS: Final = _CodecErrors()


def _fields(data: Mapping[str, object]) -> Fields:
    return Fields(data, _ERRORS)


def _parse_time(data: Fields, key: str) -> datetime:
    value = _parse_opt_time(data, key, optional=False)
    assert value is not None
    return value


def _parse_opt_time(data: Fields, key: str, *, optional: bool = True) -> datetime | None:
    raw = data.opt_text(key) if optional else data.text(key)
    if raw is None:
        return None
    try:
        value = datetime.fromisoformat(raw)
    except ValueError as exc:
        raise CodecError(f"field {key!r} is not an ISO time: {raw!r}") from exc
    if value.tzinfo is None:
        raise CodecError(f"field {key!r} is not an aware time: {raw!r}")
    return value


def _check_type(data: Mapping[str, object], expected: str) -> None:
    if not isinstance(data, Mapping):
        raise CodecError(f"a {expected} must be a JSON object")
    if data.get("type") != expected:
        raise CodecError(f"not a {expected}: type {data.get('type')!r}")


# --- inputs ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardRead:
    """A card seen by a source.

    Exactly one of ``uid`` (RFID: the tag, mapped to a card through the registered decks) and
    ``card`` (a camera that reads the face) is given.

    Attributes:
        source: the source's name (``"shoe"``, ``"table"``, ``"camera"``).
        uid: the tag UID as the reader reported it (any case, separators allowed).
        antenna: the reader's antenna number (0 for a one-antenna shoe).
        location: the antenna's role from the calibration map; None for a shoe (reads arrive
            in dealing order and the controller assigns them).
        read_id: unique per read (the dealer names it in confirm_read / reject_read).
        status: ``NEEDS_CONFIRMATION`` holds the read until the dealer confirms or rejects it.
        confidence: 0..1 (1.0 for RFID).
        at: when the read happened.
        card: the card, for sources that read faces instead of tags.
    """

    type: ClassVar[str] = "card_read"
    source: str
    uid: str | None
    antenna: int
    read_id: str
    at: datetime
    location: Location | None = None
    status: ReadStatus = ReadStatus.ACCEPTED
    confidence: float = 1.0
    card: Card | None = None

    def __post_init__(self) -> None:
        if (self.uid is None) == (self.card is None):
            raise ValueError("a card read carries exactly one of uid and card")
        if not self.source or not self.read_id:
            raise ValueError("a card read needs a source and a read_id")
        if not (math.isfinite(self.confidence) and 0.0 <= self.confidence <= 1.0):
            raise ValueError(f"confidence must be within 0..1: {self.confidence}")
        _check_at(self.at, "CardRead.at")

    def to_json(self) -> dict[str, JsonValue]:
        """The journal payload (``type`` first)."""
        return {"type": self.type, "source": self.source, "uid": self.uid,
                "card": str(self.card) if self.card else None, "antenna": self.antenna,
                "location": str(self.location) if self.location else None,
                "read_id": self.read_id, "status": self.status.value,
                "confidence": self.confidence, "at": _time(self.at)}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Self:
        """Inverse of :meth:`to_json`.

        Raises:
            CodecError: not a card read payload.
        """
        _check_type(data, cls.type)
        f = _fields(data)
        loc = f.opt_text("location")
        card = f.opt_text("card")
        antenna = f.integer("antenna")
        confidence = f.number("confidence")
        try:
            return cls(source=f.text("source"), uid=f.opt_text("uid"),
                       antenna=antenna, read_id=f.text("read_id"),
                       at=_parse_time(f, "at"),
                       location=Location.parse(loc) if loc is not None else None,
                       status=ReadStatus(f.text("status")),
                       confidence=confidence,
                       card=Card.parse(card) if card is not None else None)
        except (ValueError, CardParseError) as exc:
            if isinstance(exc, CodecError):
                raise
            raise CodecError(f"bad card_read: {exc}") from exc


@dataclass(frozen=True, slots=True)
class TagLeft:
    """A tag left an antenna (a table antenna stops seeing a card). Informational."""

    type: ClassVar[str] = "tag_gone"
    source: str
    uid: str
    antenna: int
    at: datetime
    location: Location | None = None

    def __post_init__(self) -> None:
        _check_at(self.at, "TagLeft.at")

    def to_json(self) -> dict[str, JsonValue]:
        """The journal payload."""
        return {"type": self.type, "source": self.source, "uid": self.uid,
                "antenna": self.antenna,
                "location": str(self.location) if self.location else None,
                "at": _time(self.at)}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Self:
        """Inverse of :meth:`to_json` (raises CodecError)."""
        _check_type(data, cls.type)
        f = _fields(data)
        loc = f.opt_text("location")
        antenna = f.integer("antenna")
        try:
            return cls(source=f.text("source"), uid=f.text("uid"), antenna=antenna,
                       at=_parse_time(f, "at"),
                       location=Location.parse(loc) if loc is not None else None)
        except ValueError as exc:
            if isinstance(exc, CodecError):
                raise
            raise CodecError(f"bad tag_gone: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Command:
    """A dealer command (docs/mqtt.md §8.4).

    Attributes:
        name: the command (``start_hand``, ``action``, ...); the last-but-one topic level.
        args: its arguments, a JSON object (validated by the controller, not here).
        user: the sender's MQTT username, taken from the command topic (the broker ACL pins
            it), never from the payload.
        id: the sender's unique id; a repeated id gets the first reply and applies nothing.
        at: when the controller received it.
        sent_at: the sender's time stamp (``ts`` in the payload), if any; commands older than
            the table's ``max_command_age`` relative to ``at`` are refused.
    """

    type: ClassVar[str] = "command"
    name: str
    user: str
    id: str
    at: datetime
    args: JsonObject = field(default_factory=dict)
    sent_at: datetime | None = None

    def __post_init__(self) -> None:
        if not self.name or not self.user or not self.id:
            raise ValueError("a command needs a name, a user and an id")
        _check_at(self.at, "Command.at")
        if self.sent_at is not None:
            _check_at(self.sent_at, "Command.sent_at")
        object.__setattr__(self, "args", freeze_json(self.args, "command args"))

    def to_json(self) -> dict[str, JsonValue]:
        """The journal payload."""
        return {"type": self.type, "name": self.name, "user": self.user, "id": self.id,
                "args": dict(self.args), "at": _time(self.at),
                "sent_at": _time(self.sent_at) if self.sent_at else None}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Self:
        """Inverse of :meth:`to_json` (raises CodecError)."""
        _check_type(data, cls.type)
        f = _fields(data)
        args = f.get("args", Mapping)
        assert isinstance(args, Mapping)  # a JSON object: its values are JSON
        try:
            return cls(name=f.text("name"), user=f.text("user"), id=f.text("id"),
                       at=_parse_time(f, "at"),
                       args=args, sent_at=_parse_opt_time(f, "sent_at"))
        except ValueError as exc:
            if isinstance(exc, CodecError):
                raise
            raise CodecError(f"bad command: {exc}") from exc


@dataclass(frozen=True, slots=True)
class DeviceStatus:
    """A source came online or went offline (``kind`` labels it on displays: ``rfid-shoe``);
    ``problem`` says why a device that answers cannot be used (offline with a problem: a
    reader of another protocol version, shown ``incompatible``)."""

    type: ClassVar[str] = "device_status"
    source: str
    online: bool
    at: datetime
    kind: str = ""
    problem: str = ""

    def __post_init__(self) -> None:
        if not self.source:
            raise ValueError("a device status needs a source name")
        _check_at(self.at, "DeviceStatus.at")

    def to_json(self) -> dict[str, JsonValue]:
        """The journal payload."""
        out: dict[str, JsonValue] = {"type": self.type, "source": self.source,
                                     "online": self.online, "kind": self.kind,
                                     "at": _time(self.at)}
        if self.problem:
            out["problem"] = self.problem
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Self:
        """Inverse of :meth:`to_json` (raises CodecError)."""
        _check_type(data, cls.type)
        f = _fields(data)
        online = f.boolean("online")
        try:
            return cls(source=f.text("source"), online=online, kind=f.text("kind"),
                       at=_parse_time(f, "at"), problem=f.opt_text("problem") or "")
        except ValueError as exc:
            if isinstance(exc, CodecError):
                raise
            raise CodecError(f"bad device_status: {exc}") from exc


@dataclass(frozen=True, slots=True)
class ReadMissed:
    """A source knows a card passed without a read: a shoe's MISREAD, a jump in its draw
    index, reads lost in a reader's power cut. The hand must wait for the dealer."""

    type: ClassVar[str] = "read_missed"
    source: str
    antenna: int
    reason: str
    at: datetime

    def __post_init__(self) -> None:
        if not self.source:
            raise ValueError("a missed read needs a source name")
        _check_at(self.at, "ReadMissed.at")

    def to_json(self) -> dict[str, JsonValue]:
        """The journal payload."""
        return {"type": self.type, "source": self.source, "antenna": self.antenna,
                "reason": self.reason, "at": _time(self.at)}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Self:
        """Inverse of :meth:`to_json` (raises CodecError)."""
        _check_type(data, cls.type)
        f = _fields(data)
        antenna = f.integer("antenna")
        try:
            return cls(source=f.text("source"), antenna=antenna,
                       reason=f.text("reason"),
                       at=_parse_time(f, "at"))
        except ValueError as exc:
            if isinstance(exc, CodecError):
                raise
            raise CodecError(f"bad read_missed: {exc}") from exc


ControllerInput: TypeAlias = (CardRead | TagLeft | Command | DeviceStatus | ReadMissed
                              | ConfigChange)
"""Everything :meth:`HandController.handle` takes."""

_CLASSES: Final[Mapping[str, type[CardRead] | type[TagLeft] | type[Command]
                        | type[DeviceStatus] | type[ReadMissed] | type[ConfigChange]]] = {
    c.type: c for c in (CardRead, TagLeft, Command, DeviceStatus, ReadMissed, ConfigChange)}

INPUT_KINDS: Final = tuple(_CLASSES)
"""The ``type`` values of the inputs (what the app journals as ``InputRecord.kind``)."""


def input_to_json(inp: ControllerInput) -> dict[str, JsonValue]:
    """The JSON object to journal for ``inp`` (its ``type`` names the class)."""
    return inp.to_json()


def input_from_json(data: Mapping[str, object]) -> ControllerInput:
    """Rebuild a journaled input.

    Raises:
        CodecError: unknown ``type`` or a malformed payload.
    """
    if not isinstance(data, Mapping):
        raise CodecError("an input must be a JSON object")
    kind = data.get("type")
    cls = _CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise CodecError(f"unknown input type {kind!r}")
    return cls.from_json(data)
