"""Chip units as money in a table's currency, as the floor shows its stakes (sans-IO).

The daemon counts chips in units (``stakes.units_per_currency`` units a unit of
``stakes.currency``, e.g. 100 cents a dollar); the floor stores those integers and shows them
as money: the floor page's stakes, pots and stacks, ``tablectl floor hands``' pots and
winnings. One format per table, as on the table's own pages (docs/web.md): cents or not as the
table's stakes decide (``1/2`` on every hand, ``0.50/1.00`` at a table with cents), never per
amount; an amount that is not whole at a whole-unit table still shows its cents (never
rounded).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

STAKE_AMOUNTS = ("small_blind", "big_blind", "ante", "bring_in", "small_bet", "big_bet",
                 "straddle")


def stakes_need_cents(stakes: Mapping[str, Any] | None) -> bool:
    """Whether a table's stakes need cents: a forced bet or bet size that is not whole.

    >>> stakes_need_cents({"small_blind": 100, "big_blind": 200, "units_per_currency": 100})
    False
    >>> stakes_need_cents({"small_blind": 50, "big_blind": 100, "units_per_currency": 100})
    True
    """
    unit = _unit(stakes)
    return unit > 1 and any(_units((stakes or {}).get(k)) % unit for k in STAKE_AMOUNTS)


def money_format(stakes: Mapping[str, Any] | None) -> Callable[[Any], str]:
    """A formatter of chip units as money in the table's currency (``units_per_currency``
    units a unit): two decimals at a table whose stakes need cents, whole units otherwise
    (an amount that is not whole keeps its cents).

    >>> money = money_format({"small_blind": 100, "big_blind": 200, "units_per_currency": 100})
    >>> money(20100), money(33682)
    ('201', '336.82')
    """
    unit = _unit(stakes)
    cents = stakes_need_cents(stakes)

    def money(v: Any) -> str:
        units = _units(v)
        amount = units / unit
        return f"{amount:,.2f}" if cents or units % unit else f"{amount:,.0f}"
    return money


def _units(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def currency(stakes: Mapping[str, Any] | None) -> str:
    """The stakes' currency ('' when they name none)."""
    return str((stakes or {}).get("currency", "") or "")


def _unit(stakes: Mapping[str, Any] | None) -> int:
    try:
        unit = int((stakes or {}).get("units_per_currency", 1) or 1)
    except (TypeError, ValueError):
        return 1
    return unit if unit > 0 else 1


__all__ = ["currency", "money_format", "stakes_need_cents"]
