"""``tablectl floor run``: the MQTT shell around the floor's store.

One worker (there may be several, each with its own broker user):

* subscribes to every table's ``events`` and ``state`` through the shared subscription
  ``$share/{group}/poker/v1/tables/+/...`` (the broker hands each message to one worker of the
  group), and to its own reply topic ``poker/v1/replies/{user}/replay``;
* collects messages into batches (up to ``batch_max`` messages or ``batch_wait`` seconds after
  the first), hands each batch to the store in a worker thread (one transaction), and only
  then acknowledges the batch's messages (QoS 1, persistent session, manual PUBACK): a worker
  killed before the commit gets them again on its next connection;
* decodes every message with :mod:`tablectl.floor.decode` (the table is the topic's) and sets
  aside in the quarantine what it cannot decode, with the reason (docs/floor.md,
  "Quarantine");
* retries a batch the store could not take (database restarted, connection killed) until it
  can, with the messages still unacknowledged; a batch the store *refused* (a value it cannot
  hold: trying again would fail the same) is split in halves until the message that fails is
  alone, and that one goes to the quarantine: the others are stored, and every message of the
  batch is acknowledged, so a poison message is neither retried for ever nor redelivered
  after a restart;
* every ``sweep`` seconds asks the store for gaps and sends ``cmd/replay`` for those the
  :class:`~tablectl.floor.gaps.GapTracker` says are due; the replies come back on its reply
  topic and are ingested like any event;
* publishes each jackpot / high-hand flag on ``poker/v1/floor/flags`` for the supervisor;
* given a statistics source (a store connection of its own), after a batch that ended a
  hand (or seated or unseated a player) at a table, publishes the statistics of the players
  seated there, retained, on ``poker/v1/floor/tables/{t}/stats`` (docs/floor.md, "Published
  for the displays and the overlay"). That runs in a task and a thread of its own, so the
  batches never wait for it; tables waiting for it are remembered once (a busy table's
  statistics are computed once for all the hands that ended meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Protocol

from tablectl.floor.decode import (
    decode_event,
    decode_reply,
    decode_snapshot,
    event_from_body,
    topic_table,
)
from tablectl.floor.gaps import GapTracker, ReplayRequest
from tablectl.floor.model import (
    EVENTS_SUFFIX,
    FlagRow,
    FloorEvent,
    FloorInputError,
    FloorSnapshot,
    QuarantineRow,
    epoch_wire,
    safe_text,
)
from tablectl.floor.stats import TableStats
from tablectl.floor.store import (
    IngestResult,
    Store,
    StoreRefusedError,
    StoreUnavailableError,
)
from tablectl.publish import topics
from tablectl.publish.base import IncomingMessage, MessageProps
from tablectl.publish.errors import PublishError
from tablectl.publish.topics import Topic

_LOGGER = logging.getLogger(__name__)

FLAGS_TOPIC: Final = Topic("poker/v1/floor/flags")
_SEP: Final = "\x1f"
MAX_ASKED: Final = 4096
"""Replay requests remembered (a reply is taken only for one of them)."""
STOP_GRACE: Final = 5.0
"""Seconds a stopping worker waits for the batch under way to be stored and acknowledged."""


class FloorFailedError(RuntimeError):
    """A part of the worker failed; :meth:`FloorService.run` stopped the worker."""


class ReplayRefusedError(FloorInputError):
    """A table answered a replay request with an error (e.g. ``not_authorised``)."""

    def __init__(self, table: str, epoch: str, error: object) -> None:
        super().__init__(f"table {table} refused the replay: {error}")
        self.table, self.epoch, self.error = table, epoch, error


STATS_EVENTS: Final = frozenset({"hand_ended", "seat"})
"""Event types after which a table's statistics are published again."""


def stats_topic(table: str) -> Topic:
    """``poker/v1/floor/tables/{table}/stats``: the seated players' statistics, retained."""
    return topics.floor_stats(table)


class TableStatsSource(Protocol):
    """Where the statistics come from (``PgStore.table_stats``: computed in PostgreSQL; not
    the ingesting store: it is called from a thread of its own)."""

    def table_stats(self, table: str) -> TableStats | None:
        """The seated players' statistics at ``table``, None when there is nothing to say.

        Raises:
            StoreUnavailableError: the database is away (published at the next hand end).
        """
        ...


class FloorClient(Protocol):
    """What the service needs of its MQTT connection (``MqttPublisher(manual_ack=True)``)."""

    async def publish(self, topic: Topic, payload: bytes, *, retain: bool = False,
                      qos: int = 1, secret: bool = False,
                      props: MessageProps | None = None) -> None:
        """See :meth:`tablectl.publish.base.Publisher.publish`."""
        ...

    async def subscribe(self, topic_filter: str, qos: int = 1) -> None:
        """See :meth:`tablectl.publish.base.Subscriber.subscribe`."""
        ...

    def messages(self) -> Any:
        """See :meth:`tablectl.publish.base.Subscriber.messages`."""
        ...

    def ack(self, msg: IncomingMessage) -> None:
        """Acknowledge a message after its batch is stored."""
        ...


@dataclass(frozen=True, slots=True)
class FloorSettings:
    """How one worker runs.

    Attributes:
        user: its broker username (replay commands carry it; replies come to its area).
        group: the shared-subscription group every worker of the floor joins.
        batch_max / batch_wait: a batch closes at this many messages or seconds.
        reorder / retry: seconds before the first replay request of a gap, and between the
            first two (then twice as long each time, up to ``max_retry``).
        sweep: seconds between two looks for gaps.
        shared: False subscribes without ``$share`` (one worker that must see everything).
    """

    user: str = "floor-01"
    group: str = "floor"
    batch_max: int = 500
    batch_wait: float = 0.02
    reorder: float = 0.5
    retry: float = 3.0
    max_retry: float = 300.0
    sweep: float = 0.5
    shared: bool = True

    def __post_init__(self) -> None:
        topics.segment(self.user, "floor user")
        topics.segment(self.group, "shared subscription group")
        if self.batch_max < 1 or self.batch_wait < 0 or self.sweep <= 0:
            raise ValueError("batch_max >= 1, batch_wait >= 0 and sweep > 0 are required")

    def filters(self) -> list[str]:
        """The subscriptions: events and snapshots of every table, and the replay replies."""
        share = f"$share/{self.group}/" if self.shared else ""
        return [f"{share}{topics.PUBLIC_ROOT}/tables/+/events",
                f"{share}{topics.PUBLIC_ROOT}/tables/+/state",
                self.reply_topic.value]

    @property
    def reply_topic(self) -> Topic:
        """Where the daemons send this worker's replay replies."""
        return topics.reply(self.user, "replay")


@dataclass(slots=True)
class FloorStats:
    """Counters of one worker (the bench and the tests read them; ``refused``: messages
    that could not be decoded, ``quarantined``: messages set aside, those and the ones the
    store refused)."""

    batches: int = 0
    messages: int = 0
    applied: int = 0
    duplicates: int = 0
    rows: int = 0
    refused: int = 0
    quarantined: int = 0
    replays: int = 0
    store_failures: int = 0
    flags: int = 0
    stats_published: int = 0
    commit_seconds: list[float] = field(default_factory=list)


class FloorService:
    """One floor worker (see the module docstring)."""

    def __init__(self, settings: FloorSettings, store: Store, client: FloorClient, *,
                 table_stats: TableStatsSource | None = None) -> None:
        self.settings = settings
        self.store = store
        self.client = client
        self.table_stats = table_stats
        self.stats = FloorStats()
        self.tracker = GapTracker(reorder=settings.reorder, retry=settings.retry,
                                  max_retry=settings.max_retry)
        self._queue: asyncio.Queue[IncomingMessage | None] = asyncio.Queue()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="floor-store")
        self._stats_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="floor-stats")
        self._stats_due: set[str] = set()
        self._stats_wakeup = asyncio.Event()
        self._stopping = asyncio.Event()
        self._asked: OrderedDict[str, ReplayRequest] = OrderedDict()

    def stop(self) -> None:
        """End :meth:`run` after the batch under way."""
        self._stopping.set()
        self._queue.put_nowait(None)

    async def run(self) -> None:
        """Subscribe and serve until :meth:`stop` or the client closes."""
        for topic_filter in self.settings.filters():
            await self.client.subscribe(topic_filter, qos=1)
        tasks = [asyncio.create_task(self._publish_stats(), name="floor-stats")] \
            if self.table_stats is not None else []
        consume = asyncio.create_task(self._consume(), name="floor-consume")
        tasks += [asyncio.create_task(self._read(), name="floor-read"), consume,
                  asyncio.create_task(self._sweep(), name="floor-sweep")]
        for task in tasks:
            task.add_done_callback(self._ended)
        try:
            await self._stopping.wait()
            # the batch under way is stored and acknowledged before the worker goes (cut
            # between its commit and its PUBACKs, the broker would hand it over again: a
            # quarantined message counted twice); a store that hangs is given up on
            await asyncio.wait({consume}, timeout=STOP_GRACE)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._executor.shutdown(wait=True)
            self._stats_executor.shutdown(wait=True)
        failed = [t for t in tasks if not t.cancelled() and t.exception() is not None]
        if failed:
            raise FloorFailedError(f"{failed[0].get_name()} failed: "
                                   f"{failed[0].exception()!r}") from failed[0].exception()

    def _ended(self, task: asyncio.Task[None]) -> None:
        """A part of the worker ended by itself: stop the whole worker (its supervisor
        restarts it; unacknowledged messages come again)."""
        if not task.cancelled() and (exc := task.exception()) is not None:
            _LOGGER.error("floor: %s failed", task.get_name(), exc_info=exc)
            self.stop()

    async def _read(self) -> None:
        async for msg in self.client.messages():
            self._queue.put_nowait(msg)
        self.stop()

    async def _store(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def _consume(self) -> None:
        while (batch := await self._next_batch()) is not None:
            rejected: list[QuarantineRow] = []
            parts = [part for msg in batch if (part := self._decode(msg, rejected)) is not None]
            result = await self._store_parts(parts, rejected)
            await self._set_aside(rejected)
            for msg in batch:
                self.client.ack(msg)
            self.stats.batches += 1
            self.stats.messages += len(batch)
            if result.flags:
                await self._announce(result.flags)
            if self.table_stats is not None:
                due = {e.table for p in parts for e in p.events if e.type in STATS_EVENTS}
                if due:
                    self._stats_due |= due
                    self._stats_wakeup.set()

    async def _next_batch(self) -> list[IncomingMessage] | None:
        first = await self._queue.get()
        if first is None:
            return None
        batch = [first]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.batch_wait
        while len(batch) < self.settings.batch_max:
            try:
                msg = self._queue.get_nowait()
            except asyncio.QueueEmpty:
                left = deadline - loop.time()
                if left <= 0:
                    break
                try:
                    async with asyncio.timeout(left):
                        msg = await self._queue.get()
                except TimeoutError:
                    break
            if msg is None:
                self._queue.put_nowait(None)     # stop after this batch
                break
            batch.append(msg)
        return batch

    def _decode(self, msg: IncomingMessage, rejected: list[QuarantineRow]) -> _Part | None:
        """One message's events and snapshot; None (and a row in ``rejected``) when it
        cannot be decoded, or when it brings nothing (a cleared snapshot, a refused replay)."""
        table: str | None = None
        try:
            if msg.topic == self.settings.reply_topic:
                request = self._reply_request(msg)
                table = request.table
                return _Part(msg, self._replayed(msg, request), [])
            table = topic_table(msg.topic.value)
            if msg.topic.value.endswith(EVENTS_SUFFIX):
                return _Part(msg, [decode_event(msg.payload, table)], [])
            if not msg.payload:
                return None                      # a retained snapshot cleared
            return _Part(msg, [], [decode_snapshot(msg.payload, table)])
        except ReplayRefusedError as exc:
            self.tracker.refused(exc.table, exc.epoch, exc.error, time.monotonic())
            self._log_notices()
        except FloorInputError as exc:
            self.stats.refused += 1
            rejected.append(self._row(msg, table, str(exc)))
        return None

    def _row(self, msg: IncomingMessage, table: str | None, reason: str) -> QuarantineRow:
        row = QuarantineRow.of(topic=msg.topic.value, table=table, reason=reason,
                               raw=msg.payload, received_at=datetime.now(UTC))
        _LOGGER.warning("floor: quarantined a message on %s (%d bytes, sha256 %s): %s",
                        row.topic, row.size, row.digest[:16], row.reason)
        return row

    def _reply_request(self, msg: IncomingMessage) -> ReplayRequest:
        """The request of ours a reply answers, by the nonce of its correlation data: a
        reply to anything else (a bridge user forging another table's events, or a reply
        to a request of before a restart) is refused."""
        corr = (msg.props.correlation_data or b"").decode("utf-8", "replace")
        _LOGGER.info("floor: replay reply %s (%d bytes)",
                     safe_text(corr, 200).replace("\\x1f", " "), len(msg.payload))
        nonce = corr.rsplit(_SEP, 1)[-1]
        request = self._asked.get(nonce)
        if request is None or corr != _correlation(request, nonce):
            raise FloorInputError("a reply to no request of this worker's (forged, or to a "
                                  "request of before a restart)")
        return request

    def _replayed(self, msg: IncomingMessage, request: ReplayRequest) -> list[FloorEvent]:
        table, epoch = request.table, request.epoch
        body = decode_reply(msg.payload)
        if body.get("status") != "ok":
            error = body.get("error")
            if isinstance(error, dict):        # the daemon's {"code", "message"}
                error = ": ".join(str(error[k]) for k in ("code", "message") if error.get(k))
            raise ReplayRefusedError(table, epoch, safe_text(str(error), 300))
        data = body.get("data")
        items = data.get("events") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(items, list):
            raise FloorInputError("reply: data.events must be a list")
        journal = data.get("journal")
        if journal is not None and not isinstance(journal, str):
            raise FloorInputError("reply: data.journal must be a string")
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise FloorInputError(f"reply.data.events[{i}]: must be an object")
            event = event_from_body(item, table, journal=journal,
                                    what=f"reply.data.events[{i}]")
            if event.epoch != epoch:
                raise FloorInputError(f"reply: epoch {event.epoch} where {epoch} was asked")
            if not request.from_seq <= event.seq <= request.to_seq:
                raise FloorInputError(f"reply: seq {event.seq} where {request.from_seq}.."
                                      f"{request.to_seq} was asked")
            out.append(event)
        return out

    async def _store_parts(self, parts: list[_Part], rejected: list[QuarantineRow]
                           ) -> IngestResult:
        """Store the parts' events and snapshots in one transaction; if the store refuses
        them, store each half the same way, down to the one message that fails (quarantined
        with the store's reason)."""
        try:
            return await self._ingest([e for p in parts for e in p.events],
                                      [s for p in parts for s in p.snapshots])
        except StoreRefusedError as exc:
            reason = str(exc)
        except Exception as exc:  # a bug on one message must not stop every table
            _LOGGER.error("floor: batch of %d messages failed", len(parts), exc_info=exc)
            reason = f"floor could not fold it: {type(exc).__name__}: {exc}"
        if len(parts) == 1:
            rejected.append(self._row(parts[0].msg, _table_of(parts[0]), reason))
            return IngestResult()
        half = len(parts) // 2
        first = await self._store_parts(parts[:half], rejected)
        second = await self._store_parts(parts[half:], rejected)
        return IngestResult(applied=first.applied + second.applied,
                            duplicates=first.duplicates + second.duplicates,
                            waiting=first.waiting + second.waiting,
                            rows=first.rows + second.rows, flags=first.flags + second.flags,
                            gaps=second.gaps)

    async def _set_aside(self, rows: list[QuarantineRow]) -> None:
        """Quarantine ``rows``, waiting for a database that is away like :meth:`_ingest`."""
        delay = 0.5
        while rows:
            try:
                await self._store(self.store.quarantine, rows)
            except StoreUnavailableError as exc:
                self.stats.store_failures += 1
                _LOGGER.warning("floor: %d quarantined messages not stored (%s); again in "
                                "%.1f s", len(rows), exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            except StoreRefusedError as exc:     # nothing else can be done with them
                _LOGGER.error("floor: %d quarantined messages dropped: %s", len(rows), exc)
            self.stats.quarantined += len(rows)
            return

    async def _ingest(self, events: list[FloorEvent], snapshots: list[FloorSnapshot]
                      ) -> IngestResult:
        delay = 0.5
        while True:
            started = time.perf_counter()
            try:
                result: IngestResult = await self._store(self.store.ingest, events, snapshots)
            except StoreUnavailableError as exc:
                self.stats.store_failures += 1
                _LOGGER.warning("floor: batch of %d events not stored (%s); again in %.1f s",
                                len(events), exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            self.stats.commit_seconds.append(time.perf_counter() - started)
            self.stats.applied += result.applied
            self.stats.duplicates += result.duplicates
            self.stats.rows += result.rows
            return result

    async def _announce(self, flags: Sequence[FlagRow]) -> None:
        for flag in flags:
            self.stats.flags += 1
            payload = json.dumps({"v": 1, "type": "flag", "hand": flag.hand_id,
                                  "rule": flag.rule, "kind": flag.kind, "seat": flag.seat,
                                  "detail": flag.detail,
                                  "ts": datetime.now(UTC).isoformat()}).encode()
            try:
                await self.client.publish(FLAGS_TOPIC, payload, qos=1)
            except PublishError as exc:       # it is in the database either way
                _LOGGER.warning("floor: flag %s of %s not published: %s", flag.rule,
                                flag.hand_id, exc)

    async def _publish_stats(self) -> None:
        """Publish the seated players' statistics of every table due, retained (computed in
        a thread of their own, after the batch's commit), until cancelled."""
        source = self.table_stats
        loop = asyncio.get_running_loop()
        while source is not None:
            await self._stats_wakeup.wait()
            self._stats_wakeup.clear()
            tables, self._stats_due = sorted(self._stats_due), set()
            for table in tables:
                await self._publish_table_stats(loop, source, table)

    async def _publish_table_stats(self, loop: asyncio.AbstractEventLoop,
                                   source: TableStatsSource, table: str) -> None:
        try:
            stats = await loop.run_in_executor(self._stats_executor, source.table_stats, table)
        except StoreUnavailableError as exc:
            _LOGGER.warning("floor: statistics of table %s not computed: %s", table, exc)
            return
        except Exception as exc:  # a side output: a bug here must not stop the history
            _LOGGER.error("floor: statistics of table %s failed", table, exc_info=exc)
            return
        if stats is None:
            return
        payload = json.dumps(stats.to_json(datetime.now(UTC)), ensure_ascii=False)
        try:
            await self.client.publish(stats_topic(table), payload.encode(), retain=True, qos=1)
            self.stats.stats_published += 1
        except PublishError as exc:       # the next hand end publishes them again
            _LOGGER.warning("floor: statistics of table %s not published: %s", table, exc)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.settings.sweep)
            try:
                gaps = await self._store(self.store.gaps)
            except StoreUnavailableError as exc:
                _LOGGER.debug("floor: no gap sweep: %s", exc)
                continue
            requests = self.tracker.update(gaps, time.monotonic())
            self._log_notices()
            for request in requests:
                await self._ask(request)

    def _log_notices(self) -> None:
        for level, text in self.tracker.take_notices():
            _LOGGER.log(level, "floor: %s", text)

    async def _ask(self, request: ReplayRequest) -> None:
        s = self.settings
        payload = json.dumps({"v": 1, "id": uuid.uuid4().hex,
                              "ts": datetime.now(UTC).isoformat(),
                              "args": {**epoch_wire(request.epoch),
                                       "from_seq": request.from_seq,
                                       "to_seq": request.to_seq}}).encode()
        nonce = uuid.uuid4().hex
        self._asked[nonce] = request
        while len(self._asked) > MAX_ASKED:
            self._asked.popitem(last=False)
        props = MessageProps(response_topic=s.reply_topic.value,
                             correlation_data=_correlation(request, nonce).encode(),
                             message_expiry=10, content_type="application/json")
        with contextlib.suppress(PublishError):   # asked again at the tracker's next interval
            self.stats.replays += 1
            await self.client.publish(topics.cmd(request.table, "replay", s.user), payload,
                                      qos=1, props=props)


@dataclass(frozen=True, slots=True)
class _Part:
    """One message of a batch, decoded."""

    msg: IncomingMessage
    events: list[FloorEvent]
    snapshots: list[FloorSnapshot]


def _correlation(request: ReplayRequest, nonce: str) -> str:
    """A replay request's correlation data: its table, its run and a nonce, which a
    bridge user who did not see the request cannot guess."""
    return f"{request.table}{_SEP}{request.epoch}{_SEP}{nonce}"


def _table_of(part: _Part) -> str | None:
    first = part.events[0] if part.events else (part.snapshots[0] if part.snapshots else None)
    return first.table if first is not None else None


__all__ = ["FLAGS_TOPIC", "STATS_EVENTS", "FloorClient", "FloorFailedError", "FloorService",
           "FloorSettings", "FloorStats", "TableStatsSource", "stats_topic"]
