"""Street plans as data: the betting rounds of each game family and what each deals.

A game's plan (:data:`PLANS`) is a table of rounds; the hand machine walks it and
:func:`street_queue` turns one round into the cards the hand then expects, in order:

| family | round | burn | deals | opens | fixed-limit bet |
|---|---|---|---|---|---|
| hold'em, hold'em hi-lo | pre-flop | - | 2 hole cards each | left of the last blind | small |
| (Omaha: 4 hole cards) | flop | yes | board 3 | left of the button | small |
| | turn | yes | board 1 | left of the button | big |
| | river | yes | board 1 | left of the button | big |
| stud, stud hi-lo, razz | third | - | 2 down, 1 up | bring-in | small |
| | fourth | yes | 1 up | best showing | small |
| | fifth, sixth | yes | 1 up | best showing | big |
| | seventh | yes | 1 down (the stub may run short) | best showing | big |

Button games post blinds after the antes; stud posts antes only. Hole cards go one at a time
around the table from the first dealt [first_dealt]; stud's down and up cards go round the
live players from the dealer's left, down cards first. A burn is dealt only when the house
burns [burns]. How each opener is found is ``game/opener.py``; seventh street's short stub is
``game/stud_deck.py``.

>>> [r.street.value for r in PLANS[GameKind.OMAHA].rounds]
['preflop', 'flop', 'turn', 'river']
>>> street_queue(PLANS[GameKind.HOLDEM].rounds[1], seats=(1, 2), burning=True, board_dealt=0)
[Burn(street=<Street.FLOP: 'flop'>), DealBoard(index=0, run=1), DealBoard(index=1, run=1),
 DealBoard(index=2, run=1)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from tablectl.domain.games import GameKind
from tablectl.game.memo import HOLE_QUEUES, shared
from tablectl.game.model import Burn, DealBoard, DealDown, DealHole, DealUp, Expectation, Street
from tablectl.game.stud_deck import NORMAL, SeventhStreet


class Opener(StrEnum):
    """Who acts first in a betting round."""

    BLINDS = "blinds"
    """The blinds opened the betting: the seat left of the last blind acts first."""
    BUTTON = "button"
    """The first live seat left of the button."""
    BRING_IN = "bring-in"
    """Stud's third street: the lowest up card (razz: the highest) brings in, and the
    bring-in may be completed to the small bet."""
    BEST_SHOWING = "best-showing"
    """The best showing hand (razz: the lowest)."""


@dataclass(frozen=True, slots=True)
class Round:
    """One betting round and the cards dealt before it.

    Attributes:
        street: its name.
        burn: a card is burned first (when the house burns, ``RuleSet.burns``).
        hole: hole cards to every seat, one a pass round the table from the first dealt.
        down, up: stud cards to every live player, one a pass from the dealer's left; the
            down passes first.
        board: board cards, face up in the middle.
        short_stub: the stub may not give every live player a card (stud's seventh street,
            ``RuleSet.stud_short_deck``).
        opener: who acts first.
        big_bet: fixed limit bets the big bet this round (else the small bet).
    """

    street: Street
    burn: bool = False
    hole: int = 0
    down: int = 0
    up: int = 0
    board: int = 0
    short_stub: bool = False
    opener: Opener = Opener.BUTTON
    big_bet: bool = False


@dataclass(frozen=True, slots=True)
class StreetPlan:
    """A game family's rounds and forced bets.

    Attributes:
        family: a name for messages and docs.
        blinds: blinds are posted after the antes (button games); else antes only (stud).
        low: the lowest hand is best (razz): the highest up card brings in and the lowest
            showing hand opens later rounds.
        bring_in_by_rule: the bring-in card follows ``RuleSet.bring_in_card`` and
            ``RuleSet.bring_in_ace_low`` (stud hi-lo).
        rounds: the betting rounds in order.
    """

    family: str
    blinds: bool
    rounds: tuple[Round, ...]
    low: bool = False
    bring_in_by_rule: bool = False


_BOARD_ROUNDS: Final = (
    Round(Street.FLOP, burn=True, board=3),
    Round(Street.TURN, burn=True, board=1, big_bet=True),
    Round(Street.RIVER, burn=True, board=1, big_bet=True),
)
HOLDEM_PLAN: Final = StreetPlan("hold'em", blinds=True, rounds=(
    Round(Street.PREFLOP, hole=2, opener=Opener.BLINDS), *_BOARD_ROUNDS))
OMAHA_PLAN: Final = StreetPlan("omaha", blinds=True, rounds=(
    Round(Street.PREFLOP, hole=4, opener=Opener.BLINDS), *_BOARD_ROUNDS))
_STUD_ROUNDS: Final = (
    Round(Street.THIRD, down=2, up=1, opener=Opener.BRING_IN),
    Round(Street.FOURTH, burn=True, up=1, opener=Opener.BEST_SHOWING),
    Round(Street.FIFTH, burn=True, up=1, opener=Opener.BEST_SHOWING, big_bet=True),
    Round(Street.SIXTH, burn=True, up=1, opener=Opener.BEST_SHOWING, big_bet=True),
    Round(Street.SEVENTH, burn=True, down=1, short_stub=True, opener=Opener.BEST_SHOWING,
          big_bet=True),
)
STUD_PLAN: Final = StreetPlan("stud", blinds=False, rounds=_STUD_ROUNDS)
STUD_HI_LO_PLAN: Final = StreetPlan("stud hi-lo", blinds=False, rounds=_STUD_ROUNDS,
                                    bring_in_by_rule=True)
RAZZ_PLAN: Final = StreetPlan("razz", blinds=False, rounds=_STUD_ROUNDS, low=True)

PLANS: Final[Mapping[GameKind, StreetPlan]] = {
    GameKind.HOLDEM: HOLDEM_PLAN, GameKind.HOLDEM_HI_LO: HOLDEM_PLAN,
    GameKind.OMAHA: OMAHA_PLAN, GameKind.OMAHA_HI_LO: OMAHA_PLAN,
    GameKind.STUD: STUD_PLAN, GameKind.STUD_HI_LO: STUD_HI_LO_PLAN, GameKind.RAZZ: RAZZ_PLAN,
}
"""Every game's street plan."""


def street_queue(rnd: Round, *, seats: Sequence[int], burning: bool, board_dealt: int,
                 seventh: SeventhStreet = NORMAL, run: int = 1,
                 boards: int = 1) -> list[Expectation]:
    """The cards ``rnd`` deals, in order (a fresh list of shared values).

    Args:
        rnd: the round.
        seats: the seats dealt to: for hole cards every seat from the first dealt, for stud
            cards the live players in position order.
        burning: the house burns (``RuleSet.burns``).
        board_dealt: board cards dealt before this round (the index of its first).
        seventh: a short stub's plan (``game/stud_deck.py``), read when ``rnd.short_stub``.
        run: the run whose board cards these are (a hand run twice: 2 for the second board).
        boards: 2 in a double-board hand: the round's board cards go to board ``run``, then
            the same number to board ``run + 1``, after one burn.
    """
    street = rnd.street
    queue: list[Expectation] = []
    if rnd.burn and burning and (seventh.burn or not rnd.short_stub):
        queue.append(shared(Burn, street))
    if rnd.short_stub and seventh.community:
        queue.append(shared(DealBoard, board_dealt))
        return queue
    if rnd.hole:
        queue += _hole_queue(tuple(seats), rnd.hole)
    for _ in range(rnd.down):
        queue += [shared(DealDown, seat, street) for seat in seats]
    for _ in range(rnd.up):
        queue += [shared(DealUp, seat, street) for seat in seats]
    for b in range(boards):
        queue += [shared(DealBoard, board_dealt + k, run + b) for k in range(rnd.board)]
    return queue


def _hole_queue(order: tuple[int, ...], rounds: int) -> list[Expectation]:
    """The hole-card deal, one card a round in ``order``."""
    key = (order, rounds)
    queue = HOLE_QUEUES.get(key)
    if queue is None:
        queue = HOLE_QUEUES.remember(
            key, [DealHole(seat, r) for r in range(rounds) for seat in order])
    return list(queue)
