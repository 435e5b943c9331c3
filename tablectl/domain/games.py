"""Names of the games tablectl deals and of the house-rule presets.

These are the values a table config and a hand history use; the rules engine
(:mod:`tablectl.game`) gives them meaning.

>>> GameKind("omaha-hi-lo").is_hi_lo
True
>>> sorted(s.value for s in ALLOWED_STRUCTURES[GameKind.RAZZ])
['fixed-limit']
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Final


class GameKind(StrEnum):
    """The game being dealt, independent of its betting structure."""

    HOLDEM = "holdem"
    HOLDEM_HI_LO = "holdem-hi-lo"
    OMAHA = "omaha"
    OMAHA_HI_LO = "omaha-hi-lo"
    STUD = "stud"
    STUD_HI_LO = "stud-hi-lo"
    RAZZ = "razz"

    @property
    def is_stud(self) -> bool:
        """Stud games: no blinds or board; antes, bring-in, up cards."""
        return self in (GameKind.STUD, GameKind.STUD_HI_LO, GameKind.RAZZ)

    @property
    def is_hi_lo(self) -> bool:
        """Split-pot games with an 8-or-better low half."""
        return self in (GameKind.HOLDEM_HI_LO, GameKind.OMAHA_HI_LO, GameKind.STUD_HI_LO)


class BettingStructure(StrEnum):
    """How much a player may bet or raise."""

    FIXED_LIMIT = "fixed-limit"
    POT_LIMIT = "pot-limit"
    NO_LIMIT = "no-limit"


class RulesPreset(StrEnum):
    """Named sets of house rules (see docs/rules.md)."""

    CASINO = "casino"
    PACIFIC_OMAHA = "pacific-omaha"
    ISLAND = "island"
    PHH = "phh"


ALLOWED_STRUCTURES: Final[Mapping[GameKind, frozenset[BettingStructure]]] = {
    GameKind.HOLDEM: frozenset(BettingStructure),
    GameKind.HOLDEM_HI_LO: frozenset({BettingStructure.FIXED_LIMIT}),
    GameKind.OMAHA: frozenset({BettingStructure.FIXED_LIMIT, BettingStructure.POT_LIMIT}),
    GameKind.OMAHA_HI_LO: frozenset({BettingStructure.FIXED_LIMIT, BettingStructure.POT_LIMIT}),
    GameKind.STUD: frozenset({BettingStructure.FIXED_LIMIT}),
    GameKind.STUD_HI_LO: frozenset({BettingStructure.FIXED_LIMIT}),
    GameKind.RAZZ: frozenset({BettingStructure.FIXED_LIMIT}),
}
"""Which betting structures tablectl deals for each game."""
