"""The public action log of the hand so far, kept by the controller for its snapshot (sans-IO).

Every public event the controller emits (:class:`~tablectl.controller.outcome.Event`) is fed
to :class:`HandLog`; the kinds a person reads (:data:`LOG_TYPES`: the hand started, forced bets,
actions, returned bets, board cards, cards turned face up, showdowns, awards, the hand's end,
error states, devices, corrections and seat changes) become entries. A ``hand_started`` begins
a new log; the log of the last hand stays until the next one starts, with what happens between
hands after it.

The log holds only what the public events hold: a hole card appears in it when the rules made
it public (dealt face up, turned up all-in, shown down), never before.

Entries are the event bodies with an ``n`` beside them: the entry's place in the hand's log
(1, 2, ...), so a page can key its lines. One board event comes per card with the whole board
so far; consecutive board events of one street (and run or board) are one entry (the flop is
one line, numbered as its first card's). The log is bounded: the first :data:`HEAD` entries
and the last :data:`TAIL` are kept, ``omitted`` says how many in between are not (a hand of
120 entries or fewer is whole).

>>> log = HandLog()
>>> log.feed([Event("hand_started", {"hand": {"id": "t1-000001", "number": 1}}),
...           Event("cards_dealt", {"seat": 1, "count": 2, "up": [], "street": "preflop"}),
...           Event("board", {"cards": ["Ah"], "street": "flop"}),
...           Event("board", {"cards": ["Ah", "Kd"], "street": "flop"})])
True
>>> [(e["n"], e["type"]) for e in log.entries()], log.omitted
([(1, 'hand_started'), (2, 'board')], 0)
>>> log.entries()[-1]["cards"]
['Ah', 'Kd']
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Final

from tablectl.controller.outcome import Event
from tablectl.domain.jsonvalue import JsonValue

LOG_TYPES: Final = frozenset({
    "hand_started", "forced_bet", "action", "bet_returned", "board", "face_up", "showdown",
    "winner", "hand_ended", "error", "device", "correction", "seat", "runs",
})
"""Event types the log keeps (``pot`` and ``cards_dealt`` are not: the snapshot shows them)."""

HEAD: Final = 24
"""Entries kept from the start of a hand (its start, forced bets, first actions)."""

TAIL: Final = 96
"""Entries kept from the end."""


class HandLog:
    """The bounded public log of the current (or last) hand; see the module docstring.

    Args:
        head: entries kept from the start.
        tail: entries kept from the end (at least 1).
    """

    __slots__ = ("_head", "_head_size", "_tail", "_total", "_view")

    def __init__(self, head: int = HEAD, tail: int = TAIL) -> None:
        if head < 0 or tail < 1:
            raise ValueError(f"head must be >= 0 and tail >= 1: {head}, {tail}")
        self._head_size = head
        self._head: list[dict[str, JsonValue]] = []
        self._tail: deque[dict[str, JsonValue]] = deque(maxlen=tail)
        self._total = 0
        self._view: list[JsonValue] | None = None

    @property
    def omitted(self) -> int:
        """How many entries between the head and the tail are not kept."""
        return self._total - len(self._head) - len(self._tail)

    @property
    def total(self) -> int:
        """How many entries the log has had since its hand started (omitted ones included)."""
        return self._total

    def entries(self) -> list[JsonValue]:
        """The kept entries, oldest first: a new list each call (the entries themselves are
        never changed once made, so snapshots may share them)."""
        if self._view is None:
            self._view = [*self._head, *self._tail]
        return list(self._view)

    def clear(self) -> None:
        """Forget every entry."""
        self._head.clear()
        self._tail.clear()
        self._total = 0
        self._view = None

    def feed(self, events: Iterable[Event]) -> bool:
        """Take the public events of one input, in order; True when the log changed."""
        changed = False
        for event in events:
            if event.type not in LOG_TYPES:
                continue
            if event.type == "hand_started":
                self.clear()
            self._add(event)
            changed = True
        if changed:
            self._view = None
        return changed

    def _last(self) -> dict[str, JsonValue] | None:
        if self._tail:
            return self._tail[-1]
        return self._head[-1] if self._head else None

    def _add(self, event: Event) -> None:
        last = self._last()
        if event.type == "board" and last is not None and last.get("type") == "board" \
                and last.get("street") == event.data.get("street") \
                and last.get("run") == event.data.get("run") \
                and last.get("board") == event.data.get("board"):
            # the same street's next card: one line with the whole board so far
            merged: dict[str, JsonValue] = {**event.to_json(), "n": last["n"]}
            if self._tail:
                self._tail[-1] = merged
            else:
                self._head[-1] = merged
            return
        self._total += 1
        entry: dict[str, JsonValue] = {**event.to_json(), "n": self._total}
        if len(self._head) < self._head_size:
            self._head.append(entry)
        else:
            self._tail.append(entry)


__all__ = ["HEAD", "LOG_TYPES", "TAIL", "HandLog"]
