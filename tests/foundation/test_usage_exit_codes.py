"""Bad usage is exit 2 with one line, in every command line of the project (tablectl,
hardware_sim, firmware_bridge), never 0 or 1 and never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = str(ROOT / "config" / "scenarios" / "clean-holdem-nl.toml")

CASES = [
    ("tablectl", "bogus"),
    ("tablectl", "watch"),
    ("tablectl", "watch", "--table", "t", "--broker", "mqtt://127.0.0.1:1", "--hands", "0"),
    ("tablectl", "watch", "--table", "t", "--broker", "http://x"),
    ("tablectl", "demo", "--hands", "0"),
    ("tablectl", "recall", "--config", "no-such.toml"),
    ("tablectl", "phh", "replay"),
    ("tablectl", "deck", "verify", "no-such.csv", "--device", "/dev/null"),
    ("hardware_sim", "bogus"),
    ("hardware_sim", "play", SCENARIO, "--hands", "0"),
    ("hardware_sim", "play", SCENARIO, "--broker", "mqtt://127.0.0.1:1"),
    ("hardware_sim", "play", "no-such.toml"),
    ("hardware_sim", "serve", "shoe", "--pty", "/tmp/unused-pty"),
    ("firmware_bridge", "bogus"),
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c[:4]) for c in CASES])
def test_bad_usage_is_exit_2(argv: tuple[str, ...]) -> None:
    out = subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True,
                         timeout=60, check=False, stdin=subprocess.DEVNULL)
    assert out.returncode == 2, (out.returncode, out.stdout[-500:], out.stderr[-500:])
    assert "Traceback" not in out.stderr + out.stdout
