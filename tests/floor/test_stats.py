"""Player statistics (docs/floor.md, "Player statistics") against hands worked out by hand.

Real hands from tests/data/phh go through the rules engine and the controller's event folder
(tests/floor/phh_stream.py) into a PostgreSQL floor database; ``tablectl floor stats`` must
give, for each player, what the docstring of each test works out from the hand history.
One database for the module: each table holds the hands of one test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from tablectl.floor.pg import PgStore
from tests.floor.conftest import create_database, database_url, drop_database
from tests.floor.phh_stream import phh_bodies
from tests.floor.streams import T0, body, events_of, holdem_hand
from tests.floor.test_cli import Run

STUD = [f"F7S/wsop-2023-43-5/{n}.phh" for n in (5, 6, 7)]
TABLES = {
    "t01": ["NT/historical/dwan-ivey-2009.phh"],
    "t02": STUD,
    "t03": ["FT/wsop-2023-43-5/37.phh", "FO_8/wsop-2023-43-5/79.phh"],
}


@pytest.fixture(scope="module")
def db() -> Iterator[str]:
    name = create_database("floor_stats")
    url = database_url(name)
    try:
        store = PgStore(url)
        for table, paths in TABLES.items():
            store.ingest(events_of(phh_bodies(table, 1, list(paths))), [])
        # t04: the same hold'em hand, still under way (no hand_ended): never counted
        store.ingest(events_of(phh_bodies("t04", 1, TABLES["t01"])[:-1]), [])
        store.ingest(events_of(undone_raise()), [])
        store.close()
        yield url
    finally:
        drop_database(name)


def undone_raise() -> list[dict[str, Any]]:
    """t05: the stream helper's hold'em hand (P1 and P2 to a showdown, P3 and P4 fold
    preflop), where the dealer first entered a raise for P3 and undid it."""
    steps = holdem_hand(1)
    at = next(i for i, (t, d) in enumerate(steps) if t == "action" and d["seat"] == 3)
    steps[at:at] = [("action", {"seat": 3, "kind": "raise", "amount": 300, "to": 300,
                                "all_in": False, "stack": 700}),
                    ("correction", {"kind": "undo", "by": "dealer-t05"})]
    return [body("t05", 1, seq, etype, data, hand=1)
            for seq, (etype, data) in enumerate(steps, start=1)]


def stats(db: str, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    """``floor stats --json`` as {player (or game): row}."""
    out = Run(["floor", "stats", "--db", db, "--json", *args], capsys)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    return {r["player"] or r["game"]: r for r in rows}


def figures(row: dict[str, Any]) -> tuple[Any, ...]:
    """hands, then (made, chances) of VPIP, PFR, 3-bet, WTSD, W$SD, then net."""
    return (row["hands"], *((row[k]["made"], row[k]["chances"])
                            for k in ("vpip", "pfr", "three_bet", "wtsd", "wsd")), row["net"])


def test_holdem_dwan_ivey_2009(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Antes 500, blinds 1,000/2,000. Dwan (button) raises to 7,000: the open. Ivey (small
    blind) re-raises to 23,000, facing one wager: a 3-bet chance, taken. Antonius (big blind)
    folds facing two wagers: a decision (a VPIP chance, no VPIP), no 3-bet chance. Dwan calls
    facing two: no 3-bet chance. Both see the flop, go all in on the turn, show down; Dwan's
    seven-high straight wins 1,109,500. Net: Dwan +556,000, Ivey -553,500 (Dwan's whole stack
    matched, ante included; the rest of his bet came back), Antonius -2,500."""
    rows = stats(db, capsys, "--table", "t01")
    assert figures(rows["Tom Dwan"]) == (1, (1, 1), (1, 1), (0, 0), (1, 1), (1, 1), 556000)
    assert figures(rows["Phil Ivey"]) == (1, (1, 1), (1, 1), (1, 1), (1, 1), (0, 1), -553500)
    assert figures(rows["Patrik Antonius"]) == (1, (0, 1), (0, 1), (0, 0), (0, 0), (0, 0),
                                                -2500)
    assert {r["game"] for r in rows.values()} == {"No-Limit Hold'em"}
    assert rows["Phil Ivey"]["three_bet"]["percent"] == 100.0
    assert rows["Patrik Antonius"]["wtsd"]["percent"] is None


def test_stud_bring_in_completion_and_a_muck_at_the_showdown(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Three hands of seven card stud (antes 50,000, bring-in 50,000, 200,000/400,000); the
    first round is third street, the bring-in is forced, the completion is the open.

    Hand 5: Tong brings in; Obst, Shakerchi, Rast fold; Ashton completes (VPIP, PFR); Tong
    calls it (VPIP; facing one wager: a 3-bet chance, not taken). Fourth street is dealt to
    both (they saw the second street); Ashton folds on fifth: no showdown. Tong +400,000.
    Hand 6: Rast brings in; Ashton, Tong fold; Obst completes; Shakerchi raises (a 3-bet);
    Rast folds facing two wagers; Obst calls. To seventh street: Shakerchi shows, Obst mucks:
    both went to showdown, only Shakerchi won. Obst -1,850,000, Shakerchi +2,050,000.
    Hand 7: Rast brings in; Ashton, Tong fold; Obst completes; Shakerchi and Rast fold facing
    it (3-bet chances, not taken). Obst wins on third street."""
    rows = stats(db, capsys, "--table", "t02")
    assert figures(rows["James Obst"]) == (3, (2, 3), (2, 3), (0, 0), (1, 1), (0, 1),
                                           -1650000)
    assert figures(rows["Talal Shakerchi"]) == (3, (1, 3), (1, 3), (1, 2), (1, 1), (1, 1),
                                                1950000)
    assert figures(rows["Brian Rast"]) == (3, (0, 3), (0, 3), (0, 1), (0, 0), (0, 0), -250000)
    assert figures(rows["Matthew Ashton"]) == (3, (1, 3), (1, 3), (0, 0), (0, 1), (0, 0),
                                               -350000)
    assert figures(rows["Kristopher Tong"]) == (3, (1, 3), (0, 3), (0, 1), (0, 1), (0, 0),
                                                300000)
    # the same hands by game: every count summed, net nothing (no rake)
    (game,) = stats(db, capsys, "--table", "t02", "--by", "game").values()
    assert figures(game) == (15, (5, 15), (4, 15), (1, 4), (2, 4), (1, 2), 0)
    assert game["variant"] == "stud" and game["player"] is None


def test_a_walk_and_a_hi_lo_pot_split_three_ways(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Table t03 deals two games (a rotation).

    Fixed-limit hold'em hand 37 is a walk: everyone folds to Obst's big blind, who never had
    a decision: a hand dealt, no VPIP chance; +100,000 (Tong's small blind).
    Fixed-limit Omaha hi-lo hand 79 (blinds 125,000/250,000): Shakerchi (button) raises
    (the open), Rast and Ashton call (3-bet chances, not taken). All three see the flop, Ashton
    is all in there, Rast and Shakerchi bet to the river and all three show. Rast scoops the
    high of both pots and splits both lows with Shakerchi: both won at the showdown, Shakerchi
    with a net loss (-825,000), Rast +2,125,000, Ashton -1,300,000."""
    rows = stats(db, capsys, "--table", "t03", "--game", "omaha-hi-lo")
    assert figures(rows["Brian Rast"]) == (1, (1, 1), (0, 1), (0, 1), (1, 1), (1, 1), 2125000)
    assert figures(rows["Matthew Ashton"]) == (1, (1, 1), (0, 1), (0, 1), (1, 1), (0, 1),
                                               -1300000)
    assert figures(rows["Talal Shakerchi"]) == (1, (1, 1), (1, 1), (0, 0), (1, 1), (1, 1),
                                                -825000)
    walk = stats(db, capsys, "--table", "t03", "--game", "holdem")
    assert figures(walk["James Obst"]) == (1, (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), 100000)
    assert figures(walk["Kristopher Tong"]) == (1, (0, 1), (0, 1), (0, 0), (0, 0), (0, 0),
                                                -100000)
    assert walk["James Obst"]["vpip"]["percent"] is None


def test_by_player_time_range_and_last_hands(db: str, capsys: pytest.CaptureFixture[str]
                                              ) -> None:
    """Obst over every game (stud hands 5-7 and the walk): 4 hands, VPIP 2 of 3 chances,
    -1,650,000 + 100,000. The hand still under way at t04 counts nowhere."""
    (obst,) = stats(db, capsys, "--player", "James Obst", "--by", "player").values()
    assert figures(obst) == (4, (2, 3), (2, 3), (0, 0), (1, 1), (0, 1), -1550000)
    assert obst["game"] is None
    assert "t04" not in json.dumps(stats(db, capsys))
    assert stats(db, capsys, "--table", "t04") == {}
    # stud hands start at seq 1, 45 and 106 of t02's stream (a second a seq from T0): the
    # range [T0, T0+50s) holds hands 5 and 6, and each player's last hand is hand 7
    until = (T0 + timedelta(seconds=50)).isoformat()
    first_two = stats(db, capsys, "--table", "t02", "--since", T0.isoformat(), "--until",
                      until)
    assert figures(first_two["Talal Shakerchi"])[0] == 2
    assert figures(first_two["James Obst"])[-1] == -1850000 - 50000
    last = stats(db, capsys, "--table", "t02", "--last", "1")
    assert figures(last["James Obst"]) == (1, (1, 1), (1, 1), (0, 0), (0, 0), (0, 0), 250000)


def test_an_undone_raise_counts_for_nothing(db: str, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    """P3's raise was undone and he folded: a chance, no VPIP, no PFR; P4, who folds after
    it, never faced a wager (no 3-bet chance). P1 (small blind) calls, P2 checks: P1 VPIP,
    P2 no VPIP; both go to the showdown P2 wins (+400 less his 200 in: +200)."""
    rows = stats(db, capsys, "--table", "t05")
    assert figures(rows["P3"]) == (1, (0, 1), (0, 1), (0, 0), (0, 0), (0, 0), 0)
    assert figures(rows["P4"]) == (1, (0, 1), (0, 1), (0, 0), (0, 0), (0, 0), 0)
    assert figures(rows["P1"]) == (1, (1, 1), (0, 1), (0, 0), (1, 1), (0, 1), -200)
    assert figures(rows["P2"]) == (1, (0, 1), (0, 1), (0, 0), (1, 1), (1, 1), 200)


def test_plain_table(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = Run(["floor", "stats", "--db", db, "--table", "t01"], capsys)
    assert out.returncode == 0, out.stderr
    header, *lines = out.stdout.splitlines()
    assert header.split() == ["player", "game", "hands", "VPIP", "PFR", "3-bet", "WTSD",
                              "W$SD", "net"]
    ivey = next(line for line in lines if line.startswith("Phil Ivey"))
    assert ivey.split()[-7:] == ["100%", "100%", "100%", "(1/1)", "100%", "0%", "-553,500"]
    none = Run(["floor", "stats", "--db", db, "--table", "nowhere"], capsys)
    assert none.returncode == 0 and none.stdout == "no settled hands\n"


def test_a_reader_that_stops_early_is_no_error(db: str) -> None:
    """``tablectl floor stats | head -1`` over more lines than a pipe holds: the header, and
    no traceback (3,000 made-up players, removed afterwards)."""
    store = PgStore(db)
    conn = store.connect()
    try:
        conn.execute("INSERT INTO player_hands SELECT hand_id, 'pipe', started_at, ended_at, "
                     "variant, structure, game_label, currency, unit, 100 + g, name, "
                     "'made-up ' || g, vpip_chance, vpip, pfr, three_bet_chance, three_bet, "
                     "saw_second_street, showdown, won_showdown, net FROM player_hands, "
                     "generate_series(1, 3000) g WHERE table_id = 't01' AND seat = 1")
        conn.commit()
        proc = subprocess.run(
            f"{sys.executable} -m tablectl floor stats --db {db} --table pipe | head -1",
            shell=True, capture_output=True, text=True, timeout=60, check=False)
    finally:
        conn.execute("DELETE FROM player_hands WHERE table_id = 'pipe'")
        conn.commit()
        store.close()
    assert proc.stdout.split() == ["player", "game", "hands", "VPIP", "PFR", "3-bet", "WTSD",
                                   "W$SD", "net"]
    assert proc.stderr == ""


@pytest.mark.parametrize(("args", "problem"), [
    (["--game", "poker"], "expected one of"),
    (["--last", "0"], "--last"),
    (["--since", "yesterday"], "ISO time"),
    (["--since", "2026-12-02", "--until", "2026-12-01"], "until must be after since"),
    (["--by", "seat"], "--by"),
])
def test_bad_arguments_are_one_line_and_exit_2(args: list[str], problem: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = Run(["floor", "stats", "--db", "postgresql://postgres@127.0.0.1:5432/postgres",
               *args], capsys)
    assert out.returncode == 2, out.stderr
    assert problem in out.stderr and "Traceback" not in out.stderr
    assert len([line for line in out.stderr.splitlines() if "error" in line
                or "floor:" in line]) == 1
