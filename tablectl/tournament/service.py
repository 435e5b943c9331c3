"""The tournament service: the thin shell around the sans-IO core.

Each floor command is one :meth:`TournamentStore.update` (the clock and the field change
together or not at all) at the injected clock's ``now``, then the tournament's status is
published, retained, on ``poker/v1/tournaments/{id}/clock`` (docs/tournament.md, "What the
room sees"). :meth:`TournamentService.run` keeps that message true while the clock runs:
it publishes again at every level or break change (and every ``refresh`` seconds), sleeping
on the injected clock, so a test drives it with a :class:`~tablectl.clock.ManualClock`.

Registration and re-entry close at the end of the structure's ``..._until_level``: they
stay open through the break after that level and close when the next level starts. The
tournament finishes (the clock stops for good) when a bust leaves one player.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from tablectl.clock import Clock
from tablectl.publish.base import Publisher
from tablectl.publish.errors import PublishError
from tablectl.publish.topics import PUBLIC_ROOT, Topic
from tablectl.tournament.balance import BalanceRules, Plan, plan
from tablectl.tournament.clock import (
    ClockCommand,
    Finish,
    Phase,
    Status,
    apply,
    view,
)
from tablectl.tournament.errors import (
    AlreadyRecordedError,
    StoreUnavailableError,
    TournamentError,
)
from tablectl.tournament.field import entry_open
from tablectl.tournament.lockstep import Lockstep
from tablectl.tournament.store import ChipCount, Tournament, TournamentStore, check_id
from tablectl.tournament.structure import Structure

_LOGGER = logging.getLogger(__name__)

SCHEMA: Final = 1
"""Version of the published status payload."""


def clock_topic(tid: str) -> Topic:
    """``poker/v1/tournaments/{id}/clock``, where the status is retained."""
    return Topic(f"{PUBLIC_ROOT}/tournaments/{check_id(tid)}/clock")


def _level_now(t: Tournament, now: Any) -> int | None:
    """The level for registration rules: None before the start, the level playing (during
    a break, the level before it)."""
    if t.clock.status is Status.NOT_STARTED:
        return None
    return view(t.clock, t.structure, now).level.number


def status_of(t: Tournament, now: Any, go: int | None = None) -> dict[str, Any]:
    """The published status: the clock, the field's numbers, the open windows; while hand
    for hand is on, ``go``: the round the tables may start (tablectl/tournament/lockstep.py;
    None from a one-shot command, which does not keep the rounds)."""
    v = view(t.clock, t.structure, now)
    field = t.field
    level = _level_now(t, now)
    finished = v.phase is Phase.FINISHED
    the_plan = plan(field.seating(), BalanceRules.of(t.structure))
    return {"schema": SCHEMA, "tournament": t.id, "name": t.structure.name,
            "clock": v.to_json(), "players_left": len(field.playing),
            "entries": len(field.entries), "average_stack": field.average_stack,
            "chips_in_play": field.chips_in_play, "tables": len(field.tables),
            "registration_open": not finished and entry_open(
                t.structure.late_registration_until_level, level),
            "reentry_open": not finished and t.structure.max_entries > 1 and entry_open(
                t.structure.reentry_until_level, level),
            "hand_for_hand": the_plan.hand_for_hand and not finished,
            "hand_for_hand_go": go if the_plan.hand_for_hand and not finished else None,
            "paid_places": t.structure.paid_places}


def _busted(t: Tournament, player: str, hand: str, start_chips: int, now: Any) -> Tournament:
    """``t`` with ``player`` out after ``hand``; the last bust finishes the tournament."""
    if t.clock.status is Status.FINISHED:
        raise TournamentError("the tournament is finished")
    field = t.field.bust(player, hand=hand, start_chips=start_chips)
    clock = t.clock
    if len(field.playing) == 1 and clock.status is not Status.NOT_STARTED:
        clock = apply(clock, t.structure, Finish(), now)
    return replace(t, field=field, clock=clock)


class TournamentService:
    """Floor commands on tournaments (see the module docstring).

    Args:
        store: where tournaments are kept.
        clock: wall time and sleeping (``SystemClock`` in production).
        publisher: where the status goes; None: nowhere (a command run without a broker).
    """

    def __init__(self, store: TournamentStore, clock: Clock,
                 publisher: Publisher | None = None) -> None:
        self.store = store
        self.clock = clock
        self.publisher = publisher
        self._stopping = False
        self._wake: asyncio.Event | None = None
        self.lockstep: Lockstep | None = None
        """hand for hand across the tables, kept by ``tournament run`` (in memory: see its
        module); None in a one-shot command, whose status says no round"""

    # ---- commands -----------------------------------------------------------------------

    def create(self, tid: str, structure: Structure) -> Tournament:
        """A new tournament, not started."""
        return self.store.create(Tournament.new(tid, structure))

    def command(self, tid: str, command: ClockCommand) -> Tournament:
        """Apply a clock command (start, pause, resume, add time, move to a level, finish)."""
        now = self.clock.now()
        return self.store.update(tid, lambda t: replace(
            t, clock=apply(t.clock, t.structure, command, now)))

    def register(self, tid: str, player: str, *, table: int | None = None,
                 seat: int | None = None) -> Tournament:
        """A player's first entry, while registration is open."""
        now = self.clock.now()

        def change(t: Tournament) -> Tournament:
            self._check_open(t, now, t.structure.late_registration_until_level,
                             "registration")
            return replace(t, field=t.field.register(player, t.structure.starting_stack,
                                                     table=table, seat=seat))
        return self.store.update(tid, change)

    def reenter(self, tid: str, player: str, *, table: int | None = None,
                seat: int | None = None) -> Tournament:
        """A new entry for an eliminated player, while re-entry is open."""
        now = self.clock.now()

        def change(t: Tournament) -> Tournament:
            if t.structure.max_entries <= 1:
                raise TournamentError("this tournament is a freeze-out: no re-entry")
            self._check_open(t, now, t.structure.reentry_until_level, "re-entry")
            return replace(t, field=t.field.reenter(
                player, t.structure.starting_stack, t.structure.max_entries, table=table,
                seat=seat))
        return self.store.update(tid, change)

    def bust(self, tid: str, player: str, *, hand: str | None, start_chips: int) -> Tournament:
        """``player`` is out (0 chips) after ``hand``; a bust that leaves one player
        finishes the tournament. Without ``hand``, the bust is a hand of its own."""
        now = self.clock.now()

        def change(t: Tournament) -> Tournament:
            name = hand or f"bust-{len(t.field.eliminations) + 1}"
            return _busted(t, player, name, start_chips, now)
        return self.store.update(tid, change)

    def table_bust(self, tid: str, *, table: int, seat: int, hand: str,
                   start_chips: int) -> Tournament:
        """The elimination a table reported: the player in ``table``/``seat`` is out after
        its ``hand`` (the table's hand id), which they started with ``start_chips``.

        Raises:
            AlreadyRecordedError: this table, hand and seat are recorded already (a table
                that sends it again, a broker that delivers it again): nothing changed.
            TournamentError: nobody plays in that seat, or the bust does not fit.
        """
        now = self.clock.now()

        def change(t: Tournament) -> Tournament:
            for x in t.field.eliminations:
                if (x.hand, x.table, x.seat) == (hand, table, seat):
                    raise AlreadyRecordedError(f"{x.player}'s elimination at table {table} "
                                               f"seat {seat} in hand {hand} is recorded")
            player = t.field.seating().get(table, {}).get(seat)
            if player is None:
                raise TournamentError(f"nobody plays at table {table} seat {seat} in "
                                      f"tournament {tid}: record the bust with tournament bust")
            return _busted(t, player, hand, start_chips, now)
        return self.store.update(tid, change)

    def table_chips(self, tid: str, table: int, hand: str,
                    seats: list[tuple[int, str, int]]) -> list[ChipCount]:
        """Table ``table``'s chip counts after its ``hand``: ``(seat, name, chips)`` of every
        seat it reported; each seat is named by the tournament's seating where it has a
        player there (the table's name otherwise). Returns what was stored.

        Raises:
            StoreUnavailableError: nothing was stored.
        """
        seating = self.store.load(tid).field.seating().get(table, {})
        counts = [ChipCount(table, seat, seating.get(seat, name), chips, hand)
                  for seat, name, chips in seats if chips > 0]
        self.store.record_chips(tid, table, counts)
        return counts

    def move(self, tid: str, player: str, table: int, seat: int) -> Tournament:
        """Seat a playing player elsewhere."""
        return self.store.update(tid, lambda t: replace(t, field=t.field.move(player, table,
                                                                                seat)))

    def balance(self, tid: str, *, apply_moves: bool = False,
                buttons: Mapping[int, int] | None = None,
                breaking: int | None = None) -> tuple[Plan, Tournament]:
        """The moves that break and balance the tables (``breaking``: break that table
        first, the floor's call); with ``apply_moves``, made (and broken tables closed) in
        one change.

        Raises:
            TournamentError: ``breaking`` cannot break (no players, the last table, no room).
        """
        def planned(t: Tournament) -> Plan:
            try:
                return plan(t.field.seating(), BalanceRules.of(t.structure), buttons, breaking)
            except ValueError as exc:
                raise TournamentError(str(exc)) from None

        if not apply_moves:
            t = self.store.load(tid)
            return planned(t), t
        plans: list[Plan] = []

        def change(t: Tournament) -> Tournament:
            p = planned(t)
            plans.append(p)
            field = t.field
            for m in p.moves:              # a seat freed by one move may take the next
                field = field.move(m.player, m.to_table, m.to_seat)
            for table in p.broken:
                field = field.close_table(table)
            return replace(t, field=field)
        t = self.store.update(tid, change)
        return plans[-1], t

    def status(self, tid: str) -> dict[str, Any]:
        """The status as it would be published now."""
        return self._status(self.store.load(tid))

    def _status(self, t: Tournament) -> dict[str, Any]:
        lockstep = self.lockstep
        body = status_of(t, self.clock.now(), lockstep.go if lockstep is not None else None)
        if lockstep is not None and not body["hand_for_hand"]:
            lockstep.reset()
        elif lockstep is not None:
            # the tables the round waits for: the room sees which (one dealt without a
            # daemon never says it is ready: docs/tournament.md §5)
            body["hand_for_hand_waiting"] = lockstep.waiting(
                n for n, seats in t.field.seating().items() if seats)
        return body

    def hand_ready(self, tid: str, table: int, played: int) -> tuple[Tournament, bool]:
        """Table ``table`` is between hands, having played hand-for-hand round ``played``;
        True when that made the next round go (publish the status then)."""
        t = self.store.load(tid)
        if self.lockstep is None:
            self.lockstep = Lockstep()
        if not self._status(t)["hand_for_hand"]:
            return t, False
        playing = [n for n, seats in t.field.seating().items() if seats]
        return t, self.lockstep.report(table, played, playing)

    @staticmethod
    def _check_open(t: Tournament, now: Any, until: int, what: str) -> None:
        if t.clock.status is Status.FINISHED:
            raise TournamentError(f"{what} is closed: the tournament is finished")
        level = _level_now(t, now)
        if not entry_open(until, level):
            closed = (f"closed at the end of level {until}" if until
                      else "closed when the clock started")
            raise TournamentError(f"{what} is closed (it {closed}; level {level} is playing)")

    # ---- publishing ---------------------------------------------------------------------

    async def publish(self, t: Tournament) -> dict[str, Any]:
        """Publish ``t``'s status, retained, at QoS 1; returns it.

        Raises:
            PublishError: the broker did not take it (the command is stored all the same).
        """
        body = self._status(t)
        if self.publisher is not None:
            await self.publisher.publish(clock_topic(t.id), json.dumps(
                body, separators=(",", ":"), ensure_ascii=False).encode("utf-8"),
                retain=True, qos=1)
        return body

    def stop(self) -> None:
        """Make :meth:`run` return now (it wakes from its sleep)."""
        self._stopping = True
        if self._wake is not None:
            self._wake.set()

    async def run(self, tid: str, *, refresh: float = 30.0) -> None:
        """Publish the status now, at every period change and every ``refresh`` seconds,
        until :meth:`stop`, reading the stored clock each time (so commands given from
        another process are published within ``refresh``).

        The database away: it goes on from the last record it read (the time is computed
        from the clock, so the levels still change on time) and says so once; the broker
        away: it tries again at the next wake-up (the client reconnects by itself).

        Raises:
            StoreUnavailableError: the first read failed (nothing to publish from).
            TournamentError: there is no such tournament.
        """
        self._wake = asyncio.Event()
        last: Tournament | None = None
        away: str | None = None
        while not self._stopping:
            try:
                last = self.store.load(tid)
                if away is not None:
                    _LOGGER.info("tournament %s: the database is back", tid)
                away = None
            except StoreUnavailableError as exc:
                if last is None:
                    raise
                if away is None:
                    _LOGGER.warning("tournament %s: %s; publishing from the last record read",
                                    tid, exc)
                away = str(exc)
            wait = refresh
            try:
                body = await self.publish(last)
            except PublishError as exc:
                _LOGGER.warning("tournament %s: status not published: %s", tid, exc)
                body = self._status(last)
            clock = body["clock"]
            if clock["phase"] in (Phase.RUNNING.value, Phase.ON_BREAK.value) and (
                    clock["time_left"] > 0):
                wait = min(refresh, clock["time_left"] + 0.05)
            sleeper = asyncio.ensure_future(self.clock.sleep(max(0.05, wait)))
            woken = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait({sleeper, woken}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeper.cancel()
                woken.cancel()


__all__ = ["SCHEMA", "TournamentService", "clock_topic", "status_of"]
