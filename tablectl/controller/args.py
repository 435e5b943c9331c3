"""A command's arguments, read with their types; every problem is a ``bad_args`` refusal.

Each command declares its arguments as an :data:`ArgSchema` (the command table's third column,
:mod:`tablectl.controller.commands`); :func:`read_args` reads them in the schema's order, refuses
any argument the schema does not name, then runs the value checks, in order.

>>> schema = (Arg("seat", ArgKind.INT, required=True, check=lambda v, setup: None),)
>>> read_args(schema, {"seat": 3}, None).integer("seat")
3
>>> read_args(schema, {"seat": 3, "x": 1}, None)
Traceback (most recent call last):
...
tablectl.controller.reply.Refused: unknown argument(s): x
>>> args = Args({"seat": 3, "kind": "call"})
>>> args.opt_int("seat"), args.text("kind")
(3, 'call')
>>> args.done()
>>> Args({"seat": "3"}).integer("seat")
Traceback (most recent call last):
...
tablectl.controller.reply.Refused: argument 'seat' must be an integer
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final, TypeAlias

from tablectl.controller.fields import Fields
from tablectl.controller.reply import ErrorCode, Refused
from tablectl.controller.table import TableSetup
from tablectl.domain.cards import Card, CardParseError
from tablectl.domain.jsonvalue import JsonObject
from tablectl.domain.strictjson import MAX_NAME, StrictJsonError, check_text, display_name

_KIND_WORDS: Final[dict[type, str]] = {int: "an integer", str: "a string",
                                       bool: "true or false", list: "a list of cards"}


class _ArgErrors:
    """How a command argument is wrong (a ``null`` argument is a missing one)."""

    @staticmethod
    def missing(key: str) -> Exception:
        return Refused(ErrorCode.BAD_ARGS, f"missing argument {key!r}")

    @staticmethod
    def wrong_type(key: str, kind: type) -> Exception:
        return Refused(ErrorCode.BAD_ARGS, f"argument {key!r} must be {_KIND_WORDS[kind]}")


_ERRORS: Final = _ArgErrors()


class Args:
    """Typed access to a command's args; :meth:`done` refuses the ones nobody read."""

    def __init__(self, args: JsonObject) -> None:
        self._fields = Fields(args, _ERRORS, null_is_missing=True)

    def integer(self, key: str) -> int:
        """A required integer."""
        return self._fields.integer(key)

    def opt_int(self, key: str) -> int | None:
        """An optional integer."""
        return self._fields.opt_integer(key)

    def text(self, key: str) -> str:
        """A required string."""
        return self._fields.text(key)

    def opt_str(self, key: str) -> str | None:
        """An optional string."""
        return self._fields.opt_text(key)

    def opt_bool(self, key: str) -> bool | None:
        """An optional bool."""
        return self._fields.opt_boolean(key)

    def opt_card(self, key: str) -> Card | None:
        """An optional card (``"As"``)."""
        text = self.opt_str(key)
        if text is None:
            return None
        try:
            return Card.parse(text)
        except CardParseError as exc:
            raise Refused(ErrorCode.BAD_ARGS, str(exc)) from None

    def opt_cards(self, key: str) -> tuple[Card, ...] | None:
        """An optional list of cards."""
        value = self._fields.opt_items(key)
        if value is None:
            return None
        if not all(isinstance(v, str) for v in value):
            raise _ERRORS.wrong_type(key, list)
        try:
            return tuple(Card.parse(str(v)) for v in value)
        except CardParseError as exc:
            raise Refused(ErrorCode.BAD_ARGS, str(exc)) from None

    def done(self) -> None:
        """Refuse the arguments no read asked for."""
        extra = self._fields.unused()
        if extra:
            names = ", ".join(name[:32] for name in extra[:5])
            more = f" and {len(extra) - 5} more" if len(extra) > 5 else ""
            raise Refused(ErrorCode.BAD_ARGS, f"unknown argument(s): {names}{more}")


class ArgKind(Enum):
    """The type of a command argument."""

    INT = "int"
    TEXT = "text"
    BOOL = "bool"
    CARD = "card"
    """A card's name (``"As"``), read as a :class:`~tablectl.domain.cards.Card`."""
    CARDS = "cards"
    """A list of card names (at most :data:`MAX_CARDS`)."""
    NAME = "name"
    """A player's name as a display shows it (:func:`~tablectl.domain.strictjson.display_name`:
    at most 32 characters, none of them a control or format character), normalised."""


MAX_TEXT: Final = 64
"""The default bound of a text argument (characters)."""

MAX_CARDS: Final = 8
"""The most cards one argument names (a stud hand is seven)."""


ArgCheck: TypeAlias = Callable[[object, TableSetup | None], str | None]
"""A value check: the reason of a ``bad_args`` refusal, or None when the value is good."""


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument of a command.

    Attributes:
        key: its name in the command's ``args``.
        kind: its type.
        required: a missing (or ``null``) one is refused.
        check: a check of a given value against the table's setup (after every argument is
            read and none is unknown).
        max_len: the longest text (characters) a ``TEXT`` argument takes; every text is
            also free of control characters.
    """

    key: str
    kind: ArgKind
    required: bool = False
    check: ArgCheck | None = None
    max_len: int = MAX_TEXT

    def __post_init__(self) -> None:
        if self.required and self.kind not in (ArgKind.INT, ArgKind.TEXT, ArgKind.NAME):
            raise ValueError(f"argument {self.key!r}: only ints and texts can be required")


ArgSchema: TypeAlias = tuple[Arg, ...]
"""A command's arguments, in the order they are read and checked."""


class ArgValues:
    """A command's arguments as :func:`read_args` read them (absent optional ones are None)."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, object]) -> None:
        self._values = dict(values)

    def integer(self, key: str) -> int:
        """A required integer."""
        value = self._values[key]
        assert isinstance(value, int)
        return value

    def opt_int(self, key: str) -> int | None:
        """An optional integer."""
        value = self._values[key]
        assert value is None or isinstance(value, int)
        return value

    def text(self, key: str) -> str:
        """A required string."""
        value = self._values[key]
        assert isinstance(value, str)
        return value

    def opt_str(self, key: str) -> str | None:
        """An optional string."""
        value = self._values[key]
        assert value is None or isinstance(value, str)
        return value

    def opt_bool(self, key: str) -> bool | None:
        """An optional bool."""
        value = self._values[key]
        assert value is None or isinstance(value, bool)
        return value

    def opt_card(self, key: str) -> Card | None:
        """An optional card."""
        value = self._values[key]
        assert value is None or isinstance(value, Card)
        return value

    def opt_cards(self, key: str) -> tuple[Card, ...] | None:
        """An optional list of cards."""
        value = self._values[key]
        assert value is None or isinstance(value, tuple)
        return value


def _read(args: Args, arg: Arg) -> object:
    match arg.kind:
        case ArgKind.INT:
            return args.integer(arg.key) if arg.required else args.opt_int(arg.key)
        case ArgKind.TEXT | ArgKind.NAME:
            return args.text(arg.key) if arg.required else args.opt_str(arg.key)
        case ArgKind.BOOL:
            return args.opt_bool(arg.key)
        case ArgKind.CARD:
            return args.opt_card(arg.key)
        case ArgKind.CARDS:
            return args.opt_cards(arg.key)


_SCALAR: Final = {ArgKind.INT: int, ArgKind.TEXT: str, ArgKind.BOOL: bool, ArgKind.NAME: str}


def _well_formed(schema: ArgSchema, args: object) -> dict[str, object] | None:
    """The values of ``args`` when every one is a plain scalar of its kind (or an absent or
    ``null`` optional one) and none is unknown; None when anything needs the full reader,
    which then says what is wrong. A command on the critical path is nearly always such: this
    spares it the reader's bookkeeping, with the same values."""
    if type(args) is not dict:
        return None
    values: dict[str, object] = {}
    for arg in schema:
        value = args.get(arg.key)
        if value is None:
            if arg.required:
                return None
        elif type(value) is not _SCALAR.get(arg.kind):
            return None
        values[arg.key] = value
    if len(args) > len(values) or not args.keys() <= values.keys():
        return None
    return values


def _bounded(arg: Arg, value: object) -> object:
    """``value`` within its argument's bounds (a name normalised as a display shows it).

    Raises:
        Refused: ``bad_args``: too long, a control character, too many cards.
    """
    try:
        match arg.kind:
            case ArgKind.TEXT:
                return check_text(value, max_len=arg.max_len, where=f"argument {arg.key!r}",
                                  empty=True)
            case ArgKind.NAME:
                return display_name(value, max_len=MAX_NAME, where=f"argument {arg.key!r}")
            case ArgKind.CARDS:
                if isinstance(value, tuple) and len(value) > MAX_CARDS:
                    raise Refused(ErrorCode.BAD_ARGS, f"argument {arg.key!r}: {len(value)} "
                                  f"cards, more than {MAX_CARDS}")
    except StrictJsonError as exc:
        raise Refused(ErrorCode.BAD_ARGS, str(exc)) from None
    return value


def read_args(schema: ArgSchema, args: JsonObject, setup: TableSetup | None) -> ArgValues:
    """Read ``args`` by ``schema``: each in order, then unknown ones, then the value checks.

    Raises:
        Refused: ``bad_args``, with the first problem found.
    """
    values = _well_formed(schema, args)
    if values is None:
        reader = Args(args)
        values = {arg.key: _read(reader, arg) for arg in schema}
        reader.done()
    for arg in schema:
        value = values[arg.key]
        if value is not None:
            value = values[arg.key] = _bounded(arg, value)
        if arg.check is not None and value is not None:
            reason = arg.check(value, setup)
            if reason is not None:
                raise Refused(ErrorCode.BAD_ARGS, reason)
    return ArgValues(values)
