"""``tablectl equity``: one JSON object with the figures, clear errors with exit 2."""

from __future__ import annotations

import json

import pytest

from tablectl.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["equity", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_figures_on_the_turn(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "--variant", "holdem", "--board", "2c 7d 9h Qc", "AsAh",
                          "Ks Kh", "--json")
    assert code == 0 and not err
    doc = json.loads(out)
    assert doc["exact"] is True and doc["runouts"] == 44 and doc["board"] == ["2c", "7d", "9h",
                                                                            "Qc"]
    aces, kings = doc["hands"]
    assert aces["hand"] == "AsAh" and kings["hand"] == "KsKh"
    assert aces["equity"] == pytest.approx(42 / 44, abs=1e-4)
    assert kings["outs"] == ["Kc", "Kd"] and kings["win"] == pytest.approx(2 / 44, abs=1e-4)
    assert "high" not in aces and "error" not in aces


def test_hi_lo_and_dead_cards(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--variant", "omaha-hi-lo", "--board", "2c 7d 9h", "As2sKdQd", "3c4cJhJd", "--json"]
    live = json.loads(_run(capsys, *args)[1])
    dead = json.loads(_run(capsys, *args, "--dead", "3d 4d 5c 5d")[1])
    for doc in (live, dead):
        assert sum(h["high"] for h in doc["hands"]) == pytest.approx(1, abs=1e-3)
        assert sum(h["low"] for h in doc["hands"]) + doc["no_low"] == pytest.approx(1, abs=1e-3)
        assert all(h["scoop"] == h["win"] for h in doc["hands"])
    assert dead["runouts"] < live["runouts"]
    assert dead["no_low"] > live["no_low"]        # low cards dead: fewer lows come


def test_monte_carlo_reports_its_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--variant", "razz", "As2s3d", "4c5c6h", "7d8d9s", "--json",
                        "--precision", "1")
    doc = json.loads(out)
    assert code == 0 and doc["exact"] is False and doc["precision"] == 0.01
    assert all(1.96 * h["error"] <= 0.01 for h in doc["hands"])


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--variant", "stud-hi-lo", "As2s3d4c5c", "KhKdKcQsQd")
    assert code == 0
    assert out.splitlines()[0].split() == ["hand", "win", "tie", "equity", "high", "low",
                                           "scoop"]
    assert out.splitlines()[-1].startswith("exact, ")


@pytest.mark.parametrize(("argv", "message"), [
    (["--variant", "holdem", "AsAh", "AsKd"], "card As is given twice"),
    (["--variant", "holdem", "--dead", "Kd", "AsAh", "KsKd"], "card Kd is given twice"),
    (["--variant", "holdem", "AsAx", "KsKd"], "hand 1: not a card"),
    (["--variant", "holdem", "--board", "2c 7x", "AsAh", "KsKd"], "--board: not a card"),
    (["--variant", "holdem", "AsAhQd", "KsKd"], "hand 1 has 3 cards; holdem deals 2"),
    (["--variant", "omaha", "AsAhQdQc", "KsKd"], "hand 2 has 2 cards; omaha deals 4"),
    (["--variant", "holdem", "--board", "2c 7d", "AsAh", "KsKd"], "a board has 0, 3, 4 or 5"),
    (["--variant", "stud", "AsAhQd", "KsKdKh2c"], "the same number of cards"),
    (["--variant", "razz", "AsAh", "KsKd"], "a razz hand has 3 to 7"),
    (["--variant", "stud", "--board", "2c", "AsAhQd", "KsKdKh"], "has no board"),
    (["--variant", "holdem", "AsAh"], "at least two hands"),
    (["--variant", "holdem", "--precision", "0", "AsAh", "KsKd"], "--precision must be"),
])
def test_bad_input_is_refused_with_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                          message: str) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 2 and not out
    assert err.startswith("tablectl equity: ") and message in err
    assert len(err.strip().splitlines()) == 1


def test_unknown_variant_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["equity", "--variant", "badugi", "AsAh", "KsKd"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
