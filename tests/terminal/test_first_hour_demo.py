"""The demo and the terminal view as a newcomer meets them: ``demo --odds`` turns live odds on
(what the broadcast overlay shows), the engine-only demo prints money as the live demo does,
and a folded seat shows no card backs."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
import uuid

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from rich.console import Console

from tablectl.cli import main
from tablectl.terminal.view import TableView, render
from tests.conftest import Broker


class Odds:
    """A paho subscriber to one table's live odds (the overlay's feed)."""

    def __init__(self, broker: Broker, table: str) -> None:
        self.got: list[dict[str, object]] = []
        self.cond = threading.Condition()
        self.subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=f"odds-{uuid.uuid4().hex[:6]}")
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *_: self.subscribed.set()
        self.client.connect(broker.host, broker.port)
        self.client.subscribe(f"secure/v1/tables/{table}/odds", qos=1)
        self.client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.got.append(json.loads(msg.payload))
            self.cond.notify_all()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_demo_odds_publishes_live_odds_for_the_overlay(mosquitto: Broker) -> None:
    """The demo plays until odds come (its odds worker starts in a process of its own, maybe
    after the first hands on a loaded machine), then is stopped as ^C stops it."""
    odds = Odds(mosquitto, "o1")
    demo = subprocess.Popen([sys.executable, "-m", "tablectl", "demo", "--odds", "--seed", "3",
                             "--broker", mosquitto.url, "--table", "o1", "--plain",
                             "--pace", "0.01"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert odds.subscribed.wait(20)
        with odds.cond:
            came = odds.cond.wait_for(lambda: bool(odds.got) or demo.poll() is not None, 90)
        assert came and odds.got, demo.poll()
    finally:
        odds.close()
        demo.send_signal(signal.SIGTERM)
        _out, err = demo.communicate(timeout=60)
    assert demo.returncode == 130, err[-2000:]
    assert {(o.get("table"), o.get("type")) for o in odds.got} == {("o1", "odds")}
    assert all(isinstance(o["data"]["players"], list) for o in odds.got), odds.got


def test_demo_odds_goes_with_the_live_demo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--engine-only", "--odds"]) == 2
    assert "--odds goes with the live demo" in capsys.readouterr().err


def test_the_engine_only_demo_prints_money_as_the_live_demo(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The live demo's table counts cents and prints ``seat 3 wins 4.00``: so does the
    engine-only demo (it printed chip units, ``seat 5 wins 800``)."""
    for variant in ("holdem:no-limit", "razz"):
        assert main(["demo", "--engine-only", "--hands", "3", "--variant", variant]) == 0
        out = capsys.readouterr().out
        wins = re.findall(r"wins (\S+) from", out)
        assert len(wins) >= 3, out
        assert all(re.fullmatch(r"[\d,]+\.\d\d", amount) for amount in wins), wins
        bets = re.findall(r"(?:bet|raise|complete) (\S+?)[,;]", out)
        assert all(re.fullmatch(r"[\d,]+\.\d\d", amount) for amount in bets), bets


def test_a_folded_seat_shows_no_card_backs() -> None:
    """The public snapshot still lists a folded seat's hidden cards; the view shows none."""
    hidden = [{"card": None, "up": False}] * 2
    snap = {"game": {"label": "No-Limit Hold'em"}, "hand": {"id": "t1-000001"},
            "phase": "betting", "street": "preflop", "stakes": {"units_per_currency": 100},
            "seats": [{"seat": 1, "name": "Ada", "stack": 9800, "bet": 200,
                       "status": "active", "cards": hidden},
                      {"seat": 2, "name": "Brook", "stack": 9900, "bet": 100,
                       "status": "folded", "cards": hidden}],
            "board": [], "pots": []}
    console = Console(record=True, width=100, color_system=None)
    console.print(render(TableView(snapshot=snap)))
    rows = {name: line for line in console.export_text().splitlines()
            for name in ("Ada", "Brook") if name in line}
    assert "## ##" in rows["Ada"]
    assert "folded" in rows["Brook"] and "#" not in rows["Brook"], rows["Brook"]
