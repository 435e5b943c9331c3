"""The odds message on ``secure/v1/tables/{t}/odds`` as validated models, with generated JSON
Schemas (``tablectl/odds/schemas/``, checked against these models in tests; the wire tests
validate every odds message the daemon publishes against them). The daemon writes the JSON
directly (:func:`tablectl.odds.feed.odds_payload`); these models describe it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

__all__ = ["SCHEMA_DIR", "OddsBody", "OddsEnvelope", "OddsFigures", "schema_files",
           "write_schemas"]

SCHEMA_DIR: Final = Path(__file__).with_name("schemas")
_Share = Field(ge=0, le=1)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OddsFigures(_Model):
    """One live player's figures (fractions of 1)."""

    seat: int = Field(ge=1)
    name: str
    cards: list[str]
    win: float = _Share
    tie: float = _Share
    equity: float = _Share
    high: float | None = Field(default=None, ge=0, le=1, description="hi-lo only")
    low: float | None = Field(default=None, ge=0, le=1, description="hi-lo only")
    scoop: float | None = Field(default=None, ge=0, le=1, description="hi-lo only")
    error: float | None = Field(default=None, ge=0, description="Monte Carlo: standard error")
    outs: list[str] | None = Field(default=None, description="board games on the turn")
    boards: list[float] | None = Field(default=None, description="a double-board hand: the "
                                       "player's equity on board 1 and on board 2 (each "
                                       "board wins half the pot; the figures above are "
                                       "their means)")


class HandRef(_Model):
    id: str
    number: int


class OddsBody(_Model):
    """``data`` of an odds message; ``players: []`` withdraws the figures."""

    hand: HandRef | None
    variant: str | None = None
    street: str | None = None
    board: list[str] = Field(default_factory=list)
    dead: list[str] = Field(default_factory=list)
    run: int | None = Field(default=None, ge=1, le=3, description="in a hand run more than "
                            "once, which run's board is valued")
    board_2: list[str] | None = Field(default=None, description="a double-board hand: board "
                                      "2 (``board`` is board 1); both are valued")
    exact: bool | None = None
    runouts: int | None = Field(default=None, ge=1)
    precision: float | None = Field(default=None, gt=0)
    no_low: float | None = Field(default=None, ge=0, le=1)
    error: str | None = Field(default=None, description="the position could not be valued")
    players: list[OddsFigures]


class OddsEnvelope(_Model):
    """The whole message: the envelope of the secure snapshot it was computed from."""

    v: Literal[1] = 1
    table: str = Field(min_length=1)
    journal: str | None = Field(default=None, min_length=1, max_length=64,
                                description="the daemon's journal id, as in its snapshots")
    epoch: int = Field(ge=1)
    seq: int = Field(ge=0, description="seq of the secure snapshot valued")
    type: Literal["odds"] = "odds"
    ts: AwareDatetime
    hand: int | None = None
    data: OddsBody


def schema_files() -> dict[str, str]:
    """File name -> text of the generated schema (regenerate with :func:`write_schemas`)."""
    schema = OddsEnvelope.model_json_schema()
    return {"OddsEnvelope.json": json.dumps(schema, indent=2, sort_keys=True) + "\n"}


def write_schemas(directory: Path = SCHEMA_DIR) -> None:
    """Write :func:`schema_files` into ``directory`` (after changing a model)."""
    directory.mkdir(exist_ok=True)
    for name, text in schema_files().items():
        (directory / name).write_text(text)
