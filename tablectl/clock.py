"""Time, injected: the only module that reads the wall clock or sleeps.

Production code takes a :class:`Clock`; tests pass a :class:`ManualClock` and advance it, so
no test ever sleeps.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Monotonic seconds, aware UTC wall time, and sleeping."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin, never going back."""
        ...

    def now(self) -> datetime:
        """The wall time, timezone-aware, in UTC."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Suspend the caller for ``seconds`` of this clock's time."""
        ...


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        """``time.monotonic()``."""
        return time.monotonic()

    def now(self) -> datetime:
        """``datetime.now(UTC)``."""
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        """``asyncio.sleep``."""
        await asyncio.sleep(seconds)


class ManualClock:
    """A clock that moves only when told to; sleepers wake when it passes their deadline.

    >>> clock = ManualClock()
    >>> clock.advance(1.5)
    >>> clock.monotonic()
    1.5
    """

    def __init__(self, start: datetime | None = None) -> None:
        self._t = 0.0
        self._start = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def monotonic(self) -> float:
        """Seconds advanced so far."""
        return self._t

    def now(self) -> datetime:
        """The start time plus the seconds advanced."""
        return self._start + timedelta(seconds=self._t)

    async def sleep(self, seconds: float) -> None:
        """Wait until :meth:`advance` passes ``now + seconds``."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((self._t + max(0.0, seconds), fut))
        await fut

    def advance(self, seconds: float) -> None:
        """Move time forward and wake every sleeper whose deadline has passed."""
        self._t += seconds
        due = [(t, f) for t, f in self._sleepers if t <= self._t]
        self._sleepers = [(t, f) for t, f in self._sleepers if t > self._t]
        for _, fut in due:
            if not fut.done():
                fut.set_result(None)
