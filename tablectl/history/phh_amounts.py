"""Amounts in a PHH file, read as hostile: what :mod:`tablectl.history.phh` replays.

PHH allows decimal chip amounts; every amount of a hand is scaled to whole units of the
hand's finest decimal (:func:`scale_of`) and read through :func:`amount`, which refuses what is
not a finite number, a bool or a container, an amount beyond what a table holds, and more
than :data:`MAX_DECIMALS` decimals. Errors are :class:`PhhError`, echoing at most 40
characters of the value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Final

from tablectl.domain.errors import TablectlError
from tablectl.domain.strictjson import MAX_SAFE_INT

MAX_DECIMALS: Final = 6
"""The most decimals a PHH amount may have (a millionth of the unit: finer chips exist on no
table, and each decimal multiplies every amount by ten)."""


class PhhError(TablectlError, ValueError):
    """A PHH file that cannot be read or replayed; ``path`` names it."""

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


ACTION: Final = re.compile(
    r"^\s*(?P<actor>d|p[0-9]{1,3})\s+(?P<verb>[a-z]+)(?:\s+(?P<arg>\S+))?(?:\s+(?P<arg2>\S+))?\s*$")
"""An action line; a player is ``p`` and ASCII digits, at most 3 (any Unicode digit took ``p٢`` as
p2, and ``int`` refused a 5000-digit index with Python's own message)."""

ARGUMENTS: Final = {"dh": (2, 2), "db": (1, 1), "f": (0, 0), "cc": (0, 0), "pb": (0, 0),
                    "cbr": (1, 1), "sm": (0, 1), "sd": (0, 1)}
"""How many words follow each verb PHH defines (fewest, most): ``p3 f x`` is no fold."""


def arguments_fit(verb: str, arg: str | None, arg2: str | None) -> bool:
    """Whether a verb PHH defines has as many arguments as it takes (an unknown verb is
    refused later, as unsupported)."""
    low, high = ARGUMENTS.get(verb, (0, 2))
    return low <= (arg is not None) + (arg2 is not None) <= high


def scale_of(fields: Mapping[str, object]) -> int:
    """10**d for the most decimals any amount has (PHH allows decimal chip amounts)."""
    decimals = 0
    values: list[object] = []
    for key in ("antes", "blinds_or_straddles", "starting_stacks", "finishing_stacks"):
        raw = fields.get(key)
        if isinstance(raw, list):
            values += raw
    values += [fields.get(k) for k in ("bring_in", "small_bet", "big_bet", "min_bet")]
    for action in fields.get("actions", []) or []:  # type: ignore[attr-defined]
        m = ACTION.match(str(action).split("#", 1)[0])
        if m and m.group("verb") == "cbr" and m.group("arg"):
            values.append(m.group("arg"))
    for value in values:
        if isinstance(value, float | str):
            try:
                exponent = Decimal(str(value)).normalize().as_tuple().exponent
            except ArithmeticError:
                continue
            if isinstance(exponent, int):
                decimals = max(decimals, -exponent)
    if decimals > MAX_DECIMALS:
        raise PhhError(f"amounts with {decimals} decimals: at most {MAX_DECIMALS} are read")
    return int(10 ** decimals)


def amount(value: object, scale: int, what: str) -> int:
    """``value`` (a number, or its text) in whole units of ``scale``.

    Raises:
        PhhError: not a number, not finite, finer than ``scale``, or beyond what a table
            holds (the largest integer every reader of the table's JSON holds exactly).
    """
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PhhError(f"{what}: not an amount: {short(value)}")
    try:
        number = Decimal(str(value)) * scale
    except ArithmeticError as exc:
        raise PhhError(f"{what}: not an amount: {short(value)}") from exc
    if not number.is_finite() or number != number.to_integral_value():
        raise PhhError(f"{what}: not a finite amount: {short(value)}")
    if abs(number) > MAX_SAFE_INT:
        raise PhhError(f"{what}: {short(value)} is beyond the largest amount a table holds "
                       f"({MAX_SAFE_INT} in the smallest unit)")
    return int(number)


def short(value: object) -> str:
    """``repr(value)``, at most 40 characters (a file's megabyte value is not echoed)."""
    return short_text(repr(value))


def short_text(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters, ``...`` marking the cut."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def unscale(value: int, scale: int) -> int | float:
    """An amount back in the file's units."""
    return value if scale == 1 else value / scale
