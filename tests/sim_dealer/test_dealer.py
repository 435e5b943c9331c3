"""SimDealer on its own: strategies, table handling, hands in a row, console refusals."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import pytest

from firmware_bridge.messages import TagSeen
from hardware_sim.console import RecordingConsole
from hardware_sim.dealer import SimDealer
from hardware_sim.devices import SimShoe, SimTable, standard_roles
from hardware_sim.errors import ConsoleRefusedError, DealerError
from hardware_sim.faults import FaultKind, FaultPlan
from hardware_sim.ports import LoopbackPorts
from hardware_sim.strategies import RandomStrategy, ScriptedAction, ScriptedStrategy
from tablectl.clock import ManualClock
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.game import PRESETS, ActionKind, SeatSetup, Stakes
from tests.sim_dealer.conftest import TABLE


def dealer_on(device: SimShoe | SimTable, clock: ManualClock, **kw: object) -> SimDealer:
    ports = LoopbackPorts({"dev": device}, clock=clock)
    ports.pump()
    console = kw.pop("console", None) or RecordingConsole()
    return SimDealer(**{**TABLE, **kw}, device=device, console=console,  # type: ignore[arg-type]
                     ports=ports)


async def test_passive_weights_never_wager_and_reach_a_showdown(red_deck: Deck) -> None:
    clock = ManualClock()
    passive = {ActionKind.FOLD: 0.0, ActionKind.BET: 0.0, ActionKind.RAISE: 0.0}
    dealer = dealer_on(SimShoe(red_deck, clock=clock, seed=1), clock,
                       strategy=RandomStrategy(3, passive))
    summary = await dealer.play_hand()
    assert {a.kind for a in summary.actions} <= {ActionKind.CHECK, ActionKind.CALL}
    # everyone sees the river: 3 x 2 hole cards, 3 burns, 5 board cards
    assert len(summary.cards) == 14
    # three callers of the 200 big blind, nothing more: a 600 pot
    assert sum(r.amount for r in summary.results) == 600


async def test_hands_in_a_row_carry_stacks_and_move_the_button(red_deck: Deck) -> None:
    clock = ManualClock()
    dealer = dealer_on(SimShoe(red_deck, clock=clock, seed=2), clock, seed=2)
    first, second, third = await dealer.play(3)
    assert [h.start.button for h in (first, second, third)] == [1, 3, 5]
    for before, after in ((first, second), (second, third)):
        # stacks carry over; a seat that lost everything sits out
        assert {s.seat: s.stack for s in after.start.seats} == {
            seat: stack for seat, stack in before.final_stacks if stack > 0}
    assert [h.hand_id for h in (first, second, third)] == [
        "sim-000001", "sim-000002", "sim-000003"]
    names = [c.name for c in first.commands]
    assert names[0] == "start_hand" and names[-1] == "next_hand"
    assert first.commands[0].args == {}


async def test_stud_deals_from_seat_one_and_the_dealer_does_not_move(red_deck: Deck) -> None:
    clock = ManualClock()
    stud = {"game": GameKind.STUD, "structure": BettingStructure.FIXED_LIMIT,
            "stakes": Stakes(ante=25, bring_in=50, small_bet=100, big_bet=200), "button": 3}
    dealer = dealer_on(SimShoe(red_deck, clock=clock, seed=4), clock, **stud)
    one, two = await dealer.play(2)
    assert one.start.button == two.start.button == 0
    assert [d.target for d in one.cards[:3]] == ["seat1", "seat3", "seat5"]
    # third street: two down, one up each; the bring-in is the first decision
    assert [d.face_up for d in one.cards[:9]] == [False] * 6 + [True] * 3
    assert one.actions[0].kind in (ActionKind.BRING_IN, ActionKind.COMPLETE)


async def test_table_cards_lie_where_dealt_folds_go_to_the_muck_then_all_is_collected(
        red_deck: Deck) -> None:
    clock = ManualClock()
    table = SimTable(standard_roles(5), clock=clock, seed=5, deck=red_deck)
    fold_first = ScriptedStrategy([ScriptedAction(1, ActionKind.FOLD)])
    dealer = dealer_on(table, clock, strategy=fold_first)
    seen: list[tuple[str, Card]] = []
    original_place = table.place

    def spy(antenna: int | str, tag: Card | bytes) -> TagSeen | None:
        role = antenna if isinstance(antenna, str) else str(table.roles[antenna])
        if isinstance(tag, Card):
            seen.append((role, tag))
        return original_place(antenna, tag)

    table.place = spy  # type: ignore[method-assign]
    summary = await dealer.play_hand()
    seat1 = [d.card for d in summary.cards if d.target == "seat1"]
    assert len(seat1) == 2
    assert [("muck", c) for c in seat1] == [s for s in seen if s[0] == "muck"]
    board = [(t, c) for t, c in seen if t.startswith("board")]
    assert [t for t, _ in board] == ["board1", "board2", "board3", "board4", "board5"]
    assert all(not tags for tags in table.present)           # pushed: the table is clear


def test_a_table_without_the_needed_antennas_is_refused(red_deck: Deck) -> None:
    clock = ManualClock()
    small = SimTable(standard_roles(3), clock=clock, deck=red_deck)   # no seat5 antenna
    with pytest.raises(ValueError, match="no seat5 antenna"):
        dealer_on(small, clock)
    with pytest.raises(ValueError, match="wrong-antenna fault needs a table"):
        dealer_on(SimShoe(red_deck, clock=clock), clock,
                  faults=[FaultPlan(FaultKind.WRONG_ANTENNA, 2)])


async def test_scripted_decisions_are_checked_against_the_rules(red_deck: Deck) -> None:
    clock = ManualClock()
    # preflop, seat 1 (left of the big blind) acts first: seat 3 may not act
    wrong_seat = ScriptedStrategy([ScriptedAction(3, ActionKind.CALL)])
    dealer = dealer_on(SimShoe(red_deck, clock=clock), clock, strategy=wrong_seat)
    with pytest.raises(DealerError, match="out of turn"):
        await dealer.play_hand()
    clock = ManualClock()
    too_small = ScriptedStrategy([ScriptedAction(1, ActionKind.RAISE, 300)])
    dealer = dealer_on(SimShoe(red_deck, clock=clock), clock, strategy=too_small)
    with pytest.raises(DealerError, match="400"):
        await dealer.play_hand()


def test_scripted_action_text() -> None:
    assert ScriptedAction.parse("5 Call") == ScriptedAction(5, ActionKind.CALL)
    assert ScriptedAction.parse("2 bring-in") == ScriptedAction(2, ActionKind.BRING_IN)
    for bad in ["call", "x call", "3 shove 100", "3 raise", "3 call 1 2"]:
        with pytest.raises(ValueError, match="bad scripted action"):
            ScriptedAction.parse(bad)


def test_random_strategy_rejects_bad_weights() -> None:
    with pytest.raises(ValueError, match="negative"):
        RandomStrategy(weights={ActionKind.CALL: -1.0})
    with pytest.raises(ValueError, match="probability"):
        RandomStrategy(all_in=2.0)


async def test_a_refused_command_stops_a_strict_dealer(red_deck: Deck) -> None:
    clock = ManualClock()
    console = RecordingConsole(refuse={"action": "illegal_action"})
    dealer = dealer_on(SimShoe(red_deck, clock=clock), clock, console=console)
    with pytest.raises(ConsoleRefusedError, match="illegal_action") as info:
        await dealer.play_hand()
    assert info.value.name == "action"
    reply: Mapping[str, object] = info.value.reply
    assert reply["ok"] is False


async def test_a_refused_clear_error_is_not_fatal(red_deck: Deck, blue_deck: Deck) -> None:
    clock = ManualClock()
    console = RecordingConsole(refuse={"clear_error": "no_such_error"})
    dealer = dealer_on(SimShoe(red_deck, clock=clock), clock, console=console,
                       faults=[FaultPlan(FaultKind.FOREIGN_TAG, 1)], foreign_deck=blue_deck)
    summary = await dealer.play_hand()
    clears = [c for c in summary.commands if c.name == "clear_error"]
    # both codes a daemon may have raised are tried; neither refusal stops the hand
    assert [c.args for c in clears] == [{"code": "second_deck"}, {"code": "unknown_tag"}]
    assert summary.results


async def test_scripted_cards_come_first_then_the_shoe_decides(red_deck: Deck) -> None:
    clock = ManualClock()
    cards = [Card.parse(c) for c in ("2s", "3s", "4s")]
    dealer = dealer_on(SimShoe(red_deck, clock=clock, seed=9), clock, cards=cards,
                       rules=PRESETS[RulesPreset.CASINO],
                       seats=(SeatSetup(1, 1000), SeatSetup(2, 1000)))
    summary = await dealer.play_hand()
    assert [d.card for d in summary.cards[:3]] == cards
    assert len({d.card for d in summary.cards}) == len(summary.cards)


async def test_a_fault_whose_card_never_comes_is_reported_missed(red_deck: Deck) -> None:
    clock = ManualClock()
    late = FaultPlan(FaultKind.DROP, at_card=53)      # no hand deals 53 cards
    later_hand = FaultPlan(FaultKind.DROP, at_card=1, hand=2)
    dealer = dealer_on(SimShoe(red_deck, clock=clock), clock, faults=[late, later_hand])
    summary = await dealer.play_hand()
    assert summary.faults == ()
    assert dealer.missed_faults == (late,)            # hand 2 is not played yet


async def test_when_the_house_wants_hands_shown_the_dealer_shows_them(red_deck: Deck) -> None:
    clock = ManualClock()
    rules = dataclasses.replace(PRESETS[RulesPreset.CASINO], showdown_by_input=True)
    passive = {ActionKind.FOLD: 0.0, ActionKind.BET: 0.0, ActionKind.RAISE: 0.0}
    dealer = dealer_on(SimShoe(red_deck, clock=clock, seed=6), clock, rules=rules,
                       strategy=RandomStrategy(1, passive))
    summary = await dealer.play_hand()
    shows = [c.args for c in summary.commands if c.args.get("kind") == "show"]
    # nobody folds, so all three seats reach the showdown and each is shown by command
    assert sorted(a["seat"] for a in shows) == [1, 3, 5]  # type: ignore[type-var]
    assert summary.results


class TableWithHistory(RecordingConsole):
    """A daemon that already dealt 4 hands: its start_hand says hand 5, button on seat 5, the
    stacks it has."""

    async def command(self, name: str, args: Mapping[str, object]) -> Mapping[str, object]:
        reply = dict(await super().command(name, args))
        if name == "start_hand":
            reply["result"] = {"hand": {"id": "sim-000005", "number": 5}, "button": 5,
                               "seats": [{"seat": 1, "name": "Ada", "stack": 15000},
                                         {"seat": 3, "name": "Brook", "stack": 30000},
                                         {"seat": 5, "name": "Cy", "stack": 15000}]}
        return reply


async def test_the_dealer_deals_the_daemons_hand_when_its_table_has_moved_on(
        red_deck: Deck) -> None:
    clock = ManualClock()
    dealer = dealer_on(SimShoe(red_deck, clock=clock, seed=4), clock,
                       console=TableWithHistory())
    summary = await dealer.play_hand()
    assert summary.hand_id == "sim-000005" and summary.number == 5
    assert summary.start.button == 5
    assert {s.seat: s.stack for s in summary.start.seats} == {1: 15000, 3: 30000, 5: 15000}
    # button 5: seat 1 posts the small blind, seat 3 the big one, seat 5 acts first
    assert summary.actions[0].seat == 5
    assert dealer.button == 1 and dealer.hands_played == 5
