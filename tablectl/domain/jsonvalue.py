"""JSON values as the table stores and sends them: the types, a canonical dump, a frozen copy.

Payloads of inputs, events, replies and hand summaries are JSON objects
(``Mapping[str, JsonValue]``). :func:`dump_json` is the one canonical text of a payload (sorted
keys, no NaN); :func:`freeze_json` is a private copy of one, exactly what that text parses back
to. Stdlib only, so every layer may use it.

>>> freeze_json({"b": [1, {"d": None, "c": 2.5}], "a": True}, "example")
{'a': True, 'b': [1, {'c': 2.5, 'd': None}]}
>>> dump_json({"x": float("nan")}, "example")
Traceback (most recent call last):
...
tablectl.domain.errors.JournalStateError: example is not JSON: Out of range float values ...
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Final, TypeAlias

from tablectl.domain.errors import JournalStateError

JsonValue: TypeAlias = (
    bool | int | float | str | Sequence["JsonValue"] | Mapping[str, "JsonValue"] | None
)
JsonObject: TypeAlias = Mapping[str, JsonValue]


def dump_json(payload: JsonObject, what: str) -> str:
    """Serialise a payload canonically (sorted keys, no NaN); refuse anything not JSON.

    Raises:
        JournalStateError: ``payload`` is not a JSON object of JSON values.
    """
    if not isinstance(payload, Mapping):
        raise JournalStateError(f"{what} must be a JSON object, got {type(payload).__name__}")
    try:
        return json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise JournalStateError(f"{what} is not JSON: {exc}") from exc


def load_json(text: str) -> JsonObject:
    """Parse a stored payload."""
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


def freeze_json(payload: JsonObject, what: str) -> JsonObject:
    """A private copy of ``payload`` as plain dicts/lists (validated as :func:`dump_json`):
    what its JSON round trip gives, keys sorted. A payload of plain JSON types is copied
    directly; anything else takes the round trip, which converts or refuses it.

    Raises:
        JournalStateError: ``payload`` is not a JSON object of JSON values.
    """
    copy = _plain_copy(payload)
    if copy is None:
        return load_json(dump_json(payload, what))
    return copy


_PLAIN: Final = frozenset({str, int, bool, type(None)})


class _NotPlain(Exception):  # noqa: N818 (internal control flow, never escapes)
    pass


def _plain_copy(value: Mapping[str, JsonValue]) -> dict[str, JsonValue] | None:
    """What the JSON round trip of :func:`freeze_json` makes of ``value`` (a copy, keys
    sorted at every level), made without it; None when ``value`` holds anything but dicts
    with str keys, lists, str, int, bool, None and finite floats (then only the round trip
    says what it is).

    >>> _plain_copy({"b": [1, {"d": None, "c": 2.5}], "a": True})
    {'a': True, 'b': [1, {'c': 2.5, 'd': None}]}
    >>> _plain_copy({"a": (1, 2)}) is None
    True
    """
    try:
        return _plain_dict(value)
    except (_NotPlain, RecursionError):
        return None


def _plain_dict(value: object) -> dict[str, JsonValue]:
    if type(value) is not dict or not all(type(k) is str for k in value):
        raise _NotPlain
    return {k: _plain_value(value[k]) for k in sorted(value)}


def _plain_value(value: object) -> JsonValue:
    kind = type(value)
    if kind in _PLAIN:
        return value  # type: ignore[return-value]
    if kind is float:
        if not math.isfinite(value):  # type: ignore[arg-type]
            raise _NotPlain
        return value  # type: ignore[return-value]
    if kind is list:
        return [_plain_value(v) for v in value]  # type: ignore[attr-defined]
    return _plain_dict(value)

