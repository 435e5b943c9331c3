"""The simulated dealer deals the daemon's table, not only its own idea of it.

A scenario starts from its own seats and button. A daemon that already dealt hands (an earlier
``play`` against it, a restart) has moved the button and changed the stacks, so the first
decision the dealer enters would be refused ``out_of_turn`` and the hand left half dealt. The
daemon's ``start_hand`` reply says the hand it started (its number, button and seats): when
that differs from the dealer's, the dealer deals that hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from tablectl.domain.games import BettingStructure, GameKind
from tablectl.game import HandStart, SeatSetup

_STAKES = ("small_blind", "big_blind", "ante", "bring_in", "small_bet", "big_bet")


def table_of_reply(reply: Mapping[str, object], start: HandStart
                   ) -> tuple[HandStart, int] | None:
    """``(the daemon's hand start, its hand number)`` from an ok ``start_hand`` reply, or None
    when the reply says nothing of the table or agrees with ``start``.

    >>> from tablectl.domain.games import BettingStructure, GameKind
    >>> from tablectl.game import PRESETS, Stakes
    >>> from tablectl.domain.games import RulesPreset
    >>> mine = HandStart(GameKind.HOLDEM, BettingStructure.NO_LIMIT, PRESETS[RulesPreset.CASINO],
    ...                  Stakes(small_blind=1, big_blind=2),
    ...                  (SeatSetup(1, 100, "A"), SeatSetup(3, 100, "B")), 1, "t-000001")
    >>> reply = {"ok": True, "result": {"hand": {"id": "t-000002", "number": 2}, "button": 3,
    ...          "seats": [{"seat": 1, "name": "A", "stack": 98}, {"seat": 3, "name": "B",
    ...                                                             "stack": 102}]}}
    >>> theirs, number = table_of_reply(reply, mine)
    >>> (theirs.button, theirs.hand_id, number, theirs.seats[0].stack)
    (3, 't-000002', 2, 98)
    """
    result = reply.get("result")
    if not reply.get("ok") or not isinstance(result, Mapping):
        return None
    hand, seats, button = result.get("hand"), result.get("seats"), result.get("button")
    if not isinstance(hand, Mapping) or not isinstance(seats, list):
        return None
    number, hand_id = hand.get("number"), hand.get("id")
    if not isinstance(number, int) or not isinstance(hand_id, str):
        return None
    theirs = replace(start, hand_id=hand_id,
                     button=button if isinstance(button, int) else start.button,
                     seats=tuple(SeatSetup(int(s["seat"]), int(s["stack"]), str(s["name"]))
                                 for s in seats if isinstance(s, Mapping)))
    theirs = _game_of(result, theirs)
    if theirs == start:
        return None
    return theirs, number


def _game_of(result: Mapping[str, object], start: HandStart) -> HandStart:
    """The game a rotation's table deals this hand (its reply's ``game`` and ``stakes``; a
    stud hand has no button: the daemon deals it from seat 1)."""
    game, stakes = result.get("game"), result.get("stakes")
    if not isinstance(game, Mapping) or not isinstance(stakes, Mapping):
        return start
    kind = GameKind(str(game.get("variant")))
    amounts = {k: v for k in _STAKES if isinstance(v := stakes.get(k), int)}
    return replace(start, game=kind, structure=BettingStructure(str(game.get("structure"))),
                   stakes=replace(start.stakes, **amounts),
                   button=0 if kind.is_stud else start.button)
