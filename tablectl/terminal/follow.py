"""Following a table over MQTT like any display: the resync rules, then the terminal view.

:class:`TableFollower` is sans-IO: feed it each message received on the table's ``state``,
``events`` and ``status`` topics (with the monotonic time) and read :attr:`TableFollower.view`.
It applies the resync rules of docs/mqtt.md through :class:`tablectl.publish.resync.Resync`
(events in ``seq`` order, duplicates dropped, a gap answered by the next snapshot, a new epoch
resets, offline marks the view stale). :func:`follow_table` runs it on a live broker.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace

from tablectl.publish import topics
from tablectl.publish.mqtt import MqttPublisher, MqttSettings
from tablectl.publish.resync import Outcome, Resync
from tablectl.terminal.view import JsonMap, TableView

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FollowUpdate:
    """What one message changed.

    Attributes:
        changed: the view is different (redraw).
        hand_ended: once per finished hand, its summary built from the hand's own events:
            ``hand``, ``board``, ``results`` (the winner events) and ``stakes`` (from the
            snapshot), in the shape :func:`tablectl.terminal.view.hand_summary_line` reads.
    """

    changed: bool
    hand_ended: JsonMap | None = None


def _fold(view: TableView, event: JsonMap) -> TableView:
    return view.with_event(event)


class TableFollower:
    """The display state of one table, fed message by message."""

    def __init__(self, table: str, *, reorder_timeout: float = 0.5) -> None:
        self.table = table
        self._state = topics.state(table)
        self._events = topics.events(table)
        self._status = topics.status(table)
        self._resync: Resync[TableView, JsonMap] = Resync(_fold, reorder_timeout=reorder_timeout)
        self._latest: JsonMap | None = None
        self._latest_seq = -1
        self._hand_events: list[JsonMap] = []
        self.hands_ended = 0

    @property
    def filters(self) -> tuple[str, ...]:
        """The topic filters to subscribe to."""
        return (self._state.value, self._events.value, self._status.value)

    @property
    def view(self) -> TableView:
        """The newest snapshot of the current epoch, the recent events, and the stale flag."""
        base = self._resync.view or TableView()
        return replace(base, snapshot=self._latest, stale=self._resync.stale)

    def feed(self, topic: str, payload: bytes, *, now: float) -> FollowUpdate:
        """Take one message; malformed payloads are logged and ignored."""
        try:
            data = json.loads(payload.decode("utf-8")) if payload else None
        except (UnicodeDecodeError, json.JSONDecodeError):
            _LOGGER.warning("ignoring a payload on %s that is not JSON", topic)
            return FollowUpdate(False)
        if not isinstance(data, dict):
            return FollowUpdate(False)
        epoch, seq = data.get("epoch"), data.get("seq")
        if topic == self._status.value:
            if isinstance(epoch, int):
                self._resync.on_status(data.get("state") == "online", epoch, now=now)
            return FollowUpdate(True)
        if not isinstance(epoch, int) or not isinstance(seq, int):
            return FollowUpdate(False)
        body = data.get("data")
        body = body if isinstance(body, dict) else {}
        if topic == self._state.value:
            before = self._resync.epoch
            outcome = self._resync.on_snapshot(epoch, seq, self._resync.view or TableView(),
                                               now=now)
            if before != self._resync.epoch:
                self._latest, self._latest_seq = None, -1
            if outcome is not Outcome.STALE and seq >= self._latest_seq:
                self._latest, self._latest_seq = body, seq
                return FollowUpdate(True)
            return FollowUpdate(False)
        if topic == self._events.value:
            event: dict[str, object] = {"type": data.get("type"), **body}
            before_seq = self._resync.seq
            outcome = self._resync.on_event(epoch, seq, event, now=now)
            if outcome is Outcome.RESET:
                self._latest, self._latest_seq = None, -1
            applied = outcome is Outcome.APPLIED
            ended: JsonMap | None = None
            if applied and self._resync.view is not None:
                for news in self._resync.view.events[-(self._resync.seq - before_seq):]:
                    ended = self._track_hand(news) or ended
            return FollowUpdate(applied, ended)
        return FollowUpdate(False)

    def _track_hand(self, event: JsonMap) -> JsonMap | None:
        kind = event.get("type")
        if kind == "hand_started":
            self._hand_events = []
        self._hand_events.append(event)
        if kind != "hand_ended":
            return None
        self.hands_ended += 1
        boards = [e.get("cards") for e in self._hand_events if e.get("type") == "board"]
        summary = {"hand": event.get("hand"), "board": boards[-1] if boards else [],
                   "results": [e for e in self._hand_events if e.get("type") == "winner"],
                   "stakes": (self._latest or {}).get("stakes", {})}
        self._hand_events = []
        return summary

    def snapshot_after_event(self, snapshot: Mapping[str, object]) -> None:
        """Overwrite the shown snapshot (tests and the demo's in-process feed)."""
        self._latest = snapshot


async def follow_table(settings: MqttSettings, table: str, *,
                       on_update: Callable[[TableFollower, FollowUpdate], Awaitable[bool]],
                       monotonic: Callable[[], float]) -> None:
    """Subscribe to ``table`` and call ``on_update`` after every message that changed the view;
    stop when it returns False. Raises what :class:`MqttPublisher` raises on connect."""
    follower = TableFollower(table)
    async with MqttPublisher(settings) as client:
        for flt in follower.filters:
            await client.subscribe(flt)
        async for msg in client.messages():
            update = follower.feed(msg.topic.value, msg.payload, now=monotonic())
            if (update.changed or update.hand_ended is not None) and not await on_update(
                    follower, update):
                return
