"""``tablectl watch --check``: the display-truth check, sans-IO and as a user runs it against
two demo daemons of the same table id, each with a fresh journal (the reported scenario)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest

from tablectl.publish import topics
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tablectl.publish.runs import Run
from tablectl.terminal.check import DisplayCheck, Shown, differences, watch_check
from tests.conftest import Broker

T = "poker/v1/tables/t01"


def snapshot(journal: str | None, epoch: int, seq: int, **body: Any) -> bytes:
    data = {"hand": {"id": "h", "number": 4}, "phase": "settled", "street": "river",
            "button": 3, "to_act": None, "board": ["2c", "7d", "Jh", "Qs", "3h"],
            "pots": [], "results": [{"seat": 2, "amount": 600}], "errors": [],
            "seats": [{"seat": 1, "name": "Ada", "stack": 900, "bet": 0, "status": "active",
                       "cards": []},
                      {"seat": 2, "name": "Brook", "stack": 1600, "bet": 0,
                       "status": "active", "cards": []}], **body}
    return json.dumps({"v": 1, "table": "t01", "journal": journal, "epoch": epoch,
                       "seq": seq, "type": "snapshot", "ts": "2026-11-29T18:00:00Z",
                       "hand": 4, "data": data}).encode()


def status(state: str, journal: str | None, epoch: int) -> bytes:
    return json.dumps({"v": 1, "table": "t01", "state": state, "version": "0.1.0",
                       "journal": journal, "epoch": epoch}).encode()


def two_tables(first: str | None, second: str | None) -> list[tuple[str, bytes]]:
    new_table = {"hand": {"id": "h", "number": 1}, "phase": "betting", "street": "flop",
                 "button": 1, "to_act": {"seat": 2, "legal": []},
                 "board": ["Ah", "Kd", "5c"], "results": [],
                 "seats": [{"seat": 1, "name": "Ada", "stack": 5000, "bet": 0,
                            "status": "active", "cards": []},
                           {"seat": 2, "name": "Brook", "stack": 4800, "bet": 0,
                            "status": "active", "cards": []}]}
    return [(f"{T}/status", status("online", first, 1)),
            (f"{T}/state", snapshot(first, 1, 91)),
            (f"{T}/status", status("offline", first, 1)),
            (f"{T}/status", status("online", second, 1)),
            (f"{T}/state", snapshot(second, 1, 7, **new_table))]


def test_every_snapshot_of_a_fresh_journal_is_shown() -> None:
    check = DisplayCheck("t01")
    for topic, raw in two_tables("aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"):
        check.feed(topic, raw, now=0.0)
    assert [v.line() for v in check.verdicts] == [
        "ok snapshot aaaaaaaaaaaaaaaa:1 seq 91", "ok snapshot bbbbbbbbbbbbbbbb:1 seq 7"]
    assert check.wrong == 0


def test_the_check_catches_the_reported_bug() -> None:
    """Two daemons without journal ids look like one journal: a follower must take the
    second one's epoch-1 snapshot for an old copy, and the check says how the view is wrong."""
    check = DisplayCheck("t01")
    for topic, raw in two_tables(None, None):
        check.feed(topic, raw, now=0.0)
    last = check.verdicts[-1]
    assert last.wrong and check.wrong == 1
    assert "seq: shows 91, published 7" in last.differences
    assert "hand: shows 4, published 1" in last.differences
    assert "to act: shows nobody, published seat 2" in last.differences
    assert "seat 2 stack: shows 1600, published 4800" in last.differences
    assert 'board: shows ["2c","7d","Jh","Qs","3h"], published ["Ah","Kd","5c"]' \
        in last.differences
    assert last.line().startswith("DIFFERS snapshot -:1 seq 7: ")


def test_a_view_that_says_it_is_not_live_is_not_wrong() -> None:
    raw = json.loads(snapshot("aa", 2, 5))
    shown = Shown(Run("aa", 1), 40, json.loads(snapshot("aa", 1, 40))["data"], not_live=True)
    assert differences(shown, raw)[:2] == ["run: shows aa:1, published aa:2",
                                           "seq: shows 40, published 5"]
    assert differences(Shown(None, None, None), raw) == [
        "run: shows None, published aa:2", "seq: shows None, published 5",
        "shows no table, published one"]


async def test_the_check_stops_when_the_last_hand_ends_after_its_snapshot(
        mosquitto: Broker) -> None:
    """The last hand's ``hand_ended`` may come after the table's last snapshot (a demo or a
    daemon stopping right then): the check stops on it, it does not wait for a snapshot
    that never comes."""
    settings = MqttSettings(host=mosquitto.host, port=mosquitto.port, client_id="check-pub")
    ended = json.dumps({"v": 1, "table": "t01", "journal": "aa", "epoch": 1, "seq": 92,
                        "type": "hand_ended", "ts": "2026-11-29T18:00:00Z", "hand": 4,
                        "data": {"hand": "h"}}).encode()
    lines: list[str] = []
    subscribed = asyncio.Event()

    def emit(line: str) -> None:
        lines.append(line)
        subscribed.set()

    loop = asyncio.get_running_loop()
    checking = asyncio.create_task(watch_check(
        MqttSettings(host=mosquitto.host, port=mosquitto.port, client_id="check-sub"), "t01",
        hands=1, seconds=None, emit=emit, monotonic=loop.time))
    async with asyncio.timeout(30):
        await subscribed.wait()
    async with MqttPublisher(settings) as client:
        await client.publish(topics.status("t01"), status("online", "aa", 1))
        await client.publish(topics.state("t01"), snapshot("aa", 1, 91))
        await client.publish(topics.events("t01"), ended)
    try:
        async with asyncio.timeout(30):      # a bound on a hang, not a measure of speed
            assert await checking == 0
    finally:
        checking.cancel()
    assert lines[1:] == ["ok snapshot aa:1 seq 91", "checked 1 snapshots of table t01: "
                         "no difference"]


def _tablectl(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablectl", *args], capture_output=True,
                          text=True, timeout=timeout, check=False,
                          env={**os.environ, "COLUMNS": "120"})


@pytest.mark.timeout(360)     # four processes and two hands: slow on a loaded 2-core machine
def test_watch_check_across_two_demos_with_fresh_journals(mosquitto: Broker) -> None:
    check = subprocess.Popen(
        [sys.executable, "-m", "tablectl", "watch", "--broker", mosquitto.url, "--table", "d2",
         "--check", "--hands", "2", "--timeout", "150"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert check.stdout is not None
        assert check.stdout.readline() == "checking table d2: the view against every snapshot\n"
        for seed in ("3", "5"):     # the same table id, a fresh journal each time
            demo = _tablectl("demo", "--hands", "1", "--seed", seed, "--broker", mosquitto.url,
                             "--table", "d2", "--plain", timeout=150)
            assert demo.returncode == 0, demo.stderr[-2000:]
        out, err = check.communicate(timeout=60)
    finally:
        if check.poll() is None:
            check.kill()
            check.communicate(timeout=10)
    assert check.returncode == 0, (out[-3000:], err[-2000:])
    lines = out.splitlines()
    assert lines, err[-2000:]
    runs = {m.group(1) for line in lines if (m := re.match(r"ok snapshot (\S+) seq", line))}
    assert len(runs) == 2 and all(r.endswith(":1") for r in runs), runs   # two journals
    assert not [line for line in lines if line.startswith("DIFFERS")]
    assert re.match(r"checked \d+ snapshots of table d2: no difference$", lines[-1])


def test_watch_check_refuses_a_bound_that_is_not_positive() -> None:
    out = _tablectl("watch", "--table", "x", "--check", "--hands", "0", timeout=30)
    assert out.returncode == 2 and "--hands: 0: not a whole number from 1" in out.stderr
    assert "Traceback" not in out.stderr
