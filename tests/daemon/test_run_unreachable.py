"""``tablectl run`` with its broker down and its shoe missing, as a process: each is a WARNING
once (the serial path named once), the retries that follow only DEBUG lines, not a line every
few seconds; SIGTERM stops it with a "stopped" line and exit 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from firmware_bridge.outage import DEBUG, WARNING, Outage
from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
RETRIES = 2
"""retries of each (logged at DEBUG) the test waits for before stopping the daemon"""


def retried(text: str, what: str) -> int:
    return sum(1 for line in text.splitlines() if what in line and " DEBUG " in line)


def test_unreachable_broker_and_shoe_warn_once_and_sigterm_stops_cleanly(
        tmp_path: Path) -> None:
    shoe = tmp_path / "no-such-shoe"
    config = tmp_path / "table.toml"
    config.write_text(f"""
deck = "{ROOT}/config/decks/demo-red.csv"
[table]
id = "t9"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 1
big_blind = 2
[[seats]]
number = 1
name = "A"
stack = 100
[[seats]]
number = 2
name = "B"
stack = 100
[[sources]]
kind = "rfid-shoe"
name = "shoe"
url = "{shoe}"
[access.roles]
dealer-t9 = "dealer"
[mqtt]
url = "mqtt://127.0.0.1:{free_port()}"
[journal]
path = "{tmp_path}/journal.sqlite"
""")
    log = tmp_path / "daemon.log"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "tablectl", "--log-level", "debug",
                                 "run", "--config", str(config)], stderr=err, env={**os.environ})
        try:
            deadline = time.monotonic() + 60
            while "running" not in log.read_text() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert "running" in log.read_text(), log.read_text()
            while time.monotonic() < deadline and min(
                    retried(log.read_text(), w) for w in ("cannot connect to", "cannot open")
            ) < RETRIES:
                time.sleep(0.1)
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    text = log.read_text()
    lines = [line for line in text.splitlines() if " DEBUG " not in line]
    assert retried(text, "cannot connect to") >= RETRIES, text
    assert retried(text, "cannot open") >= RETRIES, text
    broker = [line for line in lines if "cannot connect to" in line]
    device = [line for line in lines if "cannot open" in line]
    assert len(broker) == 1 and " WARNING " in broker[0], lines
    assert len(device) == 1 and " WARNING " in device[0], lines
    assert device[0].count(str(shoe)) == 1, device[0]
    assert device[0].endswith(f"shoe: cannot open {shoe}: No such file or directory")
    assert code == 0, lines
    assert lines[-1].endswith("table t9: stopped (SIGTERM)"), lines


def test_an_outage_is_warned_of_again_at_growing_intervals() -> None:
    outage = Outage(first_interval=60, max_interval=300)
    warned = [t for t in range(0, 1800, 5) if outage.failed(float(t), "down")[0] == WARNING]
    # once at once, then after 1, 2, 4 minutes, then every 5 (the cap)
    assert warned == [0, 60, 180, 420, 720, 1020, 1320, 1620]
    assert outage.failed(1625.0, "down") == (DEBUG, "down")
    assert outage.recovered(1630.0) == "back after 27 min 10 s"
    assert outage.failed(1700.0, "down again") == (WARNING, "down again")  # a new outage
