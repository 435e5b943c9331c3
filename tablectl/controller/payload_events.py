"""The controller's event payload bodies as pydantic models (tablectl/controller/payloads.py
has the snapshots and generates the JSON Schemas of both).

Public events by ``type`` (:data:`PublicEvent`), the entries of the snapshot's action log
(:data:`LogEntry`) and the secure feed's :class:`HoleCardsEvent`. Besides the card, betting and
showdown events the controller emits ``bet_returned`` (an uncalled bet goes back),
``face_up`` (an all-in hand turned face up before the run-out), ``correction`` (undo,
misdeal, kill_hand, manual_card: take the next snapshot) and ``seat`` (seated, unseated,
stack adjusted between hands).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from tablectl.controller.reply import ErrorCode

CardText = Annotated[str, Field(pattern=r"^[2-9TJQKA][cdhs]$", description="rank + suit")]
Chips = Annotated[int, Field(ge=0, description="chip units")]
Seat = Annotated[int, Field(ge=1, le=10)]
StreetName = Literal["preflop", "flop", "turn", "river", "third", "fourth", "fifth", "sixth",
                     "seventh"]
ActionName = Literal["fold", "check", "call", "bet", "raise", "complete", "bring_in"]
Run = Annotated[int, Field(ge=1, le=3, description="which run of a hand run more than once "
                                                  "(absent: the hand is run once)")]
BoardNo = Annotated[int, Field(ge=1, le=2, description="which board of a double-board hand")]


class _Body(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class HandRef(_Body):
    """Which hand: the table's hand id and number."""

    id: str
    number: int = Field(ge=1)


class SeatStack(_Body):
    """A seat and its stack."""

    seat: Seat
    stack: Chips


class NamedSeat(_Body):
    """A seat with its player's name and stack."""

    seat: Seat
    name: str
    stack: Chips
    player: str | None = Field(default=None, description="the table config's player id of "
                               "the seat (``[[seats]] player_id``), when it has one")


class Pot(_Body):
    """A pot and the seats that can win it (main pot first)."""

    amount: Chips
    eligible: list[Seat]


class GameInfo(_Body):
    """What is dealt."""

    variant: str
    structure: str
    preset: str
    label: str


class StakesInfo(_Body):
    """Forced bets and limits; ``units_per_currency`` chip units make one ``currency``."""

    small_blind: Chips
    big_blind: Chips
    ante: Chips
    bring_in: Chips
    small_bet: Chips
    big_bet: Chips
    big_blind_ante: Chips = Field(default=0, description="one ante for the table, posted by "
                                  "the big blind (absent from daemons before it was added)")
    currency: str = Field(description="``chips`` at a tournament table (amounts are chips, "
                                      "units_per_currency 1)")
    units_per_currency: int = Field(ge=1)


# --- public events ---------------------------------------------------------------------------


class HandStartedEvent(_Body):
    """A hand began (stacks before the forced bets)."""

    type: Literal["hand_started"]
    hand: HandRef
    button: Seat | None = Field(description="null for stud")
    seats: list[NamedSeat]
    game: GameInfo | None = Field(default=None, description="the game this hand deals (sent "
                                  "by every daemon now; absent from daemons before it was "
                                  "added, and then only at a rotation table: take the "
                                  "snapshot's)")
    stakes: StakesInfo | None = Field(default=None, description="its stakes (as ``game``)")
    bomb: Chips | None = Field(default=None, description="a bomb pot: every player's ante "
                                                         "(no blinds, no pre-flop betting)")
    double_board: bool | None = Field(default=None, description="a double-board hand")


class ForcedBetEvent(_Body):
    """An ante, blind, straddle or stud bring-in."""

    type: Literal["forced_bet"]
    seat: Seat
    kind: Literal["small_blind", "big_blind", "straddle", "ante", "big_blind_ante", "bring_in"]
    amount: Chips
    all_in: bool


class CardsDealtEvent(_Body):
    """Cards to a seat; ``up`` lists only the face-up ones (never a hidden card)."""

    type: Literal["cards_dealt"]
    seat: Seat
    count: int = Field(ge=1)
    up: list[CardText]
    street: StreetName


class BoardEvent(_Body):
    """A board card was dealt; ``cards`` is the whole board so far (null: unread), of run
    ``run`` in a hand run more than once."""

    type: Literal["board"]
    cards: list[CardText | None]
    street: StreetName
    run: Run | None = None
    board: BoardNo | None = None


class RunsEvent(_Body):
    """The players agreed to run the rest of the board ``count`` times (``run_it``); every
    run starts from ``board``, the cards dealt so far."""

    type: Literal["runs"]
    count: int = Field(ge=1, le=3)
    board: list[CardText | None]


class ActionEvent(_Body):
    """A decision: ``amount`` chips went in, the seat's bet this street is now ``to``."""

    type: Literal["action"]
    seat: Seat
    kind: ActionName
    amount: Chips
    to: Chips
    all_in: bool
    stack: Chips


class BetReturnedEvent(_Body):
    """The uncalled part of a bet went back to ``seat``."""

    type: Literal["bet_returned"]
    seat: Seat
    amount: Chips
    stack: Chips


class PotEvent(_Body):
    """A betting round ended; the pots so far."""

    type: Literal["pot"]
    pots: list[Pot]
    street: StreetName


class ShowdownEvent(_Body):
    """A contender's cards at showdown and its hand in words."""

    type: Literal["showdown"]
    seat: Seat
    cards: list[CardText]
    best: list[CardText] = Field(description="the five cards that play")
    high: str | None
    low: str | None
    run: Run | None = None
    board: BoardNo | None = None


class FaceUpEvent(_Body):
    """A player is all-in and no more betting is possible: a live hand turned face up before
    the rest is dealt (house rule ``all_in_face_up``); the seat's later cards are public too."""

    type: Literal["face_up"]
    seat: Seat
    cards: list[CardText]
    street: StreetName


class WinnerEvent(_Body):
    """Part of a pot awarded."""

    type: Literal["winner"]
    pot: int = Field(ge=0)
    seat: Seat
    amount: Chips
    half: Literal["high", "low", "whole"]
    description: str
    run: Run | None = None
    board: BoardNo | None = None


class HandEndedEvent(_Body):
    """A hand is over: settled, or voided by a misdeal or kill (stacks as before it)."""

    type: Literal["hand_ended"]
    hand: HandRef
    result: Literal["settled", "misdeal", "killed"]
    stacks: list[SeatStack]
    rake: Chips


class ErrorEvent(_Body):
    """An error state raised (``active``) or cleared."""

    type: Literal["error"]
    code: ErrorCode
    message: str
    active: bool


class DeviceEvent(_Body):
    """A card source came online or went offline."""

    type: Literal["device"]
    name: str
    kind: str
    status: Literal["online", "offline", "incompatible"]
    detail: str | None = Field(default=None, description="why an incompatible source "
                               "cannot be used")


class UndoneAction(_Body):
    """The decision an undo took back (a run count: ``run_it`` with its ``count``, no seat)."""

    seat: Seat | None = None
    kind: Literal["fold", "check", "call", "bet", "raise", "complete", "bring_in", "show",
                  "muck", "run_it"]
    amount: Chips | None = None
    count: int | None = Field(default=None, ge=1, le=3)


class CorrectionEvent(_Body):
    """A dealer or floor correction; consumers should take the next snapshot."""

    type: Literal["correction"]
    kind: Literal["undo", "misdeal", "kill_hand", "manual_card"]
    by: str
    undone: UndoneAction | None = None
    card: CardText | None = None
    target: str | None = None
    read: str | None = None


class SeatEvent(_Body):
    """A seat changed between hands."""

    type: Literal["seat"]
    seat: Seat
    name: str
    stack: Chips
    player: str | None = Field(default=None, description="the table config's player id of "
                               "the seat (``[[seats]] player_id``), when it has one")
    change: Literal["seated", "unseated", "adjusted"]
    by: str
    amount: int | None = Field(default=None, description="adjusted: chips added (negative: "
                                                         "removed)")
    reason: str | None = None


class BurnEvent(_Body):
    """The dealer burned a card (which card is never public)."""

    type: Literal["burn"]
    street: StreetName


class HandClearedEvent(_Body):
    """The settled hand is cleared from the table (the dealer's ``next_hand``): phase idle."""

    type: Literal["hand_cleared"]
    button: Seat | None = Field(description="where the button is now (null for stud)")
    game: GameInfo | None = Field(default=None, description="the game the next hand deals "
                                                            "(tables with a rotation only)")
    stakes: StakesInfo | None = Field(default=None, description="its stakes (tables with a "
                                                                "rotation only)")


class GameChosenEvent(_Body):
    """Dealer's choice: the game the next hands deal was chosen (``choose_game``)."""

    type: Literal["game_chosen"]
    game: GameInfo
    stakes: StakesInfo
    by: str


PublicEvent: TypeAlias = Annotated[
    HandStartedEvent | ForcedBetEvent | CardsDealtEvent | BoardEvent | ActionEvent
    | BetReturnedEvent | PotEvent | FaceUpEvent | ShowdownEvent | WinnerEvent | HandEndedEvent
    | ErrorEvent
    | DeviceEvent | CorrectionEvent | SeatEvent | BurnEvent | HandClearedEvent | GameChosenEvent
    | RunsEvent,
    Field(discriminator="type")]
"""Every public event body, by ``type``."""


class _Logged(_Body):
    n: int = Field(ge=1, description="the entry's place in the hand's log (1, 2, ...)")


class LoggedHandStarted(HandStartedEvent, _Logged):
    """Log entry: a hand began."""


class LoggedForcedBet(ForcedBetEvent, _Logged):
    """Log entry: a forced bet."""


class LoggedBoard(BoardEvent, _Logged):
    """Log entry: the board of a street (its cards so far)."""


class LoggedRuns(RunsEvent, _Logged):
    """Log entry: the hand is run more than once."""


class LoggedAction(ActionEvent, _Logged):
    """Log entry: a decision."""


class LoggedBetReturned(BetReturnedEvent, _Logged):
    """Log entry: an uncalled bet went back."""


class LoggedFaceUp(FaceUpEvent, _Logged):
    """Log entry: an all-in hand turned face up."""


class LoggedShowdown(ShowdownEvent, _Logged):
    """Log entry: a hand shown down."""


class LoggedWinner(WinnerEvent, _Logged):
    """Log entry: an award."""


class LoggedHandEnded(HandEndedEvent, _Logged):
    """Log entry: the hand is over."""


class LoggedError(ErrorEvent, _Logged):
    """Log entry: an error state raised or cleared."""


class LoggedDevice(DeviceEvent, _Logged):
    """Log entry: a card source's status."""


class LoggedCorrection(CorrectionEvent, _Logged):
    """Log entry: a correction."""


class LoggedSeat(SeatEvent, _Logged):
    """Log entry: a seat changed."""


LogEntry: TypeAlias = Annotated[
    LoggedHandStarted | LoggedForcedBet | LoggedBoard | LoggedAction | LoggedBetReturned
    | LoggedFaceUp | LoggedShowdown | LoggedWinner | LoggedHandEnded | LoggedError
    | LoggedDevice | LoggedCorrection | LoggedSeat | LoggedRuns,
    Field(discriminator="type")]
"""An entry of the snapshot's action log (:mod:`tablectl.controller.handlog`): a public event
body of a kind a person reads, with its place ``n`` in the log."""


class HoleCardsEvent(_Body):
    """Secure feed: every card of ``seat`` so far (null: unread), sent as each is accepted."""

    type: Literal["holecards"]
    hand: HandRef
    seat: Seat
    cards: list[CardText | None]
