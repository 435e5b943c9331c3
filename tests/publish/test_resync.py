"""Resync: whatever the network does to the stream, a display never shows a state the controller
never had, and ends at the controller's state once the retained snapshot arrives."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TypeVar

from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.clock import ManualClock
from tablectl.journal import MemoryJournal, NewEvent
from tablectl.publish import topics as tp
from tablectl.publish.envelope import (
    EventEnvelope,
    SnapshotEnvelope,
    decode,
    encode,
    event_from_record,
)
from tablectl.publish.resync import Resync, ResyncResult

View = tuple[object, ...]
M = TypeVar("M")
T0 = ManualClock().now()


def fold(view: View, event: int) -> View:
    return (*view, event)


@dataclass(frozen=True)
class Msg:
    kind: str          # "event" | "snapshot" | "status"
    epoch: int
    seq: int = 0
    body: object = None


def controller_stream(epochs: list[tuple[int, list[int]]], crash: list[bool]
                      ) -> tuple[list[Msg], dict[tuple[int, int], View]]:
    """What the controller publishes, and its true view at every (epoch, seq)."""
    msgs: list[Msg] = []
    truth: dict[tuple[int, int], View] = {}
    for (epoch, events), crashed in zip(epochs, crash, strict=True):
        view: View = (("start", epoch),)
        truth[(epoch, 0)] = view
        msgs += [Msg("status", epoch, body=True), Msg("snapshot", epoch, 0, view)]
        for seq, ev in enumerate(events, start=1):
            view = fold(view, ev)
            truth[(epoch, seq)] = view
            msgs += [Msg("event", epoch, seq, ev), Msg("snapshot", epoch, seq, view)]
        if crashed:
            msgs.append(Msg("status", epoch, body=False))     # the LWT
    return msgs, truth


def feed(r: Resync[View, int], msg: Msg, now: float) -> ResyncResult:
    if msg.kind == "event":
        assert isinstance(msg.body, int)
        return r.on_event(msg.epoch, msg.seq, msg.body, now=now)
    if msg.kind == "snapshot":
        assert isinstance(msg.body, tuple)
        return r.on_snapshot(msg.epoch, msg.seq, msg.body, now=now)
    return r.on_status(bool(msg.body), msg.epoch, now=now)


def corrupt(msgs: list[M], ops: list[str]) -> list[M]:
    out: list[M] = []
    for msg, op in zip(msgs, ops, strict=True):
        if op == "drop":
            continue
        out.append(msg)
        if op == "dup":
            out.append(msg)
        if op == "swap" and len(out) >= 2:
            out[-1], out[-2] = out[-2], out[-1]
    return out


epochs_st = st.lists(st.integers(1, 3), min_size=1, max_size=4).map(
    lambda gaps: [sum(gaps[:i + 1]) for i in range(len(gaps))]).flatmap(
    lambda nums: st.tuples(*[st.tuples(st.just(n), st.lists(st.integers(0, 9), max_size=12))
                             for n in nums]).map(list))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), epochs=epochs_st)
def test_any_drops_duplicates_swaps_and_restarts_end_in_the_controllers_state(
        data: st.DataObject, epochs: list[tuple[int, list[int]]]) -> None:
    crash = data.draw(st.lists(st.booleans(), min_size=len(epochs), max_size=len(epochs)))
    msgs, truth = controller_stream(epochs, crash)
    ops = data.draw(st.lists(st.sampled_from(["keep", "drop", "dup", "swap"]),
                             min_size=len(msgs), max_size=len(msgs)))
    r: Resync[View, int] = Resync(fold, reorder_timeout=0.05)
    now = 0.0
    for msg in corrupt(msgs, ops):
        now += 0.01
        feed(r, msg, now)
        r.poll(now=now)
        if r.view is not None:          # never a state the controller did not have
            assert r.epoch is not None
            assert r.view == truth[(r.epoch, r.seq)]
    # a late joiner / cmd/snapshot: the retained status and snapshot of the last epoch
    last_epoch, last_events = epochs[-1]
    feed(r, Msg("status", last_epoch, body=True), now + 1)
    feed(r, Msg("snapshot", last_epoch, len(last_events), truth[(last_epoch, len(last_events))]),
         now + 1)
    assert (r.epoch, r.seq) == (last_epoch, len(last_events))
    assert r.view == truth[(last_epoch, len(last_events))]
    assert r.synced and not r.stale


@settings(max_examples=200, deadline=None)
@given(data=st.data(), epochs=epochs_st)
def test_without_drops_the_stream_alone_reaches_the_controllers_state(
        data: st.DataObject, epochs: list[tuple[int, list[int]]]) -> None:
    msgs, truth = controller_stream(epochs, [False] * len(epochs))
    ops = data.draw(st.lists(st.sampled_from(["keep", "dup", "swap"]),
                             min_size=len(msgs), max_size=len(msgs)))
    r: Resync[View, int] = Resync(fold)
    for i, msg in enumerate(corrupt(msgs, ops)):
        feed(r, msg, float(i))
    last_epoch, last_events = epochs[-1]
    assert r.view == truth[(last_epoch, len(last_events))]


def test_events_only_stream_with_a_gap_requests_one_snapshot_then_recovers() -> None:
    r: Resync[View, int] = Resync(fold, reorder_timeout=0.5)
    assert r.on_snapshot(4, 10, ("s",), now=0) is ResyncResult.SNAPSHOT
    assert r.on_event(4, 12, 12, now=1.0) is ResyncResult.BUFFERED
    assert r.deadline() == 1.5
    assert r.poll(now=1.4) is None
    assert r.poll(now=1.5) is ResyncResult.REQUEST_SNAPSHOT
    assert r.poll(now=9.0) is None                      # asked once per gap
    assert r.on_snapshot(4, 11, ("s", 11), now=2.0) is ResyncResult.SNAPSHOT
    assert r.view == ("s", 11, 12) and r.synced and r.deadline() is None


def stale(r: Resync[View, int]) -> bool:
    """Read the flag through a call (mypy would otherwise narrow the attribute)."""
    return r.stale


def test_status_rules_stale_and_late_lwt() -> None:
    r: Resync[View, int] = Resync(fold)
    r.on_snapshot(5, 0, (), now=0)
    assert r.on_status(False, 5, now=1) is ResyncResult.STATUS and stale(r)
    r.on_status(True, 5, now=2)
    assert not stale(r)
    assert r.on_status(False, 4, now=3) is ResyncResult.STALE and not stale(r)   # old run's LWT
    r.on_status(False, 5, now=4)
    assert r.on_snapshot(6, 0, ("new",), now=5) is ResyncResult.SNAPSHOT
    assert not stale(r) and r.view == ("new",)
    assert r.on_event(5, 1, 1, now=6) is ResyncResult.STALE
    assert r.on_snapshot(5, 3, ("old",), now=6) is ResyncResult.STALE


@settings(max_examples=100, deadline=None)
@given(data=st.data(),
       epochs=st.lists(st.lists(st.integers(0, 99), max_size=10), min_size=1, max_size=3))
def test_through_the_journal_and_the_wire_format(data: st.DataObject,
                                                 epochs: list[list[int]]) -> None:
    """Journal outbox -> encoded envelopes -> lossy delivery -> decode -> Resync == journal."""
    journal = MemoryJournal(ManualClock())
    topic = tp.events("t1").value
    wire: list[bytes] = []
    for values in epochs:
        epoch = journal.start_epoch()
        wire.append(encode(SnapshotEnvelope(table="t1", epoch=epoch, seq=0,
                                            ts=T0, data={"values": []})))
        for v in values:
            (rec,) = journal.append_events([NewEvent(topic, "value", {"v": v})])
            wire.append(encode(event_from_record("t1", rec)))
            so_far = [e.payload["v"] for e in journal.events_range(topic, epoch, 1, rec.seq)]
            wire.append(encode(SnapshotEnvelope(table="t1", epoch=epoch, seq=rec.seq,
                                                ts=rec.created_at, data={"values": so_far})))
    ops = data.draw(st.lists(st.sampled_from(["keep", "drop", "dup", "swap"]),
                             min_size=len(wire), max_size=len(wire)))
    delivered = [*corrupt(wire, ops), wire[-1]]      # + the retained snapshot at the end
    r: Resync[View, object] = Resync(lambda view, v: (*view, v))
    for i, raw in enumerate(delivered):
        kind = json.loads(raw)["type"]
        if kind == "snapshot":
            snap = decode(SnapshotEnvelope, raw)
            shown = snap.data["values"]
            assert isinstance(shown, list)
            r.on_snapshot(snap.epoch, snap.seq, tuple(shown), now=float(i))
        else:
            ev = decode(EventEnvelope, raw)
            r.on_event(ev.epoch, ev.seq, ev.data["v"], now=float(i))
    last = journal.epoch
    expected = tuple(e.payload["v"] for e in journal.events_range(topic, last, 1, 10**9))
    assert (r.epoch, r.view) == (last, expected)
