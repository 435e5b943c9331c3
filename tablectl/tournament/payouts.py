"""Payouts, sans-IO: the prize pool, each paid place's amount, and every player's result.

The **prize pool** is every entry (re-entries included) times the structure's
``prize_per_entry``. Each paid place gets its ``payouts`` percentage of it, in cents rounded
down; the cents the rounding leaves go to 1st place, so the places add up to the pool
exactly. **Players tied** for a place (out in one hand with equal chips at its start:
tablectl/tournament/field.py) share the amounts of the places they cover equally, a cent
left over going to each in turn in the order they were recorded. A player still in while
more than one is left has no place and no amount yet.

>>> from tablectl.tournament.field import Field
>>> from tablectl.tournament.structure import Structure
>>> s = Structure.parse('''
... starting_stack = 1000
... prize_per_entry = 100
... payouts = [60, 40]
... [[level]]
... small_blind = 5
... big_blind = 10
... minutes = 10
... ''')
>>> f = Field().register("ann", 1000).register("bob", 1000).register("cy", 1000)
>>> f = f.bust("cy", hand="t1#1", start_chips=200).bust("bob", hand="t1#2", start_chips=900)
>>> [(r.place, r.player, money(r.amount or 0, s.currency)) for r in results(s, f)]
[(1, 'ann', '180.00 USD'), (2, 'bob', '120.00 USD'), (3, 'cy', '0.00 USD')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablectl.tournament.field import Field
from tablectl.tournament.structure import Structure


@dataclass(frozen=True, slots=True)
class Result:
    """A player's place and prize (in cents; None while undecided)."""

    place: int | None
    player: str
    entry: int
    amount: int | None

    def to_json(self) -> dict[str, Any]:
        return {"place": self.place, "player": self.player, "entry": self.entry,
                "amount_cents": self.amount}


def prize_pool(structure: Structure, field: Field) -> int:
    """The prize pool in cents."""
    return len(field.entries) * structure.prize_per_entry * 100


def place_amounts(structure: Structure, pool: int) -> list[int]:
    """Each paid place's amount in cents, 1st first; they add up to ``pool``."""
    amounts = [pool * share // 10_000 for share in structure.payouts]
    if amounts:
        amounts[0] += pool - sum(amounts)
    return amounts


def results(structure: Structure, field: Field) -> list[Result]:
    """Every player's result, the best place first (see the module docstring)."""
    amounts = place_amounts(structure, prize_pool(structure, field))

    def paid(place: int) -> int:
        return amounts[place - 1] if place <= len(amounts) else 0

    ranking = field.ranking()
    out: list[Result] = []
    i = 0
    while i < len(ranking):
        place = ranking[i].place
        group = [r for r in ranking[i:] if r.place == place] if place is not None else [
            ranking[i]]
        if place is None:
            out.append(Result(None, group[0].player, group[0].entry, None))
        else:
            share = sum(paid(place + k) for k in range(len(group)))
            each, odd = divmod(share, len(group))
            out += [Result(place, r.player, r.entry, each + (1 if k < odd else 0))
                    for k, r in enumerate(group)]
        i += len(group)
    return out


def money(cents: int, currency: str) -> str:
    """``1,234.50 EUR``."""
    return f"{cents // 100:,}.{cents % 100:02d} {currency}"


__all__ = ["Result", "money", "place_amounts", "prize_pool", "results"]
