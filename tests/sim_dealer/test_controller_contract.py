"""The dealer against the real hand controller (sans-IO, no daemon): every scenario's reads
go in as the daemon's sources would hand them on, every console command as a Command, and
the controller must settle each hand exactly as the dealer's own engine did."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from firmware_bridge.client import Delivered, DeviceRebooted
from firmware_bridge.messages import Misread, TagGone, TagSeen
from hardware_sim.devices import SimDevice, SimTable
from hardware_sim.play import build_device, make_dealer
from hardware_sim.ports import LoopbackPorts
from hardware_sim.scenario import Scenario, find_scenarios, load_scenario
from hardware_sim.turns import Turn, mismatch
from tablectl.clock import ManualClock
from tablectl.controller import (
    CardRead,
    Command,
    HandController,
    Location,
    SeatState,
    TableSetup,
    TableState,
)
from tablectl.controller.inputs import ReadMissed, TagLeft
from tablectl.domain.deck import Deck
from tablectl.game import PotResult
from tests.sim_dealer.conftest import DECKS, SCENARIOS

USER = "floor-sim"


class ControllerLink:
    """Console and device ports in one: reads reach the controller as they leave the device,
    commands become :class:`Command` inputs; the results of each hand are kept."""

    def __init__(self, scenario: Scenario, ports: LoopbackPorts, device: SimDevice,
                 clock: ManualClock) -> None:
        decks = {p.stem: Deck.load(p) for p in DECKS.glob("*.csv")}
        setup = TableSetup(table=scenario.table, game=scenario.game,
                           structure=scenario.structure, stakes=scenario.stakes,
                           deck_id=scenario.deck.deck_id, decks=decks,
                           roles={USER: "floor"}, preset=scenario.preset,
                           rules=scenario.rules)
        state = TableState.initial([SeatState(s.seat, s.name, s.stack) for s in scenario.seats],
                                   scenario.button)
        self.controller = HandController(setup, state)
        self.ports, self.device, self.clock = ports, device, clock
        self.roles = device.roles if isinstance(device, SimTable) else None
        self._seen = 0
        self._ids = 0
        self.results: list[tuple[PotResult, ...]] = []
        self.refused: list[dict[str, object]] = []
        self.turns = 0
        self.wrong_turns: list[str] = []

    def _at(self) -> datetime:
        return self.clock.now() + timedelta(microseconds=self._seen)

    def _feed(self) -> None:
        timeline = self.ports.timeline
        while self._seen < len(timeline):
            item = timeline[self._seen]
            self._seen += 1
            if isinstance(item, DeviceRebooted):
                # what tablectl.sources.rfid reports for a shoe's reboot mid-deal
                self.controller.handle(ReadMissed(item.device, 0, "reader restarted",
                                                  self._at()))
                continue
            if not isinstance(item, Delivered):
                continue
            msg = item.message
            if isinstance(msg, Misread):
                self.controller.handle(ReadMissed(item.device, msg.antenna, "misread",
                                                  self._at()))
                continue
            location = None
            if self.roles is not None and isinstance(msg, TagSeen | TagGone):
                role = self.roles[msg.antenna]
                location = Location.parse(f"{role.kind} {role.number}" if role.number
                                          else role.kind)
            if isinstance(msg, TagSeen):
                self.controller.handle(CardRead(source=item.device, uid=msg.uid_hex,
                                                antenna=msg.antenna, location=location,
                                                read_id=f"r{self._seen}", at=self._at()))
            elif isinstance(msg, TagGone):
                self.controller.handle(TagLeft(item.device, msg.uid_hex, msg.antenna,
                                               self._at(), location))

    # DevicePorts
    async def step(self) -> None:
        await self.ports.step()
        self._feed()

    async def unplug(self, device: SimDevice) -> None:
        await self.ports.unplug(device)
        self._feed()

    async def replug(self, device: SimDevice) -> None:
        await self.ports.replug(device)
        self._feed()

    def arm(self, device: SimDevice, kind: str, seconds: float = 0.0) -> None:
        self.ports.arm(device, kind, seconds)

    # Console
    async def wait_turn(self, turn: Turn) -> None:
        # the reads are in: the real controller's public snapshot must show the turn the
        # dealer's engine expects (what the MQTT console waits for against a daemon)
        self._feed()
        self.turns += 1
        why = mismatch(self.controller.public_snapshot(), turn)
        if why is not None:
            self.wrong_turns.append(f"{turn.text()}: {why}")

    async def command(self, name: str, args: Mapping[str, object]) -> Mapping[str, object]:
        self._feed()
        if name == "next_hand":
            view = self.controller.hand_view()
            self.results.append(view.results if view is not None else ())
        self._ids += 1
        out = self.controller.handle(Command(name, USER, f"c{self._ids}", self._at(),
                                             dict(args)))  # type: ignore[arg-type]
        reply = out.reply
        assert reply is not None
        if reply.ok:
            return {"id": reply.id, "ok": True, "result": dict(reply.result)}
        refusal = {"id": reply.id, "ok": False,
                   "error": {"code": str(reply.code), "reason": reply.reason}}
        if name != "clear_error":
            self.refused.append({"command": name, "args": dict(args), **refusal})
        return refusal


ALL = find_scenarios(SCENARIOS)


@pytest.mark.parametrize("path", ALL, ids=[p.stem for p in ALL])
async def test_the_controller_settles_every_hand_as_the_dealer_expects(path: Path) -> None:
    scenario = load_scenario(path)
    clock = ManualClock()
    device = build_device(scenario, clock)
    ports = LoopbackPorts({scenario.device: device}, clock=clock, seed=scenario.seed)
    ports.pump()
    link = ControllerLink(scenario, ports, device, clock)
    dealer = make_dealer(scenario, device=device, console=link, ports=link)
    summaries = await dealer.play(scenario.hands)
    assert link.refused == []
    assert link.turns > 0 and link.wrong_turns == []
    assert link.results == [s.results for s in summaries]


async def test_broke_players_rebuy_and_the_controller_agrees_on_every_stack() -> None:
    # the demo's first scenario and seed: without rebuys the players go broke before 20 hands
    scenario = load_scenario(SCENARIOS / "clean-holdem-nl.toml")
    runs = {}
    for rebuy in (False, True):
        clock = ManualClock()
        device = build_device(scenario, clock, seed=7)
        ports = LoopbackPorts({scenario.device: device}, clock=clock, seed=7)
        ports.pump()
        link = ControllerLink(scenario, ports, device, clock)
        dealer = make_dealer(scenario, device=device, console=link, ports=link, seed=7,
                             rebuy=rebuy)
        runs[rebuy] = (await dealer.play(20), dealer, link)
    broke, _, _ = runs[False]
    assert len(broke) < 20
    summaries, dealer, link = runs[True]
    assert len(summaries) == 20
    assert link.refused == []
    assert link.turns > 0 and link.wrong_turns == []
    assert link.results == [s.results for s in summaries]
    buy_ins = {s.seat: s.stack for s in scenario.seats}
    assert dealer.rebuys and all(amount == buy_ins[seat] for _, seat, amount in dealer.rebuys)
    # the controller's table has the rebought stacks, as the dealer does
    state = link.controller.checkpoint()
    assert {s.seat: s.stack for s in state.seats} == dealer.stacks
