"""A simulated tournament to one winner (issue 30, "Done when"; docs/tournament.md §10): three
table daemons of nine seats (``run_daemon``, cards from ``hardware_sim`` shoes over the
reader protocol, decisions from a seeded random dealer), the tournament service on
PostgreSQL with its clock running fast, all on one real mosquitto.

The floor's part is played by the test: after every round of hands it unseats the busted
players and makes the moves ``tournament balance`` gives. Checked: every table deals each
new level from its next hand on, and never changes the stakes of a hand in progress; every
elimination is recorded once and placed; tables are balanced and broken; hand for hand
near the bubble (no table starts a hand of a round before every table finished the round
before); the service and one table daemon killed mid-level and started again, the clock
and every elimination surviving; one winner.

Long: ``soak`` (``.ci/test --all``). The cheap versions of each part are
tests/daemon/test_tournament_level.py, tests/tournament/test_table_busts.py and
tests/tournament/test_hand_for_hand.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hardware_sim.devices import SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.app import run_daemon
from tablectl.clock import SystemClock
from tablectl.config import TableConfig, load_config
from tablectl.controller import CardRead, Command
from tablectl.daemon import TableDaemon
from tablectl.game import Act, ActionKind, Showdown
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings
from tablectl.sources.rfid import RfidShoeSource
from tablectl.tournament.clock import Start, Status
from tablectl.tournament.intake import TABLES_FILTER, Intake, TableElimination
from tablectl.tournament.lockstep import Lockstep
from tablectl.tournament.pg import PgTournamentStore
from tablectl.tournament.service import TournamentService
from tablectl.tournament.structure import Structure
from tests.conftest import Broker

ROOT = Path(__file__).resolve().parents[2]
DEALER, FLOOR = "dealer-sim", "floor-sim"
TABLES = 3
SEATS = 9
STACK = 1000
LEVEL_SECONDS = 2
STRUCTURE = (f"name = \"Simulated turbo\"\nstarting_stack = {STACK}\nseats_per_table = {SEATS}"
             "\nprize_per_entry = 10\npayouts = [30, 20, 12, 9, 7, 6, 5, 4, 4, 3]\n"
             "hand_for_hand_at = 17\n" + "".join(
                 f"[[level]]\nsmall_blind = {sb}\nbig_blind = {2 * sb}\nante = {2 * sb}\n"
                 f"seconds = {LEVEL_SECONDS}\n"
                 for sb in (10, 20, 40, 75, 150, 300, 600, 1200, 2500, 5000, 10000, 20000)))


def table_config(tmp_path: Path, broker: Broker, number: int) -> TableConfig:
    folder = tmp_path / f"t{number}"
    folder.mkdir(exist_ok=True)
    seats = "".join(f"[[seats]]\nnumber = {s}\nname = \"P{(number - 1) * SEATS + s}\"\n"
                    f"stack = {STACK}\n" for s in range(1, SEATS + 1))
    (folder / "table.toml").write_text(f"""
deck = "{ROOT}/config/decks/demo-red.csv"
other_decks = ["{ROOT}/config/decks/demo-blue.csv"]
button = 1
[table]
id = "t{number}"
[game]
variant = "holdem"
structure = "no-limit"
[game.stakes]
small_blind = 10
big_blind = 20
{seats}
[[sources]]
kind = "rfid-shoe"
name = "shoe"
url = "/dev/serial/by-id/sim-shoe"
[access.roles]
{DEALER} = "dealer"
{FLOOR} = "floor"
[mqtt]
url = "{broker.url}"
[journal]
path = "{folder}/journal.sqlite"
[tournament]
id = "sim"
table = {number}
""")
    return load_config(folder / "table.toml")


@dataclass
class Table:
    """One table: its daemon (started again after a kill) and its hardware_sim shoe."""

    number: int
    config: TableConfig
    task: asyncio.Task[None] | None = None
    daemon: TableDaemon | None = None
    shoe: SimShoe | None = None
    applied: asyncio.Event = field(default_factory=asyncio.Event)
    stakes_seen: list[int] = field(default_factory=list)
    n: int = 0
    reads: int = 0
    h4h_refused: int = 0
    on_status: Callable[[], None] | None = None

    async def start(self) -> None:
        clock = SystemClock()
        self.shoe = SimShoe(self.config.load_deck(), clock=clock, seed=self.number * 7 + len(
            self.stakes_seen))
        pipe = PipeDevice(self.shoe, clock=clock)
        source = RfidShoeSource("shoe", "sim", clock=clock, opener=pipe.open)
        ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
        self.task = asyncio.create_task(run_daemon(self.config, clock=clock, sources=[source],
                                                   ready=ready.set_result))
        self.daemon = await asyncio.wait_for(ready, 20)
        self.daemon.on_outcome = self._applied
        link = self.daemon.tournament
        assert link is not None
        taken = link.on_status
        told = self.on_status

        def on_status(payload: bytes) -> None:      # the test hears of every status too
            taken(payload)
            if told is not None:
                told()
        link.on_status = on_status  # type: ignore[method-assign]

    def _applied(self, inp: object, _out: object) -> None:
        if isinstance(inp, CardRead):
            self.reads += 1
            self.applied.set()

    async def kill(self) -> None:
        assert self.task is not None
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task

    def cmd(self, command: str, /, user: str = DEALER, **args: Any) -> Any:
        assert self.daemon is not None
        self.n += 1
        out = self.daemon.apply(Command(name=command, user=user, id=f"{command}-{self.n}",
                                        at=datetime.now(UTC), args=args))
        assert out.reply is not None
        return out.reply

    async def read(self) -> None:
        """One card from the shoe, through the reader protocol; waits until applied."""
        assert self.daemon is not None and self.shoe is not None
        before = self.reads
        self.shoe.draw()
        async with asyncio.timeout(10):
            while self.reads == before:
                self.applied.clear()
                await self.applied.wait()
        errors = self.daemon.controller.active_errors
        assert not errors, f"table {self.number}: {errors}"

    async def play(self, rng: random.Random) -> str:
        """One hand: ``played``, ``waits`` (hand for hand) or ``idle`` (nobody to deal)."""
        assert self.daemon is not None and self.shoe is not None
        ctl = self.daemon.controller
        if sum(1 for s in ctl.checkpoint().seats if s.stack > 0) < 2:
            return "idle"
        reply = self.cmd("start_hand")
        if not reply.ok:
            assert "hand for hand" in reply.reason, reply
            return "waits"
        stakes = ctl.setup.stakes
        self.stakes_seen.append(stakes.big_blind)
        self.shoe.new_shoe()
        for _ in range(400):
            exp = ctl.expected()
            if exp is None or ctl.stage.value != "in_hand":
                break
            # the hand keeps the stakes it started with, whatever level comes meanwhile
            assert ctl.setup.stakes == stakes
            if isinstance(exp, Act):
                kinds = exp.legal.kinds
                roll = rng.random()
                size = exp.legal.max_to if rng.random() < 0.1 else exp.legal.min_to
                if ActionKind.RAISE in kinds and roll < 0.15:
                    assert self.cmd("action", seat=exp.seat, kind="raise", amount=size).ok
                elif ActionKind.BET in kinds and roll < 0.15:
                    assert self.cmd("action", seat=exp.seat, kind="bet", amount=size).ok
                elif ActionKind.CHECK in kinds:
                    assert self.cmd("action", seat=exp.seat, kind="check").ok
                elif ActionKind.CALL in kinds and roll < 0.6:
                    assert self.cmd("action", seat=exp.seat, kind="call").ok
                else:
                    assert self.cmd("action", seat=exp.seat, kind="fold").ok
            elif isinstance(exp, Showdown):
                assert self.cmd("action", seat=exp.seat, kind="show").ok
            else:
                await self.read()
        else:
            raise AssertionError(f"table {self.number}: the hand did not end")
        assert self.cmd("next_hand").ok
        link = self.daemon.tournament
        if link is not None and link.lockstep.on:
            # hand for hand: the next hand waits for every table to finish this round's
            again = self.cmd("start_hand")
            assert not again.ok and "hand for hand" in again.reason, again
            self.h4h_refused += 1
        return "played"

    def busted(self) -> list[int]:
        assert self.daemon is not None
        return [s.seat for s in self.daemon.controller.checkpoint().seats if s.stack == 0]


@pytest.mark.soak
async def test_three_tables_play_a_tournament_to_one_winner(
        tmp_path: Path, mosquitto: Broker, pg_url: str) -> None:
    rng = random.Random(30)
    store = PgTournamentStore(pg_url)
    clock = SystemClock()
    settings = MqttSettings(host=mosquitto.host, port=mosquitto.port, client_id="tournament-sim",
                            session_expiry=600)
    recorded: list[TableElimination | None] = []
    changed = asyncio.Event()

    def told(what: str, found: TableElimination | None) -> None:
        if what in ("recorded", "again"):
            recorded.append(found)
        changed.set()

    @contextlib.asynccontextmanager
    async def service_running() -> Any:
        async with MqttPublisher(settings, manual_ack=True) as client:
            service = TournamentService(store, clock, client)
            service.lockstep = Lockstep()
            await client.subscribe(TABLES_FILTER, qos=1)
            jobs = [asyncio.create_task(Intake(service, "sim", clock, seen=told).run(client)),
                    asyncio.create_task(service.run("sim", refresh=1))]
            try:
                yield service
            finally:
                service.stop()
                for job in jobs:
                    job.cancel()
                await asyncio.gather(*jobs, return_exceptions=True)

    async def until(pred: Callable[[], bool], within: float = 30) -> None:
        async with asyncio.timeout(within):
            while not pred():
                changed.clear()
                await changed.wait()

    setup = TournamentService(store, clock)
    setup.create("sim", Structure.parse(STRUCTURE, "sim.toml"))
    for i in range(TABLES * SEATS):
        setup.register("sim", f"P{i + 1}")
    setup.command("sim", Start())
    tables = [Table(n, table_config(tmp_path, mosquitto, n), on_status=changed.set)
              for n in range(1, TABLES + 1)]
    busts_made = 0
    rounds = 0
    h4h_rounds = 0
    killed = False
    service_cm = service_running()
    service = await service_cm.__aenter__()
    try:
        for t in tables:
            await t.start()
        while len(store.load("sim").field.playing) > 1:
            rounds += 1
            assert rounds < 2000, "no winner"
            results = [await t.play(rng) for t in tables]
            for t in tables:
                gone = t.busted()
                busts_made += len(gone)
                for seat in gone:
                    assert t.cmd("unseat_player", user=FLOOR, seat=seat).ok
            await until(lambda want=busts_made: len(  # type: ignore[misc]
                store.load("sim").field.eliminations) >= want)
            if "waits" in results:
                h4h_rounds += 1
            if rounds == 8 and not killed:
                # kill the service and a table daemon mid-level; start them again
                killed = True
                before = store.load("sim")
                await service_cm.__aexit__(None, None, None)
                await tables[1].kill()
                await tables[1].start()
                service_cm = service_running()
                service = await service_cm.__aenter__()
                after = store.load("sim")
                assert after.field.eliminations == before.field.eliminations
                assert after.clock.period >= before.clock.period
            buttons = {t.number: t.daemon.controller.checkpoint().button for t in tables
                       if t.daemon is not None}
            plan, _ = service.balance("sim", apply_moves=True, buttons=buttons)
            for move in plan.moves:
                src = tables[move.from_table - 1]
                dst = tables[move.to_table - 1]
                out = src.cmd("unseat_player", user=FLOOR, seat=move.from_seat)
                assert out.ok, out
                assert dst.cmd("seat_player", user=FLOOR, seat=move.to_seat,
                               name=move.player, stack=out.result["stack"]).ok
            if plan.moves or plan.broken:
                await service.publish(store.load("sim"))
            if not any(r == "played" for r in results):
                # every table waits: the next round goes once their reports are in
                await until(lambda: all(t.daemon.tournament.holds_start() is None
                                        for t in tables if t.daemon is not None
                                        and t.daemon.tournament is not None), 30)
        final = store.load("sim")
    finally:
        with contextlib.suppress(Exception):
            await service_cm.__aexit__(None, None, None)
        for t in tables:
            if t.task is not None:
                await t.kill()
        store.close()
    assert final.clock.status is Status.FINISHED
    assert len(final.field.eliminations) == TABLES * SEATS - 1
    places = [p.place for p in final.field.ranking()]
    assert places[0] == 1 and None not in places
    # each elimination once: one per player but the winner, each (table, hand, seat) once
    assert len({(x.table, x.hand, x.seat) for x in final.field.eliminations}) == len(
        final.field.eliminations)
    assert len({x.player for x in final.field.eliminations}) == TABLES * SEATS - 1
    levels = sorted({bb for t in tables for bb in t.stakes_seen})
    for t in tables:                       # levels only rise, each from a hand's start on
        assert t.stakes_seen == sorted(t.stakes_seen), t.stakes_seen
    assert len(levels) >= 3, levels
    refused = sum(t.h4h_refused for t in tables)
    assert killed and refused >= 2, (rounds, refused)
    print(f"simulated tournament: {rounds} rounds, {sum(len(t.stakes_seen) for t in tables)} "
          f"hands, levels dealt {levels}; hand for hand: {refused} start_hand refused after "
          f"a table's hand, {h4h_rounds} rounds where a table still waited")
