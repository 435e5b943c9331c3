"""The README's main command and the terminal display, as a user runs them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import Broker

LINE = re.compile(r"^hand (\S+): board (.+); seat \d+ wins [\d.,]+")


def _run_demo(*extra: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablectl", "demo", *extra],
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, "COLUMNS": "120"})


def test_demo_plays_bounded_hands_and_exits_0() -> None:
    out = _run_demo("--hands", "2", "--seed", "4", "--variant", "FO/8", "--plain")
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [line for line in out.stdout.splitlines() if line.startswith("hand ")]
    assert len(lines) == 2, out.stdout
    assert all(LINE.match(line) for line in lines), lines
    assert "2 hands of FO/8 played" in out.stdout
    assert "Traceback" not in out.stderr


def test_demo_rejects_an_unknown_variant() -> None:
    out = _run_demo("--variant", "badugi", "--hands", "1")
    assert out.returncode == 2
    assert "unknown variant 'badugi'" in out.stderr
    assert "Traceback" not in out.stderr


def test_watch_sees_what_the_demo_publishes(mosquitto: Broker) -> None:
    watch = subprocess.Popen(
        [sys.executable, "-m", "tablectl", "watch", "--broker", mosquitto.url,
         "--table", "w1", "--hands", "2", "--plain"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.0)  # let the watcher subscribe (it would also catch up from the snapshot)
        demo = _run_demo("--hands", "2", "--seed", "9", "--variant", "stud:fixed-limit",
                         "--broker", mosquitto.url, "--table", "w1", "--plain")
        assert demo.returncode == 0, demo.stderr[-2000:]
        got, err = watch.communicate(timeout=30)
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.communicate(timeout=10)
    demo_lines = [line for line in demo.stdout.splitlines() if line.startswith("hand ")]
    watch_lines = [line for line in got.splitlines() if line.startswith("hand ")]
    assert watch.returncode == 0, err[-2000:]
    assert watch_lines == demo_lines and len(demo_lines) == 2


def test_a_floor_worker_with_the_default_user_may_replay_from_the_demo(tmp_path: Path) -> None:
    """``tablectl floor run`` pointed at a demo's broker asks the table to replay what it
    missed; without a role there it was refused every 3 s and recorded no hand at all."""
    from tablectl.demo import demo_config, demo_scenario
    from tablectl.floor.service import FloorSettings

    config = demo_config(demo_scenario("holdem:no-limit"), table="demo",
                         broker="mqtt://127.0.0.1:1", workdir=tmp_path)
    assert FloorSettings().user in config.access.roles
