"""A table config's schema errors in the project's words, each with its key path.

The models of :mod:`tablectl.config` are checked by pydantic, whose messages speak of Python
(``Input should be a valid integer``, ``List should have at least 2 items after validation``).
:func:`schema_problems` says each the way the README documents the key, with the value found
(``game.stakes.small_blind: must be a whole number, got 'abc'``), and offers the nearest known
key for an unknown one (``tabel: unknown key: did you mean `table`?``) or the nearest allowed
value for a mistyped choice. An unknown key that is a misspelling of a required key that is
missing is one problem, not two.

>>> from tablectl.config import TableConfig
>>> from pydantic import ValidationError
>>> try:
...     TableConfig.model_validate({"tabel": {"id": "t1"}, "game": {"variant": "holdem",
...         "stakes": {"big_blind": "abc"}}, "seats": [{"number": 1, "stack": 5}],
...         "sources": [{"kind": "manual"}], "deck": "d.csv", "journal": {"path": "j"}})
... except ValidationError as exc:
...     for key, message in schema_problems(exc, TableConfig):
...         print(f"{key}: {message}")
game.stakes.big_blind: must be a whole number, got 'abc'
seats: needs at least 2 seats, got 1
tabel: unknown key: did you mean `table`?
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Mapping
from enum import Enum
from typing import Final

from pydantic import BaseModel, ValidationError

_PLURALS: Final = {"seats": "seats", "sources": "sources", "other_decks": "deck files"}
"""What a list key holds, for "needs at least 2 seats"."""


def loc_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as the README writes a key: ``seats[0].stack``.

    >>> loc_path(("seats", 0, "stack")), loc_path(("game", "function-after[_coherent()]"))
    ('seats[0].stack', 'game')
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.startswith(("function-", "model-")) or part in ("list", "dict"):
            continue
        else:
            out += f".{part}" if out else part
    return out


def shown(value: object) -> str:
    """A value found in the file, short and safe to print on one line (at most 40
    characters; anything not printable escaped).

    >>> shown("abc"), shown(2.5), shown("\\u202eoB")
    ("'abc'", '2.5', "'\\\\u202eoB'")
    """
    if isinstance(value, str):
        text = value[:40] + ("..." if len(value) > 40 else "")
        return repr(text) if text.isprintable() else ascii(text)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return type(value).__name__


def _model_of(annotation: object) -> type[BaseModel] | None:
    """The model a field holds: itself, or inside ``list[...]``, ``X | None``,
    ``Annotated[...]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def _enum_of(annotation: object) -> type[Enum] | None:
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return annotation
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is not None:
        for arg in typing.get_args(annotation):
            found = _enum_of(arg)
            if found is not None:
                return found
    return None


def _field_at(root: type[BaseModel], loc: tuple[int | str, ...]) -> tuple[
        type[BaseModel] | None, object]:
    """The model holding the last key of ``loc``, and that key's annotation (None, None when
    ``loc`` leaves the models)."""
    model: type[BaseModel] | None = root
    holder: type[BaseModel] | None = None
    annotation: object = None
    for part in loc:
        if isinstance(part, int):
            continue                      # an item of the list the annotation names
        if model is None or part not in model.model_fields:
            return None, None
        holder, annotation = model, model.model_fields[part].annotation
        model = _model_of(annotation)
    return holder, annotation


def _nearest(word: str, choices: list[str]) -> str | None:
    near = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return near[0] if near else None


def _bound(ctx: Mapping[str, object], name: str) -> str:
    value = ctx.get(name)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _words(root: type[BaseModel], err: Mapping[str, object]) -> str:
    """One error of pydantic's in the project's words."""
    kind = str(err.get("type", ""))
    raw_loc = err.get("loc", ())
    loc = tuple(raw_loc) if isinstance(raw_loc, tuple) else ()
    value = err.get("input")
    ctx_raw = err.get("ctx")
    ctx: Mapping[str, object] = ctx_raw if isinstance(ctx_raw, Mapping) else {}
    key = next((p for p in reversed(loc) if isinstance(p, str)), "")
    got = f", got {shown(value)}"
    if kind == "extra_forbidden":
        holder = root if len(loc) < 2 else _model_of(_field_at(root, loc[:-1])[1])
        near = _nearest(str(key), list(holder.model_fields)) if holder is not None else None
        return "unknown key" + (f": did you mean `{near}`?" if near else "")
    if kind == "missing":
        return "required key is missing"
    if kind in ("too_short", "too_long"):
        what = _PLURALS.get(str(key), "items")
        if kind == "too_short":
            return f"needs at least {ctx.get('min_length')} {what}, got {ctx.get('actual_length')}"
        return f"at most {ctx.get('max_length')} {what}, got {ctx.get('actual_length')}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return "must be a whole number" + got
    if kind in ("float_type", "float_parsing", "finite_number"):
        return "must be a number" + got
    if kind in ("bool_type", "bool_parsing"):
        return "must be true or false" + got
    if kind in ("string_type", "path_type"):
        return 'must be text in quotes ("...")' + got
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return "must be a table (a [section] or { key = value })" + got
    if kind == "list_type":
        return "must be a list ([...], or one [[" + str(key) + "]] per item)" + got
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {"greater_than_equal": "at least", "greater_than": "more than",
                 "less_than_equal": "at most", "less_than": "less than"}[kind]
        name = {"greater_than_equal": "ge", "greater_than": "gt", "less_than_equal": "le",
                "less_than": "lt"}[kind]
        return f"must be {words} {_bound(ctx, name)}" + got
    if kind == "enum":
        _, annotation = _field_at(root, loc)
        enum = _enum_of(annotation)
        allowed = [str(m.value) for m in enum] if enum is not None else []
        near = _nearest(str(value), allowed) if isinstance(value, str) else None
        hint = f": did you mean `{near}`?" if near else ""
        return (f"must be one of {', '.join(allowed)}{got}{hint}" if allowed
                else f"not an allowed value{got}")
    msg = str(err.get("msg", "invalid"))
    return msg.removeprefix("Value error, ")


_SUB_PATH: Final = re.compile(r"^[a-z_]+(\[\d+\])?(\.[a-z_]+)*$")
"""A key a section's validator names: ``stakes``, ``games[1].structure``."""


def _split_sub_path(path: str, msg: str) -> tuple[str, str]:
    """Validators of a whole section say ``key: message``; fold the key into the path."""
    head, sep, rest = msg.partition(": ")
    if sep and _SUB_PATH.match(head):
        return (f"{path}.{head}" if path else head), rest
    return path, msg


def schema_problems(exc: ValidationError, root: type[BaseModel]) -> list[tuple[str, str]]:
    """Every error of ``exc`` as ``(key path, message)`` in the project's words.

    Args:
        exc: what validating ``root`` raised.
        root: the model that was validated (:class:`tablectl.config.TableConfig`), to name
            the known keys.
    """
    problems = [_split_sub_path(loc_path(tuple(e["loc"])), _words(root, dict(e)))
                for e in exc.errors()]
    # "tabel: unknown key: did you mean `table`?" says all of "table: required key is missing"
    suggested = {p.rpartition(".")[0] + ("." if "." in p else "") + m.split("`")[1]
                 for p, m in problems if "did you mean `" in m and m.startswith("unknown key")}
    return [(p, m) for p, m in problems
            if not (m == "required key is missing" and p in suggested)]
