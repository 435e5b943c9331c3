"""Eliminations at a tournament table, sans-IO: who a hand left at 0 chips.

A player who started a settled hand with chips and ends it with none is eliminated
(docs/tournament.md, "Eliminations from the tables"). The event names the table, the hand and
the seat (the service records each ``(table, hand, seat)`` once) and the chips the player
started the hand with (two out in one hand: more chips, better place;
tablectl/tournament/field.py). A misdeal or a killed hand gives the stacks back: nobody is
out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from tablectl.domain.jsonvalue import JsonValue

ELIMINATED: Final = "eliminated"
"""The event's type on ``poker/v1/tables/{t}/tournament``."""

CHIP_COUNTS: Final = "chip_counts"
"""Every seated player's chips after a settled hand, on the same topic."""


@dataclass(frozen=True, slots=True)
class Bust:
    """A seat a hand left at 0 chips."""

    seat: int
    name: str
    start_chips: int


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def busts(start: Mapping[str, JsonValue], summary: Mapping[str, JsonValue]) -> list[Bust]:
    """The seats ``summary`` (a closed hand's: ``result``, ``stacks``) leaves at 0 among
    those ``start`` (the hand's start checkpoint: ``seats``) had with chips, by seat.

    >>> start = {"seats": [{"seat": 1, "name": "Ann", "stack": 500},
    ...                    {"seat": 2, "name": "Bob", "stack": 300},
    ...                    {"seat": 3, "name": "Cy", "stack": 0}]}
    >>> busts(start, {"result": "settled", "stacks": [{"seat": 1, "stack": 800},
    ...                                              {"seat": 2, "stack": 0}]})
    [Bust(seat=2, name='Bob', start_chips=300)]
    >>> busts(start, {"result": "misdeal", "stacks": [{"seat": 2, "stack": 0}]})
    []
    """
    if summary.get("result") != "settled":
        return []
    seats = start.get("seats")
    had: dict[int, tuple[str, int]] = {}
    for s in seats if isinstance(seats, list) else []:
        if isinstance(s, dict):
            seat, stack, name = _int(s.get("seat")), _int(s.get("stack")), s.get("name")
            if seat is not None and stack and stack > 0:
                had[seat] = (name if isinstance(name, str) else "", stack)
    stacks = summary.get("stacks")
    out = []
    for s in stacks if isinstance(stacks, list) else []:
        if isinstance(s, dict):
            seat = _int(s.get("seat"))
            if seat in had and _int(s.get("stack")) == 0:
                name, chips = had[seat]
                out.append(Bust(seat, name, chips))
    return sorted(out, key=lambda b: b.seat)


def chip_counts(start: Mapping[str, JsonValue],
                summary: Mapping[str, JsonValue]) -> list[dict[str, JsonValue]]:
    """Every seat of ``start`` with its chips after a settled hand (``summary``'s stacks;
    a seat out of the hand keeps its start stack), by seat; empty for a voided hand.

    >>> chip_counts({"seats": [{"seat": 1, "name": "Ann", "stack": 500},
    ...                        {"seat": 4, "name": "Cy", "stack": 0}]},
    ...             {"result": "settled", "stacks": [{"seat": 1, "stack": 650}]})
    [{'seat': 1, 'name': 'Ann', 'stack': 650}, {'seat': 4, 'name': 'Cy', 'stack': 0}]
    """
    if summary.get("result") != "settled":
        return []
    after: dict[int, int] = {}
    stacks = summary.get("stacks")
    for s in stacks if isinstance(stacks, list) else []:
        if isinstance(s, dict) and (seat := _int(s.get("seat"))) is not None and (
                stack := _int(s.get("stack"))) is not None:
            after[seat] = stack
    out: list[dict[str, JsonValue]] = []
    seats = start.get("seats")
    for s in seats if isinstance(seats, list) else []:
        if isinstance(s, dict) and (seat := _int(s.get("seat"))) is not None:
            name = s.get("name")
            stack = after.get(seat, _int(s.get("stack")) or 0)
            out.append({"seat": seat, "name": name if isinstance(name, str) else "",
                        "stack": stack})
    return sorted(out, key=lambda c: int(str(c["seat"])))


def bust_event(bust: Bust, *, tournament: str, table: str, table_number: int,
               hand: str) -> dict[str, JsonValue]:
    """The ``eliminated`` event's data (docs/mqtt.md §8.1)."""
    return {"tournament": tournament, "table": table, "table_number": table_number,
            "hand": hand, "seat": bust.seat, "name": bust.name,
            "start_chips": bust.start_chips}


__all__ = ["CHIP_COUNTS", "ELIMINATED", "Bust", "bust_event", "busts", "chip_counts"]
