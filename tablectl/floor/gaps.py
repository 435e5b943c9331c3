"""When to ask a daemon to replay what the floor missed: a sans-IO state table per gap.

The store reports each stream's first missing range (:meth:`~tablectl.floor.store.Store.gaps`)
every time the shell asks. A gap is often only reordering or a batch still on its way, so the
tracker waits ``reorder`` seconds before the first ``cmd/replay``; a request or its reply can
be lost too (a broker restart), so it asks again while the gap stays open: ``retry`` seconds
after the first request, then twice as long after each one, up to ``max_retry`` seconds (a
table that is gone, or that refuses the worker, is not asked every few seconds for ever). A
gap the store no longer reports is filled and forgotten; a new run of the table (another
epoch or journal) is another stream, whose gaps start again from ``retry``.

What the shell should log comes as :attr:`GapTracker.notices` (level, text): the first request
of a gap at INFO; a refusal (:meth:`GapTracker.refused`) or a request left unanswered as a
WARNING once, then again only at growing intervals (:class:`firmware_bridge.outage.Outage`, as
the daemon reports an unreachable reader or broker), DEBUG in between; a filled gap that had
been warned about at INFO.

=========  ==========  ==========  ===========================================
phase      trigger     next        what happens
=========  ==========  ==========  ===========================================
(none)     seen        waiting     remember when it was first seen
waiting    seen        waiting     nothing yet
waiting    due         asked       reorder timeout passed: send the request
asked      seen        asked       nothing yet
asked      refused     asked       the table said no: note it, wait as planned
asked      due         asked       interval passed: send it again, double it
(any)      gone        (none)      the store filled it: forget it
=========  ==========  ==========  ===========================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from firmware_bridge.outage import DEBUG, Outage
from tablectl.floor.model import Gap

MAX_REPLAY: Final = 2000
"""Events per ``cmd/replay`` (the daemon refuses more in one request)."""

INFO: Final = 20
"""``logging.INFO`` (the level of a notice that is no warning)."""


class Phase(StrEnum):
    """Where a gap stands."""

    WAITING = "waiting"
    ASKED = "asked"


TRANSITIONS: Final[dict[tuple[Phase | None, str], Phase | None]] = {
    (None, "seen"): Phase.WAITING,
    (Phase.WAITING, "seen"): Phase.WAITING,
    (Phase.WAITING, "due"): Phase.ASKED,
    (Phase.ASKED, "seen"): Phase.ASKED,
    (Phase.ASKED, "refused"): Phase.ASKED,
    (Phase.ASKED, "due"): Phase.ASKED,
    (Phase.WAITING, "gone"): None,
    (Phase.ASKED, "gone"): None,
}


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """One ``cmd/replay`` to send: events ``from_seq..to_seq`` of ``(table, epoch)``."""

    table: str
    epoch: str
    from_seq: int
    to_seq: int


@dataclass(slots=True)
class _Tracked:
    phase: Phase
    since: float
    asked: float = 0.0
    interval: float = 0.0
    answered: bool = False
    outage: Outage = field(default_factory=Outage)


def _span(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


class GapTracker:
    """Turns the store's gaps into replay requests (see the module docstring)."""

    def __init__(self, *, reorder: float = 0.5, retry: float = 3.0,
                 max_retry: float = 300.0) -> None:
        if reorder < 0 or retry <= 0 or max_retry < retry:
            raise ValueError("reorder must be >= 0 s, retry > 0 s and max_retry >= retry")
        self.reorder = reorder
        self.retry = retry
        self.max_retry = max_retry
        self.notices: list[tuple[int, str]] = []
        """What to log, oldest first (the shell takes them with :meth:`take_notices`)."""
        self._gaps: dict[tuple[str, str, int], _Tracked] = {}

    def phase(self, gap: Gap) -> Phase | None:
        """A gap's phase (None: not tracked)."""
        tracked = self._gaps.get((gap.table, gap.epoch, gap.from_seq))
        return tracked.phase if tracked else None

    def interval(self, gap: Gap) -> float | None:
        """Seconds from a gap's last request to the next (None: not asked yet)."""
        tracked = self._gaps.get((gap.table, gap.epoch, gap.from_seq))
        return tracked.interval if tracked and tracked.phase is Phase.ASKED else None

    def take_notices(self) -> list[tuple[int, str]]:
        """The notices since the last call, (level, text) each."""
        out, self.notices = self.notices, []
        return out

    def update(self, gaps: Sequence[Gap], now: float) -> list[ReplayRequest]:
        """The store's gaps at monotonic time ``now`` -> the requests to send now."""
        out: list[ReplayRequest] = []
        current = {(g.table, g.epoch, g.from_seq): g for g in gaps}
        for key in [k for k in self._gaps if k not in current]:
            back = self._gaps[key].outage.recovered(now)
            if back is not None:
                self.notices.append((INFO, f"table {key[0]}: the gap from event {key[2]} "
                                           f"of epoch {key[1]} is filled, {back}"))
            self._step(key, "gone")
        for key, gap in current.items():
            tracked = self._step(key, "seen", now)
            assert tracked is not None
            if tracked.phase is Phase.WAITING:
                due = now - tracked.since >= self.reorder
            else:
                due = now - tracked.asked >= tracked.interval
            if not due:
                continue
            request = ReplayRequest(gap.table, gap.epoch, gap.from_seq,
                                    min(gap.to_seq, gap.from_seq + MAX_REPLAY - 1))
            if tracked.phase is Phase.WAITING:
                tracked.interval = self.retry
                self.notices.append((INFO, f"asking table {gap.table} for events "
                                           f"{_range(request)}"))
            else:
                if not tracked.answered:
                    level, text = tracked.outage.failed(
                        now, f"table {gap.table} did not answer the replay of events "
                             f"{_range(request)}")
                    self.notices.append((level, f"{text}; asking again, the next time in "
                                                f"{_span(self._next(tracked))}"))
                else:
                    self.notices.append((DEBUG, f"asking table {gap.table} again for "
                                                f"events {_range(request)}"))
                tracked.interval = self._next(tracked)
            tracked = self._step(key, "due", now)
            assert tracked is not None
            tracked.asked, tracked.answered = now, False
            out.append(request)
        return out

    def refused(self, table: str, epoch: str, error: object, now: float) -> None:
        """``table`` refused the replay of ``epoch`` (``error`` as its reply said)."""
        for key, tracked in self._gaps.items():
            if key[:2] != (table, epoch) or tracked.phase is not Phase.ASKED:
                continue
            self._step(key, "refused", now)
            tracked.answered = True
            left = max(0.0, tracked.asked + tracked.interval - now)
            level, text = tracked.outage.failed(
                now, f"table {table} refuses the replay of events from {key[2]} of epoch "
                     f"{epoch}: {error}")
            self.notices.append((level, f"{text}; asking again in {_span(left)}, then less "
                                        f"and less often (at most every "
                                        f"{_span(self.max_retry)})"))

    def _next(self, tracked: _Tracked) -> float:
        return min(tracked.interval * 2, self.max_retry)

    def _step(self, key: tuple[str, str, int], trigger: str, now: float = 0.0
              ) -> _Tracked | None:
        tracked = self._gaps.get(key)
        phase = TRANSITIONS[(tracked.phase if tracked else None, trigger)]
        if phase is None:
            self._gaps.pop(key, None)
            return None
        if tracked is None:
            tracked = self._gaps[key] = _Tracked(phase, now)
        tracked.phase = phase
        return tracked


def _range(request: ReplayRequest) -> str:
    return f"{request.from_seq}..{request.to_seq} of epoch {request.epoch}"


__all__ = ["INFO", "MAX_REPLAY", "TRANSITIONS", "GapTracker", "Phase", "ReplayRequest"]
