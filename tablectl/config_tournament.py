"""A table config's ``[tournament]``: the tournament whose clock the table follows.

``id`` names the tournament (``tablectl tournament create ID``), ``table`` this table's
number in it (the ``--table`` of ``tournament register``/``move``); the daemon subscribes to its
status (``poker/v1/tournaments/{id}/clock``, retained, on the table's broker: the floor
bridges it) and takes each new level at the start of the next hand (docs/tournament.md,
"Tables that follow the clock"). ``stale_after``: seconds after the status's time when the
table says it is playing a level it is no longer sure of (the service publishes every 30 s).
"""

from __future__ import annotations

import re
from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tablectl.domain.games import GameKind

_ID: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


class TournamentSection(BaseModel):
    """``[tournament]``: see the module docstring."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True,
                              allow_inf_nan=False)

    id: str
    table: Annotated[int, Field(ge=1, le=999, strict=True)]
    stale_after: Annotated[float, Field(ge=5, le=3600, allow_inf_nan=False)] = 90.0

    @field_validator("id")
    @classmethod
    def _topic_safe(cls, value: str) -> str:
        if not _ID.fullmatch(value):
            raise ValueError(f"not a tournament id: {value[:48]!r} (1 to 40 of a-z, 0-9, _ "
                             "and -, starting with a letter or digit)")
        return value


def tournament_game_problem(variant: GameKind | None, rotation: bool) -> str | None:
    """Why a game cannot follow a tournament's levels (blinds and antes), or None."""
    if rotation or variant is None:
        return "a tournament table deals one game: a rotation has no blinds to follow"
    if variant.is_stud:
        return (f"a tournament's levels are blinds and antes: {variant.value} has no "
                "blinds (deal a button game)")
    return None


__all__ = ["TournamentSection", "tournament_game_problem"]
