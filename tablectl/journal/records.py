"""Journal values, errors and the :class:`Journal` seam.

Everything the journal stores is one of the frozen values below. Payloads are JSON objects
(``Mapping[str, JsonValue]``): the journal is generic over what the controller puts in them and
never interprets them. Sequence numbers:

* ``JournalRecord.seq`` numbers *inputs* journal-wide from 1, never reset, never reused, so
  replaying ``inputs(after_seq=...)`` in order reproduces the daemon's history.
* ``EventRecord.seq`` numbers derived *events* per ``(epoch, topic)`` from 1, +1 per event,
  contiguous: a display sees a gap exactly when it missed an event. ``EventRecord.id`` is the
  outbox row, unique journal-wide, used to mark an event published.
* ``epoch`` increments at every daemon start (:meth:`Journal.start_epoch`) and is persisted.
  It orders the runs of one journal only: two journals both start at 1. ``journal_id``, a
  random id given to a journal when it is created, tells journals apart, so
  ``(journal_id, epoch)`` names one run of one journal, unique across journals and machines.

>>> rec = InputRecord(source="shoe", kind="card_read", payload={"uid": "04a1", "antenna": 0})
>>> rec.hand_id is None
True
>>> InputRecord(source="", kind="x", payload={})
Traceback (most recent call last):
...
tablectl.domain.errors.JournalStateError: input source must be a non-empty string
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, Protocol, Self

from tablectl.domain.errors import JournalError, JournalStateError
from tablectl.domain.jsonvalue import JsonObject, dump_json, freeze_json


class JournalWriteError(JournalError, OSError):
    """The journal could not durably write (disk full, read-only file, I/O error).

    Nothing of the failed operation is stored; the caller must not treat the input or event as
    accepted.

    Attributes:
        operation: what was being written, e.g. ``"append_input"``.
        path: the database file.
        reason: the underlying SQLite or OS message.
    """

    def __init__(self, operation: str, path: str, reason: str) -> None:
        self.operation = operation
        self.path = path
        self.reason = reason
        super().__init__(f"journal {path}: {operation} failed: {reason}")


def _check_name(value: object, what: str) -> None:
    if not isinstance(value, str) or not value or value != value.strip():
        raise JournalStateError(f"{what} must be a non-empty string")


def _check_id(value: object, what: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise JournalStateError(f"{what} must be a positive int or None")


def check_aware(at: datetime) -> datetime:
    """Refuse naive datetimes: every stored time is aware UTC."""
    if at.tzinfo is None or at.utcoffset() is None:
        raise JournalStateError("journal times must be timezone-aware")
    return at


@dataclass(frozen=True, slots=True)
class InputRecord:
    """One input to append: a card read, a dealer command, a correction, a device event.

    Attributes:
        source: where it came from (``"shoe"``, ``"console"``, ``"keypad"``, ``"system"``, ...).
        kind: what it is (``"card_read"``, ``"undo"``, ...); the controller's vocabulary.
        payload: the input as a JSON object.
        actor: who issued it (MQTT username, dealer id), None for devices.
        hand_id: the journal's hand it belongs to (:attr:`HandRecord.id`), None between hands.
        decision: what was decided about it when it came (a JSON object, the controller's
            vocabulary: applied, or refused with a code), so that a replay reproduces it
            instead of deciding again; None for inputs journaled before decisions were.
    """

    source: str
    kind: str
    payload: JsonObject
    actor: str | None = None
    hand_id: int | None = None
    decision: JsonObject | None = None
    payload_json: str = field(init=False, repr=False, compare=False)
    """The payload as the journal stores it (:func:`dump_json`), made once by the check."""
    decision_json: str | None = field(init=False, repr=False, compare=False)
    """The decision as the journal stores it, None when there is none."""

    def __post_init__(self) -> None:
        _check_name(self.source, "input source")
        _check_name(self.kind, "input kind")
        if self.actor is not None:
            _check_name(self.actor, "input actor")
        _check_id(self.hand_id, "input hand_id")
        object.__setattr__(self, "payload_json", dump_json(self.payload, "input payload"))
        object.__setattr__(self, "decision_json", None if self.decision is None
                           else dump_json(self.decision, "input decision"))


@dataclass(frozen=True, slots=True)
class JournalRecord:
    """A stored input: what :class:`InputRecord` became, with its place in the journal.

    Attributes:
        seq: journal-wide input number, from 1, never reset.
        epoch: the daemon run that received it.
        at: when it was journaled (aware UTC, from the injected clock).
    """

    seq: int
    epoch: int
    at: datetime
    source: str
    kind: str
    payload: JsonObject
    actor: str | None
    hand_id: int | None
    decision: JsonObject | None = None


@dataclass(frozen=True, slots=True)
class NewEvent:
    """A derived event to put in the outbox, before it has a sequence number.

    Attributes:
        topic: the MQTT topic it goes to (a string: the journal does not import the publish
            layer). Sequence numbers are per ``(epoch, topic)``.
        type: the event type (``"board"``, ``"winner"``, ...).
        payload: the event's data as a JSON object (the envelope is added when publishing).
        hand_id: the journal's hand it belongs to, None between hands.
    """

    topic: str
    type: str
    payload: JsonObject
    hand_id: int | None = None
    payload_json: str = field(init=False, repr=False, compare=False)
    """The payload as the journal stores it (:func:`dump_json`), made once by the check."""

    def __post_init__(self) -> None:
        _check_name(self.topic, "event topic")
        _check_name(self.type, "event type")
        _check_id(self.hand_id, "event hand_id")
        object.__setattr__(self, "payload_json", dump_json(self.payload, "event payload"))


@dataclass(frozen=True, slots=True)
class EventRecord:
    """A derived event in the outbox.

    Attributes:
        id: outbox row, journal-wide, from 1 (the key of :meth:`Journal.mark_published`).
        epoch: the daemon run that derived it.
        seq: contiguous per ``(epoch, topic)`` from 1.
        created_at: when it was journaled.
        published_at: when its PUBACK came back, None while unpublished.
    """

    id: int
    epoch: int
    seq: int
    topic: str
    type: str
    payload: JsonObject
    hand_id: int | None
    created_at: datetime
    published_at: datetime | None


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand as the journal knows it.

    Attributes:
        id: journal-wide hand id from 1 (what inputs and events refer to).
        number: the table's hand number (shown to people; normally id-like but settable).
        epoch: the daemon run that started it.
        ended_at: None while the hand is in progress.
        summary: JSON object written at start and replaced at end (result, pots, winners...).
    """

    id: int
    number: int
    epoch: int
    started_at: datetime
    ended_at: datetime | None
    summary: JsonObject


@dataclass(frozen=True, slots=True)
class HandRecall:
    """Everything journaled for one hand, in order: what recall shows step by step."""

    hand: HandRecord
    inputs: tuple[JournalRecord, ...]
    events: tuple[EventRecord, ...]


@dataclass(frozen=True, slots=True)
class ErrorRecord:
    """An error state: raised, and perhaps cleared (with who cleared it and when).

    Attributes:
        id: journal-wide error id.
        code: the error's stable code (``"reader_link_lost"``...); at most one active per code.
        detail: JSON object with the particulars.
        epoch: the daemon run that raised it.
        hand_id: the hand during which it was raised, if any.
        raised_by: who raised it (None: the daemon itself).
        cleared_at / cleared_by: None while active.
    """

    id: int
    code: str
    detail: JsonObject
    epoch: int
    hand_id: int | None
    raised_at: datetime
    raised_by: str | None
    cleared_at: datetime | None = field(default=None)
    cleared_by: str | None = field(default=None)

    @property
    def active(self) -> bool:
        """True until cleared."""
        return self.cleared_at is None


MAX_REFUSAL_TEXT: Final = 160
"""The longest topic or reason a refusal record keeps (characters)."""


@dataclass(frozen=True, slots=True)
class RefusalRecord:
    """A command refused before it reached the controller: what is kept of it instead of its
    payload (a few hundred bytes however large the payload was).

    Attributes:
        at: when it was refused (for an aggregate: when the aggregate was written).
        user: the sender named by the topic, None when the topic names none.
        topic: the topic it came on (cut to :data:`MAX_REFUSAL_TEXT` characters).
        size: the payload's size in bytes (for an aggregate: of all its refusals).
        digest: SHA-256 of the payload (None for an aggregate).
        code: the refusal's code (``bad_request``, ``not_authorised``, ``rate_limited``...).
        reason: why, in one bounded sentence.
        count: how many refusals the record stands for (1, or an aggregate's count).
    """

    at: datetime
    user: str | None
    topic: str
    size: int
    digest: bytes | None
    code: str
    reason: str
    count: int = 1

    def __post_init__(self) -> None:
        check_aware(self.at)
        _check_name(self.code, "refusal code")
        if self.user is not None:
            _check_name(self.user, "refusal user")
        if len(self.topic) > MAX_REFUSAL_TEXT or len(self.reason) > MAX_REFUSAL_TEXT:
            raise JournalStateError("refusal topic and reason are bounded")
        if self.digest is not None and len(self.digest) != 32:
            raise JournalStateError("a refusal digest is a SHA-256")
        for name, value in (("size", self.size), ("count", self.count)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise JournalStateError(f"refusal {name} must be a non-negative int")


def check_new_error(code: str, detail: JsonObject | None, by: str | None,
                    hand_id: int | None) -> JsonObject:
    """Validate :meth:`Journal.raise_error` arguments; return the frozen detail."""
    _check_name(code, "error code")
    if by is not None:
        _check_name(by, "error raised_by")
    _check_id(hand_id, "error hand_id")
    return freeze_json(detail or {}, "error detail")


def check_range(epoch: int, from_seq: int, to_seq: int) -> None:
    """Validate an :meth:`Journal.events_range` request."""
    for name, value in (("epoch", epoch), ("from_seq", from_seq), ("to_seq", to_seq)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise JournalStateError(f"{name} must be a non-negative int")
    if to_seq < from_seq:
        raise JournalStateError(f"empty range {from_seq}..{to_seq}")


def check_count(n: int) -> None:
    """Validate a :meth:`Journal.last_hands` count."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise JournalStateError("hand count must be a positive int")


JOURNAL_ID_BITS: Final = 63
"""A journal id is this many random bits (it fits SQLite's signed 64-bit integer)."""


def check_mark(key: str, value: int | None) -> None:
    """A mark's key is a short name and its value a 64-bit whole number (or None).

    Raises:
        JournalStateError: otherwise.
    """
    if not isinstance(key, str) or not 0 < len(key) <= 64 or not key.isprintable():
        raise JournalStateError(f"not a mark name: {key!r:.80}")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or not -2**63 <= value < 2**63):
        raise JournalStateError(f"mark {key}: not a 64-bit whole number: {value!r:.80}")


def new_journal_id() -> int:
    """The random number a new journal is named by (never 0)."""
    return secrets.randbits(JOURNAL_ID_BITS) or 1


def journal_id_text(value: int) -> str:
    """A journal id as it is shown and published: 16 lowercase hex digits.

    >>> journal_id_text(0x2A)
    '000000000000002a'
    """
    return f"{value:016x}"


class Journal(Protocol):
    """The append-only journal: inputs, the event outbox, hands, error states, epochs.

    Every mutating call is atomic: it either returns (and, for :class:`SqliteJournal`, the data is
    durable on disk) or raises and changes nothing. Writes raise :class:`JournalWriteError` when
    the storage fails and :class:`JournalStateError` for a request the journal refuses.
    """

    @property
    def journal_id(self) -> str:
        """This journal's id (:func:`journal_id_text`), given when it was created and never
        changed: a fresh journal on the same table has another one."""
        ...

    @property
    def epoch(self) -> int:
        """The current epoch; 0 until :meth:`start_epoch` is first called."""
        ...

    def mark(self, key: str) -> int | None:
        """A small whole number the daemon keeps across restarts under ``key`` (None: never
        set, or cleared), e.g. the hand-for-hand round the table played last."""
        ...

    def set_mark(self, key: str, value: int | None) -> None:
        """Keep ``value`` under ``key`` (None: clear it); inside :meth:`transaction`, with the
        block's other writes or not at all."""
        ...

    def start_epoch(self) -> int:
        """Begin a new daemon run: persist and return epoch + 1."""
        ...

    def append_input(self, record: InputRecord) -> JournalRecord:
        """Append one input; durable when this returns (or when the transaction it is part
        of commits). Needs an epoch."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """Group the writes of a ``with`` block into one atomic, durable commit.

        The writes inside commit together when the block ends (one fsync for all of them),
        or none of them does: when the block raises, or any write in it failed (even one
        whose error the block caught), everything is rolled back and the block ends with
        the exception (a storage failure as :class:`JournalWriteError`). Does not nest.
        The daemon journals an input and everything it caused in one transaction.
        """
        ...

    def inputs(self, after_seq: int = 0) -> list[JournalRecord]:
        """All inputs with ``seq > after_seq``, in order."""
        ...

    def input_at(self, seq: int) -> JournalRecord:
        """The input numbered ``seq`` (refused when there is none)."""
        ...

    def start_hand(self, number: int | None = None,
                   summary: JsonObject | None = None) -> HandRecord:
        """Open a hand (number defaults to the previous number + 1); refused while one is open."""
        ...

    def end_hand(self, hand_id: int, summary: JsonObject) -> HandRecord:
        """Close the open hand ``hand_id`` with its final summary."""
        ...

    def current_hand(self) -> HandRecord | None:
        """The hand in progress (to rebuild by replaying its inputs), or None."""
        ...

    def inputs_of_hand(self, hand_id: int) -> list[JournalRecord]:
        """The inputs of one hand in order (refused for an unknown hand)."""
        ...

    def append_events(self, events: Sequence[NewEvent]) -> list[EventRecord]:
        """Put derived events in the outbox, all or none, numbering each per (epoch, topic)."""
        ...

    def unpublished(self) -> list[EventRecord]:
        """Events whose PUBACK has not been recorded, in outbox order (all epochs)."""
        ...

    def mark_published(self, event_id: int) -> EventRecord:
        """Record the PUBACK of an outbox event (idempotent: the first time is kept)."""
        ...

    def events_range(self, topic: str, epoch: int, from_seq: int,
                     to_seq: int) -> list[EventRecord]:
        """Events of ``topic`` in ``epoch`` with ``from_seq <= seq <= to_seq`` (audit replay)."""
        ...

    def last_hands(self, n: int) -> list[HandRecall]:
        """The last ``n`` hands (the open one included), newest first, with inputs and events."""
        ...

    def raise_error(self, code: str, detail: JsonObject | None = None, *,
                    by: str | None = None, hand_id: int | None = None) -> ErrorRecord:
        """Raise an error state; if ``code`` is already active, return that one unchanged."""
        ...

    def clear_error(self, code: str, *, by: str) -> ErrorRecord:
        """Clear the active error ``code``, recording who cleared it and when."""
        ...

    def active_errors(self) -> list[ErrorRecord]:
        """Errors raised and not cleared (they survive restarts), oldest first."""
        ...

    def append_refusal(self, record: RefusalRecord) -> None:
        """Keep a bounded record of a command refused before the controller (not an input:
        a replay never sees it). Written without an fsync of its own: the next input's
        commit makes it durable, a process kill cannot lose it (a power cut can)."""
        ...

    def refusals(self) -> list[RefusalRecord]:
        """Every refusal record, oldest first."""
        ...

    def close(self) -> None:
        """Release the storage; the journal must not be used afterwards."""
        ...

    def __enter__(self) -> Self:
        """Use as a context manager that closes on exit."""
        ...

    def __exit__(self, *exc: object) -> None:
        """Close."""
        ...
