"""The table daemon's run loop: inputs in, journal first, controller, outbox, MQTT out.

One task applies inputs strictly one at a time (card reads from the sources, commands from the
broker), each in one journal transaction:

1. the input is appended to the journal; if that fails the daemon stops accepting input
   (``journal_unavailable``): nothing it could not journal is ever applied;
2. the controller handles it (sans-IO, deterministic), returning an outcome;
3. the outcome's events go to the journal's outbox (public and secure), hand boundaries and
   error states to their tables; the transaction commits (one fsync for all of it). If the
   commit fails, nothing of the input is on disk: the controller is rebuilt from the journal
   and the daemon faults as in 1;
4. the events are queued for the publisher (:mod:`tablectl.daemon.outbox`) and it is woken:
   it publishes them in order (an event is marked published only after its PUBACK), then the
   retained public snapshot and the secure snapshot; replies go straight to the sender's reply
   topic.

On start the daemon begins a new epoch and rebuilds the controller from the journal
(:mod:`tablectl.daemon.recovery`). A config that differs from the last one journaled is
journaled as a ``config`` input and applies from there on. Then the daemon republishes the
snapshot and every unacknowledged event. ``recall`` and ``replay`` are answered from the
journal (:mod:`tablectl.daemon.answers`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from typing import Final

from pydantic import ValidationError

from tablectl import __version__
from tablectl.clock import Clock
from tablectl.controller import ErrorCode, HandController, Reply, Stage
from tablectl.controller.decisions import decision_of
from tablectl.controller.inputs import Command, ControllerInput, input_to_json
from tablectl.controller.outcome import Outcome
from tablectl.controller.setup_json import ConfigChange, setup_to_json
from tablectl.controller.table import TableSetup, TableState
from tablectl.daemon.answers import answer_from_journal
from tablectl.daemon.hand_rows import HandRows
from tablectl.daemon.outbox import Outbox
from tablectl.daemon.recovery import Derived, journaled_config, rebuild, restore_lost_events
from tablectl.daemon.tournament import FREEING_USER, ROUND_MARK, TournamentLink
from tablectl.domain.jsonvalue import JsonValue
from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object
from tablectl.journal import (
    EventRecord,
    InputRecord,
    Journal,
    JournalError,
    JournalStateError,
    JournalWriteError,
    RefusalRecord,
)
from tablectl.metrics import TableMetrics
from tablectl.publish.admission import AccessLimits, Admission, Turned
from tablectl.publish.base import IncomingMessage, Publisher, send_reply
from tablectl.publish.commands import bounded, command_from_message, refusal
from tablectl.publish.envelope import (
    ReplyError,
    ReplyPayload,
    SnapshotEnvelope,
    StatusPayload,
    encode,
)
from tablectl.publish.errors import PublishError
from tablectl.sources.base import SourceEvent

_LOGGER = logging.getLogger(__name__)

JOURNAL_UNAVAILABLE: Final = "journal_unavailable"
INTERNAL_ERROR: Final = "internal_error"
TABLE_ID_CONFLICT: Final = "table_id_conflict"

_STATUS_LIMITS: Final = JsonLimits(max_bytes=4096, max_depth=2, max_string=256)


def online_elsewhere(retained: bytes | None, journal_id: str) -> str | None:
    """The journal id of another daemon that says (retained status) it is online for this
    table; None when the status is absent, offline, this journal's own (a crash left it
    online), of a daemon older than journal ids, or not a status at all.

    >>> online_elsewhere(b'{"v":1,"table":"t","state":"online","version":"1",'
    ...                  b'"journal":"00ff","epoch":3}', "1234")
    '00ff'
    >>> online_elsewhere(b'{"state":"online","journal":"1234"}', "1234") is None
    True
    """
    if not retained:
        return None
    try:
        status = StatusPayload.model_validate(decode_object(retained, _STATUS_LIMITS))
    except (StrictJsonError, ValidationError):
        return None
    if status.state != "online" or status.journal is None or status.journal == journal_id:
        return None
    return status.journal


def status_payloads(table: str, epoch: int, journal: str | None = None) -> tuple[bytes, bytes]:
    """``(online, offline)`` status payloads (birth and last will) for the run ``epoch`` of
    the journal ``journal``."""
    online = encode(StatusPayload(table=table, state="online", version=__version__,
                                  journal=journal, epoch=epoch))
    offline = encode(StatusPayload(table=table, state="offline", version=__version__,
                                   journal=journal, epoch=epoch))
    return online, offline


class TableDaemon:
    """Runs one table: see the module docstring.

    Args:
        setup: the controller's fixed setup (game, decks, roles...).
        initial: the table before its first hand (seats from the config, button).
        journal: the open journal (its epoch is started by :meth:`recover`).
        publisher: where to publish (an :class:`~tablectl.publish.mqtt.MqttPublisher` or the
            in-memory twin).
        clock: the injected clock (input times).
        limits: the rate limits of commands from the broker (defaults: AccessLimits()).
    """

    def __init__(self, setup: TableSetup, initial: TableState, journal: Journal,
                 publisher: Publisher, *, clock: Clock,
                 limits: AccessLimits | None = None) -> None:
        self.setup = setup
        self.table = setup.table
        self.journal = journal
        self.publisher = publisher
        self.clock = clock
        self.controller = HandController(setup, initial)
        self._initial = initial
        self.outbox = Outbox(self, self.table, journal, clock)
        self.rows = HandRows(journal, self.outbox.events_topic.value,
                             self.outbox.secure_topic.value)
        self.faulted: str | None = None
        self.applied = 0
        self.on_outcome: Callable[[ControllerInput, Outcome], None] | None = None
        """Called after every applied input (the demo and tests watch hands end with it)."""
        self.metrics: TableMetrics | None = None
        """Told of every applied input and published event (:mod:`tablectl.metrics`)."""
        self.on_secure_snapshot: Callable[[SnapshotEnvelope], None] | None = None
        """Called with every secure snapshot published (the live odds value it)."""
        self.admission = Admission(self.table, setup.roles, setup.permissions,
                                   limits or AccessLimits())
        """The refusals before any journal or controller work, and the rate limits."""
        self._refusals_failing = False
        self.conflict: str | None = None
        """Another journal's id while its daemon is online for this table too."""
        self.tournament: TournamentLink | None = None
        """The tournament whose clock the table follows (:meth:`follow`); None: its
        stakes are its config's."""

    def follow(self, tournament: str, table_number: int, stale_after: float) -> TournamentLink:
        """Follow ``tournament``'s clock (before :meth:`recover`): its levels become the
        table's stakes from the next hand on, and its eliminations go to the journal's outbox
        (:mod:`tablectl.daemon.tournament`)."""
        self.tournament = TournamentLink(self, tournament, table_number, stale_after,
                                         self.clock)
        try:
            self.tournament.restore(self.journal.mark(ROUND_MARK))
        except JournalError as exc:
            _LOGGER.warning("table %s: the hand-for-hand round kept in the journal cannot be "
                            "read: %s", self.table, exc, extra={"table": self.table})
        # the link frees a busted player's seat itself (tablectl/daemon/tournament.py)
        self.setup = replace(self.setup, roles={**self.setup.roles, FREEING_USER: "floor"})
        return self.tournament

    def touch_public(self) -> None:
        """Publish the public snapshot again (something beside the controller changed)."""
        self.outbox.touch(public=True)

    def between_hands(self) -> bool:
        """No hand in progress (none, or the last one settled)."""
        return self.controller.stage is not Stage.IN_HAND

    def setup_in_force(self) -> TableSetup:
        """The setup the hand in progress (or the next one) deals with."""
        return self.controller.setup

    @property
    def hand_id(self) -> int | None:
        """The journal's open hand row, None between hands."""
        return self.rows.hand_id

    # ---- recovery --------------------------------------------------------------------------

    def recover(self) -> int:
        """Start a new epoch and rebuild the controller from the journal.

        Returns:
            The number of inputs replayed.

        Raises:
            JournalError: the journal cannot be read or written.
        """
        epoch = self.journal.start_epoch()
        replayed, derived = self._rebuild()
        restore_lost_events(self.journal, self.table, derived)
        _LOGGER.info("table %s: epoch %d, replayed %d journaled inputs", self.table, epoch,
                     replayed, extra={"table": self.table})
        self._journal_config()
        if self.tournament is not None and self.between_hands():
            # a seat the last hand busted, left taken by a kill between the two commits
            self.tournament.free_broke(epoch, [(s.seat, s.stack)
                                               for s in self.controller.checkpoint().seats])
        self.outbox.touch(public=True, secure=True)
        return replayed

    def _rebuild(self) -> tuple[int, Derived]:
        self.controller, replayed, derived = rebuild(self.journal, self.table, self.setup,
                                                     self._initial, self.rows)
        return replayed, derived

    def _journal_config(self) -> None:
        """Journal the config this daemon runs with if it is not the last one journaled:
        it applies from this input on (the replay before it used the journaled ones)."""
        if self.rows.config_seq:
            last = journaled_config(self.journal, self.rows.config_seq)
            if self.tournament is not None:
                # the last level taken, not the config's stakes (only a start's)
                self.setup = replace(self.setup, stakes=last.setup.stakes)
            if setup_to_json(last.setup) == setup_to_json(self.setup) and (
                    last.initial == self._initial):
                return
            _LOGGER.info("table %s: the config differs from the one journaled last; it "
                         "applies from now on", self.table, extra={"table": self.table})
        self.apply(ConfigChange(setup=self.setup, at=self.clock.now(), initial=self._initial))

    # ---- applying inputs -------------------------------------------------------------------

    def apply(self, inp: ControllerInput) -> Outcome:
        """Journal, handle and record one input (synchronous; the publisher is only woken).

        The input, its events, hand rows and error states are one journal transaction: one
        fsync, and on disk all together or not at all. The input is written first and the
        controller handles it inside the transaction; nothing of it is published before the
        commit returns.

        Raises:
            JournalWriteError: the input could not be journaled; nothing of it was applied
                (a controller that had handled it is rebuilt from the journal) and the daemon
                is faulted (every later input is refused).
        """
        if self.faulted is not None:
            raise JournalWriteError("append_input", self._journal_path(), self.faulted)
        if (self.tournament is not None and isinstance(inp, Command)
                and inp.name == "start_hand"
                and (why := self.tournament.holds_start()) is not None):
            # hand for hand: refused before the journal, as an admission refusal is
            _LOGGER.info("table %s: start_hand refused: %s", self.table, why,
                         extra={"table": self.table})
            return Outcome(reply=Reply.failure(inp.id, ErrorCode.WRONG_PHASE, why), log=(why,))
        hand_id = self.rows.hand_id
        actor = inp.user if isinstance(inp, Command) else None
        source = "console" if isinstance(inp, Command) else inp.source
        outcome: Outcome | None = None
        started = time.perf_counter()
        try:
            with self.journal.transaction():
                # handled first, to journal the decision with the input: both are in this
                # transaction, so neither is on disk unless everything of the input is
                outcome = self.controller.handle(inp)
                record = self.journal.append_input(InputRecord(
                    source=source, kind=inp.type, payload=input_to_json(inp), actor=actor,
                    hand_id=hand_id, decision=decision_of(outcome)))
                if isinstance(inp, ConfigChange):
                    self.rows.config_seq = record.seq
                records = self._record(outcome, record.seq)
                committing = time.perf_counter()
        except JournalError as exc:
            if outcome is not None:
                # the controller applied an input the journal does not have: undo it
                try:
                    self._rebuild()
                except JournalError as again:
                    _LOGGER.critical("table %s: the controller cannot be rebuilt from the "
                                     "journal either: %s", self.table, again,
                                     extra={"table": self.table})
            self._fault(f"the journal cannot be written: {exc}")
            if isinstance(exc, JournalWriteError):
                raise
            raise JournalWriteError("apply", self._journal_path(), str(exc)) from exc
        except Exception:
            # a fault in the table's own code while it handled this input: the transaction
            # rolled the input back, so the controller (which may have taken part of it) is
            # rebuilt from the journal and stands exactly as before the input came
            self._undo(inp)
            raise
        if self.metrics is not None:
            self.metrics.applied(inp, outcome, records, started=started,
                                 commit=time.perf_counter() - committing)
        self.outbox.committed(outcome, records)
        if self.tournament is not None:
            self.tournament.after(outcome)
        self.applied += 1
        for note in outcome.log:
            _LOGGER.info("table %s: %s", self.table, note, extra={"table": self.table})
        if self.on_outcome is not None:
            self.on_outcome(inp, outcome)
        if self.tournament is not None:
            self.tournament.free_busted()
        return outcome

    def _undo(self, inp: ControllerInput) -> None:
        """Rebuild the controller from the journal after ``inp`` failed in the table's code
        (the journal does not have it); a journal that cannot be read faults the table."""
        _LOGGER.error("table %s: %s failed inside the controller and was not applied; the "
                      "controller is rebuilt from the journal", self.table, type(inp).__name__,
                      extra={"table": self.table})
        try:
            self._rebuild()
        except JournalError as exc:
            self._fault(f"the journal cannot be read back after a fault: {exc}")

    def _journal_path(self) -> str:
        return str(getattr(self.journal, "path", "journal"))

    def _record(self, outcome: Outcome, input_seq: int) -> list[EventRecord]:
        """Journal what ``outcome`` caused (inside :meth:`apply`'s transaction)."""
        before = self.rows.current
        self.rows.track(outcome, input_seq, replaying=False)
        row = self.rows.current or before
        hand_id = row.id if row is not None else None
        events = self.rows.new_events(outcome, hand_id)
        if self.tournament is not None and outcome.hand_started is not None and (
                (kept := self.tournament.start_mark()) is not None):
            self.journal.set_mark(ROUND_MARK, kept)    # hand for hand: the round it plays
        if self.tournament is not None and outcome.hand_ended is not None and before is not None:
            events += self.tournament.bust_events(before.summary, outcome.hand_ended.summary,
                                                  hand_id)
        records = self.journal.append_events(events) if events else []
        for change in outcome.errors:
            if change.active:
                self.journal.raise_error(change.code.value, {"message": change.message,
                                                             **change.detail},
                                         hand_id=hand_id)
            elif change.by is not None:
                with contextlib.suppress(JournalStateError):
                    self.journal.clear_error(change.code.value, by=change.by)
        return records

    def _fault(self, reason: str) -> None:
        if self.faulted is None:
            _LOGGER.critical("table %s: %s; accepting no further input", self.table, reason,
                             extra={"table": self.table})
            if self.metrics is not None:
                self.metrics.error(JOURNAL_UNAVAILABLE)
        self.faulted = reason
        self.outbox.touch(public=True)

    # ---- snapshots --------------------------------------------------------------------------

    def table_conflict(self, other: str | None) -> None:
        """Another daemon (journal ``other``) is online for this table, or no longer (None):
        an ERROR once per other journal, and a ``table_id_conflict`` error on the snapshot
        while it lasts (docs/reliability.md, "Two daemons with one table id")."""
        if other == self.conflict:
            return
        if other is not None:
            _LOGGER.error("table %s: another daemon, with journal %s, is online for this "
                          "table too: displays see two tables as one; stop the other table "
                          "computer, or give one of them another table id", self.table,
                          bounded(other), extra={"table": self.table})
        else:
            _LOGGER.info("table %s: no other daemon online for this table any more",
                         self.table, extra={"table": self.table})
        self.conflict = other
        self.outbox.touch(public=True)

    def public_snapshot(self) -> dict[str, JsonValue]:
        """The public snapshot body, with the journal fault and a table id conflict shown as
        errors if any."""
        body = dict(self.controller.public_snapshot_view())
        if self.conflict is not None:
            shown = body.get("errors")
            errors: list[JsonValue] = list(shown) if isinstance(shown, list) else []
            errors.append({"code": TABLE_ID_CONFLICT, "message": (
                f"another table computer (journal {self.conflict}) runs table {self.table} "
                "too: stop it, or give one of them another table id"),
                "since": self.clock.now().isoformat()})
            body["errors"] = errors
        if self.faulted is not None:
            shown = body.get("errors")
            errors = list(shown) if isinstance(shown, list) else []
            errors.append({"code": JOURNAL_UNAVAILABLE, "message": self.faulted,
                           "since": self.clock.now().isoformat()})
            body["errors"] = errors
            body["phase"] = "fault"
        if self.tournament is not None:
            body["tournament"] = self.tournament.snapshot()
        return body

    def secure_snapshot(self) -> Mapping[str, JsonValue]:
        """The secure snapshot body (hole cards: the secure root only)."""
        return self.controller.secure_snapshot_view()

    # ---- the publisher (:mod:`tablectl.daemon.outbox`) ---------------------------------------

    async def publish_pending(self) -> None:
        """Publish the outbox in order, then the snapshots that changed.

        Raises:
            PublishError: the broker is unreachable; what was not acknowledged stays pending.
        """
        await self.outbox.publish_pending()

    async def run_publisher(self, connected: Callable[[], bool]) -> None:
        """Publish whenever something is pending and the broker is connected (forever)."""
        await self.outbox.run(connected)

    def outbox_depth(self) -> int:
        """Events journaled and not yet acknowledged by the broker."""
        return self.outbox.depth()

    def on_connected(self) -> None:
        """The broker (re)connected: republish the snapshots and everything unacknowledged."""
        self.outbox.reconnected()

    # ---- commands from the broker ----------------------------------------------------------

    def command_from_message(self, msg: IncomingMessage) -> Command | ReplyPayload:
        """A :class:`Command` from an MQTT message (received now), or the error reply for a
        bad one (:func:`~tablectl.publish.commands.command_from_message`)."""
        return command_from_message(msg, self.clock.now())

    async def handle_message(self, msg: IncomingMessage) -> None:
        """A command from the broker: refused before any journal or controller work by
        :class:`~tablectl.publish.admission.Admission` (a bounded refusal record, never the
        payload), else recall/replay from the journal, the rest through :meth:`apply`;
        exactly one reply either way, except for a run of ``rate_limited`` refusals (the
        first is answered) and a topic that names no sender."""
        now = self.clock.monotonic()
        made = self.admission.admit(msg, now, self.clock.now())
        if isinstance(made, Turned):
            if self.metrics is not None:
                self.metrics.refused(made.code)
            if made.record is not None:
                self.keep_refusals([made.record])
            self.flush_refusals(now)
            if made.reply is not None and made.code != "bad_topic":
                await self._reply(msg, made.reply)
            return
        if made.name in ("recall", "replay"):
            await self._reply(msg, answer_from_journal(self.journal, self.setup, made))
            return
        try:
            outcome = self.apply(made)
        except JournalWriteError as exc:
            await self._reply(msg, ReplyPayload(id=made.id, status="error", error=ReplyError(
                code=JOURNAL_UNAVAILABLE, message=str(exc))))
            return
        reply = outcome.reply
        if reply is None:
            return
        await self._reply(msg, ReplyPayload(
            id=reply.id, status="ok" if reply.ok else "error",
            error=None if reply.ok or reply.code is None else ReplyError(
                code=reply.code.value, message=reply.reason),
            data=json.loads(json.dumps(dict(reply.result)))))

    def flush_refusals(self, now: float | None = None, *, force: bool = False) -> None:
        """Journal the counted refusals when their time has come (``force``: now)."""
        mono = self.clock.monotonic() if now is None else now
        records = self.admission.due(mono, self.clock.now(), force=force)
        if records:
            self.keep_refusals(records)

    def keep_mark(self, key: str, value: int | None) -> bool:
        """Keep ``value`` in the journal under ``key`` (the tournament link's hand-for-hand
        round); False (logged) when the journal cannot be written: the link tries again at
        its next change."""
        try:
            self.journal.set_mark(key, value)
        except JournalError as exc:
            _LOGGER.warning("table %s: %s not kept in the journal: %s", self.table, key, exc,
                            extra={"table": self.table})
            return False
        return True

    def keep_refusals(self, records: list[RefusalRecord]) -> None:
        """Journal refusal records; a journal that cannot take them is logged once per
        fault, never a reason to refuse the next input (that input finds out by itself)."""
        if self.faulted is not None:
            return
        try:
            for record in records:
                self.journal.append_refusal(record)
            self._refusals_failing = False
        except JournalError as exc:
            if not self._refusals_failing:
                _LOGGER.error("table %s: refusal records not journaled: %s", self.table,
                              bounded(str(exc)), extra={"table": self.table})
            self._refusals_failing = True

    async def run_refusal_flusher(self) -> None:
        """Journal the counted refusals every ``aggregate_every`` seconds (forever)."""
        while True:
            await self.clock.sleep(self.admission.limits.aggregate_every)
            self.flush_refusals()

    async def answer_internal_error(self, msg: IncomingMessage) -> None:
        """Answer ``internal_error`` to a command whose handling failed (the caller logged
        why); nothing is raised, a reply that cannot be sent is only logged."""
        try:
            await self._reply(msg, refusal("unknown", INTERNAL_ERROR,
                                           "the table could not handle this command; it was "
                                           "not applied unless a later state shows it"))
        except Exception as exc:
            _LOGGER.error("table %s: internal_error reply not sent: %s", self.table,
                          type(exc).__name__)

    async def _reply(self, msg: IncomingMessage, payload: ReplyPayload) -> None:
        try:
            await send_reply(self.publisher, msg, encode(payload))
        except (PublishError, ValueError) as exc:
            _LOGGER.warning("table %s: reply %s not sent: %s", self.table,
                            bounded(payload.id), bounded(str(exc)))

    # ---- the loop --------------------------------------------------------------------------

    async def feed_source(self, events: AsyncIterator[SourceEvent],
                          refuse: Callable[[], None] | None = None) -> None:
        """Apply a source's events as they come (until the source ends).

        An event that cannot be journaled is never applied; ``refuse`` (a reader's source
        has it) then tells the device not to acknowledge it: the reader keeps the read and
        resends it to the restarted daemon, and this source ends (docs/reliability.md,
        "Reads during a journal fault"). A source without it (a camera) loses the event,
        said in the log. An event that fails in the table's own code is not applied (the
        controller stands as before it), is logged, and the next event is taken.
        """
        async for event in events:
            try:
                self.apply(event)
            except JournalWriteError:
                if refuse is None:
                    _LOGGER.error("table %s: %s dropped: the journal is unavailable",
                                  self.table, type(event).__name__)
                    continue
                _LOGGER.error("table %s: %s not acknowledged to its reader: the journal is "
                              "unavailable; the reader keeps it for the restarted daemon",
                              self.table, type(event).__name__, extra={"table": self.table})
                refuse()
            except Exception as exc:
                # a fault in the table's own code on this one event (apply rebuilt the
                # controller): logged, the event lost as a command's would be, the next taken
                _LOGGER.error("table %s: a %s from a source failed: %s: %s; going on",
                              self.table, type(event).__name__, type(exc).__name__,
                              bounded(str(exc)), exc_info=exc, extra={"table": self.table})
