"""Rotations: a table that deals several games in turn (mixed games, H.O.R.S.E.). Sans-IO.

A :class:`Rotation` is data: its games in order, each a (game, structure, stakes) with how long
it lasts. A button game lasts an **orbit of the button** (``hands == 0``): until the button has
gone once round the table from the seat it was on at the game's first hand. A stud game has
no button, so it lasts a **fixed number of hands** (the house rule, ``docs/rules.md``,
"Rotations"); a button game may be given a fixed count too. While a stud game is dealt the
button is frozen where it stood and the next button game resumes there.

:class:`RotationPosition` is where the table is in its rotation; it moves only by the two
events of :data:`TRANSITIONS`:

* :class:`HandPlayed` — a hand of the current game was settled and the button moved ``moved``
  seats clockwise (0 in stud). The game goes on, or the next one starts (a dealer's choice
  rotation waits for the dealer to choose it).
* :class:`GameChosen` — the dealer picked the next game of a dealer's choice rotation.

Any other (phase, event) pair is refused with :class:`RotationError` (the position is a value:
nothing changes).

**Orbits.** ``travelled`` adds up the seats the button moved since the game began, each move
counted clockwise on the table's ``max_seats`` seats (``(new - old) % max_seats``; a button
that stays put went the whole way round). The orbit is complete once ``travelled`` reaches
``max_seats``: the button is back on, or past, the seat it started from. So a player who sits
out or leaves shortens the orbit by their hand, a player who sits down ahead of the button
lengthens it, and a starting seat left empty still ends it when the button passes it.

Worked example (seats 1-6 of 10, the game starting with the button on seat 1): buttons 1, 2, 3,
4, 5, 6 move 1+1+1+1+1 seats, then 6 -> 1 moves 5: 10 seats, so the game lasted six hands. If
seat 3 leaves after the first hand the button goes 1, 2, 4, 5, 6 (1+2+1+1+5 = 10): five hands.

>>> from tablectl.game.rules import Stakes
>>> r = horse(Stakes(small_blind=1, big_blind=2, small_bet=2, big_bet=4, ante=1, bring_in=1))
>>> [g.game.value for g in r.games]
['holdem', 'omaha-hi-lo', 'razz', 'stud', 'stud-hi-lo']
>>> pos = RotationPosition.first(r)
>>> for _ in range(6):
...     pos = pos.after(r, HandPlayed(moved=1 if _ < 5 else 5), max_seats=10)
>>> (r.games[pos.index].game.value, pos.played, pos.travelled)
('omaha-hi-lo', 0, 0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from tablectl.domain.games import ALLOWED_STRUCTURES, BettingStructure, GameKind
from tablectl.game.rules import Stakes

DEFAULT_STUD_HANDS: Final = 8
"""Hands of each stud game of a rotation unless the config says otherwise (docs/rules.md,
"Rotations": a stud round has no button to go round, so rooms deal a fixed count)."""

HORSE: Final = "horse"
"""The name of the H.O.R.S.E. rotation (:func:`horse`)."""

_HORSE_GAMES: Final = (GameKind.HOLDEM, GameKind.OMAHA_HI_LO, GameKind.RAZZ, GameKind.STUD,
                       GameKind.STUD_HI_LO)


class RotationError(ValueError):
    """A rotation that cannot be dealt, or an event its position refuses (nothing changes)."""


@dataclass(frozen=True, slots=True)
class RotationGame:
    """One game of a rotation.

    Attributes:
        game: what is dealt.
        structure: its betting structure.
        stakes: its stakes, in chip units.
        hands: how many hands it lasts; 0: an orbit of the button (button games only).
    """

    game: GameKind
    structure: BettingStructure
    stakes: Stakes
    hands: int = 0

    def __post_init__(self) -> None:
        if self.structure not in ALLOWED_STRUCTURES[self.game]:
            raise RotationError(f"{self.game.value} is not dealt {self.structure.value}")
        if self.hands < 0:
            raise RotationError(f"{self.game.value}: hands must not be negative")
        if self.game.is_stud and self.hands == 0:
            raise RotationError(f"{self.game.value} has no button to go round: it needs a "
                                "number of hands")

    @property
    def orbit(self) -> bool:
        """True when the game lasts an orbit of the button."""
        return self.hands == 0


@dataclass(frozen=True, slots=True)
class Rotation:
    """The games a table deals in turn.

    Attributes:
        games: in order; after the last comes the first again.
        dealers_choice: the dealer picks each next game among ``games`` (``choose_game``)
            instead of taking them in order.
        name: ``"horse"`` for :func:`horse`, else "" (for displays).
    """

    games: tuple[RotationGame, ...]
    dealers_choice: bool = False
    name: str = ""

    def __post_init__(self) -> None:
        if not self.games:
            raise RotationError("a rotation needs at least one game")


def shared_stakes(game: GameKind, stakes: Stakes) -> Stakes:
    """The part of one set of stakes for every game a ``game`` uses: stud games take the ante,
    the bring-in and the limits; button games the blinds (straddle, big-blind ante) and the
    limits, no ante and no bring-in.

    >>> s = Stakes(small_blind=1, big_blind=2, ante=1, bring_in=1, small_bet=2, big_bet=4)
    >>> shared_stakes(GameKind.RAZZ, s).big_blind, shared_stakes(GameKind.HOLDEM, s).ante
    (0, 0)
    """
    if game.is_stud:
        return replace(stakes, small_blind=0, big_blind=0, straddle=0, big_blind_ante=0)
    return replace(stakes, ante=0, bring_in=0)


def horse(stakes: Stakes, *, stud_hands: int = DEFAULT_STUD_HANDS) -> Rotation:
    """H.O.R.S.E.: limit hold'em, Omaha hi-lo, razz, seven card stud, stud hi-lo eight or
    better; the button games an orbit each, the stud games ``stud_hands`` each; ``stakes``
    shared as :func:`shared_stakes` says."""
    return Rotation(tuple(RotationGame(g, BettingStructure.FIXED_LIMIT, shared_stakes(g, stakes),
                                       stud_hands if g.is_stud else 0)
                          for g in _HORSE_GAMES), name=HORSE)


class RotationPhase(StrEnum):
    """Where a rotation is between hands."""

    PLAYING = "playing"
    """A game is being dealt (the current one until it is over)."""
    CHOOSING = "choosing"
    """Dealer's choice: the last game is over and the dealer has not chosen the next."""


@dataclass(frozen=True, slots=True)
class HandPlayed:
    """A hand of the current game was settled; the button then moved ``moved`` seats
    clockwise (0 for stud: the button is frozen)."""

    moved: int


@dataclass(frozen=True, slots=True)
class GameChosen:
    """The dealer chose the next game (an index of :attr:`Rotation.games`)."""

    index: int


RotationEvent = HandPlayed | GameChosen


class Step(StrEnum):
    """What an accepted event does to the position."""

    SAME_GAME = "same_game"
    NEXT_GAME = "next_game"
    WAIT_FOR_CHOICE = "wait_for_choice"
    START_CHOSEN = "start_chosen"


TRANSITIONS: Final[Mapping[tuple[RotationPhase, type[RotationEvent], bool, bool], Step]] = (
    MappingProxyType({
        # (phase, event, the game is over after it, dealer's choice) -> step
        (RotationPhase.PLAYING, HandPlayed, False, False): Step.SAME_GAME,
        (RotationPhase.PLAYING, HandPlayed, False, True): Step.SAME_GAME,
        (RotationPhase.PLAYING, HandPlayed, True, False): Step.NEXT_GAME,
        (RotationPhase.PLAYING, HandPlayed, True, True): Step.WAIT_FOR_CHOICE,
        (RotationPhase.CHOOSING, GameChosen, False, True): Step.START_CHOSEN,
    }))
"""Every accepted (phase, event, game over, dealer's choice); any other pair is refused."""


def button_moved(old: int, new: int, max_seats: int) -> int:
    """Seats the button went clockwise from ``old`` to ``new`` on a table of ``max_seats``;
    staying put is the whole way round.

    >>> button_moved(6, 1, 10), button_moved(2, 4, 10), button_moved(3, 3, 10)
    (5, 2, 10)
    """
    return (new - old) % max_seats or max_seats


@dataclass(frozen=True, slots=True)
class RotationPosition:
    """Where a table is in its rotation.

    Attributes:
        index: the current game (an index of :attr:`Rotation.games`); while choosing, the
            last one dealt.
        played: hands of it settled so far.
        travelled: seats the button moved since it began (orbit games).
        phase: playing, or waiting for the dealer's choice.
    """

    index: int = 0
    played: int = 0
    travelled: int = 0
    phase: RotationPhase = RotationPhase.PLAYING

    @classmethod
    def first(cls, rotation: Rotation) -> RotationPosition:
        """Before the first hand: the first game, or (dealer's choice) waiting for a choice."""
        if rotation.dealers_choice:
            return cls(phase=RotationPhase.CHOOSING)
        return cls()

    def check(self, rotation: Rotation) -> None:
        """Raise :class:`RotationError` unless this is a position of ``rotation`` (a journaled
        one read back under another config)."""
        if not 0 <= self.index < len(rotation.games) or self.played < 0 or self.travelled < 0:
            raise RotationError(f"position {self.index} (played {self.played}) is not in a "
                                f"rotation of {len(rotation.games)} games")

    def game(self, rotation: Rotation) -> RotationGame:
        """The game dealt now (while choosing: the last one dealt)."""
        return rotation.games[self.index]

    def over(self, rotation: Rotation, max_seats: int) -> bool:
        """Whether the current game has had all its hands."""
        g = self.game(rotation)
        if g.orbit:
            return self.travelled >= max_seats
        return self.played >= g.hands

    def after(self, rotation: Rotation, event: RotationEvent, *, max_seats: int
              ) -> RotationPosition:
        """The position after ``event``.

        Raises:
            RotationError: the position refuses the event (see :data:`TRANSITIONS`).
        """
        if isinstance(event, HandPlayed):
            if event.moved < 0:
                raise RotationError("the button cannot move backwards")
            moved = replace(self, played=self.played + 1,
                            travelled=self.travelled + event.moved)
            over = moved.over(rotation, max_seats)
        else:
            if not 0 <= event.index < len(rotation.games):
                raise RotationError(f"no game {event.index} in the rotation")
            moved, over = self, False
        step = TRANSITIONS.get((self.phase, type(event), over, rotation.dealers_choice))
        match step:
            case Step.SAME_GAME:
                return moved
            case Step.NEXT_GAME:
                return RotationPosition((self.index + 1) % len(rotation.games))
            case Step.WAIT_FOR_CHOICE:
                return RotationPosition(self.index, phase=RotationPhase.CHOOSING)
            case Step.START_CHOSEN:
                assert isinstance(event, GameChosen)
                return RotationPosition(event.index)
        raise RotationError(_refusal(self.phase, event, rotation))

    def hands_left(self, rotation: Rotation, button: int, live: Iterable[int], *,
                   max_seats: int) -> int:
        """Hands of the current game still to deal, the next (or current) one included: a
        fixed count's remainder, or for an orbit the live seats the button will still reach
        before it is back where the game began (``button``: where it is now; ``live``: the
        seats with chips). An estimate for an orbit: players may come or go. 0 while choosing.
        """
        if self.phase is RotationPhase.CHOOSING:
            return 0
        g = self.game(rotation)
        if not g.orbit:
            return max(g.hands - self.played, 0)
        remaining = max_seats - self.travelled
        ahead = {(seat - button) % max_seats for seat in live} - {0}
        return 1 + sum(1 for d in ahead if d < remaining)

    def next_game(self, rotation: Rotation) -> RotationGame | None:
        """The game after the current one (None for dealer's choice: the dealer picks it)."""
        if rotation.dealers_choice:
            return None
        return rotation.games[(self.index + 1) % len(rotation.games)]


def _refusal(phase: RotationPhase, event: RotationEvent, rotation: Rotation) -> str:
    if phase is RotationPhase.CHOOSING:
        return "dealer's choice: the dealer chooses the next game first (choose_game)"
    if isinstance(event, GameChosen):
        if not rotation.dealers_choice:
            return "the games follow in order: this rotation is not dealer's choice"
        return "the current game is not over yet"
    return "no hand can be played now"  # pragma: no cover (TRANSITIONS takes them all)
