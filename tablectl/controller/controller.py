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
  user's role, from the topic, never the payload); ``stale_command`` (``sent_at`` older than
  ``max_command_age`` relative to ``at``); ``bad_args``; then the command's own checks
  (``wrong_phase``, ``out_of_turn``, ``illegal_action``, ``duplicate_card``...).
* **Corrections.** ``undo`` replays the hand without its last decision (refused when cards
  were dealt after it); ``misdeal`` (before substantial action: two actions with chips or any
  three) and ``kill_hand`` (floor, any time before settling) void the hand; ``manual_card``
  enters the expected card or replaces a doubtful read; ``adjust_stack``, ``seat_player`` and
  ``unseat_player`` only between hands.
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from tablectl.controller.args import Arg, ArgKind, ArgSchema, ArgValues, read_args
from tablectl.controller.inputs import (
    CardRead,
    Command,
    ControllerInput,
    DeviceStatus,
    Location,
    LocationKind,
    ReadMissed,
    ReadStatus,
    TagGone,
)
from tablectl.controller.outcome import (
    ErrorChange,
    Event,
    HandEnded,
    HandStarted,
    Outcome,
    SnapshotChange,
    Snapshots,
)
from tablectl.controller.reply import READ_ERRORS, ErrorCode, Refused, Reply
from tablectl.controller.setup_json import ConfigChange
from tablectl.controller.table import (
    ActiveError,
    CachedReply,
    DeviceState,
    SeatState,
    TableSetup,
    TableState,
)
from tablectl.controller.views import EventFolder, card_text, legal_json, pots_json
from tablectl.domain.cards import Card
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    ActionTaken,
    Burn,
    CardIn,
    CardOutOfTurn,
    DealBoard,
    DealDown,
    DealHole,
    DealUp,
    Done,
    DuplicateCard,
    Expectation,
    Hand,
    HandEvent,
    HandInput,
    HandSetupError,
    HandView,
    MuckIn,
    RuleViolation,
    SeatSetup,
    Showdown,
    ShowIn,
    Street,
)

_LOGGER = logging.getLogger(__name__)

STATE_SCHEMA: Final = "tablectl.state/1"
SECURE_STATE_SCHEMA: Final = "tablectl.secure-state/1"

_CARD_EXPECTATIONS: Final = (DealHole, DealUp, DealDown, Burn, DealBoard)
_CHIP_ACTIONS: Final = frozenset({ActionKind.CALL, ActionKind.BET, ActionKind.RAISE,
                                  ActionKind.COMPLETE, ActionKind.BRING_IN})


class Phase(StrEnum):
    """The table's phase as the snapshot shows it."""

    IDLE = "idle"
    DEALING = "dealing"
    BETTING = "betting"
    SHOWDOWN = "showdown"
    SETTLED = "settled"
    FAULT = "fault"


class Stage(StrEnum):
    """Where the table is in the hand cycle: what the command table's phases name.

    Stored (:attr:`HandController.stage`), changed only where a hand starts, settles or is
    cleared; the snapshot's :class:`Phase` refines it with the engine's expectation and the
    active read errors.
    """

    NO_HAND = "no_hand"
    """Between hands: no hand started since the last one was cleared."""
    IN_HAND = "in_hand"
    """A hand is in progress."""
    SETTLED = "settled"
    """Every pot of the hand is awarded; ``next_hand`` clears it."""


# A target key names where a card goes: ("seat", n), ("board", index) or ("burn", 0).
_Key = tuple[str, int]


@dataclass(frozen=True, slots=True)
class _Placed:
    """An accepted card: its target and how it was read (for debounce)."""

    key: _Key | None
    source: str
    antenna: int | None
    at: datetime
    read_id: str = ""


@dataclass(frozen=True, slots=True)
class _Pending:
    """A doubtful read held for the dealer, with the target it was going to."""

    read: CardRead
    card: Card
    key: _Key | None  # None: a shoe read for the current expectation


def _key_of(exp: Expectation) -> _Key | None:
    match exp:
        case DealHole() | DealUp() | DealDown():
            return ("seat", exp.seat)
        case DealBoard():
            return ("board", exp.index)
        case Burn():
            return ("burn", 0)
    return None


def _target_text(key: _Key | None) -> str:
    if key is None:
        return "the next card"
    kind, n = key
    return {"seat": f"seat {n}", "board": f"board {n + 1}", "burn": "the burn"}[kind]


def _json_time(at: datetime) -> str:
    return at.isoformat()


class _HandMemo:
    """What table reads and snapshots ask of one state of the hand, worked out once.

    A state is the hand object with its number of inputs (the engine changes a hand only by
    applying an input; a correction makes a new hand object). Everything kept is immutable.
    """

    __slots__ = ("_upcoming", "_view", "hand", "moves")

    def __init__(self, hand: Hand, moves: int) -> None:
        self.hand = hand
        self.moves = moves
        self._view: HandView | None = None
        self._upcoming: tuple[Expectation, ...] | None = None

    def view(self) -> HandView:
        """The engine's (frozen) view of the hand."""
        if self._view is None:
            self._view = self.hand.view()
        return self._view

    def upcoming(self) -> tuple[Expectation, ...]:
        """The card expectations of the current dealing round, from the current one on (on
        past rounds without betting: as far as the next decision), probed on a copy of the
        hand fed unknown cards."""
        if self._upcoming is None:
            out: list[Expectation] = []
            if isinstance(self.hand.expected(), _CARD_EXPECTATIONS):
                probe = self.hand.copy()
                while isinstance(exp := probe.expected(), _CARD_EXPECTATIONS):
                    out.append(exp)
                    try:
                        probe.apply(CardIn(None))
                    except (RuleViolation, ValueError):  # the last card settles unknowns
                        break
            self._upcoming = tuple(out)
        return self._upcoming


class _Run:
    """Per-input accumulator of what becomes the Outcome."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.secure: list[Event] = []
        self.errors: list[ErrorChange] = []
        self.log: list[str] = []
        self.started: HandStarted | None = None
        self.ended: HandEnded | None = None


class HandController:
    """The table's hand controller (see the module docstring for its rules).

    Args:
        setup: the table's fixed setup.
        state: where to start: :meth:`TableState.initial` for a new table, or a checkpoint
            (:attr:`HandStarted.checkpoint`, :meth:`checkpoint`) to restore.

    Not thread-safe; one instance per table, fed one input at a time.
    """

    def __init__(self, setup: TableSetup, state: TableState) -> None:
        self._seats: dict[int, SeatState] = {s.seat: s for s in state.seats}
        self._button = state.button
        self._number = state.hand_number
        self._errors: dict[ErrorCode, ActiveError] = {e.code: e for e in state.errors}
        self._devices: dict[str, DeviceState] = {d.name: d for d in state.devices}
        self._replies_prev: dict[tuple[str, str], Reply] = {
            (r.user, r.id): r.reply for r in state.replies if not r.current}
        self._replies_cur: dict[tuple[str, str], Reply] = {
            (r.user, r.id): r.reply for r in state.replies if r.current}
        # the hand (None between hands; kept while settled)
        self._hand: Hand | None = None
        self._hand_id = ""
        self._pre_hand: TableState | None = None
        self._stage = Stage.NO_HAND
        self._folder: EventFolder | None = None
        self._accepted: dict[Card, _Placed] = {}
        self._staged: dict[_Key, list[tuple[Card, CardRead]]] = {}
        self._pending: _Pending | None = None
        self._memo: _HandMemo | None = None
        self._run = _Run()
        # the snapshots of the current state once built (None: not since the last input), and
        # the last outcome's snapshot change while anybody holds it
        self._snaps: Snapshots | None = None
        self._last_change: weakref.ref[SnapshotChange] | None = None
        self._next_setup: TableSetup | None = None
        self._adopt(setup)

    def _adopt(self, setup: TableSetup) -> None:
        self._setup = setup
        self._stud = setup.game.is_stud
        self._next_setup = None
        self._game_json: dict[str, JsonValue] = {
            "variant": setup.game.value, "structure": setup.structure.value,
            "preset": setup.preset.value, "label": setup.label}
        self._stakes_json: dict[str, JsonValue] = {
            "small_blind": setup.stakes.small_blind, "big_blind": setup.stakes.big_blind,
            "ante": setup.stakes.ante, "bring_in": setup.stakes.bring_in,
            "small_bet": setup.stakes.small_bet, "big_bet": setup.stakes.big_bet,
            "currency": setup.currency, "units_per_currency": setup.units_per_currency}

    @classmethod
    def restore(cls, setup: TableSetup, checkpoint: TableState) -> HandController:
        """A controller at ``checkpoint``; replay the inputs journaled after it to catch up."""
        return cls(setup, checkpoint)

    # --- read-only state -------------------------------------------------------------------

    @property
    def setup(self) -> TableSetup:
        """The table's setup."""
        return self._setup

    @property
    def stage(self) -> Stage:
        """Where the table is in the hand cycle (stored, not derived)."""
        return self._stage

    @property
    def phase(self) -> Phase:
        """The current phase."""
        if any(code in READ_ERRORS for code in self._errors) or self._pending is not None:
            return Phase.FAULT
        if self._stage is Stage.NO_HAND:
            return Phase.IDLE
        if self._stage is Stage.SETTLED:
            return Phase.SETTLED
        assert self._hand is not None
        exp = self._hand.expected()
        if isinstance(exp, Act):
            return Phase.BETTING
        if isinstance(exp, Showdown | Done):
            return Phase.SHOWDOWN
        return Phase.DEALING

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
        """The public snapshot (mqtt_payloads.md), without epoch/seq/ts. A fresh copy, the
        caller's to change."""
        return _copy(self._current_snapshots()[0])

    def secure_snapshot(self) -> dict[str, JsonValue]:
        """The secure snapshot: the public one with every hole card, the burns and the held
        doubtful read. A fresh copy, the caller's to change."""
        return _copy(self._current_snapshots()[1])

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

    # --- the one entry point ---------------------------------------------------------------

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
        self._run = _Run()
        reply: Reply | None = None
        duplicate = False
        match inp:
            case CardRead():
                self._on_read(inp, halted_ok=False)
            case Command():
                reply, duplicate = self._on_command(inp, decided)
            case DeviceStatus():
                self._on_device(inp)
            case TagGone():
                self._run.log.append(f"{inp.source}: tag {inp.uid} left antenna {inp.antenna}")
            case ReadMissed():
                self._on_missed(inp)
            case ConfigChange():
                self._on_config(inp)
        change = SnapshotChange.pending(before, self._current_snapshots)
        self._last_change = weakref.ref(change)
        run = self._run
        for line in run.log:
            _LOGGER.debug("table %s hand %s: %s", self._setup.table, self._hand_id or "-", line)
        return Outcome(reply=reply, events=tuple(run.events), secure_events=tuple(run.secure),
                       snapshot_change=change, errors=tuple(run.errors),
                       hand_started=run.started, hand_ended=run.ended, log=tuple(run.log),
                       duplicate=duplicate)

    # --- errors ------------------------------------------------------------------------------

    def _raise(self, code: ErrorCode, message: str, at: datetime,
               detail: Mapping[str, JsonValue] | None = None) -> None:
        if code in self._errors:
            self._run.log.append(f"{code.value} already active: {message}")
            return
        err = ActiveError(code, message, at, dict(detail or {}))
        self._errors[code] = err
        self._run.errors.append(ErrorChange(code, message, True, at, None, err.detail))
        self._run.events.append(Event("error", {"code": code.value, "message": message,
                                                "active": True}))

    def _clear(self, code: ErrorCode, at: datetime, by: str) -> None:
        err = self._errors.pop(code)
        self._run.errors.append(ErrorChange(code, err.message, False, at, by, err.detail))
        self._run.events.append(Event("error", {"code": code.value, "message": err.message,
                                                "active": False}))

    # --- reads -------------------------------------------------------------------------------

    def _on_read(self, read: CardRead, *, halted_ok: bool) -> bool:
        """Process a read; True if it was accepted (applied or staged)."""
        run = self._run
        blocking = [c.value for c in self._errors if c in READ_ERRORS]
        if not halted_ok and (blocking or self._pending is not None):
            why = ", ".join(blocking) or "a doubtful read is pending"
            run.log.append(f"read {read.read_id} refused: the table waits for the dealer ({why})")
            return False
        card = self._resolve(read)
        if card is None:
            return False
        hand = self._hand
        if hand is None or self._stage is not Stage.IN_HAND:
            run.log.append(f"read {read.read_id} ({card}) ignored: no hand in progress")
            return False
        loc = read.location
        if loc is not None and loc.kind is LocationKind.MUCK:
            run.log.append(f"read {read.read_id} ({card}) on the muck ignored")
            return False
        placed = self._accepted.get(card)
        if placed is not None and not hand.back_in_play(card):  # stud: recycled cards
            # the same read again (a reader resends what a crashed host never acknowledged)
            # is a repeat however late it comes
            if placed.read_id == read.read_id or self._same_place(placed, read, loc):
                run.log.append(f"read {read.read_id} ({card}) repeats an accepted read")
                return False
            self._raise(ErrorCode.DUPLICATE_CARD,
                        f"{self._name(card).capitalize()} was already dealt to "
                        f"{_target_text(placed.key)}"
                        f" (read again {self._where(read)})", read.at,
                        {"card": str(card), "read": read.read_id})
            return False
        try:
            key = self._target_for(read, card, hand)
        except Refused as refusal:
            self._raise(refusal.code, refusal.reason, read.at,
                        {"card": str(card), "read": read.read_id,
                         "location": str(loc) if loc else None})
            return False
        if read.status is ReadStatus.NEEDS_CONFIRMATION:
            self._pending = _Pending(read, card, key)
            self._raise(ErrorCode.DOUBTFUL_READ,
                        f"read {read.read_id} needs confirmation: {self._name(card)} for "
                        f"{_target_text(key if loc else _key_of(hand.expected()))}"
                        f" (confidence {read.confidence:.2f})", read.at,
                        {"read": read.read_id, "card": str(card)})
            return False
        self._accept(card, read, key)
        return True

    def _public_cards(self) -> set[Card]:
        """Cards anybody may see now: the board, up cards, hands shown at showdown."""
        hand, folder = self._hand, self._folder
        if hand is None or folder is None:
            return set()
        seen = {c for c in hand.board if c is not None}
        for sv in self._memo_of(hand).view().seats:
            seen.update(c.card for c in sv.cards
                        if c.card is not None and (c.face_up or sv.seat in folder.revealed))
        return seen

    def _name(self, card: Card) -> str:
        """The card's name for a public message, or "a card" while it may be a hidden one."""
        return str(card) if card in self._public_cards() else "a card"

    def _public_text(self, card: Card | None) -> str | None:
        return str(card) if card is not None and card in self._public_cards() else None

    def _resolve(self, read: CardRead) -> Card | None:
        if read.card is not None:
            return read.card
        assert read.uid is not None
        card = self._setup.deck.card_for(read.uid)
        if card is not None:
            return card
        for deck_id, deck in self._setup.decks.items():
            other = deck.card_for(read.uid)
            if other is not None and deck_id != self._setup.deck_id:
                self._raise(ErrorCode.SECOND_DECK,
                            f"tag {read.uid} is {self._name(other)} of deck {deck_id}, not of "
                            f"{self._setup.deck_id} ({self._where(read)})", read.at,
                            {"uid": read.uid, "deck": deck_id, "read": read.read_id})
                return None
        self._raise(ErrorCode.UNKNOWN_TAG,
                    f"tag {read.uid} is in no registered deck ({self._where(read)})",
                    read.at, {"uid": read.uid, "read": read.read_id})
        return None

    @staticmethod
    def _where(read: CardRead) -> str:
        if read.location is not None:
            return f"at {read.location}"
        return f"from {read.source} antenna {read.antenna}"

    def _same_place(self, placed: _Placed, read: CardRead, loc: Location | None) -> bool:
        if loc is None:
            return (placed.source == read.source and placed.antenna == read.antenna
                    and (read.at - placed.at).total_seconds() <= self._setup.debounce)
        return placed.key is not None and placed.key == self._location_key(loc)

    @staticmethod
    def _location_key(loc: Location) -> _Key | None:
        if loc.kind is LocationKind.SEAT:
            assert loc.seat is not None
            return ("seat", loc.seat)
        if loc.kind is LocationKind.BOARD:
            assert loc.index is not None
            return ("board", loc.index - 1)
        if loc.kind is LocationKind.BURN:
            return ("burn", 0)
        return None

    def _memo_of(self, hand: Hand) -> _HandMemo:
        """The memo of ``hand``'s current state (a new one once the hand has moved)."""
        memo = self._memo
        moves = len(hand.inputs)
        if memo is None or memo.hand is not hand or memo.moves != moves:
            memo = self._memo = _HandMemo(hand, moves)
        return memo

    def _betting_before_board(self, hand: Hand) -> bool:
        """Betting is open and a board card (with its burn) will follow it."""
        return (isinstance(hand.expected(), Act) and not self._stud
                and hand.street is not Street.RIVER)

    def _target_for(self, read: CardRead, card: Card, hand: Hand) -> _Key | None:
        """Where a read goes (None: the current expectation, for a shoe), or Refused."""
        exp = hand.expected()
        loc = read.location

        def name() -> str:  # only for a refusal: it needs a view of the hand
            return self._name(card)

        if loc is None:
            if isinstance(exp, _CARD_EXPECTATIONS):
                return None
            if self._betting_before_board(hand):
                raise Refused(ErrorCode.BOARD_BEFORE_ROUND_CLOSED,
                               f"{name()} came out of {read.source} while the "
                               f"{hand.street} betting is open")
            raise Refused(ErrorCode.TOO_MANY_CARDS,
                           f"{name()} came out of {read.source}, but no card is expected now")
        key = self._location_key(loc)
        assert key is not None
        memo = self._memo_of(hand)
        run = [k for e in memo.upcoming() if (k := _key_of(e)) is not None]
        kind, n = key
        staged = len(self._staged.get(key, []))
        if kind == "seat":
            view = {s.seat: s for s in memo.view().seats}
            if n not in view or view[n].folded:
                raise Refused(ErrorCode.WRONG_ANTENNA,
                               f"{name()} read at {loc}, but seat {n} is not in the hand")
            have, need = len(hand.hole_cards(n)), run.count(key)
            if loc.slot is not None:
                taken = {r.location.slot for _, r in self._staged.get(key, [])
                         if r.location is not None}
                if have < loc.slot <= have + need and loc.slot not in taken:
                    return key
                if loc.slot <= have or loc.slot in taken:
                    raise Refused(ErrorCode.TOO_MANY_CARDS,
                                   f"{name()} read at {loc}, which already holds a card")
            elif need > staged:
                return key
            if any(k[0] == "seat" for k in run) or not run:
                raise Refused(ErrorCode.TOO_MANY_CARDS,
                               f"{name()} read at {loc}, but seat {n} has all its cards for "
                               "this round")
            raise Refused(ErrorCode.WRONG_ANTENNA,
                           f"{name()} read at {loc} while the board is being dealt")
        if key in run and run.count(key) > staged:
            return key
        if kind == "board" and n < len(hand.board):
            raise Refused(ErrorCode.TOO_MANY_CARDS,
                           f"{name()} read at {loc}, which already holds a card")
        if self._betting_before_board(hand):
            raise Refused(ErrorCode.BOARD_BEFORE_ROUND_CLOSED,
                           f"{name()} read at {loc} while the {hand.street} betting is open")
        if kind == "board" and (len(hand.board) >= 5 or isinstance(exp, Showdown | Done)):
            raise Refused(ErrorCode.TOO_MANY_CARDS,
                           f"{name()} read at {loc}, but the board is complete")
        raise Refused(ErrorCode.WRONG_ANTENNA,
                       f"{name()} read at {loc}, but {_target_text(_key_of(exp))} is expected"
                       if isinstance(exp, _CARD_EXPECTATIONS)
                       else f"{name()} read at {loc}, but no card is expected now")

    def _accept(self, card: Card, read: CardRead, key: _Key | None) -> None:
        hand = self._hand
        assert hand is not None
        if key is None:  # shoe: the card for the current expectation
            target = _key_of(hand.expected())
            self._placed(card, target, read.source, read.antenna, at=read.at,
                         read_id=read.read_id)
            self._apply(CardIn(card))
        else:
            self._accepted[card] = _Placed(key, read.source, read.antenna, read.at,
                                           read.read_id)
            self._staged.setdefault(key, []).append((card, read))
        self._drain()

    def _placed(self, card: Card | None, key: _Key | None, source: str, antenna: int | None,
                *, at: datetime, read_id: str = "") -> None:
        if card is not None:
            self._accepted[card] = _Placed(key, source, antenna, at, read_id)

    def _drain(self) -> None:
        """Apply staged table reads whose turn has come (and unread burns before them)."""
        hand = self._hand
        while hand is not None and self._stage is Stage.IN_HAND:
            exp = hand.expected()
            key = _key_of(exp)
            if key is None:
                return
            queue = self._staged.get(key)
            pick: int | None = 0
            if queue and key[0] == "seat":  # a seat's slots say which of its cards is which
                slot = len(hand.hole_cards(key[1])) + 1
                pick = next((i for i, (_, r) in enumerate(queue)
                             if r.location is None or r.location.slot in (None, slot)), None)
            if queue and pick is not None:
                card, _read = queue.pop(pick)
                if not queue:
                    del self._staged[key]
                self._apply(CardIn(card))
                continue
            if isinstance(exp, Burn) and self._staged:
                self._run.log.append("burn card not read: entered as unknown")
                self._apply(CardIn(None, burn=True))
                continue
            return

    # --- engine ------------------------------------------------------------------------------

    def _apply(self, inp: HandInput) -> tuple[HandEvent, ...]:
        """Apply to the engine (already verified) and emit the events."""
        hand = self._hand
        folder = self._folder
        assert hand is not None and folder is not None
        events = hand.apply(inp)
        public, secure = folder.feed(events)
        self._run.events.extend(public)
        self._run.secure.extend(secure)
        if hand.is_done:
            self._finish()
        return events

    def _finish(self) -> None:
        hand = self._hand
        folder = self._folder
        assert hand is not None and folder is not None
        self._stage = Stage.SETTLED
        for seat, stack in hand.final_stacks.items():
            if seat in self._seats:
                self._seats[seat] = replace(self._seats[seat], stack=stack)
        self._staged.clear()
        summary: dict[str, JsonValue] = {
            "hand": self._hand_json(), "result": "settled",
            "stacks": [{"seat": s, "stack": n} for s, n in sorted(hand.final_stacks.items())],
            "results": list(folder.awards), "board": [card_text(c) for c in hand.board],
            "rake": hand.rake}
        self._run.ended = HandEnded(self._number, self._hand_id, summary)

    def _hand_json(self) -> dict[str, JsonValue]:
        return {"id": self._hand_id, "number": self._number}

    # --- commands ----------------------------------------------------------------------------

    def _on_command(self, cmd: Command, decided: Reply | None) -> tuple[Reply, bool]:
        key = (cmd.user, cmd.id)
        cached = self._replies_cur.get(key) or self._replies_prev.get(key)
        if cached is not None:
            self._run.log.append(f"command {cmd.id} from {cmd.user} repeated: same reply")
            return cached, True
        if decided is not None and not decided.ok:
            self._replies_cur[key] = decided
            self._run.log.append(f"{cmd.name} from {cmd.user} refused when journaled: "
                                 f"{decided.code}: {decided.reason}")
            return decided, False
        try:
            result = self._execute(cmd, admit=decided is None)
            reply = Reply.success(cmd.id, result)
        except Refused as refusal:
            reply = Reply.failure(cmd.id, refusal.code, refusal.reason)
            self._run.log.append(f"{cmd.name} from {cmd.user} refused: {refusal.code.value}: "
                                 f"{refusal.reason}")
        self._replies_cur[key] = reply
        return reply, False

    def _execute(self, cmd: Command, *, admit: bool = True) -> dict[str, JsonValue]:
        """Refusals in order: unknown command, role and age (``admit``), arguments, phase;
        then the command's own checks and its work."""
        rule = COMMAND_TABLE.get(cmd.name)
        if rule is None:
            raise Refused(ErrorCode.UNKNOWN_COMMAND, f"no command {cmd.name!r}")
        if admit:
            self._admit(cmd)
        args = read_args(rule.args, cmd.args, self._setup)
        if self._stage not in rule.phases:
            raise Refused(ErrorCode.WRONG_PHASE,
                          rule.wrong_phase[self._stage].format(name=cmd.name,
                                                               hand=self._hand_id))
        return rule.handler(self, cmd, args)

    def _admit(self, cmd: Command) -> None:
        role = self._setup.roles.get(cmd.user)
        if role is None:
            raise Refused(ErrorCode.NOT_AUTHORISED, f"user {cmd.user!r} has no role here")
        if cmd.name not in self._setup.permissions.get(role, frozenset()):
            raise Refused(ErrorCode.NOT_AUTHORISED,
                           f"a {role} may not {cmd.name} (user {cmd.user!r})")
        if cmd.sent_at is not None:
            age = (cmd.at - cmd.sent_at).total_seconds()
            if age > self._setup.max_command_age:
                raise Refused(ErrorCode.STALE_COMMAND,
                               f"sent {age:.1f} s ago (at most "
                               f"{self._setup.max_command_age:g} s)")

    def _in_hand(self) -> Hand:
        """The hand in progress (the command table let only such commands through)."""
        assert self._hand is not None and self._stage is Stage.IN_HAND
        return self._hand

    def _correction(self, kind: str, cmd: Command, **fields: JsonValue) -> None:
        self._run.events.append(Event("correction", {"kind": kind, "by": cmd.user, **fields}))

    # start_hand ------------------------------------------------------------------------------

    def _cmd_start_hand(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        blocking = [c.value for c in self._errors if c in READ_ERRORS]
        if blocking:
            raise Refused(ErrorCode.WRONG_PHASE, "clear the active errors first: "
                           + ", ".join(blocking))
        players = [SeatSetup(s.seat, s.stack, s.name) for s in self._seats.values()
                   if s.stack > 0]
        number = self._number + 1
        hand_id = f"{self._setup.table}-{number:06d}"
        try:
            hand = Hand.start(game=self._setup.game, structure=self._setup.structure,
                              rules=self._setup.rule_set, stakes=self._setup.stakes,
                              seats=sorted(players, key=lambda s: s.seat),
                              button=0 if self._stud else self._button, hand_id=hand_id)
        except HandSetupError as exc:
            raise Refused(ErrorCode.WRONG_PHASE, f"cannot start a hand: {exc}") from exc
        checkpoint = self._table_state()
        self._replies_prev, self._replies_cur = self._replies_cur, {}
        self._pre_hand = checkpoint
        self._number = number
        self._hand_id = hand_id
        self._hand = hand
        self._stage = Stage.IN_HAND
        self._accepted.clear()
        self._staged.clear()
        self._pending = None
        self._folder = EventFolder(self._hand_json(), {p.seat: p.stack for p in players})
        self._run.events.append(Event("hand_started", {
            "hand": self._hand_json(), "button": None if self._stud else self._button,
            "seats": [{"seat": p.seat, "name": p.name, "stack": p.stack}
                      for p in sorted(players, key=lambda s: s.seat)]}))
        public, secure = self._folder.feed(hand.events)
        self._run.events.extend(public)
        self._run.secure.extend(secure)
        self._run.started = HandStarted(number, hand_id, checkpoint)
        return {"hand": self._hand_json(), "button": None if self._stud else self._button,
                "seats": [{"seat": p.seat, "name": p.name, "stack": p.stack}
                          for p in sorted(players, key=lambda s: s.seat)]}

    # action ------------------------------------------------------------------------------

    def _cmd_action(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        """``{seat, kind, amount, cards}``: ``seat`` omitted (a keypad) acts for the seat to
        act; ``amount`` omitted for bet, raise or complete is the smallest legal "to" total;
        ``show`` (with ``cards`` the table did not read) and ``muck`` answer a showdown."""
        given_seat = args.opt_int("seat")
        kind_text = args.text("kind").replace("_", "-")
        amount = args.opt_int("amount")
        cards_text = args.opt_cards("cards")
        kind = None if kind_text in ("show", "muck") else ActionKind(kind_text)
        hand = self._in_hand()
        exp = hand.expected()
        seat = given_seat
        if seat is None:
            if not isinstance(exp, Act | Showdown):
                raise Refused(ErrorCode.OUT_OF_TURN, "no decision is expected now")
            seat = exp.seat
        inp: HandInput
        if kind is None:
            inp = ShowIn(seat, cards_text) if kind_text == "show" else MuckIn(seat)
        else:
            if (amount is None and isinstance(exp, Act) and exp.seat == seat
                    and kind is exp.legal.bet_kind):
                amount = exp.legal.min_to
            inp = ActionIn(seat, kind, amount)
        try:
            hand.verify(inp)
        except DuplicateCard as exc:
            raise Refused(ErrorCode.DUPLICATE_CARD, exc.reason) from exc
        except RuleViolation as exc:
            decision = isinstance(exp, Act | Showdown)
            wrong_seat = decision and exp.seat != seat  # type: ignore[union-attr]
            fits = isinstance(exp, Act) == isinstance(inp, ActionIn)
            code = (ErrorCode.OUT_OF_TURN if not decision or wrong_seat or not fits
                    else ErrorCode.ILLEGAL_ACTION)
            raise Refused(code, exc.reason) from exc
        events = self._apply(inp)
        self._drain()
        result: dict[str, JsonValue] = {"seat": seat, "kind": kind_text.replace("-", "_")}
        for ev in events:
            if isinstance(ev, ActionTaken) and ev.seat == seat:
                result["amount"] = ev.added
                result["to"] = ev.to
                break
        return result

    # undo --------------------------------------------------------------------------------

    def _cmd_undo(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        hand = self._in_hand()
        inputs = hand.inputs
        last = next((i for i in range(len(inputs) - 1, -1, -1)
                     if not isinstance(inputs[i], CardIn)), None)
        if last is None:
            raise Refused(ErrorCode.NOTHING_TO_UNDO, "no decision to undo in this hand")
        if last != len(inputs) - 1:
            later = [card_text(i.card) or "??" for i in inputs[last + 1:]
                     if isinstance(i, CardIn)]
            raise Refused(ErrorCode.NOTHING_TO_UNDO,
                           f"cards were dealt after the last decision ({' '.join(later)}): "
                           "misdeal or kill_hand instead")
        undone = inputs[last]
        rebuilt = Hand.replay(hand.start_args, inputs[:last])
        self._hand = rebuilt
        self._rebuild_folder()
        what: dict[str, JsonValue] = {"seat": undone.seat,
                                      "kind": _input_kind(undone)}
        if isinstance(undone, ActionIn) and undone.amount is not None:
            what["amount"] = undone.amount
        self._correction("undo", cmd, undone=what)
        return {"undone": what}

    def _rebuild_folder(self) -> None:
        hand = self._hand
        assert hand is not None
        folder = EventFolder(self._hand_json(),
                             {s.seat: s.stack for s in hand.start_args.seats})
        folder.feed(hand.events)
        self._folder = folder

    # misdeal / kill_hand ---------------------------------------------------------------------

    def _cmd_misdeal(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        hand = self._in_hand()
        actions = [i for i in hand.inputs if isinstance(i, ActionIn)]
        chips = any(a.kind in _CHIP_ACTIONS for a in actions)
        if len(actions) >= 3 or (len(actions) >= 2 and chips):
            raise Refused(ErrorCode.WRONG_PHASE,
                           "substantial action has taken place: no misdeal (the floor may "
                           "kill_hand)")
        return self._void("misdeal", cmd)

    def _cmd_kill_hand(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        return self._void("killed", cmd)

    def _void(self, result: str, cmd: Command) -> dict[str, JsonValue]:
        """Back to before the hand: stacks as they were, the button unmoved."""
        hand_json = self._hand_json()
        self._correction("misdeal" if result == "misdeal" else "kill_hand", cmd)
        stacks: list[JsonValue] = [{"seat": s.seat, "stack": s.stack}
                                   for s in sorted(self._seats.values(), key=lambda s: s.seat)]
        self._run.events.append(Event("hand_ended", {"hand": hand_json, "result": result,
                                                     "stacks": stacks, "rake": 0}))
        self._run.ended = HandEnded(self._number, self._hand_id, {
            "hand": hand_json, "result": result, "stacks": stacks, "results": [],
            "board": [], "rake": 0, "by": cmd.user})
        if self._pending is not None:
            self._pending = None
            if ErrorCode.DOUBTFUL_READ in self._errors:
                self._clear(ErrorCode.DOUBTFUL_READ, cmd.at, cmd.user)
        self._clear_hand()
        return {"hand": hand_json, "result": result}

    def _clear_hand(self) -> None:
        if self._next_setup is not None:
            self._adopt(self._next_setup)
        self._hand = None
        self._hand_id = ""
        self._pre_hand = None
        self._stage = Stage.NO_HAND
        self._folder = None
        self._accepted.clear()
        self._staged.clear()
        self._pending = None

    # cards ---------------------------------------------------------------------------------

    def _cmd_manual_card(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        card = args.opt_card("card")
        seat = args.opt_int("seat")
        board = args.opt_bool("board")
        burn = args.opt_bool("burn")
        read_id = args.opt_str("read")
        hand = self._in_hand()
        pending = self._pending
        if pending is not None and read_id is None:
            raise Refused(ErrorCode.BAD_ARGS,
                           f"read {pending.read.read_id} is held for confirmation: name it in "
                           "'read', or confirm_read / reject_read it")
        if read_id is not None and (pending is None or pending.read.read_id != read_id):
            raise Refused(ErrorCode.NO_SUCH_READ, f"no doubtful read {read_id!r} is held")
        if card is not None and card in self._accepted and not hand.back_in_play(card):
            raise Refused(ErrorCode.DUPLICATE_CARD,
                           f"{card} was already dealt to "
                           f"{_target_text(self._accepted[card].key)}")
        if pending is not None:
            if card is None:
                raise Refused(ErrorCode.BAD_ARGS, "replacing a read needs a card")
            read = replace(pending.read, card=card, uid=None, status=ReadStatus.ACCEPTED,
                           source=f"manual:{cmd.user}")
            key = self._target_for(read, card, hand)  # the hand may have moved (an undo)
            self._pending = None
            self._clear(ErrorCode.DOUBTFUL_READ, cmd.at, cmd.user)
            self._accept(card, read, key)
            self._correction("manual_card", cmd, card=self._public_text(card), read=read_id)
            return {"card": str(card), "read": read_id}
        exp = hand.expected()
        if card is None and isinstance(exp, DealBoard | DealUp):
            raise Refused(ErrorCode.BAD_ARGS, "a board or up card must be named")
        inp = CardIn(card, seat=seat, board=board, burn=burn)
        try:
            hand.verify(inp)
        except DuplicateCard as exc:
            raise Refused(ErrorCode.DUPLICATE_CARD, exc.reason) from exc
        except CardOutOfTurn as exc:
            raise Refused(ErrorCode.OUT_OF_TURN, exc.reason) from exc
        except RuleViolation as exc:  # pragma: no cover (card checks raise the two above)
            raise Refused(ErrorCode.OUT_OF_TURN, exc.reason) from exc
        target = _key_of(exp)
        self._placed(card, target, f"manual:{cmd.user}", None, at=cmd.at)
        self._apply(inp)
        self._drain()
        self._correction("manual_card", cmd, card=self._public_text(card),
                         target=_target_text(target))
        return {"card": card_text(card), "target": _target_text(target)}

    def _cmd_confirm_read(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        read_id = args.text("read")
        pending = self._held(read_id)
        self._pending = None
        self._clear(ErrorCode.DOUBTFUL_READ, cmd.at, cmd.user)
        accepted = self._on_read(replace(pending.read, status=ReadStatus.ACCEPTED),
                                 halted_ok=True)
        return {"read": read_id, "card": str(pending.card), "accepted": accepted}

    def _cmd_reject_read(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        read_id = args.text("read")
        pending = self._held(read_id)
        self._pending = None
        self._clear(ErrorCode.DOUBTFUL_READ, cmd.at, cmd.user)
        return {"read": read_id, "card": str(pending.card)}

    def _held(self, read_id: str) -> _Pending:
        pending = self._pending
        if pending is None or pending.read.read_id != read_id:
            raise Refused(ErrorCode.NO_SUCH_READ, f"no doubtful read {read_id!r} is held")
        return pending

    # table ---------------------------------------------------------------------------------

    def _cmd_adjust_stack(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        seat = args.integer("seat")
        amount = args.integer("amount")
        reason = args.text("reason").strip()
        current = self._seated(seat)
        stack = current.stack + amount
        if stack < 0:
            raise Refused(ErrorCode.BAD_ARGS,
                           f"seat {seat} has {current.stack}: cannot remove {-amount}")
        self._seats[seat] = replace(current, stack=stack)
        self._seat_event(seat, "adjusted", cmd, amount=amount, reason=reason)
        return {"seat": seat, "stack": stack}

    def _cmd_seat_player(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        seat = args.integer("seat")
        name = args.text("name").strip()
        stack = args.integer("stack")
        if seat in self._seats:
            raise Refused(ErrorCode.BAD_ARGS,
                           f"seat {seat} is taken by {self._seats[seat].name or 'a player'}")
        self._seats[seat] = SeatState(seat, name, stack)
        self._seats = dict(sorted(self._seats.items()))
        self._seat_event(seat, "seated", cmd)
        return {"seat": seat, "name": name, "stack": stack}

    def _cmd_unseat_player(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        seat = args.integer("seat")
        current = self._seated(seat)
        self._seat_event(seat, "unseated", cmd)
        del self._seats[seat]
        return {"seat": seat, "name": current.name, "stack": current.stack}

    def _seated(self, seat: int) -> SeatState:
        current = self._seats.get(seat)
        if current is None:
            raise Refused(ErrorCode.BAD_ARGS, f"seat {seat} is empty")
        return current

    def _seat_event(self, seat: int, change: str, cmd: Command, **extra: JsonValue) -> None:
        s = self._seats[seat]
        self._run.events.append(Event("seat", {"seat": seat, "name": s.name, "stack": s.stack,
                                               "change": change, "by": cmd.user, **extra}))

    def _cmd_next_hand(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        self._clear_hand()
        if not self._stud:
            self._button = self._next_button()
        return {"button": None if self._stud else self._button}

    def _next_button(self) -> int:
        live = sorted(s.seat for s in self._seats.values() if s.stack > 0)
        if not live:
            return self._button
        return next((s for s in live if s > self._button), live[0])

    def _cmd_clear_error(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        code_text = args.text("code")
        try:
            code = ErrorCode(code_text)
        except ValueError:
            raise Refused(ErrorCode.NO_SUCH_ERROR, f"no error {code_text!r}") from None
        if code not in self._errors:
            raise Refused(ErrorCode.NO_SUCH_ERROR, f"{code_text} is not active")
        if code is ErrorCode.DOUBTFUL_READ:
            self._pending = None
        self._clear(code, cmd.at, cmd.user)
        return {"code": code.value}

    def _on_missed(self, missed: ReadMissed) -> None:
        if self._stage is not Stage.IN_HAND:
            self._run.log.append(f"{missed.source}: {missed.reason} (no hand in progress)")
            return
        self._raise(ErrorCode.MISSED_READ,
                    f"{missed.source}: {missed.reason}; enter the card with manual_card "
                    "(or check that none is missing), then clear the error", missed.at,
                    {"source": missed.source, "antenna": missed.antenna})

    # --- devices -----------------------------------------------------------------------------

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
        new = DeviceState(status.source, kind, status.online)
        if old == new:
            return
        self._devices[status.source] = new
        self._run.events.append(Event("device", {
            "name": status.source, "kind": kind,
            "status": "online" if status.online else "offline"}))

    # --- state and snapshots -----------------------------------------------------------------

    def _table_state(self) -> TableState:
        replies = tuple(CachedReply(u, i, r, False) for (u, i), r in self._replies_prev.items())
        replies += tuple(CachedReply(u, i, r, True) for (u, i), r in self._replies_cur.items())
        return TableState(tuple(self._seats.values()), self._button, self._number,
                          tuple(self._errors.values()), tuple(self._devices.values()), replies)

    def _current_snapshots(self) -> Snapshots:
        """The snapshots of the current state: built on the first call after an input, then
        the cached ones (never changed: callers of the views may keep them)."""
        snaps = self._snaps
        if snaps is None:
            snaps = self._snaps = self._build_snapshots()
        return snaps

    def _build_snapshots(self) -> tuple[dict[str, JsonValue], dict[str, JsonValue]]:
        """The public and the secure snapshot, built from one view of the hand.

        They share parts with each other (the seats out of the hand, everything but the seats,
        burns and held read) and with every snapshot of this controller (the game and the
        stakes): nothing in them is ever changed in place.
        """
        setup = self._setup
        hand = self._hand
        folder = self._folder
        view = self._memo_of(hand).view() if hand is not None else None
        in_hand = {s.seat: s for s in view.seats} if view is not None else {}
        exp = hand.expected() if hand is not None else None
        settled = self._stage is Stage.SETTLED
        to_act = exp.seat if isinstance(exp, Act) and not settled else None
        public_seats: list[JsonValue] = []
        secure_seats: list[JsonValue] = []
        for n in range(1, setup.max_seats + 1):
            table = self._seats.get(n)
            sv = in_hand.get(n)
            if table is None or sv is None:
                status = ("empty" if table is None else
                          "out" if view is not None or table.stack == 0 else "active")
                entry: dict[str, JsonValue] = {
                    "seat": n, "name": table.name if table else "",
                    "stack": table.stack if table else 0, "bet": 0, "status": status,
                    "cards": [], "to_act": False}
                public_seats.append(entry)
                secure_seats.append(entry)
                continue
            revealed = folder is not None and n in folder.revealed
            public_cards: list[JsonValue] = []
            secure_cards: list[JsonValue] = []
            for c in sv.cards:
                up = c.face_up or revealed
                text = card_text(c.card)
                public_cards.append({"card": text if up else None, "up": up})
                secure_cards.append({"card": text, "up": up})
            status = ("folded" if sv.folded else "all_in" if sv.all_in and not settled
                      else "active")
            common: dict[str, JsonValue] = {
                "seat": n, "name": table.name,
                "stack": table.stack if settled else sv.stack,
                "bet": sv.bet, "status": status}
            public_seats.append({**common, "cards": public_cards, "to_act": n == to_act})
            secure_seats.append({**common, "cards": secure_cards, "to_act": n == to_act})
        street: str | None = None
        if view is not None:
            showdown = (isinstance(exp, Showdown) and not exp.run_out) or (
                settled and folder is not None and folder.showdown)
            street = "showdown" if showdown else (view.street.value if view.street else None)
        snap: dict[str, JsonValue] = {
            "schema": STATE_SCHEMA,
            "table": setup.table,
            "hand": self._hand_json() if hand is not None else None,
            "game": self._game_json,
            "stakes": self._stakes_json,
            "button": None if self._stud else self._button,
            "phase": self.phase.value,
            "street": street,
            "seats": public_seats,
            "board": [card_text(c) for c in view.board] if view is not None else [],
            "pots": pots_json(view.pots) if view is not None else [],
            "to_act": {"seat": exp.seat, "legal": legal_json(exp.legal)}
            if isinstance(exp, Act) and not settled else None,
            "last_action": dict(folder.last_action)
            if folder is not None and folder.last_action is not None else None,
            "results": [dict(a) for a in folder.awards] if folder is not None else [],
            "errors": [{"code": e.code.value, "message": e.message,
                        "since": _json_time(e.since)} for e in self._errors.values()],
            "devices": [{"name": d.name, "kind": d.kind,
                         "status": "online" if d.online else "offline"}
                        for d in self._devices.values()],
        }
        pending = self._pending
        secure: dict[str, JsonValue] = {
            **snap, "schema": SECURE_STATE_SCHEMA, "seats": secure_seats,
            "burns": [card_text(c) for c in view.burns] if view is not None else [],
            "pending_read": {
                "read": pending.read.read_id, "card": str(pending.card),
                "confidence": pending.read.confidence,
                "target": _target_text(pending.key if pending.read.location
                                       else _key_of(exp) if exp is not None else None),
            } if pending is not None else None}
        return snap, secure


def _input_kind(inp: HandInput) -> str:
    if isinstance(inp, ActionIn):
        return inp.kind.value.replace("-", "_")
    return "show" if isinstance(inp, ShowIn) else "muck"


def _copy(value: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    out: dict[str, JsonValue] = {}
    for k, v in value.items():
        out[k] = _copy_value(v)
    return out


def _copy_value(v: JsonValue) -> JsonValue:
    if isinstance(v, dict):
        return _copy(v)
    if isinstance(v, list):
        return [_copy_value(x) for x in v]
    return v


# --- the command table -----------------------------------------------------------------------


def _action_kind(value: object, setup: TableSetup | None) -> str | None:
    text = str(value).replace("_", "-")
    if text in ("show", "muck"):
        return None
    try:
        ActionKind(text)
    except ValueError:
        return f"unknown action kind {text!r}"
    return None


def _reason_given(value: object, setup: TableSetup | None) -> str | None:
    return None if str(value).strip() else "adjust_stack needs a reason"


def _seat_number(value: object, setup: TableSetup | None) -> str | None:
    assert isinstance(value, int) and setup is not None
    return None if 1 <= value <= setup.max_seats else f"seats are 1..{setup.max_seats}"


def _not_negative(value: object, setup: TableSetup | None) -> str | None:
    assert isinstance(value, int)
    return "a stack cannot be negative" if value < 0 else None


Handler = Callable[[HandController, Command, ArgValues], dict[str, JsonValue]]


@dataclass(frozen=True, slots=True)
class CommandRule:
    """One row of the command table.

    Attributes:
        handler: does the command (its own checks raise :class:`Refused`); returns the reply's
            result.
        phases: the stages the command is allowed in; in any other it is refused
            ``wrong_phase``.
        args: its arguments.
        wrong_phase: the refusal's reason in each stage not allowed (``{name}``: the
            command, ``{hand}``: the hand's id).
    """

    handler: Handler
    phases: frozenset[Stage]
    args: ArgSchema
    wrong_phase: Mapping[Stage, str]

    def __post_init__(self) -> None:
        if set(self.wrong_phase) != set(Stage) - self.phases:
            raise ValueError("a wrong_phase reason for exactly the stages not allowed")


_ANY: Final = frozenset(Stage)
_IN_HAND: Final = frozenset({Stage.IN_HAND})
_BETWEEN: Final = frozenset({Stage.NO_HAND, Stage.SETTLED})
_NEED_HAND: Final = {Stage.NO_HAND: "{name}: no hand in progress",
                     Stage.SETTLED: "{name}: the hand is already settled"}
_NOT_IN_HAND: Final = {Stage.IN_HAND: "{name} only between hands"}
_SEAT: Final = Arg("seat", ArgKind.INT, required=True)

COMMAND_TABLE: Final[Mapping[str, CommandRule]] = MappingProxyType({
    "start_hand": CommandRule(
        HandController._cmd_start_hand, frozenset({Stage.NO_HAND}), (),
        {Stage.IN_HAND: "hand {hand} is in progress",
         Stage.SETTLED: "the last hand is settled: next_hand first"}),
    "action": CommandRule(
        HandController._cmd_action, _IN_HAND,
        (Arg("seat", ArgKind.INT), Arg("kind", ArgKind.TEXT, required=True, check=_action_kind),
         Arg("amount", ArgKind.INT), Arg("cards", ArgKind.CARDS)),
        _NEED_HAND),
    "undo": CommandRule(HandController._cmd_undo, _IN_HAND, (), _NEED_HAND),
    "misdeal": CommandRule(HandController._cmd_misdeal, _IN_HAND, (), _NEED_HAND),
    "manual_card": CommandRule(
        HandController._cmd_manual_card, _IN_HAND,
        (Arg("card", ArgKind.CARD), Arg("seat", ArgKind.INT), Arg("board", ArgKind.BOOL),
         Arg("burn", ArgKind.BOOL), Arg("read", ArgKind.TEXT)),
        _NEED_HAND),
    "confirm_read": CommandRule(HandController._cmd_confirm_read, _ANY,
                                (Arg("read", ArgKind.TEXT, required=True),), {}),
    "reject_read": CommandRule(HandController._cmd_reject_read, _ANY,
                               (Arg("read", ArgKind.TEXT, required=True),), {}),
    "kill_hand": CommandRule(HandController._cmd_kill_hand, _IN_HAND, (), _NEED_HAND),
    "adjust_stack": CommandRule(
        HandController._cmd_adjust_stack, _BETWEEN,
        (_SEAT, Arg("amount", ArgKind.INT, required=True),
         Arg("reason", ArgKind.TEXT, required=True, check=_reason_given)),
        _NOT_IN_HAND),
    "seat_player": CommandRule(
        HandController._cmd_seat_player, _BETWEEN,
        (Arg("seat", ArgKind.INT, required=True, check=_seat_number),
         Arg("name", ArgKind.TEXT, required=True),
         Arg("stack", ArgKind.INT, required=True, check=_not_negative)),
        _NOT_IN_HAND),
    "unseat_player": CommandRule(HandController._cmd_unseat_player, _BETWEEN, (_SEAT,),
                                 _NOT_IN_HAND),
    "next_hand": CommandRule(
        HandController._cmd_next_hand, frozenset({Stage.SETTLED}), (),
        dict.fromkeys((Stage.NO_HAND, Stage.IN_HAND), "next_hand only after a settled hand")),
    "clear_error": CommandRule(HandController._cmd_clear_error, _ANY,
                               (Arg("code", ArgKind.TEXT, required=True),), {}),
})
"""Every command the controller answers, with its handler, phases and arguments (recall and
replay are answered by the app)."""

COMMANDS: Final = frozenset(COMMAND_TABLE)
"""The names of :data:`COMMAND_TABLE`."""
