"""Time, injected: firmware_bridge's own tiny clock seam (it imports nothing from tablectl).

Anything with ``monotonic()`` and ``async sleep()`` fits, e.g. ``tablectl.clock.ManualClock``
in tests, so no test of the bridge ever sleeps for real.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    """Monotonic seconds and sleeping."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin, never going back."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Suspend the caller for ``seconds`` of this clock's time."""
        ...


class SystemClock:
    """The real clock: ``time.monotonic`` and ``asyncio.sleep``."""

    def monotonic(self) -> float:
        """``time.monotonic()``."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """``asyncio.sleep(seconds)``."""
        await asyncio.sleep(seconds)
