"""Which daemon run a message belongs to, and whether it is the one shown, a newer or an older.

A run is ``(journal, epoch)``: the journal's id (random, given when the journal was created)
and its epoch counter (+1 at every daemon start on that journal). The counter orders the runs
of one journal only; a different journal id is a different table history (a fresh journal, a
replaced disk, a spare computer), never an older run of the one shown. So a consumer:

* takes a run of a journal it has not shown yet as **new**, whatever its epoch;
* within one journal, takes a higher epoch as new and a lower one as **old**;
* never goes back to a run it has left: once it moved from journal A to journal B, a straggler
  of A (a late retained snapshot, a late will) is old.

``journal`` is None in the messages of daemons older than journal ids; all of them are then
one journal, as before.

Sans-IO, no clock.

>>> t = RunTracker()
>>> t.classify(Run("aa", 4)), t.enter(Run("aa", 4))
(<RunOrder.NEW: 'new'>, None)
>>> t.classify(Run("aa", 4)), t.classify(Run("aa", 3)), t.classify(Run("bb", 1))
(<RunOrder.SAME: 'same'>, <RunOrder.OLD: 'old'>, <RunOrder.NEW: 'new'>)
>>> t.enter(Run("bb", 1)); t.classify(Run("aa", 4)), t.classify(Run("aa", 5))
(<RunOrder.OLD: 'old'>, <RunOrder.NEW: 'new'>)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class Run:
    """One run of one journal: what the envelope's ``journal`` and ``epoch`` name together."""

    journal: str | None
    epoch: int

    @classmethod
    def of(cls, envelope: Mapping[str, object]) -> Run | None:
        """The run of a decoded envelope or status (a JSON object), or None when it names none
        (no integer ``epoch`` >= 1, or a ``journal`` that is not a non-empty string)."""
        epoch = envelope.get("epoch")
        journal = envelope.get("journal")
        if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 1:
            return None
        if journal is not None and (not isinstance(journal, str) or not journal):
            return None
        return cls(journal, epoch)

    def __str__(self) -> str:
        return f"{self.journal or '-'}:{self.epoch}"


class RunOrder(StrEnum):
    """A run compared with the one a consumer shows."""

    SAME = "same"    # the run shown (or awaited)
    NEW = "new"      # a newer run of the same journal, or a journal not shown before: reset
    OLD = "old"      # an earlier run of a journal already shown: ignore


class RunTracker:
    """The run a consumer shows, and the highest epoch it has shown of every journal."""

    def __init__(self) -> None:
        self.current: Run | None = None
        self._highest: dict[str | None, int] = {}

    def classify(self, run: Run) -> RunOrder:
        """Compare ``run`` with the current run (see the module docstring)."""
        if run == self.current:
            return RunOrder.SAME
        if run.epoch <= self._highest.get(run.journal, 0):
            return RunOrder.OLD
        return RunOrder.NEW

    def enter(self, run: Run) -> None:
        """Make ``run`` the current run (the consumer reset its view for it)."""
        self.current = run
        self._highest[run.journal] = max(run.epoch, self._highest.get(run.journal, 0))
