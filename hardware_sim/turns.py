"""Whether the daemon expects a decision now, told from its published state snapshot (sans-IO).

The simulated dealer deals cards through a device (a serial line) and enters decisions through
the MQTT console: two channels with no order between them. Dealt at full speed, the dealer's
decision can reach the daemon before the card that opened the betting round does, and the
daemon refuses it (``out_of_turn``). A human dealer looks at the console before pressing a
button; the simulated one waits until the daemon's retained snapshot
(``poker/v1/tables/{t}/state``, :mod:`tablectl.controller.snapshots`) shows the same hand,
every card the dealer dealt (per seat and on the board), and the seat the dealer wants to act
for as the one to act (or, for a showdown decision, no betting decision pending).

:class:`Turn` is what the dealer expects; :func:`turn_of` builds it from the dealer's own rules
engine; :class:`SnapshotWatch` keeps the newest snapshot of a stream of state messages;
:func:`mismatch` says why a snapshot is not yet that turn (None: it is).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from tablectl.game import Hand


@dataclass(frozen=True, slots=True)
class Turn:
    """A decision the dealer is about to enter.

    Attributes:
        hand_id: the hand (the daemon's id, as its ``start_hand`` reply named it).
        seat: who decides. showdown: a show/muck decision (no betting decision pending).
        cards: ``(seat, number of cards in front of it)`` for every seat in the hand.
        board: the number of board cards.
    """

    hand_id: str
    seat: int
    showdown: bool
    cards: tuple[tuple[int, int], ...]
    board: int

    def text(self) -> str:
        """``seat 3 to act in hand t1-000004 (cards 1:2 3:2, board 3)``."""
        cards = " ".join(f"{s}:{n}" for s, n in self.cards)
        what = "to show or muck" if self.showdown else "to act"
        return f"seat {self.seat} {what} in hand {self.hand_id} (cards {cards}, board {self.board})"


def turn_of(hand: Hand, seat: int, *, showdown: bool = False) -> Turn:
    """The :class:`Turn` of ``seat`` in ``hand`` as the dealer's engine has it now."""
    view = hand.view()
    return Turn(view.hand_id, seat, showdown,
                tuple((s.seat, len(s.cards)) for s in view.seats), len(view.board))


def mismatch(snapshot: Mapping[str, object] | None, turn: Turn) -> str | None:
    """Why ``snapshot`` (the ``data`` of a public state message) is not ``turn`` yet, in words;
    None when the daemon expects exactly that decision.

    >>> t = Turn("t1-000001", 3, False, ((1, 2), (3, 2)), 0)
    >>> snap = {"hand": {"id": "t1-000001"}, "board": [], "to_act": {"seat": 3},
    ...         "seats": [{"seat": 1, "cards": [{}, {}]}, {"seat": 2, "cards": []},
    ...                   {"seat": 3, "cards": [{}, {}]}]}
    >>> mismatch(snap, t) is None
    True
    >>> mismatch({**snap, "to_act": {"seat": 1}}, t)
    'the daemon expects seat 1 to act'
    >>> mismatch({**snap, "board": [None]}, t)
    'the daemon has 1 board cards, the dealer dealt 0'
    """
    if snapshot is None:
        return "no state snapshot from the daemon yet"
    hand = snapshot.get("hand")
    hand_id = hand.get("id") if isinstance(hand, Mapping) else None
    if hand_id != turn.hand_id:
        return f"the daemon's snapshot is of hand {hand_id}, not {turn.hand_id}"
    seats = snapshot.get("seats")
    counts: dict[object, int] = {}
    if isinstance(seats, list):
        for entry in seats:
            if isinstance(entry, Mapping):
                cards = entry.get("cards")
                counts[entry.get("seat")] = len(cards) if isinstance(cards, list) else -1
    for seat, dealt in turn.cards:
        have = counts.get(seat, 0)
        if have != dealt:
            return f"the daemon has {have} cards at seat {seat}, the dealer dealt {dealt}"
    board = snapshot.get("board")
    have_board = len(board) if isinstance(board, list) else -1
    if have_board != turn.board:
        return f"the daemon has {have_board} board cards, the dealer dealt {turn.board}"
    to_act = snapshot.get("to_act")
    acting = to_act.get("seat") if isinstance(to_act, Mapping) else None
    if turn.showdown:
        if acting is not None:
            return f"the daemon expects seat {acting} to act, not a showdown"
        return None
    if acting != turn.seat:
        return ("the daemon expects no decision" if acting is None
                else f"the daemon expects seat {acting} to act")
    return None


class SnapshotWatch:
    """The newest public snapshot of one table, fed the payloads of its state topic.

    A message of an older ``seq`` than the one kept (same journal and epoch) is ignored; a new
    journal or epoch (the daemon restarted) replaces it. Payloads that are not a snapshot
    envelope are ignored (every input is hostile).
    """

    def __init__(self) -> None:
        self.snapshot: Mapping[str, object] | None = None
        self._key: tuple[object, object] | None = None
        self._seq = -1

    def feed(self, payload: bytes) -> bool:
        """Take one state message; True when it became the snapshot kept."""
        try:
            env = json.loads(payload.decode("utf-8")) if payload else None
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            return False        # not the table's: anyone may publish on an open broker
        if not isinstance(env, dict):
            return False
        data, seq = env.get("data"), env.get("seq")
        if not isinstance(data, dict) or not isinstance(seq, int) or isinstance(seq, bool):
            return False
        key = (env.get("journal"), env.get("epoch"))
        if key == self._key and seq < self._seq:
            return False
        self._key, self._seq, self.snapshot = key, seq, data
        return True
