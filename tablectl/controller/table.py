"""The table around the hands: its fixed setup, roles, and the checkpoint between hands.

:class:`TableSetup` is what does not change while the daemon runs (game, rules, stakes, decks,
who may do what). :class:`TableState` is what a hand boundary carries over (seats, stacks,
button, hand number, active errors, devices, the recent command replies): the controller is
rebuilt exactly by ``HandController.restore(setup, state)`` and replaying the inputs after it.

>>> state = TableState.initial([SeatState(1, "Ada", 500), SeatState(4, "Bo", 700)], button=4)
>>> TableState.from_json(state.to_json()) == state
True
>>> sorted(PERMISSIONS[Role.FLOOR] - PERMISSIONS[Role.DEALER])
['adjust_stack', 'clear_error', 'kill_hand', 'seat_player', 'unseat_player']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Final, Self, cast

from tablectl.controller.errors import CodecError, SetupError
from tablectl.controller.fields import Fields
from tablectl.controller.reply import ErrorCode, Reply
from tablectl.domain.deck import Deck
from tablectl.domain.games import ALLOWED_STRUCTURES, BettingStructure, GameKind, RulesPreset
from tablectl.domain.jsonvalue import JsonObject, JsonValue, freeze_json
from tablectl.game import PRESETS, RuleSet, Stakes
from tablectl.game.rotation import Rotation, RotationPhase, RotationPosition


class Role(StrEnum):
    """What a broker user may do at the table."""

    DEALER = "dealer"
    FLOOR = "floor"
    DISPLAY = "display"


_DEALER: Final = frozenset({"start_hand", "action", "undo", "misdeal", "manual_card",
                            "confirm_read", "reject_read", "next_hand", "choose_game",
                            "run_it"})

PERMISSIONS: Final[Mapping[str, frozenset[str]]] = MappingProxyType({
    Role.DEALER: _DEALER,
    Role.FLOOR: _DEALER | {"adjust_stack", "seat_player", "unseat_player", "kill_hand",
                           "clear_error"},
    Role.DISPLAY: frozenset(),
})
"""Commands each role may send (the default of :attr:`TableSetup.permissions`)."""

_GAME_LABELS: Final = {
    GameKind.HOLDEM: "Hold'em", GameKind.HOLDEM_HI_LO: "Hold'em Hi-Lo 8 or Better",
    GameKind.OMAHA: "Omaha", GameKind.OMAHA_HI_LO: "Omaha Hi-Lo 8 or Better",
    GameKind.STUD: "Seven Card Stud", GameKind.STUD_HI_LO: "Seven Card Stud Hi-Lo 8 or Better",
    GameKind.RAZZ: "Razz",
}
_STRUCTURE_LABELS: Final = {BettingStructure.FIXED_LIMIT: "Limit",
                            BettingStructure.POT_LIMIT: "Pot-Limit",
                            BettingStructure.NO_LIMIT: "No-Limit"}


def game_label(game: GameKind, structure: BettingStructure) -> str:
    """A display name: ``"Limit Omaha Hi-Lo 8 or Better"``, ``"No-Limit Hold'em"``.

    >>> game_label(GameKind.RAZZ, BettingStructure.FIXED_LIMIT)
    'Razz'
    """
    if game is GameKind.RAZZ:
        return "Razz"
    return f"{_STRUCTURE_LABELS[structure]} {_GAME_LABELS[game]}"


@dataclass(frozen=True, slots=True)
class TableSetup:
    """What a table's controller is built with (fixed while the daemon runs).

    Attributes:
        table: the table id (as in MQTT topics).
        game: the game dealt.
        structure: its betting structure.
        stakes: the engine's stakes (chip units).
        deck_id: the registered deck in play (a key of ``decks``).
        decks: every registered deck of the card room, by id: a UID from another deck is a
            ``second_deck`` error, a UID in none an ``unknown_tag``.
        roles: MQTT username -> role (:class:`Role` values); unknown users are refused.
        preset: the house-rule preset's name (for displays).
        rules: the house rules; defaults to ``PRESETS[preset]``.
        max_command_age: seconds; a command whose ``sent_at`` is further than this from its
            ``at``, before or after, is refused as ``stale_command``.
        debounce: seconds; a shoe re-reporting the card it just read within this time is
            ignored (table antennas re-reporting a card where it lies are always ignored).
        max_seats: seat numbers are 1..max_seats.
        currency: shown with amounts; ``units_per_currency`` chip units make one.
        label: the game's display name (default: :func:`game_label`).
        permissions: role -> commands it may send (default :data:`PERMISSIONS`).
        name: the table's name for people (displays, the floor); "" shows the id.
        rotation: the games the table deals in turn (None: ``game`` for ever); ``game``,
            ``structure`` and ``stakes`` are then its first game's, and the controller deals
            each hand with the game of its position in the rotation.
        max_bomb_pot: the largest bomb pot ante the dealer may start a hand with (chip
            units; 0: the table deals no bomb pots).
        double_board: the dealer may start a hand with two boards.
    """

    table: str
    game: GameKind
    structure: BettingStructure
    stakes: Stakes
    deck_id: str
    decks: Mapping[str, Deck]
    roles: Mapping[str, str]
    preset: RulesPreset = RulesPreset.CASINO
    rules: RuleSet | None = None
    max_command_age: float = 10.0
    debounce: float = 2.0
    max_seats: int = 10
    currency: str = "USD"
    units_per_currency: int = 100
    label: str = ""
    permissions: Mapping[str, frozenset[str]] = field(default_factory=lambda: PERMISSIONS)
    name: str = ""
    rotation: Rotation | None = None
    max_bomb_pot: int = 0
    double_board: bool = False

    def __post_init__(self) -> None:
        problems: list[str] = []
        if self.deck_id not in self.decks:
            problems.append(f"deck {self.deck_id!r} is not among the registered decks")
        if self.structure not in ALLOWED_STRUCTURES[self.game]:
            problems.append(f"{self.game.value} is not dealt {self.structure.value}")
        if not 2 <= self.max_seats <= 10:
            problems.append("max_seats must be within 2..10")
        if self.max_bomb_pot < 0:
            problems.append("max_bomb_pot must be >= 0")
        if self.max_command_age <= 0 or self.debounce < 0:
            problems.append("max_command_age must be > 0 and debounce >= 0")
        if problems:
            raise SetupError("; ".join(problems))
        object.__setattr__(self, "decks", MappingProxyType(dict(self.decks)))
        object.__setattr__(self, "roles", MappingProxyType(dict(self.roles)))
        if self.rules is None:
            object.__setattr__(self, "rules", PRESETS[self.preset])
        if not self.label:
            object.__setattr__(self, "label", game_label(self.game, self.structure))

    @property
    def rule_set(self) -> RuleSet:
        """The house rules in force."""
        assert self.rules is not None
        return self.rules

    @property
    def deck(self) -> Deck:
        """The deck in play."""
        return self.decks[self.deck_id]


@dataclass(frozen=True, slots=True)
class SeatState:
    """A seated player between hands (a stack of 0 sits out until topped up). ``player_id``:
    the table config's ``[[seats]] player_id`` ("" when none), which names the player to the
    floor's statistics (docs/floor.md, "Definitions")."""

    seat: int
    name: str
    stack: int
    player_id: str = ""

    def to_json(self) -> dict[str, JsonValue]:
        """``{seat, name, stack}`` and ``player`` when the seat has an id (the events' and
        snapshots' seat, docs/mqtt.md §8.1)."""
        return {"seat": self.seat, "name": self.name, "stack": self.stack,
                **({"player": self.player_id} if self.player_id else {})}


@dataclass(frozen=True, slots=True)
class ActiveError:
    """An error state that is raised and not yet cleared."""

    code: ErrorCode
    message: str
    since: datetime
    detail: JsonObject = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DeviceState:
    """The last known status of a source."""

    name: str
    kind: str
    online: bool
    problem: str = ""
    """Why a source that answers cannot be used (a reader of another protocol version)."""


@dataclass(frozen=True, slots=True)
class CachedReply:
    """A command reply kept for idempotency (``current``: sent since the last hand start)."""

    user: str
    id: str
    reply: Reply
    current: bool


@dataclass(frozen=True, slots=True)
class TableState:
    """The table at a hand boundary: what :meth:`HandController.restore` starts from.

    Attributes:
        seats: seated players in seat order.
        button: the button's seat (0 for stud: the dealer sits left of seat 1).
        hand_number: the number of the last hand started (0 before the first).
        errors: active error states, oldest first.
        devices: sources' last status, by first appearance.
        replies: replies of recent commands (the last hand's and the current one's).
        rotation: where the table is in its rotation (None: it deals one game).
    """

    seats: tuple[SeatState, ...]
    button: int
    hand_number: int = 0
    errors: tuple[ActiveError, ...] = ()
    devices: tuple[DeviceState, ...] = ()
    replies: tuple[CachedReply, ...] = ()
    rotation: RotationPosition | None = None

    @classmethod
    def initial(cls, seats: Sequence[SeatState], button: int) -> TableState:
        """A fresh table (from the config's seats)."""
        return cls(tuple(sorted(seats, key=lambda s: s.seat)), button)

    def to_json(self) -> dict[str, JsonValue]:
        """A JSON object (for a hand row's summary)."""
        return {
            "seats": [s.to_json() for s in self.seats],
            "button": self.button, "hand_number": self.hand_number,
            "errors": [{"code": e.code.value, "message": e.message,
                        "since": e.since.isoformat(), "detail": dict(e.detail)}
                       for e in self.errors],
            "devices": [{"name": d.name, "kind": d.kind, "online": d.online,
                         **({"problem": d.problem} if d.problem else {})}
                        for d in self.devices],
            "replies": [{"user": r.user, "id": r.id, "current": r.current,
                         "reply": r.reply.to_json()} for r in self.replies],
            **({"rotation": rotation_position_json(self.rotation)}
               if self.rotation is not None else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Self:
        """Inverse of :meth:`to_json`.

        Raises:
            CodecError: not a checkpoint of this version.
        """
        try:
            top = _checkpoint(data)
            seats = tuple(SeatState((f := _checkpoint(s)).integer("seat"), f.text("name"),
                                    f.integer("stack"), f.opt_text("player") or "")
                          for s in top.items("seats"))
            errors = tuple(ActiveError(ErrorCode((f := _checkpoint(e)).text("code")),
                                       f.text("message"),
                                       datetime.fromisoformat(f.text("since")),
                                       freeze_json(cast(JsonObject, f.mapping("detail")),
                                                   "error detail"))
                           for e in top.items("errors"))
            devices = tuple(DeviceState((f := _checkpoint(v)).text("name"), f.text("kind"),
                                        f.boolean("online"), f.opt_text("problem") or "")
                            for v in top.items("devices"))
            replies = tuple(CachedReply((f := _checkpoint(r)).text("user"), f.text("id"),
                                        Reply.from_json(f.mapping("reply")),
                                        f.boolean("current"))
                            for r in top.items("replies"))
            rotation = None
            if data.get("rotation") is not None:
                f = _checkpoint(data["rotation"])
                rotation = RotationPosition(f.integer("index"), f.integer("played"),
                                            f.integer("travelled"),
                                            RotationPhase(f.text("phase")))
            return cls(seats, top.integer("button"), top.integer("hand_number"), errors,
                       devices, replies, rotation)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CodecError):
                raise
            raise CodecError(f"bad checkpoint: {exc!r}") from exc


class _CheckpointErrors:
    """How a checkpoint's field is wrong."""

    @staticmethod
    def missing(key: str) -> Exception:
        return CodecError(f"checkpoint: missing {key!r}")

    @staticmethod
    def wrong_type(key: str, kind: type) -> Exception:
        return CodecError(f"checkpoint: {key!r} must be {kind.__name__}")


_ERRORS: Final = _CheckpointErrors()


def _checkpoint(data: object) -> Fields:
    return Fields(data, _ERRORS)


def rotation_position_json(pos: RotationPosition) -> dict[str, JsonValue]:
    """A rotation position as a checkpoint keeps it."""
    return {"index": pos.index, "played": pos.played, "travelled": pos.travelled,
            "phase": pos.phase.value}


def device_status_json(device: DeviceState) -> dict[str, JsonValue]:
    """A source's status as events and snapshots show it: ``online``, ``offline``, or
    ``incompatible`` with the ``problem`` as ``detail``."""
    if device.problem:
        return {"status": "incompatible", "detail": device.problem}
    return {"status": "online" if device.online else "offline"}
