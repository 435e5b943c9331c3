"""Numbers typed on a command line, bounded before use (argparse ``type=`` callables).

``float("nan")``, ``float("1e999")`` and ``int("-5")`` all parse, and each once reached code
that assumed a sane number: a demo paced at NaN seconds never dealt, a negative Monte Carlo
seed ended ``tablectl equity`` with numpy's ``ValueError``. Each option states its range
here; a value outside it is a usage error naming the range (argparse's line, exit 2).

>>> seconds = number(0, 60)
>>> seconds("0.5")
0.5
>>> seconds("nan")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: nan: not a number from 0 to 60
>>> whole(1, 10)("11")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: 11: not a whole number from 1 to 10
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Final

from tablectl.domain.strictjson import brief

HANDS_MAX: Final = 1_000_000_000
"""The most hands a command counts (``demo --hands``, ``recall N``, ``watch --hands``): more
than a table deals in decades; a journal's SQLite integers end at 2^63, where a bigger
number once ended ``tablectl recall`` with ``OverflowError``."""

JOURNAL_ID_MAX: Final = 2**63 - 1
"""The largest journal id SQLite holds (``recall --hand``)."""

SEED_MAX: Final = 2**63 - 1
"""The largest seed a simulator takes (``demo --seed``, ``hardware_sim --seed``): what a
journal's SQLite integer holds; ``"٣"`` was read as 3 and any size was taken."""

WAIT_MAX: Final = 31 * 86_400.0
"""The longest wait a command takes (``watch --timeout``): a month; ``inf`` or ``1e308``
were taken as a wait that never ends."""


def number(low: float, high: float, *, above: bool = False) -> Callable[[str], float]:
    """A parser of a finite number in ``low..high`` (above ``low``, not at it, when
    ``above``)."""
    span = (f"above {_plain(low)} and at most {_plain(high)}" if above
            else f"from {_plain(low)} to {_plain(high)}")

    def parse(text: str) -> float:
        try:
            value = float(_ascii(text))
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and low <= value <= high) or (above and value == low):
            raise argparse.ArgumentTypeError(f"{_shown(text)}: not a number {span}")
        return value

    return parse


def _ascii(text: str) -> str:
    """``text`` when it is written as a person types a number here: ASCII, no space around it,
    no ``_`` (``int`` and ``float`` also read ``"٣"`` as 3, ``" 7 "`` and ``"1_000"``).

    Raises:
        ValueError: it is not.
    """
    if not text.isascii() or "_" in text or text != text.strip():
        raise ValueError(text)
    return text


def _shown(text: str) -> str:
    """``text`` as a refusal echoes it: at most 40 characters, anything a terminal would act
    on escaped (an escape sequence typed as a number once reached the terminal as it was).

    >>> print(_shown("12"), _shown("1\\x1b[2J"), _shown("9" * 41))
    12 '1\\x1b[2J' 9999999999999999999999999999999999999999...
    """
    cut = text[:40] + ("..." if len(text) > 40 else "")
    return cut if cut.isprintable() and cut.isascii() else ascii(cut)


def _plain(x: float) -> str:
    """``x`` as a person writes it: ``2678400``, not ``2.6784e+06``; ``0.5`` as it is."""
    return f"{x:.0f}" if x == int(x) else f"{x:g}"


def whole(low: int, high: int, what: str | None = None) -> Callable[[str], int]:
    """A parser of a whole number in ``low..high``; with ``what`` (``"a seat"``), the
    refusal reads ``expected a seat 1..12, got '13'``."""

    def parse(text: str) -> int:
        try:
            value = int(_ascii(text))
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected {what} {low}..{high}, got {brief(text, 40)}" if what is not None
                else f"{_shown(text)}: not a whole number from {low} to {high}")
        return value

    return parse
