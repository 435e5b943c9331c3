"""Following a table over MQTT like any display: the resync rules, then the terminal view.

:class:`TableFollower` is sans-IO: feed it each message received on the table's ``state``,
``events`` and ``status`` topics (with the monotonic time) and read :attr:`TableFollower.view`.
It follows the resync rules of docs/mqtt.md:

* what is shown is always a snapshot: the newest of the current epoch (the controller
  republishes it after every input that changed it, with the ``seq`` of the last event it
  contains), so a gap in the events never leaves a wrong table on screen;
* events feed the action log and the hand summaries; one with a ``seq`` already seen in the
  epoch is a duplicate (a resend after a reconnect) and is dropped;
* anything of a new run resets the view: a run is ``(journal, epoch)``
  (``tablectl.publish.runs``), a newer epoch of the journal shown or another journal (a fresh
  journal is a new table history, whatever its epoch); anything of an older run is ignored;
* ``status`` offline marks the view stale (a late will of an older run is ignored), and so
  does the loss of the follower's own broker connection (:meth:`TableFollower.link`).

:func:`follow_table` runs it on a live broker, for ``tablectl watch`` (whose ``--hands`` and
``--timeout`` argparse bounds: :mod:`tablectl.domain.numbers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from tablectl.domain.jsonvalue import JsonValue
from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object
from tablectl.publish import topics
from tablectl.publish.commands import bounded
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tablectl.publish.runs import Run, RunOrder, RunTracker
from tablectl.terminal.view import MAX_EVENTS, JsonMap, TableView

_LOGGER = logging.getLogger(__name__)

FEED_LIMITS: Final = JsonLimits(max_bytes=256 * 1024)
"""What a display takes from the broker: the table's largest snapshot is 21.7 KB; anything
deeper, longer or stranger (NaN, control characters such as a terminal's escape) is not the
table's and is passed over (on an open broker anyone can publish on a table's topics)."""

MIN_CONNECT_WAIT: Final = 2.0
"""Seconds :func:`follow_table` waits for the broker at least, however short its watch (a
loaded machine may take a moment to connect to a broker that is there)."""
LINK_POLL: Final = 0.25
"""Seconds between looks at the broker connection (a lost link marks the view stale)."""


@dataclass(frozen=True, slots=True)
class FollowUpdate:
    """What one message changed.

    Attributes:
        changed: the view is different (redraw).
        hand_ended: once per finished hand, its summary built from the hand's own events:
            ``hand``, ``board``, ``results`` (the winner events), ``stakes`` (from the
            snapshot) and, for a rotation's hand, its ``game``, in the shape
            :func:`tablectl.terminal.view.hand_summary_line` reads.
        seat_change: a ``seat`` event (a player seated, unseated, or a stack adjusted, as a
            rebuy), for the plain one-line-per-hand output, which shows it on a line of its
            own (:func:`tablectl.terminal.view.describe_event`).
    """

    changed: bool
    hand_ended: JsonMap | None = None
    seat_change: JsonMap | None = None


class TableFollower:
    """The display state of one table, fed message by message."""

    def __init__(self, table: str) -> None:
        self.table = table
        self._state = topics.state(table)
        self._events = topics.events(table)
        self._status = topics.status(table)
        self._runs = RunTracker()
        self._latest: JsonMap | None = None
        self._latest_seq = -1
        self._seen: set[int] = set()
        self._recent: tuple[JsonMap, ...] = ()
        self._stale = False
        self._link_up = True
        self._offline_run: Run | None = None
        self._hand_events: list[JsonMap] = []
        self.hands_ended = 0

    @property
    def filters(self) -> tuple[str, ...]:
        """The topic filters to subscribe to."""
        return (self._state.value, self._events.value, self._status.value)

    @property
    def view(self) -> TableView:
        """The newest snapshot of the current epoch, the recent events, and the stale flag."""
        return TableView(self._latest, self._recent, self._stale or not self._link_up)

    def link(self, up: bool) -> FollowUpdate:
        """The follower's own broker connection went up or down (down: the view is stale
        until it is back; the broker then delivers the retained snapshot again)."""
        changed = up != self._link_up
        self._link_up = up
        return FollowUpdate(changed)

    @property
    def run(self) -> Run | None:
        """The daemon run shown or awaited."""
        return self._runs.current

    @property
    def seq(self) -> int:
        """The seq of the snapshot shown (-1: none)."""
        return self._latest_seq

    def _run_ok(self, run: Run) -> bool:
        order = self._runs.classify(run)
        if order is RunOrder.OLD:
            return False
        if order is RunOrder.NEW:
            self._runs.enter(run)
            self._latest, self._latest_seq = None, -1
            self._seen.clear()
            self._recent = ()
            self._hand_events = []
            self._stale = run == self._offline_run
        return True

    def feed(self, topic: str, payload: bytes, *, now: float) -> FollowUpdate:
        """Take one message; malformed payloads are logged and ignored."""
        data = decode_feed(topic, payload)
        if data is None:
            return FollowUpdate(False)
        run, seq = Run.of(data), data.get("seq")
        if run is None:
            return FollowUpdate(False)
        if topic == self._status.value:
            online = data.get("state") == "online"
            if self._runs.classify(run) is RunOrder.OLD:
                return FollowUpdate(False)          # e.g. a late will of an earlier run
            if online:
                self._run_ok(run)                   # a new run is live: wait for its snapshot
                self._stale, self._offline_run = False, None
            else:
                self._stale, self._offline_run = True, run
            return FollowUpdate(True)
        if not isinstance(seq, int) or not self._run_ok(run):
            return FollowUpdate(False)
        body = data.get("data")
        body = body if isinstance(body, dict) else {}
        if topic == self._state.value:
            if seq < self._latest_seq:
                return FollowUpdate(False)
            self._latest, self._latest_seq = body, seq
            return FollowUpdate(True)
        if topic == self._events.value:
            if seq in self._seen:
                return FollowUpdate(False)
            self._seen.add(seq)
            event: dict[str, object] = {"type": data.get("type"), **body}
            self._recent = (*self._recent, event)[-MAX_EVENTS:]
            return FollowUpdate(True, self._track_hand(event),
                                event if event["type"] == "seat" else None)
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
        started = [e for e in self._hand_events if e.get("type") == "hand_started"]
        # every hand names its game; the line says it only at a mixed-game table, where it
        # changes from hand to hand
        if started and started[0].get("game") and (self._latest or {}).get("rotation"):
            summary["game"] = started[0]["game"]
        self._hand_events = []
        return summary


async def follow_table(settings: MqttSettings, table: str, *,
                       on_update: Callable[[TableFollower, FollowUpdate], Awaitable[bool]],
                       monotonic: Callable[[], float], seconds: float | None = None) -> None:
    """Subscribe to ``table`` and call ``on_update`` after every message that changed the view;
    stop when it returns False, or ``seconds`` after the start (None: never).

    Raises:
        NotConnectedError: no connection to the broker within its connect timeout, or within
            ``seconds`` (at least :data:`MIN_CONNECT_WAIT`) when that is shorter: a broker
            that cannot be reached is an error, never a quiet table.
        PublishError: what else :class:`MqttPublisher` raises on connect.
    """
    start = monotonic()
    follower = TableFollower(table)
    async with MqttPublisher(connect_within(settings, seconds)) as client:
        left = None if seconds is None else max(0.0, seconds - (monotonic() - start))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(left):
                await _follow(client, follower, on_update=on_update, monotonic=monotonic)


def connect_within(settings: MqttSettings, seconds: float | None) -> MqttSettings:
    """``settings`` for a client that runs ``seconds`` (None: for ever): the first
    connection is waited for no longer than that, but at least :data:`MIN_CONNECT_WAIT`.

    >>> connect_within(MqttSettings(host="h"), 0.5).connect_timeout
    2.0
    >>> connect_within(MqttSettings(host="h"), None).connect_timeout
    10.0
    """
    if seconds is None:
        return settings
    wait = min(settings.connect_timeout, max(seconds, MIN_CONNECT_WAIT))
    return dataclasses.replace(settings, connect_timeout=wait)


async def _follow(client: MqttPublisher, follower: TableFollower, *,
                  on_update: Callable[[TableFollower, FollowUpdate], Awaitable[bool]],
                  monotonic: Callable[[], float]) -> None:
    for flt in follower.filters:
        await client.subscribe(flt)
    watching = asyncio.create_task(_watch_link(client, follower, on_update))
    try:
        async for msg in client.messages():
            update = follower.feed(msg.topic.value, msg.payload, now=monotonic())
            if (update.changed or update.hand_ended is not None) and not await on_update(
                    follower, update):
                return
    finally:
        watching.cancel()


async def _watch_link(client: MqttPublisher, follower: TableFollower,
                      on_update: Callable[[TableFollower, FollowUpdate], Awaitable[bool]]
                      ) -> None:
    """Tell the follower when the broker connection goes down or comes back."""
    while True:
        update = follower.link(client.connected)
        if update.changed:
            await on_update(follower, update)
        await asyncio.sleep(LINK_POLL)


def decode_feed(topic: str, payload: bytes) -> dict[str, JsonValue] | None:
    """``payload`` as the JSON object the table publishes, or None (an empty retained
    message, or what is not the table's: logged with why, and passed over)."""
    if not payload:
        return None
    try:
        return decode_object(payload, FEED_LIMITS)
    except StrictJsonError as exc:
        _LOGGER.warning("ignoring a payload on %s: %s", bounded(topic), exc)
        return None
