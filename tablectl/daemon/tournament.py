"""A tournament table's link to the tournament: the thin shell around
:mod:`tablectl.daemon.level`.

The composition root (tablectl/app.py) subscribes to the tournament's status topic on the
table's broker and hands every message on it to :meth:`TournamentLink.on_status` (never to
the command path). A level the table does not play yet is journaled as a ``config`` input
with the level's stakes (:meth:`TournamentLink.take_level`): the controller keeps the hand in
progress on the stakes it started with and deals the next hand with the new ones, and a
restarted daemon replays it (tablectl/daemon/table.py, ``_journal_config``, keeps the
journaled stakes rather than the config's). :meth:`TournamentLink.run` watches the clock
and the connection, so the snapshot says when the level is no longer sure, and sends the
hand-for-hand ready reports (tablectl/daemon/lockstep.py); the daemon refuses
``start_hand`` while :meth:`TournamentLink.holds_start` says the table must wait.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Final, Protocol

from tablectl.clock import Clock
from tablectl.controller.inputs import Command
from tablectl.controller.outcome import Outcome
from tablectl.controller.setup_json import ConfigChange
from tablectl.controller.table import TableSetup
from tablectl.daemon.busts import CHIP_COUNTS, ELIMINATED, bust_event, busts, chip_counts
from tablectl.daemon.level import Follower, Note
from tablectl.daemon.lockstep import TableLockstep
from tablectl.domain.jsonvalue import JsonValue
from tablectl.journal import JournalWriteError, NewEvent
from tablectl.publish.base import Publisher
from tablectl.publish.errors import PublishError
from tablectl.publish.topics import Topic

_LOGGER = logging.getLogger(__name__)

_LOOK_EVERY: Final = 2.0
"""Seconds between two looks at the broker connection (the status topic says nothing when
the link is down)."""


FREEING_USER: Final = "tablectl/tournament"
"""The user of the ``unseat_player`` a tournament table applies itself to free a busted
player's seat. It has the floor role in the table's setup only (:meth:`TableDaemon.follow`);
a ``/`` is never a topic level, so no command from the broker can carry it, and admission
(tablectl/daemon/table.py) knows only the config's users."""

READY: Final = "hand_for_hand_ready"
"""What a table waiting in hand for hand tells the service (not journaled: it is said again
at every status while the table waits)."""


class Table(Protocol):
    """What the link uses of its :class:`~tablectl.daemon.table.TableDaemon`."""

    table: str
    setup: TableSetup
    publisher: Publisher

    def between_hands(self) -> bool: ...

    def apply(self, inp: ConfigChange | Command) -> Outcome: ...

    def touch_public(self) -> None: ...

    def setup_in_force(self) -> TableSetup: ...

    def keep_mark(self, key: str, value: int | None) -> bool: ...


ROUND_MARK: Final = "hand_for_hand_round"
"""The journal's mark (:meth:`tablectl.journal.Journal.mark`) of the hand-for-hand round the
table played last, while hand for hand is on (tablectl/daemon/lockstep.py)."""


def table_topic(table: str) -> str:
    """``poker/v1/tables/{t}/tournament``: what the table tells the tournament service (its
    eliminations), through the journal's outbox."""
    return f"poker/v1/tables/{table}/tournament"


def status_topic(tournament: str) -> str:
    """``poker/v1/tournaments/{id}/clock`` (tablectl/tournament/service.py publishes it)."""
    return f"poker/v1/tournaments/{tournament}/clock"


class TournamentLink:
    """See the module docstring.

    Args:
        table: the daemon.
        tournament: the tournament id (``[tournament] id``).
        stale_after: seconds after a status's time when it is stale.
        clock: the injected clock.
    """

    def __init__(self, table: Table, tournament: str, table_number: int, stale_after: float,
                 clock: Clock) -> None:
        self.daemon = table
        self.tournament = tournament
        self.table_number = table_number
        self.follower = Follower(tournament, stale_after)
        self.topic = status_topic(tournament)
        self.events_topic = table_topic(table.table)
        self.clock = clock
        self._wake = asyncio.Event()
        self.lockstep = TableLockstep()
        self._kept: int | None = None              # the round the journal keeps
        self._report_due = False
        self._busted: list[tuple[str, int]] = []   # (hand id, seat) of the hand journaled
        self._to_free: list[tuple[str, int]] = []  # ... once its transaction committed

    def _said(self, note: Note, level: int = logging.INFO) -> None:
        if note.line is not None:
            _LOGGER.log(level, "table %s: %s", self.daemon.table, note.line,
                        extra={"table": self.daemon.table})
        if note.changed:
            self.daemon.touch_public()

    def on_status(self, payload: bytes) -> None:
        """A message on the status topic: taken (the level from the next hand on) or refused
        with a logged reason, changing nothing."""
        note = self.follower.on_payload(payload, self.clock.now())
        refused = self.follower.refused is not None and not note.changed
        self._said(note, logging.WARNING if refused else logging.INFO)
        if refused:
            self.daemon.touch_public()      # the snapshot shows the reason
        status = self.follower.status
        if not refused and status is not None:
            self.lockstep.on_status(status.hand_for_hand, status.go)
            self._keep()
            self._report_due = True
        self.take_level()
        self._wake.set()

    def restore(self, kept: int | None) -> None:
        """What the journal kept of hand for hand (:data:`ROUND_MARK`), at start."""
        if kept is not None and kept >= 0:
            self.lockstep.restore(kept)
            self._kept = kept

    def start_mark(self) -> int | None:
        """The round to keep in the journal with a hand starting now (inside its
        transaction), None: nothing new to keep."""
        if not self.lockstep.on or self.lockstep.go == self._kept:
            return None
        return self.lockstep.go

    def _keep(self) -> None:
        kept = self.lockstep.kept()
        if kept != self._kept and self.daemon.keep_mark(ROUND_MARK, kept):
            self._kept = kept

    def holds_start(self) -> str | None:
        """Why ``start_hand`` must wait (hand for hand), or None."""
        return self.lockstep.holds()

    def after(self, outcome: Outcome) -> None:
        """After an input was applied: a hand started counts in its hand-for-hand round; a
        hand that ended may make the table ready."""
        if outcome.hand_ended is not None:
            self._to_free, self._busted = self._busted, []
        if outcome.hand_started is not None:
            self.lockstep.started()
            self._kept = self.lockstep.kept()      # journaled with the hand's start
        if outcome.hand_ended is not None and self.lockstep.on:
            self._report_due = True
            self._wake.set()

    async def report_ready(self, connected: bool) -> None:
        """Tell the service the table is ready for the next hand-for-hand round, when it is
        (after a hand, and at every status while it waits: a lost report is made good)."""
        if not self._report_due or not connected:
            return
        self._report_due = False
        played = self.lockstep.ready(self.daemon.between_hands())
        if played is None:
            return
        body = {"table": self.daemon.table, "type": READY, "data": {
            "tournament": self.tournament, "table": self.daemon.table,
            "table_number": self.table_number, "round": played}}
        try:
            await self.daemon.publisher.publish(Topic(self.events_topic),
                                                json.dumps(body).encode(), qos=1)
        except PublishError as exc:
            self._report_due = True
            _LOGGER.warning("table %s: hand-for-hand ready not sent: %s", self.daemon.table,
                            exc, extra={"table": self.daemon.table})

    def on_link(self, up: bool) -> None:
        """The table's broker connected or went away."""
        self._said(self.follower.on_link(up), logging.INFO if up else logging.WARNING)

    def take_level(self) -> None:
        """Journal the level known as the table's stakes if they are not those already:
        the hand in progress keeps its own, the next one deals with these."""
        level = self.follower.level
        setup = self.daemon.setup
        if level is None:
            return
        stakes = level.stakes(setup.structure, setup.stakes)
        if stakes == setup.stakes:
            return
        new = replace(setup, stakes=stakes)
        try:
            self.daemon.apply(ConfigChange(setup=new, at=self.clock.now()))
        except JournalWriteError as exc:
            _LOGGER.error("table %s: %s not taken: %s", self.daemon.table, level.label, exc,
                          extra={"table": self.daemon.table})
            return
        self.daemon.setup = new
        _LOGGER.info("table %s: %s from the next hand", self.daemon.table, level.label,
                     extra={"table": self.daemon.table})

    def bust_events(self, start: Mapping[str, JsonValue], summary: Mapping[str, JsonValue],
                    hand_id: int | None) -> list[NewEvent]:
        """The ``eliminated`` events and the ``chip_counts`` of a hand that closed with
        ``summary`` and started as ``start`` (its row's summary: ``checkpoint``), for the
        outbox in the same journal transaction as the input that closed it."""
        self._busted = []
        checkpoint = start.get("checkpoint")
        hand = summary.get("hand")
        if not isinstance(checkpoint, dict) or not isinstance(hand, dict):
            return []
        out = []
        for bust in busts(checkpoint, summary):
            self._busted.append((str(hand.get("id")), bust.seat))
            data = bust_event(bust, tournament=self.tournament, table=self.daemon.table,
                              table_number=self.table_number, hand=str(hand.get("id")))
            _LOGGER.info("table %s: seat %d (%s) is out, eliminated from tournament %s "
                         "(%d chips at the start of the hand)", self.daemon.table, bust.seat,
                         bust.name, self.tournament, bust.start_chips,
                         extra={"table": self.daemon.table})
            out.append(NewEvent(self.events_topic, ELIMINATED, data, hand_id))
        counts = chip_counts(checkpoint, summary)
        if counts:
            out.append(NewEvent(self.events_topic, CHIP_COUNTS, {
                "tournament": self.tournament, "table": self.daemon.table,
                "table_number": self.table_number, "hand": str(hand.get("id")),
                "seats": list(counts)}, hand_id))
        return out

    def free_broke(self, epoch: int, seats: list[tuple[int, int]]) -> None:
        """At start, between hands: free every seat (number, stack) left with no chips. In a
        tournament such a seat is a player the last hand eliminated (the elimination went to
        the outbox with that hand, in the same transaction) whose seat a daemon killed
        between the two commits did not free (:meth:`free_busted`)."""
        self._to_free = [(f"restart-{epoch}", seat) for seat, stack in seats if stack == 0]
        self.free_busted()

    def free_busted(self) -> None:
        """Free the seats of the players the hand just settled eliminated (after its
        transaction committed, so the seat is never freed of a hand the journal lacks): one
        ``unseat_player`` each, by :data:`FREEING_USER`, journaled like the dealer's. The hand
        is settled: nothing can give those players chips back (``undo`` and ``kill_hand`` are
        refused once a hand is settled). A daemon killed between the two commits frees the
        seat when it starts again (:meth:`free_broke`)."""
        while self._to_free:
            hand, seat = self._to_free.pop(0)
            cmd = Command(name="unseat_player", user=FREEING_USER, id=f"bust-{hand}-{seat}",
                          at=self.clock.now(), args={"seat": seat})
            try:
                out = self.daemon.apply(cmd)
            except JournalWriteError as exc:
                _LOGGER.error("table %s: seat %d not freed: %s", self.daemon.table, seat, exc,
                              extra={"table": self.daemon.table})
                self._to_free.clear()
                return
            reply = out.reply
            if reply is not None and not reply.ok:
                _LOGGER.warning("table %s: seat %d not freed: %s", self.daemon.table, seat,
                                reply.reason, extra={"table": self.daemon.table})

    def snapshot(self) -> dict[str, JsonValue]:
        """The public snapshot's ``tournament``."""
        level = self.follower.level
        playing = self.daemon.setup_in_force()
        in_force = level is not None and level.stakes(
            playing.structure, playing.stakes) == playing.stakes
        body = self.follower.to_json(in_force=in_force, now=self.clock.now())
        body["hand_for_hand_go"] = self.lockstep.go if self.lockstep.on else None
        body["waiting"] = self.lockstep.holds() is not None
        return body

    async def run(self, connected: Callable[[], bool]) -> None:
        """Watch the time and the connection (forever): a status that grows old, a link that
        goes down or comes back, is said on the snapshot and in the log."""
        was_up = connected()
        while True:
            wait = self.follower.until_stale(self.clock.now())
            self._wake.clear()
            sleeper = asyncio.ensure_future(self.clock.sleep(
                _LOOK_EVERY if wait is None else min(_LOOK_EVERY, wait + 0.01)))
            woken = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait({sleeper, woken}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeper.cancel()
                woken.cancel()
            up = connected()
            if up != was_up:
                self.on_link(up)
                was_up = up
            self._said(self.follower.check(self.clock.now()), logging.WARNING)
            await self.report_ready(up)


__all__ = ["FREEING_USER", "READY", "TournamentLink", "status_topic", "table_topic"]
