"""What the simulated dealer records of a hand it dealt: the cards (:class:`DealtCard`), the
console commands and their replies (:class:`CommandRecord`) and the whole hand
(:class:`HandSummary`), the expected results that :mod:`hardware_sim.check` compares the
daemon's output with."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hardware_sim.faults import FaultRecord
from tablectl.domain.cards import Card
from tablectl.game import ActionIn, HandEvent, HandInput, HandStart, PotResult


@dataclass(frozen=True, slots=True)
class DealtCard:
    """A card the dealer dealt.

    Attributes:
        card: the card. target: ``seatN``, ``boardN`` or ``burn``.
        face_up: dealt face up (stud up cards, or by mistake).
        read: True if the device reported it; False if it was entered with ``manual_card``.
    """

    card: Card
    target: str
    face_up: bool
    read: bool = True


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """A console command the dealer sent and the reply it got."""

    name: str
    args: Mapping[str, object]
    reply: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class HandSummary:
    """What happened in one hand, from the dealer's own engine (the expected results).

    Attributes:
        number: 1 for the dealer's first hand. hand_id: ``{table}-{number:06d}``.
        start: what the dealer's engine was started with (``Hand.replay(start, inputs)``
            rebuilds the hand).
        cards: every card dealt, in order. actions: every decision, in order.
        inputs: the engine inputs. events: the engine's events.
        results: how each pot was settled. final_stacks: (seat, stack) pairs.
        faults: faults that fired. commands: console commands and replies.
    """

    number: int
    hand_id: str
    start: HandStart
    cards: tuple[DealtCard, ...]
    actions: tuple[ActionIn, ...]
    inputs: tuple[HandInput, ...]
    events: tuple[HandEvent, ...]
    results: tuple[PotResult, ...]
    final_stacks: tuple[tuple[int, int], ...]
    faults: tuple[FaultRecord, ...] = ()
    commands: tuple[CommandRecord, ...] = ()

    def line(self, money: Callable[[int], str] = str) -> str:
        """One line for the CLI: game, cards, actions, winners, faults; amounts as ``money``
        writes chip units (the table's money, as the live demo prints it)."""
        start = self.start
        before = {s.seat: s.stack for s in start.seats}
        net = {seat: stack - before.get(seat, 0) for seat, stack in self.final_stacks}
        wins = ", ".join(
            f"seat {a.seat} wins {money(a.amount)}"
            + (f" {a.half.value}" if a.half.value != "whole" else "")
            + (f" ({a.description})" if a.description else "")
            for r in self.results for a in r.awards)
        if wins:
            wins += "; net " + ", ".join(
                f"seat {seat} {'+' if change > 0 else '-'}{money(abs(change))}"
                for seat, change in sorted(net.items()) if change)
        faults = ",".join(f.plan.kind.value for f in self.faults)
        return (f"hand {self.number} {self.hand_id} {start.game.value}/{start.structure.value}: "
                f"{len(self.cards)} cards, {len(self.actions)} actions; {wins or 'no award'}"
                + (f"; faults: {faults}" if faults else ""))
