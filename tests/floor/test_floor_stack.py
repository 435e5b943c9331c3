"""The whole floor on real parts: table daemons (``tablectl run`` on simulated shoes) on their
own mosquitto brokers, bridged over TLS (``config/mosquitto/bridge.conf``) to a floor broker,
``tablectl floor run`` as a child process, and PostgreSQL.

Every hand of every daemon must arrive in the database exactly once: the test compares the
database's events with each daemon's journal, event by event, and the hands with the
journal's hands, through a floor broker SIGKILLed and restarted, a cut bridge, a SIGKILLed
floor service and a killed database connection, each in the middle of a hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tablectl.journal.records import journal_id_text
from tests.conftest import Broker, BrokerFactory
from tests.floor.conftest import terminate_backends
from tests.floor.proxy import Relay
from tests.floor.stack import (
    ROOT,
    FloorProcess,
    db_rows,
    floor_broker,
    make_pki,
    remove_pki,
    table_broker,
)
from tests.reliability.harness import AUDITOR, VARIANTS, Stack, open_stack, poll_until

EVENTS = "poker/v1/tables/{t}/events"


def journal_events(stack: Stack, table: str) -> set[tuple[str, int, str, str]]:
    """The journal's public events, each named by the run the floor keys on
    (``journal:epoch``)."""
    from tests.reliability.harness import journal_rows, read_journal

    journal = read_journal(stack.journal_path)
    ((raw,),) = journal_rows(stack.journal_path,
                             "SELECT value FROM meta WHERE key = 'journal_id'")
    jid = journal_id_text(int(raw))
    return {(f"{jid}:{e}", s, t, json.dumps(d, sort_keys=True))
            for e, s, t, d in journal.events.get(EVENTS.format(t=table), [])}


def floor_events(db: str, table: str) -> list[tuple[str, int, str, str]]:
    return [(e, s, t, json.dumps(d, sort_keys=True)) for e, s, t, d in db_rows(
        db, "SELECT epoch, seq, type, data FROM events WHERE table_id = %s", (table,))]


def journal_hands(stack: Stack) -> list[dict[str, Any]]:
    from tests.reliability.harness import read_journal

    return read_journal(stack.journal_path).hands


EVERY_SHOWDOWN = """
[[rule]]
name = "any-shown"
kind = "high_hand"
minimum = "2c 3d 4h 5s 7c"
min_dealt_in = 2
"""


class FlagWatcher:
    """Records the floor's flag messages (re-subscribing after a broker restart)."""

    def __init__(self, port: int) -> None:
        self.got: set[tuple[str, str, int]] = set()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id="flag-watcher")
        self.client.reconnect_delay_set(1, 1)
        self.client.on_connect = lambda c, *_: c.subscribe("poker/v1/floor/flags", qos=1)
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_message(self, _c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        body = json.loads(msg.payload)
        self.got.add((body["hand"], body["rule"], body["seat"]))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Floor:
    """Everything of one test: brokers, relays, tables, the floor service."""

    def __init__(self, tmp: Path, factory: BrokerFactory, db: str) -> None:
        self.tmp = tmp
        self.factory = factory
        self.db = db
        self.pki = make_pki()
        self.broker = floor_broker(factory, self.pki)
        self.relays: dict[str, Relay] = {}
        self.brokers: dict[str, Broker] = {}
        self.stacks: dict[str, Stack] = {}
        rules = tmp / "rules.toml"
        rules.write_text(EVERY_SHOWDOWN)
        self.service = FloorProcess(self.broker.port, db, tmp / "floor.log", user=AUDITOR,
                                    extra=("--rules", str(rules)))
        self.flags = FlagWatcher(self.broker.port)

    @contextlib.asynccontextmanager
    async def tables(self, names: tuple[str, ...]) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for i, name in enumerate(names):
                relay = await stack.enter_async_context(
                    Relay("127.0.0.1", self.broker.ports["tls"]))
                self.relays[name] = relay
                broker = table_broker(self.factory, name, relay.port, self.pki)
                self.brokers[name] = broker
                variant, structure, stakes = VARIANTS[i % 2 + 1]
                work = self.tmp / name
                work.mkdir()
                self.stacks[name] = await stack.enter_async_context(open_stack(
                    work, broker.host, broker.port, variant=variant, structure=structure,
                    stakes=stakes, seed=100 + i, table=name, stacks=(40000,) * 4))
            try:
                yield
            finally:
                self.service.stop()
                self.flags.close()
                remove_pki(self.pki)

    async def play(self, until: asyncio.Event, *, least: int = 2, most: int = 200,
                   pause: float = 0.3) -> int:
        """Every table plays hands, ``pause`` seconds apart, until ``until`` is set, then one
        more (at least ``least``, at most ``most``); returns the hands played. The pause keeps
        a table dealing through every fault however fast the machine deals (without it two
        tables on a quiet machine played a bound of 25 hands before the third fault began,
        and the fault then waited for a hand that never came)."""
        done = await asyncio.gather(*(self._play(s, until, least, most, pause)
                                      for s in self.stacks.values()))
        return sum(done)

    @staticmethod
    async def _play(stack: Stack, until: asyncio.Event, least: int, most: int,
                    pause: float) -> int:
        hands = 0
        while hands < most and (hands < least or not until.is_set()):
            was_set = until.is_set()
            await stack.dealer.play_hand()
            hands += 1
            if was_set:
                break                   # a whole hand after the last fault
            await asyncio.sleep(pause)
        return hands

    async def settled(self, within: float = 60) -> None:
        """Wait until the database holds every journaled event of every table."""
        def complete() -> bool:
            return all(set(floor_events(self.db, t)) >= journal_events(s, t)
                       for t, s in self.stacks.items())
        try:
            await poll_until(complete, within, every=0.5)
        except TimeoutError:
            streams = db_rows(self.db, "SELECT table_id, epoch, applied, max_seen FROM streams")
            want = {t: len(journal_events(s, t)) for t, s in self.stacks.items()}
            raise AssertionError(f"the floor did not catch up: streams {streams}, journals "
                                 f"{want}\n" + self.service.log_tail()) from None

    def check(self) -> None:
        """Exactly the journals' events and hands, once each."""
        for table, stack in self.stacks.items():
            got = floor_events(self.db, table)
            assert len(got) == len(set(got))
            assert set(got) == journal_events(stack, table), table
            want = [(h["hand"]["id"] if isinstance(h.get("hand"), dict) else h.get("id"))
                    for h in journal_hands(stack)]
            rows = db_rows(self.db, "SELECT name, result, pot FROM hands WHERE table_id = %s "
                           "ORDER BY started_at", (table,))
            names = [r[0] for r in rows]
            assert len(names) == len(set(names))
            assert len([r for r in rows if r[1] is not None]) == len(want), (rows, want)
            winners = db_rows(self.db, "SELECT count(*) FROM winners w JOIN hands h ON "
                              "h.id = w.hand_id WHERE h.table_id = %s", (table,))[0][0]
            awards = sum(len(h.get("results", [])) for h in journal_hands(stack))
            assert winners == awards
        # every hand shown down qualifies for the test's rule: flagged once in the database,
        # and announced (not while the floor broker was down)
        flags = {(h, r, s) for h, r, s in db_rows(self.db, "SELECT hand_id, rule, seat FROM "
                                                  "flags")}
        shown = db_rows(self.db, "SELECT count(*) FROM showdowns s JOIN hands h ON h.id = "
                        "s.hand_id WHERE h.result = 'settled'")[0][0]
        assert flags and len(flags) == shown
        assert self.flags.got and self.flags.got <= flags


    def check_export(self) -> None:
        """``floor export`` writes every settled hand; each has the actions and finishing
        stacks of the daemon's own PHH export, with the cards nobody showed unknown."""
        out = self.tmp / "phh-floor"
        run = subprocess.run([sys.executable, "-m", "tablectl", "floor", "export", "--db",
                              self.db, "--out", str(out)], capture_output=True, text=True,
                             timeout=120, check=False, cwd=ROOT)
        assert run.returncode == 0, run.stderr
        for table, stack in self.stacks.items():
            mine = self.tmp / f"phh-{table}"
            daemon = subprocess.run([sys.executable, "-m", "tablectl", "history", "export",
                                     "--config", str(stack.config_path), "--out", str(mine)],
                                    capture_output=True, text=True, timeout=120, check=False,
                                    cwd=ROOT)
            assert daemon.returncode == 0, daemon.stderr
            theirs = sorted(mine.glob("*.phh"))
            assert theirs and len(theirs) == len(list(out.glob(f"{table}-*.phh")))
            for path in theirs:
                want = tomllib.loads(path.read_text())
                got = tomllib.loads((out / path.name).read_text())   # the same name
                assert got["finishing_stacks"] == want["finishing_stacks"]
                assert [masked(a) for a in got["actions"]] == [masked(a) for a in
                                                               want["actions"]]


def masked(action: str) -> str:
    """A PHH action with its hole cards hidden (the floor knows only the shown ones)."""
    parts = action.split(" ")
    if parts[:2] == ["d", "dh"]:
        return " ".join(parts[:3])
    return action


async def mid_hand(stack: Stack, inputs: int = 4) -> None:
    """Return once the table has taken ``inputs`` more inputs (the hand is under way)."""
    start = stack.inputs_count()
    await poll_until(lambda: stack.inputs_count() >= start + inputs, 60)


async def with_faults(floor: Floor,
                      faults: list[Callable[[], Coroutine[Any, Any, None]]]) -> int:
    """Play while the faults happen one after another; returns the hands played."""
    over = asyncio.Event()
    task = asyncio.create_task(floor.play(over))
    try:
        for fault in faults:
            await fault()
        over.set()
        return await task
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


@pytest.mark.slow
async def test_every_hand_arrives_once_through_every_fault(
        tmp_path: Path, mosquitto_factory: BrokerFactory, pg_url: str) -> None:
    floor = Floor(tmp_path, mosquitto_factory, pg_url)
    floor.service.start()
    async with floor.tables(("f1", "f2")):
        t1, t2 = floor.stacks["f1"], floor.stacks["f2"]

        async def broker_restart() -> None:
            await mid_hand(t1)
            await asyncio.to_thread(floor.broker.kill)
            await asyncio.sleep(1.0)
            await asyncio.to_thread(floor.broker.start)

        async def bridge_cut() -> None:
            await mid_hand(t2)
            await floor.relays["f2"].cut(2.0)

        async def service_kill() -> None:
            await mid_hand(t1)
            await asyncio.to_thread(floor.service.kill)
            await mid_hand(t1, 2)
            floor.service.start()

        async def database_kill() -> None:
            await mid_hand(t2)
            name = pg_url.rsplit("/", 1)[1]
            killed: list[int] = []

            def kill() -> bool:       # the restarted service may not have connected yet
                killed.append(terminate_backends(name))
                return killed[-1] >= 1
            await poll_until(kill, 30, every=0.2)

        hands = await with_faults(floor, [broker_restart, bridge_cut, service_kill,
                                          database_kill])
        await floor.settled()
        floor.check()
        floor.check_export()
        replays = [line for line in floor.service.log_path.read_text().splitlines()
                   if "asking table" in line]
        print(f"hands {hands}, replay requests: {len(replays)}")
