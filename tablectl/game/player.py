"""A seat's state during a hand: chips, cards, and where it stands in the betting round.

The hand machine (``game/hand.py``) owns the players, in position order; the betting round,
the opener, the showdown and the settlement read and change them in place.

>>> from tablectl.game.start import SeatSetup
>>> p = Player(SeatSetup(3, 5))
>>> p.pay(8), p.stack, p.all_in
(5, 0, True)
"""

from __future__ import annotations

from tablectl.domain.cards import Card
from tablectl.game.start import SeatSetup


class Player:
    """One seat in a hand (mutable; chip amounts in chip units).

    Attributes:
        seat, name: from the seat's setup.
        start: the stack the hand started with; ``stack`` what is left behind.
        bet: put in this betting round; ``committed``: put in this hand (the bet included).
        folded, mucked, all_in: the seat's standing.
        cards, up: its cards in the order dealt (None for an unknown card) and which are
            face up (stud).
        acted, acted_marker, acted_level: whether it acted this round, the round's full-raise
            count when it did, and the bet level it then left.
    """

    __slots__ = ("acted", "acted_level", "acted_marker", "all_in", "bet", "cards", "committed",
                 "folded", "mucked", "name", "seat", "stack", "start", "up")

    def __init__(self, setup: SeatSetup) -> None:
        self.seat = setup.seat
        self.name = setup.name
        self.start = setup.stack
        self.stack = setup.stack
        self.bet = 0
        self.committed = 0
        self.folded = False
        self.mucked = False
        self.all_in = False
        self.cards: list[Card | None] = []
        self.up: list[bool] = []
        self.acted = False
        self.acted_marker = -1
        self.acted_level = 0

    def pay(self, amount: int) -> int:
        """Put ``amount`` in (all of the stack if it is less); return what was paid."""
        paid = amount if amount <= self.stack else self.stack
        self.stack -= paid
        self.bet += paid
        self.committed += paid
        if self.stack == 0:
            self.all_in = True
        return paid
