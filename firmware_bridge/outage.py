"""How often to say that something is still unreachable: once, then at growing intervals.

A daemon retries a device or a broker that is down every few seconds, for as long as it is
down. Logging every attempt buries everything else (and says "INFO" about a table that cannot
work); logging only the first hides that it is still down. :class:`Outage` tracks one
outage: the first failure is a WARNING, later ones are WARNINGs again only after 1, 2, 4, 8...
minutes (at most every ``max_interval`` seconds), saying for how long and how many attempts;
the rest go to DEBUG. When the thing is back, one INFO line says after how long. Sans-IO: the
caller passes the monotonic time.

>>> o = Outage()
>>> o.failed(0.0, "refused")
(30, 'refused')
>>> o.failed(5.0, "refused")[0]
10
>>> o.failed(60.0, "refused")
(30, 'refused (still, for 1 min, 3 attempts)')
>>> o.recovered(70.0)
'back after 1 min 10 s'
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

WARNING, DEBUG = logging.WARNING, logging.DEBUG


def _span(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    if minutes and secs:
        return f"{minutes} min {secs} s"
    return f"{minutes} min" if minutes else f"{secs} s"


@dataclass
class Outage:
    """One stretch of failures of the same thing (see the module docstring).

    Attributes:
        first_interval: seconds until the first repeat of the warning.
        max_interval: the longest pause between two warnings.
    """

    first_interval: float = 60.0
    max_interval: float = 3600.0
    since: float | None = None
    attempts: int = 0
    _next: float = 0.0
    _interval: float = 0.0

    @property
    def down(self) -> bool:
        """True between a failure and the next :meth:`recovered`."""
        return self.since is not None

    def failed(self, now: float, reason: str) -> tuple[int, str]:
        """A failed attempt: the log level to report it at and the text to report."""
        self.attempts += 1
        if self.since is None:
            self.since, self._interval = now, self.first_interval
            self._next = now + self._interval
            return WARNING, reason
        if now < self._next:
            return DEBUG, reason
        self._interval = min(self._interval * 2, self.max_interval)
        self._next = now + self._interval
        return WARNING, (f"{reason} (still, for {_span(now - self.since)}, "
                         f"{self.attempts} attempts)")

    def recovered(self, now: float) -> str | None:
        """It works again: the text to report (None if it was not down); the outage ends."""
        if self.since is None:
            return None
        text = f"back after {_span(now - self.since)}"
        self.since, self.attempts = None, 0
        return text
