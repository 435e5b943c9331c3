"""Table calibration: the sans-IO core that maps a table's antennas to their roles.

:class:`Calibration` asks for a card on each table position in turn and records which antenna
saw it; an antenna that already has a role is refused. The result is the antenna map TOML
that :func:`~tablectl.sources.base.load_antenna_map` reads. The dialogue that drives it is
:func:`tablectl.setup.runners.calibrate_table`.

>>> cal = Calibration(Calibration.positions(seats=2, board=0, muck=False, burn=False))
>>> cal.read(7).location
Location(kind=<LocationKind.SEAT: 'seat'>, seat=1, slot=None, index=None)
>>> cal.read(7)
Traceback (most recent call last):
...
tablectl.setup.errors.CalibrationError: antenna 7 is already seat 1
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tablectl.controller.inputs import Location, LocationKind
from tablectl.setup.errors import CalibrationError


@dataclass(frozen=True, slots=True)
class Assignment:
    """An antenna given a role."""

    antenna: int
    location: Location


class Calibration:
    """Asks for a card on each position in turn and records the antenna that saw it.

    Args:
        positions: the table's positions in the order to ask for them (see
            :meth:`positions`); each at most once.

    Raises:
        ValueError: no position, or one position twice.
    """

    def __init__(self, positions: Sequence[Location]) -> None:
        if not positions:
            raise ValueError("nothing to calibrate: no position")
        if len({str(p) for p in positions}) != len(positions):
            raise ValueError("a position is listed twice")
        self._positions = tuple(positions)
        self._next = 0
        self._map: dict[int, Location] = {}
        self._skipped: list[Location] = []

    @staticmethod
    def positions(seats: int, *, slots: int = 1, board: int = 5, muck: bool = True,
                  burn: bool = True) -> tuple[Location, ...]:
        """The positions of a table: seats 1..``seats`` (with ``slots`` > 1, ``seat N slot
        K`` for each slot), board 1..``board``, then muck and burn.

        Raises:
            ValueError: fewer than 1 slot, negative counts.
        """
        if seats < 0 or board < 0 or slots < 1:
            raise ValueError("seats and board must be >= 0 and slots >= 1")
        out: list[Location] = []
        for seat in range(1, seats + 1):
            if slots == 1:
                out.append(Location(LocationKind.SEAT, seat=seat))
            else:
                out += [Location(LocationKind.SEAT, seat=seat, slot=k)
                        for k in range(1, slots + 1)]
        out += [Location(LocationKind.BOARD, index=n) for n in range(1, board + 1)]
        if muck:
            out.append(Location(LocationKind.MUCK))
        if burn:
            out.append(Location(LocationKind.BURN))
        return tuple(out)

    @property
    def current(self) -> Location | None:
        """The position being asked for (None when done)."""
        return self._positions[self._next] if self._next < len(self._positions) else None

    @property
    def complete(self) -> bool:
        """Every position has an antenna or was skipped."""
        return self.current is None

    @property
    def skipped(self) -> tuple[Location, ...]:
        """Positions the dealer skipped (the table has no antenna there)."""
        return tuple(self._skipped)

    @property
    def progress(self) -> tuple[int, int]:
        """``(asked so far, total)``."""
        return self._next, len(self._positions)

    def verify_read(self, antenna: int) -> Location:
        """The position ``antenna`` would get.

        Raises:
            CalibrationError: calibration is complete, the antenna number is not 0..255, or
                the antenna already has a role.
        """
        current = self.current
        if current is None:
            raise CalibrationError("calibration is complete", antenna=antenna)
        if not 0 <= antenna <= 255:
            raise CalibrationError(f"antenna {antenna} is not 0..255", antenna=antenna)
        if antenna in self._map:
            raise CalibrationError(f"antenna {antenna} is already {self._map[antenna]}",
                                     antenna=antenna)
        return current

    def read(self, antenna: int) -> Assignment:
        """A card was seen on ``antenna`` while :attr:`current` was asked for.

        Raises:
            CalibrationError: see :meth:`verify_read`; nothing changes.
        """
        location = self.verify_read(antenna)
        self._map[antenna] = location
        self._next += 1
        return Assignment(antenna, location)

    def skip(self) -> Location:
        """The table has no antenna at :attr:`current`: go on to the next position.

        Raises:
            CalibrationError: calibration is complete.
        """
        current = self.current
        if current is None:
            raise CalibrationError("calibration is complete", antenna=-1)
        self._skipped.append(current)
        self._next += 1
        return current

    def antenna_map(self) -> Mapping[int, Location]:
        """Antenna number -> role, as recorded so far."""
        return dict(sorted(self._map.items()))

    def to_toml(self, *, title: str = "") -> str:
        """The antenna map file (``[antennas]`` ``"N" = "role"``), readable by
        :func:`~tablectl.sources.base.load_antenna_map`."""
        lines = [f"# {title}" if title else "# Antenna role map",
                 "# antenna number = role; roles: \"seat N [slot K]\", \"board N\", "
                 "\"muck\", \"burn\"."]
        lines += [f"# no antenna: {loc}" for loc in self._skipped]
        lines += ["", "[antennas]"]
        lines += [f'"{antenna}" = "{loc}"' for antenna, loc in self.antenna_map().items()]
        return "\n".join(lines) + "\n"
