"""The simulated tournament's tables (tests/tournament/test_simulated_tournament.py and
tests/tournament/test_tournament_kill.py): a table daemon run in this process with a
``hardware_sim`` shoe over the reader protocol, and a seeded random dealer that applies the
players' decisions to the daemon directly."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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
from tablectl.tournament.intake import TABLES_FILTER, Intake, TableElimination
from tablectl.tournament.lockstep import Lockstep
from tablectl.tournament.service import TournamentService
from tablectl.tournament.store import TournamentStore
from tests.conftest import Broker

ROOT = Path(__file__).resolve().parents[2]
DEALER, FLOOR = "dealer-sim", "floor-sim"


def table_config(tmp_path: Path, broker: Broker, number: int, *, seats: int = 9,
                 stack: int = 1000, tid: str = "sim") -> TableConfig:
    """Table ``number`` of tournament ``tid``: ``seats`` players P1... (numbered across the
    tables as the house rule registers them), a ``hardware_sim`` shoe, its own journal."""
    folder = tmp_path / f"t{number}"
    folder.mkdir(exist_ok=True)
    seated = "".join(f"[[seats]]\nnumber = {s}\nname = \"P{(number - 1) * seats + s}\"\n"
                     f"stack = {stack}\n" for s in range(1, seats + 1))
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
{seated}
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
id = "{tid}"
table = {number}
""")
    return load_config(folder / "table.toml")


async def until(changed: asyncio.Event, pred: Callable[[], bool], within: float = 30) -> None:
    """Wait until ``pred`` holds, looking again each time ``changed`` is set."""
    async with asyncio.timeout(within):
        while not pred():
            changed.clear()
            await changed.wait()


@contextlib.asynccontextmanager
async def service_running(store: TournamentStore, broker: Broker, tid: str,
                          told: Callable[[str, TableElimination | None], None]
                          ) -> AsyncIterator[TournamentService]:
    """The tournament service in this process, as ``tablectl tournament run`` runs it: its
    intake of the tables' reports (a persistent session, acknowledged once handled) and its
    status published every second; ``told`` hears what the intake made of each report."""
    clock = SystemClock()
    settings = MqttSettings(host=broker.host, port=broker.port, client_id=f"tournament-{tid}",
                            session_expiry=600)
    async with MqttPublisher(settings, manual_ack=True) as client:
        service = TournamentService(store, clock, client)
        service.lockstep = Lockstep()
        await client.subscribe(TABLES_FILTER, qos=1)
        jobs = [asyncio.create_task(Intake(service, tid, clock, seen=told).run(client)),
                asyncio.create_task(service.run(tid, refresh=1))]
        try:
            yield service
        finally:
            service.stop()
            for job in jobs:
                job.cancel()
            await asyncio.gather(*jobs, return_exceptions=True)


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
    had_chips: list[int] = field(default_factory=list)
    on_status: Callable[[bytes], None] | None = None

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
                told(payload)
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
        self.had_chips = [s.seat for s in ctl.checkpoint().seats if s.stack > 0]
        if len(self.had_chips) < 2:
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
        """The seats the last hand left with no chips, each once: a tournament table frees
        them itself (docs/tournament.md §8), so none is still seated."""
        assert self.daemon is not None
        now = {s.seat: s.stack for s in self.daemon.controller.checkpoint().seats}
        gone = [seat for seat in self.had_chips if now.get(seat, 0) == 0]
        self.had_chips = [seat for seat in self.had_chips if seat not in gone]
        still = [seat for seat in gone if seat in now]
        assert not still, f"table {self.number}: busted seats {still} not freed"
        return gone
