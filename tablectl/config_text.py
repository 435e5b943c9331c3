"""A table config file read as hostile input: size before parsing, UTF-8 without NUL, TOML,
then every value no part of the table can hold (NaN and infinity, integers beyond 2^53,
strings too long or with control characters, deep nesting), each with its key path, so that
``tablectl config check`` and ``tablectl run`` say one line per problem and never show a
traceback (:func:`tablectl.config.load_config` calls both before validating the models)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from tablectl.domain.errors import ConfigError
from tablectl.domain.strictjson import MAX_SAFE_INT, StrictJsonError, check_text
from tablectl.domain.textfile import TextFileError, parse_toml, read_text_file

MAX_CONFIG_BYTES: Final = 1024 * 1024
"""A table config is a few KiB; a larger file is refused before it is parsed."""
MAX_CONFIG_TEXT: Final = 4096
"""The longest string value a config holds (paths, URLs, names)."""
MAX_CONFIG_DEPTH: Final = 8


def read_toml(path: Path) -> dict[str, object]:
    """The TOML document of a config file read as hostile: at most :data:`MAX_CONFIG_BYTES`
    read (a device or a FIFO reads no further), UTF-8, no NUL.

    Raises:
        ConfigError: one line saying why the file is not a config.
    """
    try:
        text = read_text_file(path, max_bytes=MAX_CONFIG_BYTES)
    except TextFileError as exc:
        raise ConfigError([("", exc.said("config"))], source=str(path)) from None
    if not text.strip():
        raise ConfigError([("", "the file is empty")], source=str(path))
    try:
        return parse_toml(text)
    except TextFileError as exc:
        raise ConfigError([("", exc.reason)], source=str(path)) from None


def hostile_values(data: Mapping[str, object]) -> list[tuple[str, str]]:
    """Every value of a parsed config no part of the table can hold, with its key path:
    ``nan`` and ``inf``, integers beyond 2^53, strings over :data:`MAX_CONFIG_TEXT`
    characters or with control characters, nesting deeper than :data:`MAX_CONFIG_DEPTH`.

    >>> hostile_values({"odds": {"precision": float("nan")}, "seats": [{"name": "A\\x07"}]})
    [('odds.precision', 'nan is not a number'), ('seats[0].name', 'control character U+0007 at 1')]
    """
    problems: list[tuple[str, str]] = []
    stack: list[tuple[str, object, int]] = [("", data, 0)]
    while stack:
        where, value, depth = stack.pop()
        if isinstance(value, bool):
            continue
        if isinstance(value, float) and not math.isfinite(value):
            problems.append((where, f"{value} is not a number"))
        elif isinstance(value, int) and abs(value) > MAX_SAFE_INT:
            problems.append((where, f"integer out of range (at most {MAX_SAFE_INT})"))
        elif isinstance(value, str):
            try:
                check_text(value, max_len=MAX_CONFIG_TEXT, where=where, empty=True)
            except StrictJsonError as exc:
                problems.append((where, exc.reason))
        elif isinstance(value, dict | list):
            if depth >= MAX_CONFIG_DEPTH:
                problems.append((where, f"nested deeper than {MAX_CONFIG_DEPTH} levels"))
                continue
            items = (value.items() if isinstance(value, dict)
                     else ((f"[{i}]", v) for i, v in enumerate(value)))
            children = []
            for key, sub in items:
                key_text = str(key)[:40]
                if isinstance(value, dict):
                    try:
                        check_text(key_text, max_len=64, where="key")
                    except StrictJsonError as exc:
                        problems.append((where, f"key {key_text!r}: {exc.reason}"))
                        continue
                path = (f"{where}{key_text}" if key_text.startswith("[")
                        else f"{where}.{key_text}" if where else key_text)
                children.append((path, sub, depth + 1))
            stack.extend(reversed(children))
    return problems[:20]
