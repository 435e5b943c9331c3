"""What the floor reads off the MQTT API, and the rows it writes: plain values, no I/O.

The floor treats a table's ``epoch`` as an opaque value: it is stored as text and only ever
compared for equality; ``(table, epoch, seq)`` names one event everywhere (docs/floor.md).
Payloads are decoded by :mod:`tablectl.floor.decode` (strict JSON, then a typed check of what
the floor uses; a daemon may add a field); what it refuses raises :class:`FloorInputError` and
goes to the quarantine (:class:`QuarantineRow`), nothing of it into the history.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

EVENTS_SUFFIX: Final = "/events"
STATE_SUFFIX: Final = "/state"


MAX_KEPT_PAYLOAD: Final = 16 * 1024
"""Bytes of a quarantined payload kept (its size and SHA-256 are kept whole)."""


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
    bomb: int | None = None
    boards: int = 1


@dataclass(frozen=True, slots=True)
class HandEndRow:
    """A hand ended (``hand_ended``): the result, the finishing stacks, the pot, and how many
    times its board was run (1 unless the players agreed to run it twice or three times)."""

    hand_id: str
    result: str
    stacks: tuple[Mapping[str, Any], ...]
    rake: int
    pot: int
    ended_at: datetime
    runs: int = 1


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
    """The board after a ``board`` event (the whole board so far): of run ``run`` in a hand
    run more than once (the shared cards included), of board ``board`` in a double-board
    hand; both 1 otherwise."""

    table: str
    epoch: str
    seq: int
    hand_id: str
    street: str
    cards: tuple[str | None, ...]
    run: int = 1
    board: int = 1


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
    run: int = 1
    board: int = 1


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
    run: int = 1
    board: int = 1


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
    table_name: str | None = None
    runs: int = 1
    boards: tuple[Mapping[str, Any], ...] = ()
    double_board: bool = False
    bomb: int | None = None

    @property
    def formats(self) -> tuple[str, ...]:
        """The hand's formats in words: ``run twice``, ``run three times``, ``double board``,
        ``bomb 200`` (chip units); none for a plain hand."""
        out = []
        if self.bomb is not None:
            out.append(f"bomb {self.bomb}")
        if self.double_board:
            out.append("double board")
        if self.runs > 1:
            out.append("run twice" if self.runs == 2 else f"run {self.runs} times")
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        """The hand as one JSON object (amounts in chip units, as stored; ``stakes`` says
        how many make a unit of which currency; ``table_name`` the table's name from its
        latest snapshot, the id when it has none; each winner's ``name`` the player's in the
        hand's ``hand_started``, and its ``run`` or ``board`` in a hand run more than once or
        dealt on two boards; ``boards`` the last cards of every board, each with its ``run``
        and ``board``; ``runs``, ``double_board``, ``bomb`` the hand's formats)."""
        return {"id": self.id, "table": self.table,
                "table_name": self.table_name or self.table, "name": self.name,
                "number": self.number,
                "game": self.game, "started_at": self.started_at.isoformat(),
                "ended_at": self.ended_at.isoformat() if self.ended_at else None,
                "result": self.result, "pot": self.pot, "winners": list(self.winners),
                "flags": list(self.flags),
                "stakes": dict(self.stakes) if self.stakes is not None else None,
                "boards": [dict(b) for b in self.boards], "runs": self.runs,
                "double_board": self.double_board, "bomb": self.bomb}


def named_winners(winners: Iterable[Mapping[str, Any]], seats: Iterable[Mapping[str, Any]]
                  ) -> tuple[dict[str, Any], ...]:
    """Each winner with ``name``: the player's in the hand's seats (``hand_started``), None
    when the seat had none.

    >>> named_winners([{"seat": 5, "amount": 300}], [{"seat": 5, "name": "Ada", "stack": 1}])
    ({'seat': 5, 'amount': 300, 'name': 'Ada'},)
    """
    names = {s.get("seat"): s.get("name") for s in seats if isinstance(s, Mapping)}
    return tuple({**w, "name": names.get(w.get("seat")) or None} for w in winners)


@dataclass(frozen=True, slots=True)
class QuarantineRow:
    """A message the floor could not decode or store, kept for a person to look at.

    Attributes:
        received_at: when the worker set it aside.
        topic: where it came (control characters escaped).
        table: the table of the topic, or None (a reply, or a topic that names none).
        reason: why, in words (what and where).
        payload: its first :data:`MAX_KEPT_PAYLOAD` bytes, as they came (bytes: a payload
            that is not UTF-8 or holds a NUL is kept too).
        size: its whole size in bytes.
        digest: the SHA-256 of the whole payload, hex (the same message twice is one row).
        count: how many times it came (a listing's figure; 1 when set aside).
        last_at: when it came last (a listing's figure).
    """

    received_at: datetime
    topic: str
    table: str | None
    reason: str
    payload: bytes
    size: int
    digest: str
    count: int = 1
    last_at: datetime | None = None

    @classmethod
    def of(cls, *, topic: str, table: str | None, reason: str, raw: bytes,
           received_at: datetime) -> QuarantineRow:
        """The row of ``raw`` (texts made safe for a PostgreSQL text column and a terminal).

        >>> from datetime import UTC
        >>> row = QuarantineRow.of(topic="a/\\x00b", table=None, reason="bad\\nthing",
        ...                        raw=b"\\x00" * 20000, received_at=datetime.now(UTC))
        >>> row.topic, row.reason, row.size, len(row.payload), row.digest[:8]
        ('a/\\\\x00b', 'bad\\\\nthing', 20000, 16384, '28b4f41a')
        """
        return cls(received_at=received_at, topic=safe_text(topic, 1024),
                   table=table, reason=safe_text(reason, 1024),
                   payload=bytes(raw[:MAX_KEPT_PAYLOAD]), size=len(raw),
                   digest=hashlib.sha256(raw).hexdigest())

    def to_json(self) -> dict[str, Any]:
        """As ``tablectl floor quarantine --json`` prints it (the payload as text, invalid
        UTF-8 and control characters escaped)."""
        return {"received_at": self.received_at.isoformat(),
                "last_at": self.last_at.isoformat() if self.last_at else None,
                "count": self.count, "topic": self.topic, "table": self.table,
                "reason": self.reason, "size": self.size, "sha256": self.digest,
                "payload": safe_text(self.payload.decode("utf-8", "backslashreplace"),
                                     MAX_KEPT_PAYLOAD * 4),
                "truncated": self.size > len(self.payload)}


def safe_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, its control characters and lone surrogates
    escaped (``\\x00``), so that PostgreSQL text, a log line and a terminal take it.

    >>> safe_text("a\\x00b\\nc\\ud800", 100)
    'a\\\\x00b\\\\nc\\\\ud800'
    """
    out = []
    for ch in text[:limit]:
        code = ord(ch)
        if code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0 or 0xD800 <= code < 0xE000:
            out.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii")
                       if code < 0xD800 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)
