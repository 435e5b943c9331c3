"""The tournament clock, sans-IO: a small record, commands, and time computed from the clock.

The clock never counts ticks. Its whole state is a :class:`ClockState`:

- ``status``: not started, running, paused or finished;
- ``period``: which level or break of :attr:`Structure.periods` it is in (from 0);
- ``started_at``: the wall-clock time this period last started or resumed running (None
  unless running);
- ``used``: seconds of the period used before ``started_at`` (by earlier runs before a pause;
  it goes down when the director adds time, up when time is removed, so it can be negative).

The time used in the period at wall time ``now`` is ``used + (now - started_at)`` while
running and ``used`` otherwise; the time left is the period's length minus that. Nothing
else is kept, so a clock stored and read back (a restart of the service, hours later) is
exactly where it would have been: a level whose time ran out while nobody looked has
ended, and the next one has run since (:func:`settle` rolls over every period whose time is
up, each next one starting the instant the one before ended).

The last level never ends by itself: its time left stays at 0:00 until the director moves
on (adds time, or finishes the tournament). A break is a period like a level; the public
phase is ``on_break`` while a break runs.

Transitions are a table (:data:`TRANSITIONS`): ``(phase, command) -> status``; a command not
in it is refused with :class:`~tablectl.tournament.errors.TournamentError` and nothing
changes.

>>> from datetime import datetime, UTC, timedelta
>>> from tablectl.tournament.structure import Structure
>>> s = Structure.parse("starting_stack = 1000\\n[[level]]\\nsmall_blind = 5\\n"
...     "big_blind = 10\\nminutes = 20\\n[[level]]\\nsmall_blind = 10\\nbig_blind = 20\\n"
...     "minutes = 20\\n")
>>> t0 = datetime(2026, 12, 3, 19, 0, tzinfo=UTC)
>>> c = apply(ClockState(), s, Start(), t0)
>>> c = apply(c, s, Pause(), t0 + timedelta(minutes=5))
>>> c = apply(c, s, Resume(), t0 + timedelta(minutes=9))
>>> v = view(c, s, t0 + timedelta(minutes=30))
>>> v.level.number, v.time_left
(2, 840.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Final, TypeAlias

from tablectl.tournament.errors import TournamentError
from tablectl.tournament.structure import MAX_SECONDS, Level, Period, Structure


class Status(StrEnum):
    """What the stored record says."""

    NOT_STARTED = "not_started"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"


class Phase(StrEnum):
    """What the room sees: the status, with a running break told apart."""

    NOT_STARTED = "not_started"
    RUNNING = "running"
    PAUSED = "paused"
    ON_BREAK = "on_break"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class ClockState:
    """The clock's record (see the module docstring); ``started_at`` is aware UTC."""

    status: Status = Status.NOT_STARTED
    period: int = 0
    started_at: datetime | None = None
    used: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (what the in-memory store keeps; PostgreSQL has a column each)."""
        return {"status": self.status.value, "period": self.period,
                "started_at": self.started_at.isoformat() if self.started_at else None,
                "used": self.used}

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> ClockState:
        """Inverse of :meth:`to_json`."""
        started = body.get("started_at")
        return cls(Status(body["status"]), int(body["period"]),
                   datetime.fromisoformat(started) if started else None, float(body["used"]))


@dataclass(frozen=True, slots=True)
class Start:
    """Start the clock (at the first level, or the level chosen with :class:`MoveTo`)."""


@dataclass(frozen=True, slots=True)
class Pause:
    """Stop the clock where it is."""


@dataclass(frozen=True, slots=True)
class Resume:
    """Run the paused clock again from where it stopped."""


@dataclass(frozen=True, slots=True)
class AddTime:
    """Add ``seconds`` to the current level or break (negative: remove time)."""

    seconds: int


@dataclass(frozen=True, slots=True)
class MoveTo:
    """Go to the start of level ``level`` (from 1), with its whole time."""

    level: int


@dataclass(frozen=True, slots=True)
class Finish:
    """The tournament is over: the clock stops for good."""


ClockCommand: TypeAlias = Start | Pause | Resume | AddTime | MoveTo | Finish

_KEEP: Final = None
"""In :data:`TRANSITIONS`: the command leaves the status as it is."""

TRANSITIONS: Final[Mapping[tuple[Phase, type[ClockCommand]], Status | None]] = {
    (Phase.NOT_STARTED, Start): Status.RUNNING,
    (Phase.NOT_STARTED, MoveTo): _KEEP,          # choose the starting level
    (Phase.RUNNING, Pause): Status.PAUSED,
    (Phase.RUNNING, AddTime): _KEEP,
    (Phase.RUNNING, MoveTo): _KEEP,
    (Phase.RUNNING, Finish): Status.FINISHED,
    (Phase.ON_BREAK, Pause): Status.PAUSED,
    (Phase.ON_BREAK, AddTime): _KEEP,
    (Phase.ON_BREAK, MoveTo): _KEEP,             # end the break early
    (Phase.ON_BREAK, Finish): Status.FINISHED,
    (Phase.PAUSED, Resume): Status.RUNNING,
    (Phase.PAUSED, AddTime): _KEEP,
    (Phase.PAUSED, MoveTo): _KEEP,
    (Phase.PAUSED, Finish): Status.FINISHED,
}
"""Every allowed ``(phase, command)`` and the status it leads to (None: unchanged)."""

_WHY: Final[Mapping[Phase, str]] = {
    Phase.NOT_STARTED: "the clock has not started (tournament start)",
    Phase.RUNNING: "the clock is running",
    Phase.ON_BREAK: "the clock is running a break",
    Phase.PAUSED: "the clock is paused (tournament resume)",
    Phase.FINISHED: "the tournament is finished",
}
_NAMES: Final[Mapping[type[ClockCommand], str]] = {
    Start: "start", Pause: "pause", Resume: "resume", AddTime: "add or remove time",
    MoveTo: "move to a level", Finish: "finish"}


def clock_text(seconds: float) -> str:
    """``h:mm:ss`` or ``m:ss`` of a number of seconds, rounded up to the second (a clock
    showing 0:00 has run out).

    >>> clock_text(61.2), clock_text(3600), clock_text(0)
    ('1:02', '1:00:00', '0:00')
    """
    whole = max(0, int(-(-seconds // 1)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def elapsed(state: ClockState, now: datetime) -> float:
    """Seconds of the current period used at ``now`` (not settled: may exceed its length)."""
    if state.status is Status.RUNNING and state.started_at is not None:
        return state.used + (now - state.started_at).total_seconds()
    return state.used


def settle(state: ClockState, structure: Structure, now: datetime) -> ClockState:
    """The same clock, with every period whose time ran out by ``now`` rolled over (each
    next one started the instant the one before ended); on the last level, its overrun is
    dropped (it stays at 0:00 from ``now`` on)."""
    periods = structure.periods
    if state.status is not Status.RUNNING or state.started_at is None:
        return state
    period, started, used = state.period, state.started_at, state.used
    while True:
        length = periods[period].seconds
        spent = used + (now - started).total_seconds()
        if spent < length:
            break
        if period + 1 >= len(periods):
            used = length - (now - started).total_seconds()
            break
        started = started + timedelta(seconds=length - used)
        used = 0.0
        period += 1
    return replace(state, period=period, started_at=started, used=used)


def phase_of(state: ClockState, structure: Structure) -> Phase:
    """The public phase of a settled clock."""
    if state.status is Status.RUNNING:
        return Phase.ON_BREAK if structure.periods[state.period].is_break else Phase.RUNNING
    return Phase(state.status.value)


def apply(state: ClockState, structure: Structure, command: ClockCommand,
          now: datetime) -> ClockState:
    """The clock after ``command`` at wall time ``now`` (settled first).

    Raises:
        TournamentError: the command does not fit the clock now (the message says why and
            what to do); nothing changed.
    """
    state = settle(state, structure, now)
    phase = phase_of(state, structure)
    key = (phase, type(command))
    if key not in TRANSITIONS:
        raise TournamentError(f"cannot {_NAMES[type(command)]}: {_WHY[phase]}")
    status = TRANSITIONS[key] or state.status
    running = status is Status.RUNNING
    match command:
        case Start() | Resume():
            return replace(state, status=status, started_at=now)
        case Pause() | Finish():
            return replace(state, status=status, started_at=None,
                           used=elapsed(state, now))
        case AddTime(seconds=seconds):
            return _add_time(state, structure, seconds, now)
        case MoveTo(level=number):
            if not 1 <= number <= len(structure.levels):
                raise TournamentError(f"there is no level {number}: the structure has "
                                      f"levels 1 to {len(structure.levels)}")
            level = structure.level(number)
            index = next(p.index for p in structure.periods
                         if not p.is_break and p.level.number == level.number)
            return replace(state, status=status, period=index,
                           started_at=now if running else None, used=0.0)
    raise TournamentError(f"unknown clock command {command!r}")  # pragma: no cover


def _add_time(state: ClockState, structure: Structure, seconds: int,
              now: datetime) -> ClockState:
    period = structure.periods[state.period]
    left = period.seconds - elapsed(state, now)
    what = "the break" if period.is_break else f"level {period.level.number}"
    if seconds == 0:
        raise TournamentError("add 0 s of time: nothing to do")
    if seconds < 0 and -seconds > left:
        raise TournamentError(f"only {clock_text(left)} left in {what}: cannot remove "
                              f"{clock_text(-seconds)} (move to the next level instead)")
    if seconds > 0 and left + seconds > MAX_SECONDS:
        raise TournamentError(f"{what} would have more than 24 h left: add less time")
    return replace(state, used=state.used - seconds)


@dataclass(frozen=True, slots=True)
class ClockView:
    """What the room sees at one instant.

    Attributes:
        phase: the public phase.
        period: the current level or break.
        level: the level playing now (during a break: the level before it).
        time_left: seconds left in the period (0 when the last level ran out).
        ends_at: wall time the period ends if nobody touches the clock (None unless running).
        next: the period after this one (None on the last level).
        at: the instant this view is of.
    """

    phase: Phase
    period: Period
    level: Level
    time_left: float
    ends_at: datetime | None
    next: Period | None
    at: datetime

    def to_json(self) -> dict[str, Any]:
        """The clock as published (docs/tournament.md, "What the room sees")."""
        nxt = self.next
        return {"phase": self.phase.value, "period": self.period.index,
                "on_break": self.period.is_break, "label": self.period.label,
                **self.level.to_json(), "time_left": round(self.time_left, 3),
                "time_left_text": clock_text(self.time_left),
                "ends_at": self.ends_at.isoformat() if self.ends_at else None,
                "next": None if nxt is None else {
                    "label": nxt.label, "on_break": nxt.is_break,
                    **({} if nxt.is_break else nxt.level.to_json())},
                "at": self.at.isoformat()}


def view(state: ClockState, structure: Structure, now: datetime) -> ClockView:
    """The clock as the room sees it at ``now``."""
    state = settle(state, structure, now)
    periods = structure.periods
    period = periods[state.period]
    left = max(0.0, period.seconds - elapsed(state, now))
    ends = None
    if state.status is Status.RUNNING and state.started_at is not None:
        ends = now + timedelta(seconds=left)
    nxt = periods[state.period + 1] if state.period + 1 < len(periods) else None
    return ClockView(phase_of(state, structure), period, period.level, left, ends, nxt, now)


__all__ = ["TRANSITIONS", "AddTime", "ClockCommand", "ClockState", "ClockView", "Finish",
           "MoveTo", "Pause", "Phase", "Resume", "Start", "Status", "apply", "clock_text",
           "elapsed", "phase_of", "settle", "view"]
