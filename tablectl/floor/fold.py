"""The floor's sans-IO core: a table's event stream, in seq order, folded into rows.

One stream is one ``(table, epoch)``. Its :class:`StreamState` is all the floor needs to go on
with it: the last seq applied and the hand under way. It is plain JSON (``to_json``), so the
store keeps it beside the rows, in the same transaction, and any worker can continue a stream
another worker started (several workers share the tables through MQTT shared subscriptions;
docs/floor.md).

:func:`advance` is the exactly-once step. Given a stream's state and the events the store holds
for it beyond ``applied`` (in any order, duplicates collapsed by seq), it applies the contiguous
run ``applied+1, applied+2, ...`` and stops at the first missing seq, which it reports as a
:class:`~tablectl.floor.model.Gap` (the shell asks the daemon to replay it). An event at or
below ``applied`` is never applied again: that, and the ``(table, epoch, seq)`` key of every
row, is why a redelivered message, a replayed range or a second worker changes nothing.

A daemon restart opens a new epoch while its hand may still be under way (the journal carries
it over): :meth:`StreamState.carried` starts the new stream with the previous stream's open
hand, which the new epoch's events then continue (or drop, if they belong to another hand).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from tablectl.floor.model import (
    ActionRow,
    BoardRow,
    FloorEvent,
    Gap,
    HandEndRow,
    HandRow,
    PotRow,
    Row,
    ShowdownRow,
    UndoRow,
    WinnerRow,
)
from tablectl.floor.rules import HouseRules, Shown


@dataclass(frozen=True, slots=True)
class OpenHand:
    """The hand under way on a stream.

    Attributes:
        id: the floor's hand id (``table:epoch:seq`` of its ``hand_started``).
        journal_hand: the daemon's hand id (the envelopes' ``hand``), to tell whether a new
            epoch's events still belong to it.
        street: the current street (from ``cards_dealt`` and ``board``).
        actions: ``(epoch, seq)`` of its actions still standing, newest last (an ``undo``
            takes back the newest).
        dealt_in: players dealt in.
        shown: the hands shown down so far.
        winners: ``(seat, half)`` of every award so far.
        won: chips awarded so far.
        game: the table's game when the hand began (variant, structure, ...), if known.
        runs: how many times the board is run (the ``runs`` event; 1 until the players agree,
            and again after an ``undo`` takes the count back).
    """

    id: str
    journal_hand: int | None
    street: str | None = None
    actions: tuple[tuple[str, int], ...] = ()
    dealt_in: int = 0
    shown: tuple[Shown, ...] = ()
    winners: tuple[tuple[int, str], ...] = ()
    game: Mapping[str, Any] | None = None
    won: int = 0
    runs: int = 1

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (the store keeps it with the stream)."""
        return {"id": self.id, "journal_hand": self.journal_hand, "street": self.street,
                "won": self.won,
                "actions": [list(a) for a in self.actions], "dealt_in": self.dealt_in,
                "shown": [s.to_json() for s in self.shown],
                "winners": [list(w) for w in self.winners],
                "game": dict(self.game) if self.game is not None else None,
                "runs": self.runs}

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> OpenHand:
        """Inverse of :meth:`to_json`."""
        return cls(id=str(body["id"]), journal_hand=body.get("journal_hand"),
                   street=body.get("street"),
                   actions=tuple((str(e), int(s)) for e, s in body.get("actions", [])),
                   dealt_in=int(body.get("dealt_in", 0)),
                   shown=tuple(Shown.from_json(s) for s in body.get("shown", [])),
                   winners=tuple((int(s), str(h)) for s, h in body.get("winners", [])),
                   game=body.get("game"), won=int(body.get("won", 0)),
                   runs=int(body.get("runs", 1)))


@dataclass(frozen=True, slots=True)
class StreamState:
    """Where a stream stands: ``applied`` is the last seq folded in (0: none yet)."""

    applied: int = 0
    hand: OpenHand | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (``applied`` is kept in its own column too)."""
        return {"applied": self.applied,
                "hand": self.hand.to_json() if self.hand is not None else None}

    @classmethod
    def from_json(cls, body: Mapping[str, Any] | None) -> StreamState:
        """Inverse of :meth:`to_json` (None: a new stream)."""
        if not body:
            return cls()
        hand = body.get("hand")
        return cls(applied=int(body.get("applied", 0)),
                   hand=OpenHand.from_json(hand) if hand else None)

    @classmethod
    def carried(cls, previous: StreamState | None) -> StreamState:
        """A new epoch's first state: nothing applied, the previous stream's open hand."""
        return cls(hand=previous.hand if previous is not None else None)


@dataclass(frozen=True, slots=True)
class Advance:
    """What :func:`advance` did.

    Attributes:
        state: the stream's new state.
        rows: the rows to write, in order.
        applied: the events applied, in seq order.
        gap: the first missing range, when events beyond it are waiting (else None).
    """

    state: StreamState
    rows: list[Row]
    applied: list[FloorEvent]
    gap: Gap | None


def advance(stream: tuple[str, str], state: StreamState, pending: Mapping[int, FloorEvent], *,
            max_seen: int = 0,
            rules: HouseRules | None = None, game: Mapping[str, Any] | None = None,
            stakes: Mapping[str, Any] | None = None) -> Advance:
    """Apply the contiguous events after ``state.applied`` (see the module docstring).

    Args:
        stream: ``(table, epoch)``.
        state: the stream's state.
        pending: events of this stream by seq (those at or below ``applied`` are ignored).
        max_seen: the highest seq known to exist (a snapshot's seq may reveal events that no
            message brought yet); a gap is reported up to it too.
        rules: house jackpot / high-hand rules, checked at each hand's end.
        game / stakes: the table's game and stakes from its latest snapshot (for new hands).
    """
    rows: list[Row] = []
    applied: list[FloorEvent] = []
    seq = state.applied
    hand = state.hand
    while (event := pending.get(seq + 1)) is not None:
        hand = _fold(hand, event, rows, rules=rules, game=game, stakes=stakes)
        applied.append(event)
        seq += 1
    waiting = sorted(s for s in pending if s > seq)
    top = max(waiting[-1] if waiting else 0, max_seen)
    gap = None
    if top > seq:   # waiting[0] > seq + 1, or it would have been applied
        gap = Gap(stream[0], stream[1], seq + 1, waiting[0] - 1 if waiting else top)
    return Advance(StreamState(applied=seq, hand=hand), rows, applied, gap)


def hand_id(event: FloorEvent) -> str:
    """The floor's id of the hand an event starts: ``table:epoch:seq``."""
    return f"{event.table}:{event.epoch}:{event.seq}"


def _int(data: Mapping[str, Any], key: str, default: int = 0) -> int:
    value = data.get(key, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _run(data: Mapping[str, Any]) -> int:
    """Which run an event is about (1 in a hand run once)."""
    return _int(data, "run", 1)


def _board(data: Mapping[str, Any]) -> int:
    """Which board an event is about (1 unless the hand has two)."""
    return _int(data, "board", 1)


def _fold(hand: OpenHand | None, ev: FloorEvent, rows: list[Row], *,
          rules: HouseRules | None, game: Mapping[str, Any] | None,
          stakes: Mapping[str, Any] | None) -> OpenHand | None:
    """One event: append its rows, return the hand under way after it."""
    d = ev.data
    if ev.type == "hand_started":
        # a hand names its own game and stakes (docs/mqtt.md §8.1); the snapshot is the
        # fallback for a stream written before hand_started carried them
        game = d["game"] if isinstance(d.get("game"), dict) else game
        stakes = d["stakes"] if isinstance(d.get("stakes"), dict) else stakes
        raw_ref = d.get("hand")
        ref: Mapping[str, Any] = raw_ref if isinstance(raw_ref, dict) else {}
        seats = tuple(s for s in d.get("seats", []) if isinstance(s, dict))
        new = OpenHand(id=hand_id(ev), journal_hand=ev.hand, dealt_in=len(seats), game=game)
        rows.append(HandRow(id=new.id, table=ev.table, epoch=ev.epoch, seq=ev.seq,
                            journal_hand=ev.hand, name=str(ref.get("id", new.id)),
                            number=_int(ref, "number"), button=d.get("button"),
                            seats=seats, started_at=ev.ts, game=game, stakes=stakes,
                            bomb=_int(d, "bomb") if "bomb" in d else None,
                            boards=2 if d.get("double_board") is True else 1))
        return new
    if hand is None:
        return None                     # between hands (errors, devices, seats): no rows
    if ev.hand is not None and hand.journal_hand is not None and ev.hand != hand.journal_hand:
        return None                     # a carried-over hand that this epoch did not continue
    key = (ev.table, ev.epoch, ev.seq)
    if ev.type in ("action", "forced_bet"):
        forced = ev.type == "forced_bet"
        rows.append(ActionRow(*key, hand_id=hand.id, street=hand.street, seat=_int(d, "seat"),
                              kind=str(d.get("kind", "")), amount=_int(d, "amount"),
                              to=None if forced else _int(d, "to"),
                              all_in=bool(d.get("all_in", False)), forced=forced))
        if forced and d.get("kind") != "bring_in":
            return hand                 # blinds and antes cannot be undone
        return replace(hand, actions=(*hand.actions, (ev.epoch, ev.seq)))
    if ev.type == "cards_dealt":
        return replace(hand, street=str(d.get("street", hand.street)))
    if ev.type == "board":
        cards = tuple(c if isinstance(c, str) else None for c in d.get("cards", []))
        street = str(d.get("street", hand.street or ""))
        rows.append(BoardRow(*key, hand_id=hand.id, street=street, cards=cards,
                             run=_run(d), board=_board(d)))
        return replace(hand, street=street)
    if ev.type == "runs":
        return replace(hand, runs=_int(d, "count", 1))
    if ev.type == "pot":
        pots = tuple(p for p in d.get("pots", []) if isinstance(p, dict))
        rows.append(PotRow(*key, hand_id=hand.id, street=str(d.get("street", "")), pots=pots,
                           total=sum(_int(p, "amount") for p in pots)))
        return hand
    if ev.type == "showdown":
        shown = Shown(seat=_int(d, "seat"), cards=tuple(str(c) for c in d.get("cards", [])),
                      best=tuple(str(c) for c in d.get("best", [])))
        rows.append(ShowdownRow(*key, hand_id=hand.id, seat=shown.seat, cards=shown.cards,
                                best=shown.best, high=d.get("high"), low=d.get("low"),
                                run=_run(d), board=_board(d)))
        return replace(hand, shown=(*hand.shown, shown))
    if ev.type == "winner":
        rows.append(WinnerRow(*key, hand_id=hand.id, pot=_int(d, "pot"), seat=_int(d, "seat"),
                              amount=_int(d, "amount"), half=str(d.get("half", "whole")),
                              description=str(d.get("description", "")), run=_run(d),
                              board=_board(d)))
        return replace(hand, winners=(*hand.winners, (_int(d, "seat"), str(d.get("half")))),
                       won=hand.won + _int(d, "amount"))
    if ev.type == "correction" and d.get("kind") == "undo":
        raw = d.get("undone")
        undone: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
        if undone.get("kind") == "run_it":     # the run count taken back, not a decision
            return replace(hand, runs=1)
        if undone.get("kind") in ("show", "muck") or not hand.actions:
            return hand
        epoch, seq = hand.actions[-1]
        rows.append(UndoRow(ev.table, epoch, seq))
        return replace(hand, actions=hand.actions[:-1])
    if ev.type == "hand_ended":
        stacks = tuple(s for s in d.get("stacks", []) if isinstance(s, dict))
        result = str(d.get("result", "settled"))
        rows.append(HandEndRow(hand_id=hand.id, result=result, stacks=stacks,
                               rake=_int(d, "rake"), pot=hand.won + _int(d, "rake"),
                               ended_at=ev.ts, runs=hand.runs))
        if rules is not None and result == "settled":
            rows.extend(rules.flags(hand.id, hand.game, hand.dealt_in, hand.shown,
                                    hand.winners))
        return None
    return hand


__all__ = ["Advance", "OpenHand", "StreamState", "advance", "hand_id"]

