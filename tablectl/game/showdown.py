"""The showdown: which hands are shown, in which order, and turning hands up for an all-in.

* At the showdown the live hands are shown from the last aggressor of the last round (else
  the first live seat in position order) clockwise. Cards speak: a hand whose cards are all
  known is shown without an input, unless the house wants every hand shown by input
  [showdown_by_input]; a hand with unread cards must be shown (or mucked). The last hand in
  may not muck.
* Once a player is all-in and no more betting is possible, every live hand is turned face up
  before the rest is dealt [all_in_face_up]: the known ones at once, the unread ones by input
  (shown, never mucked); then the rest is dealt.

Who wins what is ``game/settlement.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Set

from tablectl.game.errors import DuplicateCard, RuleViolation
from tablectl.game.memo import card_key
from tablectl.game.model import (
    Expectation,
    HandEvent,
    HandFaceUp,
    MuckIn,
    Showdown,
    ShowIn,
    Street,
)
from tablectl.game.player import Player
from tablectl.game.rules import RuleSet


class ShowdownOrder:
    """The hands still to be shown, and whether they are turned up for an all-in run-out.

    ``players`` is the hand's own list in position order; ``by_seat`` maps a seat number to
    its index there.
    """

    def __init__(self, players: list[Player], by_seat: Mapping[int, int], rules: RuleSet) -> None:
        self._p = players
        self._by_seat = by_seat
        self._by_input = rules.showdown_by_input
        self._queue: list[int] = []
        self.face_up: set[int] = set()   # hands turned face up for an all-in [all_in_face_up]
        self.run_out = False              # their shows are awaited, then the rest is dealt
        self.mucks: list[int] = []        # the mucked hands, in the order they mucked

    def _order(self, last_aggressor: int | None) -> list[int]:
        live = [i for i, p in enumerate(self._p) if not p.folded]
        first = last_aggressor if last_aggressor in live else live[0]
        start = live.index(first) if first is not None else 0
        return live[start:] + live[:start]

    def _to_show(self, order: list[int]) -> list[int]:
        """Who must show by input: everybody not yet face up [showdown_by_input], else the
        hands with unread cards."""
        by_input = self._by_input
        return [i for i in order if None in self._p[i].cards
                or (by_input and i not in self.face_up)]

    def turn_face_up(self, last_aggressor: int | None, street: Street,
                     events: list[HandEvent]) -> None:
        """An all-in and no more betting: every live hand face up, then the rest is dealt."""
        order = self._order(last_aggressor)
        self._queue = self._to_show(order)
        self.face_up = set(order)
        for i in order:
            if i not in self._queue:
                p = self._p[i]
                events.append(HandFaceUp(p.seat, tuple(p.cards), street))
        self.run_out = True

    def start(self, last_aggressor: int | None) -> None:
        """The last round is over: the hands are shown."""
        self._queue = self._to_show(self._order(last_aggressor))

    def expectation(self) -> Showdown | None:
        """The next hand to show, or None when every hand asked for has been shown."""
        if self._queue:
            return Showdown(self._p[self._queue[0]].seat, self.run_out)
        return None

    def end_run_out(self) -> bool:
        """Whether the hands were turned up for a run-out (which now goes on); clears it."""
        run_out, self.run_out = self.run_out, False
        return run_out

    def verify(self, inp: ShowIn | MuckIn, exp: Expectation, seen: Set[int]) -> None:
        """Raise :class:`RuleViolation` unless ``inp`` is an acceptable show or muck now.

        ``seen`` holds ``card_key`` of every card dealt, burned or shown in the hand.
        """
        if not isinstance(exp, Showdown):
            raise RuleViolation("no showdown decision is expected now", exp)
        if inp.seat != exp.seat:
            raise RuleViolation(f"seat {inp.seat} is not next to show: seat {exp.seat} is",
                                exp)
        p = self._p[self._by_seat[inp.seat]]
        if isinstance(inp, ShowIn):
            if inp.cards is None:
                if None in p.cards:
                    raise RuleViolation(f"seat {inp.seat}'s cards are unknown: show them", exp)
                return
            known = [c for c in p.cards if c is not None]
            if len(inp.cards) != len(p.cards) or len(set(inp.cards)) != len(inp.cards):
                raise RuleViolation(f"seat {inp.seat} holds {len(p.cards)} cards", exp)
            if any(c not in inp.cards for c in known):
                raise RuleViolation(f"shown cards disagree with seat {inp.seat}'s known cards",
                                    exp)
            for c in inp.cards:
                if c not in known and card_key(c) in seen:
                    raise DuplicateCard(f"{c} was already dealt in this hand", exp)
        elif isinstance(inp, MuckIn) and exp.run_out:
            raise RuleViolation(f"seat {inp.seat} is all-in or covers the all-ins: its hand "
                                "is turned face up, not mucked", exp)
        elif isinstance(inp, MuckIn) and sum(1 for q in self._p if not q.folded
                                             and not q.mucked) == 1:
            raise RuleViolation("the last hand in may not muck", exp)

    def record(self, inp: ShowIn | MuckIn, seen: set[int], street: Street,
               events: list[HandEvent]) -> None:
        """Apply a verified show or muck: its unread cards join the hand and ``seen``."""
        p = self._p[self._by_seat[inp.seat]]
        if isinstance(inp, MuckIn):
            p.mucked = True
            self.mucks.append(self._by_seat[inp.seat])
        elif inp.cards is not None:
            missing = [c for c in inp.cards if c not in p.cards]
            for k, c in enumerate(p.cards):
                if c is None:
                    p.cards[k] = missing.pop(0)
                    seen.add(card_key(p.cards[k]))  # type: ignore[arg-type]
        if self.run_out:
            events.append(HandFaceUp(p.seat, tuple(p.cards), street))
        self._queue.pop(0)
