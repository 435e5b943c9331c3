"""Eliminations from the tables: what ``tablectl tournament run`` takes in.

A tournament table publishes each player a hand left at 0 chips as an ``eliminated`` event on
``poker/v1/tables/{t}/tournament`` (tablectl/daemon/busts.py), from its journal's outbox: a
table whose broker is away keeps it and sends it when the broker is back. The service reads
them with a persistent MQTT session (its messages wait on the broker while it is down) and
acknowledges each only once it is stored, or refused for good:

* every message is hostile until decoded (:func:`decode_elimination`): not an envelope of
  an ``eliminated`` event of this tournament with whole, bounded fields is refused with a
  logged reason and changes nothing (it is acknowledged: sending it again cannot help);
  another tournament's is passed over;
* a table, hand and seat recorded already (a table or a broker that sends it again) is
  recorded once (:class:`~tablectl.tournament.errors.AlreadyRecordedError`);
* the database away: the message is tried again, not acknowledged, until it is back.

After each settled hand a table also reports every seat's chips (``chip_counts``), stored
as that table's last counts (``tournament chips``). The tables in hand for hand also say
here when they are ready for the next round (``hand_for_hand_ready``,
tablectl/daemon/lockstep.py); the service counts them
(:class:`~tablectl.tournament.lockstep.Lockstep`) and publishes the next round once every
table with players is ready.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Final, Protocol

from tablectl.clock import Clock
from tablectl.domain.jsonvalue import JsonValue
from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object
from tablectl.publish.base import IncomingMessage
from tablectl.publish.errors import PublishError
from tablectl.tournament.errors import (
    AlreadyRecordedError,
    StoreUnavailableError,
    TournamentError,
)
from tablectl.tournament.service import TournamentService
from tablectl.tournament.store import Tournament

_LOGGER = logging.getLogger(__name__)

TABLES_FILTER: Final = "poker/v1/tables/+/tournament"
"""Where the tables publish what they tell the tournament service."""

ELIMINATED: Final = "eliminated"
READY: Final = "hand_for_hand_ready"
CHIP_COUNTS: Final = "chip_counts"
_LIMITS: Final = JsonLimits(max_bytes=4096, max_depth=4, max_string=128, max_items=32)
_TOPIC: Final = re.compile(r"poker/v1/tables/([A-Za-z0-9][A-Za-z0-9_.-]{0,63})/tournament")
_RETRY_MAX: Final = 30.0


class IntakeRefusedError(ValueError):
    """A message that is not an elimination the service can take; the message says why."""


@dataclass(frozen=True, slots=True)
class TableElimination:
    """One ``eliminated`` event, decoded."""

    tournament: str
    table: str
    table_number: int
    hand: str
    seat: int
    name: str
    start_chips: int


def _whole(data: dict[str, JsonValue], key: str, low: int, high: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise IntakeRefusedError(f"data.{key} must be a whole number {low} to {high}, not "
                                 f"{str(value)[:40]!r}")
    return value


def _text(data: dict[str, JsonValue], key: str, *, empty: bool = False) -> str:
    value = data.get(key)
    if not isinstance(value, str) or (not value and not empty) or len(value) > 64:
        raise IntakeRefusedError(f"data.{key} must be text of 1 to 64 characters")
    return value


@dataclass(frozen=True, slots=True)
class TableReady:
    """A table between hands in hand for hand, having played round ``played``."""

    tournament: str
    table: str
    table_number: int
    played: int


def _body(topic: str, payload: bytes, tournament: str, kind: str) -> dict[str, JsonValue] | None:
    """The ``data`` of a message of type ``kind`` for ``tournament`` from the table its topic
    names; None for another type or tournament."""
    where = _TOPIC.fullmatch(topic)
    if where is None:
        raise IntakeRefusedError(f"not a table's tournament topic: {topic[:80]!r}")
    try:
        body = decode_object(payload, _LIMITS)
    except StrictJsonError as exc:
        raise IntakeRefusedError(f"not an event: {exc}") from None
    if body.get("type") != kind:
        return None
    data = body.get("data")
    if not isinstance(data, dict):
        raise IntakeRefusedError("data is not an object")
    if data.get("tournament") != tournament:
        return None
    table = _text(data, "table")
    if table != where.group(1) or body.get("table") != table:
        raise IntakeRefusedError(f"table {table!r} is not the topic's {where.group(1)!r}")
    return data


def decode_ready(topic: str, payload: bytes, tournament: str) -> TableReady | None:
    """The hand-for-hand ready report in ``payload``, None when it is another tournament's or
    another kind of message.

    Raises:
        IntakeRefusedError: not a whole, sane report.
    """
    data = _body(topic, payload, tournament, READY)
    if data is None:
        return None
    return TableReady(tournament, _text(data, "table"), _whole(data, "table_number", 1, 999),
                      _whole(data, "round", 0, 10**9))


@dataclass(frozen=True, slots=True)
class TableChips:
    """A table's chip counts after one of its hands: ``(seat, name, chips)``."""

    table: str
    table_number: int
    hand: str
    seats: tuple[tuple[int, str, int], ...]


def decode_chips(topic: str, payload: bytes, tournament: str) -> TableChips | None:
    """The chip counts in ``payload``, None when another tournament's or another kind.

    Raises:
        IntakeRefusedError: not whole, sane counts.
    """
    data = _body(topic, payload, tournament, CHIP_COUNTS)
    if data is None:
        return None
    raw = data.get("seats")
    if not isinstance(raw, list) or len(raw) > 12:
        raise IntakeRefusedError("data.seats is not a list of at most 12 seats")
    seats = []
    for s in raw:
        if not isinstance(s, dict):
            raise IntakeRefusedError("data.seats holds something that is not a seat")
        seats.append((_whole(s, "seat", 1, 12), _text(s, "name", empty=True),
                      _whole(s, "stack", 0, 10**15)))
    if len({seat for seat, _, _ in seats}) != len(seats):
        raise IntakeRefusedError("data.seats names a seat twice")
    return TableChips(_text(data, "table"), _whole(data, "table_number", 1, 999),
                      _text(data, "hand"), tuple(seats))


def decode_elimination(topic: str, payload: bytes, tournament: str) -> TableElimination | None:
    """The elimination in ``payload`` (published on ``topic``), None when it is another
    tournament's or another kind of event.

    Raises:
        IntakeRefusedError: not a whole, sane elimination event.
    """
    data = _body(topic, payload, tournament, ELIMINATED)
    if data is None:
        return None
    table = _text(data, "table")
    return TableElimination(tournament, table, _whole(data, "table_number", 1, 999),
                            _text(data, "hand"), _whole(data, "seat", 1, 12),
                            _text(data, "name", empty=True),
                            _whole(data, "start_chips", 1, 10**15))


class Feed(Protocol):
    """A persistent MQTT session that acknowledges by itself
    (:class:`~tablectl.publish.mqtt.MqttPublisher` with ``manual_ack``)."""

    def messages(self) -> AsyncIterator[IncomingMessage]: ...

    def ack(self, msg: IncomingMessage) -> None: ...


Seen = Callable[[str, TableElimination | None], None]
"""Told of each message handled: ``recorded``, ``again``, ``refused`` or ``passed``; and for a
hand-for-hand report ``waiting`` or ``go`` (the next round went); for chip counts
``counted``."""


class Intake:
    """Takes the tables' eliminations into ``service`` (see the module docstring)."""

    def __init__(self, service: TournamentService, tournament: str, clock: Clock, *,
                 seen: Seen | None = None) -> None:
        self.service = service
        self.tournament = tournament
        self.clock = clock
        self.seen = seen

    async def handle(self, topic: str, payload: bytes) -> str:
        """One message: ``recorded``, ``again`` (recorded before), ``refused`` (logged) or
        ``passed`` (not for this tournament). The database away: tried again until it is
        back (never ``refused`` for that)."""
        try:
            ready = decode_ready(topic, payload, self.tournament)
            chips = decode_chips(topic, payload, self.tournament)
            found = decode_elimination(topic, payload, self.tournament)
        except IntakeRefusedError as exc:
            _LOGGER.warning("tournament %s: a message on %s refused, nothing changed: %s",
                            self.tournament, topic[:80], exc)
            return self._told("refused", None)
        if ready is not None:
            return await self._ready(ready)
        if chips is not None:
            return self._chips(chips)
        if found is None:
            return self._told("passed", None)
        wait = 1.0
        while True:
            try:
                t = self.service.table_bust(self.tournament, table=found.table_number,
                                            seat=found.seat, hand=found.hand,
                                            start_chips=found.start_chips)
                break
            except AlreadyRecordedError:
                return self._told("again", found)
            except StoreUnavailableError as exc:
                _LOGGER.warning("tournament %s: the elimination at table %s seat %d waits "
                                "for the database: %s", self.tournament, found.table,
                                found.seat, exc)
                await self.clock.sleep(wait)
                wait = min(_RETRY_MAX, wait * 2)
            except TournamentError as exc:
                _LOGGER.error("tournament %s: the elimination table %s reported (seat %d, "
                              "%s, hand %s) is not recorded: %s", self.tournament,
                              found.table, found.seat, found.name, found.hand, exc)
                return self._told("refused", found)
        _LOGGER.info("tournament %s: %s eliminated at table %d seat %d (hand %s, %d chips at "
                     "its start); %d players left", self.tournament, found.name or "a player",
                     found.table_number, found.seat, found.hand, found.start_chips,
                     len(t.field.playing))
        await self._publish(t)
        return self._told("recorded", found)

    def _chips(self, chips: TableChips) -> str:
        """A table's counts: stored (the next hand's replace them; the database away, they
        are dropped: the next hand's come soon)."""
        try:
            self.service.table_chips(self.tournament, chips.table_number, chips.hand,
                                     list(chips.seats))
        except (StoreUnavailableError, TournamentError) as exc:
            _LOGGER.warning("tournament %s: chip counts of table %s (hand %s) not stored: %s",
                            self.tournament, chips.table, chips.hand, exc)
            return self._told("refused", None)
        return self._told("counted", None)

    async def _ready(self, ready: TableReady) -> str:
        """A table ready in hand for hand: the next round goes when every table is."""
        try:
            t, went = self.service.hand_ready(self.tournament, ready.table_number, ready.played)
        except (StoreUnavailableError, TournamentError) as exc:
            # said again by the table at the next status while it waits
            _LOGGER.warning("tournament %s: table %s ready, not counted: %s", self.tournament,
                            ready.table, exc)
            return self._told("refused", None)
        if not went:
            return self._told("waiting", None)
        lockstep = self.service.lockstep
        _LOGGER.info("tournament %s: hand for hand: every table is ready; round %d goes",
                     self.tournament, lockstep.go if lockstep is not None else 0)
        await self._publish(t)
        return self._told("go", None)

    def _told(self, what: str, found: TableElimination | None) -> str:
        if self.seen is not None:
            self.seen(what, found)
        return what

    async def _publish(self, t: Tournament) -> None:
        try:
            await self.service.publish(t)
        except PublishError as exc:
            _LOGGER.warning("tournament %s: status not published: %s", self.tournament, exc)

    async def run(self, feed: Feed) -> None:
        """Handle every message of ``feed`` in order, acknowledging each once handled,
        until the feed ends. No message ends this loop."""
        async for msg in feed.messages():
            try:
                await self.handle(msg.topic.value, msg.payload)
            except Exception as exc:       # a bug: logged, the message left unacknowledged
                _LOGGER.error("tournament %s: a message on %s failed: %s: %s",
                              self.tournament, msg.topic.value[:80], type(exc).__name__, exc)
                continue
            feed.ack(msg)


__all__ = ["CHIP_COUNTS", "ELIMINATED", "READY", "TABLES_FILTER", "Feed", "Intake",
           "IntakeRefusedError", "TableChips", "TableElimination", "TableReady", "decode_chips",
           "decode_elimination", "decode_ready"]
