"""The field, sans-IO: entries, seats, eliminations and the ranking.

A :class:`Field` is a value; every operation returns a new one or raises
:class:`~tablectl.tournament.errors.TournamentError` with nothing changed.

**Entries.** A player registers once (until the end of the structure's
``late_registration_until_level``) and, once eliminated, may re-enter (a new entry, until
the end of ``reentry_until_level``, at most ``max_entries`` entries in all). Before the clock
starts, registration is always open. A player's name is their key in the field.

**Seating.** A new entry takes the seat it is given, or else a seat drawn by the house rule:
the open table with the fewest players (the lowest number among equals), its lowest free
seat; when every open table is full, the next table number opens. (A random seat draw is
not built.) A bust or a move frees the seat.

**Eliminations and places.** A player at 0 chips is eliminated. Places are computed from
the eliminations, never stored: the players still in share the places 1 to N (N players
left; the last one in is 1st), and eliminated players take the places below, the latest
elimination the best. Two or more players eliminated **in the same hand** are placed by
their chips at the start of that hand: more chips, better place. Players who started the
hand with **equal chips tie**: each gets the best of the places they cover (two tied for
5th and 6th are both 5th, nobody is 6th; the prize of the places they cover is theirs to
share). An eliminated player who re-enters has no place for that entry: their last entry's
place is their place. While registration or re-entry is open, places are provisional
(a later entry pushes every place down one).

>>> f = Field().register("ann", 20000).register("bob", 20000).register("cat", 20000)
>>> f = f.bust("bob", hand="t1#40", start_chips=3000).bust("cat", hand="t1#40",
...                                                       start_chips=8000)
>>> [(p.place, p.player) for p in f.ranking()]
[(1, 'ann'), (2, 'cat'), (3, 'bob')]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

from tablectl.tournament.errors import TournamentError

MAX_NAME: Final = 64
"""The longest player name accepted."""


class EntryStatus(StrEnum):
    """An entry is playing or eliminated."""

    PLAYING = "playing"
    ELIMINATED = "eliminated"


@dataclass(frozen=True, slots=True)
class Entry:
    """One buy-in of one player; ``number`` is 1 for the first entry, 2 for a re-entry...

    ``table`` and ``seat`` are where the entry sits (None once eliminated).
    """

    player: str
    number: int
    status: EntryStatus = EntryStatus.PLAYING
    table: int | None = None
    seat: int | None = None
    chips: int = 0
    """chips bought with the entry (the starting stack)"""


@dataclass(frozen=True, slots=True)
class Elimination:
    """One player at 0 chips: ``order`` counts eliminations from 1 in the order recorded;
    eliminations with the same ``hand`` happened in one hand."""

    order: int
    player: str
    entry: int
    hand: str
    start_chips: int
    table: int | None = None
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Place:
    """A player's place (None while still playing and more than one is left)."""

    place: int | None
    player: str
    entry: int
    hand: str | None = None
    start_chips: int | None = None


def check_name(name: str) -> str:
    """A player name stripped of outer spaces.

    Raises:
        TournamentError: empty, too long, or holding control characters.
    """
    text = name.strip() if isinstance(name, str) else ""
    if not text or len(text) > MAX_NAME or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise TournamentError(f"a player name is 1 to {MAX_NAME} printable characters, not "
                              f"{name!r}")
    return text


@dataclass(frozen=True, slots=True)
class Field:
    """Every entry, every elimination and the open tables (see the module docstring)."""

    entries: tuple[Entry, ...] = ()
    eliminations: tuple[Elimination, ...] = ()
    tables: tuple[int, ...] = ()
    seats_per_table: int = 9

    # ---- queries --------------------------------------------------------------------------

    def current(self, player: str) -> Entry | None:
        """The player's latest entry (None if never registered)."""
        found = [e for e in self.entries if e.player == player]
        return max(found, key=lambda e: e.number) if found else None

    @property
    def playing(self) -> tuple[Entry, ...]:
        """Entries still in."""
        return tuple(e for e in self.entries if e.status is EntryStatus.PLAYING)

    @property
    def chips_in_play(self) -> int:
        """Chips bought by every entry (no add-ons are built)."""
        return sum(e.chips for e in self.entries)

    @property
    def average_stack(self) -> int:
        """Chips in play divided by players left (0 when nobody is left), rounded down."""
        left = len(self.playing)
        return self.chips_in_play // left if left else 0

    def seating(self) -> dict[int, dict[int, str]]:
        """``{table: {seat: player}}`` of every open table (empty ones included)."""
        out: dict[int, dict[int, str]] = {t: {} for t in self.tables}
        for e in self.playing:
            if e.table is not None and e.seat is not None:
                out.setdefault(e.table, {})[e.seat] = e.player
        return out

    def ranking(self) -> list[Place]:
        """Every player's place, the best first (see the module docstring for the rules)."""
        left = self.playing
        out = [Place(1 if len(left) == 1 else None, e.player, e.number)
               for e in sorted(left, key=lambda e: e.player)]
        latest = {e.player: e.number for e in self.entries}
        final = [x for x in self.eliminations if latest.get(x.player) == x.entry]
        hands: dict[str, list[Elimination]] = {}
        for x in sorted(final, key=lambda x: x.order):
            hands.setdefault(x.hand, []).append(x)
        groups = sorted(hands.values(), key=lambda g: g[0].order, reverse=True)
        place = len(left) + 1
        for group in groups:
            group.sort(key=lambda x: (-x.start_chips, x.order))
            i = 0
            while i < len(group):
                tied = [x for x in group[i:] if x.start_chips == group[i].start_chips]
                for x in tied:
                    out.append(Place(place, x.player, x.entry, x.hand, x.start_chips))
                place += len(tied)
                i += len(tied)
        return out

    # ---- commands -------------------------------------------------------------------------

    def register(self, player: str, chips: int, *, table: int | None = None,
                 seat: int | None = None) -> Field:
        """A new player's first entry, seated at ``table``/``seat`` or by the house rule.

        The caller checks that registration is open (:func:`registration_open`).
        """
        player = check_name(player)
        if self.current(player) is not None:
            raise TournamentError(f"{player} is already registered (a player who busted "
                                  "re-enters with tournament reenter)")
        return self._seat_entry(Entry(player, 1, chips=chips), table, seat)

    def reenter(self, player: str, chips: int, max_entries: int, *, table: int | None = None,
                seat: int | None = None) -> Field:
        """A new entry for an eliminated player (the caller checks re-entry is open)."""
        player = check_name(player)
        last = self.current(player)
        if last is None:
            raise TournamentError(f"{player} is not registered (tournament register)")
        if last.status is EntryStatus.PLAYING:
            raise TournamentError(f"{player} is still playing (entry {last.number}): only an "
                                  "eliminated player re-enters")
        if last.number >= max_entries:
            raise TournamentError(f"{player} has used all {max_entries} entries allowed")
        return self._seat_entry(Entry(player, last.number + 1, chips=chips), table, seat)

    def bust(self, player: str, *, hand: str, start_chips: int) -> Field:
        """``player`` is at 0 chips after ``hand``, which they started with ``start_chips``."""
        player = check_name(player)
        entry = self.current(player)
        if entry is None or entry.status is not EntryStatus.PLAYING:
            raise TournamentError(f"{player} is not playing" if entry else
                                  f"{player} is not registered")
        if not isinstance(start_chips, int) or isinstance(start_chips, bool) or not (
                0 < start_chips <= 10**15):
            raise TournamentError(f"chips at the start of the hand must be a positive whole "
                                  f"number, not {start_chips!r}")
        hand = hand.strip() if isinstance(hand, str) else ""
        if not hand or len(hand) > MAX_NAME or any(ord(c) < 32 or ord(c) == 127 for c in hand):
            raise TournamentError(f"a hand is named by 1 to {MAX_NAME} printable characters, "
                                  f"not {hand!r}")
        if len(self.playing) <= 1:
            raise TournamentError(f"{player} is the last player in: the winner is not "
                                  "eliminated (tournament finish)")
        order = len(self.eliminations) + 1
        gone = replace(entry, status=EntryStatus.ELIMINATED, table=None, seat=None)
        return replace(self, entries=self._with(gone), eliminations=(
            *self.eliminations, Elimination(order, player, entry.number, hand, start_chips,
                                            entry.table, entry.seat)))

    def move(self, player: str, table: int, seat: int) -> Field:
        """Seat a playing ``player`` at ``table``/``seat`` (a free seat of an open table,
        or of a new table number, which opens)."""
        player = check_name(player)
        entry = self.current(player)
        if entry is None or entry.status is not EntryStatus.PLAYING:
            raise TournamentError(f"{player} is not playing")
        self._check_seat(table, seat, moving=player)
        tables = self.tables if table in self.tables else tuple(sorted((*self.tables, table)))
        return replace(self, entries=self._with(replace(entry, table=table, seat=seat)),
                       tables=tables)

    def close_table(self, table: int) -> Field:
        """Take an empty table out of play (a broken table, once its players moved)."""
        if table not in self.tables:
            raise TournamentError(f"table {table} is not open")
        still = sorted(s for s, _ in self.seating().get(table, {}).items())
        if still:
            raise TournamentError(f"table {table} still has players in seats "
                                  f"{', '.join(map(str, still))}: move them first")
        return replace(self, tables=tuple(t for t in self.tables if t != table))

    # ---- helpers --------------------------------------------------------------------------

    def _with(self, entry: Entry) -> tuple[Entry, ...]:
        return tuple(entry if (e.player, e.number) == (entry.player, entry.number) else e
                     for e in self.entries)

    def _check_seat(self, table: int, seat: int, *, moving: str | None = None) -> None:
        if not isinstance(table, int) or not 1 <= table <= 999:
            raise TournamentError(f"table numbers are 1 to 999, not {table!r}")
        if not isinstance(seat, int) or not 1 <= seat <= self.seats_per_table:
            raise TournamentError(f"seats are 1 to {self.seats_per_table}, not {seat!r}")
        who = self.seating().get(table, {}).get(seat)
        if who is not None and who != moving:
            raise TournamentError(f"table {table} seat {seat} is taken by {who}")

    def _seat_entry(self, entry: Entry, table: int | None, seat: int | None) -> Field:
        if (table is None) != (seat is None):
            raise TournamentError("give both a table and a seat, or neither (the house "
                                  "rule seats the player)")
        if table is None or seat is None:
            table, seat = self.free_seat()
        self._check_seat(table, seat)
        tables = self.tables if table in self.tables else tuple(sorted((*self.tables, table)))
        return replace(self, entries=(*self.entries, replace(entry, table=table, seat=seat)),
                       tables=tables)

    def free_seat(self) -> tuple[int, int]:
        """The seat the house rule gives a new entry (see the module docstring)."""
        seating = self.seating()
        open_ = [(len(seating[t]), t) for t in self.tables
                 if len(seating[t]) < self.seats_per_table]
        if not open_:
            table = max(self.tables, default=0) + 1
            return table, 1
        _, table = min(open_)
        taken = seating[table]
        return table, next(s for s in range(1, self.seats_per_table + 1) if s not in taken)

    # ---- persistence ----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Plain JSON that :meth:`from_json` reads back."""
        return {"seats_per_table": self.seats_per_table, "tables": list(self.tables),
                "entries": [{"player": e.player, "number": e.number, "status": e.status.value,
                             "table": e.table, "seat": e.seat, "chips": e.chips}
                            for e in self.entries],
                "eliminations": [{"order": x.order, "player": x.player, "entry": x.entry,
                                  "hand": x.hand, "start_chips": x.start_chips,
                                  "table": x.table, "seat": x.seat}
                                 for x in self.eliminations]}

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Field:
        """Inverse of :meth:`to_json`."""
        return cls(
            entries=tuple(Entry(e["player"], int(e["number"]), EntryStatus(e["status"]),
                                e["table"], e["seat"], int(e["chips"]))
                          for e in body["entries"]),
            eliminations=tuple(Elimination(int(x["order"]), x["player"], int(x["entry"]),
                                           x["hand"], int(x["start_chips"]), x["table"],
                                           x["seat"]) for x in body["eliminations"]),
            tables=tuple(int(t) for t in body["tables"]),
            seats_per_table=int(body["seats_per_table"]))


def entry_open(until_level: int, level: int | None) -> bool:
    """Whether registration (or re-entry) with ``until_level`` is open at ``level`` (None:
    the clock has not started, always open; 0 means never after the start)."""
    return level is None or level <= until_level


__all__ = ["MAX_NAME", "Elimination", "Entry", "EntryStatus", "Field", "Place", "check_name",
           "entry_open"]
