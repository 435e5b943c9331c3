"""The demo keeps its word: ``tablectl demo --hands 20 --seed 7`` plays 20 hands of every
variant it offers (broke players rebuy, shown as a line of its own), and when it cannot play
what was asked it says why in one line and exits 1."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tablectl.demo import DEMO_VARIANTS
from tests.conftest import Broker, free_port

HANDS = 20


def _demo(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablectl", "demo", *args],
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, "COLUMNS": "120"})


@pytest.mark.slow
@pytest.mark.soak
@pytest.mark.timeout(400)
def test_twenty_hands_of_every_variant(mosquitto: Broker) -> None:
    # one broker, one table per variant, four at a time (each waits on its round trips more
    # than it computes, but twelve at once starve the test running beside this one on a
    # 2-core machine); --pace 0 deals as fast as the daemon acknowledges the reads (the hands
    # are the same at any pace)
    def play(i_variant: tuple[int, str]) -> tuple[str, subprocess.CompletedProcess[str]]:
        i, variant = i_variant
        return variant, _demo("--hands", str(HANDS), "--seed", "7", "--variant", variant,
                              "--broker", mosquitto.url, "--table", f"v{i}", "--pace", "0",
                              "--plain")

    with ThreadPoolExecutor(4) as pool:
        runs = dict(pool.map(play, enumerate(DEMO_VARIANTS)))
    rebuys = 0
    for variant, out in runs.items():
        assert out.returncode == 0, (variant, out.stderr[-1500:])
        lines = out.stdout.splitlines()
        hands = [line for line in lines if line.startswith("hand ")]
        assert len(hands) == HANDS, (variant, out.stdout)
        assert f"{HANDS} hands of {variant} played" in out.stdout
        rebuys += sum(" rebuys " in line for line in lines)
        assert "Traceback" not in out.stderr
    assert rebuys > 0    # without them the no-limit games go broke before 20 hands


def test_a_demo_that_cannot_play_says_why() -> None:
    out = _demo("--hands", "2", "--broker", f"mqtt://127.0.0.1:{free_port()}", "--plain",
                "--pace", "0", timeout=120)
    assert out.returncode == 1
    reason = [line for line in out.stderr.splitlines() if "after 0 hands" in line]
    assert len(reason) == 1, out.stderr
    assert "not connected to 127.0.0.1" in reason[0]
    assert "Traceback" not in out.stderr
