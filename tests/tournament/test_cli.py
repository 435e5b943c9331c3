"""``tablectl tournament ...`` end to end: real PostgreSQL, real mosquitto, the commands run
in this process; bad input is one line and exit 2."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tests.conftest import Broker
from tests.tournament.conftest import SMALL
from tests.tournament.test_structure import CONFIG


class Run:
    """One ``tablectl`` command run in this process."""

    def __init__(self, args: Sequence[str], capsys: pytest.CaptureFixture[str]) -> None:
        try:
            self.returncode = main(list(args))
        except SystemExit as exc:        # argparse's usage errors
            self.returncode = exc.code if isinstance(exc.code, int) else 1
        out = capsys.readouterr()
        self.stdout, self.stderr = out.out, out.err


def retained(broker: Broker, topic: str) -> dict[str, object]:
    """The retained message on ``topic``, read by a client of its own."""

    async def read() -> dict[str, object]:
        settings = MqttSettings(host=broker.host, port=broker.port, client_id="test-reader",
                                session_expiry=0)
        async with MqttPublisher(settings) as client:
            await client.subscribe(topic)
            async with asyncio.timeout(10):
                async for msg in client.messages():
                    return dict(json.loads(msg.payload))
        raise AssertionError("no retained message")

    return asyncio.run(read())


def test_a_tournament_from_the_command_line(pg_url: str, mosquitto: Broker, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    structure = tmp_path / "small.toml"
    structure.write_text(SMALL)
    db = ["--db", pg_url]
    pub = [*db, "--broker", mosquitto.url]
    topic = "poker/v1/tournaments/t1/clock"

    def ok(*args: str) -> str:
        out = Run(["tournament", *args], capsys)
        assert out.returncode == 0, out.stderr
        return out.stdout

    assert "small.toml" not in ok("check", str(structure))
    assert "created" in ok("create", "t1", *db, "--structure", str(structure))
    for name in ("ann", "bob", "cat"):
        ok("register", "t1", name, *pub)
    line = ok("start", "t1", *pub)
    assert line.startswith("t1: running, level 1 50/100, ") and "3 players left" in line
    status = retained(mosquitto, topic)
    assert status["players_left"] == 3 and status["clock"]["level"] == 1  # type: ignore[index]
    ok("pause", "t1", *pub)
    ok("add-time", "t1", "5:00", *pub)
    ok("remove-time", "t1", "1:30", *pub)
    ok("add-time", "t1", *pub, "--", "-0:30")
    status = retained(mosquitto, topic)
    clock = status["clock"]
    assert isinstance(clock, dict) and clock["phase"] == "paused"
    assert 779 <= clock["time_left"] <= 780                       # 10:00 + 5:00 - 2:00 - run
    ok("level", "t1", "2", *pub)
    ok("resume", "t1", *pub)
    clock = retained(mosquitto, topic)["clock"]
    assert isinstance(clock, dict) and clock["level"] == 2 and clock["ante"] == 200
    assert clock["next"]["label"] == "break 5 min (chip-up 25)"
    ok("bust", "t1", "bob", "--start-chips", "3000", "--hand", "t1#9", *pub)
    ok("bust", "t1", "cat", "--start-chips", "9000", "--hand", "t1#9", *pub)
    final = retained(mosquitto, topic)
    assert final["players_left"] == 1 and final["clock"]["phase"] == "finished"  # type: ignore[index]
    body = json.loads(ok("status", "t1", *db, "--json"))
    assert [(p["place"], p["player"]) for p in body["ranking"]] == [
        (1, "ann"), (2, "cat"), (3, "bob")]
    text = ok("status", "t1", *db)
    assert "finished" in text and "2. cat" in text and "3. bob" in text


def test_bad_input_is_one_line_and_exit_2(pg_url: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    structure = tmp_path / "small.toml"
    structure.write_text(SMALL)
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace("big_blind = 200", "big_blind = 80"))
    db = ["--db", pg_url]
    assert Run(["tournament", "create", "t1", *db, "--structure", str(structure)],
               capsys).returncode == 0
    for args, problem in [
            (("create", "t2", *db, "--structure", str(bad)),
             "level 2: the small blind (100) is above the big blind (80)"),
            (("check", str(tmp_path / "none.toml")), "cannot read"),
            (("create", "t1", *db, "--structure", str(structure)), "exists already"),
            (("create", "T/1", *db, "--structure", str(structure)), "a tournament id is"),
            (("pause", "t1", *db), "cannot pause: the clock has not started"),
            (("level", "t1", "9", *db), "there is no level 9"),
            (("level", "t1", "x", *db), "expected a level"),
            (("add-time", "t1", "soon", *db), "expected a time such as 5:00"),
            (("start", "nope", *db), "there is no tournament 'nope'"),
            (("bust", "t1", "zed", "--start-chips", "5", *db), "zed is not registered"),
            (("bust", "t1", "zed", "--start-chips", "-5", *db), "expected chips"),
            (("register", "t1", "ann", "--table", "1", *db), "give both a table and a seat"),
            (("status", "t1", "--db", "mysql://x"), "postgresql://"),
            (("start", "t1", *db, "--broker", "http://x"), "mqtt://"),
            (("balance", "t1", *db, "--button", "3"), "TABLE:SEAT"),
            (("run", "t1", *db), "needs --broker"),
            (("status", "t1"), "--db postgresql://")]:
        out = Run(["tournament", *args], capsys)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert problem in out.stderr and "Traceback" not in out.stderr, (args, out.stderr)
        if "usage:" not in out.stderr:                          # argparse adds its usage
            assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    down = Run(["tournament", "status", "t1", "--db", "postgresql://postgres@127.0.0.1:1/x"],
               capsys)
    assert down.returncode == 1 and "database unavailable" in down.stderr


def test_a_broker_away_after_the_store_says_so(pg_url: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import free_port

    structure = tmp_path / "small.toml"
    structure.write_text(SMALL)
    db = ["--db", pg_url]
    Run(["tournament", "create", "t1", *db, "--structure", str(structure)], capsys)
    out = Run(["tournament", "start", "t1", *db, "--broker",
               f"mqtt://127.0.0.1:{free_port()}"], capsys)
    assert out.returncode == 1
    assert "stored, but the status was not published" in out.stderr
    assert out.stdout.startswith("t1: running")                  # it did start
    assert Run(["tournament", "pause", "t1", *db], capsys).returncode == 0


def test_the_default_structure_checks(capsys: pytest.CaptureFixture[str]) -> None:
    out = Run(["tournament", "check", str(CONFIG)], capsys)
    assert out.returncode == 0 and "20 levels" in out.stdout


def test_run_keeps_the_retained_status_true(pg_url: str, mosquitto: Broker, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """``tournament run`` (a process of its own) publishes each new level as the clock
    reaches it, with nobody typing; SIGTERM stops it with exit 0."""
    import signal
    import subprocess
    import sys

    fast = tmp_path / "fast.toml"
    fast.write_text("starting_stack = 1000\n" + "".join(
        f"[[level]]\nsmall_blind = {i}\nbig_blind = {2 * i}\nseconds = 1\n"
        for i in range(1, 40)))
    db = ["--db", pg_url]
    assert Run(["tournament", "create", "fast", *db, "--structure", str(fast)],
               capsys).returncode == 0
    assert Run(["tournament", "start", "fast", *db], capsys).returncode == 0
    proc = subprocess.Popen([sys.executable, "-m", "tablectl", "tournament", "run", "fast",
                             *db, "--broker", mosquitto.url, "--refresh", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        levels: list[int] = []

        async def follow() -> None:
            settings = MqttSettings(host=mosquitto.host, port=mosquitto.port,
                                    client_id="test-follower", session_expiry=0)
            async with MqttPublisher(settings) as client:
                await client.subscribe("poker/v1/tournaments/fast/clock")
                async with asyncio.timeout(60):
                    async for msg in client.messages():
                        levels.append(int(json.loads(msg.payload)["clock"]["level"]))
                        if len(set(levels)) >= 3:
                            return

        asyncio.run(follow())
        assert levels == sorted(levels) and len(set(levels)) >= 3
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err


def test_a_one_shot_command_with_the_services_credentials_takes_its_own_client_id(
        tmp_path: Path) -> None:
    """The service's client id is its username; a director's one-shot command given the same
    credentials must not take it (the broker would knock the running service off)."""
    import argparse

    from tablectl.tournament.command import _publisher

    creds = tmp_path / "creds.toml"
    creds.write_text('username = "tournament-daily"\npassword = "pw"\n')
    args = argparse.Namespace(broker="mqtt://127.0.0.1:1", credentials=str(creds), cafile=None)
    ids = set()
    for _ in range(2):
        publisher = _publisher(args, "daily")
        assert publisher is not None
        settings = publisher._settings
        assert settings.username == "tournament-daily" and settings.password == "pw"
        ids.add(settings.client_id)
    assert "tournament-daily" not in ids and len(ids) == 2, ids


def test_the_floor_breaks_a_table_from_the_command_line(
        pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    structure = tmp_path / "small.toml"
    structure.write_text(SMALL)
    db = ["--db", pg_url]
    assert Run(["tournament", "create", "t1", *db, "--structure", str(structure)],
               capsys).returncode == 0
    # nine players at three tables of six: the rules would break table 3; the floor breaks 1
    for n, (table, seat) in enumerate((t, s) for t in (1, 2, 3) for s in (1, 2, 3)):
        assert Run(["tournament", "register", "t1", f"p{n}", *db, "--table", str(table),
                    "--seat", str(seat)], capsys).returncode == 0
    said = Run(["tournament", "balance", "t1", *db, "--break", "1"], capsys)
    assert said.returncode == 0, said.stderr
    assert "break: p0 to move from table 1 seat 1 to table 2 seat 4" in said.stdout
    assert "table 1 breaks" in said.stdout and "table 3 breaks" not in said.stdout
    applied = Run(["tournament", "balance", "t1", *db, "--break", "1", "--apply"], capsys)
    assert applied.returncode == 0 and "p1 moved from table 1 seat 2" in applied.stdout
    body = json.loads(Run(["tournament", "status", "t1", *db, "--json"], capsys).stdout)
    seated = {t: seats for t, seats in body["seating"].items() if seats}
    assert sorted(seated) == ["2", "3"] and sum(map(len, seated.values())) == 9, seated
    refused = Run(["tournament", "balance", "t1", *db, "--break", "1"], capsys)
    assert refused.returncode == 2 and "table 1 has no players" in refused.stderr
