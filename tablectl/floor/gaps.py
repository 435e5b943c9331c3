"""When to ask a daemon to replay what the floor missed: a sans-IO state table per gap.

The store reports each stream's first missing range (:meth:`~tablectl.floor.store.Store.gaps`)
every time the shell asks. A gap is often only reordering or a batch still on its way, so the
tracker waits ``reorder`` seconds before the first ``cmd/replay``; a request or its reply can
be lost too (a broker restart), so it asks again every ``retry`` seconds while the gap stays
open. A gap the store no longer reports is filled and forgotten.

=========  ==========  ==========  ===========================================
phase      trigger     next        what happens
=========  ==========  ==========  ===========================================
(none)     seen        waiting     remember when it was first seen
waiting    seen        waiting     nothing yet
waiting    due         asked       reorder timeout passed: send the request
asked      seen        asked       nothing yet
asked      due         asked       retry interval passed: send it again
(any)      gone        (none)      the store filled it: forget it
=========  ==========  ==========  ===========================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from tablectl.floor.model import Gap

MAX_REPLAY: Final = 2000
"""Events per ``cmd/replay`` (the daemon refuses more in one request)."""


class Phase(StrEnum):
    """Where a gap stands."""

    WAITING = "waiting"
    ASKED = "asked"


TRANSITIONS: Final[dict[tuple[Phase | None, str], Phase | None]] = {
    (None, "seen"): Phase.WAITING,
    (Phase.WAITING, "seen"): Phase.WAITING,
    (Phase.WAITING, "due"): Phase.ASKED,
    (Phase.ASKED, "seen"): Phase.ASKED,
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


class GapTracker:
    """Turns the store's gaps into replay requests (see the module docstring)."""

    def __init__(self, *, reorder: float = 0.5, retry: float = 3.0) -> None:
        if reorder < 0 or retry <= 0:
            raise ValueError("reorder must be >= 0 s and retry > 0 s")
        self.reorder = reorder
        self.retry = retry
        self._gaps: dict[tuple[str, str, int], _Tracked] = {}

    def phase(self, gap: Gap) -> Phase | None:
        """A gap's phase (None: not tracked)."""
        tracked = self._gaps.get((gap.table, gap.epoch, gap.from_seq))
        return tracked.phase if tracked else None

    def update(self, gaps: Sequence[Gap], now: float) -> list[ReplayRequest]:
        """The store's gaps at monotonic time ``now`` -> the requests to send now."""
        out: list[ReplayRequest] = []
        current = {(g.table, g.epoch, g.from_seq): g for g in gaps}
        for key in [k for k in self._gaps if k not in current]:
            self._step(key, "gone")
        for key, gap in current.items():
            tracked = self._step(key, "seen", now)
            assert tracked is not None
            wait = self.reorder if tracked.phase is Phase.WAITING else self.retry
            start = tracked.since if tracked.phase is Phase.WAITING else tracked.asked
            if now - start >= wait:
                tracked = self._step(key, "due", now)
                assert tracked is not None
                tracked.asked = now
                out.append(ReplayRequest(gap.table, gap.epoch, gap.from_seq,
                                         min(gap.to_seq, gap.from_seq + MAX_REPLAY - 1)))
        return out

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


__all__ = ["MAX_REPLAY", "TRANSITIONS", "GapTracker", "Phase", "ReplayRequest"]
