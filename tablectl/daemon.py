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
4. the events are queued for the publisher task and it is woken: it publishes them in order
   (an event is marked published only after its PUBACK), then the retained public snapshot
   and the secure snapshot; replies go straight to the sender's reply topic.

On start the daemon begins a new epoch, restores the controller from the checkpoint of the last
hand started and replays every input journaled since, each with the decision journaled beside
it and under the config journaled then (see :mod:`tablectl.controller.decisions`): the replay
reproduces the live run whatever the config is now. A config that differs from the last one
journaled is journaled as a ``config`` input and applies from there on. Then the daemon
republishes the snapshot and every unacknowledged event. MQTT being down never blocks the
table: events wait in the outbox and go out on reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from datetime import datetime
from typing import Final

from tablectl import __version__
from tablectl.clock import Clock
from tablectl.controller import HandController
from tablectl.controller.decisions import decision_of, journaled_reply, same_decision
from tablectl.controller.inputs import (
    Command,
    ControllerInput,
    input_from_json,
    input_to_json,
)
from tablectl.controller.outcome import Outcome
from tablectl.controller.setup_json import ConfigChange, setup_to_json
from tablectl.controller.table import TableSetup, TableState
from tablectl.domain.jsonvalue import JsonValue
from tablectl.history.recall import recall_hands
from tablectl.journal import (
    EventRecord,
    HandRecord,
    InputRecord,
    Journal,
    JournalError,
    JournalStateError,
    JournalWriteError,
    NewEvent,
)
from tablectl.metrics import TableMetrics
from tablectl.publish import topics
from tablectl.publish.base import IncomingMessage, MessageProps, Publisher, send_reply
from tablectl.publish.commands import command_from_message
from tablectl.publish.envelope import (
    ReplyError,
    ReplyPayload,
    SnapshotEnvelope,
    StatusPayload,
    encode,
)
from tablectl.publish.errors import PublishError
from tablectl.publish.outbox import publish_event
from tablectl.sources.base import SourceEvent

_LOGGER = logging.getLogger(__name__)

_JSON: Final = MessageProps(content_type="application/json")
MAX_REPLAY_EVENTS: Final = 2000
MAX_RECALL_HANDS: Final = 50
JOURNAL_UNAVAILABLE: Final = "journal_unavailable"


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
    """

    def __init__(self, setup: TableSetup, initial: TableState, journal: Journal,
                 publisher: Publisher, *, clock: Clock) -> None:
        self.setup = setup
        self.table = setup.table
        self.journal = journal
        self.publisher = publisher
        self.clock = clock
        self.controller = HandController(setup, initial)
        self._initial = initial
        self._config_seq = 0
        """the seq of the last ``config`` input journaled (0: none yet)"""
        self._hand: HandRecord | None = None
        self._wake = asyncio.Event()
        self._public_dirty = True
        self._secure_dirty = True
        self.faulted: str | None = None
        self._journaled_seq: dict[str, int] = {}
        # the outbox's unpublished events in order, kept in memory so that publishing an
        # input's events needs no query; None: not loaded (at start, after a reconnect or a
        # failure), the publisher reads it again from the journal
        self._outbox: deque[EventRecord] | None = None
        self._changes: list[Outcome] = []
        self._events_topic = topics.events(self.table)
        self._secure_topic = topics.secure_holecards(self.table)
        self._topics = {t.value: t for t in (self._events_topic, self._secure_topic)}
        self.applied = 0
        self.on_outcome: Callable[[ControllerInput, Outcome], None] | None = None
        """Called after every applied input (the demo and tests watch hands end with it)."""
        self.metrics: TableMetrics | None = None
        """Told of every applied input and published event (:mod:`tablectl.metrics`)."""
        self.on_secure_snapshot: Callable[[SnapshotEnvelope], None] | None = None
        """Called with every secure snapshot published (the live odds value it)."""

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
        self._restore_lost_events(derived)
        _LOGGER.info("table %s: epoch %d, replayed %d journaled inputs", self.table, epoch,
                     replayed, extra={"table": self.table})
        self._journal_config()
        self._public_dirty = self._secure_dirty = True
        self._wake.set()
        return replayed

    def _rebuild(self) -> tuple[int, list[tuple[int, NewEvent]]]:
        """Rebuild the controller and the open hand row from the journal: the checkpoint of
        the last hand started, then every input journaled since.

        Returns:
            The number of inputs replayed, and the events they derived (with their hand row).
        """
        recent = self.journal.last_hands(1)
        after = 0
        state = self._initial
        setup = self.setup
        self._hand = None
        self._config_seq = 0
        if recent:
            hand = recent[0].hand
            checkpoint = hand.summary.get("checkpoint")
            start_seq = hand.summary.get("input_seq")
            if isinstance(checkpoint, Mapping) and isinstance(start_seq, int):
                state = TableState.from_json(checkpoint)
                after = start_seq - 1
                self._hand = hand if hand.ended_at is None else None
                config_seq = hand.summary.get("config_seq")
                if isinstance(config_seq, int) and config_seq > 0:
                    setup = self._journaled_config(config_seq).setup
                    self._config_seq = config_seq
        self.controller = HandController.restore(setup, state)
        replayed = 0
        derived: list[tuple[int, NewEvent]] = []
        for record in self.journal.inputs(after_seq=after):
            try:
                inp = input_from_json(record.payload)
            except ValueError as exc:
                _LOGGER.error("table %s: journal input %d cannot be read: %s", self.table,
                              record.seq, exc)
                continue
            before = self._hand
            decided = journaled_reply(inp.id, record.decision) if isinstance(
                inp, Command) else None
            outcome = self.controller.handle(inp, decided=decided)
            if not same_decision(record.decision, decision_of(outcome)):
                _LOGGER.error("table %s: journal input %d was decided %s when it came, %s on "
                              "replay", self.table, record.seq, record.decision,
                              decision_of(outcome))
            if isinstance(inp, ConfigChange):
                self._config_seq = record.seq
            self._track_hand_rows(outcome, record.seq, replaying=True)
            row = self._hand or before
            if row is not None:
                derived += [(row.id, e) for e in self._new_events(outcome, row.id)]
            replayed += 1
        return replayed, derived

    def _journaled_config(self, seq: int) -> ConfigChange:
        record = self.journal.input_at(seq)
        inp = input_from_json(record.payload)
        if not isinstance(inp, ConfigChange):
            raise JournalStateError(f"journal input {seq} is a {record.kind}, not a config")
        return inp

    def _journal_config(self) -> None:
        """Journal the config this daemon runs with if it is not the last one journaled:
        it applies from this input on (the replay before it used the journaled ones)."""
        if self._config_seq:
            last = self._journaled_config(self._config_seq)
            if setup_to_json(last.setup) == setup_to_json(self.setup) and (
                    last.initial == self._initial):
                return
            _LOGGER.info("table %s: the config differs from the one journaled last; it "
                         "applies from now on", self.table, extra={"table": self.table})
        self.apply(ConfigChange(setup=self.setup, at=self.clock.now(), initial=self._initial))

    def _new_events(self, outcome: Outcome, hand_id: int | None) -> list[NewEvent]:
        """The outbox rows of ``outcome``: public events, then secure ones."""
        events = [NewEvent(self._events_topic.value, e.type, dict(e.data), hand_id)
                  for e in outcome.events]
        events += [NewEvent(self._secure_topic.value, e.type, dict(e.data), hand_id)
                   for e in outcome.secure_events]
        return events

    def _restore_lost_events(self, derived: list[tuple[int, NewEvent]]) -> None:
        """Put back the events of an input journaled just before a crash that came before
        its events were (the two are separate transactions).

        Replay derives every event of the last hand row again; what the journal holds for
        that hand must be a prefix of it (per topic), and the missing tail can only be the
        last input's events: they are appended to the outbox now (in the new epoch).
        """
        recent = self.journal.last_hands(1)
        if not recent:
            return
        last = recent[0]
        if last.inputs and last.inputs[-1].decision is not None:
            return      # journaled with its events in one transaction: nothing can be missing
        mine = [e for hand_id, e in derived if hand_id == last.hand.id]
        missing: list[NewEvent] = []
        for topic in dict.fromkeys(e.topic for e in mine):
            want = [(e.type, json.loads(json.dumps(e.payload))) for e in mine
                    if e.topic == topic]
            have = [(r.type, json.loads(json.dumps(dict(r.payload)))) for r in last.events
                    if r.topic == topic]
            if have != want[:len(have)]:
                _LOGGER.error("table %s: journaled events of hand %d differ from their replay; "
                              "left as they are", self.table, last.hand.number)
                return
            missing += [e for e in mine if e.topic == topic][len(have):]
        if missing:
            _LOGGER.warning("table %s: %d events of the last input before the crash were not "
                            "journaled; appended now", self.table, len(missing))
            self.journal.append_events(missing)

    def _track_hand_rows(self, outcome: Outcome, input_seq: int, *, replaying: bool) -> None:
        started = outcome.hand_started
        if started is not None:
            known = self._hand is not None and self._hand.number == started.number
            if not known:
                summary: dict[str, JsonValue] = {
                    "hand": started.hand_id, "checkpoint": started.checkpoint.to_json(),
                    "input_seq": input_seq, "config_seq": self._config_seq}
                if replaying:
                    # the crash came between journaling the input and opening its hand row
                    last = self.journal.last_hands(1)
                    if last and last[0].hand.number == started.number:
                        self._hand = last[0].hand
                        known = True
                if not known:
                    self._hand = self.journal.start_hand(started.number, summary)
        ended = outcome.hand_ended
        if ended is not None and self._hand is not None:
            start_summary = dict(self._hand.summary)
            end_summary: dict[str, JsonValue] = {
                **ended.summary, "checkpoint": start_summary.get("checkpoint"),
                "input_seq": start_summary.get("input_seq"),
                "config_seq": start_summary.get("config_seq")}
            current = self.journal.current_hand()
            if current is not None and current.id == self._hand.id:
                self.journal.end_hand(self._hand.id, end_summary)
            self._hand = None

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
        hand_id = self._hand.id if self._hand is not None else None
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
                    self._config_seq = record.seq
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
        if self.metrics is not None:
            self.metrics.applied(inp, outcome, records, started=started,
                                 commit=time.perf_counter() - committing)
        self._committed(outcome, records)
        self.applied += 1
        for note in outcome.log:
            _LOGGER.info("table %s: %s", self.table, note, extra={"table": self.table})
        if self.on_outcome is not None:
            self.on_outcome(inp, outcome)
        return outcome

    def _journal_path(self) -> str:
        return str(getattr(self.journal, "path", "journal"))

    def _record(self, outcome: Outcome, input_seq: int) -> list[EventRecord]:
        """Journal what ``outcome`` caused (inside :meth:`apply`'s transaction)."""
        before = self._hand
        self._track_hand_rows(outcome, input_seq, replaying=False)
        row = self._hand or before
        hand_id = row.id if row is not None else None
        events = self._new_events(outcome, hand_id)
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

    def _committed(self, outcome: Outcome, records: list[EventRecord]) -> None:
        """After the commit: queue the events for the publisher and wake it."""
        for record in records:
            self._journaled_seq[record.topic] = max(
                self._journaled_seq.get(record.topic, 0), record.seq)
        if records and self._outbox is not None:
            self._outbox.extend(records)
        self._public_dirty |= bool(outcome.events)
        self._secure_dirty |= bool(outcome.secure_events)
        # whether the snapshots changed is asked only after the events are out: answering
        # builds the snapshots (see SnapshotChange)
        self._changes.append(outcome)
        self._wake.set()

    def _fault(self, reason: str) -> None:
        if self.faulted is None:
            _LOGGER.critical("table %s: %s; accepting no further input", self.table, reason,
                             extra={"table": self.table})
            if self.metrics is not None:
                self.metrics.error(JOURNAL_UNAVAILABLE)
        self.faulted = reason
        self._public_dirty = True
        self._wake.set()

    # ---- snapshots --------------------------------------------------------------------------

    def public_snapshot(self) -> dict[str, JsonValue]:
        """The public snapshot body, with the journal fault shown as an error if any."""
        body = dict(self.controller.public_snapshot_view())
        if self.faulted is not None:
            shown = body.get("errors")
            errors: list[JsonValue] = list(shown) if isinstance(shown, list) else []
            errors.append({"code": JOURNAL_UNAVAILABLE, "message": self.faulted,
                           "since": self.clock.now().isoformat()})
            body["errors"] = errors
            body["phase"] = "fault"
        return body

    # ---- the publisher ----------------------------------------------------------------------

    async def publish_pending(self) -> None:
        """Publish the outbox in order, then the snapshots that changed.

        Raises:
            PublishError: the broker is unreachable; what was not acknowledged stays pending.
        """
        self._wake.clear()
        if self._outbox is None:
            self._outbox = deque(self.journal.unpublished())
        outbox = self._outbox
        try:
            while outbox:
                record = outbox[0]
                topic = self._topics.get(record.topic) or topics.Topic(record.topic)
                await publish_event(self.publisher, self.journal, self.table, record,
                                    secret=topic.is_secure, topic=topic)
                outbox.popleft()
                if self.metrics is not None:
                    self.metrics.published(record)
        except BaseException:
            self._outbox = None     # read it again from the journal next time
            raise
        for outcome in self._changes:
            self._public_dirty |= outcome.public_changed
            self._secure_dirty |= outcome.secure_changed
        self._changes.clear()
        # The snapshot's body and its seq are taken together, with no await between them: the
        # body is the state after every event journaled so far, and seq names the last of
        # them, so a display drops exactly the events the snapshot already contains.
        now = self.clock.now()
        hand_id = self._hand.id if self._hand is not None else None
        if self._public_dirty:
            self._public_dirty = False
            try:
                await self._publish_snapshot(self._events_topic, topics.state(self.table),
                                             self.public_snapshot(), now, hand_id,
                                             secret=False)
            except PublishError:
                self._public_dirty = True
                raise
        if self._secure_dirty:
            self._secure_dirty = False
            try:
                await self._publish_snapshot(self._secure_topic,
                                             topics.secure_state(self.table),
                                             self.controller.secure_snapshot_view(), now,
                                             hand_id, secret=True)
            except PublishError:
                self._secure_dirty = True
                raise

    async def _publish_snapshot(self, events: topics.Topic, state: topics.Topic,
                                body: Mapping[str, JsonValue], now: datetime,
                                hand_id: int | None, *, secret: bool) -> None:
        """One snapshot: ``seq`` is the last event journaled on ``events``; the public one
        is retained, the secure one is not (it goes only to the secure root)."""
        env = SnapshotEnvelope(table=self.table, journal=self.journal.journal_id,
                               epoch=self.journal.epoch,
                               seq=self._journaled_seq.get(events.value, 0), ts=now,
                               hand=hand_id, data=dict(body))
        await self.publisher.publish(state, encode(env), retain=not secret, qos=1,
                                     secret=secret, props=_JSON)
        if secret and self.on_secure_snapshot is not None:
            self.on_secure_snapshot(env)

    async def run_publisher(self, connected: Callable[[], bool]) -> None:
        """Publish whenever something is pending and the broker is connected (forever)."""
        while True:
            await self._wake.wait()
            if not connected():
                self._wake.clear()
                self._changes.clear()   # the snapshots go out anew at the next connection
                continue
            try:
                await self.publish_pending()
            except PublishError as exc:
                _LOGGER.warning("table %s: publishing paused: %s", self.table, exc)
                self._wake.clear()

    def outbox_depth(self) -> int:
        """Events journaled and not yet acknowledged by the broker."""
        return len(self._outbox) if self._outbox is not None else len(self.journal.unpublished())

    def on_connected(self) -> None:
        """The broker (re)connected: the retained snapshot may be gone (no persistence), so
        republish it, and everything unacknowledged."""
        self._public_dirty = self._secure_dirty = True
        self._outbox = None
        self._wake.set()

    # ---- commands from the broker ----------------------------------------------------------

    def command_from_message(self, msg: IncomingMessage) -> Command | ReplyPayload:
        """A :class:`Command` from an MQTT message (received now), or the error reply for a
        bad one (:func:`~tablectl.publish.commands.command_from_message`)."""
        return command_from_message(msg, self.clock.now())

    async def handle_message(self, msg: IncomingMessage) -> None:
        """A command from the broker: recall/replay from the journal, the rest through
        :meth:`apply`; exactly one reply either way."""
        made = self.command_from_message(msg)
        if isinstance(made, ReplyPayload):
            await self._reply(msg, made)
            return
        if made.name in ("recall", "replay"):
            await self._reply(msg, self._answer_from_journal(made))
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

    async def _reply(self, msg: IncomingMessage, payload: ReplyPayload) -> None:
        try:
            await send_reply(self.publisher, msg, encode(payload))
        except (PublishError, ValueError) as exc:
            _LOGGER.warning("table %s: reply %s not sent: %s", self.table, payload.id, exc)

    def _answer_from_journal(self, cmd: Command) -> ReplyPayload:
        role = self.setup.roles.get(cmd.user)
        if role is None:
            return ReplyPayload(id=cmd.id, status="error", error=ReplyError(
                code="not_authorised", message=f"{cmd.user} has no role at this table"))
        try:
            if cmd.name == "recall":
                n = cmd.args.get("hands", 10)
                if not isinstance(n, int) or not 1 <= n <= MAX_RECALL_HANDS:
                    raise ValueError(f"hands must be 1..{MAX_RECALL_HANDS}")
                return ReplyPayload(id=cmd.id, status="ok",
                                    data={"hands": recall_json(self.journal, n)})
            journal = cmd.args.get("journal", self.journal.journal_id)
            if journal != self.journal.journal_id:
                raise ValueError(f"journal {journal!r} is not this daemon's journal "
                                 f"({self.journal.journal_id}): its events are not here")
            epoch = cmd.args.get("epoch", self.journal.epoch)
            lo, hi = cmd.args.get("from_seq", 1), cmd.args.get("to_seq")
            if not isinstance(epoch, int) or not isinstance(lo, int) or not isinstance(
                    hi, int) or hi < lo or hi - lo >= MAX_REPLAY_EVENTS:
                raise ValueError("replay needs integers epoch, from_seq <= to_seq, "
                                 f"at most {MAX_REPLAY_EVENTS} events")
            records = self.journal.events_range(topics.events(self.table).value, epoch, lo, hi)
            return ReplyPayload(id=cmd.id, status="ok", data={
                "journal": self.journal.journal_id, "events": [
                    {"epoch": r.epoch, "seq": r.seq, "type": r.type,
                     "ts": r.created_at.isoformat(),
                     "data": json.loads(json.dumps(dict(r.payload)))} for r in records]})
        except (ValueError, JournalError) as exc:
            return ReplyPayload(id=cmd.id, status="error",
                                error=ReplyError(code="bad_args", message=str(exc)))

    # ---- the loop --------------------------------------------------------------------------

    async def feed_source(self, events: AsyncIterator[SourceEvent]) -> None:
        """Apply a source's events as they come (until the source ends)."""
        async for event in events:
            try:
                self.apply(event)
            except JournalWriteError:
                _LOGGER.error("table %s: %s dropped: the journal is unavailable", self.table,
                              type(event).__name__)


def recall_json(journal: Journal, n: int) -> list[dict[str, object]]:
    """The last ``n`` hands (newest first), step by step: each input (the hand's
    ``start_hand`` included) with the public events it caused, as JSON."""
    return [hand.to_json() for hand in recall_hands(journal, n)]


__all__ = ["TableDaemon", "recall_json", "status_payloads"]
