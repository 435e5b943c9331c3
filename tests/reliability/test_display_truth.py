"""Displays never lie, model-based: hypothesis drives the real daemon, mosquitto, the web server
and the terminal follower through restarts and faults in random order, and after every step,
once the stream settles, each display shows the daemon's current snapshot or says it does not.

Steps (rules): dealer steps (cards, decisions, next and new hands); daemon restarts on the same
journal and on a fresh one (the same table id, epochs from 1 again); broker restarts (no
persistence: retained messages are lost, the daemon republishes on reconnect); web server
restarts; page reloads (a page stays open across the steps, its stream reconnecting after a
web server restart as the browser's does, and every check also reads the view of a page loading
afresh); at each display's relay: dropped events, a dropped snapshot followed by more play,
duplicated messages, and snapshots held back and delivered late, after everything that
followed them.

A snapshot dropped with nothing after it cannot be noticed by any display (only the next
change repairs it), so snapshots are dropped only where play follows; events may be dropped
anywhere (the snapshot after them repairs the view).

The check is :func:`tablectl.terminal.check.differences` against the snapshot the daemon
published last (seen by a clean subscriber, and equal to the daemon's own current snapshot):
no difference, or the view is marked stale, resyncing or waiting. At the end of each example
the displays must be live again and equal (the marks are not a way out for ever).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from tablectl.terminal.check import Shown, differences
from tests.conftest import Broker
from tests.reliability.display_world import Auditor, Terminal, World


def judge(name: str, shown: Shown, published: dict[str, Any] | None) -> list[str]:
    if published is None:
        return [] if shown.not_live else [f"{name}: live, but the daemon published nothing"]
    diffs = differences(shown, published)
    if diffs and not shown.not_live:
        return [f"{name} claims to be live and shows otherwise: " + "; ".join(diffs)]
    return []


class DisplayTruth(RuleBasedStateMachine):
    broker: Broker
    tmp: Path
    examples = 0

    @initialize()
    def start(self) -> None:
        DisplayTruth.examples += 1
        tmp = self.tmp / f"example-{DisplayTruth.examples}"
        tmp.mkdir()
        self.world = World(self.broker, tmp)
        self.world.auditor = Auditor(self.broker.port)
        self.world.terminal = Terminal(self.broker.port)
        self.world.start_daemon(fresh=True)
        self.world.start_web()
        self.steps: list[str] = []

    def teardown(self) -> None:
        world = getattr(self, "world", None)
        if world is None:
            return
        try:
            if world.daemon is not None:
                world.play(1)           # a change after the last fault: marks must go
                published = world.settle()
                problems = self._check(published, final=True)
                assert not problems, (self.steps, problems)
        finally:
            world.close()

    def _check(self, published: dict[str, Any] | None, *, final: bool = False) -> list[str]:
        world = self.world
        assert world.terminal is not None
        assert world.page is not None
        shown = {"terminal": world.terminal.shown(), "open page": world.page.shown(),
                 "loaded page": World.page_shown(world.page_view())}
        problems = [p for name, s in shown.items() for p in judge(name, s, published)]
        if final:
            problems += [f"{name} is still not live at the end" for name, s in shown.items()
                         if s.not_live and world.daemon is not None]
        return problems

    @invariant()
    def displays_tell_the_truth(self) -> None:
        if not hasattr(self, "world"):
            return
        published = self.world.settle()
        problems = self._check(published)
        assert not problems, (self.steps, problems)

    # ---- the table ---------------------------------------------------------------------

    @rule(steps=st.integers(1, 6))
    def play(self, steps: int) -> None:
        self.steps.append(f"play {steps}")
        if self.world.daemon is None:
            self.world.start_daemon(fresh=False)
        self.world.play(steps)

    @rule(fresh=st.booleans())
    def restart_daemon(self, fresh: bool) -> None:
        self.steps.append("restart daemon " + ("on a fresh journal" if fresh else
                                               "on its journal"))
        self.world.stop_daemon()
        self.world.start_daemon(fresh=fresh)

    @rule()
    def restart_broker(self) -> None:
        self.steps.append("restart broker")
        self.world.broker.stop()
        self.world.broker.start()

    @rule()
    def restart_web(self) -> None:
        self.steps.append("restart web server")
        self.world.stop_web()
        self.world.start_web()

    @rule()
    def reload_page(self) -> None:
        self.steps.append("reload the open page")
        assert self.world.page is not None
        self.world.page.reload()

    # ---- the relays in front of the displays -------------------------------------------

    @rule(n=st.integers(1, 4), steps=st.integers(1, 3))
    def drop_events(self, n: int, steps: int) -> None:
        self.steps.append(f"drop {n} events, play {steps}")
        for relay in self.world.relays():
            relay.faults.drop_events = n
        self.world.play(steps)
        self.world.flush()
        for relay in self.world.relays():
            relay.faults.drop_events = 0

    @rule(steps=st.integers(1, 3))
    def drop_snapshot_then_play(self, steps: int) -> None:
        self.steps.append(f"drop a snapshot, play {steps}")
        for relay in self.world.relays():
            relay.faults.drop_state = True
        self.world.play(1)
        self.world.flush()          # its snapshot is the one dropped
        for relay in self.world.relays():
            relay.faults.drop_state = False
        self.world.play(steps)

    @rule(n=st.integers(1, 6), steps=st.integers(0, 3))
    def duplicate(self, n: int, steps: int) -> None:
        self.steps.append(f"duplicate {n}, play {steps}")
        for relay in self.world.relays():
            relay.faults.duplicate = n
        self.world.play(steps)

    @rule(steps=st.integers(1, 3), restart=st.booleans())
    def late_snapshot(self, steps: int, restart: bool) -> None:
        """A snapshot held back, play (and maybe a daemon restart on a fresh journal) goes
        on, and it is delivered after all of that: after at least one newer snapshot."""
        self.steps.append(f"hold a snapshot, play {steps + 1}" + (", fresh journal" * restart))
        for relay in self.world.relays():
            relay.faults.hold_state = True
        self.world.play(1)
        self.world.flush()          # its snapshot is the one held
        self.world.play(steps)
        if restart:
            self.world.stop_daemon()
            self.world.start_daemon(fresh=True)
            self.world.play(1)


@pytest.mark.timeout(240)
def test_displays_show_the_daemons_snapshot_or_say_they_do_not(tmp_path: Path,
                                                               mosquitto: Broker) -> None:
    DisplayTruth.broker = mosquitto
    DisplayTruth.tmp = tmp_path
    run_state_machine_as_test(
        DisplayTruth,
        # no shrinking: a real broker and daemon do not replay a failing run step for step
        # (the failure names its steps instead)
        settings=settings(max_examples=5, stateful_step_count=8, deadline=None,
                          suppress_health_check=list(HealthCheck),
                          phases=(Phase.explicit, Phase.reuse, Phase.generate)))


@pytest.mark.timeout(120)
def test_every_kind_of_step_in_one_run(tmp_path: Path, mosquitto: Broker) -> None:
    """Each kind of step at least once, checked after each like the random runs: hypothesis
    picks the rules of an example by swarm testing (an example often draws a few kinds only),
    so a run of the test above may leave one kind out; this one never does."""
    DisplayTruth.broker = mosquitto
    DisplayTruth.tmp = tmp_path
    machine = DisplayTruth()
    machine.start()
    tour: list[Callable[[], None]] = [
        lambda: machine.play(3),
        lambda: machine.restart_daemon(fresh=False),
        lambda: machine.late_snapshot(1, restart=True),    # the old journal's, late
        machine.restart_broker,
        machine.restart_web,
        machine.reload_page,
        lambda: machine.drop_events(2, 2),
        lambda: machine.drop_snapshot_then_play(1),
        lambda: machine.duplicate(3, 1),
        lambda: machine.restart_daemon(fresh=True),
        lambda: machine.late_snapshot(2, restart=False),
    ]
    try:
        for step in tour:
            step()
            machine.displays_tell_the_truth()
    finally:
        machine.teardown()
