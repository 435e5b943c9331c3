"""Every scenario file plays and checks out in the dry run; faults leave the traces they must;
one seed gives one byte stream."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from firmware_bridge.client import Delivered
from firmware_bridge.messages import TagSeen
from hardware_sim.check import check_hand, split_hands
from hardware_sim.console import ConsoleCommand, RecordingConsole
from hardware_sim.play import PlayResult, build_device, make_dealer, play_loopback
from hardware_sim.ports import LoopbackPorts
from hardware_sim.records import HandSummary
from hardware_sim.scenario import find_scenarios, load_scenario
from tablectl.clock import ManualClock
from tablectl.domain.cards import Card
from tablectl.domain.games import GameKind
from tablectl.game import Burned, CardsRecycled, Street
from tests.sim_dealer.conftest import SCENARIOS

ALL = find_scenarios(SCENARIOS)
VARIANTS = {"clean-holdem-fl", "clean-holdem-nl", "clean-holdem-pl", "clean-holdem-one-blind",
            "clean-omaha-fl", "clean-omaha-pl", "clean-omaha-hi-lo-fl", "clean-omaha-hi-lo-pl",
            "clean-holdem-hi-lo-fl", "clean-stud-fl", "clean-stud-hi-lo-fl", "clean-razz-fl"}
FAULTS = {"garbage", "bitflip", "drop", "dup-frame", "delay", "unplug", "reboot",
          "duplicate-read", "foreign-tag", "misread", "wrong-antenna", "two-at-once", "face-up"}


def test_there_is_a_clean_hand_of_every_variant_and_one_scenario_per_fault() -> None:
    names = {p.stem for p in ALL}
    assert names >= VARIANTS
    assert {f"fault-{f}" for f in FAULTS} <= names
    games = {load_scenario(SCENARIOS / f"{n}.toml").game for n in VARIANTS}
    assert games == set(GameKind)


def cards_dealt_twice(cards: list[Card]) -> list[Card]:
    return [c for i, c in enumerate(cards) if c in cards[:i]]


def conserved(summary: HandSummary) -> bool:
    start = sum(s.stack for s in summary.start.seats)
    rake = sum(r.rake for r in summary.results)
    return sum(stack for _, stack in summary.final_stacks) + rake == start


@pytest.mark.parametrize("path", ALL, ids=[p.stem for p in ALL])
async def test_scenario_plays_and_the_host_side_rebuild_agrees(path: Path) -> None:
    scenario = load_scenario(path)
    result = await play_loopback(scenario)
    assert len(result.summaries) == scenario.hands
    for summary, report in zip(result.summaries, result.reports, strict=True):
        assert report.ok, report.problems
        assert conserved(summary)
        cards = [d.card for d in summary.cards]
        recycled = {c for e in summary.events if isinstance(e, CardsRecycled) for c in e.cards}
        recycled |= {e.card for e in summary.events
                     if isinstance(e, Burned) and e.street is Street.SEVENTH and recycled}
        assert len(cards) == len(set(cards)) or set(cards_dealt_twice(cards)) <= recycled
        assert summary.results and sum(a.amount for r in summary.results
                                       for a in r.awards) > 0
    fired = {f.plan.kind for s in result.summaries for f in s.faults}
    assert fired == {f.kind for f in scenario.faults}
    assert result.missed == () and result.ok


async def scenario_result(name: str) -> PlayResult:
    return await play_loopback(load_scenario(SCENARIOS / f"{name}.toml"))


@pytest.mark.parametrize(("name", "anomaly"), [
    ("fault-duplicate-read", "duplicate_read"), ("fault-foreign-tag", "foreign_tag"),
    ("fault-misread", "misread"), ("fault-reboot", "reboot"),
    ("fault-unplug", "disconnected"), ("fault-wrong-antenna", "out_of_turn")])
async def test_device_faults_are_what_a_host_sees(name: str, anomaly: str) -> None:
    result = await scenario_result(name)
    assert result.reports[0].anomalies == {anomaly: 1}


async def test_misread_and_reboot_are_corrected_by_a_manual_card() -> None:
    for name in ("fault-misread", "fault-reboot"):
        result = await scenario_result(name)
        summary = result.summaries[0]
        manual = [c for c in summary.commands if c.name == "manual_card"]
        unread = [d for d in summary.cards if not d.read]
        assert len(manual) == 1 and len(unread) == 1
        assert manual[0].args["card"] == str(unread[0].card)
        assert result.reports[0].manual == 1


async def test_byte_faults_hit_the_wire_and_the_link_recovers() -> None:
    garbage = (await scenario_result("fault-garbage")).links["shoe"]
    assert garbage.applied == {"garbage": 1} and garbage.host_drops >= 1
    flip = (await scenario_result("fault-bitflip")).links["shoe"]
    assert flip.host_drops >= 1 and flip.retransmitted >= 1      # CRC caught it, resent
    drop = (await scenario_result("fault-drop")).links["shoe"]
    assert drop.host_drops == 0 and drop.retransmitted >= 1
    dup = (await scenario_result("fault-dup-frame")).links["shoe"]
    assert dup.host_duplicates == 1
    clean = (await scenario_result("clean-holdem-nl")).links["shoe"]
    assert clean == type(clean)({}, 0, 0, 0)


async def test_two_cards_at_once_share_a_read_time() -> None:
    scenario = load_scenario(SCENARIOS / "fault-two-at-once.toml")
    clock = ManualClock()
    device = build_device(scenario, clock)
    ports = LoopbackPorts({"shoe": device}, clock=clock, seed=scenario.seed)
    ports.pump()
    dealer = make_dealer(scenario, device=device, console=RecordingConsole(
        on_command=ports.timeline.append), ports=ports)
    await dealer.play_hand()
    reads = [e.message for e in ports.timeline if isinstance(e, Delivered)
             and isinstance(e.message, TagSeen)]
    at = scenario.faults[0].at_card
    first, second = reads[at - 1], reads[at]
    assert first.t_ms == second.t_ms and second.index == first.index + 1


async def test_scripted_hand_ends_as_the_script_says() -> None:
    # As Ad v Kh Kd v 7c 2c on Ac Ks 9d 2d 8h: aces win the 2000 pot (see the file).
    result = await scenario_result("scripted-holdem-fl")
    summary = result.summaries[0]
    assert result.ok
    assert [(a.seat, a.amount) for r in summary.results for a in r.awards] == [(3, 2000)]
    assert dict(summary.final_stacks) == {1: 20000, 3: 21000, 5: 19000}
    assert [str(d.card) for d in summary.cards if d.target == "seat3"] == ["As", "Ad"]
    assert [d.target for d in summary.cards].count("burn") == 3


async def test_same_seed_same_bytes_on_the_wire() -> None:
    for name in ("fault-unplug", "clean-stud-hi-lo-fl"):
        scenario = load_scenario(SCENARIOS / f"{name}.toml")
        one = await play_loopback(scenario)
        two = await play_loopback(scenario)
        other = await play_loopback(scenario, seed=scenario.seed + 1)
        device = scenario.device
        assert one.wire[device] == two.wire[device] and len(one.wire[device]) > 500
        assert one.summaries[0].actions == two.summaries[0].actions
        assert other.wire[device] != one.wire[device]


async def test_the_check_fails_when_the_host_saw_something_else() -> None:
    scenario = load_scenario(SCENARIOS / "fault-duplicate-read.toml")
    clock = ManualClock()
    device = build_device(scenario, clock)
    ports = LoopbackPorts({"shoe": device}, clock=clock, seed=1)
    ports.pump()
    dealer = make_dealer(scenario, device=device, console=RecordingConsole(
        on_command=ports.timeline.append), ports=ports)
    summary = await dealer.play_hand()
    items = split_hands(ports.timeline)[0]
    assert check_hand(summary, items, deck=scenario.deck).ok
    # a decision lost on its way: the rebuilt hand disagrees
    actions = [i for i in items if isinstance(i, ConsoleCommand) and i.name == "action"]
    lost = [i for i in items if i is not actions[-1]]
    assert not check_hand(summary, lost, deck=scenario.deck).ok
    # the same reads without the fault that explains them: an unexplained anomaly
    clean = dataclasses.replace(summary, faults=())
    report = check_hand(clean, items, deck=scenario.deck)
    assert any("unexplained anomaly duplicate_read" in p for p in report.problems)
    # the repeated read lost on the way: the fault went unnoticed
    seen: set[bytes] = set()
    quiet = []
    for item in items:
        if isinstance(item, Delivered) and isinstance(item.message, TagSeen):
            if item.message.uid in seen:
                continue
            seen.add(item.message.uid)
        quiet.append(item)
    assert len(quiet) == len(items) - 1
    report = check_hand(summary, quiet, deck=scenario.deck)
    assert report.problems == ("fault duplicate_read went unnoticed (no duplicate_read)",)


@pytest.mark.parametrize(("name", "recycles"), [
    ("short-deck-stud-community-shoe", False), ("short-deck-stud-stub-with-burns-table", True),
    ("short-deck-stud-reshuffle-shoe", True), ("short-deck-stud-reshuffle-table", True)])
async def test_short_deck_scenarios_run_short_on_seventh_street(name: str,
                                                                recycles: bool) -> None:
    """Each stud_short_deck setting is exercised: the deck really runs short, and recycled
    cards are dealt again only where the rule brings them back."""
    result = await play_loopback(load_scenario(SCENARIOS / f"{name}.toml"))
    events = [e for s in result.summaries for e in s.events]
    recycled = [e for e in events if isinstance(e, CardsRecycled)]
    community = [e for e in events if type(e).__name__ == "BoardDealt"]
    assert bool(recycled) is recycles
    assert recycled or community
    if recycles:
        again = [c for s in result.summaries
                 for c in cards_dealt_twice([d.card for d in s.cards])]
        assert again and all(r.ok for r in result.reports)
