"""When a betting decision cannot matter.

A decision matters only if it can change a stack. Once at most one live player has chips
behind and that player's chips in the pot already cover every opponent's, nothing anybody
could do changes a stack: calling more would be returned as uncalled, folding would give up
chips to an all-in that put in no more, and a bet has nobody to call it. The hand then deals
the rest and shows down without asking anybody (stud: no bring-in or completion either).

The functions read duck-typed players (``folded``, ``all_in``, ``committed``, ``stack`` and
``bet``), the engine's own players (``game/player.py``).

>>> from types import SimpleNamespace as P
>>> short_bb = [P(folded=False, all_in=False, committed=1, stack=99, bet=1),
...             P(folded=False, all_in=True, committed=1, stack=0, bet=1)]
>>> nothing_to_decide(short_bb)
True
>>> full_bb = [P(folded=False, all_in=False, committed=1, stack=99, bet=1),
...            P(folded=False, all_in=True, committed=2, stack=0, bet=2)]
>>> nothing_to_decide(full_bb)
False
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Contender(Protocol):
    """What these rules read of a player."""

    folded: bool
    all_in: bool
    committed: int
    stack: int
    bet: int


def nothing_to_decide(players: Sequence[Contender]) -> bool:
    """True when no live player's decision can change a stack (see the module text).

    Also True when every live player is all-in, or only one is live.
    """
    free: Contender | None = None
    top = 0
    for q in players:
        if q.folded:
            continue
        if not q.all_in:
            if free is not None:
                return False
            free = q
        elif q.committed > top:
            top = q.committed
    return free is None or free.committed >= top


def matchable(players: Sequence[Contender], i: int, level: int) -> int:
    """The "to" amount player ``i`` must call: ``level``, or less when no live opponent can
    reach it (a big blind or bring-in all-in for less that the rules still count in full:
    calling more than any opponent has put in would only be returned).
    """
    reach = 0
    for j, q in enumerate(players):
        if j != i and not q.folded:
            if not q.all_in:
                return level
            reach = max(reach, q.bet)
    return level if reach > level else reach
