"""Prometheus metrics of the table daemon and the web server (``[metrics]`` in the config).

Two kinds of figures:

* **counted as they happen** (hooks the daemon calls once per applied input and once per
  published event: a few dictionary look-ups, no I/O): reads by source and result, table
  errors raised by code, commands by name and result, hands by game, the read-to-publish
  latency (a card read entering the daemon until the broker acknowledged the last event it
  caused) and the journal's commit time;
* **read when scraped** (a collector asks the live objects, so the card-read path pays nothing
  for them): the MQTT outbox depth and in-flight publishes, the broker connection, each
  reader's link state and the frames its link dropped, by reason.

The exposition runs on the daemon's own event loop (:mod:`tablectl.metrics.http`), so a scrape
reads the daemon's state on the thread that owns it.

>>> m = TableMetrics("holdem")
>>> m.hands.labels(game="holdem").inc()
>>> m.registry.get_sample_value("tablectl_hands_total", {"game": "holdem"})
1.0
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Final, Protocol, runtime_checkable

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from tablectl.controller.inputs import CardRead, Command, ControllerInput
from tablectl.controller.outcome import Outcome
from tablectl.journal import EventRecord

LATENCY_BUCKETS: Final = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0,
                          10.0)
"""Seconds: a card read is on the displays in a few milliseconds when all is well."""
COMMIT_BUCKETS: Final = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)
MAX_PENDING: Final = 10_000
"""Reads waiting for their events' PUBACK that are remembered (the broker may be away long)."""


@runtime_checkable
class MeteredSource(Protocol):
    """What a card source shows the metrics (the RFID sources have it)."""

    name: str

    @property
    def link_up(self) -> bool:
        """The reader's link is up."""
        ...

    @property
    def frames_dropped(self) -> Mapping[str, int]:
        """Frames the link threw away since the daemon started, by reason."""
        ...


class MqttLink(Protocol):
    """What the broker client shows the metrics."""

    @property
    def connected(self) -> bool:
        """Connected to the broker now."""
        ...

    @property
    def inflight(self) -> int:
        """Publishes sent and not yet acknowledged."""
        ...


class TableMetrics:
    """The daemon's metrics, in their own registry.

    Args:
        game: the table's game (the ``game`` label of hands).
        clock: a monotonic clock in seconds (default :func:`time.perf_counter`).
    """

    def __init__(self, game: str, *, clock: Callable[[], float] = time.perf_counter) -> None:
        self.game = game
        self.clock = clock
        self.registry = CollectorRegistry()
        reg = self.registry
        self.reads = Counter("tablectl_reads", "Card reads by source and result (accepted: it "
                             "caused events; duplicate; error: it raised a table error; "
                             "ignored: nothing changed)", ["source", "result"], registry=reg)
        self.errors = Counter("tablectl_errors", "Table errors raised, by code", ["code"],
                              registry=reg)
        self.commands = Counter("tablectl_commands", "Commands applied, by name and result "
                                "(ok or the refusal's code)", ["name", "result"], registry=reg)
        self.hands = Counter("tablectl_hands", "Hands finished, by game", ["game"],
                             registry=reg)
        self.refusals = Counter("tablectl_refusals", "Commands refused before the journal "
                                "and the controller (bad topic or payload, no role, rate "
                                "limit...), by the refusal's code", ["code"], registry=reg)
        self.read_to_publish = Histogram(
            "tablectl_read_to_publish_seconds", "From a card read entering the daemon to the "
            "broker's acknowledgement of the last event it caused", buckets=LATENCY_BUCKETS,
            registry=reg)
        self.journal_commit = Histogram(
            "tablectl_journal_commit_seconds", "Commit (fsync) of one input's journal "
            "transaction", buckets=COMMIT_BUCKETS, registry=reg)
        self._hands = self.hands.labels(game=game)
        self._pending: dict[int, float] = {}
        self._read_counters: dict[tuple[str, str], Counter] = {}
        self._pull = _Pull()
        reg.register(self._pull)

    def watch(self, *, mqtt: MqttLink | None = None, outbox: Callable[[], int] | None = None,
              sources: Sequence[object] = ()) -> None:
        """What is read at each scrape: the broker client, the outbox depth (events journaled
        and not yet acknowledged) and the sources (those that are :class:`MeteredSource`)."""
        self._pull.mqtt = mqtt
        self._pull.outbox = outbox
        self._pull.sources = [s for s in sources if isinstance(s, MeteredSource)]

    # ---- hooks (the daemon's hot path) -------------------------------------------------------

    def applied(self, inp: ControllerInput, outcome: Outcome, records: Sequence[EventRecord],
                *, started: float, commit: float) -> None:
        """One input was journaled and applied: ``started`` when it entered (this clock),
        ``commit`` the seconds its commit took."""
        self.journal_commit.observe(commit)
        if isinstance(inp, CardRead):
            if outcome.duplicate:
                result = "duplicate"
            elif any(e.active for e in outcome.errors):
                result = "error"
            elif records:
                result = "accepted"
                if len(self._pending) < MAX_PENDING:
                    self._pending[records[-1].id] = started
            else:
                result = "ignored"
            key = (inp.source, result)
            counter = self._read_counters.get(key)
            if counter is None:        # labels() checks and locks: once per source and result
                counter = self._read_counters[key] = self.reads.labels(*key)
            counter.inc()
        elif isinstance(inp, Command) and outcome.reply is not None:
            reply = outcome.reply
            self.commands.labels(name=inp.name, result="ok" if reply.ok else str(
                reply.code.value if reply.code is not None else "refused")).inc()
        for change in outcome.errors:
            if change.active:
                self.errors.labels(code=change.code.value).inc()
        if outcome.hand_ended is not None:
            game = outcome.hand_ended.summary.get("game")   # a rotation's hand: its own game
            (self.hands.labels(game=game) if isinstance(game, str) else self._hands).inc()

    def published(self, record: EventRecord) -> None:
        """The broker acknowledged ``record``."""
        if self._pending:
            started = self._pending.pop(record.id, None)
            if started is not None:
                self.read_to_publish.observe(self.clock() - started)

    def refused(self, code: str) -> None:
        """A command was refused before the journal (:mod:`tablectl.publish.admission`),
        counted whether or not it was answered or recorded on its own."""
        self.refusals.labels(code=code).inc()

    def error(self, code: str) -> None:
        """An error of the daemon itself (``journal_unavailable``)."""
        self.errors.labels(code=code).inc()


class _Pull(Collector):
    """The gauges read at scrape time."""

    def __init__(self) -> None:
        self.mqtt: MqttLink | None = None
        self.outbox: Callable[[], int] | None = None
        self.sources: list[MeteredSource] = []

    def describe(self) -> Iterable[Metric]:
        return list(self._families())

    def collect(self) -> Iterator[Metric]:
        families = self._families()
        connected, queue, inflight, up, dropped, incompatible = families
        if self.mqtt is not None:
            connected.add_metric([], 1.0 if self.mqtt.connected else 0.0)
            inflight.add_metric([], float(self.mqtt.inflight))
        if self.outbox is not None:
            queue.add_metric([], float(self.outbox()))
        for src in self.sources:
            up.add_metric([src.name], 1.0 if src.link_up else 0.0)
            other = getattr(src, "incompatible", False)     # the RFID sources say it
            incompatible.add_metric([src.name], 1.0 if other is True else 0.0)
            for reason, n in sorted(src.frames_dropped.items()):
                dropped.add_metric([src.name, reason], float(n))
        yield from families

    @staticmethod
    def _families() -> tuple[GaugeMetricFamily, GaugeMetricFamily, GaugeMetricFamily,
                             GaugeMetricFamily, CounterMetricFamily, GaugeMetricFamily]:
        return (
            GaugeMetricFamily("tablectl_mqtt_connected", "1 while the broker is connected"),
            GaugeMetricFamily("tablectl_mqtt_queue_depth", "Events journaled and not yet "
                              "acknowledged by the broker (the outbox)"),
            GaugeMetricFamily("tablectl_mqtt_inflight", "Publishes sent and not yet "
                              "acknowledged"),
            GaugeMetricFamily("tablectl_reader_up", "1 while the reader's link is up",
                              labels=["source"]),
            CounterMetricFamily("tablectl_frames_dropped", "Frames a reader's link threw "
                                "away, by reason", labels=["source", "reason"]),
            GaugeMetricFamily("tablectl_reader_incompatible", "1 while the reader answers "
                              "with a protocol version this daemon does not speak",
                              labels=["source"]),
        )


class WebMetrics:
    """The web server's metrics: its broker connections and the open event streams.

    Args:
        links: name -> broker client (``public``, ``console``, ``overlay``).
        streams: name -> a function counting the browsers on that stream.
    """

    def __init__(self, links: Mapping[str, MqttLink],
                 streams: Mapping[str, Callable[[], int]]) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(_WebPull(dict(links), dict(streams)))


class _WebPull(Collector):
    def __init__(self, links: dict[str, MqttLink], streams: dict[str, Callable[[], int]]
                 ) -> None:
        self.links = links
        self.streams = streams

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("tablectl_web_broker_connected", "1 while the web server's "
                               "broker connection is up", labels=["link"])
        for name, link in sorted(self.links.items()):
            up.add_metric([name], 1.0 if link.connected else 0.0)
        streams = GaugeMetricFamily("tablectl_web_streams", "Browsers following an event "
                                    "stream", labels=["stream"])
        for name, count in sorted(self.streams.items()):
            streams.add_metric([name], float(count()))
        yield from (up, streams)


__all__ = ["LATENCY_BUCKETS", "MeteredSource", "MqttLink", "TableMetrics", "WebMetrics"]
