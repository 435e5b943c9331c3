"""A tournament's structure as data (a TOML file), checked sans-IO.

The structure is everything the clock and the field need to know before the first card::

    name = "Daily deep stack"
    starting_stack = 20000
    seats_per_table = 9
    late_registration_until_level = 6   # registration is open until the end of level 6
    reentry_until_level = 6             # an eliminated player may buy in again until then
    max_entries = 2                     # entries per player (1: a freeze-out)
    paid_places = 9                     # places paid (default: as many as payouts)
    prize_per_entry = 100               # money each entry puts in the prize pool
    currency = "EUR"                    # of the prizes (default USD)
    payouts = [30, 20, 12.5, 9.5, 7.5, 6, 5, 5, 4.5]  # % of the pool: 1st, 2nd... (9 paid)
    hand_for_hand_at = 10               # hand-for-hand from 10 players left (the default:
                                        # paid_places + 1) until one busts into the money
    break_table = "highest_number"      # or "fewest_players" (docs/tournament.md)
    chips = [25, 100, 500, 1000, 5000]  # optional: the denominations in play

    [[level]]
    small_blind = 100
    big_blind = 200
    ante = 200                          # 0 or absent: no ante
    ante_kind = "big_blind"             # "big_blind" (big-blind ante, the default) or "ante"
    minutes = 20                        # or seconds = 1200 (a fast test structure)

    [[break]]
    after_level = 4
    minutes = 15
    chip_up = [25]                      # chips raced off at this break

Rules checked (every problem is reported, one line each, in the director's words): at least
one level; blinds and antes whole positive chips, the small blind not above the big blind;
levels rise (no blind or ante lower than the level before, and at least one higher);
durations positive; a break comes after an existing level other than the last, at most one
after each level; late registration and re-entry end at an existing level; the starting
stack covers the first big blind; with ``chips`` given, a chip-up races off chips that
are in play, and every blind and ante can be paid with the smallest chip still in play at
its level (a level after a chip-up must not need the chip raced off); ``payouts`` are
percentages of the prize pool (at most two decimals, each above 0, none above the place
before it, 100 in all), one for each paid place, and need a ``prize_per_entry``; unknown keys
are refused (a misspelt key would silently
keep its default).

The clock runs through :attr:`Structure.periods`: every level and every break, in order.

>>> s = Structure.parse('''
... starting_stack = 10000
... [[level]]
... small_blind = 50
... big_blind = 100
... minutes = 20
... [[level]]
... small_blind = 100
... big_blind = 200
... ante = 200
... minutes = 20
... [[break]]
... after_level = 1
... minutes = 10
... ''')
>>> [p.label for p in s.periods]
['level 1 50/100', 'break 10 min', 'level 2 100/200 (big-blind ante 200)']
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from tablectl.domain.errors import ConfigError
from tablectl.domain.textfile import TextFileError, parse_toml, read_text_file


class AnteKind(StrEnum):
    """Who pays the ante: every player (``ante``) or the big blind for everyone (``big_blind``)."""

    ANTE = "ante"
    BIG_BLIND = "big_blind"


class BreakTable(StrEnum):
    """Which table breaks when the field fits in one table fewer (docs/tournament.md)."""

    HIGHEST_NUMBER = "highest_number"
    FEWEST_PLAYERS = "fewest_players"


@dataclass(frozen=True, slots=True)
class Level:
    """One level: blinds and ante in chips, its length in seconds; ``number`` counts from 1."""

    number: int
    small_blind: int
    big_blind: int
    ante: int
    ante_kind: AnteKind
    seconds: int

    @property
    def blinds(self) -> str:
        """``100/200`` or ``100/200 (big-blind ante 200)``."""
        text = f"{self.small_blind}/{self.big_blind}"
        if self.ante:
            kind = "big-blind ante" if self.ante_kind is AnteKind.BIG_BLIND else "ante"
            text += f" ({kind} {self.ante})"
        return text

    def to_json(self) -> dict[str, Any]:
        """The level as the clock publishes it."""
        return {"level": self.number, "small_blind": self.small_blind,
                "big_blind": self.big_blind, "ante": self.ante,
                "ante_kind": self.ante_kind.value, "seconds": self.seconds}


@dataclass(frozen=True, slots=True)
class Break:
    """A break after level ``after_level``; ``chip_up``: denominations raced off during it."""

    after_level: int
    seconds: int
    chip_up: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Period:
    """One stretch of the clock: a level, or a break (then ``level`` is the level before it).

    ``index`` is the period's place in :attr:`Structure.periods`, from 0.
    """

    index: int
    seconds: int
    level: Level
    brk: Break | None = None

    @property
    def is_break(self) -> bool:
        """True for a break."""
        return self.brk is not None

    @property
    def label(self) -> str:
        """``level 3 100/200`` or ``break 15 min``."""
        if self.brk is not None:
            text = f"break {_duration(self.seconds)}"
            if self.brk.chip_up:
                text += " (chip-up " + ", ".join(map(str, self.brk.chip_up)) + ")"
            return text
        return f"level {self.level.number} {self.level.blinds}"


def _duration(seconds: int) -> str:
    return f"{seconds // 60} min" if seconds % 60 == 0 else f"{seconds} s"


@dataclass(frozen=True, slots=True)
class Structure:
    """A validated structure (see the module docstring); build it with :meth:`parse`."""

    name: str
    starting_stack: int
    seats_per_table: int
    levels: tuple[Level, ...]
    breaks: tuple[Break, ...] = ()
    late_registration_until_level: int = 0
    reentry_until_level: int = 0
    max_entries: int = 1
    paid_places: int = 0
    hand_for_hand_at: int = 0
    break_table: BreakTable = BreakTable.HIGHEST_NUMBER
    chips: tuple[int, ...] = ()
    """the denominations in play at the start (empty: not given, nothing checked)"""
    prize_per_entry: int = 0
    """money each entry puts in the prize pool (whole units of ``currency``)"""
    currency: str = "USD"
    payouts: tuple[int, ...] = ()
    """each paid place's share of the prize pool, in hundredths of a percent (1st first)"""

    @property
    def periods(self) -> tuple[Period, ...]:
        """Every level and break in clock order."""
        after = {b.after_level: b for b in self.breaks}
        out: list[Period] = []
        for level in self.levels:
            out.append(Period(len(out), level.seconds, level))
            if (brk := after.get(level.number)) is not None:
                out.append(Period(len(out), brk.seconds, level, brk))
        return tuple(out)

    def level(self, number: int) -> Level:
        """Level ``number`` (from 1).

        Raises:
            ConfigError: there is no such level.
        """
        if not 1 <= number <= len(self.levels):
            raise ConfigError([("", f"there is no level {number}: the structure has levels "
                                    f"1 to {len(self.levels)}")])
        return self.levels[number - 1]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON that :meth:`from_json` reads back (the store keeps the structure a
        tournament was started with, whatever happens to the file later)."""
        return {"name": self.name, "starting_stack": self.starting_stack,
                "seats_per_table": self.seats_per_table,
                "late_registration_until_level": self.late_registration_until_level,
                "reentry_until_level": self.reentry_until_level,
                "max_entries": self.max_entries, "paid_places": self.paid_places,
                "hand_for_hand_at": self.hand_for_hand_at,
                "break_table": self.break_table.value, "chips": list(self.chips),
                "prize_per_entry": self.prize_per_entry, "currency": self.currency,
                "payouts": [bp // 100 if bp % 100 == 0 else bp / 100 for bp in self.payouts],
                "level": [{"small_blind": lv.small_blind, "big_blind": lv.big_blind,
                           "ante": lv.ante, "ante_kind": lv.ante_kind.value,
                           "seconds": lv.seconds} for lv in self.levels],
                "break": [{"after_level": b.after_level, "seconds": b.seconds,
                           "chip_up": list(b.chip_up)} for b in self.breaks]}

    @classmethod
    def from_json(cls, body: Mapping[str, Any], source: str | None = None) -> Structure:
        """Inverse of :meth:`to_json` (validated as :meth:`parse` validates)."""
        return _build(dict(body), source)

    @classmethod
    def parse(cls, text: str, source: str | None = None) -> Structure:
        """From TOML text.

        Raises:
            ConfigError: one line per problem; nothing is loaded then.
        """
        try:
            body = parse_toml(text)
        except TextFileError as exc:
            raise ConfigError([("", exc.reason)], source) from None
        return _build(body, source)

    @classmethod
    def load(cls, path: Path) -> Structure:
        """From a TOML file (see :meth:`parse`)."""
        try:
            text = read_text_file(path)
        except TextFileError as exc:
            raise ConfigError([("", exc.said("file"))], str(path)) from None
        return cls.parse(text, str(path))


_TOP_KEYS: Final = frozenset({"name", "starting_stack", "seats_per_table", "level", "break",
                              "late_registration_until_level", "reentry_until_level",
                              "max_entries", "paid_places", "hand_for_hand_at",
                              "break_table", "chips", "prize_per_entry", "currency",
                              "payouts"})
_LEVEL_KEYS: Final = frozenset({"small_blind", "big_blind", "ante", "ante_kind", "minutes",
                                "seconds"})
_BREAK_KEYS: Final = frozenset({"after_level", "minutes", "seconds", "chip_up"})
MAX_CHIPS: Final = 10**12
"""No blind, ante or stack above this (a typo of a few extra zeros is refused)."""
MAX_SECONDS: Final = 24 * 3600
"""No level or break longer than a day."""


class _Problems:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, where: str, message: str) -> None:
        self.items.append((where, message))

    def unknown(self, raw: Mapping[str, Any], known: frozenset[str], where: str) -> None:
        for key in sorted(set(raw) - known):
            hint = (f" ({key} goes before the first [[level]] or [[break]])"
                    if where and key in _TOP_KEYS else "")
            self.add(f"{where}.{key}" if where else key,
                     f"unknown key; known keys: {', '.join(sorted(known))}{hint}")

    def chips(self, raw: Mapping[str, Any], key: str, where: str, *, default: int | None = None,
              minimum: int = 1) -> int:
        value = raw.get(key, default)
        path = f"{where}.{key}" if where else key
        if value is None:
            self.add(path, "is required")
            return 0
        if isinstance(value, bool) or not isinstance(value, int) or not (
                minimum <= value <= MAX_CHIPS):
            low = "a whole number of chips" if minimum == 0 else "a positive whole number"
            self.add(path, f"must be {low} (at most {MAX_CHIPS}), not {value!r}")
            return 0
        return value

    def seconds(self, raw: Mapping[str, Any], where: str) -> int:
        has_min, has_sec = "minutes" in raw, "seconds" in raw
        if has_min == has_sec:
            self.add(where, "give its length as minutes = N or seconds = N (one of them)")
            return 0
        key = "minutes" if has_min else "seconds"
        value = raw[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.add(f"{where}.{key}", f"must be a number, not {value!r}")
            return 0
        secs = value * 60 if has_min else value
        if not 1 <= secs <= MAX_SECONDS:         # NaN and infinity fail this too
            self.add(f"{where}.{key}", f"must be positive (1 s to 24 h), not {value!r}")
            return 0
        if secs != int(secs):
            self.add(f"{where}.{key}", f"must come to whole seconds, not {value!r}")
            return 0
        return int(secs)


def _tables(raw: object, key: str, problems: _Problems) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(x, dict) for x in raw):
        problems.add(key, f"must be an array of tables ([[{key}]])")
        return []
    return raw


def _build(body: dict[str, Any], source: str | None) -> Structure:
    p = _Problems()
    p.unknown(body, _TOP_KEYS, "")
    name = body.get("name", "tournament")
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        p.add("name", "must be a non-empty text of at most 200 characters")
        name = "tournament"
    before = len(p.items)
    raw_levels = _tables(body.get("level"), "level", p)
    if not raw_levels and len(p.items) == before:     # else: not an array, said already
        p.add("level", "at least one level is required ([[level]])")
    levels = _levels(raw_levels, p)
    count = len(raw_levels)       # a level with a problem still counts: one problem, one line
    breaks = _breaks(_tables(body.get("break"), "break", p), count, p)
    stack = p.chips(body, "starting_stack", "")
    if levels and stack and stack < levels[0].big_blind:
        p.add("starting_stack", f"{stack} does not cover the first big blind "
                                f"({levels[0].big_blind})")
    seats = body.get("seats_per_table", 9)
    if isinstance(seats, bool) or not isinstance(seats, int) or not 2 <= seats <= 12:
        p.add("seats_per_table", f"must be 2 to 12, not {seats!r}")
        seats = 9
    until: dict[str, int] = {}
    for key in ("late_registration_until_level", "reentry_until_level"):
        value = body.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= max(
                count, 0):
            p.add(key, f"must be a level of the structure (1 to {count}) or 0 for none, "
                       f"not {value!r}")
            value = 0
        until[key] = value
    max_entries = body.get("max_entries", 1 if not until["reentry_until_level"] else 2)
    if isinstance(max_entries, bool) or not isinstance(max_entries, int) or not (
            1 <= max_entries <= 1000):
        p.add("max_entries", f"must be 1 (a freeze-out) to 1000, not {max_entries!r}")
        max_entries = 1
    if max_entries > 1 and not body.get("reentry_until_level"):   # absent or 0
        p.add("max_entries", f"is {max_entries} but reentry_until_level is not set: "
                             "say until which level players may re-enter")
    payouts = _payouts(body, p)
    paid = body.get("paid_places", len(payouts))
    if isinstance(paid, bool) or not isinstance(paid, int) or not 0 <= paid <= 100_000:
        p.add("paid_places", f"must be a whole number 0 to 100000, not {paid!r}")
        paid = 0
    h4h = body.get("hand_for_hand_at", paid + 1 if paid else 0)
    if isinstance(h4h, bool) or not isinstance(h4h, int) or (h4h and h4h <= paid):
        p.add("hand_for_hand_at", f"must be more than paid_places ({paid}) players, or 0 "
                                  f"for no hand-for-hand, not {h4h!r}")
        h4h = 0
    try:
        break_table = BreakTable(body.get("break_table", BreakTable.HIGHEST_NUMBER.value))
    except ValueError:
        p.add("break_table", f"must be one of {', '.join(b.value for b in BreakTable)}, not "
                             f"{body.get('break_table')!r}")
        break_table = BreakTable.HIGHEST_NUMBER
    if payouts and paid != len(payouts):
        p.add("payouts", f"gives {len(payouts)} places but paid_places is {paid!r}")
    prize = body.get("prize_per_entry", 0)
    if isinstance(prize, bool) or not isinstance(prize, int) or not 0 <= prize <= 10**9:
        p.add("prize_per_entry", f"must be a whole amount 0 to 1000000000, not {prize!r}")
        prize = 0
    elif payouts and not prize:
        p.add("prize_per_entry", "is required with payouts (the money each entry puts in the "
                                 "prize pool)")
    currency = body.get("currency", "USD")
    if not isinstance(currency, str) or not (len(currency) == 3 and currency.isascii()
                                             and currency.isalpha() and currency.isupper()):
        p.add("currency", f"must be a currency code such as EUR, not {currency!r}")
        currency = "USD"
    chips = _chips(body.get("chips", []), levels, breaks, p)
    if p.items:
        raise ConfigError(p.items, source)
    return Structure(name=name.strip(), starting_stack=stack, seats_per_table=seats,
                     levels=tuple(levels), breaks=tuple(breaks),
                     late_registration_until_level=until["late_registration_until_level"],
                     reentry_until_level=until["reentry_until_level"],
                     max_entries=max_entries, paid_places=paid, hand_for_hand_at=h4h,
                     break_table=break_table, chips=chips, prize_per_entry=prize,
                     currency=currency, payouts=payouts)


def _payouts(body: Mapping[str, Any], p: _Problems) -> tuple[int, ...]:
    """``payouts`` in hundredths of a percent, checked (see the module docstring)."""
    raw = body.get("payouts", [])
    if not isinstance(raw, list) or len(raw) > 100_000:
        p.add("payouts", f"must be a list of percentages, e.g. [50, 30, 20], not {raw!r}"[:200])
        return ()
    out: list[int] = []
    for i, value in enumerate(raw):
        try:
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    math.isfinite(value)):
                raise ValueError
            hundredths = Decimal(repr(value)) * 100
            if hundredths != hundredths.to_integral_value() or not 0 < hundredths <= 10_000:
                raise ValueError
        except (ValueError, ArithmeticError):
            p.add(f"payouts[{i}]", f"must be a percentage above 0 with at most two decimals, "
                                   f"not {value!r}")
            return ()
        out.append(int(hundredths))
    for i in range(1, len(out)):
        if out[i] > out[i - 1]:
            p.add(f"payouts[{i}]", f"place {i + 1} ({out[i] / 100:g}%) is paid more than place "
                                   f"{i} ({out[i - 1] / 100:g}%)")
            return ()
    if out and sum(out) != 10_000:
        p.add("payouts", f"add up to {sum(out) / 100:g}%, not 100%")
        return ()
    return tuple(out)


def _chips(raw: object, levels: list[Level], breaks: list[Break],
           p: _Problems) -> tuple[int, ...]:
    """The chip set, checked against the chip-ups and every level's amounts."""
    if not isinstance(raw, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) and 0 < c <= MAX_CHIPS for c in raw):
        p.add("chips", f"must be a list of chip values, e.g. [25, 100, 500], not {raw!r}")
        return ()
    chips = tuple(sorted(set(raw)))
    if not chips or not levels:
        return chips
    in_play = set(chips)
    raced = {b.after_level: b for b in breaks}
    for level in levels:
        smallest = min(in_play) if in_play else 0
        for what, amount in (("small blind", level.small_blind),
                             ("big blind", level.big_blind), ("ante", level.ante)):
            if amount and (not smallest or amount % smallest):
                p.add(f"level {level.number}", f"the {what} ({amount}) cannot be paid with "
                                               f"the chips in play (the smallest is "
                                               f"{smallest or 'none'})")
        if (brk := raced.get(level.number)) is not None:
            for chip in brk.chip_up:
                if chip not in in_play:
                    p.add(f"break after level {level.number}.chip_up",
                          f"{chip} is not a chip in play ({', '.join(map(str, sorted(in_play)))})")
            in_play -= set(brk.chip_up)
    return chips


def _levels(raws: list[dict[str, Any]], p: _Problems) -> list[Level]:
    levels: list[Level] = []
    for i, raw in enumerate(raws):
        number = i + 1
        where = f"level {number}"
        before = len(p.items)
        p.unknown(raw, _LEVEL_KEYS, where)
        small = p.chips(raw, "small_blind", where)
        big = p.chips(raw, "big_blind", where)
        ante = p.chips(raw, "ante", where, default=0, minimum=0)
        try:
            kind = AnteKind(raw.get("ante_kind", AnteKind.BIG_BLIND.value))
        except ValueError:
            p.add(f"{where}.ante_kind", f"must be big_blind or ante, not "
                                        f"{raw.get('ante_kind')!r}")
            kind = AnteKind.BIG_BLIND
        seconds = p.seconds(raw, where)
        if small and big and small > big:
            p.add(where, f"the small blind ({small}) is above the big blind ({big})")
        if len(p.items) > before:
            continue
        level = Level(number, small, big, ante, kind, seconds)
        if levels:
            prev = levels[-1]
            if prev.number == number - 1:
                now, then = (big, small, ante), (prev.big_blind, prev.small_blind, prev.ante)
                if any(a < b for a, b in zip(now, then, strict=True)) or now == then:
                    p.add(where, f"levels must rise: {level.blinds} is not above level "
                                 f"{prev.number}'s {prev.blinds}")
        levels.append(level)
    if len(levels) != len(raws):
        return []
    return levels


def _breaks(raws: list[dict[str, Any]], count: int, p: _Problems) -> list[Break]:
    breaks: list[Break] = []
    seen: set[int] = set()
    for i, raw in enumerate(raws):
        where = f"break {i + 1}"
        before = len(p.items)
        p.unknown(raw, _BREAK_KEYS, where)
        after = raw.get("after_level")
        if isinstance(after, bool) or not isinstance(after, int):
            p.add(f"{where}.after_level", f"must be a level number, not {after!r}")
            after = 0
        elif count and not 1 <= after < count:
            p.add(f"{where}.after_level", f"{after} is not a level followed by another "
                                          f"(levels 1 to {count - 1})")
        elif after in seen:
            p.add(f"{where}.after_level", f"there is already a break after level {after}")
        seen.add(after)
        seconds = p.seconds(raw, where)
        chips = raw.get("chip_up", [])
        if not isinstance(chips, list) or not all(
                isinstance(c, int) and not isinstance(c, bool) and 0 < c <= MAX_CHIPS
                for c in chips):
            p.add(f"{where}.chip_up", f"must be a list of chip values, e.g. [25], not "
                                      f"{chips!r}")
            chips = []
        if len(p.items) == before:
            breaks.append(Break(after, seconds, tuple(sorted(chips))))
    breaks.sort(key=lambda b: b.after_level)
    return breaks


__all__ = ["MAX_CHIPS", "MAX_SECONDS", "AnteKind", "Break", "BreakTable", "Level", "Period",
           "Structure"]
