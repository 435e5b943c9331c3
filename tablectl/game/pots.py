"""Main and side pots from what each player put in, and splitting a pot among tied winners.

Pure functions over plain integers (chip units) and player indices.

>>> build_pots([30, 100, 100], [True, True, True])
[(90, (0, 1, 2)), (140, (1, 2))]
>>> build_pots([50, 20, 100], [False, True, True])
[(60, (1, 2)), (110, (2,))]
>>> build_pots([0, 2, 2], [True, True, True], dead=3)
[(3, (0, 1, 2)), (4, (1, 2))]
>>> split(7, 3, unit=1)
[3, 2, 2]
>>> split(100, 3, unit=25)
[50, 25, 25]
"""

from __future__ import annotations

from collections.abc import Sequence


def build_pots(committed: Sequence[int], live: Sequence[bool], *,
               dead: int = 0) -> list[tuple[int, tuple[int, ...]]]:
    """Pots as ``(amount, eligible player indices)``, main pot first.

    Args:
        committed: chips each player put in this hand (folded players included).
        live: whether each player can still win (has not folded).
        dead: chips nobody's stake is measured by (a big-blind ante): added to the main pot,
            the pot of the lowest live stake (a big blind all-in for the ante is eligible).

    A pot exists for each distinct amount committed by a live player; chips a folded player
    put in above the largest live amount go to the last pot (dead money). Pots of zero chips
    are left out.
    """
    levels = sorted({c for c, alive in zip(committed, live, strict=True) if alive})
    if len(levels) == 1 and max(committed) <= levels[0]:  # no all-in below the others
        total = sum(committed) + dead
        if not total:
            return []
        return [(total, tuple(i for i, alive in enumerate(live) if alive))]
    pots: list[tuple[int, tuple[int, ...]]] = []
    previous = 0
    for k, level in enumerate(levels):
        amount = sum(min(c, level) - min(c, previous) for c in committed)
        if k == 0:   # the main pot, even when its lowest stake put nothing in (all-in for
            amount += dead   # the big-blind ante)
        eligible = tuple(i for i, (c, alive) in enumerate(zip(committed, live, strict=True))
                         if alive and c >= level)
        if amount:
            pots.append((amount, eligible))
        previous = level
    over = sum(c - previous for c in committed if c > previous)
    if not levels:
        over += dead
    if over:
        if pots:
            last_amount, last_eligible = pots[-1]
            pots[-1] = (last_amount + over, last_eligible)
        else:
            pots.append((over, ()))
    return pots


def split(amount: int, ways: int, *, unit: int = 1) -> list[int]:
    """Split ``amount`` ``ways`` ways in multiples of ``unit``; odd units go one each, first first.

    Chips below one ``unit`` (only possible when ``amount`` is not a multiple of it) go to the
    first share.
    """
    if ways < 1:
        raise ValueError("split needs at least one share")
    units, rest = divmod(amount, unit)
    base, odd = divmod(units, ways)
    shares = [(base + (1 if i < odd else 0)) * unit for i in range(ways)]
    shares[0] += rest
    return shares
