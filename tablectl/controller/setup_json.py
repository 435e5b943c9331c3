"""The controller's setup as JSON: what the journal keeps of the config in force.

The daemon journals the :class:`TableSetup` it runs with (and the table before the first
hand) as a ``config`` input whenever it differs from the last one journaled, so a replay under
a later config rebuilds every hand with the roles, stakes, rules and decks that were in force
when it was played (see :mod:`tablectl.controller.decisions`).

>>> from tablectl.domain.deck import Deck
>>> from tablectl.domain.games import BettingStructure, GameKind
>>> from tablectl.game import Stakes
>>> setup = TableSetup(table="t", game=GameKind.HOLDEM, structure=BettingStructure.NO_LIMIT,
...                    stakes=Stakes(small_blind=1, big_blind=2), deck_id="d",
...                    decks={"d": Deck("d", {})}, roles={"ann": "dealer"})
>>> setup_from_json(setup_to_json(setup)) == setup
True
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from fractions import Fraction
from typing import Any, ClassVar, Final, Self, TypeVar

from tablectl.controller.errors import CodecError
from tablectl.controller.table import TableSetup, TableState
from tablectl.domain.cards import Card, CardParseError
from tablectl.domain.deck import Deck
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.domain.jsonvalue import JsonValue
from tablectl.domain.strictjson import brief
from tablectl.game import RuleSet, Stakes
from tablectl.game.rotation import Rotation, RotationError, RotationGame

SETUP_SCHEMA: Final = "tablectl.setup/1"
_T = TypeVar("_T")


def setup_to_json(setup: TableSetup) -> dict[str, JsonValue]:
    """Everything the controller decides with, as a JSON object (rules and decks included)."""
    return {
        "schema": SETUP_SCHEMA, "table": setup.table, "game": setup.game.value,
        "structure": setup.structure.value, "stakes": _to_json(setup.stakes),
        "deck_id": setup.deck_id,
        "decks": {d: {uid: str(card) for uid, card in sorted(deck.cards_by_uid.items())}
                  for d, deck in sorted(setup.decks.items())},
        "roles": dict(sorted(setup.roles.items())), "preset": setup.preset.value,
        "rules": _to_json(setup.rule_set), "max_command_age": setup.max_command_age,
        "debounce": setup.debounce, "max_seats": setup.max_seats, "currency": setup.currency,
        "units_per_currency": setup.units_per_currency, "label": setup.label,
        "permissions": {role: sorted(cmds) for role, cmds in sorted(setup.permissions.items())},
        **({"rotation": _rotation_json(setup.rotation)} if setup.rotation is not None else {}),
        **({"max_bomb_pot": setup.max_bomb_pot} if setup.max_bomb_pot else {}),
        **({"double_board": True} if setup.double_board else {}),
    }


def _rotation_json(rotation: Rotation) -> dict[str, JsonValue]:
    return {"name": rotation.name, "dealers_choice": rotation.dealers_choice,
            "games": [{"game": g.game.value, "structure": g.structure.value,
                       "stakes": _to_json(g.stakes), "hands": g.hands}
                      for g in rotation.games]}


def _rotation_from_json(data: object) -> Rotation | None:
    if data is None:
        return None
    top = _mapping(data)
    try:
        return Rotation(tuple(RotationGame(GameKind(str((g := _mapping(item))["game"])),
                                           BettingStructure(str(g["structure"])),
                                           _from_json(Stakes, g["stakes"]),
                                           int(_number(g["hands"])))
                              for item in _list(top["games"])),
                        dealers_choice=bool(top["dealers_choice"]), name=str(top["name"]))
    except RotationError as exc:
        raise CodecError(f"journaled setup: {exc}") from exc


def setup_from_json(data: Mapping[str, object]) -> TableSetup:
    """Inverse of :func:`setup_to_json`.

    Raises:
        CodecError: not a setup this version wrote.
    """
    if data.get("schema") != SETUP_SCHEMA:
        raise CodecError(f"not a journaled setup: schema {data.get('schema')!r}")
    try:
        decks_data = _mapping(data["decks"])
        decks = {str(d): Deck(str(d), {str(uid): Card.parse(str(card))
                                       for uid, card in _mapping(cards).items()})
                 for d, cards in decks_data.items()}
        permissions = {str(role): frozenset(str(c) for c in _list(cmds))
                       for role, cmds in _mapping(data["permissions"]).items()}
        return TableSetup(
            table=str(data["table"]), game=GameKind(str(data["game"])),
            structure=BettingStructure(str(data["structure"])),
            stakes=_from_json(Stakes, data["stakes"]), deck_id=str(data["deck_id"]),
            decks=decks, roles={str(k): str(v) for k, v in _mapping(data["roles"]).items()},
            preset=RulesPreset(str(data["preset"])), rules=_from_json(RuleSet, data["rules"]),
            max_command_age=float(_number(data["max_command_age"])),
            debounce=float(_number(data["debounce"])), max_seats=int(_number(data["max_seats"])),
            currency=str(data["currency"]),
            units_per_currency=int(_number(data["units_per_currency"])),
            label=str(data["label"]), permissions=permissions,
            rotation=_rotation_from_json(data.get("rotation")),
            max_bomb_pot=int(_number(data.get("max_bomb_pot", 0))),
            double_board=data.get("double_board") is True)
    except (KeyError, TypeError, ValueError, CardParseError) as exc:
        if isinstance(exc, CodecError):
            raise
        raise CodecError(f"bad journaled setup: {exc!r}") from exc


@dataclass(frozen=True, slots=True)
class ConfigChange:
    """The config the table runs with from this input on (journaled by the daemon at a start
    whose config differs from the last one journaled).

    Roles, permissions, command age, decks and debounce apply from the next input on; game,
    structure, stakes and rules from the next hand (the hand in progress keeps the ones it
    was started with). ``initial`` (the config's seats and button) replaces the seats only
    while no hand was ever started.
    """

    type: ClassVar[str] = "config"
    source: ClassVar[str] = "config"
    setup: TableSetup
    at: datetime
    initial: TableState | None = None

    def __post_init__(self) -> None:
        if self.at.tzinfo is None:
            raise ValueError("ConfigChange.at must be timezone-aware")

    def to_json(self) -> dict[str, JsonValue]:
        """The journal payload."""
        return {"type": self.type, "setup": setup_to_json(self.setup),
                "initial": self.initial.to_json() if self.initial is not None else None,
                "at": self.at.isoformat()}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Self:
        """Inverse of :meth:`to_json` (raises CodecError)."""
        if data.get("type") != cls.type:
            raise CodecError(f"expected type {cls.type!r}, got {data.get('type')!r}")
        initial = data.get("initial")
        try:
            return cls(setup=setup_from_json(_mapping(data.get("setup"))),
                       at=datetime.fromisoformat(str(data["at"])),
                       initial=TableState.from_json(_mapping(initial))
                       if initial is not None else None)
        except (KeyError, ValueError) as exc:
            if isinstance(exc, CodecError):
                raise
            raise CodecError(f"bad config input: {exc!r}") from exc


# --- a JSON codec for the frozen rule dataclasses --------------------------------------------


def _to_json(value: object) -> JsonValue:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return _to_json(value.value)
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, frozenset):   # of enums (RunItTwice's structures and games)
        return sorted(_to_json(v) for v in value)  # type: ignore[type-var]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise CodecError(f"cannot journal a {type(value).__name__} in a setup")


def _from_json(cls: type[_T], data: object) -> _T:
    """A dataclass from :func:`_to_json`; a key it lacks (a rule added since) keeps its
    default."""
    hints = typing.get_type_hints(cls)
    fields = _mapping(data)
    kwargs = {f.name: _decode(hints[f.name], fields[f.name])
              for f in dataclasses.fields(cls)  # type: ignore[arg-type]
              if f.name in fields}
    return cls(**kwargs)


def _decode(hint: Any, value: object) -> object:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return None if value is None else _decode(args[0], value)
    if dataclasses.is_dataclass(hint):
        return _from_json(hint, value)  # type: ignore[arg-type]
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    if hint is Fraction:
        return Fraction(str(value))
    if typing.get_origin(hint) is frozenset:
        (item,) = typing.get_args(hint)
        return frozenset(_decode(item, v) for v in _list(value))
    if hint in (int, float, str, bool) and isinstance(value, hint):
        return value
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    raise CodecError(f"journaled setup: {value!r} is not a {hint}")


def _mapping(value: object) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise CodecError(f"journaled setup: expected an object, got {brief(value)}")
    return value


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise CodecError(f"journaled setup: expected a list, got {brief(value)}")
    return value


def _number(value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CodecError(f"journaled setup: expected a number, got {brief(value)}")
    return value
