"""The simulator's own numbers are bounded before use (``tablectl.domain.numbers``).

Before, each was taken as typed: a NaN or infinite pace, wait or auto interval, a seed of
any size or in another script's digits (``"٣"`` as 3), a table of no seat antennas, a port
past 65535 handed to the socket. Each is now argparse's usage line naming the option and its
range, exit 2, before anything runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware_sim.__main__ import main
from tests.usage import assert_number_refused

SCENARIO = str(Path(__file__).resolve().parents[2] / "config/scenarios/clean-holdem-fl.toml")
PLAY = ["play", SCENARIO]
SERVE = ["serve", "table", "--tcp", "127.0.0.1:0"]

CASES: list[tuple[list[str], str, str]] = [
    (PLAY, "--pace", "nan"),
    (PLAY, "--pace", "-1"),
    (PLAY, "--wait", "inf"),
    (PLAY, "--wait", "0"),
    (PLAY, "--seed", "\u0663"),
    (PLAY, "--seed", "-1"),
    (PLAY, "--seed", "9" * 30),
    (PLAY, "--hands", "0"),
    (PLAY, "--hands", "1_000"),
    (PLAY, "--tcp-base", "70000"),
    (SERVE, "--auto", "nan"),
    (SERVE, "--auto", "0"),
    (SERVE, "--seats", "0"),
    (SERVE, "--seats", "11"),
    (SERVE, "--seed", " 7 "),
]


@pytest.mark.parametrize(("argv", "option", "value"), CASES,
                         ids=[f"{c[0][0]} {c[1]} {c[2][:8]}" for c in CASES])
def test_a_number_out_of_range_is_a_usage_error_before_anything_runs(
        argv: list[str], option: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert_number_refused(main, argv, option, value, capsys)


def test_numbers_in_range_still_go_through() -> None:
    """The parser takes what a person types (the defaults' neighbours)."""
    from hardware_sim.__main__ import build_parser

    args = build_parser().parse_args(
        [*PLAY, "--pace", "0.05", "--seed", "7", "--hands", "3", "--tcp-base", "0"])
    assert (args.pace, args.seed, args.hands, args.tcp_base) == (0.05, 7, 3, 0)
    args = build_parser().parse_args([*SERVE, "--auto", "0.5", "--seats", "10"])
    assert (args.auto, args.seats) == (0.5, 10)
