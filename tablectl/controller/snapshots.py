"""The public and the secure snapshot of the table, built lazily and shared read-only.

Both are built together from one view of the hand the first time anything asks after an input
(:meth:`SnapshotBuilder._current_snapshots`) and cached until the next input; nothing in them
is ever changed in place, so callers of the views may keep them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Final

from tablectl.controller.commands import COMMAND_TABLE, misdeal_allowed, undoable, undone_json
from tablectl.controller.core import Stage, key_of, target_text
from tablectl.controller.formats import start_formats
from tablectl.controller.outcome import Snapshots
from tablectl.controller.reply import READ_ERRORS
from tablectl.controller.rotating import Rotating
from tablectl.controller.runs import RunCounting
from tablectl.controller.table import device_status_json
from tablectl.controller.views import card_text, legal_json, pots_json
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import (
    Act,
    Expectation,
    HandSetupError,
    HandStart,
    SeatSetup,
    Showdown,
)
from tablectl.game.start import check_start

STATE_SCHEMA: Final = "tablectl.state/1"


SECURE_STATE_SCHEMA: Final = "tablectl.secure-state/1"


class SnapshotBuilder(RunCounting, Rotating):
    """Builds and caches the snapshots of the current state."""

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
                    "cards": [], "to_act": False,
                    **({"player": table.player_id} if table and table.player_id else {})}
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
                "bet": sv.bet, "status": status,
                **({"player": table.player_id} if table.player_id else {})}
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
            "table_name": setup.name or setup.table,
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
            "devices": [{"name": d.name, "kind": d.kind, **device_status_json(d)}
                        for d in self._devices.values()],
            "commands": self._commands_json(exp),
            "log": self._handlog.entries(),
            "log_omitted": self._handlog.omitted,
        }
        rotation = self._rotation_json()
        if rotation is not None:
            snap["rotation"] = rotation
        if hand is not None and hand.start_args.bomb:
            snap["bomb_pot"] = hand.start_args.bomb
        if hand is not None and hand.start_args.boards == 2 and view is not None:
            snap["double_board"] = {"boards": [[card_text(c) for c in b] for b in view.boards]}
        if view is not None and view.runs > 1:
            snap["runs"] = {"count": view.runs,
                            "boards": [[card_text(c) for c in b] for b in view.boards]}
        pending = self._pending
        secure: dict[str, JsonValue] = {
            **snap, "schema": SECURE_STATE_SCHEMA, "seats": secure_seats,
            "burns": [card_text(c) for c in view.burns] if view is not None else [],
            "pending_read": {
                "read": pending.read.read_id, "card": str(pending.card),
                "confidence": pending.read.confidence,
                "target": target_text(pending.key if pending.read.location
                                       else key_of(exp) if exp is not None else None),
            } if pending is not None else None}
        return snap, secure


    def _commands_json(self, exp: Expectation | None) -> dict[str, JsonValue]:
        """``{available, undo}``: the commands the table would take now from a user whose
        role allows them (the command table's stages and each command's own conditions that
        need no arguments: nothing to undo, substantial action, no decision expected, too few
        players...; arguments are still checked when one is sent), and the decision an undo
        would take back. What a console enables, so a control is never offered to be
        refused."""
        hand = self._hand if self._stage is Stage.IN_HAND else None
        inputs = hand.inputs if hand is not None else ()
        undo = undoable(inputs)
        checks: dict[str, bool] = {
            "start_hand": self._can_start(),
            "action": isinstance(exp, Act | Showdown),
            "undo": undo is not None,
            "misdeal": misdeal_allowed(inputs),
            "confirm_read": self._pending is not None,
            "reject_read": self._pending is not None,
            "clear_error": bool(self._errors),
            "adjust_stack": bool(self._seats),
            "unseat_player": bool(self._seats),
            "seat_player": len(self._seats) < self._setup.max_seats,
            "choose_game": self._choosing(),
            "run_it": self._can_run_it(),
        }
        available: list[JsonValue] = [
            name for name, rule in sorted(COMMAND_TABLE.items())
            if self._stage in rule.phases and checks.get(name, True)]
        out: dict[str, JsonValue] = {
            "available": available, "undo": undone_json(undo) if undo is not None else None}
        formats = start_formats(self._setup)
        if formats is not None:
            out["formats"] = formats
        return out

    def _can_start(self) -> bool:
        """Whether ``start_hand`` would start a hand (as its handler checks it)."""
        if any(code in READ_ERRORS for code in self._errors) or self._choosing():
            return False
        setup = self._setup
        players = sorted((SeatSetup(s.seat, s.stack, s.name) for s in self._seats.values()
                          if s.stack > 0), key=lambda s: s.seat)
        try:
            check_start(HandStart(setup.game, setup.structure, setup.rule_set, setup.stakes,
                                  tuple(players), 0 if self._stud else self._button))
        except HandSetupError:
            return False
        return True


def _json_time(at: datetime) -> str:
    return at.isoformat()


def copy_json(value: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """A deep copy of a snapshot (or any JSON object of dicts and lists), the caller's."""
    out: dict[str, JsonValue] = {}
    for k, v in value.items():
        out[k] = _copy_value(v)
    return out


def _copy_value(v: JsonValue) -> JsonValue:
    if isinstance(v, dict):
        return copy_json(v)
    if isinstance(v, list):
        return [_copy_value(x) for x in v]
    return v
