"""The dry run's engine-only check: rebuild each hand from what a host received, as a daemon
would, and compare it with what the dealer's own engine expected.

:func:`check_hand` folds a loopback timeline (:data:`~hardware_sim.ports.TimelineItem`: reads
the host delivered, interleaved with the console commands) into a fresh
:class:`tablectl.game.Hand`: a known card goes to whatever the hand expects next (a table
read must also land on the expected seat, board or burn antenna), actions and manual cards
come from the console. Anything a daemon would have to flag is counted as an anomaly
(``foreign_tag``, ``duplicate_read``, ``misread``, ``out_of_turn``, ``reboot``,
``disconnected``, ``malformed``). The hand is correct when the rebuilt hand dealt the same
cards, ended with the same results and stacks, and the anomalies are exactly those the
faults that fired explain.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from firmware_bridge.client import Delivered, DeviceRebooted, Disconnected, Malformed
from firmware_bridge.messages import Misread, TagSeen
from hardware_sim.console import ConsoleCommand
from hardware_sim.devices import AntennaRole
from hardware_sim.faults import FaultKind
from hardware_sim.ports import TimelineItem
from hardware_sim.records import HandSummary
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tablectl.game import (
    ActionIn,
    ActionKind,
    CardIn,
    CardOutOfTurn,
    DuplicateCard,
    Hand,
    RuleViolation,
    Showdown,
    ShowIn,
)

EXPLAINS: Final[Mapping[FaultKind, frozenset[str]]] = {
    FaultKind.FOREIGN_TAG: frozenset({"foreign_tag"}),
    FaultKind.DUPLICATE_READ: frozenset({"duplicate_read"}),
    FaultKind.MISREAD: frozenset({"misread"}),
    FaultKind.REBOOT: frozenset({"reboot"}),
    FaultKind.UNPLUG: frozenset({"disconnected", "reboot"}),
    FaultKind.WRONG_ANTENNA: frozenset({"out_of_turn"}),
    FaultKind.TWO_AT_ONCE: frozenset({"out_of_turn"}),
}
"""Anomalies each fault kind may cause (byte faults and face-up cards cause none)."""

REQUIRED: Final[Mapping[FaultKind, str]] = {
    FaultKind.FOREIGN_TAG: "foreign_tag", FaultKind.DUPLICATE_READ: "duplicate_read",
    FaultKind.MISREAD: "misread", FaultKind.REBOOT: "reboot", FaultKind.UNPLUG: "disconnected",
    FaultKind.WRONG_ANTENNA: "out_of_turn",
}
"""The anomaly each fault kind must cause (the host has to notice it)."""


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The outcome of :func:`check_hand`.

    Attributes:
        problems: what disagreed (empty: the hand checks out).
        anomalies: what a daemon would have flagged, by kind.
        manual: cards entered with ``manual_card``.
    """

    problems: tuple[str, ...]
    anomalies: Mapping[str, int]
    manual: int

    @property
    def ok(self) -> bool:
        """True when nothing disagreed."""
        return not self.problems

    def line(self) -> str:
        """``check ok`` / ``check FAILED: ...`` plus the anomalies."""
        seen = ", ".join(f"{k}={v}" for k, v in sorted(self.anomalies.items()))
        head = "check ok" if self.ok else "check FAILED: " + "; ".join(self.problems)
        return head + (f" [{seen}]" if seen else "")


def split_hands(timeline: Sequence[TimelineItem]) -> list[list[TimelineItem]]:
    """The timeline cut at each ``start_hand`` command (what came before the first is
    dropped); hand ``n`` (1-based) is item ``n - 1``."""
    hands: list[list[TimelineItem]] = []
    for item in timeline:
        if isinstance(item, ConsoleCommand) and item.name == "start_hand":
            hands.append([])
        if hands:
            hands[-1].append(item)
    return hands


def check_hand(summary: HandSummary, items: Sequence[TimelineItem], *, deck: Deck,
               roles: Sequence[AntennaRole] | None = None) -> CheckReport:
    """Rebuild ``summary``'s hand from ``items`` and compare.

    Args:
        summary: the dealer's summary (its start: seats, stacks, button).
        items: this hand's part of the timeline (see :func:`split_hands`).
        deck: the registered deck. roles: the table's antenna roles (None for a shoe).
    """
    hand = Hand.replay(summary.start, ())
    anomalies: Counter[str] = Counter()
    problems: list[str] = []
    dealt: list[Card] = []
    manual = 0

    def apply(inp: CardIn | ActionIn) -> None:
        hand.apply(inp)
        if isinstance(inp, CardIn) and inp.card is not None:
            dealt.append(inp.card)

    for item in items:
        match item:
            case Delivered(message=TagSeen() as read):
                card = deck.card_for(read.uid_hex)
                if card is None:
                    anomalies["foreign_tag"] += 1
                    continue
                target: dict[str, int | bool] = {}
                if roles is not None:
                    role = roles[read.antenna]
                    if role.kind == "muck":
                        continue
                    if role.kind == "seat":
                        target["seat"] = role.number
                    else:
                        target[role.kind] = True
                if card in dealt and not hand.back_in_play(card):   # stud: recycled cards
                    if roles is None:
                        anomalies["duplicate_read"] += 1
                    continue
                try:
                    apply(CardIn(card, seat=_int(target.get("seat")),
                                 board=_flag(target.get("board")),
                                 burn=_flag(target.get("burn"))))
                except DuplicateCard:
                    anomalies["duplicate_read"] += 1
                except CardOutOfTurn:
                    anomalies["out_of_turn"] += 1
            case Delivered(message=Misread()):
                anomalies["misread"] += 1
            case DeviceRebooted():
                anomalies["reboot"] += 1
            case Disconnected():
                anomalies["disconnected"] += 1
            case Malformed():
                anomalies["malformed"] += 1
            case ConsoleCommand(name="action", args=args) if args.get("kind") == "show":
                seat = _int(args.get("seat"))
                if isinstance(hand.expected(), Showdown) and seat is not None:
                    hand.apply(ShowIn(seat))
            case ConsoleCommand(name="action", args=args):
                amount = args.get("amount")
                try:
                    apply(ActionIn(_int(args.get("seat")) or 0, ActionKind(str(args["kind"])),
                                   amount if isinstance(amount, int) else None))
                except RuleViolation as exc:
                    problems.append(f"action {dict(args)} refused: {exc.reason}")
            case ConsoleCommand(name="manual_card", args=args):
                manual += 1
                try:
                    apply(CardIn(Card.parse(str(args["card"])), seat=_int(args.get("seat")),
                                 board=_flag(args.get("board")), burn=_flag(args.get("burn"))))
                except RuleViolation as exc:
                    problems.append(f"manual card {dict(args)} refused: {exc.reason}")
            case _:
                pass

    expected_cards = [d.card for d in summary.cards]
    if dealt != expected_cards:
        problems.append(f"cards differ: host {' '.join(map(str, dealt))} / dealer "
                        f"{' '.join(map(str, expected_cards))}")
    if not hand.is_done:
        problems.append(f"the rebuilt hand is not over (expects {hand.expected()})")
    elif hand.results != summary.results:
        problems.append("results differ")
    if tuple(sorted(hand.final_stacks.items())) != summary.final_stacks:
        problems.append("final stacks differ")
    fired = {f.plan.kind for f in summary.faults}
    allowed = set().union(*(EXPLAINS.get(k, frozenset()) for k in fired))
    for kind in anomalies:
        if kind not in allowed:
            problems.append(f"unexplained anomaly {kind} x{anomalies[kind]}")
    for kind in fired:
        need = REQUIRED.get(kind)
        if kind is FaultKind.MISREAD and roles is not None:
            # an antenna table has no passage sensor: only the dealer's manual card tells
            if not manual:
                problems.append("fault misread: no manual card entered")
            continue
        if need is not None and not anomalies[need]:
            problems.append(f"fault {kind.value} went unnoticed (no {need})")
    return CheckReport(tuple(problems), dict(anomalies), manual)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _flag(value: object) -> bool | None:
    return True if value is True else None
