"""Run it twice through the controller: the ``run_it`` command, the reads of each run, the
public events and snapshots of every board, per-run awards, undo, and a journal replay that
rebuilds it (tablectl/controller/runs.py, views.py; docs/mqtt.md)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tablectl.clock import ManualClock
from tablectl.controller import ControllerInput, ErrorCode, HandController, Outcome
from tablectl.controller.table import TableSetup
from tablectl.daemon import TableDaemon
from tablectl.daemon.answers import recall_json
from tablectl.domain.cards import parse_cards
from tablectl.domain.games import RulesPreset
from tablectl.game import PRESETS, RunItTwice
from tablectl.history.export import export_hand, finished_hands
from tablectl.history.phh import load, replay
from tablectl.journal import SqliteJournal
from tablectl.publish.base import MemoryPublisher

from .helpers import T0, Driver, initial_state, make_setup
from .test_payloads import HOLECARDS, PUBLIC_EVENT, PUBLIC_SNAPSHOT, SECURE_SNAPSHOT

RUN_IT = replace(PRESETS[RulesPreset.CASINO], run_it=RunItTwice(max_runs=3))
HOLE = "2c Kh As 3d Kd Ad"          # seats 2, 3, 1 (button 1): seat 1 aces, seat 3 kings
RUN1 = "4c 7h 8s 9d 5c Jc 6c 2s"    # aces hold
RUN2 = "4d Ks 7c 2h 5d Th 6d 3s"    # kings make a set


def _setup(rules: object = RUN_IT) -> TableSetup:
    return make_setup(rules=rules)


def _all_in(d: Driver) -> None:
    """Seat 2 folds its small blind, seats 1 and 3 go all-in for 5000: a pot of 10050."""
    assert d.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    for card in HOLE.split():
        d.read(card)
    assert d.act(1, "raise", 5000).reply.ok  # type: ignore[union-attr]
    assert d.act(2, "fold").reply.ok  # type: ignore[union-attr]
    assert d.act(3, "call").reply.ok  # type: ignore[union-attr]


def test_a_hand_run_twice_shows_both_boards_and_splits_the_pot_per_run() -> None:
    d = Driver(HandController(_setup(), initial_state(button=1)))
    _all_in(d)
    assert "run_it" in d.ctl.public_snapshot()["commands"]["available"]  # type: ignore[index]
    out = d.cmd("run_it", count=2)
    assert out.reply is not None and out.reply.ok and out.reply.result == {"count": 2}
    assert [(e.type, e.data) for e in out.events] == [("runs", {"count": 2, "board": []})]
    for card in (RUN1 + " " + RUN2).split():
        d.read(card)
    events = [e for o in d.outcomes for e in o.events]
    boards = [(e.data["run"], e.data["cards"]) for e in events if e.type == "board"]
    assert boards[4] == (1, ["7h", "8s", "9d", "Jc", "2s"])
    assert boards[5] == (2, ["Ks"])
    assert boards[-1] == (2, ["Ks", "7c", "2h", "Th", "3s"])
    winners = [(e.data["run"], e.data["seat"], e.data["amount"]) for e in events
               if e.type == "winner"]
    assert winners == [(1, 1, 5025), (2, 3, 5025)]
    snap = d.ctl.public_snapshot()
    assert snap["runs"] == {"count": 2, "boards": [["7h", "8s", "9d", "Jc", "2s"],
                                                   ["Ks", "7c", "2h", "Th", "3s"]]}
    assert snap["board"] == ["7h", "8s", "9d", "Jc", "2s"]
    assert [(r["run"], r["seat"], r["cards"]) for r in snap["results"]] == [  # type: ignore[index,union-attr]
        (1, 1, ["As", "Ad", "Jc", "9d", "8s"]), (2, 3, ["Ks", "Kh", "Kd", "Th", "7c"])]
    assert [s["stack"] for s in snap["seats"][:3]] == [5025, 4950, 5025]  # type: ignore[index]
    for o in d.outcomes:
        for e in o.events:
            PUBLIC_EVENT.validate(e.to_json())
        for e in o.secure_events:
            HOLECARDS.validate(e.to_json())
    PUBLIC_SNAPSHOT.validate(snap)
    SECURE_SNAPSHOT.validate(d.ctl.secure_snapshot())
    summary = d.outcomes[-1].hand_ended.summary  # type: ignore[union-attr]
    assert summary["boards"] == snap["runs"]["boards"]  # type: ignore[index]


def test_run_it_is_refused_with_the_house_reason_and_changes_nothing() -> None:
    d = Driver(HandController(_setup(PRESETS[RulesPreset.CASINO]), initial_state(button=1)))
    assert d.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    early = d.cmd("run_it", count=2)
    assert early.reply is not None and early.reply.code == ErrorCode.ILLEGAL_ACTION.value
    assert early.reply.reason == "the house does not run hands more than once"
    allowed = Driver(HandController(_setup(), initial_state(button=1)))
    assert allowed.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    before = allowed.ctl.public_snapshot()
    out = allowed.cmd("run_it", count=2)
    assert out.reply is not None and out.reply.code == ErrorCode.WRONG_PHASE.value
    assert "no betting remains" in out.reply.reason
    assert out.events == () and allowed.ctl.public_snapshot()["board"] == before["board"]
    assert allowed.cmd("run_it", count=9).reply.code == ErrorCode.BAD_ARGS.value  # type: ignore[union-attr]
    assert "run_it" not in before["commands"]["available"]  # type: ignore[index]


def test_an_undo_takes_the_count_back_before_the_run_out_starts() -> None:
    d = Driver(HandController(_setup(), initial_state(button=1)))
    _all_in(d)
    d.cmd("run_it", count=3)
    assert d.ctl.public_snapshot()["commands"]["undo"] == {  # type: ignore[index]
        "kind": "run_it", "count": 3}
    out = d.cmd("undo")
    assert out.reply is not None and out.reply.ok
    assert out.events[0].data["undone"] == {"kind": "run_it", "count": 3}
    PUBLIC_EVENT.validate(out.events[0].to_json())
    assert d.cmd("run_it", count=2).reply.ok  # type: ignore[union-attr]


def test_a_restarted_daemon_rebuilds_the_runs_from_the_journal(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    with SqliteJournal.open(tmp_path / "j.sqlite", clock) as journal:
        daemon = TableDaemon(_setup(), initial_state(button=1), journal, MemoryPublisher(),
                             clock=clock)
        daemon.recover()
        d = Driver(daemon.controller)

        def feed(inp: ControllerInput) -> Outcome:   # the daemon's clock at the input's time
            clock.advance((inp.at - clock.now()).total_seconds())
            return daemon.apply(inp)

        d.feed = feed  # type: ignore[method-assign]
        _all_in(d)
        d.cmd("run_it", count=2)
        for card in RUN1.split() + RUN2.split()[:4]:    # run 2's flop and turn burn
            d.read(card)
        live = daemon.controller.public_snapshot()
        recalled = recall_json(journal, 1)[0]
    with SqliteJournal.open(tmp_path / "j.sqlite", clock) as journal:
        again = TableDaemon(_setup(), initial_state(button=1), journal, MemoryPublisher(),
                            clock=clock)
        again.recover()
        assert again.controller.public_snapshot() == live
        daemon = again
        for card in RUN2.split()[4:]:               # the rest of run 2, after the restart
            d.read(card)
        (recall,) = finished_hands(journal)
        exported = export_hand(_setup(), recall)    # the journal's hand, as PHH
    assert exported.hand.boards == (tuple(parse_cards("7h 8s 9d Jc 2s")),
                                    tuple(parse_cards("Ks 7c 2h Th 3s")))
    phh = tmp_path / "hand.phh"
    phh.write_text(exported.phh())
    back = replay(load(phh)[0], RUN_IT)
    assert back.ok and back.match, back.error
    assert live["runs"] == {"count": 2, "boards": [["7h", "8s", "9d", "Jc", "2s"],
                                                   ["Ks", "7c", "2h"]]}
    steps = recalled["steps"]
    run_it = next(s for s in steps if s["what"] == "run_it")  # type: ignore[index,union-attr]
    assert run_it["input"]["args"] == {"count": 2}  # type: ignore[index]
    assert [e["type"] for e in run_it["events"]] == ["runs"]  # type: ignore[index,union-attr]
