"""The one strict JSON decoder for everything that comes from outside: MQTT commands, web API
bodies, floor events, files an operator hands over.

``json.loads`` alone accepts what no part of the table can hold: ``NaN`` and ``Infinity``, an
integer of any size (SQLite and PostgreSQL hold 64 bits, a browser 53), a megabyte string, a
string with NUL or other control characters, an array nested deeper than Python's recursion
limit, the same key twice (which value wins depends on the reader). :func:`decode_strict`
refuses each of them with a :class:`StrictJsonError` saying where and why, and checks the size
before it parses anything. :func:`check_value` applies the same checks to a value parsed
elsewhere (a pydantic model's field, a config file). :func:`check_text` and
:func:`display_name` are the checks of one string.

Stdlib only, so every layer may use it. Nothing here raises anything but
:class:`StrictJsonError` for any input.

>>> decode_strict(b'{"v":1,"args":{"seat":3}}')
{'v': 1, 'args': {'seat': 3}}
>>> decode_strict(b'{"amount":NaN}')
Traceback (most recent call last):
...
tablectl.domain.strictjson.StrictJsonError: $.amount: NaN is not a number JSON allows
>>> decode_strict(b'[' * 100 + b']' * 100)
Traceback (most recent call last):
...
tablectl.domain.strictjson.StrictJsonError: $[0]...[0]: nested deeper than 16 levels
>>> decode_strict(b'{"seq": 9223372036854775808}')
Traceback (most recent call last):
...
tablectl.domain.strictjson.StrictJsonError: $.seq: integer out of range (at most 9007199254740991)
>>> display_name("  Ann\\u00e9e  ")
'Année'
>>> display_name("A\\u0000B")
Traceback (most recent call last):
...
tablectl.domain.strictjson.StrictJsonError: name: control character U+0000 at 1
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, NoReturn

from tablectl.domain.jsonvalue import JsonValue

MAX_SAFE_INT: Final = 2**53 - 1
"""The largest integer every reader of the table's JSON holds exactly (a browser's Number;
SQLite and PostgreSQL's bigint hold more)."""

MAX_NAME: Final = 32
"""The longest player or table name a display shows whole (characters)."""


@dataclass(frozen=True, slots=True)
class JsonLimits:
    """What one surface accepts. The defaults suit a dealer command or a web API body."""

    max_bytes: int = 16 * 1024
    """Size of the encoded text, checked before parsing."""
    max_depth: int = 16
    """Containers nested in one another (the top-level object is depth 1)."""
    max_string: int = 1024
    """Characters in one string value."""
    max_key: int = 64
    """Characters in one object key."""
    max_items: int = 512
    """Entries in one array or object."""
    max_int: int = MAX_SAFE_INT
    """Largest integer magnitude (the smallest is its negative)."""


DEFAULT_LIMITS: Final = JsonLimits()

_DIGITS: Final = 20     # no integer within 64 bits is written with more characters


class StrictJsonError(ValueError):
    """A JSON text or value refused: ``where`` is a path (``$.args.seat``), ``reason`` why."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


class _Refused(Exception):  # noqa: N818 (carries a refusal out of json's hooks)
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _refuse_constant(name: str) -> NoReturn:
    raise _Refused(f"{name} is not a number JSON allows")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > _DIGITS:
        raise _Refused(f"integer of {len(text)} digits is out of range")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"number {text[:24]} is out of range")
    return value


def _pairs(pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
    out: dict[str, JsonValue] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"key {key[:64]!r} appears twice")
        out[key] = value
    return out


def decode_strict(data: bytes | bytearray | str,
                  limits: JsonLimits = DEFAULT_LIMITS) -> JsonValue:
    """Parse ``data`` as UTF-8 JSON within ``limits``.

    Raises:
        StrictJsonError: too large, not UTF-8, not JSON, or a value outside the limits.
    """
    if isinstance(data, str):
        if len(data) > limits.max_bytes:
            raise StrictJsonError("$", f"larger than {limits.max_bytes} bytes")
        try:
            size = len(data.encode("utf-8"))
        except UnicodeEncodeError as exc:
            raise StrictJsonError("$", "not UTF-8 text (a lone surrogate)") from exc
        text = data
    else:
        size = len(data)
        text = ""
    if size > limits.max_bytes:
        raise StrictJsonError("$", f"{size} bytes is larger than {limits.max_bytes}")
    if not isinstance(data, str):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StrictJsonError("$", f"not UTF-8 text (byte {exc.start})") from exc
    if not text.strip():
        raise StrictJsonError("$", "empty")
    try:
        value: JsonValue = json.loads(text, parse_constant=_refuse_constant, parse_int=_int,
                                      parse_float=_float, object_pairs_hook=_pairs)
    except _Refused as exc:
        where = _where_of(text, exc.reason)
        raise StrictJsonError(where, exc.reason) from None
    except RecursionError:
        raise StrictJsonError("$", f"nested deeper than {limits.max_depth} levels") from None
    except json.JSONDecodeError as exc:
        raise StrictJsonError("$", f"not JSON: {exc.msg} at line {exc.lineno} column "
                                   f"{exc.colno}") from None
    except ValueError as exc:   # int() beyond the interpreter's digit limit
        raise StrictJsonError("$", f"not JSON: {exc}") from None
    check_value(value, limits)
    return value


def _where_of(text: str, reason: str) -> str:
    """Where a hook's refusal was, best effort: the key just before a NaN/Infinity, else $."""
    for constant in ("NaN", "-Infinity", "Infinity"):
        if reason.startswith(constant):
            at = text.find(constant)
            head = text[:at].rstrip().rstrip(":").rstrip()
            if head.endswith('"'):
                start = head.rfind('"', 0, len(head) - 1)
                if start >= 0:
                    return f"$.{head[start + 1:-1][:64]}"
    return "$"


def decode_object(data: bytes | bytearray | str,
                  limits: JsonLimits = DEFAULT_LIMITS) -> dict[str, JsonValue]:
    """:func:`decode_strict` of a text that must be one JSON object.

    Raises:
        StrictJsonError: as :func:`decode_strict`, or the value is not an object.
    """
    value = decode_strict(data, limits)
    if not isinstance(value, dict):
        raise StrictJsonError("$", f"must be a JSON object, not {_kind(value)}")
    return value


def check_value(value: object, limits: JsonLimits = DEFAULT_LIMITS, where: str = "$") -> None:
    """Check a parsed value against ``limits`` (iteratively: no depth can overflow the stack).

    Raises:
        StrictJsonError: a value that is not JSON, or outside the limits.
    """
    stack: list[tuple[object, str, int]] = [(value, where, 1)]
    while stack:
        item, path, depth = stack.pop()
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, int):
            if abs(item) > limits.max_int:
                raise StrictJsonError(path, f"integer out of range (at most {limits.max_int})")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise StrictJsonError(path, f"{item} is not a number JSON allows")
        elif isinstance(item, str):
            _check_chars(item, limits.max_string, path)
        elif isinstance(item, Mapping | list | tuple):
            if depth > limits.max_depth:
                raise StrictJsonError(_short(path), f"nested deeper than {limits.max_depth} "
                                                    "levels")
            if len(item) > limits.max_items:
                raise StrictJsonError(path, f"{len(item)} entries, more than "
                                            f"{limits.max_items}")
            if isinstance(item, Mapping):
                for key, sub in item.items():
                    if not isinstance(key, str):
                        raise StrictJsonError(path, f"key {key!r} is not a string")
                    _check_chars(key, limits.max_key, f"{path} key {key[:64]!r}")
                    stack.append((sub, f"{path}.{key[:64]}", depth + 1))
            else:
                stack.extend((sub, f"{path}[{i}]", depth + 1) for i, sub in enumerate(item))
        else:
            raise StrictJsonError(path, f"{type(item).__name__} is not a JSON value")


def _short(path: str) -> str:
    return path if len(path) <= 80 else f"{path[:80]}..."


def _check_chars(text: str, max_len: int, where: str) -> None:
    if len(text) > max_len:
        raise StrictJsonError(where, f"{len(text)} characters, more than {max_len}")
    if text.isprintable() or (text.isascii() and not _has_control(text)):
        return
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category == "Cc":
            raise StrictJsonError(where, f"control character U+{ord(ch):04X} at {i}")
        if category == "Cs":
            raise StrictJsonError(where, f"lone surrogate U+{ord(ch):04X} at {i}")


def _has_control(text: str) -> bool:
    return any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text)


def check_text(value: object, *, max_len: int, where: str, empty: bool = False) -> str:
    """``value`` as a string of at most ``max_len`` characters with no control characters.

    Raises:
        StrictJsonError: not a string, empty (unless ``empty``), too long, or with control
            characters.
    """
    if not isinstance(value, str):
        raise StrictJsonError(where, f"must be a string, not {_kind(value)}")
    if not value and not empty:
        raise StrictJsonError(where, "must not be empty")
    _check_chars(value, max_len, where)
    return value


_INVISIBLE: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def display_name(value: object, *, max_len: int = MAX_NAME, where: str = "name") -> str:
    """A name as a display shows it: NFC, trimmed, one to ``max_len`` characters, none of
    them a control, format (bidi override, zero width), private-use or unassigned character,
    nor a line break.

    Raises:
        StrictJsonError: not such a name (the reason names the character and its place).
    """
    if not isinstance(value, str):
        raise StrictJsonError(where, f"must be a string, not {_kind(value)}")
    if len(value) > 4 * max_len:   # refused before normalising a huge text
        raise StrictJsonError(where, f"{len(value)} characters, more than {max_len}")
    name = unicodedata.normalize("NFC", value).strip()
    if not name:
        raise StrictJsonError(where, "must not be empty")
    if len(name) > max_len:
        raise StrictJsonError(where, f"{len(name)} characters, more than {max_len}")
    for i, ch in enumerate(name):
        category = unicodedata.category(ch)
        if category == "Cc":
            raise StrictJsonError(where, f"control character U+{ord(ch):04X} at {i}")
        if category in _INVISIBLE:
            raise StrictJsonError(where, f"character U+{ord(ch):04X} at {i} cannot be shown")
    return name


BRIEF: Final = 60
"""The most characters of a refused value a refusal shows (:func:`brief`)."""


def brief(value: object, limit: int = BRIEF) -> str:
    """``repr(value)`` as a refusal shows it: non-ASCII escaped, at most ``limit``
    characters, then how long it was (a refused list of thousands of numbers once made a
    20 kB line, a refused argument of a megabyte a megabyte).

    >>> print(brief("3:7x"), brief("\\x1b[2J"))
    '3:7x' '\\x1b[2J'
    >>> print(brief([1.5] * 4000))
    [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5,... (20000 characters)
    """
    text = ascii(value)   # repr, its non-ASCII and control characters escaped, nested too
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _kind(value: object) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "a boolean"
        case int() | float():
            return "a number"
        case str():
            return "a string"
        case list():
            return "an array"
        case dict():
            return "an object"
    return type(value).__name__


__all__ = ["BRIEF", "DEFAULT_LIMITS", "MAX_NAME", "MAX_SAFE_INT", "JsonLimits",
           "StrictJsonError", "brief", "check_text", "check_value", "decode_object",
           "decode_strict", "display_name"]
