"""A tournament table follows the clock (docs/tournament.md, "Tables that follow the clock"):
a real mosquitto, the daemon of tablectl/app.py, the status retained as the service publishes
it. A level that comes mid-hand is played from the next hand, never by the hand in
progress; a hostile status changes nothing; a restarted daemon keeps the level it took."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tablectl.app import run_daemon
from tablectl.config import TableConfig, load_config
from tablectl.daemon import TableDaemon
from tablectl.tournament.structure import Structure
from tests.conftest import Broker
from tests.daemon.helpers import Console, Listener
from tests.daemon.test_end_to_end import write_config
from tests.tournament.conftest import SMALL
from tests.tournament.test_table_level import published

USER = "dealer-e2e"
TOPIC = "poker/v1/tournaments/d1/clock"


def _retain(broker: Broker, payload: bytes) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect(broker.host, broker.port)
    client.loop_start()
    client.publish(TOPIC, payload, qos=1, retain=True).wait_for_publish(10)
    client.disconnect()
    client.loop_stop()


def tournament_config(tmp_path: Path, broker: Broker) -> TableConfig:
    base = write_config(tmp_path, broker, "holdem", "no-limit",
                        {"small_blind": 5, "big_blind": 10}, [5000, 5000, 5000])
    path = tmp_path / "table.toml"
    path.write_text(path.read_text() + '\n[tournament]\nid = "d1"\ntable = 1\n')
    assert base.tournament is None
    return load_config(path)


@contextlib.asynccontextmanager
async def running(config: TableConfig) -> AsyncIterator[TableDaemon]:
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(config, sources=[], ready=ready.set_result))
    try:
        yield await asyncio.wait_for(ready, 20)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def _state(listener: Listener) -> dict[str, Any]:
    state = listener.latest_state()
    assert state is not None
    return state["data"]  # type: ignore[return-value]


def _wait_state(listener: Listener, pred: Any) -> dict[str, Any]:
    def ok(lst: Listener) -> bool:
        state = lst.latest_state()
        return state is not None and bool(pred(state["data"]))
    assert listener.wait_for(ok), f"no such state; last: {listener.latest_state()}"
    return _state(listener)


def _forced(listener: Listener, hands: int) -> list[dict[str, int]]:
    """The forced bets of each of the first ``hands`` hands (waited for)."""
    def by_hand(lst: Listener) -> dict[object, dict[str, int]]:
        bets: dict[object, dict[str, int]] = {}
        for e in lst.events():
            if e.get("type") == "forced_bet":
                data: Any = e["data"]
                bets.setdefault(e.get("hand"), {})[data["kind"]] = data["amount"]
        return bets
    assert listener.wait_for(lambda lst: len(by_hand(lst)) >= hands)
    return list(by_hand(listener).values())


def _level(data: dict[str, Any]) -> int | None:
    level = data.get("tournament", {}).get("level")
    return level["number"] if level else None


async def test_a_level_that_comes_mid_hand_starts_with_the_next_hand(
        tmp_path: Path, mosquitto: Broker) -> None:
    small = Structure.parse(SMALL, "small.toml")
    _retain(mosquitto, published(small, level=1, at=datetime.now(UTC)))
    config = tournament_config(tmp_path, mosquitto)
    listener = Listener(mosquitto.host, mosquitto.port, "e2e")
    console = Console(mosquitto.host, mosquitto.port, "e2e", USER)
    try:
        async with running(config):
            first = await asyncio.to_thread(_wait_state, listener, lambda d: _level(d) == 1)
            assert first["tournament"]["link"] == "following"
            assert (first["stakes"]["small_blind"], first["stakes"]["big_blind"]) == (50, 100)
            assert (first["stakes"]["currency"], first["stakes"]["units_per_currency"]) == (
                "chips", 1)
            reply = await asyncio.to_thread(console.send, "start_hand")
            assert reply["status"] == "ok", reply

            # level 2 arrives mid-hand: known, pending, the hand keeps level 1's blinds
            _retain(mosquitto, published(small, level=2, at=datetime.now(UTC)))
            mid = await asyncio.to_thread(_wait_state, listener, lambda d: _level(d) == 2)
            assert mid["tournament"]["pending"] is True
            assert mid["stakes"]["big_blind"] == 100 and mid["hand"] is not None
            assert _forced(listener, 1) == [{"small_blind": 50, "big_blind": 100}]

            # a hostile status meanwhile: refused, said, nothing changed
            _retain(mosquitto, json.dumps({"schema": 1, "tournament": "d1", "clock": {
                "phase": "running", "level": 3, "small_blind": -5, "big_blind": 10**15,
                "at": datetime.now(UTC).isoformat()}}).encode())
            refused = await asyncio.to_thread(
                _wait_state, listener, lambda d: d["tournament"]["refused"] is not None)
            assert "small_blind must be 1 to 10**12" in refused["tournament"]["refused"]
            assert _level(refused) == 2 and refused["stakes"]["big_blind"] == 100

            # the hand ends: the next one deals level 2 (blinds and the big-blind ante)
            assert (await asyncio.to_thread(console.send, "misdeal"))["status"] == "ok"
            reply = await asyncio.to_thread(console.send, "start_hand")
            assert reply["status"] == "ok", reply
            after = await asyncio.to_thread(
                _wait_state, listener, lambda d: d["hand"] is not None and d["hand"] != mid[
                    "hand"] and d["stakes"]["big_blind"] == 200)
            assert after["tournament"]["pending"] is False
            assert after["stakes"]["big_blind_ante"] == 200
            assert _forced(listener, 2)[1] == {"small_blind": 100, "big_blind": 200,
                                               "big_blind_ante": 200}
            assert (await asyncio.to_thread(console.send, "misdeal"))["status"] == "ok"

        # the status is gone and the daemon restarts: it plays the level it took, says so
        _retain(mosquitto, b"")
        async with running(config):
            again = await asyncio.to_thread(
                _wait_state, listener, lambda d: d["tournament"]["link"] == "no_status")
            assert again["stakes"]["big_blind"] == 200
            assert again["stakes"]["big_blind_ante"] == 200
    finally:
        console.close()
        listener.close()


def test_a_tournament_table_deals_a_button_game(tmp_path: Path, mosquitto: Broker) -> None:
    from tablectl.domain.errors import ConfigError
    write_config(tmp_path, mosquitto, "stud", "fixed-limit",
                 {"ante": 25, "bring_in": 50, "small_bet": 200, "big_bet": 400}, [500, 500])
    path = tmp_path / "table.toml"
    path.write_text(path.read_text() + '\n[tournament]\nid = "d1"\ntable = 1\n')
    with pytest.raises(ConfigError, match="has no blinds"):
        load_config(path)
