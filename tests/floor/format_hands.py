"""Hands of the broadcast formats as a table's public event stream, for the floor's tests.

Each hand is dealt through the real controller (:class:`~tablectl.controller.HandController`,
the drivers of tests/controller/helpers.py): its public events, as the daemon publishes them,
become envelopes of one table. Seats 1-3, named P1-P3, the button on seat 1 (seat 2 the small
blind of 50, seat 3 the big blind of 100), 5,000 chips each unless a hand says otherwise.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tablectl.controller import HandController
from tablectl.domain.games import RulesPreset
from tablectl.game import PRESETS, RunItTwice
from tests.controller.helpers import Driver, initial_state, make_setup
from tests.floor.streams import body

HOLE = "2c Kh As 3d Kd Ad"
"""Hole cards in dealing order (seats 2, 3, 1, 2, 3, 1): seat 1 aces, seat 3 kings."""
RUN1 = "4c 7h 8s 9d 5c Jc 6c 2s"
"""Burns and cards of run 1 (or of a single board): 7h 8s 9d Jc 2s, the aces hold."""
RUN2 = "4d Ks 7c 2h 5d Th 6d 3s"
"""Run 2: Ks 7c 2h Th 3s, the kings make a set."""
DOUBLE = "4c 7h 8s 9d Ks 7c 2h 5c Jc Th 6c 2s 3s"
"""A double board's burn and both flops, then each turn and each river for both boards:
board 1 7h 8s 9d Jc 2s (the aces hold), board 2 Ks 7c 2h Th 3s (the kings make a set)."""


def _all_in(d: Driver) -> None:
    """Seat 1 raises all in, seat 2 folds its small blind, seat 3 calls all in."""
    for card in HOLE.split():
        d.read(card)
    for seat, kind, amount in ((1, "raise", 5000), (2, "fold", None), (3, "call", None)):
        out = d.act(seat, kind, amount)
        assert out.reply is not None and out.reply.ok, out.reply


def run_twice(d: Driver) -> None:
    """All in before the flop, run twice: run 1 to seat 1's aces, run 2 to seat 3's set of
    kings; the pot of 10,050 is split 5,025 a run."""
    assert d.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    _all_in(d)
    assert d.cmd("run_it", count=2).reply.ok  # type: ignore[union-attr]
    for card in (RUN1 + " " + RUN2).split():
        d.read(card)


def double_board(d: Driver) -> None:
    """A double board, all in before the flop: board 1 to seat 1's aces, board 2 to seat 3's
    set; the pot of 10,050 is split 5,025 a board."""
    assert d.cmd("start_hand", double_board=True).reply.ok  # type: ignore[union-attr]
    _all_in(d)
    for card in DOUBLE.split():
        d.read(card)


def bomb_pot(d: Driver) -> None:
    """A bomb pot of 300 each (a pot of 900, no blinds, no pre-flop betting). On the flop
    seat 2 bets 600, seat 3 folds, seat 1 calls; both check the turn and the river; seat 1's
    aces beat seat 2's 3-2 (a pair of twos on the river): seat 1 wins 2,100."""
    assert d.cmd("start_hand", bomb=300).reply.ok  # type: ignore[union-attr]
    for card in HOLE.split():
        d.read(card)
    for card in ["4c", "7h", "8s", "9d"]:
        d.read(card)
    steps = [(2, "bet", 600), (3, "fold", None), (1, "call", None)]
    for seat, kind, amount in steps:
        assert d.act(seat, kind, amount).reply.ok  # type: ignore[union-attr]
    for cards in ("5c Jc", "6c 2s"):
        for card in cards.split():
            d.read(card)
        for seat in (2, 1):
            assert d.act(seat, "check").reply.ok  # type: ignore[union-attr]


def dealt(play: Any, player_ids: dict[int, str] | None = None) -> Driver:
    """The driver of a table allowing every format (runs up to three, bomb pots up to 500,
    double boards) after ``play`` dealt its hand. ``player_ids``: seat -> the player id of
    its config (``[[seats]] player_id``)."""
    rules = replace(PRESETS[RulesPreset.CASINO], run_it=RunItTwice(max_runs=3))
    setup = make_setup(rules=rules, max_bomb_pot=500, double_board=True)
    state = initial_state(button=1)
    ids = player_ids or {}
    state = replace(state, seats=tuple(replace(s, player_id=ids.get(s.seat, ""))
                                       for s in state.seats))
    d = Driver(HandController(setup, state))
    play(d)
    return d


def format_bodies(table: str, play: Any, *, epoch: object = 1,
                  player_ids: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """The envelopes of the hand ``play`` deals (:func:`dealt`)."""
    d = dealt(play, player_ids)
    events = [e for o in d.outcomes for e in o.events]
    assert events[-1].type == "hand_ended", [e.type for e in events]
    return [body(table, epoch, seq, ev.type, dict(ev.data), hand=1)
            for seq, ev in enumerate(events, start=1)]
