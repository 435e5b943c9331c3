"""The controller's snapshot payloads as pydantic models, and the generated JSON Schemas of
every payload (the events' models are in tablectl/controller/payload_events.py).

These describe what :class:`~tablectl.controller.controller.HandController` emits, without
the envelope the app adds (epoch, seq, ts): public events by ``type``
(:data:`PublicEvent`), secure events (:class:`HoleCardsEvent`), the public snapshot
(:class:`PublicSnapshot`) and the secure snapshot (:class:`SecureSnapshot`). The schema files in
``tablectl/controller/schemas/`` are generated from them (:func:`write_schemas`) and a test
checks they match the code and that everything the controller emits validates.

>>> sorted(json_schemas())
['HoleCardsEvent', 'PublicEvent', 'PublicSnapshot', 'SecureSnapshot']
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final, Literal

from pydantic import Field, TypeAdapter

from tablectl.controller.payload_events import (
    ActionName,
    BoardNo,
    CardText,
    Chips,
    GameInfo,
    HandRef,
    HoleCardsEvent,
    LogEntry,
    Pot,
    PublicEvent,
    Run,
    Seat,
    StakesInfo,
    StreetName,
    _Body,
)
from tablectl.controller.reply import ErrorCode
from tablectl.domain.jsonvalue import JsonValue

# --- snapshots -------------------------------------------------------------------------------



class SeatCardInfo(_Body):
    """A card in front of a seat: ``card`` null while hidden (public) or unread (secure)."""

    card: CardText | None
    up: bool


class SeatInfo(_Body):
    """One seat, 1..max seats (empty seats included)."""

    seat: Seat
    name: str
    stack: Chips
    bet: Chips
    status: Literal["active", "folded", "all_in", "out", "empty"]
    cards: list[SeatCardInfo]
    to_act: bool
    player: str | None = Field(default=None, description="the table config's player id of "
                               "the seat (``[[seats]] player_id``), when it has one")


class LegalAction(_Body):
    """One legal action: ``amount`` for call and bring_in, ``min``/``max`` "to" totals for
    bet, raise and complete."""

    kind: ActionName
    amount: Chips | None = None
    min: Chips | None = None
    max: Chips | None = None


class ToAct(_Body):
    """Who acts and what they may do."""

    seat: Seat
    legal: list[LegalAction]


class LastAction(_Body):
    """The last decision (``amount``: chips it put in)."""

    seat: Seat
    kind: ActionName
    amount: Chips


class ResultInfo(_Body):
    """An award; ``cards`` the five that won it (empty when uncontested: never revealed)."""

    pot: int = Field(ge=0)
    seat: Seat
    amount: Chips
    half: Literal["high", "low", "whole"]
    description: str
    cards: list[CardText]
    run: Run | None = None
    board: BoardNo | None = None


class ErrorInfo(_Body):
    """An active error state."""

    code: ErrorCode
    message: str
    since: str = Field(description="ISO 8601 time it was raised")


class DeviceInfo(_Body):
    """A card source's last status."""

    name: str
    kind: str
    status: Literal["online", "offline", "incompatible"]
    detail: str | None = Field(default=None, description="why an incompatible source "
                               "cannot be used")


class UndoInfo(_Body):
    """The decision an ``undo`` would take back (``amount``: the "to" total the dealer gave
    for a bet or raise; absent when none was given; a run count: ``run_it``, ``count``)."""

    seat: Seat | None = None
    kind: ActionName | Literal["show", "muck", "run_it"]
    amount: Chips | None = None
    count: int | None = Field(default=None, ge=1, le=3)


class DoubleBoardInfo(_Body):
    """A double-board hand: both boards so far, board 1 first."""

    boards: list[list[CardText | None]] = Field(min_length=2, max_length=2)


class RunsInfo(_Body):
    """A hand run more than once: how many times, and every run's board so far (run 1 first;
    a run not dealt yet shows the cards the runs share)."""

    count: int = Field(ge=2, le=3)
    boards: list[list[CardText | None]]


class StartFormatsInfo(_Body):
    """The hand formats the house deals at this table (docs/rules.md, "Bomb pots" and
    "Double board"): ``start_hand {bomb}`` up to ``max_bomb_pot`` (0: none), ``start_hand
    {double_board: true}`` where ``double_board``."""

    max_bomb_pot: Chips
    double_board: bool


class CommandsInfo(_Body):
    """What a console may offer now: ``available``, the commands the table would take from a
    user whose role allows them (stage and each command's own conditions that need no
    arguments); ``undo``, what an undo would take back (null: nothing)."""

    available: list[str]
    undo: UndoInfo | None
    formats: StartFormatsInfo | None = Field(
        default=None, description="what start_hand may add at this table (absent: nothing)")


class RotationGameInfo(_Body):
    """A game of a rotation."""

    variant: str
    structure: str
    label: str


class RotationInfo(_Body):
    """Where a table with a rotation is in it (docs/mqtt.md, "The rotation")."""

    name: str = Field(description='"horse", or "" for a list of games')
    dealers_choice: bool
    choosing: bool = Field(description="dealer's choice waiting for choose_game")
    game: RotationGameInfo | None = Field(description="the game now (null while choosing)")
    next: RotationGameInfo | None = Field(description="the game after it (null: dealer's "
                                                      "choice)")
    hands_left: int = Field(ge=0, description="hands of this game still to deal, the one "
                                              "being dealt included (an orbit's: an estimate)")
    frozen_button: Seat | None = Field(description="during a stud game, where the button "
                                                   "resumes")
    games: list[RotationGameInfo]


class TournamentLevelInfo(_Body):
    """A tournament level as a table plays it (tablectl/daemon/level.py)."""

    number: int = Field(ge=1)
    label: str
    small_blind: Chips
    big_blind: Chips
    ante: Chips
    ante_kind: Literal["big_blind", "ante"]


class TournamentInfo(_Body):
    """The tournament a table follows and how sure it is of its level."""

    id: str
    link: Literal["no_status", "following", "stale", "link_down"] = Field(
        description="following: the status is fresh; stale: older than the table's "
                    "stale_after; link_down: the table's broker is away; no_status: none "
                    "since the daemon started. In every case the table plays the last level "
                    "it knew")
    says: str = Field(description="the link in a line, for people")
    level: TournamentLevelInfo | None = Field(description="the level known (null: no status "
                                                          "yet: the config's stakes)")
    pending: bool = Field(description="the level known starts with the next hand")
    hand_for_hand: bool
    hand_for_hand_go: int | None = Field(default=None, ge=0, description="in hand for hand: "
                                         "the round the tables may start")
    waiting: bool = Field(default=False, description="hand for hand: this table played the "
                          "round's hand and waits for the other tables (start_hand is "
                          "refused)")
    status_at: str | None = Field(description="the time of the status taken")
    refused: str | None = Field(description="why the last status message was refused (null "
                                            "once one is taken)")
    phase: Literal["not_started", "running", "paused", "on_break", "finished"] | None = Field(
        default=None, description="the clock's phase in the status taken (absent from daemons "
                                  "before it was added, as the four below)")
    time_left: float | None = Field(default=None, ge=0, description="seconds left in the "
                                    "level or break when the snapshot was made (counting "
                                    "down only while running or on a break)")
    next_level: str | None = Field(default=None, description="the next level or break "
                                   "(null on the last level)")
    players_left: int | None = Field(default=None, ge=0)
    average_stack: Chips | None = None


class _SnapshotBody(_Body):
    table: str
    table_name: str | None = Field(
        default=None, description="the table's name for people (the id when it has none; "
                                  "absent from daemons before it was added)")
    hand: HandRef | None
    game: GameInfo
    stakes: StakesInfo
    button: Seat | None = Field(description="null for stud")
    phase: Literal["idle", "dealing", "betting", "showdown", "settled", "fault"]
    street: StreetName | Literal["showdown"] | None
    seats: list[SeatInfo]
    board: list[CardText | None]
    pots: list[Pot]
    to_act: ToAct | None
    last_action: LastAction | None
    results: list[ResultInfo]
    errors: list[ErrorInfo]
    devices: list[DeviceInfo]
    commands: CommandsInfo | None = Field(
        default=None, description="what a console may offer now (absent from daemons "
                                  "before it was added)")
    log: list[LogEntry] | None = Field(
        default=None, description="the public action log of the current or last hand, oldest "
                                  "first: its first 24 entries and its last 96 (absent from "
                                  "daemons before it was added)")
    log_omitted: int = Field(default=0, ge=0, description="entries of the log between the "
                             "first and the last kept that are left out")
    rotation: RotationInfo | None = Field(default=None, description="tables with a rotation "
                                                                    "only")
    runs: RunsInfo | None = Field(default=None, description="a hand run more than once only "
                                                            "(``board`` is run 1's)")
    bomb_pot: Chips | None = Field(default=None, description="a bomb pot only: every "
                                                             "player's ante")
    double_board: DoubleBoardInfo | None = Field(default=None, description="a double-board "
                                                 "hand only (``board`` is board 1)")
    tournament: TournamentInfo | None = Field(default=None, description="tables that follow "
                                              "a tournament's clock only")


class PublicSnapshot(_SnapshotBody):
    """The retained public snapshot (without epoch/seq/ts): hidden hole cards are null."""

    schema_: Literal["tablectl.state/1"] = Field(alias="schema")


class PendingRead(_Body):
    """A doubtful read held for the dealer."""

    read: str
    card: CardText
    confidence: float = Field(ge=0, le=1)
    target: str


class SecureSnapshot(_SnapshotBody):
    """The secure snapshot: every hole card, the burns and the held doubtful read."""

    schema_: Literal["tablectl.secure-state/1"] = Field(alias="schema")
    burns: list[CardText | None]
    pending_read: PendingRead | None


PUBLIC_EVENT: Final[TypeAdapter[PublicEvent]] = TypeAdapter(PublicEvent)
"""Validates a public event body (``PUBLIC_EVENT.validate_python(event.to_json())``)."""


def json_schemas() -> dict[str, dict[str, JsonValue]]:
    """The JSON Schema of every controller payload, by name."""
    return {
        "PublicEvent": PUBLIC_EVENT.json_schema(by_alias=True),
        "HoleCardsEvent": HoleCardsEvent.model_json_schema(by_alias=True),
        "PublicSnapshot": PublicSnapshot.model_json_schema(by_alias=True),
        "SecureSnapshot": SecureSnapshot.model_json_schema(by_alias=True),
    }


SCHEMA_DIR: Final = Path(__file__).with_name("schemas")


def schema_files() -> dict[str, str]:
    """File name -> text of each generated schema, as checked in under :data:`SCHEMA_DIR`."""
    return {f"{name}.json": json.dumps(schema, indent=2, sort_keys=True) + "\n"
            for name, schema in json_schemas().items()}


def write_schemas(directory: Path = SCHEMA_DIR) -> None:
    """Regenerate the schema files (after changing a payload model)."""
    directory.mkdir(exist_ok=True)
    for name, text in schema_files().items():
        (directory / name).write_text(text)
