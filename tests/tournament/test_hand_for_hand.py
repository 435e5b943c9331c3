"""Hand for hand (docs/tournament.md, "Hand for hand"): the rounds on both sides by hand
(sans-IO), then a real mosquitto, the table daemon of tablectl/app.py, the service's intake
on PostgreSQL and a second table that only speaks MQTT: the daemon's table does not start its
next hand until the other table has finished its own, also when it restarts and hears no
status (its journal keeps the round it played)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tablectl.app import run_daemon
from tablectl.clock import SystemClock
from tablectl.config import load_config
from tablectl.controller import Command
from tablectl.daemon import TableDaemon
from tablectl.daemon.lockstep import TableLockstep
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tablectl.publish.topics import Topic
from tablectl.tournament.clock import Start
from tablectl.tournament.intake import TABLES_FILTER, Intake, TableElimination
from tablectl.tournament.lockstep import Lockstep
from tablectl.tournament.pg import PgTournamentStore
from tablectl.tournament.service import TournamentService, clock_topic
from tablectl.tournament.structure import Structure
from tests.conftest import Broker
from tests.daemon.helpers import Listener
from tests.daemon.test_end_to_end import write_config
from tests.tournament.conftest import SMALL

USER = "dealer-e2e"


def test_a_table_plays_one_hand_a_round() -> None:
    table = TableLockstep()
    assert table.holds() is None and table.ready(True) is None        # not hand for hand
    table.on_status(True, 0)          # hand for hand begins: finish the hand, then wait
    assert table.holds() is not None and table.ready(True) == 0
    assert table.ready(False) is None                  # in a hand: nothing to say yet
    table.on_status(True, 1)
    assert table.holds() is None and table.ready(True) is None
    table.started()
    assert table.holds() is not None and table.ready(True) == 1
    table.on_status(True, None)       # a floor command's status: the round stands
    assert table.holds() is not None
    table.on_status(True, 0)          # the service restarted: counts anew
    assert table.ready(True) == 0
    table.on_status(False, None)
    assert table.holds() is None and table.played is None


def test_a_restarted_table_keeps_its_round() -> None:
    table = TableLockstep()
    assert table.kept() is None
    table.on_status(True, 4)
    table.started()
    assert table.kept() == 4
    again = TableLockstep()           # the daemon restarted: the journal kept round 4
    again.restore(table.kept() or 0)
    assert again.holds() is not None and again.ready(True) == 4    # no status heard yet
    again.on_status(True, 4)
    assert again.holds() is not None
    again.on_status(True, 5)
    assert again.holds() is None
    again.started()
    assert again.holds() is not None and again.kept() == 5
    again.on_status(False, None)
    assert again.kept() is None and again.holds() is None


def test_the_next_round_goes_when_every_table_is_ready() -> None:
    lock = Lockstep()
    assert not lock.report(1, 0, [1, 2, 3])
    assert not lock.report(2, 0, [1, 2, 3]) and lock.waiting([1, 2, 3]) == [3]
    assert lock.report(3, 0, [1, 2, 3]) and lock.go == 1
    assert not lock.report(3, 0, [1, 2, 3])           # late: of a round over
    assert not lock.report(1, 1, [1, 2, 3])
    assert lock.report(2, 1, [1, 2]) and lock.go == 2   # table 3 broke meanwhile
    lock.reset()
    assert (lock.go, lock.ready) == (0, {})


def _config(tmp_path: Path, broker: Broker) -> Any:
    write_config(tmp_path, broker, "holdem", "no-limit", {"small_blind": 50, "big_blind": 100},
                 [5000, 5000])
    path = tmp_path / "table.toml"
    path.write_text(path.read_text() + '\n[tournament]\nid = "d1"\ntable = 1\n')
    return load_config(path)


async def _ready_from_table_2(broker: Broker, played: int) -> None:
    """Table 2 (no daemon here, only its message) is ready, having played ``played``."""
    settings = MqttSettings(host=broker.host, port=broker.port, client_id="table-2",
                            session_expiry=0)
    body = {"table": "t2", "type": "hand_for_hand_ready", "data": {
        "tournament": "d1", "table": "t2", "table_number": 2, "round": played}}
    async with MqttPublisher(settings) as client:
        await client.publish(Topic("poker/v1/tables/t2/tournament"), json.dumps(body).encode(),
                             qos=1)


async def test_a_table_waits_for_the_others_in_hand_for_hand(
        tmp_path: Path, mosquitto: Broker, pg_url: str) -> None:
    store = PgTournamentStore(pg_url)
    clock = SystemClock()
    settings = MqttSettings(host=mosquitto.host, port=mosquitto.port,
                            client_id="tournament-d1", session_expiry=60)
    listener = Listener(mosquitto.host, mosquitto.port, "e2e")
    async with MqttPublisher(settings, manual_ack=True) as client:
        service = TournamentService(store, clock, client)
        service.lockstep = Lockstep()
        # two tables of two: four players left, three paid, no table to break
        service.create("d1", Structure.parse(SMALL.replace("seats_per_table = 6",
                                                           "seats_per_table = 2"), "h.toml"))
        for table, seat, name in ((1, 1, "P1"), (1, 2, "P2"), (2, 1, "Q1"), (2, 2, "Q2")):
            service.register("d1", name, table=table, seat=seat)
        t = service.command("d1", Start())
        assert (await service.publish(t))["hand_for_hand_go"] == 0   # 4 left, 3 paid

        seen: list[str] = []
        changed = asyncio.Event()

        def told(what: str, _found: TableElimination | None) -> None:
            seen.append(what)
            changed.set()

        async def until(pred: Callable[[], bool]) -> None:
            async with asyncio.timeout(20):
                while not pred():
                    await changed.wait()
                    changed.clear()

        await client.subscribe(TABLES_FILTER, qos=1)
        intake = asyncio.create_task(Intake(service, "d1", clock, seen=told).run(client))
        ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(run_daemon(_config(tmp_path, mosquitto), sources=[],
                                              ready=ready.set_result))
        n = 0

        def start_hand(daemon: TableDaemon, name: str = "start_hand") -> Any:
            nonlocal n
            n += 1
            out = daemon.apply(Command(name=name, user=USER, id=f"c{n}", at=datetime.now(UTC),
                                       args={}))
            assert out.reply is not None
            return out.reply

        def state(pred: Callable[[dict[str, Any]], bool]) -> Callable[[Listener], bool]:
            def ok(lst: Listener) -> bool:
                got = lst.latest_state()
                return got is not None and "tournament" in got["data"] and pred(
                    got["data"]["tournament"])
            return ok

        try:
            daemon = await asyncio.wait_for(ready, 20)
            # round 0: the table is between hands and waits; it says it is ready
            assert await asyncio.to_thread(listener.wait_for, state(
                lambda tt: tt["hand_for_hand_go"] == 0 and tt["waiting"]))
            await until(lambda: "waiting" in seen)
            refused = start_hand(daemon)
            assert not refused.ok and "hand for hand" in refused.reason
            # table 2 is ready too: round 1 goes, the table deals one hand
            await _ready_from_table_2(mosquitto, 0)
            await until(lambda: "go" in seen)
            assert await asyncio.to_thread(listener.wait_for, state(
                lambda tt: tt["hand_for_hand_go"] == 1 and not tt["waiting"]))
            assert start_hand(daemon).ok
            assert start_hand(daemon, "misdeal").ok           # the hand is over
            again = start_hand(daemon)                         # table 2 is still in its hand
            assert not again.ok and "hand for hand" in again.reason
            await until(lambda: seen.count("waiting") >= 2)     # the table said it is ready
            await _ready_from_table_2(mosquitto, 1)
            await until(lambda: seen.count("go") >= 2)
            assert await asyncio.to_thread(listener.wait_for, state(
                lambda tt: tt["hand_for_hand_go"] == 2 and not tt["waiting"]))
            assert start_hand(daemon).ok
            assert start_hand(daemon, "misdeal").ok
            await until(lambda: seen.count("waiting") >= 3)     # ready, having played 2

            # the daemon restarts, and hears no status (the retained one is cleared): it
            # remembers from its journal that it played round 2 and still waits for round 3
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await client.publish(clock_topic("d1"), b"", retain=True)
            ready = asyncio.get_running_loop().create_future()
            task = asyncio.create_task(run_daemon(_config(tmp_path, mosquitto), sources=[],
                                                  ready=ready.set_result))
            daemon = await asyncio.wait_for(ready, 20)
            early = start_hand(daemon)
            assert not early.ok and "round 2" in early.reason, early
            await _ready_from_table_2(mosquitto, 2)
            await until(lambda: seen.count("go") >= 3)
            assert await asyncio.to_thread(listener.wait_for, state(
                lambda tt: tt["hand_for_hand_go"] == 3 and not tt["waiting"]))
            assert start_hand(daemon).ok
        finally:
            for job in (task, intake):
                job.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await job
            listener.close()
            store.close()
