"""The card-source seam: every source turns what its device reports into controller inputs.

A source is an async context manager whose :meth:`CardSource.events` yields
:data:`SourceEvent` values until the source closes. Reads carry the wall time from the injected
clock; the controller never reads a clock itself.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Final, Protocol, Self, TypeAlias, runtime_checkable

from tablectl.controller.inputs import (
    CardRead,
    Command,
    DeviceStatus,
    Location,
    ReadMissed,
    TagLeft,
)
from tablectl.domain.errors import ConfigError, TablectlError
from tablectl.domain.textfile import TextFileError, read_toml_file


class SourceError(TablectlError):
    """A source could not be opened or failed beyond recovery.

    Attributes:
        source: the source's name.
    """

    def __init__(self, source: str, message: str) -> None:
        self.source = source
        super().__init__(f"{source}: {message}")


SourceEvent: TypeAlias = CardRead | TagLeft | DeviceStatus | Command | ReadMissed
"""What a source yields: controller inputs (a keypad yields commands)."""


class CardSource(Protocol):
    """One device (or the manual console) feeding the table."""

    name: str
    kind: str

    async def __aenter__(self) -> Self:
        """Open the device (a source that cannot reach its device keeps retrying)."""
        ...

    async def __aexit__(self, *exc: object) -> None:
        """Close the device; :meth:`events` ends."""
        ...

    def events(self) -> AsyncIterator[SourceEvent]:
        """Every event once, in the device's order; ends when the source closes."""
        ...


@runtime_checkable
class RefusingSource(Protocol):
    """A source whose device keeps an event the daemon could not journal (the RFID readers:
    their events are acknowledged only once journaled)."""

    def refuse(self) -> None:
        """Do not acknowledge the event being handled; the source ends at the next one."""
        ...


def refusal_of(source: object) -> Callable[[], None] | None:
    """``source``'s :meth:`RefusingSource.refuse`, or None for a source that has none."""
    return source.refuse if isinstance(source, RefusingSource) else None


_ANTENNA_NUMBER: Final = re.compile(r"0|[1-9][0-9]{0,2}")
"""An antenna number as a reader reports it: ASCII digits, no sign, space or leading zero
(``str.isdigit`` also takes ``"²"``, which ``int`` refuses, and ``"٣"``, which it reads as 3)."""


def antenna_number(key: str) -> int | None:
    """The antenna number a map's key names, or None when it is not one.

    >>> antenna_number("17"), antenna_number("٣"), antenna_number("²"), antenna_number("256")
    (17, None, None, None)
    """
    if _ANTENNA_NUMBER.fullmatch(key) is None or int(key) > 255:
        return None
    return int(key)


def load_antenna_map(path: Path) -> Mapping[int, Location]:
    """Read a calibration map: a TOML table ``[antennas]`` of ``"N" = "role"`` lines, roles as
    :meth:`Location.parse` reads them (``"seat 3 slot 1"``, ``"board 2"``, ``"muck"``).

    Raises:
        ConfigError: unreadable file, bad antenna number or role, or one role on two antennas.
    """
    try:
        data = read_toml_file(path)
    except TextFileError as exc:
        raise ConfigError([("", exc.said("antenna map"))], source=str(path)) from None
    table = data.get("antennas", {})
    problems: list[tuple[str, str]] = []
    out: dict[int, Location] = {}
    seen: dict[str, int] = {}
    if not isinstance(table, dict):
        raise ConfigError([("antennas", "must be a table of antenna = role")], source=str(path))
    for key, role in table.items():
        number = antenna_number(key)
        if number is None:
            problems.append((f"antennas.{ascii(key)[1:-1][:40]}",
                             "antenna numbers are 0..255 in ASCII digits (no sign, space, "
                             "exponent or leading zero)"))
            continue
        try:
            loc = Location.parse(str(role))
        except ValueError as exc:
            problems.append((f"antennas.{number}", str(exc)))
            continue
        if str(loc) in seen and loc.kind.value not in ("muck", "burn"):
            problems.append((f"antennas.{number}", f"{loc} is already antenna {seen[str(loc)]}"))
            continue
        seen[str(loc)] = number
        out[number] = loc
    if problems:
        raise ConfigError(problems, source=str(path))
    return out
