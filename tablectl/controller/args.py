"""A command's arguments, read with their types; every problem is a ``bad_args`` refusal.

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

from typing import Final

from tablectl.controller.fields import Fields
from tablectl.controller.reply import ErrorCode, Refused
from tablectl.domain.cards import Card, CardParseError
from tablectl.domain.jsonvalue import JsonObject

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
            raise Refused(ErrorCode.BAD_ARGS, f"unknown argument(s): {', '.join(extra)}")
