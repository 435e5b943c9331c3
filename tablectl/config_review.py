"""Every problem of a table config file in one run: what ``tablectl config check`` prints.

:func:`tablectl.config.load_config` stops at the first stage that fails (values no part of the
table can hold, then the schema), and :func:`tablectl.config_check.findings` needs a valid
config. A person fixing a file wants all of its problems at once, so :func:`review` runs every
stage whatever the one before found:

1. the values no part of the table can hold (``nan``, control characters...), each once: a
   schema error about the same key is not repeated;
2. the schema, in the project's words (:mod:`tablectl.config_words`);
3. the deck files named, even when the rest of the file is wrong;
4. whether the config can work here (:func:`~tablectl.config_check.findings`). For a file that
   is not valid, the sections in error are stood in for by harmless valid ones, and only the
   findings about the valid sections are kept.

Only a file that cannot be read or is not TOML stops at once (one line: nothing else can be
known of it).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pydantic import ValidationError

from tablectl.config import TableConfig, config_data, deck_problems
from tablectl.config_check import Finding, findings
from tablectl.config_words import schema_problems
from tablectl.domain.deck import Deck
from tablectl.domain.errors import ConfigError

_STAND_INS: Final[Mapping[str, object]] = {
    "table": {"id": "stand-in"},
    "game": {"variant": "holdem", "structure": "no-limit",
             "stakes": {"small_blind": 1, "big_blind": 2}},
    "seats": [{"number": 1, "stack": 1}, {"number": 2, "stack": 1}],
    "sources": [{"kind": "manual"}],
    "deck": "stand-in.csv",
}
"""Valid values for the required sections of a file whose own are wrong (never reported:
findings about a stood-in section are dropped)."""


@dataclass(frozen=True, slots=True)
class Review:
    """What :func:`review` found.

    Attributes:
        config: the config, when the file is valid (it may still have findings); else None.
        found: every problem, errors first, each once.
    """

    config: TableConfig | None
    found: list[Finding]

    @property
    def errors(self) -> int:
        """How many of the problems are errors (``config check`` exits 2 on any)."""
        return sum(f.level == "error" for f in self.found)


def _section(key: str) -> str:
    """The top-level key of a key path: ``seats[0].stack`` -> ``seats``."""
    return key.split(".", 1)[0].split("[", 1)[0].split(" ", 1)[0]


def _under(key: str, prefix: str) -> bool:
    return key == prefix or key.startswith((prefix + ".", prefix + "["))


def _decks(data: Mapping[str, object]) -> list[Finding]:
    """The problems of every deck file the config names that is a path at all."""
    names = [data.get("deck")]
    others = data.get("other_decks")
    names += others if isinstance(others, list) else []
    out: list[Finding] = []
    for name in names:
        if not isinstance(name, str):
            continue              # a schema error already
        try:
            Deck.load(Path(name))
        except ConfigError as exc:
            out += [Finding("error", key, msg) for key, msg in deck_problems(exc)]
    return out


def _workable(data: Mapping[str, object], invalid: set[str]) -> list[Finding]:
    """:func:`findings` of the valid sections of ``data``: the ``invalid`` ones stood in for."""
    fields = TableConfig.model_fields
    stand_in = {k: v for k, v in data.items() if k in fields and k not in invalid}
    for key in invalid & set(_STAND_INS):
        stand_in[key] = _STAND_INS[key]
    if "journal" in invalid:
        stand_in["journal"] = {"path": str(Path(tempfile.gettempdir()) / "tablectl.sqlite")}
    try:
        config = TableConfig.model_validate(stand_in)
    except ValidationError:
        return []                  # wrong in a way no stand-in covers: the schema said it
    return [f for f in findings(config) if _section(f.key) not in invalid]


def review(path: Path) -> Review:
    """Every problem of the config file at ``path``, in one run (see the module docstring).

    Never raises for a bad file: each problem is a :class:`Finding`; paths in the file are
    resolved against its folder and ``TABLECTL_*`` variables apply, as in
    :func:`tablectl.config.load_config`.
    """
    try:
        data, hostile = config_data(path)
    except ConfigError as exc:
        return Review(None, [Finding("error", key, msg) for key, msg in exc.problems])
    found = [Finding("error", key, msg) for key, msg in hostile]
    config: TableConfig | None = None
    invalid: set[str] = set()
    try:
        config = TableConfig.model_validate(data)
    except ValidationError as exc:
        invalid = {str(e["loc"][0]) for e in exc.errors() if e["loc"]}
        found += [Finding("error", key, msg) for key, msg in schema_problems(exc, TableConfig)
                  if not any(_under(key, where) for where, _ in hostile)]
    invalid |= {_section(where) for where, _ in hostile}
    found += _decks(data)
    found += _workable(data, invalid)
    found.sort(key=lambda f: f.level != "error")
    return Review(config if not hostile else None, found)
