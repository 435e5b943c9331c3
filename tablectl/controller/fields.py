"""Typed reads of a JSON object's fields, each problem raised as its reader's own error.

One reader for every JSON object the controller takes apart: journaled inputs
(:mod:`tablectl.controller.inputs`), checkpoints (:mod:`tablectl.controller.table`) and command
arguments (:mod:`tablectl.controller.args`). What differs between them is only the error a
missing or mistyped field raises (a :class:`FieldErrors`) and whether a JSON ``null`` counts
as a missing field.

>>> class Errors:
...     def missing(self, key: str) -> Exception:
...         return KeyError(key)
...     def wrong_type(self, key: str, kind: type) -> Exception:
...         return TypeError(f"{key} must be {kind.__name__}")
>>> fields = Fields({"seat": 3, "all_in": True}, Errors())
>>> fields.integer("seat"), fields.opt_text("name")
(3, None)
>>> fields.integer("all_in")
Traceback (most recent call last):
...
TypeError: all_in must be int
>>> fields.unused()
[]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Protocol

_ABSENT: Final = object()


class FieldErrors(Protocol):
    """The errors a reader raises (returned, the reader raises them)."""

    def missing(self, key: str) -> Exception:
        """``key`` is absent (or ``null`` where that counts as absent)."""
        ...

    def wrong_type(self, key: str, kind: type) -> Exception:
        """``key`` holds something other than a ``kind`` (the first kind asked for)."""
        ...


class Fields:
    """Typed access to the fields of one JSON object.

    A ``bool`` is never taken for an ``int`` (JSON's ``true`` is not a number). An optional
    field that is absent or ``null`` reads as None.

    Args:
        data: the object; anything but a mapping reads as one without fields.
        errors: what to raise for a missing or mistyped field.
        null_is_missing: a ``null`` in a required field is reported missing (otherwise it has
            the wrong type).
    """

    __slots__ = ("_data", "_errors", "_null_is_missing", "_used")

    def __init__(self, data: object, errors: FieldErrors, *,
                 null_is_missing: bool = False) -> None:
        self._data: Mapping[str, object] = data if isinstance(data, Mapping) else {}
        self._errors = errors
        self._null_is_missing = null_is_missing
        self._used: set[str] = set()

    def get(self, key: str, kind: type | tuple[type, ...], *,
            optional: bool = False) -> object:
        """The value of ``key`` if it is one of ``kind`` (None for an absent optional field).

        Raises:
            Exception: the reader's ``missing`` or ``wrong_type`` error.
        """
        self._used.add(key)
        value = self._data.get(key, _ABSENT)
        if type(value) is kind:     # the common case: exactly the type asked for
            return value
        if value is _ABSENT:
            if optional:
                return None
            raise self._errors.missing(key)
        if value is None and optional:
            return None
        if value is None and self._null_is_missing:
            raise self._errors.missing(key)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            raise self._errors.wrong_type(key, kinds[0])
        return value

    def integer(self, key: str) -> int:
        """A required int."""
        value = self.get(key, int)
        assert isinstance(value, int)
        return value

    def opt_integer(self, key: str) -> int | None:
        """An optional int."""
        value = self.get(key, int, optional=True)
        assert value is None or isinstance(value, int)
        return value

    def number(self, key: str) -> float:
        """A required number (an int is taken as a float)."""
        value = self.get(key, (int, float))
        assert isinstance(value, int | float)
        return float(value)

    def text(self, key: str) -> str:
        """A required string."""
        value = self.get(key, str)
        assert isinstance(value, str)
        return value

    def opt_text(self, key: str) -> str | None:
        """An optional string."""
        value = self.get(key, str, optional=True)
        assert value is None or isinstance(value, str)
        return value

    def boolean(self, key: str) -> bool:
        """A required bool."""
        value = self.get(key, bool)
        assert isinstance(value, bool)
        return value

    def opt_boolean(self, key: str) -> bool | None:
        """An optional bool."""
        value = self.get(key, bool, optional=True)
        assert value is None or isinstance(value, bool)
        return value

    def mapping(self, key: str) -> Mapping[str, object]:
        """A required JSON object."""
        value = self.get(key, Mapping)
        assert isinstance(value, Mapping)
        return value

    def items(self, key: str) -> list[object]:
        """A required JSON array."""
        value = self.get(key, list)
        assert isinstance(value, list)
        return value

    def opt_items(self, key: str) -> list[object] | None:
        """An optional JSON array."""
        value = self.get(key, list, optional=True)
        assert value is None or isinstance(value, list)
        return value

    def unused(self) -> list[str]:
        """The object's keys no read asked for, sorted."""
        return sorted(set(self._data) - self._used)
