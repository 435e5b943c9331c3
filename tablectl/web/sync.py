"""Sans-IO views of a table for browsers: the public display and the delayed broadcast overlay.

:class:`PublicSync` follows the resync rules of the MQTT API (``docs/mqtt.md``) for one table:

* every payload is the daemon's envelope (``tablectl.publish.envelope``): events and snapshots
  are ``{"v", "table", "epoch", "seq", "type", "ts", "hand", "data": {...}}`` with the body in
  ``data``, the status is ``{"v", "table", "state": "online"|"offline", "version", "epoch"}``;
* the retained ``state`` snapshot is the truth; its envelope carries the ``epoch`` and the
  ``seq`` of the last event it includes;
* events of the same epoch are taken in order (``seq == last + 1``); an event with a larger
  ``seq`` is a gap: the view is marked *resyncing* and later events are not trusted until a
  snapshot with ``seq`` at least as large arrives (the daemon republishes it after every event);
* a run is ``(journal, epoch)`` (``tablectl.publish.runs``): a snapshot, event or online
  status of a new run (the daemon restarted, or another journal: a fresh journal is a new
  table history whatever its epoch) resets the view; anything of an older run is ignored;
* ``status: offline`` (the daemon's last will) or the loss of the web server's own broker link
  makes the view *stale*: the page still shows the last state, marked as not live; a status
  of an older run than the view's (a late will of a previous run) is ignored.

The seats, board, pots, results and the action log come from the snapshot (its ``log``, the
hand's public log from its start: a page loaded mid-hand shows it whole); only for a daemon
whose snapshots carry no ``log`` (before it was added) is the log built from the events.
Nothing here does I/O or reads a clock: :class:`OverlaySync`
takes the monotonic time as an argument.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Generic, TypeVar

from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object
from tablectl.publish.runs import Run, RunOrder, RunTracker
from tablectl.web.link import FeedItem, LinkChange, LinkState, Message, floor_stats_topic

_LOGGER = logging.getLogger(__name__)

JsonObject = dict[str, object]

LOG_TYPES: Final = frozenset({
    "hand_started", "forced_bet", "action", "bet_returned", "board", "face_up", "showdown",
    "winner", "hand_ended", "error", "device", "correction", "seat", "runs",
})
"""Event types shown in the display's action log (``pot`` and ``cards_dealt`` are not)."""

REVEAL_PHASES: Final = frozenset({"showdown", "settled"})


FEED_LIMITS: Final = JsonLimits(max_bytes=256 * 1024)
"""A snapshot or event of the feeds (ten seats, their cards, pots, errors)."""


def _decode(message: Message) -> JsonObject | None:
    """The payload as a strict JSON object (no NaN that a browser's JSON.parse would choke
    on, bounded), or None (logged)."""
    try:
        data = decode_object(message.payload, FEED_LIMITS)
    except StrictJsonError as exc:
        _LOGGER.warning("ignoring a payload on %s: %s", message.topic, exc)
        return None
    return dict(data)


def _int(data: JsonObject, key: str) -> int | None:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _body(data: JsonObject) -> JsonObject | None:
    """The ``data`` body of an event or snapshot envelope (None when it has none)."""
    body = data.get("data")
    return body if isinstance(body, dict) else None


def log_entry(envelope: JsonObject, body: JsonObject) -> JsonObject:
    """An action-log entry: the event's body with its ``type``, ``seq`` and ``ts`` beside it
    (a body's own ``hand``, the ``{id, number}`` of hand_started / hand_ended, is kept).

    >>> log_entry({"type": "board", "seq": 7, "ts": "t", "hand": 3, "data": {}},
    ...           {"cards": ["Ah"], "street": "flop"})
    {'cards': ['Ah'], 'street': 'flop', 'type': 'board', 'seq': 7, 'ts': 't'}
    """
    return {**body, "type": envelope.get("type"), "seq": envelope.get("seq"),
            "ts": envelope.get("ts")}


def redact_hidden_cards(snapshot: JsonObject) -> int:
    """Blank any face-down card that carries a value before showdown; return how many.

    The public snapshot must not carry hole cards until the rules show them; if one does (a
    daemon bug), it must still never reach a public browser.

    >>> snap = {"phase": "betting", "seats": [{"cards": [{"card": "Ah", "up": False}]}]}
    >>> redact_hidden_cards(snap), snap["seats"][0]["cards"][0]["card"]
    (1, None)
    """
    if snapshot.get("phase") in REVEAL_PHASES:
        return 0
    removed = 0
    seats = snapshot.get("seats")
    for seat in seats if isinstance(seats, list) else []:
        cards = seat.get("cards") if isinstance(seat, dict) else None
        for card in cards if isinstance(cards, list) else []:
            if isinstance(card, dict) and card.get("card") is not None and not card.get("up"):
                card["card"] = None
                removed += 1
    return removed


class PublicSync:
    """The public view of one table, built from its ``poker/`` topics.

    Args:
        table: the table id; messages of other tables are ignored.
        log_size: how many recent events the action log keeps.
        four_colour: whether pages should draw a four-colour deck by default.
        title: the table's name for page headers (default: the snapshot's ``table_name``,
            else the id).
    """

    def __init__(self, table: str, *, log_size: int = 14, four_colour: bool = False,
                 title: str = "") -> None:
        self.table = table
        self._title = title
        self._prefix = f"poker/v1/tables/{table}/"
        self._log_size = log_size
        self._four_colour = four_colour
        self.snapshot: JsonObject | None = None
        self._runs = RunTracker()
        self._offline_run: Run | None = None
        self.seq: int | None = None
        self.status = "unknown"
        self.link_up = False
        self.resyncing = False
        self._log: deque[JsonObject] = deque(maxlen=log_size)
        self._logged: set[int] = set()
        self.version = 0

    @property
    def title(self) -> str:
        """The table's name for people: the one given, the snapshot's, or the id."""
        name = self.snapshot.get("table_name") if self.snapshot is not None else None
        return self._title or (name if isinstance(name, str) and name else self.table)

    @property
    def run(self) -> Run | None:
        """The daemon run shown or awaited (None before anything arrived)."""
        return self._runs.current

    @property
    def epoch(self) -> int | None:
        """The epoch of :attr:`run`."""
        return None if self._runs.current is None else self._runs.current.epoch

    @property
    def stale(self) -> bool:
        """True when the view may not be live: daemon offline, no broker link, no snapshot."""
        return self.status == "offline" or not self.link_up or self.snapshot is None

    def feed(self, item: FeedItem) -> bool:
        """Take one feed item; return True when the view changed."""
        match item:
            case LinkChange(state=state):
                changed = self.link_up != (state is LinkState.UP)
                self.link_up = state is LinkState.UP
            case Message(topic=topic):
                if not topic.startswith(self._prefix):
                    return False
                data = _decode(item)
                if data is None or data.get("table", self.table) != self.table:
                    return False
                kind = topic[len(self._prefix):]
                if kind == "state":
                    changed = self._on_state(data)
                elif kind == "events":
                    changed = self._on_event(data)
                elif kind == "status":
                    changed = self._on_status(data)
                else:
                    changed = False
        if changed:
            self.version += 1
        return changed

    def _reset(self, run: Run) -> None:
        _LOGGER.info("table %s: new run %s, view reset", self.table, run,
                     extra={"table": self.table})
        self._runs.enter(run)
        self.seq = None
        self.snapshot = None
        self._log.clear()
        self._logged.clear()
        self.resyncing = False
        # what the status said was about the run left, unless it was about this one
        self.status = "offline" if run == self._offline_run else "unknown"

    def _on_state(self, data: JsonObject) -> bool:
        run, seq = Run.of(data), _int(data, "seq")
        envelope = data
        body = _body(envelope)
        if run is None or seq is None or body is None \
                or not isinstance(body.get("seats"), list):
            _LOGGER.warning("table %s: ignoring a state without epoch, seq or data.seats",
                            self.table)
            return False
        data = body
        order = self._runs.classify(run)
        if order is RunOrder.OLD:
            return False  # a late copy from a run this view has left
        if order is RunOrder.NEW:
            self._reset(run)
        elif self.seq is not None and seq < self.seq:
            return False  # older than what we have: a late retained copy
        if redact_hidden_cards(data):
            _LOGGER.error("table %s: public snapshot seq %s carried hidden cards; blanked them",
                          self.table, seq, extra={"table": self.table})
        hand = data.get("hand")
        old_hand = self.snapshot.get("hand") if self.snapshot else None
        if hand != old_hand and isinstance(hand, dict) and isinstance(old_hand, dict):
            self._log.clear()
            self._logged.clear()
        self.snapshot = data
        self.seq = seq
        self.resyncing = False
        return True

    def _on_event(self, data: JsonObject) -> bool:
        run, seq = Run.of(data), _int(data, "seq")
        kind = data.get("type")
        body = _body(data)
        if run is None or seq is None or not isinstance(kind, str) or body is None:
            _LOGGER.warning("table %s: ignoring an event without epoch, seq, type or data",
                            self.table)
            return False
        order = self._runs.classify(run)
        if order is RunOrder.OLD:
            return False  # a straggler from a previous run of the daemon
        if order is RunOrder.NEW:
            self._reset(run)
            self.resyncing = True  # a new run: wait for its snapshot
            return True
        if self.resyncing or self.seq is None:
            return False  # until a snapshot tells where we are
        if seq > self.seq + 1:
            _LOGGER.info("table %s: gap after seq %s (got %s), waiting for a snapshot",
                         self.table, self.seq, seq, extra={"table": self.table})
            self.resyncing = True
            return True
        if seq == self.seq + 1:
            self.seq = seq
        if kind == "hand_started":
            self._log.clear()
            self._logged.clear()
        if kind in LOG_TYPES and seq not in self._logged:
            # Also when the snapshot of this event came first (seq <= last): the log is
            # informational and keyed by seq, so order of arrival does not matter.
            self._logged.add(seq)
            last = self._log[-1] if self._log else None
            if kind == "board" and last is not None and last.get("type") == "board" \
                    and last.get("street") == body.get("street") \
                    and last.get("run") == body.get("run") \
                    and last.get("board") == body.get("board"):
                # one board event per card, each with the whole board so far: the flop is
                # one line of the log, not three
                self._log.pop()
            self._log.append(log_entry(data, body))
            return True
        return False

    def _on_status(self, data: JsonObject) -> bool:
        status = data.get("state")
        run = Run.of(data)
        if status not in ("online", "offline") or run is None:
            return False
        order = self._runs.classify(run)
        if order is RunOrder.OLD:
            return False  # a late will of a previous run of the daemon
        if status == "offline":
            # the run shown is offline, or a newer one: either way the view is not live
            self._offline_run = run
        elif order is RunOrder.NEW:
            self._offline_run = None
            self._reset(run)
            self.resyncing = True  # a new run is live: wait for its snapshot
            self.status = "online"
            return True
        else:
            self._offline_run = None
        changed = status != self.status
        self.status = str(status)
        return changed

    def _snapshot_log(self) -> tuple[list[object], int] | None:
        """The snapshot's log and how many entries it leaves out (None: it has none)."""
        snap = self.snapshot
        log = snap.get("log") if snap is not None else None
        if not isinstance(log, list):
            return None
        omitted = snap.get("log_omitted") if snap is not None else 0
        return ([e for e in log if isinstance(e, dict)],
                omitted if isinstance(omitted, int) and not isinstance(omitted, bool) else 0)

    def view(self) -> JsonObject:
        """What public browsers get: the snapshot, freshness flags and the action log."""
        from_snapshot = self._snapshot_log()
        log, omitted = from_snapshot if from_snapshot is not None else (list(self._log), 0)
        return {
            "kind": "public",
            "table": self.table,
            "title": self.title,
            "version": self.version,
            "status": self.status,
            "run": None if self.run is None else {
                "journal": self.run.journal, "epoch": self.run.epoch, "seq": self.seq},
            "connected": self.link_up,
            "stale": self.stale,
            "resyncing": self.resyncing,
            "snapshot": self.snapshot,
            "log": log,
            "log_omitted": omitted,
            "four_colour": self._four_colour,
        }


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class _Held(Generic[T]):
    due: float
    item: T


class DelayLine(Generic[T]):
    """Holds items back for a fixed delay, first in, first out.

    Times are monotonic seconds given by the caller.

    >>> line: DelayLine[str] = DelayLine(1.5)
    >>> line.push("As Kd", now=10.0)
    >>> line.pop_due(11.0), line.next_due()
    ([], 11.5)
    >>> line.pop_due(11.5)
    ['As Kd']
    """

    def __init__(self, delay: float) -> None:
        if delay < 0:
            raise ValueError(f"delay must not be negative: {delay}")
        self.delay = delay
        self._held: deque[_Held[T]] = deque()

    def __len__(self) -> int:
        return len(self._held)

    def push(self, item: T, now: float) -> None:
        """Hold ``item`` until ``now + delay``."""
        self._held.append(_Held(now + self.delay, item))

    def next_due(self) -> float | None:
        """When the oldest held item becomes due, or None when nothing is held."""
        return self._held[0].due if self._held else None

    def pop_due(self, now: float) -> list[T]:
        """Remove and return every item due at ``now``, oldest first."""
        out: list[T] = []
        while self._held and self._held[0].due <= now:
            out.append(self._held.popleft().item)
        return out


class OverlaySync:
    """The broadcast overlay's view: the secure feed (state, hole cards, odds), and the floor's
    statistics of the seated players, released only after the delay.

    Items of the secure feed are parsed when they arrive (bad ones are dropped at once) and
    held in a :class:`DelayLine`; :meth:`release` applies those that are due. :meth:`view`
    therefore never contains a hole card received less than ``delay`` seconds ago.

    Runs are compared as on the public feed (:mod:`tablectl.publish.runs`): an item of a new
    run (the daemon restarted, or another journal took the table over) resets the view before
    it applies, an item of a run left is dropped, and so is a secure snapshot older than the
    one shown. Hand ids restart with every journal (``{table}-000001``), so without this a
    fresh journal's first hand would inherit the hole cards of the old journal's first hand.

    The floor's statistics (``poker/v1/floor/tables/{t}/stats``, on the public feed: the
    server hands them over) count hands that ended, showdowns and chips won: a hand that ended
    within the delay is not on the broadcast yet, so they are held like the hole cards
    (docs/floor.md, "What the broadcast delay allows"). They are about players, not a run:
    a new run keeps them; a message counting fewer hands than the one shown (``through``
    older: another floor worker's, late) is dropped.

    Args:
        table: the table id.
        delay: the broadcast delay in seconds.
    """

    def __init__(self, table: str, delay: float) -> None:
        self.table = table
        self._prefix = f"secure/v1/tables/{table}/"
        self.stats_topic = floor_stats_topic(table)
        self._line: DelayLine[tuple[str, Run | None, int | None, JsonObject]] = DelayLine(delay)
        self._runs = RunTracker()
        self._state_seq = -1
        self.snapshot: JsonObject | None = None
        self.hand: str | None = None
        self.holecards: dict[int, list[str | None]] = {}
        self.odds: JsonObject | None = None
        self.stats: JsonObject | None = None
        self.link_up = False
        self.version = 0

    @property
    def delay(self) -> float:
        """The broadcast delay in seconds."""
        return self._line.delay

    def receive(self, item: FeedItem, now: float) -> bool:
        """Take one secure-feed item at monotonic time ``now``; True when the view changed
        at once (only link changes do: everything else waits for :meth:`release`)."""
        if isinstance(item, LinkChange):
            changed = self.link_up != (item.state is LinkState.UP)
            self.link_up = item.state is LinkState.UP
            if changed:
                self.version += 1
            return changed
        if item.topic == self.stats_topic:
            return self._receive_stats(item, now)
        if not item.topic.startswith(self._prefix):
            return False
        data = _decode(item)
        if data is None or data.get("table", self.table) != self.table:
            return False
        kind = item.topic[len(self._prefix):]
        body, run = _body(data), Run.of(data)
        if body is None or run is None:
            _LOGGER.warning("table %s: ignoring a secure %s without epoch or data", self.table,
                            kind)
            return False
        if kind == "holecards":
            seat, cards = _int(body, "seat"), body.get("cards")
            if seat is None or not isinstance(cards, list) \
                    or not all(c is None or isinstance(c, str) for c in cards):
                _LOGGER.warning("table %s: ignoring hole cards without seat or cards", self.table)
                return False
        elif kind == "odds":
            if not isinstance(body.get("players"), list):
                _LOGGER.warning("table %s: ignoring odds without players", self.table)
                return False
        elif kind != "state" or not isinstance(body.get("seats"), list):
            return False
        self._line.push((kind, run, _int(data, "seq"), body), now)
        return False

    def _receive_stats(self, item: Message, now: float) -> bool:
        data = _decode(item)
        players = data.get("players") if data is not None else None
        if (data is None or data.get("type") != "stats" or data.get("table") != self.table
                or not isinstance(players, list)
                or not all(isinstance(p, dict) for p in players)
                or (data.get("through") is not None and _instant(data["through"]) is None)):
            _LOGGER.warning("table %s: ignoring floor statistics that are not a stats "
                            "message of this table", self.table)
            return False
        self._line.push(("stats", None, None, data), now)
        return False

    def next_due(self) -> float | None:
        """When the next held item is due (monotonic seconds), or None."""
        return self._line.next_due()

    def release(self, now: float) -> bool:
        """Apply every held item that is due at ``now``; True when the view changed."""
        due = self._line.pop_due(now)
        for kind, run, seq, data in due:
            if run is None:                 # the floor's statistics: not of a run
                self._apply_stats(data)
                continue
            order = self._runs.classify(run)
            if order is RunOrder.OLD:
                continue                    # a straggler of a run this view has left
            if order is RunOrder.NEW:
                self._runs.enter(run)
                self.snapshot, self.hand, self.holecards, self.odds = None, None, {}, None
                self._state_seq = -1
            if kind == "state":
                if seq is not None and seq < self._state_seq:
                    continue                # an older snapshot of the run, delivered late
                self._state_seq = -1 if seq is None else seq
                self._apply_state(data)
            elif kind == "odds":
                self._apply_odds(data)
            else:
                self._apply_holecards(data)
        if due:
            self.version += 1
        return bool(due)

    def _new_hand(self, hand: str | None) -> None:
        if hand != self.hand:
            self.hand = hand
            self.holecards = {}
            self.odds = None

    def _apply_odds(self, data: JsonObject) -> None:
        """Live odds (docs/mqtt.md "Odds"): kept for the hand they are about, shown by the page
        only while the board they were computed on is still the board."""
        hand = data.get("hand")
        hand_id = hand.get("id") if isinstance(hand, dict) else None
        if hand_id is not None and str(hand_id) == self.hand:
            self.odds = data

    def _apply_stats(self, data: JsonObject) -> None:
        shown = self.stats.get("through") if self.stats is not None else None
        new, old = _instant(data.get("through")), _instant(shown)
        if old is not None and (new is None or new < old):
            return                          # counts fewer hands than the statistics shown
        self.stats = data

    def _apply_state(self, data: JsonObject) -> None:
        hand = data.get("hand")
        self._new_hand(str(hand.get("id")) if isinstance(hand, dict) else None)
        self.snapshot = data

    def _apply_holecards(self, data: JsonObject) -> None:
        hand = data.get("hand")
        if isinstance(hand, dict):
            hand = hand.get("id")
        self._new_hand(None if hand is None else str(hand))
        seat = _int(data, "seat")
        cards = data.get("cards")
        if seat is not None and isinstance(cards, list):
            # null: a card dealt but not read (shown as a back)
            self.holecards[seat] = [None if c is None else str(c) for c in cards]

    def view(self) -> JsonObject:
        """What overlay browsers get: the delayed secure state and hole cards by seat."""
        return {
            "kind": "overlay",
            "table": self.table,
            "version": self.version,
            "connected": self.link_up,
            "delay": self.delay,
            "hand": self.hand,
            "snapshot": self.snapshot,
            "holecards": {str(seat): cards for seat, cards in sorted(self.holecards.items())},
            "odds": self.odds,
            "stats": self.stats,
        }


def _instant(value: object) -> datetime | None:
    """An ISO time with a zone, or None.

    >>> _instant("2026-12-03T10:00:00+00:00") == _instant("2026-12-03T11:00:00+01:00")
    True
    >>> _instant("yesterday") is None and _instant("2026-12-03T10:00:00") is None
    True
    """
    if not isinstance(value, str):
        return None
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        return None
    return stamp if stamp.tzinfo is not None else None
