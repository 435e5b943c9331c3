"""The daemon's publisher: the journal's outbox in order, then the snapshots that changed.

Events are published in journal order and marked published only after their PUBACK; MQTT
being down never blocks the table: events wait in the outbox and go out on reconnect. The
snapshot's body and its seq are taken together, with no await between them: the body is the
state after every event journaled so far, and seq names the last of them, so a display drops
exactly the events the snapshot already contains.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Final, Protocol

from tablectl.clock import Clock
from tablectl.controller.outcome import Outcome
from tablectl.domain.jsonvalue import JsonValue
from tablectl.journal import EventRecord, Journal
from tablectl.metrics import TableMetrics
from tablectl.publish import topics
from tablectl.publish.base import MessageProps, Publisher
from tablectl.publish.envelope import SnapshotEnvelope, encode
from tablectl.publish.errors import PublishError
from tablectl.publish.outbox import publish_event

_LOGGER = logging.getLogger(__name__)

_JSON: Final = MessageProps(content_type="application/json")


class Owner(Protocol):
    """What the outbox reads of the daemon that owns it (set after it is built: the
    publisher, the metrics and the odds' hook are chosen by the composition root)."""

    publisher: Publisher
    metrics: TableMetrics | None
    on_secure_snapshot: Callable[[SnapshotEnvelope], None] | None

    @property
    def hand_id(self) -> int | None: ...

    def public_snapshot(self) -> dict[str, JsonValue]: ...

    def secure_snapshot(self) -> Mapping[str, JsonValue]: ...


class Outbox:
    """The publishing side of one table's daemon (see the module docstring)."""

    def __init__(self, owner: Owner, table: str, journal: Journal, clock: Clock) -> None:
        self._owner = owner
        self.table = table
        self.journal = journal
        self.clock = clock
        self.wake = asyncio.Event()
        self.public_dirty = True
        self.secure_dirty = True
        self.journaled_seq: dict[str, int] = {}
        # the outbox's unpublished events in order, kept in memory so that publishing an
        # input's events needs no query; None: not loaded (at start, after a reconnect or a
        # failure), the publisher reads it again from the journal
        self._pending: deque[EventRecord] | None = None
        self._changes: list[Outcome] = []
        self.events_topic = topics.events(table)
        self.secure_topic = topics.secure_holecards(table)
        self._topics = {t.value: t for t in (self.events_topic, self.secure_topic)}

    def committed(self, outcome: Outcome, records: list[EventRecord]) -> None:
        """After an input's commit: queue its events and wake the publisher."""
        for record in records:
            self.journaled_seq[record.topic] = max(
                self.journaled_seq.get(record.topic, 0), record.seq)
        if records and self._pending is not None:
            self._pending.extend(records)
        self.public_dirty |= bool(outcome.events)
        self.secure_dirty |= bool(outcome.secure_events)
        # whether the snapshots changed is asked only after the events are out: answering
        # builds the snapshots (see SnapshotChange)
        self._changes.append(outcome)
        self.wake.set()

    def touch(self, *, public: bool = True, secure: bool = False) -> None:
        """Mark snapshots to publish again and wake the publisher."""
        self.public_dirty |= public
        self.secure_dirty |= secure
        self.wake.set()

    async def publish_pending(self) -> None:
        """Publish the outbox in order, then the snapshots that changed.

        Raises:
            PublishError: the broker is unreachable; what was not acknowledged stays pending.
        """
        self.wake.clear()
        if self._pending is None:
            self._pending = deque(self.journal.unpublished())
        pending = self._pending
        owner = self._owner
        try:
            while pending:
                record = pending[0]
                topic = self._topics.get(record.topic) or topics.Topic(record.topic)
                await publish_event(owner.publisher, self.journal, self.table, record,
                                    secret=topic.is_secure, topic=topic)
                pending.popleft()
                if owner.metrics is not None:
                    owner.metrics.published(record)
        except BaseException:
            self._pending = None     # read it again from the journal next time
            raise
        for outcome in self._changes:
            self.public_dirty |= outcome.public_changed
            self.secure_dirty |= outcome.secure_changed
        self._changes.clear()
        now = self.clock.now()
        hand_id = owner.hand_id
        if self.public_dirty:
            self.public_dirty = False
            try:
                await self._publish_snapshot(self.events_topic, topics.state(self.table),
                                             owner.public_snapshot(), now, hand_id,
                                             secret=False)
            except PublishError:
                self.public_dirty = True
                raise
        if self.secure_dirty:
            self.secure_dirty = False
            try:
                await self._publish_snapshot(self.secure_topic,
                                             topics.secure_state(self.table),
                                             owner.secure_snapshot(), now, hand_id,
                                             secret=True)
            except PublishError:
                self.secure_dirty = True
                raise

    async def _publish_snapshot(self, events: topics.Topic, state: topics.Topic,
                                body: Mapping[str, JsonValue], now: datetime,
                                hand_id: int | None, *, secret: bool) -> None:
        """One snapshot: ``seq`` is the last event journaled on ``events``; the public one
        is retained, the secure one is not (it goes only to the secure root)."""
        env = SnapshotEnvelope(table=self.table, journal=self.journal.journal_id,
                               epoch=self.journal.epoch,
                               seq=self.journaled_seq.get(events.value, 0), ts=now,
                               hand=hand_id, data=dict(body))
        await self._owner.publisher.publish(state, encode(env), retain=not secret, qos=1,
                                            secret=secret, props=_JSON)
        if secret and self._owner.on_secure_snapshot is not None:
            self._owner.on_secure_snapshot(env)

    async def run(self, connected: Callable[[], bool]) -> None:
        """Publish whenever something is pending and the broker is connected (forever)."""
        while True:
            await self.wake.wait()
            if not connected():
                self.wake.clear()
                self._changes.clear()   # the snapshots go out anew at the next connection
                continue
            try:
                await self.publish_pending()
            except PublishError as exc:
                _LOGGER.warning("table %s: publishing paused: %s", self.table, exc)
                self.wake.clear()

    def depth(self) -> int:
        """Events journaled and not yet acknowledged by the broker."""
        return len(self._pending) if self._pending is not None else len(
            self.journal.unpublished())

    def reconnected(self) -> None:
        """The broker (re)connected: the retained snapshot may be gone (no persistence), so
        republish it, and everything unacknowledged."""
        self._pending = None
        self.touch(public=True, secure=True)
