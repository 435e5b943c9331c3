"""A run is (journal, epoch): every consumer resets on a new journal, whatever its epoch, and
never goes back to a run it has left (the reported bug: a fresh journal's epoch 1 was taken for
an old copy of the previous journal's epoch 1)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tablectl.publish.resync import Resync, ResyncResult
from tablectl.publish.runs import Run, RunOrder, RunTracker
from tablectl.terminal.follow import TableFollower
from tablectl.web.link import LinkChange, LinkState, Message
from tablectl.web.sync import PublicSync

T = "poker/v1/tables/t01"
OLD, NEW = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"


def envelope(topic: str, journal: str | None, epoch: int, seq: int, **body: Any) -> bytes:
    data = {"table": "t01", "phase": "betting", "seats": [], "board": [],
            "hand": {"id": "h", "number": 1}, **body} if topic == "state" else body
    return json.dumps({"v": 1, "table": "t01", "journal": journal, "epoch": epoch, "seq": seq,
                       "type": "snapshot" if topic == "state" else "action",
                       "ts": "2026-11-29T18:00:00Z", "hand": 1, "data": data}).encode()


def status(state: str, journal: str | None, epoch: int) -> bytes:
    return json.dumps({"v": 1, "table": "t01", "state": state, "version": "0.1.0",
                       "journal": journal, "epoch": epoch}).encode()


def test_tracker_orders_runs_within_a_journal_and_never_goes_back() -> None:
    t = RunTracker()
    assert t.classify(Run(OLD, 7)) is RunOrder.NEW
    t.enter(Run(OLD, 7))
    assert t.classify(Run(OLD, 6)) is RunOrder.OLD
    assert t.classify(Run(OLD, 8)) is RunOrder.NEW
    assert t.classify(Run(NEW, 1)) is RunOrder.NEW       # a fresh journal: new, epoch 1
    t.enter(Run(NEW, 1))
    assert t.classify(Run(OLD, 7)) is RunOrder.OLD       # a straggler of the journal left
    assert t.classify(Run(OLD, 8)) is RunOrder.NEW       # that journal running again, later
    assert t.classify(Run(None, 3)) is RunOrder.NEW      # a daemon older than journal ids


@pytest.mark.parametrize("raw", [
    {"epoch": 0}, {"epoch": True}, {"epoch": "1"}, {"epoch": 2, "journal": ""},
    {"epoch": 2, "journal": 5}, {}])
def test_a_message_without_a_valid_run_names_none(raw: dict[str, object]) -> None:
    assert Run.of(raw) is None


def test_resync_takes_a_fresh_journals_snapshot_after_a_longer_history() -> None:
    r: Resync[tuple[object, ...], int] = Resync(lambda v, e: (*v, e))
    r.on_snapshot(1, 40, ("old table",), now=0, journal=OLD)
    r.on_status(False, 1, now=1, journal=OLD)
    assert r.stale
    assert r.on_status(True, 1, now=2, journal=NEW) is ResyncResult.RESET
    assert r.view is None and not r.stale
    assert r.on_snapshot(1, 3, ("new table",), now=3, journal=NEW) is ResyncResult.SNAPSHOT
    assert r.view == ("new table",) and r.run == Run(NEW, 1)
    # a late copy of the old journal's retained snapshot, and its late will: both ignored
    assert r.on_snapshot(1, 40, ("old table",), now=4, journal=OLD) is ResyncResult.STALE
    assert r.on_status(False, 1, now=4, journal=OLD) is ResyncResult.STALE
    assert r.view == ("new table",) and not r.stale


def public(messages: list[tuple[str, bytes]]) -> PublicSync:
    sync = PublicSync("t01")
    sync.feed(LinkChange(LinkState.UP))
    for kind, raw in messages:
        sync.feed(Message(f"{T}/{kind}", raw))
    return sync


def terminal(messages: list[tuple[str, bytes]]) -> TableFollower:
    follower = TableFollower("t01")
    for kind, raw in messages:
        follower.feed(f"{T}/{kind}", raw, now=0.0)
    return follower


REPORTED = [  # daemon 1 plays four hands and stops; daemon 2, fresh journal, deals
    ("status", status("online", OLD, 1)),
    ("state", envelope("state", OLD, 1, 0, hand={"id": "demo-000004", "number": 4})),
    ("events", envelope("events", OLD, 1, 1, seat=1, kind="check")),
    ("state", envelope("state", OLD, 1, 91, hand={"id": "demo-000004", "number": 4})),
    ("status", status("offline", OLD, 1)),
    ("status", status("online", NEW, 1)),
    ("state", envelope("state", NEW, 1, 0, hand=None, phase="idle")),
    ("events", envelope("events", NEW, 1, 1, seat=2, kind="call")),
    ("state", envelope("state", NEW, 1, 7, hand={"id": "demo-000001", "number": 1},
                       board=["2c", "7d", "Jh"])),
]


@pytest.mark.parametrize("late", [False, True])
def test_web_view_shows_the_fresh_journal_not_the_old_table(late: bool) -> None:
    msgs = REPORTED + ([("state", REPORTED[3][1]), ("status", REPORTED[4][1])] if late else [])
    view = public(msgs).view()
    snap = view["snapshot"]
    assert isinstance(snap, dict)
    assert snap["hand"] == {"id": "demo-000001", "number": 1}
    assert snap["board"] == ["2c", "7d", "Jh"]
    assert view["run"] == {"journal": NEW, "epoch": 1, "seq": 7}
    assert not view["stale"] and not view["resyncing"]
    assert [e["seq"] for e in view["log"]] == [1]        # the new run's event only


@pytest.mark.parametrize("late", [False, True])
def test_terminal_view_shows_the_fresh_journal_not_the_old_table(late: bool) -> None:
    msgs = REPORTED + ([("state", REPORTED[3][1]), ("status", REPORTED[4][1])] if late else [])
    follower = terminal(msgs)
    view = follower.view
    assert view.snapshot is not None
    assert view.snapshot["hand"] == {"id": "demo-000001", "number": 1}
    assert follower.run == Run(NEW, 1) and follower.seq == 7
    assert not view.stale
    assert [e.get("kind") for e in view.events] == ["call"]   # no event of the old table


def test_an_offline_new_run_marks_the_old_view_stale_everywhere() -> None:
    """Daemon 2 came up and died before its snapshot reached us: what is shown (daemon 1's
    table) is not live, whichever journal daemon 2 had."""
    msgs = [*REPORTED[:4], ("status", status("offline", NEW, 1))]
    assert public(msgs).view()["stale"]
    assert terminal(msgs).view.stale


def test_old_daemons_without_journal_ids_still_order_by_epoch() -> None:
    msgs = [("state", envelope("state", None, 3, 5)),
            ("state", envelope("state", None, 2, 9)),   # older run: ignored
            ("state", envelope("state", None, 3, 6))]
    assert public(msgs).view()["run"] == {"journal": None, "epoch": 3, "seq": 6}
    follower = terminal(msgs)
    assert follower.run == Run(None, 3) and follower.seq == 6


def test_the_terminal_view_is_stale_while_its_own_broker_link_is_down() -> None:
    follower = terminal(REPORTED)
    assert not follower.view.stale
    assert follower.link(False).changed and follower.view.stale
    assert not follower.link(False).changed
    assert follower.link(True).changed and not follower.view.stale
