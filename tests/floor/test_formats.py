"""The floor and the broadcast formats: hands run twice, double boards and bomb pots stored
with every board, listed, exported and counted (docs/floor.md, "Runs, double boards and bomb
pots"); a player id from the table config in the statistics.

The hands are dealt through the real controller (tests/floor/format_hands.py) and stored in
a real PostgreSQL; each test's figures are worked out in its docstring. One database for the
module: each table holds one hand.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tablectl.domain.games import RulesPreset
from tablectl.floor.board import TableLine
from tablectl.floor.decode import decode_event
from tablectl.floor.model import FloorInputError, FloorSnapshot
from tablectl.floor.pg import PgStore
from tablectl.floor.store import MemoryStore
from tablectl.game import PRESETS
from tablectl.history.phh import PhhHand, replay
from tests.floor.conftest import create_database, database_url, drop_database
from tests.floor.format_hands import bomb_pot, dealt, double_board, format_bodies, run_twice
from tests.floor.streams import T0, events_of
from tests.floor.test_cli import Run

TABLES = {"t11": run_twice, "t12": double_board, "t13": bomb_pot}
IDS = {1: "ivey-0007", 3: "dwan-0002"}
"""t14: the hand of t11 where seats 1 and 3 carry a player id (seat 2 has none)."""


@pytest.fixture(scope="module")
def db() -> Iterator[str]:
    name = create_database("floor_formats")
    url = database_url(name)
    try:
        store = PgStore(url)
        for table, play in TABLES.items():
            store.ingest(events_of(format_bodies(table, play)), [])
        d = dealt(run_twice, IDS)          # t14's table as its snapshot shows it now
        snap = FloorSnapshot("t14", "1", 0, T0, d.ctl.public_snapshot())
        store.ingest(events_of(format_bodies("t14", run_twice, player_ids=IDS)), [snap])
        store.close()
        yield url
    finally:
        drop_database(name)


def _hands(db: str, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    out = Run(["floor", "hands", "--db", db, *args], capsys)
    assert out.returncode == 0, out.stderr
    if "--json" not in args:
        return {line.split()[1]: line for line in out.stdout.splitlines()}
    return {h["table"]: h for h in map(json.loads, out.stdout.splitlines())}


def test_every_run_and_every_board_is_stored_and_listed(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Run twice: run 1 is 7h 8s 9d Jc 2s (seat 1's aces win 5,025), run 2 Ks 7c 2h Th 3s
    (seat 3's set wins 5,025). The double board deals the same cards to boards 1 and 2. The
    bomb pot is one board, 300 each."""
    hands = _hands(db, capsys, "--json")
    run1, run2 = ["7h", "8s", "9d", "Jc", "2s"], ["Ks", "7c", "2h", "Th", "3s"]
    t11, t12, t13 = hands["t11"], hands["t12"], hands["t13"]
    assert t11["boards"] == [{"run": 1, "board": 1, "cards": run1},
                             {"run": 2, "board": 1, "cards": run2}]
    assert [(w["seat"], w["amount"], w["run"]) for w in t11["winners"]] == [
        (1, 5025, 1), (3, 5025, 2)]
    assert (t11["runs"], t11["double_board"], t11["bomb"], t11["pot"]) == (2, False, None,
                                                                           10050)
    assert t12["boards"] == [{"run": 1, "board": 1, "cards": run1},
                             {"run": 1, "board": 2, "cards": run2}]
    assert [(w["seat"], w["amount"], w["board"]) for w in t12["winners"]] == [
        (1, 5025, 1), (3, 5025, 2)]
    assert (t12["runs"], t12["double_board"], t12["bomb"]) == (1, True, None)
    assert t13["boards"] == [{"run": 1, "board": 1, "cards": run1}]
    assert (t13["runs"], t13["double_board"], t13["bomb"], t13["pot"]) == (1, False, 300, 2100)
    assert all("run" not in w and "board" not in w for w in t13["winners"])
    lines = _hands(db, capsys)
    assert "No-Limit Hold'em (run twice)" in lines["t11"]
    assert "P1 50.25 (run 1), P3 50.25 (run 2)" in lines["t11"]
    assert "(double board)" in lines["t12"] and "P3 50.25 (board 2)" in lines["t12"]
    assert "(bomb 300)" in lines["t13"]
    with psycopg.connect(db) as conn:    # each run's showdowns, as the table published them
        shown = conn.execute("SELECT run, seat, best FROM showdowns WHERE hand_id LIKE 't11:%' "
                             "ORDER BY seq").fetchall()
    assert [(r, s) for r, s, _ in shown] == [(1, 3), (1, 1), (2, 3), (2, 1)]
    assert shown[2][2] == ["Ks", "Kh", "Kd", "Th", "7c"]


def test_export_writes_runs_and_boards_as_history_export_does_and_reports_a_bomb_pot(
        db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A second run is a second series of board deals after the river; a double board deals
    each street's cards for both boards in one ``d db``; a bomb pot has no PHH form. Each
    file replays to the stacks the table published (5,025, 4,950, 5,025)."""
    out = Run(["floor", "export", "--db", db, "--out", str(tmp_path)], capsys)
    assert out.returncode == 1                              # the bomb pot is reported
    assert "t13" in out.stderr + out.stdout and "bomb pot has no PHH form" in (
        out.stderr + out.stdout)
    files = {p.name.split("-")[0]: p for p in tmp_path.glob("*.phh")}
    assert sorted(files) == ["t11", "t12", "t14"]
    boards = {t: [a for a in tomllib.loads(files[t].read_text())["actions"]
                  if a.startswith("d db")] for t in ("t11", "t12")}
    assert boards["t11"] == ["d db 7h8s9d", "d db Jc", "d db 2s",
                             "d db Ks7c2h", "d db Th", "d db 3s"]
    assert boards["t12"] == ["d db 7h8s9dKs7c2h", "d db JcTh", "d db 2s3s"]
    for table in ("t11", "t12"):
        fields = tomllib.loads(files[table].read_text())
        back = replay(PhhHand(table, fields), PRESETS[RulesPreset.PHH])
        assert back.ok, back.error
        assert back.finishing_stacks == fields["finishing_stacks"]
        assert sorted(back.finishing_stacks or ()) == [4950, 5025, 5025]


def _stats(db: str, capsys: pytest.CaptureFixture[str], table: str) -> dict[str, Any]:
    out = Run(["floor", "stats", "--db", db, "--json", "--table", table], capsys)
    assert out.returncode == 0, out.stderr
    return {r["player"]: r for r in map(json.loads, out.stdout.splitlines())}


def _figures(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["hands"], *((row[k]["made"], row[k]["chances"])
                            for k in ("vpip", "pfr", "three_bet", "wtsd", "wsd")), row["net"])


def test_a_bomb_pot_has_no_first_round_decisions(db: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """No betting before the flop: nobody has a VPIP, PFR or 3-bet chance. Everybody saw the
    flop, the second street (the WTSD chance). P2 bets 600 on the flop, P3 folds, P1 calls;
    P1's aces beat P2's twos at the showdown. Net: P1 +1,200 (2,100 won, 900 put in), P2 -900,
    P3 -300."""
    rows = _stats(db, capsys, "t13")
    assert _figures(rows["P1"]) == (1, (0, 0), (0, 0), (0, 0), (1, 1), (1, 1), 12.0)
    assert _figures(rows["P2"]) == (1, (0, 0), (0, 0), (0, 0), (1, 1), (0, 1), -9.0)
    assert _figures(rows["P3"]) == (1, (0, 0), (0, 0), (0, 0), (0, 1), (0, 0), -3.0)


@pytest.mark.parametrize("table", ["t11", "t12"])
def test_a_hand_run_twice_or_on_two_boards_is_one_showdown(
        db: str, capsys: pytest.CaptureFixture[str], table: str) -> None:
    """P1 raises all in (the open: VPIP, PFR), P2 folds its small blind facing one wager (a
    3-bet chance not taken), P3 calls all in (a 3-bet chance not taken). One showdown each for
    P1 and P3 however many runs or boards, and both won money at it (one run or board each).
    Net: P1 and P3 +25 (5,025 of 10,050), P2 -50."""
    rows = _stats(db, capsys, table)
    assert _figures(rows["P1"]) == (1, (1, 1), (1, 1), (0, 0), (1, 1), (1, 1), 0.25)
    assert _figures(rows["P2"]) == (1, (0, 1), (0, 1), (0, 1), (0, 0), (0, 0), -0.5)
    assert _figures(rows["P3"]) == (1, (1, 1), (0, 1), (0, 1), (1, 1), (1, 1), 0.25)


def test_a_player_id_from_the_config_names_the_player(db: str,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """t14's seats 1 and 3 carry the player ids of their config; seat 2 has none and is
    counted under its name. What the floor publishes for t14's seats (from its snapshot) is
    each id's one hand, and P2's four: the name P2 played at t11 to t14, while the P1 and P3
    of t11 to t13 are other players than the ids of t14."""
    rows = _stats(db, capsys, "t14")
    assert sorted(rows) == ["P2", "dwan-0002", "ivey-0007"]
    assert _figures(rows["ivey-0007"]) == (1, (1, 1), (1, 1), (0, 0), (1, 1), (1, 1), 0.25)
    store = PgStore(db)                  # what the floor publishes for the table's overlay
    try:
        published = store.table_stats("t14")
    finally:
        store.close()
    assert published is not None
    players = published.to_json(T0)["players"]
    assert [(p["seat"], p["name"], p.get("player"), p["hands"]) for p in players] == [
        (1, "P1", "ivey-0007", 1), (2, "P2", None, 4), (3, "P3", "dwan-0002", 1)]


def test_an_undone_run_count_undoes_no_decision() -> None:
    """The dealer enters ``run_it 2``, undoes it, enters it again: every action stands and
    the hand was run twice."""
    bodies = format_bodies("t21", run_twice)
    at = next(i for i, b in enumerate(bodies) if b["type"] == "runs")
    undo = {**bodies[at], "type": "correction",
            "data": {"kind": "undo", "by": "dealer-t21",
                     "undone": {"kind": "run_it", "count": 2}}}
    stream = [*bodies[:at + 1], undo, *bodies[at:]]
    stream = [{**b, "seq": seq} for seq, b in enumerate(stream, start=1)]
    store = MemoryStore()
    store.ingest(events_of(stream))
    (hand,) = store.hands()
    standing = [(a.seat, a.kind) for a in store.actions_of(hand.id) if not a.forced]
    assert standing == [(1, "raise"), (2, "fold"), (3, "call")] and hand.runs == 2


@pytest.mark.parametrize(("field", "value"), [("run", 4), ("run", "2"), ("board", 3),
                                              ("board", True)])
def test_a_hostile_run_or_board_is_refused(field: str, value: object) -> None:
    bodies = format_bodies("t22", run_twice)
    board = next(b for b in bodies if b["type"] == "board")
    board["data"][field] = value
    with pytest.raises(FloorInputError, match=f"data.{field}"):
        decode_event(json.dumps(board).encode(), "t22")


def test_the_floor_page_shows_every_board() -> None:
    """From the controller's own snapshots: each run's board, both boards, a bomb pot."""
    seen = {}
    for table, play in TABLES.items():
        line = TableLine(table)
        line.snapshot = dealt(play).ctl.public_snapshot()
        seen[table] = line.to_json()
    assert seen["t11"]["boards"] == [
        {"label": "run 1", "cards": ["7h", "8s", "9d", "Jc", "2s"]},
        {"label": "run 2", "cards": ["Ks", "7c", "2h", "Th", "3s"]}]
    assert [b["label"] for b in seen["t12"]["boards"]] == ["board 1", "board 2"]
    assert seen["t13"]["boards"] == [{"label": "board",
                                      "cards": ["7h", "8s", "9d", "Jc", "2s"]}]
    assert (seen["t13"]["bomb"], seen["t11"]["bomb"]) == (300, None)
