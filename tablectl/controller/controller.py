"""The hand controller: card reads and dealer commands in, an :class:`Outcome` out. Sans-IO.

Rules the controller enforces (on top of the rules engine, which it asks what comes next):

* **Phases** (``phase`` in the snapshot): ``idle`` (no hand) -> ``start_hand`` -> ``dealing`` /
  ``betting`` / ``showdown`` (the engine's expectation) -> ``settled`` (every pot awarded) ->
  ``next_hand`` (moves the button) -> ``idle``. ``misdeal`` and ``kill_hand`` void the hand
  back to ``idle`` with the stacks as before it and the button unmoved. ``fault`` while any
  read error is active.
* **Reads.** A shoe read (no location) is the card for whatever the engine expects next (hole
  card, burn, board card, stud up/down card). A table read names its antenna's role: a seat
  card is held until the engine deals to that seat in the current dealing round, a board card
  until its position comes (an unread burn before a held card is entered as unknown), so
  antennas may report in any order within a round. A card the same antenna (or the shoe, within
  ``debounce`` seconds) reports again where it already lies is ignored; muck reads and reads
  between hands are ignored (only the deck check applies).
* **Read hygiene.** ``unknown_tag``, ``second_deck``, ``duplicate_card``, ``too_many_cards``,
  ``board_before_round_closed``, ``wrong_antenna`` and ``doubtful_read`` each raise an active
  error (an ``error`` event, the snapshot's ``errors``); nothing accepted before changes and
  every further card read is refused until a floor user sends ``clear_error`` (a doubtful read
  is held until ``confirm_read`` / ``reject_read`` / ``manual_card`` with its ``read`` id).
  Commands keep working, so the dealer can correct the hand.
* **Commands.** Checked in this order, each refusal a reply that changes nothing: a repeated
  ``(user, id)`` gets its first reply again; ``unknown_command``; ``not_authorised`` (the
  user's role, from the topic, never the payload); ``stale_command`` (``sent_at`` further than
  ``max_command_age`` from ``at``, before or after); ``bad_args``; then the command's own checks
  (``wrong_phase``, ``out_of_turn``, ``illegal_action``, ``duplicate_card``...).
* **Corrections.** ``undo`` replays the hand without its last decision (refused when cards
  were dealt after it); ``misdeal`` (before substantial action: two actions with chips or any
  three) and ``kill_hand`` (floor, any time before settling) void the hand; ``manual_card``
  enters the expected card or replaces a doubtful read; ``adjust_stack``, ``seat_player`` and
  ``unseat_player`` only between hands.
* **Rotations.** A setup with a rotation (mixed games) deals each hand with the rotation's
  current game; ``next_hand`` counts the settled hand (a button game lasts an orbit, a stud game
  a fixed count, the button frozen through stud games), ``choose_game`` picks a dealer's choice
  between hands (:mod:`~tablectl.controller.rotating`, :mod:`tablectl.game.rotation`).
* **Secrecy.** Hole cards reach public events and the public snapshot only when dealt face up
  (stud) or shown at showdown; folded and mucked hands never. Secure events carry every hole
  card as it is accepted.

Determinism: the outcome of an input depends only on the controller's state and the input
(times come in on inputs), so replaying the journaled inputs rebuilds the same state, replies
and events.

Snapshots are built lazily: :meth:`HandController.handle` builds none. The public and the
secure snapshot of a state are built together the first time anything asks for them (a
snapshot accessor, or an outcome's ``public_changed`` / ``secure_changed``) and cached until
the next input; the outcome's flags compare them with the snapshots of the state before the
input (see :class:`~tablectl.controller.outcome.SnapshotChange`). So the daemon can apply an
input, journal and publish its events, and only then read the flags and take the snapshots
to publish: the snapshots cost nothing on the path from a read to its event.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Mapping
from dataclasses import replace

from tablectl.controller.commands import CommandHandlers
from tablectl.controller.core import Run, Stage
from tablectl.controller.inputs import (
    CardRead,
    Command,
    ControllerInput,
    DeviceStatus,
    ReadMissed,
    TagLeft,
)
from tablectl.controller.outcome import (
    Event,
    Outcome,
    SnapshotChange,
)
from tablectl.controller.reply import Reply
from tablectl.controller.setup_json import ConfigChange
from tablectl.controller.snapshots import SnapshotBuilder, copy_json
from tablectl.controller.table import (
    ActiveError,
    DeviceState,
    TableSetup,
    TableState,
    device_status_json,
)
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import (
    Expectation,
    HandView,
)

_LOGGER = logging.getLogger(__name__)


class HandController(CommandHandlers, SnapshotBuilder):
    """The table's hand controller (see the module docstring for its rules).

    Args:
        setup: the table's fixed setup.
        state: where to start: :meth:`TableState.initial` for a new table, or a checkpoint
            (:attr:`HandStarted.checkpoint`, :meth:`checkpoint`) to restore.

    Not thread-safe; one instance per table, fed one input at a time.
    """

    @classmethod
    def restore(cls, setup: TableSetup, checkpoint: TableState) -> HandController:
        """A controller at ``checkpoint``; replay the inputs journaled after it to catch up."""
        return cls(setup, checkpoint)

    @property
    def setup(self) -> TableSetup:
        """The table's setup, as the current (or next) hand deals: at a table with a rotation,
        its ``game``, ``structure``, ``stakes`` and ``label`` are the rotation's game now."""
        return self._setup

    @property
    def active_errors(self) -> tuple[ActiveError, ...]:
        """Error states raised and not cleared, oldest first."""
        return tuple(self._errors.values())

    @property
    def hand_id(self) -> str | None:
        """The current (or settled) hand's id, None between hands."""
        return self._hand_id if self._hand is not None else None

    def hand_view(self) -> HandView | None:
        """The engine's view of the current (or settled) hand, None between hands."""
        return self._hand.view() if self._hand is not None else None

    def expected(self) -> Expectation | None:
        """What the hand waits for (the engine's expectation), None between hands."""
        return self._hand.expected() if self._hand is not None else None

    def checkpoint(self) -> TableState:
        """The table at the last hand boundary.

        While a hand is in progress this is the table right before it started (equal to its
        :attr:`HandStarted.checkpoint`); otherwise the table now. Restoring a checkpoint taken
        while a hand is settled gives phase ``idle`` (the settled board is not carried over);
        to rebuild the exact state, restore the last hand's start checkpoint and replay.
        """
        if self._stage is Stage.IN_HAND and self._pre_hand is not None:
            return self._pre_hand
        return self._table_state()

    def public_snapshot(self) -> dict[str, JsonValue]:
        """The public snapshot (docs/mqtt.md §8.3), without epoch/seq/ts. A fresh copy, the
        caller's to change."""
        return copy_json(self._current_snapshots()[0])

    def secure_snapshot(self) -> dict[str, JsonValue]:
        """The secure snapshot: the public one with every hole card, the burns and the held
        doubtful read. A fresh copy, the caller's to change."""
        return copy_json(self._current_snapshots()[1])

    def public_snapshot_view(self) -> Mapping[str, JsonValue]:
        """The public snapshot itself, not a copy: for callers that only read or serialise it.

        Read-only: neither it nor anything in it (lists, dicts) may be changed; it shares
        parts with the secure snapshot and with later snapshots. The controller never changes
        it either: it stays the snapshot of the state it was taken in (a later input makes a
        new one), so it may be kept. Built, if not yet, with the secure one (both cached until
        the next input); use :meth:`public_snapshot` for a copy to change.
        """
        return self._current_snapshots()[0]

    def secure_snapshot_view(self) -> Mapping[str, JsonValue]:
        """The secure snapshot itself, not a copy: read-only, as :meth:`public_snapshot_view`."""
        return self._current_snapshots()[1]

    def handle(self, inp: ControllerInput, *, decided: Reply | None = None) -> Outcome:
        """Apply one input; return everything it caused. Never raises for a table problem.

        ``decided``: the reply a command got when it was first applied (a journal replay):
        a refusal is given again without deciding anew, an applied command is executed
        without the checks that depend on the config (role, permission, age), so a replay
        under a later config reproduces what was decided (see
        :mod:`tablectl.controller.decisions`).

        Builds no snapshot: the outcome's ``public_changed`` / ``secure_changed`` are settled
        when first read (see :class:`SnapshotChange`). If the last outcome's are still
        unsettled and that outcome is still held, they are settled here first, on the state
        they are about, and so are the snapshots of the state before this input built if
        nothing asked for them since the last input: read the last outcome's flags (or a
        snapshot) before the next input to keep that work out of it.
        """
        last = self._last_change() if self._last_change is not None else None
        if last is not None:
            last.settle()
        before = self._current_snapshots()
        self._snaps = None  # from here on the state may change
        self._last_change = None
        self._run = Run()
        reply: Reply | None = None
        duplicate = False
        match inp:
            case CardRead():
                self._on_read(inp, halted_ok=False)
            case Command():
                reply, duplicate = self._on_command(inp, decided)
            case DeviceStatus():
                self._on_device(inp)
            case TagLeft():
                self._run.log.append(f"{inp.source}: a tag left antenna {inp.antenna}")
            case ReadMissed():
                self._on_missed(inp)
            case ConfigChange():
                self._on_config(inp)
        self._handlog.feed(self._run.events)
        change = SnapshotChange.pending(before, self._current_snapshots)
        self._last_change = weakref.ref(change)
        run = self._run
        for line in run.log:
            _LOGGER.debug("table %s hand %s: %s", self._setup.table, self._hand_id or "-", line)
        return Outcome(reply=reply, events=tuple(run.events), secure_events=tuple(run.secure),
                       snapshot_change=change, errors=tuple(run.errors),
                       hand_started=run.started, hand_ended=run.ended, log=tuple(run.log),
                       duplicate=duplicate)

    def _on_config(self, change: ConfigChange) -> None:
        self._run.log.append("config changed")
        if self._stage is Stage.NO_HAND:
            self._adopt(change.setup)
            if self._number == 0 and change.initial is not None:
                self._seats = {s.seat: s for s in change.initial.seats}
                self._button = change.initial.button
            return
        # the hand in progress keeps its game, stakes and rules; the rest applies now
        old = self._setup
        self._setup = replace(change.setup, game=old.game, structure=old.structure,
                              stakes=old.stakes, preset=old.preset, rules=old.rules,
                              label=old.label, currency=old.currency,
                              units_per_currency=old.units_per_currency)
        self._next_setup = change.setup

    def _on_device(self, status: DeviceStatus) -> None:
        old = self._devices.get(status.source)
        kind = status.kind or (old.kind if old else "")
        new = DeviceState(status.source, kind, status.online, status.problem)
        if old == new:
            return
        self._devices[status.source] = new
        self._run.events.append(Event("device", {
            "name": status.source, "kind": kind, **device_status_json(new)}))
