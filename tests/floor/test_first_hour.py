"""The floor's first hour: a database that does not exist is said at once with the command
that creates it (no wait); a server that is not there is waited for, saying what for; the
exported files are named by the hand id, the table's id once.

Real processes (``python -m tablectl floor ...``) against the machine's PostgreSQL.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tablectl.floor.pg import PgStore
from tests.conftest import free_port
from tests.floor.conftest import database_url
from tests.floor.streams import body, events_of, snapshot
from tests.floor.test_fold import BAD_BEAT

ROOT = Path(__file__).resolve().parents[2]


def floor(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``tablectl floor ARGS`` as its own process (``timeout``: a generous bound, never a
    measurement)."""
    return subprocess.run([sys.executable, "-m", "tablectl", "floor", *args],
                          capture_output=True, text=True, timeout=timeout, check=False,
                          cwd=ROOT)


def test_floor_run_on_a_database_that_does_not_exist_says_so_at_once() -> None:
    """Exit 2 with the createdb command, however long --db-wait allows: waiting would not
    create it (the old worker retried every second for --db-wait, then exit 1)."""
    url = database_url("floor_never_created")
    done = floor("run", "--broker", f"mqtt://127.0.0.1:{free_port()}", "--db", url,
                 "--db-wait", "3600")
    assert done.returncode == 2, done
    assert done.stderr.splitlines() == [
        "tablectl floor: database floor_never_created does not exist on 127.0.0.1:5432: "
        "create it (as a PostgreSQL superuser) with: createdb -h 127.0.0.1 -p 5432 "
        "-U postgres -O postgres floor_never_created (docs/floor.md, \"Setting up the "
        "database\")"], done.stderr


def test_floor_hands_on_a_database_that_does_not_exist_is_exit_2(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["floor", "hands", "--db", database_url("floor_never_created")]) == 2
    err = capsys.readouterr().err
    assert "database floor_never_created does not exist" in err and "createdb" in err


def test_floor_run_waits_for_a_server_that_is_not_there_saying_for_what() -> None:
    port = free_port()
    done = floor("run", "--broker", f"mqtt://127.0.0.1:{free_port()}", "--db",
                 f"postgresql://floor:secret@127.0.0.1:{port}/floor", "--db-wait", "1")
    assert done.returncode == 1, done
    lines = done.stderr.splitlines()
    assert sum("waiting up to 1 s (--db-wait) for PostgreSQL at "
               f"127.0.0.1:{port}/floor" in line for line in lines) == 1, lines
    assert lines[-1].startswith("tablectl floor: database unavailable: "), lines
    assert lines[-1].endswith("(waited 1 s, --db-wait)"), lines
    assert "secret" not in done.stderr


def folded_hands(table: str, hands: int) -> list[dict[str, Any]]:
    """Heads-up hands as the daemon publishes them (hand ids ``{table}-000001``, two rounds
    of hole cards): the button posts the small blind and folds, the big blind wins."""
    events: list[tuple[str, dict[str, Any], int]] = []
    for number in range(1, hands + 1):
        hand = {"id": f"{table}-{number:06d}", "number": number}
        seats = [{"seat": s, "name": f"P{s}", "stack": 1000} for s in (1, 2)]
        events += [(etype, data, number) for etype, data in [
            ("hand_started", {"hand": hand, "button": 1, "seats": seats}),
            ("forced_bet", {"seat": 1, "kind": "small_blind", "amount": 50, "all_in": False}),
            ("forced_bet", {"seat": 2, "kind": "big_blind", "amount": 100, "all_in": False}),
            *[("cards_dealt", {"seat": s, "count": 1, "up": [], "street": "preflop"})
              for _ in range(2) for s in (1, 2)],
            ("action", {"seat": 1, "kind": "fold", "amount": 0, "to": 100, "all_in": False,
                        "stack": 950}),
            ("winner", {"pot": 0, "seat": 2, "amount": 150, "half": "whole",
                        "description": ""}),
            ("hand_ended", {"hand": hand, "result": "settled", "rake": 0,
                            "stacks": [{"seat": 1, "stack": 950}, {"seat": 2, "stack": 1050}]}),
        ]]
    return [body(table, 1, seq, etype, data, hand=number)
            for seq, (etype, data, number) in enumerate(events, 1)]


def test_floor_export_names_each_file_by_its_hand_id(pg_url: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    store = PgStore(pg_url, rules=BAD_BEAT)
    store.ingest(events_of(folded_hands("t01", 2)), [snapshot("t01", 1, 0)])
    store.close()
    out = tmp_path / "phh"
    assert main(["floor", "export", "--db", pg_url, "--out", str(out)]) == 0, \
        capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["t01-000001.phh", "t01-000002.phh"]
