"""The last hands, step by step, straight from the journal (``tablectl recall``).

A step is one journaled input (its time, who sent it, its kind and payload) with the events the
controller derived from it. The daemon applies one input at a time and journals its events right
after it, so an event belongs to the last input journaled at or before the event's own time.
A hand's steps run from the input that started it to its last input; secure events
(``holecards``) are left out unless asked for.

Reading needs nothing of the daemon: open the journal with
:func:`~tablectl.history.export.open_readonly` (it works while the daemon runs and whatever
errors are active).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from tablectl.journal import ErrorRecord, EventRecord, HandRecall, Journal, JournalRecord

SECURE_ROOT = "secure/"


@dataclass(frozen=True, slots=True)
class Step:
    """One input and what it caused."""

    input: JournalRecord
    events: tuple[EventRecord, ...]

    @property
    def what(self) -> str:
        """The command's name for a command (``start_hand``, ``action``...), else the input's
        kind (``card_read``, ``device_status``...)."""
        name = self.input.payload.get("name")
        return name if self.input.kind == "command" and isinstance(name, str) else \
            self.input.kind

    def to_json(self) -> dict[str, object]:
        """JSON-ready: ``seq, at, source, actor, kind, what, input, events``."""
        rec = self.input
        return {"seq": rec.seq, "at": rec.at.isoformat(), "source": rec.source,
                "actor": rec.actor, "kind": rec.kind, "what": self.what,
                "input": dict(rec.payload),
                "events": [{"topic": e.topic, "seq": e.seq, "type": e.type,
                            "at": e.created_at.isoformat(), "data": dict(e.payload)}
                           for e in self.events]}


@dataclass(frozen=True, slots=True)
class RecalledHand:
    """One hand's journal rows, step by step."""

    id: int
    number: int
    epoch: int
    started_at: datetime
    ended_at: datetime | None
    result: str | None
    name: str | None
    steps: tuple[Step, ...]

    def to_json(self) -> dict[str, object]:
        """JSON-ready, steps in order."""
        return {"hand": self.id, "number": self.number, "name": self.name, "epoch": self.epoch,
                "started_at": self.started_at.isoformat(),
                "ended_at": self.ended_at.isoformat() if self.ended_at else None,
                "result": self.result, "steps": [s.to_json() for s in self.steps]}


def _steps(inputs: Sequence[JournalRecord], events: Sequence[EventRecord],
           *, secure: bool) -> tuple[Step, ...]:
    inputs = sorted(inputs, key=lambda r: r.seq)
    times = [r.at for r in inputs]
    caused: list[list[EventRecord]] = [[] for _ in inputs]
    for event in events:
        if not secure and event.topic.startswith(SECURE_ROOT):
            continue
        at = bisect.bisect_right(times, event.created_at) - 1
        caused[max(at, 0)].append(event)
    return tuple(Step(r, tuple(e)) for r, e in zip(inputs, caused, strict=True))


def _start_seq(recall: HandRecall) -> int | None:
    seq = recall.hand.summary.get("input_seq")
    return seq if isinstance(seq, int) else None


def recall_hands(journal: Journal, n: int, *, hand_id: int | None = None,
                 secure: bool = False) -> list[RecalledHand]:
    """The last ``n`` hands, newest first (or only hand ``hand_id``, however old).

    Raises:
        JournalError: the journal cannot be read.
        ValueError: ``n`` < 1, or there is no hand ``hand_id``.
    """
    if n < 1:
        raise ValueError("the number of hands must be at least 1")
    if hand_id is not None:
        newest = journal.last_hands(1)
        if not newest or not 1 <= hand_id <= newest[0].hand.id:
            raise ValueError(f"no hand {hand_id} in the journal")
        n = newest[0].hand.id - hand_id + 1
    recalls = journal.last_hands(n)
    if hand_id is not None:
        recalls = [r for r in recalls if r.hand.id == hand_id]
        if not recalls:
            raise ValueError(f"no hand {hand_id} in the journal")
    starts = [s for s in (_start_seq(r) for r in recalls) if s is not None]
    by_seq: dict[int, JournalRecord] = {}
    if starts:
        wanted = set(starts)
        for rec in journal.inputs(after_seq=min(starts) - 1):
            if rec.seq in wanted:
                by_seq[rec.seq] = rec
                if len(by_seq) == len(wanted):
                    break
    out = []
    for recall in recalls:
        hand = recall.hand
        inputs = list(recall.inputs)
        start = _start_seq(recall)
        if start is not None and start in by_seq and all(r.seq != start for r in inputs):
            inputs.append(by_seq[start])
        name = hand.summary.get("hand")
        if isinstance(name, dict):
            name = name.get("id")
        result = hand.summary.get("result")
        out.append(RecalledHand(
            id=hand.id, number=hand.number, epoch=hand.epoch, started_at=hand.started_at,
            ended_at=hand.ended_at, result=result if isinstance(result, str) else None,
            name=name if isinstance(name, str) else None,
            steps=_steps(inputs, recall.events, secure=secure)))
    return out


def active_errors(journal: Journal) -> list[ErrorRecord]:
    """The error states active now (or at the daemon's last stop), oldest first."""
    return journal.active_errors()


__all__ = ["RecalledHand", "Step", "active_errors", "recall_hands"]
