"""The journal's hand rows as the daemon keeps them: which hand row is open, the ``config``
input it was started under, and the outbox rows of an outcome.

A hand row opens where the controller starts a hand (its summary holds the checkpoint the
replay starts from) and closes where the hand ends (the end summary keeps the checkpoint).
"""

from __future__ import annotations

from tablectl.controller.outcome import Outcome
from tablectl.domain.jsonvalue import JsonValue
from tablectl.journal import HandRecord, Journal, NewEvent


class HandRows:
    """The open hand row (``current``) and the seq of the last ``config`` input journaled
    (``config_seq``, 0: none yet) of one table's journal."""

    def __init__(self, journal: Journal, events_topic: str, secure_topic: str) -> None:
        self.journal = journal
        self.events_topic = events_topic
        self.secure_topic = secure_topic
        self.current: HandRecord | None = None
        self.config_seq = 0

    @property
    def hand_id(self) -> int | None:
        """The open hand row's id, None between hands."""
        return self.current.id if self.current is not None else None

    def new_events(self, outcome: Outcome, hand_id: int | None) -> list[NewEvent]:
        """The outbox rows of ``outcome``: public events, then secure ones."""
        events = [NewEvent(self.events_topic, e.type, dict(e.data), hand_id)
                  for e in outcome.events]
        events += [NewEvent(self.secure_topic, e.type, dict(e.data), hand_id)
                   for e in outcome.secure_events]
        return events

    def track(self, outcome: Outcome, input_seq: int, *, replaying: bool) -> None:
        """Open or close the hand row ``outcome`` starts or ends (input ``input_seq``)."""
        started = outcome.hand_started
        if started is not None:
            known = self.current is not None and self.current.number == started.number
            if not known:
                summary: dict[str, JsonValue] = {
                    "hand": started.hand_id, "checkpoint": started.checkpoint.to_json(),
                    "input_seq": input_seq, "config_seq": self.config_seq}
                if replaying:
                    # the crash came between journaling the input and opening its hand row
                    last = self.journal.last_hands(1)
                    if last and last[0].hand.number == started.number:
                        self.current = last[0].hand
                        known = True
                if not known:
                    self.current = self.journal.start_hand(started.number, summary)
        ended = outcome.hand_ended
        if ended is not None and self.current is not None:
            start_summary = dict(self.current.summary)
            end_summary: dict[str, JsonValue] = {
                **ended.summary, "checkpoint": start_summary.get("checkpoint"),
                "input_seq": start_summary.get("input_seq"),
                "config_seq": start_summary.get("config_seq")}
            current = self.journal.current_hand()
            if current is not None and current.id == self.current.id:
                self.journal.end_hand(self.current.id, end_summary)
            self.current = None
