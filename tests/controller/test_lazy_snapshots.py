"""Lazy snapshots: ``handle()`` builds none; an outcome's ``public_changed`` / ``secure_changed``
mean "the snapshot differs from before this input" whenever they are read (at once, after later
inputs, or never), and the snapshots equal ones built eagerly after every input.

Sessions of several whole hands (hold'em, Omaha hi-lo, stud; from the shoe and from the table
antennas) with refused inputs, repeated commands, read errors and corrections (undo, misdeal,
kill_hand) are recorded once, then fed to fresh controllers read in different patterns and
compared with a reference controller whose snapshots are built after every input.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
from collections.abc import Callable
from typing import Any

import pytest

from tablectl.controller import (
    ControllerInput,
    DeviceStatus,
    HandController,
    Outcome,
    SnapshotChange,
    TableSetup,
    TableState,
    TagLeft,
)
from tablectl.domain.cards import FULL_DECK
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.game import Act

from .helpers import FL, FLOOR, NL, RED, Dealer, Driver, fresh

SESSIONS = [(GameKind.HOLDEM, NL), (GameKind.OMAHA_HI_LO, FL), (GameKind.STUD, FL)]
Snaps = tuple[dict[str, Any], dict[str, Any]]


def _mishaps(d: Driver, rng: random.Random) -> None:
    """Inputs that are refused or change nothing of the hand (each state is left as it was,
    so the dealer's mirror of the hand stays right)."""
    which = rng.randrange(6)
    if which == 0:  # an action out of turn: refused
        exp = d.ctl.expected()
        seat = exp.seat + 1 if isinstance(exp, Act) else 1
        out = d.act(seat, "check")
        assert out.reply is not None and not out.reply.ok
    elif which == 1 and any(i.type == "command" for i in d.inputs):  # a redelivered command
        last = next(i for i in reversed(d.inputs) if i.type == "command")
        assert d.feed(last).duplicate
    elif which == 2:  # a tag of no deck: an error state, then the floor clears it
        out = d.read("As", uid=f"{rng.randrange(16**8):08X}")
        if out.errors:
            code = out.errors[0].code.value
            assert d.cmd("clear_error", user=FLOOR, code=code).reply.ok  # type: ignore[union-attr]
    elif which == 3:
        d.feed(TagLeft("table", RED.uid_for(FULL_DECK[rng.randrange(52)]), 3, d.tick()))
    elif which == 4:
        d.feed(DeviceStatus("shoe", rng.random() < 0.5, d.tick(), kind="rfid-shoe"))
    else:  # a command nobody may send
        d.cmd("adjust_stack", seat=1, amount=5, reason="x")  # mid-hand or a dealer: refused


def _undo_and_redo(d: Driver) -> None:
    """Take the last decision back and enter it again (the hand ends where it was)."""
    last, done = d.inputs[-1], d.outcomes[-1].reply
    if last.type != "command" or last.name != "action" or not (done and done.ok):  # type: ignore[union-attr]
        return
    undone = d.cmd("undo")
    if undone.reply is not None and undone.reply.ok:
        again = d.cmd("action", **dict(last.args))  # type: ignore[union-attr]
        assert again.reply is not None and again.reply.ok, again.reply


def record_session(game: GameKind, structure: BettingStructure,
                   seed: int) -> tuple[TableSetup, TableState, list[ControllerInput]]:
    """The inputs of a session: whole hands with mishaps and corrections, a misdealt hand
    and a killed one."""
    rng = random.Random(f"lazy-{game}-{seed}")
    d = fresh(game, structure, stacks=(3000, 800, 5000, 2000))
    setup, initial = d.ctl.setup, d.ctl.checkpoint()
    for hand in range(5):
        dealer = Dealer(d, rng, table=hand == 3)
        dealer.start()
        void = {1: "misdeal", 2: "kill_hand", 4: "kill_hand"}.get(hand)
        kill_at = 10 if hand == 2 else 5
        steps = 0
        while dealer.step():
            steps += 1
            assert d.ctl.hand_view() == dealer.mirror.view()  # type: ignore[union-attr]
            if rng.random() < 0.25:
                _mishaps(d, rng)
            if rng.random() < 0.2:
                _undo_and_redo(d)
            if void == "misdeal" and steps == 3:
                assert d.cmd("misdeal").reply.ok  # type: ignore[union-attr]
                break
            if void == "kill_hand" and steps == kill_at and d.ctl.phase != "settled":
                assert d.cmd("kill_hand", user=FLOOR).reply.ok  # type: ignore[union-attr]
                break
        else:
            assert d.cmd("next_hand").reply.ok  # type: ignore[union-attr]
        for seat in d.ctl.checkpoint().seats:
            if seat.stack < 400:
                d.cmd("adjust_stack", user=FLOOR, seat=seat.seat, amount=2000, reason="rebuy")
    outcomes = d.outcomes
    assert any(o.hand_ended and o.hand_ended.summary["result"] == "misdeal" for o in outcomes)
    assert any(o.hand_ended and o.hand_ended.summary["result"] == "killed" for o in outcomes)
    assert any(o.hand_ended and o.hand_ended.summary["result"] == "settled" for o in outcomes)
    assert any(o.reply and not o.reply.ok for o in outcomes)
    assert any(o.events and o.events[0].type == "correction" for o in outcomes)
    return setup, initial, list(d.inputs)


@pytest.fixture(scope="module", params=SESSIONS, ids=lambda v: f"{v[0]}-{v[1]}")
def session(request: pytest.FixtureRequest) -> tuple[TableSetup, TableState,
                                                     list[ControllerInput], list[Snaps]]:
    """A recorded session and, per state (before the first input, after each input), its
    snapshots built eagerly: the builder called directly after every input, past the cache."""
    game, structure = request.param
    setup, initial, inputs = record_session(game, structure, 1)
    ref = HandController(setup, initial)
    eager: list[Snaps] = [ref._build_snapshots()]
    for inp in inputs:
        ref.handle(inp)
        eager.append(ref._build_snapshots())
    return setup, initial, inputs, eager


def _flags(eager: list[Snaps], i: int) -> tuple[bool, bool]:
    """What input ``i``'s flags must say: its snapshots differ from the ones before it."""
    return eager[i + 1][0] != eager[i][0], eager[i + 1][1] != eager[i][1]


def _views(ctl: HandController) -> Snaps:
    return ctl.public_snapshot_view(), ctl.secure_snapshot_view()  # type: ignore[return-value]


def test_the_sessions_change_snapshots_and_leave_them_alone(
        session: tuple[TableSetup, TableState, list[ControllerInput], list[Snaps]]) -> None:
    """The sessions test both answers of both flags (else the tests below prove little)."""
    setup, _initial, inputs, eager = session
    answers = {_flags(eager, i) for i in range(len(inputs))}
    assert {(True, True), (False, False)} <= answers
    # only the secure side changes: in the hold'em session (a burn changes the public side
    # too when it follows a decision: commands.undo goes, docs/mqtt.md 8.3)
    if setup.game is GameKind.HOLDEM:
        assert (False, True) in answers, answers


def test_flags_read_at_once(
        session: tuple[TableSetup, TableState, list[ControllerInput], list[Snaps]]) -> None:
    setup, initial, inputs, eager = session
    ctl = HandController(setup, initial)
    assert _views(ctl) == eager[0]
    for i, inp in enumerate(inputs):
        out = ctl.handle(inp)
        assert (out.public_changed, out.secure_changed) == _flags(eager, i), (i, inp)
        assert _views(ctl) == eager[i + 1], (i, inp)
        assert (ctl.public_snapshot(), ctl.secure_snapshot()) == eager[i + 1]


def test_flags_read_after_all_later_inputs(
        session: tuple[TableSetup, TableState, list[ControllerInput], list[Snaps]]) -> None:
    """Nobody asks until the end: every outcome still answers for its own input."""
    setup, initial, inputs, eager = session
    ctl = HandController(setup, initial)
    outcomes = [ctl.handle(inp) for inp in inputs]
    assert [(o.public_changed, o.secure_changed) for o in outcomes] == [
        _flags(eager, i) for i in range(len(inputs))]
    assert _views(ctl) == eager[-1]


@pytest.mark.parametrize("seed", range(3))
def test_flags_read_late_or_never_in_any_mix(
        session: tuple[TableSetup, TableState, list[ControllerInput], list[Snaps]],
        seed: int) -> None:
    """Some outcomes are dropped unread, some read one to six inputs later (public or secure
    first), snapshots taken now and then: every answer and every snapshot is right."""
    setup, initial, inputs, eager = session
    rng = random.Random(seed)
    ctl = HandController(setup, initial)
    waiting: list[tuple[int, int, Outcome]] = []  # (read after input, input, outcome)
    checked = 0
    for i, inp in enumerate(inputs):
        out = ctl.handle(inp)
        if rng.random() < 0.5:
            waiting.append((i + rng.randint(0, 6), i, out))
        del out  # the others are never read
        for entry in [w for w in waiting if w[0] <= i]:
            waiting.remove(entry)
            _, j, held = entry
            if rng.random() < 0.5:
                assert (held.public_changed, held.secure_changed) == _flags(eager, j), j
            else:
                assert (held.secure_changed, held.public_changed) == _flags(eager, j)[::-1]
            checked += 1
        if rng.random() < 0.2:
            assert _views(ctl) == eager[i + 1], i
    for _, j, held in waiting:
        assert (held.public_changed, held.secure_changed) == _flags(eager, j), j
    assert checked > len(inputs) // 3
    assert (ctl.public_snapshot(), ctl.secure_snapshot()) == eager[-1]


def _counting(ctl: HandController) -> list[int]:
    """Count the controller's snapshot builds."""
    builds = [0]
    build: Callable[[], Snaps] = ctl._build_snapshots

    def counted() -> Snaps:
        builds[0] += 1
        return build()

    ctl._build_snapshots = counted  # type: ignore[method-assign]
    return builds


def test_handle_builds_no_snapshot_when_the_last_outcome_was_read(
        session: tuple[TableSetup, TableState, list[ControllerInput], list[Snaps]]) -> None:
    """The daemon's order: handle, (journal and publish the events), then read the flags and
    the snapshots: handle() builds nothing, and each state's snapshots are built once."""
    setup, initial, inputs, _eager = session
    ctl = HandController(setup, initial)
    builds = _counting(ctl)
    ctl.public_snapshot_view()  # the daemon publishes the snapshot it starts with
    for n, inp in enumerate(inputs, start=1):
        out = ctl.handle(inp)
        assert builds[0] == n, "handle() built a snapshot"
        assert out.events == out.events and out.reply == out.reply  # reading them builds none
        assert builds[0] == n
        if out.public_changed or out.secure_changed:
            ctl.public_snapshot_view()
            ctl.secure_snapshot()
        assert builds[0] == n + 1, "the flags and the snapshots of one state: one build"


def test_handle_settles_an_unread_outcome_it_is_about_to_outdate() -> None:
    d = fresh()
    builds = _counting(d.ctl)
    first = d.cmd("start_hand")  # builds the snapshots before it (none yet)
    assert builds[0] == 1
    assert not first.snapshot_change.is_settled
    second = d.read("As")  # settles the first: builds the state after start_hand
    assert first.snapshot_change.is_settled and not second.snapshot_change.is_settled
    assert builds[0] == 2
    assert first.public_changed and first.secure_changed
    assert second.public_changed and second.secure_changed  # a hole card, face down
    assert builds[0] == 3
    del second
    d.outcomes.clear()
    d.read("Ks")  # nobody holds the last outcome: nothing to settle, no comparison
    assert builds[0] == 3  # the state before this read was built when second was read


def test_outcome_equality_and_repr_show_the_settled_flags() -> None:
    d = fresh()
    out = d.cmd("start_hand")
    again = HandController(d.ctl.setup, fresh().ctl.checkpoint()).handle(d.inputs[0])
    assert out == again
    assert out.snapshot_change == SnapshotChange.settled(public=True, secure=True)
    assert out.snapshot_change != SnapshotChange.settled(public=False, secure=True)
    assert hash(out.snapshot_change) == hash(SnapshotChange.settled(public=True, secure=True))
    assert "snapshot_change=SnapshotChange(public=True, secure=True)" in repr(out)
    read = d.read("As")  # a hole card, face down: both snapshots change
    assert read == Outcome(events=read.events, secure_events=read.secure_events,
                           snapshot_change=SnapshotChange.settled(public=True, secure=True))
    assert read != Outcome(events=read.events, secure_events=read.secure_events,
                           snapshot_change=SnapshotChange.settled(public=False, secure=True))
    assert Outcome().public_changed is False and Outcome().secure_changed is False


def test_snapshot_views_are_never_changed_and_copies_are_the_callers() -> None:
    d = fresh(GameKind.STUD, FL)
    dealer = Dealer(d, random.Random(3))
    dealer.start()
    kept = [(d.ctl.public_snapshot_view(), d.ctl.secure_snapshot_view())]
    texts = [json.dumps(kept[0])]
    while dealer.step():
        kept.append((d.ctl.public_snapshot_view(), d.ctl.secure_snapshot_view()))
        texts.append(json.dumps(kept[-1]))
        copy = d.ctl.public_snapshot()
        copy["seats"][0]["cards"].append("Xx")  # type: ignore[index, union-attr]
        copy["phase"] = "changed"
        assert d.ctl.public_snapshot_view() == kept[-1][0] != copy
    assert [json.dumps(k) for k in kept] == texts
    assert len(set(texts)) > len(texts) // 2


def test_a_refused_input_changes_no_snapshot() -> None:
    d = fresh()
    assert d.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    builds = _counting(d.ctl)
    before = d.ctl.public_snapshot_view(), d.ctl.secure_snapshot_view()
    out = d.act(2, "fold")  # seat 1 is to act
    assert out.reply is not None and out.reply.code is not None
    assert not out.public_changed and not out.secure_changed
    assert (d.ctl.public_snapshot_view(), d.ctl.secure_snapshot_view()) == before
    assert builds[0] == 2  # the state before it, and the one after it (equal)


def test_a_copied_or_pickled_outcome_is_settled_and_leaves_the_controller_behind() -> None:
    d = fresh()
    out = d.cmd("start_hand")
    assert not out.snapshot_change.is_settled
    for twin in (copy.copy(out), copy.deepcopy(out), pickle.loads(pickle.dumps(out))):
        assert twin == out and twin.snapshot_change.is_settled
        assert twin.public_changed and twin.secure_changed
    assert "HandController" not in str(pickle.dumps(out.snapshot_change))


def test_no_public_snapshot_changes_without_a_public_event(
        session: tuple[TableSetup, TableState, list[ControllerInput], list[Snaps]]) -> None:
    """A snapshot carries the seq of the last event folded into it, and a display drops a
    snapshot whose seq it already shows (docs/mqtt.md 4): so every input that changes the public
    snapshot publishes at least one public event, else the change never reaches a display (the
    settled hand stayed on screen after ``next_hand``)."""
    setup, initial, inputs, eager = session
    ctl = HandController(setup, initial)
    silent = []
    for i, inp in enumerate(inputs):
        out = ctl.handle(inp)
        if eager[i + 1][0] != eager[i][0] and not out.events:
            silent.append((i, inp))
    assert silent == []
    assert any(i.type == "command" and i.name == "next_hand" for i in inputs)  # type: ignore[union-attr]
