"""Bomb pots and double boards: the dealer starts a hand in a format the house allows.

``start_hand {bomb: amount}`` (dealer role) starts a hand in which every player antes
``amount`` chip units and posts no blind, the hole cards are dealt without a betting round and
the betting starts on the flop (the engine's ``HandStart.bomb``, docs/rules.md "Bomb pots").
The table config allows bomb pots up to ``[game] max_bomb_pot`` (:attr:`TableSetup.max_bomb_pot`;
0: none). ``start_hand {double_board: true}`` deals two boards (``HandStart.boards``,
docs/rules.md "Double board"), where ``[game] double_board`` allows it; both together make a
double-board bomb pot. A format the house does not allow is refused ``illegal_action`` with
its reason.
"""

from __future__ import annotations

from typing import Final

from tablectl.controller.args import Arg, ArgKind, ArgSchema
from tablectl.controller.reply import ErrorCode, Refused
from tablectl.controller.table import TableSetup
from tablectl.domain.jsonvalue import JsonValue


def bomb_amount(value: object, setup: TableSetup | None) -> str | None:
    """The argument check of ``start_hand``'s ``bomb``."""
    assert isinstance(value, int)
    return None if value >= 1 else "a bomb pot's ante is at least 1"


START_ARGS: Final[ArgSchema] = (Arg("bomb", ArgKind.INT, check=bomb_amount),
                                 Arg("double_board", ArgKind.BOOL))
"""``start_hand``'s arguments."""


def hand_format(setup: TableSetup, bomb: int, double_board: bool) -> tuple[
        int, int, dict[str, JsonValue]]:
    """A ``start_hand``'s bomb ante and number of boards, with what its ``hand_started`` event
    and reply say of them; or :class:`Refused` for a format the house does not allow."""
    extra: dict[str, JsonValue] = {}
    if bomb:
        check_bomb(setup, bomb)
        extra["bomb"] = bomb
    if double_board:
        check_double_board(setup)
        extra["double_board"] = True
    return bomb, 2 if double_board else 1, extra


def start_formats(setup: TableSetup) -> dict[str, JsonValue] | None:
    """What ``start_hand`` may add at this table (the snapshot's ``commands.formats``, so a
    console offers only what the house deals): ``{max_bomb_pot, double_board}``; None where
    it deals neither (and in stud, which has no board and no bomb pot)."""
    if setup.game.is_stud or not (setup.max_bomb_pot or setup.double_board):
        return None
    return {"max_bomb_pot": setup.max_bomb_pot, "double_board": bool(setup.double_board)}


def check_bomb(setup: TableSetup, bomb: int) -> None:
    """Raise :class:`Refused` unless the table deals a bomb pot of ``bomb`` now."""
    if setup.game.is_stud:
        raise Refused(ErrorCode.ILLEGAL_ACTION, f"{setup.game.value} has no bomb pots")
    if not setup.max_bomb_pot:
        raise Refused(ErrorCode.ILLEGAL_ACTION, "this table deals no bomb pots")
    if bomb > setup.max_bomb_pot:
        raise Refused(ErrorCode.ILLEGAL_ACTION,
                      f"the house's bomb pot is at most {setup.max_bomb_pot}")


def check_double_board(setup: TableSetup) -> None:
    """Raise :class:`Refused` unless the table deals a double-board hand now."""
    if setup.game.is_stud:
        raise Refused(ErrorCode.ILLEGAL_ACTION, f"{setup.game.value} has no board")
    if not setup.double_board:
        raise Refused(ErrorCode.ILLEGAL_ACTION, "this table deals no double-board hands")
