"""Where a tournament is kept: the :class:`TournamentStore` seam and its in-memory twin.

A tournament is one :class:`Tournament` value: its structure (as it was when the tournament
was created: a later edit of the file does not change a running tournament), its clock
record and its field. Every command is :meth:`TournamentStore.update`: read the tournament
with a lock, compute the new value with a pure function, write it, all in one transaction;
a function that raises changes nothing. Two directors typing at once are serialised.

:class:`MemoryTournamentStore` is production code with the same behaviour as the PostgreSQL
store (:mod:`tablectl.tournament.pg`): the contract tests run against both.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final, Protocol

from tablectl.tournament.clock import ClockState
from tablectl.tournament.errors import StoreUnavailableError, TournamentError
from tablectl.tournament.field import Field
from tablectl.tournament.structure import Structure

_ID: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


def check_id(text: str) -> str:
    """A tournament id: 1 to 40 of ``a-z 0-9 _ -``, starting with a letter or digit (it is
    a segment of MQTT topics).

    Raises:
        TournamentError: anything else.
    """
    if not isinstance(text, str) or not _ID.fullmatch(text):
        raise TournamentError(f"a tournament id is 1 to 40 of a-z, 0-9, _ and -, starting "
                              f"with a letter or digit, not {text!r}")
    return text


@dataclass(frozen=True, slots=True)
class Tournament:
    """One tournament; ``version`` goes up by one at each change the store records."""

    id: str
    structure: Structure
    clock: ClockState
    field: Field
    version: int = 0

    @classmethod
    def new(cls, tid: str, structure: Structure) -> Tournament:
        """A tournament not started, nobody registered."""
        return cls(check_id(tid), structure, ClockState(),
                   Field(seats_per_table=structure.seats_per_table))

    def to_json(self) -> dict[str, Any]:
        """Plain JSON that :meth:`from_json` reads back."""
        return {"id": self.id, "structure": self.structure.to_json(),
                "clock": self.clock.to_json(), "field": self.field.to_json(),
                "version": self.version}

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> Tournament:
        """Inverse of :meth:`to_json`."""
        return cls(body["id"], Structure.from_json(body["structure"]),
                   ClockState.from_json(body["clock"]), Field.from_json(body["field"]),
                   int(body["version"]))


@dataclass(frozen=True, slots=True)
class ChipCount:
    """A player's chips at a table after one of its hands (what the table reported)."""

    table: int
    seat: int
    player: str
    chips: int
    hand: str


Change = Callable[[Tournament], Tournament]
"""A pure function from the tournament as stored to the tournament to store."""


class TournamentStore(Protocol):
    """The tournaments (see the module docstring)."""

    def create(self, tournament: Tournament) -> Tournament:
        """Record a new tournament.

        Raises:
            TournamentError: a tournament with this id exists.
            StoreUnavailableError: nothing was recorded.
        """
        ...

    def load(self, tid: str) -> Tournament:
        """The tournament as stored.

        Raises:
            TournamentError: there is none with this id.
            StoreUnavailableError: the store cannot be reached.
        """
        ...

    def update(self, tid: str, change: Change) -> Tournament:
        """Apply ``change`` atomically under a lock; returns what was stored.

        Raises:
            TournamentError: no such tournament, or ``change`` refused (nothing stored).
            StoreUnavailableError: nothing was stored; try again.
        """
        ...

    def ids(self) -> list[str]:
        """Every tournament id, sorted."""
        ...

    def record_chips(self, tid: str, table: int, counts: list[ChipCount]) -> None:
        """Table ``table``'s counts after a hand: they replace what it reported before.

        Raises:
            StoreUnavailableError: nothing was recorded.
        """
        ...

    def chip_counts(self, tid: str) -> list[ChipCount]:
        """Every table's last counts, the most chips first."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...


def unknown(tid: str) -> TournamentError:
    """The error for a tournament that does not exist."""
    return TournamentError(f"there is no tournament {tid!r} (tournament create)")


class MemoryTournamentStore:
    """A :class:`TournamentStore` in memory; it keeps each tournament as JSON, so what
    comes back went through the same round trip as a database row.

    Attributes:
        fail_next: when set, the next call raises :class:`StoreUnavailableError` and keeps
            nothing (as a database that went away).
    """

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, Any]] = {}
        self._chips: dict[str, dict[int, list[ChipCount]]] = {}
        self.fail_next = False

    def _check(self) -> None:
        if self.fail_next:
            self.fail_next = False
            raise StoreUnavailableError("memory store told to fail")

    def create(self, tournament: Tournament) -> Tournament:
        """See :meth:`TournamentStore.create`."""
        self._check()
        if tournament.id in self._rows:
            raise TournamentError(f"tournament {tournament.id!r} exists already")
        stored = replace(tournament, version=1)
        self._rows[tournament.id] = stored.to_json()
        return stored

    def load(self, tid: str) -> Tournament:
        """See :meth:`TournamentStore.load`."""
        self._check()
        row = self._rows.get(tid)
        if row is None:
            raise unknown(tid)
        return Tournament.from_json(row)

    def update(self, tid: str, change: Change) -> Tournament:
        """See :meth:`TournamentStore.update`."""
        current = self.load(tid)
        new = replace(change(current), id=tid, structure=current.structure,
                      version=current.version + 1)       # the structure never changes
        self._rows[tid] = new.to_json()
        return new

    def ids(self) -> list[str]:
        """See :meth:`TournamentStore.ids`."""
        self._check()
        return sorted(self._rows)

    def record_chips(self, tid: str, table: int, counts: list[ChipCount]) -> None:
        """See :meth:`TournamentStore.record_chips`."""
        self._check()
        self._chips.setdefault(tid, {})[table] = list(counts)

    def chip_counts(self, tid: str) -> list[ChipCount]:
        """See :meth:`TournamentStore.chip_counts`."""
        self._check()
        return sorted((c for rows in self._chips.get(tid, {}).values() for c in rows),
                      key=lambda c: (-c.chips, c.table, c.seat))

    def close(self) -> None:
        """Nothing to release."""


__all__ = [
    "Change",
    "ChipCount",
    "MemoryTournamentStore",
    "Tournament",
    "TournamentStore",
    "check_id",
    "unknown",
]
