"""Display-side resynchronisation, sans-IO: the resync rules of docs/mqtt.md as a state machine.

A display that folds events into its own state feeds every ``state`` snapshot, ``events``
message and ``status`` message it receives into :class:`Resync` and shows :attr:`Resync.view`
(``tablectl watch`` and the web server draw only from snapshots and keep the run rules with
:class:`~tablectl.publish.runs.RunTracker` alone). The rules (docs/mqtt.md §4, after
Sparkplug's bdSeq/seq):

1. Until the first snapshot of the current epoch arrives, events are buffered.
2. A snapshot ``(epoch, seq)`` replaces the view; buffered events with ``seq <= snapshot.seq``
   are dropped, the contiguous ones after it are applied.
3. Events are applied strictly in order: ``seq == last + 1``. A duplicate (``seq <= last``) is
   dropped. A jump is buffered (reordering) and opens a gap.
4. A gap still open after ``reorder_timeout`` seconds makes :meth:`Resync.poll` return
   :attr:`ResyncResult.REQUEST_SNAPSHOT` once: take the next snapshot (the controller republishes
   the retained snapshot after every input that changed it), or re-read the retained one.
5. A run is ``(journal, epoch)`` (:mod:`tablectl.publish.runs`). An event, snapshot or online
   status of a new run (a newer epoch of the journal shown, or another journal: a fresh one
   is a new table history, not an older one) resets everything and waits for that run's
   snapshot; anything of an older run is ignored.
6. ``status`` offline marks the view stale (ignored when its run is older than what is shown:
   a late LWT of a previous run); online of the run shown clears it.

Time is passed in (``now``, monotonic seconds); nothing here reads a clock or does I/O.

>>> r = Resync(lambda state, ev: state + (ev,))
>>> r.on_event(1, 1, "a", now=0.0)          # no snapshot yet: buffered
<ResyncResult.RESET: 'reset'>
>>> r.on_snapshot(1, 0, (), now=0.1)
<ResyncResult.SNAPSHOT: 'snapshot'>
>>> r.view, r.seq
(('a',), 1)
>>> r.on_event(1, 3, "c", now=0.2), r.on_event(1, 1, "a", now=0.2)
(<ResyncResult.BUFFERED: 'buffered'>, <ResyncResult.DUPLICATE: 'duplicate'>)
>>> r.poll(now=1.0)
<ResyncResult.REQUEST_SNAPSHOT: 'request_snapshot'>
>>> r.on_event(1, 2, "b", now=1.1)
<ResyncResult.APPLIED: 'applied'>
>>> r.view
('a', 'b', 'c')
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Generic, TypeVar

from tablectl.publish.runs import Run, RunOrder, RunTracker

S = TypeVar("S")
E = TypeVar("E")


class ResyncResult(StrEnum):
    """What one input did to the display state."""

    APPLIED = "applied"                    # event applied (maybe with buffered followers)
    BUFFERED = "buffered"                  # kept until the gap before it closes / a snapshot
    DUPLICATE = "duplicate"                # already shown; dropped
    STALE = "stale"                        # older run or older snapshot; ignored
    RESET = "reset"                        # new run: view dropped, waiting for a snapshot
    SNAPSHOT = "snapshot"                  # snapshot taken as the new view
    STATUS = "status"                      # status recorded (stale flag updated)
    REQUEST_SNAPSHOT = "request_snapshot"  # gap timed out: ask for a snapshot (once per gap)


class Resync(Generic[S, E]):
    """The resync state machine over view type ``S`` and event type ``E``.

    Args:
        apply: the fold, ``apply(view, event) -> new view``; must not mutate ``view``.
        reorder_timeout: seconds a gap may stay open before a snapshot is requested.
        max_buffer: most out-of-order events kept; beyond it the oldest is dropped (a
            snapshot repairs whatever is lost).

    Attributes:
        view: what to show; None until a snapshot of the current run arrived.
        run: the run shown or awaited; None before anything arrived.
        epoch: its epoch.
        seq: the seq of the last event folded into ``view`` (or the snapshot's seq).
        stale: the controller's status says offline.
    """

    def __init__(self, apply: Callable[[S, E], S], *, reorder_timeout: float = 0.5,
                 max_buffer: int = 10_000) -> None:
        self._apply = apply
        self._timeout = reorder_timeout
        self._max_buffer = max_buffer
        self.view: S | None = None
        self.seq = 0
        self.stale = False
        self._runs = RunTracker()
        self._stale_run: Run | None = None
        self._buffer: dict[int, E] = {}
        self._gap_since: float | None = None
        self._requested = False

    @property
    def run(self) -> Run | None:
        """The run shown or awaited."""
        return self._runs.current

    @property
    def epoch(self) -> int | None:
        """The epoch of :attr:`run`."""
        return None if self._runs.current is None else self._runs.current.epoch

    @property
    def synced(self) -> bool:
        """A view is shown and no gap is open."""
        return self.view is not None and not self._buffer

    def deadline(self) -> float | None:
        """When :meth:`poll` will next have something to say (monotonic seconds), if ever."""
        if self._gap_since is None or self._requested:
            return None
        return self._gap_since + self._timeout

    def _reset(self, run: Run, now: float) -> None:
        self._runs.enter(run)
        self.view = None
        self.seq = 0
        self._buffer.clear()
        self._gap_since = now
        self._requested = False
        self.stale = run == self._stale_run

    def _drain(self, now: float) -> None:
        assert self.view is not None
        for old in [s for s in self._buffer if s <= self.seq]:
            del self._buffer[old]
        while (nxt := self._buffer.pop(self.seq + 1, None)) is not None:
            self.view = self._apply(self.view, nxt)
            self.seq += 1
        if self._buffer:
            if self._gap_since is None:
                self._gap_since = now
        else:
            self._gap_since = None
            self._requested = False

    def on_event(self, epoch: int, seq: int, event: E, *, now: float,
                 journal: str | None = None) -> ResyncResult:
        """Feed one event of the sequenced stream (of run ``(journal, epoch)``)."""
        outcome: ResyncResult | None = None
        run = Run(journal, epoch)
        order = self._runs.classify(run)
        if order is RunOrder.OLD:
            return ResyncResult.STALE
        if order is RunOrder.NEW:
            self._reset(run, now)
            outcome = ResyncResult.RESET
        if self.view is not None and seq <= self.seq:
            return ResyncResult.DUPLICATE
        if seq in self._buffer:
            return ResyncResult.DUPLICATE
        if self.view is not None and seq == self.seq + 1:
            self.view = self._apply(self.view, event)
            self.seq = seq
            self._drain(now)
            return ResyncResult.APPLIED
        self._buffer[seq] = event
        if len(self._buffer) > self._max_buffer:
            del self._buffer[min(self._buffer)]
        if self._gap_since is None:
            self._gap_since = now
        return outcome or ResyncResult.BUFFERED

    def on_snapshot(self, epoch: int, seq: int, snapshot: S, *, now: float,
                    journal: str | None = None) -> ResyncResult:
        """Feed a (retained) snapshot whose last applied event is ``seq``."""
        run = Run(journal, epoch)
        order = self._runs.classify(run)
        if order is RunOrder.OLD:
            return ResyncResult.STALE
        if order is RunOrder.NEW:
            self._reset(run, now)
        elif self.view is not None and seq < self.seq:
            return ResyncResult.STALE
        elif self.view is not None and seq == self.seq:
            return ResyncResult.DUPLICATE
        self.view = snapshot
        self.seq = seq
        self._drain(now)
        return ResyncResult.SNAPSHOT

    def on_status(self, online: bool, epoch: int, *, now: float,
                  journal: str | None = None) -> ResyncResult:
        """Feed the controller's status (birth / LWT)."""
        run = Run(journal, epoch)
        order = self._runs.classify(run)
        if order is RunOrder.OLD:
            return ResyncResult.STALE                   # e.g. the LWT of an earlier run, late
        if not online:
            # the run shown is offline, or a newer one is (what is shown is not live either)
            self.stale = True
            self._stale_run = run
            return ResyncResult.STATUS
        self._stale_run = None
        if order is RunOrder.NEW:
            self._reset(run, now)                  # a new run is live: wait for its snapshot
            return ResyncResult.RESET
        self.stale = False
        return ResyncResult.STATUS

    def poll(self, *, now: float) -> ResyncResult | None:
        """Call at :meth:`deadline`: asks for a snapshot once when a gap outlived the timeout."""
        deadline = self.deadline()
        if deadline is not None and now >= deadline:
            self._requested = True
            return ResyncResult.REQUEST_SNAPSHOT
        return None
