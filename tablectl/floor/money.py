"""Chip units as money in a table's currency, as the floor shows its stakes (sans-IO).

The daemon counts chips in units (``stakes.units_per_currency`` units a unit of
``stakes.currency``, e.g. 100 cents a dollar); the floor stores those integers and shows them
as money: the floor page's pots and stacks, ``tablectl floor hands``' pots and winnings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def money_format(stakes: Mapping[str, Any] | None, amounts: list[Any]
                 ) -> Callable[[Any], str]:
    """A formatter of chip units as money in the table's currency (``units_per_currency``
    units a unit), as its stakes are shown: two decimals on every amount when any of
    ``amounts`` needs cents, none otherwise."""
    unit = _unit(stakes)
    cents = unit > 1 and any(int(a or 0) % unit for a in amounts)

    def money(v: Any) -> str:
        amount = int(v or 0) / unit
        return f"{amount:,.2f}" if cents else f"{amount:,.0f}"
    return money


def currency(stakes: Mapping[str, Any] | None) -> str:
    """The stakes' currency ('' when they name none)."""
    return str((stakes or {}).get("currency", "") or "")


def _unit(stakes: Mapping[str, Any] | None) -> int:
    try:
        unit = int((stakes or {}).get("units_per_currency", 1) or 1)
    except (TypeError, ValueError):
        return 1
    return unit if unit > 0 else 1


__all__ = ["currency", "money_format"]
