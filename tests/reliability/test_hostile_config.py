"""A hostile or broken table config (issue 25, the config surface): ``tablectl config check``
and ``tablectl run`` each say what is wrong in one line per problem and exit 2, never with a
traceback, and ``run`` creates no journal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.harness import ROOT

GOOD = f"""
deck = "{ROOT}/config/decks/demo-red.csv"
[table]
id = "hc"
name = "Main"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 1
big_blind = 2
[[seats]]
number = 1
name = "Ann"
stack = 500
[[seats]]
number = 2
name = "Bo"
stack = 500
[[sources]]
kind = "manual"
[odds]
precision = 0.5
[journal]
path = "JOURNAL"
"""

CASES: dict[str, tuple[bytes, str]] = {
    "nan": (GOOD.replace("precision = 0.5", "precision = nan").encode(),
            "odds.precision: nan is not a number"),
    "inf": (GOOD.replace("stack = 500", "stack = inf", 1).encode(),
            "seats[0].stack: inf is not a number"),
    "huge-int": (GOOD.replace("big_blind = 2", "big_blind = 9223372036854775807").encode(),
                 "game.stakes.big_blind: integer out of range"),
    "nul-in-name": (GOOD.replace('name = "Ann"', 'name = "A\\u0000nn"').encode(),
                    "seats[0].name: control character U+0000"),
    "bidi-in-name": (GOOD.replace('name = "Bo"', 'name = "\\u202eoB"').encode(),
                     "seats[1].name: character U+202E at 0 cannot be shown"),
    "long-name": (GOOD.replace('name = "Ann"', f'name = "{"A" * 45000}"').encode(),
                  "seats[0].name: 45000 characters"),
    "long-table-name": (GOOD.replace('name = "Main"', f'name = "{"M" * 40}"').encode(),
                        "table.name: 40 characters, more than 32"),
    "escape-in-url": (GOOD.replace("[journal]", '[mqtt]\nurl = "mqtt://h\\u001b[2J:1"\n'
                                   "[journal]").encode(), "mqtt.url: control character U+001B"),
    "bad-user": (GOOD.replace("[odds]", '[access.roles]\n"a/#" = "dealer"\n[odds]').encode(),
                 "access.roles: not a broker username"),
    "empty": (b"", "the file is empty"),
    "binary": (bytes(range(256)) * 4, "not UTF-8 text"),
    "nul-bytes": (b"\x00" * 64, "NUL byte"),
    "huge": (b"# " + b"x" * (2 * 1024 * 1024), "larger than 1024 KiB"),
    "deep": (b"a = " + b"[" * 5000 + b"]" * 5000, "nested too deep"),
}


def tablectl(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "tablectl", *args], capture_output=True,
                          text=True, errors="replace", cwd=ROOT, env=env, timeout=60,
                          check=False)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_config_is_one_line_per_problem_and_exit_2(tmp_path: Path,
                                                             case: str) -> None:
    data, expected = CASES[case]
    journal = tmp_path / "journal.sqlite"
    path = tmp_path / "table.toml"
    path.write_bytes(data.replace(b"JOURNAL", str(journal).encode()))
    for args in (("config", "check", str(path)), ("run", "--config", str(path))):
        done = tablectl(*args)
        assert done.returncode == 2, (args, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, done.stderr[-2000:]
        assert expected in done.stderr, (args, done.stderr[-2000:])
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(lines) <= 3, lines                     # one line per problem
        assert all(len(line) < 400 for line in lines)     # never the value echoed whole
    assert not journal.exists()
