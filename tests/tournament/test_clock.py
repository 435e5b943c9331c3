"""The clock: hand-worked schedules, every (phase, command) pair, and a model-based check
that the clock stays on schedule across pauses, time changes and restarts (fake clock)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.clock import ManualClock
from tablectl.tournament.clock import (
    TRANSITIONS,
    AddTime,
    ClockCommand,
    ClockState,
    Finish,
    MoveTo,
    Pause,
    Phase,
    Resume,
    Start,
    Status,
    apply,
    phase_of,
    settle,
    view,
)
from tablectl.tournament.errors import TournamentError
from tablectl.tournament.structure import Structure
from tests.tournament.conftest import SMALL

T0 = datetime(2026, 12, 3, 19, 0, tzinfo=UTC)
S = Structure.parse(SMALL)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def restart(state: ClockState) -> ClockState:
    """What a new process reads back (the store keeps this JSON, or the same columns)."""
    return ClockState.from_json(state.to_json())


def test_the_levels_change_on_schedule_from_the_wall_clock() -> None:
    c = apply(ClockState(), S, Start(), at(0))
    assert view(c, S, at(0)).time_left == 600
    v = view(c, S, at(9.5))
    assert (v.level.number, v.time_left, v.phase) == (1, 30, Phase.RUNNING)
    assert v.ends_at == at(10) and v.next is not None and v.next.level.number == 2
    v = view(c, S, at(10))
    assert (v.level.number, v.time_left) == (2, 600)            # the next level, whole
    v = view(c, S, at(22))
    assert (v.period.is_break, v.phase, v.time_left) == (True, Phase.ON_BREAK, 180)
    assert v.level.number == 2 and v.next is not None and v.next.level.number == 3
    v = view(c, S, at(26))
    assert (v.level.number, v.time_left, v.phase) == (3, 540, Phase.RUNNING)
    assert v.next is None


def test_the_last_level_stays_at_zero_until_the_director_acts() -> None:
    c = apply(ClockState(), S, Start(), at(0))
    v = view(c, S, at(500))                                     # hours after its end
    assert (v.level.number, v.time_left, v.phase, v.next) == (3, 0, Phase.RUNNING, None)
    c = apply(c, S, AddTime(300), at(500))                      # 5 more minutes, from now
    assert view(c, S, at(502)).time_left == 180
    c = apply(c, S, Finish(), at(506))
    v = view(c, S, at(600))
    assert (v.phase, v.time_left) == (Phase.FINISHED, 0)


def test_a_paused_clock_keeps_its_time_across_a_restart() -> None:
    c = apply(ClockState(), S, Start(), at(0))
    c = restart(apply(c, S, Pause(), at(4)))                    # paused with 6:00 left
    assert view(c, S, at(50)).time_left == 360                 # an hour later, still 6:00
    c = restart(apply(c, S, Resume(), at(60)))
    v = view(c, S, at(66))
    assert (v.level.number, v.time_left) == (2, 600)


def test_a_restart_mid_level_is_on_schedule_to_the_microsecond() -> None:
    clock = ManualClock(T0)
    c = apply(ClockState(), S, Start(), clock.now())
    clock.advance(1234.567891)
    before = view(c, S, clock.now())
    after = view(restart(c), S, clock.now())
    assert before == after
    assert (after.period.index, after.time_left) == (2, pytest.approx(1500 - 1234.567891))


def test_time_added_and_removed() -> None:
    c = apply(ClockState(), S, Start(), at(0))
    c = apply(c, S, AddTime(120), at(5))
    assert view(c, S, at(5)).time_left == 420
    c = apply(c, S, AddTime(-400), at(5))
    assert view(c, S, at(5)).time_left == 20
    with pytest.raises(TournamentError, match=r"only 0:20 left in level 1: cannot remove 0:21"):
        apply(c, S, AddTime(-21), at(5))
    with pytest.raises(TournamentError, match="nothing to do"):
        apply(c, S, AddTime(0), at(5))
    with pytest.raises(TournamentError, match="more than 24 h"):
        apply(c, S, AddTime(24 * 3600), at(5))
    c = apply(c, S, AddTime(-20), at(5))                        # exactly all: the level ends
    assert view(c, S, at(5)).level.number == 2


def test_moving_to_a_level() -> None:
    c = apply(ClockState(), S, MoveTo(2), at(0))                # choose where to start
    assert phase_of(c, S) is Phase.NOT_STARTED and view(c, S, at(0)).level.number == 2
    c = apply(c, S, Start(), at(1))
    v = view(c, S, at(12))
    assert v.phase is Phase.ON_BREAK and v.time_left == 240
    c = apply(c, S, MoveTo(3), at(12))                          # end the break early
    assert view(c, S, at(12)).time_left == 600
    with pytest.raises(TournamentError, match="there is no level 4"):
        apply(c, S, MoveTo(4), at(12))
    c = apply(c, S, Pause(), at(13))
    c = apply(c, S, MoveTo(1), at(14))                          # back; still paused
    assert (phase_of(c, S), view(c, S, at(99)).time_left) == (Phase.PAUSED, 600)


@pytest.mark.parametrize(("phase", "command", "why"), [
    (Phase.NOT_STARTED, Pause(), "cannot pause: the clock has not started (tournament start)"),
    (Phase.NOT_STARTED, AddTime(60), "cannot add or remove time: the clock has not started "
                     "(tournament start)"),
    (Phase.RUNNING, Start(), "cannot start: the clock is running"),
    (Phase.RUNNING, Resume(), "cannot resume: the clock is running"),
    (Phase.PAUSED, Pause(), "cannot pause: the clock is paused (tournament resume)"),
    (Phase.FINISHED, Resume(), "cannot resume: the tournament is finished"),
])
def test_refusals_say_why(phase: Phase, command: ClockCommand, why: str) -> None:
    with pytest.raises(TournamentError) as err:
        apply(in_phase(phase), S, command, at(30))
    assert str(err.value) == why


def in_phase(phase: Phase) -> ClockState:
    """A clock in ``phase`` at ``at(30)``... (started at 0, the break runs 20:00-25:00)."""
    started = apply(ClockState(), S, Start(), at(0))
    return {Phase.NOT_STARTED: ClockState(),
            Phase.RUNNING: started,
            Phase.ON_BREAK: apply(started, S, MoveTo(2), at(20)),   # break from 30:00
            Phase.PAUSED: apply(started, S, Pause(), at(1)),
            Phase.FINISHED: apply(started, S, Finish(), at(1))}[phase]


EXAMPLES: list[ClockCommand] = [Start(), Pause(), Resume(), AddTime(30), AddTime(-30),
                                MoveTo(1), MoveTo(3), Finish()]


@pytest.mark.parametrize("phase", list(Phase))
@pytest.mark.parametrize("command", EXAMPLES)
def test_every_pair_is_applied_or_refused_cleanly(phase: Phase, command: ClockCommand) -> None:
    state = in_phase(phase)
    now = at(30) if phase is not Phase.ON_BREAK else at(30.5)
    assert phase_of(settle(state, S, now), S) is phase
    try:
        new = apply(state, S, command, now)
    except TournamentError:
        assert (phase, type(command)) not in TRANSITIONS
        return
    assert (phase, type(command)) in TRANSITIONS
    expected = TRANSITIONS[(phase, type(command))]
    assert new.status is (expected or state.status)
    assert (new.started_at is not None) == (new.status is Status.RUNNING)


# ---- the model ------------------------------------------------------------------------------

STARTS = [sum(p.seconds for p in S.periods[:i]) for i in range(len(S.periods))]
LEVEL_PERIOD = {p.level.number: p.index for p in S.periods if not p.is_break}


@dataclass
class Model:
    """The schedule as a director with a stopwatch sees it: seconds used of each period."""

    status: str = "not_started"
    period: int = 0
    used: float = 0.0
    log: list[str] = field(default_factory=list)

    def run(self, seconds: float) -> None:
        if self.status != "running":
            return
        self.used += seconds
        while self.used >= S.periods[self.period].seconds:
            if self.period + 1 == len(S.periods):
                self.used = S.periods[self.period].seconds
                break
            self.used -= S.periods[self.period].seconds
            self.period += 1

    @property
    def position(self) -> float:
        return STARTS[self.period] + self.used


def impl_position(state: ClockState, now: datetime) -> float:
    v = view(state, S, now)
    return STARTS[v.period.index] + v.period.seconds - v.time_left


OPS = st.one_of(
    st.tuples(st.just("wait"), st.integers(0, 2000), st.integers(0, 999)),
    st.tuples(st.sampled_from(["start", "pause", "resume", "finish", "restart"]),
              st.just(0), st.just(0)),
    st.tuples(st.just("add"), st.integers(-900, 900), st.just(0)),
    st.tuples(st.just("level"), st.integers(1, 3), st.just(0)),
)


@settings(max_examples=400, deadline=None)
@given(ops=st.lists(OPS, min_size=1, max_size=40))
def test_the_clock_stays_on_schedule(ops: list[tuple[str, int, int]]) -> None:
    """Any sequence of waits, pauses, time changes, level moves and restarts (the record
    read back as a new process would): the clock's place in the schedule is within 1 s of
    a stopwatch model's, and it refuses exactly what the transition table refuses."""
    clock = ManualClock(T0)
    state = ClockState()
    model = Model()
    for name, a, b in ops:
        now = clock.now()
        command: ClockCommand | None = None
        if name == "wait":
            seconds = a + b / 1000
            clock.advance(seconds)
            model.run(seconds)
        elif name == "restart":
            state = restart(state)
        elif name in ("start", "pause", "resume", "finish"):
            command = {"start": Start(), "pause": Pause(), "resume": Resume(),
                       "finish": Finish()}[name]
        elif name == "add":
            command = AddTime(a)
        else:
            command = MoveTo(a)
        if command is not None:
            phase = phase_of(settle(state, S, now), S)
            try:
                state = apply(state, S, command, now)
            except TournamentError:
                allowed = (phase, type(command)) in TRANSITIONS
                if isinstance(command, AddTime) and allowed:
                    left = S.periods[model.period].seconds - model.used
                    assert command.seconds == 0 or -command.seconds > left - 0.01
                else:
                    assert not allowed, (phase, command)
            else:
                _follow(model, command)
        now = clock.now()
        assert abs(impl_position(state, now) - model.position) <= 1.0, (ops, model)
        assert phase_of(settle(state, S, now), S).value in (model.status, "on_break")


def _follow(model: Model, command: ClockCommand) -> None:
    match command:
        case Start() | Resume():
            model.status = "running"
        case Pause():
            model.status = "paused"
        case Finish():
            model.status = "finished"
        case AddTime(seconds=s):
            model.used -= s
            model.run(0)
        case MoveTo(level=n):
            model.period, model.used = LEVEL_PERIOD[n], 0.0
