"""The table's rotation (mixed games) in the controller: which game the next hand deals.

The rules are :mod:`tablectl.game.rotation`'s; here they meet the table. The position is part
of the table's checkpoint (:class:`~tablectl.controller.table.TableState`), so a restart
restores it with the seats, and it moves only on journaled inputs:

* ``next_hand`` after a settled hand counts the hand and, for a button game, how far the
  button moved; when the game is over the next one is dealt from the next hand on (a misdeal or
  a killed hand counts for nothing, as the button does not move for it).
* the button is frozen while a stud game is dealt (the controller moves it only in button
  games), so the next button game resumes where it was.
* ``choose_game {game}`` (dealer's choice, between hands only) picks the next game.
"""

from __future__ import annotations

from tablectl.controller.args import ArgValues
from tablectl.controller.core import ControllerCore
from tablectl.controller.inputs import Command
from tablectl.controller.outcome import Event
from tablectl.controller.reply import ErrorCode, Refused
from tablectl.controller.table import game_label
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game.rotation import (
    GameChosen,
    HandPlayed,
    RotationError,
    RotationGame,
    RotationPhase,
    button_moved,
)


def rotation_game_json(game: RotationGame) -> dict[str, JsonValue]:
    """``{variant, structure, label}`` of a game of a rotation."""
    return {"variant": game.game.value, "structure": game.structure.value,
            "label": game_label(game.game, game.structure)}


class Rotating(ControllerCore):
    """The rotation's steps and what snapshots show of it."""

    def _choosing(self) -> bool:
        """True while a dealer's choice waits for the dealer to choose the next game."""
        pos = self._rotation_pos
        return pos is not None and pos.phase is RotationPhase.CHOOSING

    def _hand_played(self, old_button: int) -> None:
        """Count a settled hand in the rotation (the button already moved from
        ``old_button``, or stayed put in stud) and deal the next game if this one is over."""
        rotation = self._base_setup.rotation
        pos = self._rotation_pos
        if rotation is None or pos is None:
            return
        max_seats = self._setup.max_seats
        moved = 0 if self._stud else button_moved(old_button, self._button, max_seats)
        new = pos.after(rotation, HandPlayed(moved), max_seats=max_seats)
        if new.index != pos.index or new.phase is not pos.phase:
            self._run.log.append(f"rotation: {pos.game(rotation).game.value} is over")
        self._rotation_pos = new
        self._adopt(self._base_setup)

    def _cmd_choose_game(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        """``{game}``: a variant (``razz``) or ``variant:structure`` of the rotation's games."""
        rotation = self._base_setup.rotation
        pos = self._rotation_pos
        if rotation is None or pos is None:
            raise Refused(ErrorCode.WRONG_PHASE, "this table deals one game: no rotation")
        wanted = args.text("game").strip()
        index = next((i for i, g in enumerate(rotation.games)
                      if wanted in (g.game.value, f"{g.game.value}:{g.structure.value}")),
                     None)
        if index is None:
            games = ", ".join(f"{g.game.value}:{g.structure.value}" for g in rotation.games)
            raise Refused(ErrorCode.BAD_ARGS, f"{wanted[:40]!r} is not a game of the "
                                              f"rotation ({games})")
        try:
            self._rotation_pos = pos.after(rotation, GameChosen(index),
                                           max_seats=self._setup.max_seats)
        except RotationError as exc:
            raise Refused(ErrorCode.WRONG_PHASE, str(exc)) from exc
        self._adopt(self._base_setup)
        self._run.log.append(f"rotation: {cmd.user} chose {wanted}")
        self._run.events.append(Event("game_chosen", {
            "game": self._game_json, "stakes": self._stakes_json, "by": cmd.user}))
        return {"game": rotation_game_json(rotation.games[index])}

    def _rotation_json(self) -> dict[str, JsonValue] | None:
        """The snapshot's ``rotation``: the game now, the next one, hands left in this one,
        where the frozen button resumes (docs/mqtt.md); None without a rotation."""
        rotation = self._base_setup.rotation
        pos = self._rotation_pos
        if rotation is None or pos is None:
            return None
        choosing = pos.phase is RotationPhase.CHOOSING
        live = [s.seat for s in self._seats.values() if s.stack > 0]
        nxt = pos.next_game(rotation)
        frozen = (self._stud and self._button > 0
                  and any(not g.game.is_stud for g in rotation.games))
        return {
            "name": rotation.name, "dealers_choice": rotation.dealers_choice,
            "choosing": choosing,
            "game": None if choosing else rotation_game_json(pos.game(rotation)),
            "next": rotation_game_json(nxt) if nxt is not None else None,
            "hands_left": pos.hands_left(rotation, self._button, live,
                                         max_seats=self._setup.max_seats),
            "frozen_button": self._button if frozen else None,
            "games": [rotation_game_json(g) for g in rotation.games],
        }
