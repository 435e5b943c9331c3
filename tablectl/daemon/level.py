"""A tournament table's level: the tournament's status decoded, and what the table plays.

Sans-IO (no clock, no broker: times come in as arguments). A table whose config names a
tournament (``[tournament] id``) follows the status the tournament service keeps retained
on ``poker/v1/tournaments/{id}/clock`` (docs/tournament.md, "Tables that follow the clock"):

* :func:`decode_status` reads one payload as hostile input: anything but a status of this
  tournament with whole, non-negative, bounded blinds and ante is refused with one reason
  (:class:`StatusRefusedError`), and the caller changes nothing;
* :class:`Follower` keeps the last level it knew and whether it is still sure of it, in a
  table of states (:data:`TRANSITIONS`): ``no_status`` (none received since the start),
  ``following``, ``stale`` (the last status is older than ``stale_after`` seconds: the
  service or the floor link is away) and ``link_down`` (the table's broker is away). In
  every state the table plays the last level it knew; only what it says changes.

The daemon takes :attr:`Follower.level` through a journaled config change; the controller
keeps the hand in progress on the stakes it started with, so a level always starts with a
hand (tablectl/controller/controller.py, ``_on_config``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Final

from tablectl.domain.games import BettingStructure
from tablectl.domain.jsonvalue import JsonValue
from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object
from tablectl.game.rules import Stakes

MAX_CHIPS: Final = 10**12
"""The largest blind or ante taken (tablectl/tournament/structure.py refuses more too)."""

MAX_TIME_LEFT: Final = 7 * 24 * 3600
"""The most seconds left a status may say (a period is at most 24 h, plus time added)."""
MAX_PLAYERS: Final = 1_000_000

STATUS_LIMITS: Final = JsonLimits(max_bytes=8192, max_depth=4, max_string=200, max_items=64)
_ID: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_PHASES: Final = frozenset({"not_started", "running", "paused", "on_break", "finished"})


class StatusRefusedError(ValueError):
    """A status payload the table does not take; the message says why, in a line."""


@dataclass(frozen=True, slots=True)
class Level:
    """One level as a table plays it (chips)."""

    number: int
    small_blind: int
    big_blind: int
    ante: int = 0
    big_blind_ante: bool = True

    @property
    def label(self) -> str:
        """``level 3 100/300 (big-blind ante 300)``."""
        text = f"level {self.number} {self.small_blind}/{self.big_blind}"
        if self.ante:
            text += f" ({'big-blind ante' if self.big_blind_ante else 'ante'} {self.ante})"
        return text

    def stakes(self, structure: BettingStructure, base: Stakes) -> Stakes:
        """The engine's stakes for this level: the blinds and the ante (every seat, or one
        for the table posted by the big blind); a fixed-limit game's bets are the big blind
        and twice it. ``base``'s straddle and bring-in are dropped (a tournament has none)."""
        fixed = structure is BettingStructure.FIXED_LIMIT
        return replace(base, small_blind=self.small_blind, big_blind=self.big_blind,
                       straddle=0, bring_in=0,
                       ante=0 if self.big_blind_ante else self.ante,
                       big_blind_ante=self.ante if self.big_blind_ante else 0,
                       small_bet=self.big_blind if fixed else base.small_bet,
                       big_bet=2 * self.big_blind if fixed else base.big_bet, min_bet=0)

    def to_json(self) -> dict[str, JsonValue]:
        return {"number": self.number, "label": self.label, "small_blind": self.small_blind,
                "big_blind": self.big_blind, "ante": self.ante,
                "ante_kind": "big_blind" if self.big_blind_ante else "ante"}


@dataclass(frozen=True, slots=True)
class TournamentStatus:
    """What a table reads of one status message."""

    tournament: str
    level: Level
    phase: str
    at: datetime
    hand_for_hand: bool
    go: int | None = None
    """the hand-for-hand round the tables may start (tablectl/daemon/lockstep.py)"""
    time_left: float | None = None
    """seconds left in the level or break as of :attr:`at` (None: not in the status)"""
    next_label: str | None = None
    """the next level or break (None: the last level, or not in the status)"""
    players_left: int | None = None
    average_stack: int | None = None

    def time_left_at(self, now: datetime) -> float | None:
        """Seconds left at ``now`` (the table's clock; never below 0, never more than the
        status said: a table clock behind the service's counts from the status's time)."""
        if self.time_left is None:
            return None
        if self.phase not in ("running", "on_break"):
            return self.time_left
        gone = max(0.0, (now - self.at).total_seconds())
        return max(0.0, self.time_left - gone)


def _chips(body: dict[str, JsonValue], key: str, *, low: int = 0) -> int:
    value = body.get(key, 0 if key == "ante" else None)
    if isinstance(value, bool) or not isinstance(value, int):
        raise StatusRefusedError(f"clock.{key} is not a whole number of chips: {_short(value)}")
    if not low <= value <= MAX_CHIPS:
        raise StatusRefusedError(f"clock.{key} must be {low} to 10**12 chips, not {value}")
    return value


def _count(body: dict[str, JsonValue], key: str, high: int, where: str = "") -> int | None:
    """An optional whole number 0..``high`` (absent or null: None)."""
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise StatusRefusedError(f"{where}{key} is not a whole number 0 to {high}: "
                                 f"{_short(value)}")
    return value


def _extras(body: dict[str, JsonValue], clock: dict[str, JsonValue]
            ) -> tuple[float | None, str | None, int | None, int | None]:
    """The status's figures for the table display: the time left, the next level's label,
    the players left and the average stack; each optional, each refused when not sane."""
    left = clock.get("time_left")
    if left is not None and (isinstance(left, bool) or not isinstance(left, (int, float))
                             or not 0 <= left <= MAX_TIME_LEFT):
        raise StatusRefusedError(f"clock.time_left is not 0 to {MAX_TIME_LEFT} seconds: "
                                 f"{_short(left)}")
    nxt = clock.get("next")
    label: str | None = None
    if nxt is not None:
        text = nxt.get("label") if isinstance(nxt, dict) else None
        if not isinstance(text, str) or not text.strip() or len(text) > 120 or not (
                text.isprintable()):
            raise StatusRefusedError(f"clock.next is not a level with a label: {_short(nxt)}")
        label = text
    return (None if left is None else float(left), label,
            _count(body, "players_left", MAX_PLAYERS),
            _count(body, "average_stack", MAX_CHIPS))


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def decode_status(payload: bytes, tournament: str) -> TournamentStatus:
    """The status in ``payload`` if it is a whole, sane status of ``tournament``.

    >>> s = decode_status(b'{"schema":1,"tournament":"d1","clock":{"phase":"running",'
    ...     b'"level":3,"small_blind":100,"big_blind":300,"ante":300,"ante_kind":"big_blind",'
    ...     b'"at":"2026-12-03T19:48:42+00:00"},"hand_for_hand":false}', "d1")
    >>> s.level.label
    'level 3 100/300 (big-blind ante 300)'
    >>> decode_status(b'{"schema":1,"tournament":"d1","clock":{"phase":"running","level":3,'
    ...     b'"small_blind":-1,"big_blind":300,"at":"2026-12-03T19:48:42+00:00"}}', "d1")
    Traceback (most recent call last):
    ...
    tablectl.daemon.level.StatusRefusedError: clock.small_blind must be 1 to 10**12 chips, not -1

    Raises:
        StatusRefusedError: anything else (not JSON, NaN, another tournament or schema, a blind
            that is negative, not whole, above :data:`MAX_CHIPS` or above the big blind...).
    """
    try:
        body = decode_object(payload, STATUS_LIMITS)
    except StrictJsonError as exc:
        raise StatusRefusedError(f"not a status: {exc}") from None
    if body.get("schema") != 1:
        raise StatusRefusedError(f"schema {_short(body.get('schema'))} is not 1")
    if body.get("tournament") != tournament:
        raise StatusRefusedError(f"the status is of tournament {_short(body.get('tournament'))}, "
                            f"not {tournament}")
    clock = body.get("clock")
    if not isinstance(clock, dict):
        raise StatusRefusedError("clock is not an object")
    phase = clock.get("phase")
    if not isinstance(phase, str) or phase not in _PHASES:
        raise StatusRefusedError(f"clock.phase is not a phase: {_short(phase)}")
    number = clock.get("level")
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 10_000:
        raise StatusRefusedError(f"clock.level is not a level number: {_short(number)}")
    small, big = _chips(clock, "small_blind", low=1), _chips(clock, "big_blind", low=1)
    ante = _chips(clock, "ante")
    if small > big:
        raise StatusRefusedError(f"clock.small_blind {small} is above the big blind {big}")
    kind = clock.get("ante_kind", "big_blind")
    if kind not in ("big_blind", "ante"):
        raise StatusRefusedError(f"clock.ante_kind is not big_blind or ante: {_short(kind)}")
    at = clock.get("at")
    try:
        if not isinstance(at, str):
            raise ValueError
        when = datetime.fromisoformat(at)
    except ValueError:
        raise StatusRefusedError(f"clock.at is not a time: {_short(at)}") from None
    if when.tzinfo is None:
        raise StatusRefusedError("clock.at has no time zone")
    h4h = body.get("hand_for_hand", False)
    if not isinstance(h4h, bool):
        raise StatusRefusedError(f"hand_for_hand is not true or false: {_short(h4h)}")
    go = body.get("hand_for_hand_go")
    if go is not None and (isinstance(go, bool) or not isinstance(go, int)
                           or not 0 <= go <= 10**9):
        raise StatusRefusedError(f"hand_for_hand_go is not a round number: {_short(go)}")
    return TournamentStatus(tournament, Level(number, small, big, ante, kind == "big_blind"),
                            phase, when, h4h, go, *_extras(body, clock))


class Link(StrEnum):
    """How sure the table is of its level (the snapshot's ``tournament.link``)."""

    NO_STATUS = "no_status"
    FOLLOWING = "following"
    STALE = "stale"
    LINK_DOWN = "link_down"


class Happening(StrEnum):
    """What the follower is told."""

    STATUS = "status"        # a status taken
    SILENCE = "silence"      # the last status became older than stale_after
    DOWN = "down"            # the table's broker went away
    UP = "up"                # ... and came back (the retained status comes again)


TRANSITIONS: Final[dict[tuple[Link, Happening], Link]] = {
    (Link.NO_STATUS, Happening.STATUS): Link.FOLLOWING,
    (Link.NO_STATUS, Happening.DOWN): Link.LINK_DOWN,
    (Link.NO_STATUS, Happening.UP): Link.NO_STATUS,
    (Link.NO_STATUS, Happening.SILENCE): Link.NO_STATUS,
    (Link.FOLLOWING, Happening.STATUS): Link.FOLLOWING,
    (Link.FOLLOWING, Happening.SILENCE): Link.STALE,
    (Link.FOLLOWING, Happening.DOWN): Link.LINK_DOWN,
    (Link.FOLLOWING, Happening.UP): Link.FOLLOWING,
    (Link.STALE, Happening.STATUS): Link.FOLLOWING,
    (Link.STALE, Happening.SILENCE): Link.STALE,
    (Link.STALE, Happening.DOWN): Link.LINK_DOWN,
    (Link.STALE, Happening.UP): Link.STALE,
    (Link.LINK_DOWN, Happening.STATUS): Link.FOLLOWING,
    (Link.LINK_DOWN, Happening.SILENCE): Link.LINK_DOWN,
    (Link.LINK_DOWN, Happening.DOWN): Link.LINK_DOWN,
    # back up, but not sure of the level until a status comes (the retained one does)
    (Link.LINK_DOWN, Happening.UP): Link.STALE,
}
"""Every (state, happening) pair: the state after it."""

_SAYS: Final = {
    Link.NO_STATUS: "no status of tournament {t} yet: playing the config's stakes",
    Link.FOLLOWING: "following tournament {t}: {level}",
    Link.STALE: "the status of tournament {t} is stale (the service or the floor link is "
                "away): playing the last level known, {level}",
    Link.LINK_DOWN: "the broker is away: playing the last level known of tournament {t}, "
                    "{level}",
}


@dataclass(frozen=True, slots=True)
class Note:
    """What one happening made of the follower: a line to log (None: nothing to say) and
    whether the table's snapshot changed."""

    line: str | None
    changed: bool


class Follower:
    """The level a table plays and how sure it is of it (see the module docstring).

    Args:
        tournament: the tournament id.
        stale_after: seconds after a status's ``at`` when it is stale.
    """

    def __init__(self, tournament: str, stale_after: float) -> None:
        self.tournament = tournament
        self.stale_after = stale_after
        self.link = Link.NO_STATUS
        self.status: TournamentStatus | None = None
        self.refused: str | None = None
        """The reason the last refused payload was refused (until a status is taken)."""

    @property
    def level(self) -> Level | None:
        """The level to play (from the next hand on); None before any status."""
        return self.status.level if self.status is not None else None

    def _move(self, happening: Happening) -> Note:
        before = self.link
        self.link = TRANSITIONS[(before, happening)]
        if self.link is before:
            return Note(None, False)
        return Note(self.says(), True)

    def says(self) -> str:
        """The follower's state in a line."""
        level = self.level.label if self.level is not None else "no level yet"
        return _SAYS[self.link].format(t=self.tournament, level=level)

    def on_payload(self, payload: bytes, now: datetime) -> Note:
        """A message on the status topic. A refused one changes nothing but the reason
        kept; an empty one (the retained status cleared) is refused too."""
        try:
            if not payload:
                raise StatusRefusedError("the status was cleared (empty retained message)")
            # the broker hands the statuses of the topic over in the order it took them,
            # the last one being the retained one: no status is refused for its time (the
            # floor's command and tablectl tournament run may run on two clocks)
            status = decode_status(payload, self.tournament)
        except StatusRefusedError as exc:
            self.refused = str(exc)
            return Note(f"tournament {self.tournament}: status refused, nothing changed: "
                        f"{exc}", False)
        old = self.status
        self.status = status
        self.refused = None
        if self._age(now) > self.stale_after:
            note = self._move(Happening.STATUS)
            stale = self._move(Happening.SILENCE)
            return Note(stale.line or note.line, True)
        note = self._move(Happening.STATUS)
        if old is None or (old.level, old.hand_for_hand, old.go) != (
                status.level, status.hand_for_hand, status.go):
            return Note(self.says(), True)
        # nothing to log, but the snapshot is made again: its time left is counted down by
        # the displays from the moment they get it, so a page opened between two statuses
        # is at most one status behind (docs/mqtt.md §8.3)
        return Note(note.line, True)

    def _age(self, now: datetime) -> float:
        return (now - self.status.at).total_seconds() if self.status is not None else 0.0

    def check(self, now: datetime) -> Note:
        """Look at the time: the status may have become stale."""
        if self.status is not None and self._age(now) > self.stale_after:
            return self._move(Happening.SILENCE)
        return Note(None, False)

    def until_stale(self, now: datetime) -> float | None:
        """Seconds until the status taken becomes stale (None: none, or stale already)."""
        if self.status is None or self.link is not Link.FOLLOWING:
            return None
        return max(0.0, self.stale_after - self._age(now))

    def on_link(self, up: bool) -> Note:
        """The table's broker connected (``up``) or went away."""
        return self._move(Happening.UP if up else Happening.DOWN)

    def to_json(self, *, in_force: bool, now: datetime | None = None
                ) -> dict[str, JsonValue]:
        """The snapshot's ``tournament``: the level known, whether the hand dealt now plays
        it (``in_force``; else it starts with the next hand), how sure the table is of it,
        why the last refused status was refused, and the clock and field for the display:
        the time left as of ``now`` (the table's clock; as of the status without it)."""
        level = self.level
        status = self.status
        left = None
        if status is not None:
            left = status.time_left if now is None else status.time_left_at(now)
        return {"id": self.tournament, "link": self.link.value, "says": self.says(),
                "level": level.to_json() if level is not None else None,
                "pending": level is not None and not in_force,
                "hand_for_hand": status.hand_for_hand if status else False,
                "status_at": status.at.isoformat() if status else None,
                "refused": self.refused,
                "phase": status.phase if status else None,
                "time_left": None if left is None else round(left, 1),
                "next_level": status.next_label if status else None,
                "players_left": status.players_left if status else None,
                "average_stack": status.average_stack if status else None}


__all__ = ["MAX_CHIPS", "TRANSITIONS", "Follower", "Happening", "Level", "Link", "Note",
           "StatusRefusedError", "TournamentStatus", "decode_status"]
