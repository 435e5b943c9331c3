"""Values the hand engine takes and returns: inputs, expectations, legal actions, events, views.

All are frozen, slotted dataclasses. Events and expectations carry a ``type`` class variable (a
short string) so a journal or an MQTT payload can name them; :func:`to_dict` turns any of them
into plain JSON-ready data.

>>> to_dict(ActionIn(3, ActionKind.RAISE, 40))
{'type': 'action', 'seat': 3, 'kind': 'raise', 'amount': 40}
>>> to_dict(CardIn(Card.parse("As"), seat=2))
{'type': 'card', 'card': 'As', 'seat': 2, 'board': None, 'burn': None}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from enum import Enum, StrEnum
from typing import ClassVar, TypeAlias

from tablectl.domain.cards import Card
from tablectl.domain.games import BettingStructure, GameKind


class Street(StrEnum):
    """Betting rounds: four for board games, five for stud."""

    __hash__ = str.__hash__  # C-level hashing: these are looked up on every input

    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"
    THIRD = "third"
    FOURTH = "fourth"
    FIFTH = "fifth"
    SIXTH = "sixth"
    SEVENTH = "seventh"


class ActionKind(StrEnum):
    """What a player does; BET, RAISE and COMPLETE carry a "to" amount."""

    __hash__ = str.__hash__  # C-level hashing: these are looked up on every input

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    COMPLETE = "complete"
    BRING_IN = "bring-in"


class ForcedKind(StrEnum):
    """Forced bets posted when the hand starts."""

    __hash__ = str.__hash__  # C-level hashing: these are looked up on every input

    ANTE = "ante"
    BIG_BLIND_ANTE = "big-blind-ante"
    SMALL_BLIND = "small-blind"
    BIG_BLIND = "big-blind"
    STRADDLE = "straddle"


class Half(StrEnum):
    """Which part of a pot an award is."""

    __hash__ = str.__hash__  # C-level hashing: these are looked up on every input

    WHOLE = "whole"
    HIGH = "high"
    LOW = "low"


# --- inputs ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardIn:
    """A card for whatever the hand expects now.

    Attributes:
        card: the card; ``None`` for a card nobody saw (a PHH ``??``, an unread burn).
        seat: if given, must be the seat the hand deals to now (an antenna knows its seat).
        board: if given, True means "this is a board card" and must agree with the hand.
        burn: if given, True means "this is a burn card" and must agree with the hand.
    """

    type: ClassVar[str] = "card"
    card: Card | None
    seat: int | None = None
    board: bool | None = None
    burn: bool | None = None


@dataclass(frozen=True, slots=True)
class ActionIn:
    """A player's decision. ``amount`` is the "to" total for BET, RAISE and COMPLETE."""

    type: ClassVar[str] = "action"
    seat: int
    kind: ActionKind
    amount: int | None = None


@dataclass(frozen=True, slots=True)
class ShowIn:
    """A contender shows at showdown; ``cards`` fills in hole cards the table did not read."""

    type: ClassVar[str] = "show"
    seat: int
    cards: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class MuckIn:
    """A contender mucks at showdown and gives up every pot."""

    type: ClassVar[str] = "muck"
    seat: int


@dataclass(frozen=True, slots=True)
class RunsIn:
    """The players agreed to run the rest of the board ``count`` times (the dealer enters it
    once no betting remains, before the next card of the run-out; ``RuleSet.run_it``)."""

    type: ClassVar[str] = "runs"
    count: int


HandInput: TypeAlias = CardIn | ActionIn | ShowIn | MuckIn | RunsIn


# --- legal actions and expectations ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What the seat to act may do.

    Attributes:
        seat: the seat to act.
        kinds: the allowed kinds.
        call_amount: chips a CALL adds (0 when checking is possible).
        bring_in_amount: chips a BRING_IN adds (0 when not allowed).
        bet_kind: which of BET, RAISE or COMPLETE a wager is now (``None``: no wager allowed).
        min_to: smallest "to" total for ``bet_kind`` (an all-in for less included).
        max_to: largest "to" total; in fixed limit ``min_to`` and ``max_to`` are the only two
            legal totals.
    """

    seat: int
    kinds: frozenset[ActionKind]
    call_amount: int = 0
    bring_in_amount: int = 0
    bet_kind: ActionKind | None = None
    min_to: int = 0
    max_to: int = 0


@dataclass(frozen=True, slots=True)
class DealHole:
    """A button game's hole card number ``index`` (0-based) for ``seat``."""

    type: ClassVar[str] = "deal-hole"
    seat: int
    index: int


@dataclass(frozen=True, slots=True)
class DealUp:
    """A stud up card for ``seat`` on ``street``."""

    type: ClassVar[str] = "deal-up"
    seat: int
    street: Street


@dataclass(frozen=True, slots=True)
class DealDown:
    """A stud down card for ``seat`` on ``street``."""

    type: ClassVar[str] = "deal-down"
    seat: int
    street: Street


@dataclass(frozen=True, slots=True)
class Burn:
    """A burn card before ``street``'s cards."""

    type: ClassVar[str] = "burn"
    street: Street


@dataclass(frozen=True, slots=True)
class DealBoard:
    """Board card number ``index`` (0-based; stud's community river card is index 0) of run
    ``run`` (1-based: a hand run twice deals a second board's remaining cards as run 2)."""

    type: ClassVar[str] = "deal-board"
    index: int
    run: int = 1


@dataclass(frozen=True, slots=True)
class Act:
    """A decision by ``seat``, one of ``legal``."""

    type: ClassVar[str] = "act"
    seat: int
    legal: LegalActions


@dataclass(frozen=True, slots=True)
class Showdown:
    """``seat`` must show (ShowIn, with its unknown hole cards) or muck (MuckIn).

    ``run_out``: an all-in hand is turned face up before the rest of the hand is dealt
    (``RuleSet.all_in_face_up``); it must show, a muck is refused.
    """

    type: ClassVar[str] = "showdown"
    seat: int
    run_out: bool = False


@dataclass(frozen=True, slots=True)
class Done:
    """The hand is over; every pot is awarded."""

    type: ClassVar[str] = "done"


Expectation: TypeAlias = DealHole | DealUp | DealDown | Burn | DealBoard | Act | Showdown | Done


# --- events ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ForcedBet:
    """An ante, blind or straddle posted at the start (``all_in``: the seat had no more)."""

    type: ClassVar[str] = "forced-bet"
    seat: int
    kind: ForcedKind
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class CardDealt:
    """A card to a seat (``card`` None when unknown)."""

    type: ClassVar[str] = "card-dealt"
    seat: int
    card: Card | None
    face_up: bool
    street: Street


@dataclass(frozen=True, slots=True)
class BoardDealt:
    """A board card (or stud's community card) of run ``run``."""

    type: ClassVar[str] = "board-dealt"
    card: Card | None
    index: int
    street: Street
    run: int = 1


@dataclass(frozen=True, slots=True)
class RunsChosen:
    """The rest of the board is run ``count`` times; ``board`` is what the runs share."""

    type: ClassVar[str] = "runs-chosen"
    count: int
    board: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True)
class Burned:
    """A burn card."""

    type: ClassVar[str] = "burned"
    card: Card | None
    street: Street


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """A decision: ``added`` chips went in, the seat's street bet is now ``to``."""

    type: ClassVar[str] = "action-taken"
    seat: int
    kind: ActionKind
    added: int
    to: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class BetReturned:
    """The uncalled part of a bet goes back to ``seat``."""

    type: ClassVar[str] = "bet-returned"
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class PotView:
    """A pot: ``amount`` chips that only ``eligible`` seats can win (main pot first)."""

    amount: int
    eligible: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class StreetEnded:
    """A betting round (or a dealing round without betting) is over; the pots so far."""

    type: ClassVar[str] = "street-ended"
    street: Street
    pots: tuple[PotView, ...]


@dataclass(frozen=True, slots=True)
class ShowdownHand:
    """A contender's hand at showdown, in words (``low`` None: no qualifying low); ``run``:
    on which run's board (0: the hand was run once)."""

    type: ClassVar[str] = "showdown-hand"
    seat: int
    cards: tuple[Card, ...]
    high: str | None
    low: str | None
    run: int = 0


@dataclass(frozen=True, slots=True)
class RakeTaken:
    """The house's cut from pot ``pot_index``."""

    type: ClassVar[str] = "rake-taken"
    pot_index: int
    amount: int


@dataclass(frozen=True, slots=True)
class PotAwarded:
    """``amount`` chips of pot ``pot_index`` (its ``half``) go to ``seat``; ``run``: the
    part of the pot of that run (0: not split by runs)."""

    type: ClassVar[str] = "pot-awarded"
    pot_index: int
    seat: int
    amount: int
    half: Half
    description: str
    run: int = 0


@dataclass(frozen=True, slots=True)
class CardsRecycled:
    """Seventh-street stud ran short: ``cards`` (burns, maybe discards) are back in play and
    may each be dealt once more (``RuleSet.stud_short_deck``); ``burns``: this street's burn
    card joins them once it is burned."""

    type: ClassVar[str] = "cards-recycled"
    cards: tuple[Card, ...]
    street: Street
    burns: bool


@dataclass(frozen=True, slots=True)
class HandFaceUp:
    """No more betting is possible: ``seat``'s hand is turned face up before the rest is dealt
    (``RuleSet.all_in_face_up``); every later card of the seat is public as well."""

    type: ClassVar[str] = "hand-face-up"
    seat: int
    cards: tuple[Card | None, ...]
    street: Street


@dataclass(frozen=True, slots=True)
class HandEnded:
    """The hand is over; ``stacks`` as (seat, stack) pairs in seat order."""

    type: ClassVar[str] = "hand-ended"
    stacks: tuple[tuple[int, int], ...]


HandEvent: TypeAlias = (ForcedBet | CardDealt | BoardDealt | Burned | ActionTaken | BetReturned
                        | StreetEnded | ShowdownHand | RakeTaken | PotAwarded | CardsRecycled
                        | HandFaceUp | RunsChosen | HandEnded)


# --- results and views -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Award:
    """One winner's share of one half of a pot (of one run's part of it: ``run``, 0 when
    the pot was not split by runs)."""

    seat: int
    amount: int
    half: Half
    description: str
    run: int = 0


@dataclass(frozen=True, slots=True)
class PotResult:
    """How one pot was settled: its size before rake, the rake, who could win, who won what."""

    pot_index: int
    amount: int
    rake: int
    eligible: tuple[int, ...]
    awards: tuple[Award, ...]


@dataclass(frozen=True, slots=True)
class SeatCard:
    """A card in front of a seat (``card`` None when unknown)."""

    card: Card | None
    face_up: bool


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's state. ``bet`` is this street's bet, ``committed`` the whole hand's."""

    seat: int
    name: str
    stack: int
    bet: int
    committed: int
    folded: bool
    all_in: bool
    cards: tuple[SeatCard, ...]


@dataclass(frozen=True, slots=True)
class HandView:
    """A snapshot of the whole hand (for displays, journals and tests).

    ``board`` is the first run's board; ``runs`` how many times the hand is run and
    ``boards`` every run's board so far (run 1 first; the runs not yet dealt share the cards
    dealt before the run-out), only when it is run more than once.
    """

    hand_id: str
    game: GameKind
    structure: BettingStructure
    button: int
    street: Street | None
    seats: tuple[SeatView, ...]
    board: tuple[Card | None, ...]
    burns: tuple[Card | None, ...]
    pots: tuple[PotView, ...]
    to_act: int | None
    expected: Expectation
    results: tuple[PotResult, ...]
    rake: int
    runs: int = 1
    boards: tuple[tuple[Card | None, ...], ...] = ()


def _plain(value: object) -> object:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(_plain(v) for v in value)  # type: ignore[type-var]
    if hasattr(value, "__dataclass_fields__"):
        return to_dict(value)
    return value


def to_dict(value: object) -> dict[str, object]:
    """JSON-ready dict of an input, expectation, event or view (``type`` first when defined).

    Raises:
        TypeError: ``value`` is not one of the engine's dataclasses.
    """
    if not hasattr(value, "__dataclass_fields__"):
        raise TypeError(f"not an engine value: {value!r}")
    out: dict[str, object] = {}
    kind = getattr(type(value), "type", None)
    if isinstance(kind, str):
        out["type"] = kind
    for f in fields(value):  # type: ignore[arg-type]
        out[f.name] = _plain(getattr(value, f.name))
    return out


def seats_text(seats: Sequence[int]) -> str:
    """``"1, 4 and 6"`` for messages."""
    names = [str(s) for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
