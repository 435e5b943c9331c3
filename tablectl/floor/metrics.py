"""Prometheus metrics of a floor worker (``tablectl floor run --metrics-port``).

Read when scraped from the worker's :class:`~tablectl.floor.service.FloorStats` (the scrape
runs on the worker's own event loop, :mod:`tablectl.metrics.http`), so counting costs the
worker nothing.

>>> from tablectl.floor.service import FloorStats
>>> stats = FloorStats(quarantined=2)
>>> FloorMetrics(lambda: stats).registry.get_sample_value("tablectl_floor_quarantined_total")
2.0
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final

from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

from tablectl.floor.service import FloorStats

_COUNTERS: Final = (
    ("messages", "messages", "Messages taken from the broker and acknowledged"),
    ("applied", "events_applied", "Events folded into the history"),
    ("duplicates", "duplicates", "Events already applied (a redelivery, a replay)"),
    ("refused", "undecodable", "Messages that could not be decoded (quarantined)"),
    ("quarantined", "quarantined", "Messages set aside in the quarantine: undecodable ones "
                                   "and those the database refused"),
    ("store_failures", "store_failures", "Batches not stored because the database was away "
                                         "(tried again)"),
    ("replays", "replay_requests", "Replay requests sent to tables"),
    ("flags", "flags", "Jackpot and high-hand flags raised"),
)


class FloorMetrics:
    """A floor worker's metrics in their own registry.

    Args:
        stats: returns the worker's counters (the worker of the moment: a restarted
            service has new ones).
    """

    def __init__(self, stats: Callable[[], FloorStats]) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(_FloorPull(stats))


class _FloorPull(Collector):
    def __init__(self, stats: Callable[[], FloorStats]) -> None:
        self.stats = stats

    def collect(self) -> Iterator[Metric]:
        stats = self.stats()
        for attr, name, text in _COUNTERS:
            family = CounterMetricFamily(f"tablectl_floor_{name}", text)
            family.add_metric([], float(getattr(stats, attr)))
            yield family


__all__ = ["FloorMetrics"]
