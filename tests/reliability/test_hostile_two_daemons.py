"""Two table computers configured alike, each with its own journal (issue 25, item 12), on a
real mosquitto: the second ``tablectl run`` refuses to start (exit 2, one line naming the
first's journal) and the first stays online; a retained ``online`` of the daemon's own
journal (a crash left it) does not stop it."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.conftest import Broker
from tests.reliability.harness import ROOT, DaemonProcess
from tests.reliability.test_hostile_mqtt import Client, hostile_config


def journal_id(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()
    finally:
        conn.close()
    return f"{int(row[0]):016x}"


def run_second(config: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "tablectl", "run", "--config", str(config)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=60,
                          check=False)


def test_a_second_daemon_for_the_same_table_refuses_to_start(tmp_path: Path,
                                                            mosquitto: Broker) -> None:
    first = DaemonProcess(hostile_config(tmp_path / "a", mosquitto), tmp_path / "a.log")
    watcher = Client(mosquitto, "watcher")
    first.start()
    try:
        assert watcher.wait(lambda c: any(s.get("state") == "online" for s in c.status)), \
            first.log_tail()
        first_id = journal_id(tmp_path / "a" / "journal.sqlite")
        done = run_second(hostile_config(tmp_path / "b", mosquitto))
        assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
        # beside the daemon's INFO log lines, the refusal: one line
        lines = [line for line in done.stderr.splitlines()
                 if line.strip() and not re.match(r"^\d\d:\d\d:\d\d (INFO|DEBUG) ", line)]
        assert len(lines) == 1, done.stderr
        assert first_id in lines[0] and "another id" in lines[0], lines
        assert "Traceback" not in done.stderr
        # the first daemon is online still, under its own journal, and serves commands
        assert first.alive
        with watcher.cond:
            watcher.status.clear()
        dealer = Client(mosquitto, "dealer-hx")
        try:
            assert dealer.command("start_hand")["status"] == "ok"
            assert dealer.wait(lambda c: bool(c.status))
            with dealer.cond:
                latest = dealer.status[-1]
            assert latest["state"] == "online" and latest["journal"] == first_id, latest
        finally:
            dealer.close()
        assert first.alive
    finally:
        watcher.close()
        first.stop()


def test_its_own_journal_left_online_by_a_crash_is_fine(tmp_path: Path,
                                                        mosquitto: Broker) -> None:
    config = hostile_config(tmp_path / "a", mosquitto)
    daemon = DaemonProcess(config, tmp_path / "a.log")
    watcher = Client(mosquitto, "watcher")
    try:
        daemon.start()
        assert watcher.wait(lambda c: any(s.get("state") == "online" for s in c.status))
        daemon.stop()
        own = journal_id(tmp_path / "a" / "journal.sqlite")
        # what a power cut leaves: the retained status still says online, same journal
        watcher.client.publish("poker/v1/tables/hx/status", json.dumps({
            "v": 1, "table": "hx", "state": "online", "version": "0", "journal": own,
            "epoch": 1}), qos=1, retain=True).wait_for_publish(10)
        with watcher.cond:
            watcher.status.clear()
        daemon.start()
        assert watcher.wait(lambda c: any(s.get("state") == "online" and s.get("epoch") == 2
                                          for s in c.status)), daemon.log_tail()
        assert daemon.alive
    finally:
        watcher.close()
        daemon.stop()
