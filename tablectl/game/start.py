"""What a hand starts from: its game, structure, rules, stakes and seats, and whether they
make a hand.

>>> from tablectl.domain.games import BettingStructure, GameKind
>>> from tablectl.game.rules import RuleSet, Stakes
>>> check_start(HandStart(GameKind.STUD, BettingStructure.FIXED_LIMIT, RuleSet(),
...                       Stakes(big_blind=2, small_bet=2, big_bet=4),
...                       (SeatSetup(1, 10), SeatSetup(1, 0)), 1))
Traceback (most recent call last):
...
tablectl.game.errors.HandSetupError: seat numbers must be distinct; seat 1 has no chips; ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tablectl.domain.games import ALLOWED_STRUCTURES, BettingStructure, GameKind
from tablectl.game.errors import HandSetupError
from tablectl.game.rules import RuleSet, Stakes

MAX_SEATS: Final = 10
MAX_STUD_SEATS: Final = 8


@dataclass(frozen=True, slots=True)
class SeatSetup:
    """A seat taking part in the hand: its number, chips (chip units) and a display name."""

    seat: int
    stack: int
    name: str = ""


@dataclass(frozen=True, slots=True)
class HandStart:
    """Everything ``Hand.start`` was called with; with the inputs it rebuilds a hand.

    ``bomb``: a bomb pot's ante (0: a normal hand). Every player antes it and posts no blind,
    nobody bets before the flop, and the betting starts on the flop (button games only;
    docs/rules.md, "Bomb pots"). ``boards``: 2 for a double-board hand (each street's cards
    dealt to both boards, each half of every pot to the best hand on its board).
    """

    game: GameKind
    structure: BettingStructure
    rules: RuleSet
    stakes: Stakes
    seats: tuple[SeatSetup, ...]
    button: int
    hand_id: str = ""
    bomb: int = 0
    boards: int = 1


def check_start(start: HandStart) -> None:
    """Raise :class:`HandSetupError` naming every way ``start`` does not make a hand."""
    problems: list[str] = []
    if start.structure not in ALLOWED_STRUCTURES[start.game]:
        problems.append(f"{start.game.value} is not dealt {start.structure.value}")
    seats = start.seats
    limit = MAX_STUD_SEATS if start.game.is_stud else MAX_SEATS
    if not 2 <= len(seats) <= limit:
        problems.append(f"{start.game.value} needs 2 to {limit} seats, not {len(seats)}")
    if len({s.seat for s in seats}) != len(seats):
        problems.append("seat numbers must be distinct")
    problems += [f"seat {s.seat} has no chips" for s in seats if s.stack <= 0]
    stakes = start.stakes
    if start.structure is BettingStructure.FIXED_LIMIT and not 0 < stakes.small_bet <= \
            stakes.big_bet:
        problems.append("fixed limit needs 0 < small_bet <= big_bet")
    if start.bomb < 0 or (start.bomb and start.game.is_stud):
        problems.append("a bomb pot's ante is positive, in a button game")
    if start.boards not in (1, 2) or (start.boards == 2 and start.game.is_stud):
        problems.append("a hand has one board, or two in a button game (double board)")
    if start.game.is_stud:
        if stakes.bring_in >= stakes.small_bet > 0:
            problems.append("the bring-in must be smaller than the small bet")
        if stakes.small_blind or stakes.big_blind or stakes.straddle or stakes.big_blind_ante:
            problems.append("stud has no blinds")
    else:
        if stakes.big_blind <= 0:
            problems.append("a button game needs a big blind")
        if stakes.small_blind > stakes.big_blind:
            problems.append("the small blind must not exceed the big blind")
        if stakes.straddle and stakes.straddle < stakes.big_blind:
            problems.append("a straddle must be at least the big blind")
        if stakes.bring_in:
            problems.append("only stud has a bring-in")
        rules = start.rules
        if (start.structure is BettingStructure.FIXED_LIMIT and rules.big_blind_is_big_bet
                and stakes.big_blind != stakes.big_bet):
            problems.append(f"rules {rules.name}: the big blind must equal the big bet "
                            f"({stakes.big_bet}); use Stakes.from_limits")
    if problems:
        raise HandSetupError("; ".join(problems))
