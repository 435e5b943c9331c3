"""Bad usage is exit 2 with one line, in every command line of the project (tablectl,
hardware_sim, firmware_bridge), never 0 or 1 and never a traceback.

Each command line's ``main`` runs in this process (a process per case cost two seconds of
imports each); one case goes through ``python -m`` to show the entry point passes the code on.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = str(ROOT / "config" / "scenarios" / "clean-holdem-nl.toml")

MAINS = {"tablectl": "tablectl.cli", "hardware_sim": "hardware_sim.__main__",
         "firmware_bridge": "firmware_bridge.__main__"}

CASES = [
    ("tablectl", "bogus"),
    ("tablectl", "watch"),
    ("tablectl", "watch", "--table", "t", "--broker", "mqtt://127.0.0.1:1", "--hands", "0"),
    ("tablectl", "watch", "--table", "t", "--broker", "http://x"),
    ("tablectl", "watch", "--table", "t", "--broker", "mqtt://127.0.0.1:1", "--timeout", "0"),
    ("tablectl", "watch", "--table", "t", "--broker", "mqtt://127.0.0.1:1", "--timeout", "-1"),
    ("tablectl", "demo", "--hands", "0"),
    ("tablectl", "demo", "--rules", "island"),       # live: the scenario's rules, not these
    ("tablectl", "watch", "--table", "bad id!", "--broker", "mqtt://127.0.0.1:1",
     "--timeout", "1"),
    ("tablectl", "recall", "--config", "no-such.toml"),
    ("tablectl", "phh", "replay"),
    ("tablectl", "phh", "replay", "no-such.phh"),
    ("tablectl", "deck", "verify", "no-such.csv", "--device", "/dev/null"),
    ("hardware_sim", "bogus"),
    ("hardware_sim", "play", SCENARIO, "--hands", "0"),
    ("hardware_sim", "play", SCENARIO, "--broker", "mqtt://127.0.0.1:1"),
    ("hardware_sim", "play", "no-such.toml"),
    ("hardware_sim", "serve", "shoe", "--pty", "/tmp/unused-pty"),
    ("firmware_bridge", "bogus"),
]


def exit_code(main: Callable[[Sequence[str]], int], argv: Sequence[str]) -> int:
    """What ``main(argv)`` exits with, as ``sys.exit(main())`` would (argparse raises)."""
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 1


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c[:4]) for c in CASES])
def test_bad_usage_is_exit_2(argv: tuple[str, ...], capfd: pytest.CaptureFixture[str]) -> None:
    main = importlib.import_module(MAINS[argv[0]]).main
    code = exit_code(main, argv[1:])
    out, err = capfd.readouterr()
    assert code == 2, (code, out[-500:], err[-500:])
    assert (out + err).strip(), "says nothing"


def test_the_command_line_entry_passes_the_code_on() -> None:
    out = subprocess.run([sys.executable, "-m", "tablectl", "bogus"], capture_output=True,
                         text=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
    assert out.returncode == 2, (out.stdout[-500:], out.stderr[-500:])
    assert "Traceback" not in out.stderr + out.stdout
