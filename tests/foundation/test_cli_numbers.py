"""Numbers on the command line are bounded before use (``tablectl.domain.numbers``).

Before: ``demo --pace nan`` never dealt (the demo hung), ``equity --seed -5`` ended with
numpy's ``ValueError`` traceback, ``table calibrate --seats 999999999`` built a billion
positions, and ``deck verify --settle inf`` or ``floor run --db-wait nan`` took the value as
a wait. Each is now argparse's usage line naming the option and its range, exit 2, before
anything runs.
"""

from __future__ import annotations

import pytest

from tablectl.cli import main
from tests.usage import assert_number_refused

DEV = ["--device", "socket://127.0.0.1:1"]
DB = ["--db", "postgresql://postgres@127.0.0.1:5432/x"]

CASES: list[tuple[list[str], str, str]] = [
    (["demo", "--hands", "1", "--plain"], "--pace", "nan"),
    (["demo", "--hands", "1", "--plain"], "--pace", "-1"),
    (["demo", "--hands", "1", "--plain"], "--pace", "1e308"),
    (["equity", "--variant", "holdem", "AhAd", "KsKc"], "--seed", "-5"),
    (["equity", "--variant", "holdem", "AhAd", "KsKc"], "--seed", "9" * 5000),
    (["table", "calibrate", *DEV, "--out", "x.toml"], "--seats", "999999999"),
    (["table", "calibrate", *DEV, "--out", "x.toml"], "--seats", "0"),
    (["table", "calibrate", *DEV, "--out", "x.toml"], "--slots", "-2"),
    (["table", "calibrate", *DEV, "--out", "x.toml"], "--board", "1e3"),
    (["deck", "verify", "d.csv", *DEV], "--settle", "inf"),
    (["deck", "verify", "d.csv", *DEV], "--timeout", "0"),
    (["deck", "register", *DEV, "--out", "d.csv"], "--timeout", "nan"),
    (["floor", "run", *DB], "--db-wait", "nan"),
    (["floor", "run", *DB], "--batch-wait", "1e9"),
    (["floor", "run", *DB], "--batch-max", "0"),
    (["floor", "run", *DB], "--metrics-port", "70000"),
    (["floor", "hands", *DB], "--limit", "-1"),
    (["web", "--config", "c.toml"], "--port", "-1"),
    (["camera", "enrol", "--deck-id", "x", "--out", "p", "--live", "0"], "--frames", "0"),
    # a count past SQLite's integers ended recall and export with OverflowError
    (["recall", "--config", "c.toml"], "--hand", "9" * 30),
    (["recall", "--config", "c.toml"], "--hand", "-5"),
    (["history", "export", "--config", "c.toml", "--out", "o"], "--hands", "9" * 23),
    (["demo", "--plain"], "--hands", "9" * 23),
    # a watch of inf or 1e308 seconds was taken as one that never ends
    (["watch", "--table", "t"], "--timeout", "inf"),
    (["watch", "--table", "t"], "--timeout", "1e308"),
    (["watch", "--table", "t"], "--timeout", "0"),
    (["watch", "--table", "t"], "--hands", "0"),
    # int() and float() also read other scripts' digits, spaces around and "_" (a "٣" was 3)
    (["watch", "--table", "t"], "--hands", "\u0663"),
    (["watch", "--table", "t"], "--hands", " 7 "),
    (["watch", "--table", "t"], "--hands", "1_000"),
    (["demo", "--hands", "1", "--plain"], "--pace", "\u0661.\u0665"),
    (["demo", "--hands", "1", "--plain"], "--pace", "0_5"),
    # the simulator's seed: any size and other scripts' digits were taken
    (["demo", "--hands", "1", "--plain"], "--seed", "\u0663"),
    (["demo", "--hands", "1", "--plain"], "--seed", "9" * 30),
]


@pytest.mark.parametrize(("argv", "option", "value"), CASES,
                         ids=[f"{c[0][0]} {c[1]} {c[2][:8]}" for c in CASES])
def test_a_number_out_of_range_is_a_usage_error_before_anything_runs(
        argv: list[str], option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert_number_refused(main, argv, option, value, capsys)


@pytest.mark.parametrize(("option", "value", "shown"), [
    ("--pace", "\x1b[2J5", "'\\x1b[2J5'"),
    ("--seed", "\x07\x07", "'\\x07\\x07'"),
    ("--hands", "\u202e3", "'\\u202e3'"),
])
def test_a_refused_number_is_echoed_with_what_a_terminal_would_act_on_escaped(
        option: str, value: str, shown: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: the refusal echoed the value as typed, an escape sequence (clear the screen,
    # ring the bell, turn the line right to left) reaching the terminal as it was.
    with pytest.raises(SystemExit) as ended:
        main(["demo", "--plain", option, value])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: {shown}: not a " in err, err
    assert not any(c in err for c in "\x1b\x07\u202e")


def test_a_recall_count_past_sqlite_integers_is_a_usage_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["recall", "--config", "c.toml", "9" * 23])
    assert ended.value.code == 2
    assert "argument N: 99999" in capsys.readouterr().err


def test_a_number_in_range_still_goes_through(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["equity", "--variant", "holdem", "AhAd", "KsKc", "--seed", "7",
                 "--precision", "5"]) == 0
    assert "AhAd" in capsys.readouterr().out


LONG = "/tmp/" + "A" * 5000


@pytest.mark.parametrize("argv", [
    ["phh", "replay", LONG],
    ["camera", "enrol", "--deck-id", "x", "--out", LONG, "a.jpg"],
], ids=["phh replay", "camera enrol --out"])
def test_a_path_the_system_refuses_is_one_short_line(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # Before: each ended in OSError's traceback (File name too long), echoing the path whole.
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "File name too long" in err, err[:300]
    assert "/tmp/AAAA" in err and " characters)" in err and len(err) < 300, err[:300]


def test_a_value_pasted_by_mistake_is_named_not_echoed(
        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: the usage error echoed all 100,000 characters of it.
    with pytest.raises(SystemExit) as ended:
        main(["equity", "--variant", "A" * 100_000, "AhAd", "KsKc"])
    assert ended.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "characters)" in err and len(err) < 400, err[:300]
