"""The in-memory twin of the SQLite journal: same contract, nothing survives the process.

For demos, replays and tests of the layers above. It validates exactly as
:class:`~tablectl.journal.sqlite.SqliteJournal` does and keeps the same numbering rules.

>>> from tablectl.clock import ManualClock
>>> j = MemoryJournal(ManualClock())
>>> j.start_epoch()
1
>>> [e.seq for e in j.append_events([NewEvent("t/events", "board", {}),
...                                  NewEvent("t/events", "pot", {})])]
[1, 2]
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from typing import Self

from tablectl.clock import Clock
from tablectl.domain.errors import JournalStateError
from tablectl.domain.jsonvalue import JsonObject, freeze_json, load_json
from tablectl.journal.records import (
    ErrorRecord,
    EventRecord,
    HandRecall,
    HandRecord,
    InputRecord,
    JournalRecord,
    NewEvent,
    RefusalRecord,
    check_aware,
    check_count,
    check_mark,
    check_new_error,
    check_range,
    journal_id_text,
    new_journal_id,
)


class MemoryJournal:
    """A :class:`~tablectl.journal.records.Journal` held in lists."""

    def __init__(self, clock: Clock, *, journal_id: str | None = None) -> None:
        self._clock = clock
        self._journal_id = journal_id or journal_id_text(new_journal_id())
        self._epoch = 0
        self._marks: dict[str, int] = {}
        self._inputs: list[JournalRecord] = []
        self._events: list[EventRecord] = []
        self._hands: list[HandRecord] = []
        self._errors: list[ErrorRecord] = []
        self._refusals: list[RefusalRecord] = []
        self._closed = False
        self._in_transaction = False

    def __enter__(self) -> Self:
        """Return self."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close."""
        self.close()

    def close(self) -> None:
        """Mark closed; later calls raise :class:`JournalStateError`."""
        self._closed = True

    def _live(self) -> None:
        if self._closed:
            raise JournalStateError("journal is closed")

    def _need_epoch(self) -> int:
        self._live()
        if self._epoch == 0:
            raise JournalStateError("no epoch: call start_epoch() first")
        return self._epoch

    def _hand(self, hand_id: int | None) -> None:
        if hand_id is not None and not 1 <= hand_id <= len(self._hands):
            raise JournalStateError(f"unknown hand {hand_id}")

    @property
    def journal_id(self) -> str:
        """This journal's id (random unless given)."""
        return self._journal_id

    @property
    def epoch(self) -> int:
        """The current epoch; 0 before the first :meth:`start_epoch`."""
        return self._epoch

    def mark(self, key: str) -> int | None:
        """See :meth:`Journal.mark`."""
        self._live()
        return self._marks.get(key)

    def set_mark(self, key: str, value: int | None) -> None:
        """See :meth:`Journal.set_mark`."""
        self._live()
        check_mark(key, value)
        if value is None:
            self._marks.pop(key, None)
        else:
            self._marks[key] = value

    def start_epoch(self) -> int:
        """Increment and return the epoch."""
        self._live()
        self._epoch += 1
        return self._epoch

    def append_refusal(self, record: RefusalRecord) -> None:
        """Keep a refused command's record (see :meth:`Journal.append_refusal`)."""
        self._need_epoch()
        if not isinstance(record, RefusalRecord):
            raise JournalStateError(f"not a RefusalRecord: {record!r}")
        self._refusals.append(record)

    def refusals(self) -> list[RefusalRecord]:
        """Every refusal record, oldest first."""
        self._live()
        return list(self._refusals)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """All the block's writes or none (see :meth:`Journal.transaction`)."""
        self._live()
        if self._in_transaction:
            raise JournalStateError("journal transactions do not nest")
        saved = (self._epoch, list(self._inputs), list(self._events), list(self._hands),
                 list(self._errors), dict(self._marks))
        self._in_transaction = True
        try:
            yield
        except BaseException:
            (self._epoch, self._inputs, self._events, self._hands, self._errors,
             self._marks) = saved
            raise
        finally:
            self._in_transaction = False

    def append_input(self, record: InputRecord) -> JournalRecord:
        """Append one input (see :meth:`Journal.append_input`)."""
        epoch = self._need_epoch()
        self._hand(record.hand_id)
        stored = JournalRecord(
            seq=len(self._inputs) + 1, epoch=epoch, at=check_aware(self._clock.now()),
            source=record.source, kind=record.kind,
            payload=load_json(record.payload_json), actor=record.actor,
            hand_id=record.hand_id,
            decision=None if record.decision_json is None else load_json(record.decision_json))
        self._inputs.append(stored)
        return stored

    def inputs(self, after_seq: int = 0) -> list[JournalRecord]:
        """Inputs with ``seq > after_seq``."""
        self._live()
        return self._inputs[max(0, after_seq):]

    def input_at(self, seq: int) -> JournalRecord:
        """The input numbered ``seq`` (see :meth:`Journal.input_at`)."""
        self._live()
        if isinstance(seq, bool) or not isinstance(seq, int) or not 1 <= seq <= len(
                self._inputs):
            raise JournalStateError(f"no input {seq!r} in the journal")
        return self._inputs[seq - 1]

    def start_hand(self, number: int | None = None,
                   summary: JsonObject | None = None) -> HandRecord:
        """Open a hand (see :meth:`Journal.start_hand`)."""
        epoch = self._need_epoch()
        if self.current_hand() is not None:
            raise JournalStateError("a hand is already in progress")
        if number is None:
            number = self._hands[-1].number + 1 if self._hands else 1
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise JournalStateError("hand number must be a positive int")
        hand = HandRecord(id=len(self._hands) + 1, number=number, epoch=epoch,
                          started_at=check_aware(self._clock.now()), ended_at=None,
                          summary=freeze_json(summary or {}, "hand summary"))
        self._hands.append(hand)
        return hand

    def end_hand(self, hand_id: int, summary: JsonObject) -> HandRecord:
        """Close the open hand (see :meth:`Journal.end_hand`)."""
        self._need_epoch()
        current = self.current_hand()
        if current is None or current.id != hand_id:
            raise JournalStateError(f"hand {hand_id} is not the hand in progress")
        ended = dataclasses.replace(current, ended_at=check_aware(self._clock.now()),
                                    summary=freeze_json(summary, "hand summary"))
        self._hands[hand_id - 1] = ended
        return ended

    def current_hand(self) -> HandRecord | None:
        """The open hand, if any."""
        self._live()
        if self._hands and self._hands[-1].ended_at is None:
            return self._hands[-1]
        return None

    def inputs_of_hand(self, hand_id: int) -> list[JournalRecord]:
        """Inputs of one hand."""
        self._live()
        self._hand(hand_id)
        return [r for r in self._inputs if r.hand_id == hand_id]

    def append_events(self, events: Sequence[NewEvent]) -> list[EventRecord]:
        """Outbox events (see :meth:`Journal.append_events`)."""
        epoch = self._need_epoch()
        for event in events:
            if not isinstance(event, NewEvent):
                raise JournalStateError(f"not a NewEvent: {event!r}")
            self._hand(event.hand_id)
        now = check_aware(self._clock.now())
        next_seq: dict[str, int] = {}
        out: list[EventRecord] = []
        for event in events:
            if event.topic not in next_seq:
                next_seq[event.topic] = 1 + max(
                    (e.seq for e in self._events if e.epoch == epoch and e.topic == event.topic),
                    default=0)
            out.append(EventRecord(
                id=len(self._events) + len(out) + 1, epoch=epoch, seq=next_seq[event.topic],
                topic=event.topic, type=event.type,
                payload=load_json(event.payload_json), hand_id=event.hand_id,
                created_at=now, published_at=None))
            next_seq[event.topic] += 1
        self._events.extend(out)
        return out

    def unpublished(self) -> list[EventRecord]:
        """Events without a recorded PUBACK."""
        self._live()
        return [e for e in self._events if e.published_at is None]

    def mark_published(self, event_id: int) -> EventRecord:
        """Record a PUBACK (idempotent)."""
        self._live()
        if isinstance(event_id, bool) or not isinstance(event_id, int) or \
                not 1 <= event_id <= len(self._events):
            raise JournalStateError(f"unknown event {event_id!r}")
        event = self._events[event_id - 1]
        if event.published_at is None:
            event = dataclasses.replace(event, published_at=check_aware(self._clock.now()))
            self._events[event_id - 1] = event
        return event

    def events_range(self, topic: str, epoch: int, from_seq: int,
                     to_seq: int) -> list[EventRecord]:
        """Events of one topic and epoch within a seq range."""
        self._live()
        check_range(epoch, from_seq, to_seq)
        return [e for e in self._events
                if e.topic == topic and e.epoch == epoch and from_seq <= e.seq <= to_seq]

    def last_hands(self, n: int) -> list[HandRecall]:
        """The last ``n`` hands, newest first."""
        self._live()
        check_count(n)
        return [HandRecall(hand=h,
                           inputs=tuple(r for r in self._inputs if r.hand_id == h.id),
                           events=tuple(e for e in self._events if e.hand_id == h.id))
                for h in reversed(self._hands[-n:])]

    def raise_error(self, code: str, detail: JsonObject | None = None, *,
                    by: str | None = None, hand_id: int | None = None) -> ErrorRecord:
        """Raise an error state (see :meth:`Journal.raise_error`)."""
        epoch = self._need_epoch()
        frozen = check_new_error(code, detail, by, hand_id)
        self._hand(hand_id)
        for err in self._errors:
            if err.code == code and err.active:
                return err
        err = ErrorRecord(id=len(self._errors) + 1, code=code, detail=frozen, epoch=epoch,
                          hand_id=hand_id, raised_at=check_aware(self._clock.now()),
                          raised_by=by)
        self._errors.append(err)
        return err

    def clear_error(self, code: str, *, by: str) -> ErrorRecord:
        """Clear an active error (see :meth:`Journal.clear_error`)."""
        self._need_epoch()
        check_new_error(code, None, by, None)
        for i, err in enumerate(self._errors):
            if err.code == code and err.active:
                cleared = dataclasses.replace(err, cleared_at=check_aware(self._clock.now()),
                                              cleared_by=by)
                self._errors[i] = cleared
                return cleared
        raise JournalStateError(f"no active error {code!r}")

    def active_errors(self) -> list[ErrorRecord]:
        """Active errors, oldest first."""
        self._live()
        return [e for e in self._errors if e.active]
