"""Turning the engine's events and views into the MQTT payload bodies (docs/mqtt.md §8).

:class:`EventFolder` folds a hand's engine events into public and secure event bodies while
keeping what the snapshots need and the engine does not keep (who was revealed at showdown, the
last action, the awards with their cards). It is rebuilt from ``hand.events`` after a
correction, so it never drifts from the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from tablectl.controller.outcome import Event
from tablectl.domain.cards import Card
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import (
    ActionKind,
    ActionTaken,
    BetReturned,
    BoardDealt,
    Burned,
    CardDealt,
    ForcedBet,
    ForcedKind,
    HandEnded,
    HandEvent,
    HandFaceUp,
    LegalActions,
    PotAwarded,
    PotView,
    RakeTaken,
    RunsChosen,
    ShowdownHand,
    StreetEnded,
)

FORCED_KINDS: Final = {
    ForcedKind.ANTE: "ante", ForcedKind.BIG_BLIND_ANTE: "big_blind_ante",
    ForcedKind.SMALL_BLIND: "small_blind", ForcedKind.BIG_BLIND: "big_blind",
    ForcedKind.STRADDLE: "straddle",
}
"""Engine forced-bet kinds -> payload kinds (``bring_in`` comes from the bring-in action)."""


def action_name(kind: ActionKind) -> str:
    """Payload spelling of an action kind (snake case: ``bring_in``)."""
    return kind.value.replace("-", "_")


def card_text(card: Card | None) -> str | None:
    """``"Ah"`` (``str(card)``), or None for a card nobody read.

    >>> card_text(Card.parse("ah")), card_text(None)
    ('Ah', None)
    """
    # rank and suit are StrEnums, each its own value: their sum is the plain str of the card,
    # several times faster than str(card) (the snapshots spell every card they show)
    return card.rank + card.suit if card is not None else None


def pots_json(pots: Sequence[PotView]) -> list[JsonValue]:
    """``[{"amount", "eligible"}]``, main pot first."""
    return [{"amount": p.amount, "eligible": list(p.eligible)} for p in pots]


def legal_json(legal: LegalActions) -> list[JsonValue]:
    """The ``to_act.legal`` list: fold, check, call, bring_in, then the wager with min/max."""
    out: list[JsonValue] = []
    kinds = legal.kinds
    if ActionKind.FOLD in kinds:
        out.append({"kind": "fold"})
    if ActionKind.CHECK in kinds:
        out.append({"kind": "check"})
    if ActionKind.CALL in kinds:
        out.append({"kind": "call", "amount": legal.call_amount})
    if ActionKind.BRING_IN in kinds:
        out.append({"kind": "bring_in", "amount": legal.bring_in_amount})
    if legal.bet_kind is not None and legal.bet_kind in kinds:
        out.append({"kind": action_name(legal.bet_kind), "min": legal.min_to,
                    "max": legal.max_to})
    return out


class EventFolder:
    """Folds one hand's engine events into payload bodies and snapshot extras.

    Args:
        hand: ``{"id", "number"}`` of the hand (carried by secure events).
        stacks: seat -> stack before the forced bets.
        double_board: a double-board hand: the board, showdown and winner events name their
            board (``board`` 1 or 2; a hand run more than once names its ``run``).
    """

    def __init__(self, hand: dict[str, JsonValue], stacks: dict[int, int], *,
                 double_board: bool = False) -> None:
        self._which = "board" if double_board else "run"
        self._hand = hand
        self.stacks = dict(stacks)
        self.cards: dict[int, list[Card | None]] = {seat: [] for seat in stacks}
        self.board: list[Card | None] = []
        self.runs = 1
        self.boards: list[list[Card | None]] = [self.board]   # every run's board, run 1 first
        self.revealed: dict[int, tuple[Card, ...]] = {}
        self.last_action: dict[str, JsonValue] | None = None
        self.awards: list[dict[str, JsonValue]] = []
        self.rake = 0
        self.showdown = False
        self.best: dict[int, tuple[Card, ...]] = {}
        self.best_of_run: dict[tuple[int, int], tuple[Card, ...]] = {}  # (run, seat) -> five

    def feed(self, events: Sequence[HandEvent]) -> tuple[list[Event], list[Event]]:
        """Public and secure event bodies for ``events``, in order."""
        public: list[Event] = []
        secure: list[Event] = []
        for ev in events:
            match ev:
                case ForcedBet():
                    self.stacks[ev.seat] -= ev.amount
                    public.append(Event("forced_bet", {
                        "seat": ev.seat, "kind": FORCED_KINDS[ev.kind], "amount": ev.amount,
                        "all_in": ev.all_in}))
                case CardDealt():
                    self.cards[ev.seat].append(ev.card)
                    public_now = ev.face_up or ev.seat in self.revealed  # a hand face up
                    up = [str(ev.card)] if public_now and ev.card is not None else []
                    if ev.seat in self.revealed:
                        self.revealed[ev.seat] = tuple(c for c in self.cards[ev.seat]
                                                     if c is not None)
                    public.append(Event("cards_dealt", {
                        "seat": ev.seat, "count": 1, "up": list(up),
                        "street": ev.street.value}))
                    secure.append(Event("holecards", {
                        "hand": dict(self._hand), "seat": ev.seat,
                        "cards": [card_text(c) for c in self.cards[ev.seat]]}))
                case BoardDealt():
                    public.append(self._board_dealt(ev))
                case RunsChosen():
                    self.runs = ev.count
                    public.append(Event("runs", {"count": ev.count,
                                                 "board": [card_text(c) for c in ev.board]}))
                case Burned():
                    # which card is never public; that one was burned is (it ends the undo of
                    # the last decision, so the snapshot changes: docs/mqtt.md 8.1)
                    public.append(Event("burn", {"street": ev.street.value}))
                case ActionTaken():
                    self.stacks[ev.seat] -= ev.added
                    if ev.kind is ActionKind.BRING_IN:
                        public.append(Event("forced_bet", {
                            "seat": ev.seat, "kind": "bring_in", "amount": ev.added,
                            "all_in": ev.all_in}))
                    else:
                        public.append(Event("action", {
                            "seat": ev.seat, "kind": action_name(ev.kind), "amount": ev.added,
                            "to": ev.to, "all_in": ev.all_in, "stack": self.stacks[ev.seat]}))
                    self.last_action = {"seat": ev.seat, "kind": action_name(ev.kind),
                                        "amount": ev.added}
                case BetReturned():
                    self.stacks[ev.seat] += ev.amount
                    public.append(Event("bet_returned", {
                        "seat": ev.seat, "amount": ev.amount, "stack": self.stacks[ev.seat]}))
                case StreetEnded():
                    public.append(Event("pot", {"pots": pots_json(ev.pots),
                                                "street": ev.street.value}))
                case HandFaceUp():
                    shown = list(ev.cards)
                    if shown != self.cards[ev.seat]:   # cards the table did not read
                        self.cards[ev.seat] = shown
                        secure.append(Event("holecards", {
                            "hand": dict(self._hand), "seat": ev.seat,
                            "cards": [card_text(c) for c in shown]}))
                    self.revealed[ev.seat] = tuple(c for c in shown if c is not None)
                    public.append(Event("face_up", {
                        "seat": ev.seat, "cards": [str(c) for c in self.revealed[ev.seat]],
                        "street": ev.street.value}))
                case ShowdownHand():
                    self.showdown = True
                    hole = tuple(c for c in self.cards[ev.seat] if c is not None)
                    self.revealed[ev.seat] = hole
                    if ev.run <= 1:
                        self.best[ev.seat] = tuple(ev.cards)
                    self.best_of_run[ev.run, ev.seat] = tuple(ev.cards)
                    public.append(Event("showdown", {
                        "seat": ev.seat, "cards": [str(c) for c in hole],
                        "best": [str(c) for c in ev.cards], "high": ev.high, "low": ev.low,
                        **({self._which: ev.run} if ev.run else {})}))
                case RakeTaken():
                    self.rake += ev.amount
                case PotAwarded():
                    self.stacks[ev.seat] += ev.amount
                    best = [str(c) for c in self.best_of_run.get((ev.run, ev.seat), ())]
                    award: dict[str, JsonValue] = {
                        "pot": ev.pot_index, "seat": ev.seat, "amount": ev.amount,
                        "half": ev.half.value, "description": ev.description,
                        **({self._which: ev.run} if ev.run else {})}
                    public.append(Event("winner", dict(award)))
                    self.awards.append({**award, "cards": best})
                case HandEnded():
                    public.append(Event("hand_ended", {
                        "hand": dict(self._hand), "result": "settled",
                        "stacks": [{"seat": s, "stack": n} for s, n in ev.stacks],
                        "rake": self.rake}))
        return public, secure

    def _board_dealt(self, ev: BoardDealt) -> Event:
        """A board card: the ``board`` event with its run's board so far (``run`` only in a
        hand run more than once)."""
        if ev.run > len(self.boards):    # the next run starts from the cards the runs share
            self.boards.append(self.board[:ev.index])
        board = self.boards[ev.run - 1]
        board.append(ev.card)
        several = self.runs > 1 or self._which == "board"
        return Event("board", {"cards": [card_text(c) for c in board],
                               "street": ev.street.value,
                               **({self._which: ev.run} if several else {})})
