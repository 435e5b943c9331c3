"""The hand controller's state and what every part of it shares (sans-IO).

:class:`ControllerCore` holds the table between inputs: seats, button, active errors, devices,
cached replies, the hand and its stored :class:`Stage`, the accepted and staged card reads. It
raises and clears error states, applies inputs to the engine and settles the hand. The read
hygiene (:mod:`~tablectl.controller.reads`), the commands
(:mod:`~tablectl.controller.commands`) and the snapshots (:mod:`~tablectl.controller.snapshots`)
build on it; :class:`~tablectl.controller.controller.HandController` puts them together.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Final

from tablectl.controller.handlog import HandLog
from tablectl.controller.inputs import CardRead
from tablectl.controller.outcome import (
    ErrorChange,
    Event,
    HandClosed,
    HandStarted,
    SnapshotChange,
    Snapshots,
)
from tablectl.controller.reply import READ_ERRORS, ErrorCode, Reply
from tablectl.controller.table import (
    ActiveError,
    CachedReply,
    DeviceState,
    SeatState,
    TableSetup,
    TableState,
)
from tablectl.controller.views import EventFolder, card_text
from tablectl.domain.cards import Card
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import (
    Act,
    Burn,
    CardIn,
    DealBoard,
    DealDown,
    DealHole,
    DealUp,
    Done,
    Expectation,
    Hand,
    HandEvent,
    HandInput,
    HandView,
    RuleViolation,
    Showdown,
)
from tablectl.game.rotation import RotationError, RotationPosition

CARD_EXPECTATIONS: Final = (DealHole, DealUp, DealDown, Burn, DealBoard)


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
Key = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Placed:
    """An accepted card: its target and how it was read (for debounce)."""

    key: Key | None
    source: str
    antenna: int | None
    at: datetime
    read_id: str = ""


@dataclass(frozen=True, slots=True)
class Pending:
    """A doubtful read held for the dealer, with the target it was going to."""

    read: CardRead
    card: Card
    key: Key | None  # None: a shoe read for the current expectation


def key_of(exp: Expectation) -> Key | None:
    match exp:
        case DealHole() | DealUp() | DealDown():
            return ("seat", exp.seat)
        case DealBoard():   # a later run's board cards: past the first run's five
            return ("board", exp.index + 5 * (exp.run - 1))
        case Burn():
            return ("burn", 0)
    return None


def target_text(key: Key | None) -> str:
    if key is None:
        return "the next card"
    kind, n = key
    if kind == "board" and n >= 5:
        return f"run {n // 5 + 1} board {n % 5 + 1}"
    return {"seat": f"seat {n}", "board": f"board {n + 1}", "burn": "the burn"}[kind]


class HandMemo:
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
            if isinstance(self.hand.expected(), CARD_EXPECTATIONS):
                probe = self.hand.copy()
                while isinstance(exp := probe.expected(), CARD_EXPECTATIONS):
                    out.append(exp)
                    try:
                        probe.apply(CardIn(None))
                    except (RuleViolation, ValueError):  # the last card settles unknowns
                        break
            self._upcoming = tuple(out)
        return self._upcoming


class Run:
    """Per-input accumulator of what becomes the Outcome."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.secure: list[Event] = []
        self.errors: list[ErrorChange] = []
        self.log: list[str] = []
        self.started: HandStarted | None = None
        self.ended: HandClosed | None = None


class ControllerCore:
    """The table's state and the steps shared by reads, commands and snapshots.

    Args:
        setup: the table's fixed setup.
        state: where to start: :meth:`TableState.initial` for a new table, or a checkpoint
            (:attr:`HandStarted.checkpoint`) to restore.
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
        self._accepted: dict[Card, Placed] = {}
        self._staged: dict[Key, list[tuple[Card, CardRead]]] = {}
        self._pending: Pending | None = None
        self._memo: HandMemo | None = None
        self._run = Run()
        # the public log of the hand so far (fed every input's public events)
        self._handlog = HandLog()
        # the snapshots of the current state once built (None: not since the last input), and
        # the last outcome's snapshot change while anybody holds it
        self._snaps: Snapshots | None = None
        self._last_change: weakref.ref[SnapshotChange] | None = None
        self._next_setup: TableSetup | None = None
        self._rotation_pos: RotationPosition | None = state.rotation
        # the games of the rotation the position belongs to (None: the setup's own, as a
        # checkpoint is restored under the config journaled with it)
        self._rotation_games: tuple[tuple[GameKind, BettingStructure], ...] | None = None
        self._adopt(setup)

    def _adopt(self, setup: TableSetup) -> None:
        """Deal with ``setup`` from the next hand on: a rotation's current game. A rotation
        whose games changed (not only their stakes or counts) starts again from its first."""
        self._base_setup = setup
        rotation = setup.rotation
        if rotation is None:
            self._rotation_pos = self._rotation_games = None
        else:
            pos = self._rotation_pos
            games = tuple((g.game, g.structure) for g in rotation.games)
            try:
                if pos is None:
                    raise RotationError("no position yet")
                if self._rotation_games not in (None, games):
                    raise RotationError("the rotation's games changed")
                pos.check(rotation)
            except RotationError:
                pos = RotationPosition.first(rotation)
            self._rotation_games = games
            self._rotation_pos = pos
            game = pos.game(rotation)
            setup = replace(setup, game=game.game, structure=game.structure,
                            stakes=game.stakes, label="")
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
            "big_blind_ante": setup.stakes.big_blind_ante,
            "currency": setup.currency, "units_per_currency": setup.units_per_currency}

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

    def _memo_of(self, hand: Hand) -> HandMemo:
        """The memo of ``hand``'s current state (a new one once the hand has moved)."""
        memo = self._memo
        moves = len(hand.inputs)
        if memo is None or memo.hand is not hand or memo.moves != moves:
            memo = self._memo = HandMemo(hand, moves)
        return memo

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
            "rake": hand.rake, **self._game_of_hand()}
        if len(hand.boards) > 1:   # run more than once, or a double board: every board
            summary["boards"] = [[card_text(c) for c in board] for board in hand.boards]
        self._run.ended = HandClosed(self._number, self._hand_id, summary)

    def _game_of_hand(self) -> dict[str, JsonValue]:
        """``{"game": variant}`` for a hand summary at a table with a rotation (metrics count
        hands by the game they dealt), else nothing."""
        return {"game": self._setup.game.value} if self._rotation_pos is not None else {}

    def _hand_json(self) -> dict[str, JsonValue]:
        return {"id": self._hand_id, "number": self._number}

    def _table_state(self) -> TableState:
        replies = tuple(CachedReply(u, i, r, False) for (u, i), r in self._replies_prev.items())
        replies += tuple(CachedReply(u, i, r, True) for (u, i), r in self._replies_cur.items())
        return TableState(tuple(self._seats.values()), self._button, self._number,
                          tuple(self._errors.values()), tuple(self._devices.values()), replies,
                          self._rotation_pos)
