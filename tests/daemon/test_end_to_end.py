"""The daemon end to end: a simulated shoe on the real wire protocol, the real journal, a real
mosquitto, and an independent subscriber. What is published equals what an independent engine
computes from the same cards and actions; no hole card is published under poker/ before the
showdown reveals it."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from hardware_sim.devices import SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.app import run_daemon
from tablectl.clock import SystemClock
from tablectl.config import TableConfig, load_config
from tablectl.daemon import TableDaemon
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    CardIn,
    Done,
    Hand,
    SeatSetup,
    ShowIn,
)
from tablectl.sources.rfid import RfidShoeSource
from tests.conftest import Broker
from tests.daemon.helpers import Console, Listener

ROOT = Path(__file__).resolve().parents[2]

VARIANTS = [
    ("holdem", "fixed-limit", {"small_blind": 100, "big_blind": 200, "small_bet": 200,
                               "big_bet": 400}),
    ("holdem", "no-limit", {"small_blind": 100, "big_blind": 200}),
    ("omaha-hi-lo", "fixed-limit", {"small_blind": 100, "big_blind": 200, "small_bet": 200,
                                    "big_bet": 400}),
    ("omaha", "pot-limit", {"small_blind": 100, "big_blind": 200}),
    ("holdem-hi-lo", "fixed-limit", {"small_blind": 100, "big_blind": 200, "small_bet": 200,
                                     "big_bet": 400}),
    ("stud", "fixed-limit", {"ante": 25, "bring_in": 50, "small_bet": 200, "big_bet": 400}),
    ("stud-hi-lo", "fixed-limit", {"ante": 25, "bring_in": 50, "small_bet": 200,
                                   "big_bet": 400}),
    ("razz", "fixed-limit", {"ante": 25, "bring_in": 50, "small_bet": 200, "big_bet": 400}),
]


def write_config(tmp_path: Path, broker: Broker, variant: str, structure: str,
                 stakes: dict[str, int], stacks: list[int]) -> TableConfig:
    stake_lines = "\n".join(f"{k} = {v}" for k, v in stakes.items())
    seats = "\n".join(f"[[seats]]\nnumber = {i + 1}\nname = \"P{i + 1}\"\nstack = {s}\n"
                      for i, s in enumerate(stacks))
    text = f"""
deck = "{ROOT}/config/decks/demo-red.csv"
other_decks = ["{ROOT}/config/decks/demo-blue.csv"]
button = 1
[table]
id = "e2e"
[game]
variant = "{variant}"
structure = "{structure}"
[game.stakes]
{stake_lines}
{seats}
[[sources]]
kind = "rfid-shoe"
name = "shoe"
url = "/dev/serial/by-id/sim-shoe"
[access.roles]
dealer-e2e = "dealer"
[mqtt]
url = "{broker.url}"
[journal]
path = "{tmp_path}/journal.sqlite"
"""
    path = tmp_path / "table.toml"
    path.write_text(text)
    return load_config(path)


class MiniDealer:
    """Plays hands like a person: cards from the shoe in the order an independent engine
    expects them, seeded random legal actions through the console."""

    def __init__(self, config: TableConfig, shoe: SimShoe, console: Console,
                 daemon: TableDaemon, seed: int) -> None:
        self.config = config
        self.shoe = shoe
        self.console = console
        self.daemon = daemon
        self.rng = random.Random(seed)

    async def settle(self, target: int) -> None:
        """Wait until the daemon has applied ``target`` inputs."""
        applied = asyncio.Event()
        self.daemon.on_outcome = lambda _inp, _out: applied.set()
        async with asyncio.timeout(10):
            while self.daemon.applied < target:
                await applied.wait()
                applied.clear()

    async def play(self) -> Hand:
        setup = self.daemon.setup
        ctrl = self.daemon.controller
        state = ctrl.checkpoint()
        players = [SeatSetup(s.seat, s.stack, s.name) for s in state.seats if s.stack > 0]
        mirror = Hand.start(game=setup.game, structure=setup.structure, rules=setup.rule_set,
                            stakes=setup.stakes, seats=players,
                            button=0 if setup.game.is_stud else state.button)
        reply = await asyncio.to_thread(self.console.send, "start_hand")
        assert reply["status"] == "ok", reply
        while True:
            exp = mirror.expected()
            if isinstance(exp, Done):
                break
            if isinstance(exp, Act):
                legal = exp.legal
                kinds = sorted(legal.kinds, key=str)
                kind = self.rng.choice(kinds)
                if kind is ActionKind.FOLD and ActionKind.CHECK in legal.kinds:
                    kind = ActionKind.CHECK
                amount = None
                if kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
                    amount = self.rng.choice([legal.min_to, legal.max_to])
                mirror.apply(ActionIn(exp.seat, kind, amount))
                reply = await asyncio.to_thread(
                    self.console.send, "action",
                    {"seat": exp.seat, "kind": kind.value, "amount": amount})
                assert reply["status"] == "ok", (reply, exp)
                continue
            if exp.type == "showdown":
                mirror.apply(ShowIn(exp.seat))
                reply = await asyncio.to_thread(self.console.send, "action",
                                                {"seat": exp.seat, "kind": "show"})
                assert reply["status"] == "ok", reply
                continue
            before = self.daemon.applied
            read = self.shoe.draw()
            card = self.config.load_deck().card_for(read.uid_hex)
            mirror.apply(CardIn(card))
            await self.settle(before + 1)
        reply = await asyncio.to_thread(self.console.send, "next_hand")
        assert reply["status"] == "ok", reply
        return mirror


@pytest.mark.parametrize(("variant", "structure", "stakes"), VARIANTS,
                         ids=[f"{v}-{s}" for v, s, _ in VARIANTS])
async def test_published_results_equal_the_engine(tmp_path: Path, mosquitto: Broker,
                                                  variant: str, structure: str,
                                                  stakes: dict[str, int]) -> None:
    config = write_config(tmp_path, mosquitto, variant, structure, stakes,
                          [3000, 2500, 800, 5000])
    clock = SystemClock()
    shoe = SimShoe(config.load_deck(), clock=clock, seed=11)
    pipe = PipeDevice(shoe, clock=clock)
    source = RfidShoeSource("shoe", "sim", clock=clock, opener=pipe.open)
    listener = Listener(mosquitto.host, mosquitto.port, "e2e")
    console = Console(mosquitto.host, mosquitto.port, "e2e", "dealer-e2e")
    ready: asyncio.Future[TableDaemon] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_daemon(config, clock=clock, sources=[source],
                                          ready=ready.set_result))
    try:
        daemon = await asyncio.wait_for(ready, 10)
        # the snapshot is published once the daemon is connected and subscribed
        assert await asyncio.to_thread(listener.wait_for,
                                       lambda lst: lst.latest_state() is not None)
        dealer = MiniDealer(config, shoe, console, daemon, seed=5)
        for played in range(1, 4):
            if shoe.remaining < 40:
                shoe.new_shoe()
                source.new_shoe()
            mirror = await dealer.play()
            want = {(a.seat, a.amount, a.half.value) for r in mirror.results
                    for a in r.awards}
            hand_id = mirror.start_args.hand_id
            assert await asyncio.to_thread(listener.wait_for, lambda lst, n=played: sum(
                e.get("type") == "hand_ended" for e in lst.events()) == n)
            events = listener.events()
            last_hand = [e for e in events if e.get("type") == "hand_ended"][-1].get("hand")
            got = {(e["data"]["seat"], e["data"]["amount"], e["data"]["half"])  # type: ignore[index]
                   for e in events if e.get("type") == "winner" and e.get("hand") == last_hand}
            assert got == want, hand_id
            stacks = dict(mirror.final_stacks)
            state = daemon.controller.checkpoint()
            assert {s.seat: s.stack for s in state.seats} == {
                **{s.seat: s.stack for s in state.seats}, **stacks}
        seqs = [e["seq"] for e in listener.events()]
        assert seqs == list(range(1, len(seqs) + 1))
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        listener.close()
        console.close()
        await pipe.aclose()
