"""Balancing tables and breaking them, as data and a pure function: who moves where.

:func:`plan` takes the seating (``{table: {seat: player}}``) and the room's rules
(:class:`BalanceRules`) and returns the moves, in the order the floor makes them. It
changes nothing: the director (or a later tournament service) applies the moves.

The rules, the house default in brackets (docs/tournament.md, "Balancing"):

1. **Breaking.** While the players fit in one table fewer, a table breaks: the table with
   the highest number [``break_table = "highest_number"``: a break order the players can
   see coming], or the one with the fewest players, the highest number among equals
   [``"fewest_players"``]. Its players go, in its seat order, one at a time, each to the table
   with the fewest players then (the lowest number among equals), into that table's lowest
   free seat.
2. **Balancing.** While the biggest table has ``difference`` [2] or more players than the
   smallest, one player moves from the biggest (the highest number among equals) to the
   smallest (the lowest number among equals), into its lowest free seat. The player who
   moves is the one who would be in the big blind next hand: the third player clockwise
   from the table's button when the button is known (the second, heads-up); without a
   button, the player in the highest-numbered seat. (Placing them in the seat at the new
   table closest to the same position, the TDA way, needs that table's button and is not
   built.)
3. **Hand-for-hand** is on while more than one table plays and the players left are at
   most ``hand_for_hand_at`` and more than ``paid_places``.

The floor may also break a table of its choosing (``breaking``: a table with a broken
dealer's shoe, say): its players go first, as in rule 1, then the rules above apply.

>>> tables = {1: {1: "a", 2: "b", 3: "c", 4: "d"}, 2: {1: "e", 2: "f"}}
>>> [(m.player, m.to_table, m.to_seat) for m in plan(tables, BalanceRules(4)).moves]
[('d', 2, 3)]
>>> [(m.player, m.to_table, m.to_seat) for m in plan(tables, BalanceRules(9)).moves]
[('e', 1, 5), ('f', 1, 6)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tablectl.tournament.structure import BreakTable, Structure


@dataclass(frozen=True, slots=True)
class BalanceRules:
    """The room's balancing rules (see the module docstring)."""

    seats_per_table: int
    break_table: BreakTable = BreakTable.HIGHEST_NUMBER
    difference: int = 2
    paid_places: int = 0
    hand_for_hand_at: int = 0

    @classmethod
    def of(cls, structure: Structure) -> BalanceRules:
        """The rules a structure sets."""
        return cls(structure.seats_per_table, structure.break_table, 2,
                   structure.paid_places, structure.hand_for_hand_at)


@dataclass(frozen=True, slots=True)
class Move:
    """One player to move; ``reason`` is ``"break"`` or ``"balance"``."""

    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"player": self.player, "from": [self.from_table, self.from_seat],
                "to": [self.to_table, self.to_seat], "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Plan:
    """What the floor should do now."""

    moves: tuple[Move, ...] = ()
    broken: tuple[int, ...] = ()
    hand_for_hand: bool = False
    tables: Mapping[int, Mapping[int, str]] = field(default_factory=dict)
    """the seating once every move is made"""


def next_big_blind(seats: Mapping[int, str], button: int | None) -> int:
    """The seat that pays the big blind next hand (see the module docstring).

    >>> next_big_blind({1: "a", 3: "b", 5: "c", 8: "d"}, button=3)   # BB now 8, next 1
    1
    >>> next_big_blind({1: "a", 3: "b", 5: "c", 8: "d"}, button=None)
    8
    """
    order = sorted(seats)
    if button is None or not order:
        return order[-1]
    after = [s for s in order if s > button] + [s for s in order if s <= button]
    return after[1] if len(order) == 2 else after[2 % len(after)]


def _smallest(tables: dict[int, dict[int, str]]) -> int:
    return min(tables, key=lambda t: (len(tables[t]), t))


def _free_seat(seats: dict[int, str], size: int) -> int:
    return next(s for s in range(1, size + 1) if s not in seats)


def plan(seating: Mapping[int, Mapping[int, str]], rules: BalanceRules,
         buttons: Mapping[int, int] | None = None, breaking: int | None = None) -> Plan:
    """The moves that break and balance the tables (see the module docstring).

    Raises:
        ValueError: ``breaking`` is not a table with players, is the last one, or the other
            tables have no room for its players.
    """
    tables = {t: dict(s) for t, s in seating.items()}
    size = rules.seats_per_table
    moves: list[Move] = []
    broken: list[int] = []
    total = sum(len(s) for s in tables.values())

    def break_one(gone: int) -> None:
        leaving = tables.pop(gone)
        broken.append(gone)
        for seat, player in sorted(leaving.items()):
            to = _smallest(tables)
            to_seat = _free_seat(tables[to], size)
            tables[to][to_seat] = player
            moves.append(Move(player, gone, seat, to, to_seat, "break"))

    if breaking is not None:
        if not tables.get(breaking):
            raise ValueError(f"table {breaking} has no players to move")
        if len(tables) == 1:
            raise ValueError(f"table {breaking} is the last table")
        if total > (len(tables) - 1) * size:
            raise ValueError(f"the other tables have no room for table {breaking}'s "
                             f"{len(tables[breaking])} players")
        break_one(breaking)
    while len(tables) > 1 and total <= (len(tables) - 1) * size:
        if rules.break_table is BreakTable.FEWEST_PLAYERS:
            gone = min(tables, key=lambda t: (len(tables[t]), -t))
        else:
            gone = max(tables)
        break_one(gone)
    buttons = buttons or {}
    while len(tables) > 1:
        big = max(tables, key=lambda t: (len(tables[t]), t))
        small = _smallest(tables)
        if len(tables[big]) - len(tables[small]) < max(2, rules.difference):
            break
        seat = next_big_blind(tables[big], buttons.get(big))
        player = tables[big].pop(seat)
        to_seat = _free_seat(tables[small], size)
        tables[small][to_seat] = player
        moves.append(Move(player, big, seat, small, to_seat, "balance"))
    h4h = (len(tables) > 1 and rules.hand_for_hand_at > 0
           and rules.paid_places < total <= rules.hand_for_hand_at)
    return Plan(tuple(moves), tuple(broken), h4h, tables)


__all__ = ["BalanceRules", "Move", "Plan", "next_big_blind", "plan"]
