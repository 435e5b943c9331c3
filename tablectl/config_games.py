"""The games of a table config: one game, or a rotation of several (mixed games).

``[game]`` names either one ``variant`` or a rotation: ``rotation = "horse"``, or a list of
``[[game.games]]`` (``variant``, ``structure``, optional ``hands`` and ``[game.games.stakes]``);
``dealers_choice = true`` lets the dealer pick each next game; ``stud_hands`` is how many hands
each stud game lasts (default 8: docs/rules.md, "Rotations"). Button games last an orbit of
the button unless given ``hands``. Stakes are ``[game.stakes]`` for every game (a stud game
takes its ante, bring-in and limits, a button game its blinds and limits) unless a game has
its own. ``[game.run_it]`` lets the players run an all-in hand more than once (:class:`RunIt`).
README.md, "Configuration", documents the keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Final, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tablectl.domain.games import ALLOWED_STRUCTURES, BettingStructure, GameKind
from tablectl.game.rotation import (
    HORSE,
    Rotation,
    RotationGame,
    horse,
    shared_stakes,
)
from tablectl.game.rules import BOARD_GAMES, RunItTwice, RunOddChip
from tablectl.game.rules import Stakes as EngineStakes


class Stakes(Protocol):
    """A config's ``[game.stakes]`` (:class:`tablectl.config.Stakes`), as read here."""

    @property
    def small_blind(self) -> int: ...
    @property
    def big_blind(self) -> int: ...
    @property
    def straddle(self) -> int: ...
    @property
    def ante(self) -> int: ...
    @property
    def bring_in(self) -> int: ...
    @property
    def small_bet(self) -> int: ...
    @property
    def big_bet(self) -> int: ...


class GameEntry(Protocol):
    """A ``[[game.games]]`` entry (:class:`tablectl.config.GameEntry`)."""

    @property
    def variant(self) -> GameKind: ...
    @property
    def structure(self) -> BettingStructure: ...
    @property
    def hands(self) -> int | None: ...
    @property
    def stakes(self) -> Stakes | None: ...


class GameSection(Protocol):
    """A ``[game]`` section (:class:`tablectl.config.GameSection`)."""

    @property
    def variant(self) -> GameKind | None: ...
    @property
    def structure(self) -> BettingStructure: ...
    @property
    def stakes(self) -> Stakes: ...
    @property
    def rotation(self) -> str | None: ...
    @property
    def games(self) -> Sequence[GameEntry] | None: ...
    @property
    def dealers_choice(self) -> bool: ...
    @property
    def stud_hands(self) -> int: ...

ROTATIONS: Final = (HORSE,)
"""Rotations known by name."""

Hands = Annotated[int, Field(ge=1, le=1000, strict=True)]


def stakes_problems(variant: GameKind, structure: BettingStructure, s: Stakes | EngineStakes
                    ) -> list[str]:
    """What a game's stakes lack or get wrong, in the config's words ([] when they do)."""
    if structure not in ALLOWED_STRUCTURES[variant]:
        allowed = ", ".join(sorted(x.value for x in ALLOWED_STRUCTURES[variant]))
        return [f"structure: {variant.value} is dealt {allowed}, not {structure.value}"]
    missing: list[str] = []
    if variant.is_stud:
        missing += [k for k in ("bring_in", "small_bet", "big_bet") if getattr(s, k) == 0]
    else:
        if s.big_blind == 0:
            missing.append("big_blind")
        if structure is BettingStructure.FIXED_LIMIT:
            missing += [k for k in ("small_bet", "big_bet") if getattr(s, k) == 0]
    problems: list[str] = []
    if missing:
        problems.append("stakes: " + ", ".join(missing) + f" must be set for "
                        f"{structure.value} {variant.value}")
    if s.small_blind > s.big_blind > 0:
        problems.append(f"stakes: the small blind ({s.small_blind}) is larger than the big "
                        f"blind ({s.big_blind})")
    if s.small_bet > s.big_bet > 0:
        problems.append(f"stakes: the small bet ({s.small_bet}) is larger than the big bet "
                        f"({s.big_bet})")
    return problems


def engine_stakes(st: Stakes) -> EngineStakes:
    """The engine's stakes of a config ``[game.stakes]``."""
    return EngineStakes(small_blind=st.small_blind, big_blind=st.big_blind,
                        straddle=st.straddle, ante=st.ante, bring_in=st.bring_in,
                        small_bet=st.small_bet, big_bet=st.big_bet)


def rotation_of(game: GameSection) -> Rotation | None:
    """The rotation a validated ``[game]`` names (None: one game)."""
    if game.rotation == HORSE:
        rotation = horse(engine_stakes(game.stakes), stud_hands=game.stud_hands)
    elif game.games is not None:
        rotation = Rotation(tuple(
            RotationGame(g.variant, g.structure,
                         engine_stakes(g.stakes) if g.stakes is not None
                         else shared_stakes(g.variant, engine_stakes(game.stakes)),
                         g.hands or (game.stud_hands if g.variant.is_stud else 0))
            for g in game.games))
    else:
        return None
    if game.dealers_choice:
        rotation = Rotation(rotation.games, dealers_choice=True, name=rotation.name)
    return rotation


def rotation_problems(game: GameSection) -> list[str]:
    """What is wrong with ``[game]``'s choice of games, each ``key: problem``."""
    chosen = [k for k, v in (("variant", game.variant), ("rotation", game.rotation),
                             ("games", game.games)) if v is not None]
    if len(chosen) > 1:
        return [f"{chosen[1]}: give one of variant (one game), rotation (a named rotation) "
                f"or [[game.games]] (a list of games), not {' and '.join(chosen)}"]
    if not chosen:
        return ["variant: required key is missing (or name a rotation: rotation = \"horse\", "
                "or a list of [[game.games]])"]
    if game.rotation is not None and game.rotation not in ROTATIONS:
        return [f"rotation: unknown rotation {game.rotation[:40]!r}; known: "
                + ", ".join(ROTATIONS)]
    if game.variant is not None:
        if game.dealers_choice:
            return ["dealers_choice: a table dealing one game has no choice to make"]
        return stakes_problems(game.variant, game.structure, game.stakes)
    if game.games is not None and not game.games:
        return ["games: a rotation needs at least one game"]
    problems: list[str] = []
    rotation = rotation_of(game) if game.rotation is not None else None
    entries = rotation.games if rotation is not None else ()
    for i, g in enumerate(game.games or ()):
        where = f"games[{i}]."
        if g.variant.is_stud and g.structure is not BettingStructure.FIXED_LIMIT:
            problems.append(f"{where}structure: {g.variant.value} is a limit game: no "
                            f"{g.structure.value} stud")
            continue
        own = g.stakes if g.stakes is not None else shared_stakes(g.variant,
                                                                 engine_stakes(game.stakes))
        shared = "" if g.stakes is not None else " (it has no stakes of its own: game.stakes)"
        problems += [where + p + shared for p in stakes_problems(g.variant, g.structure, own)]
    for entry in entries:
        problems += [f"stakes ({entry.game.value}): " + p.removeprefix("stakes: ")
                     for p in stakes_problems(entry.game, entry.structure, entry.stakes)]
    return problems


def first_game(game: GameSection) -> tuple[GameKind, BettingStructure]:
    """The game a validated ``[game]`` deals first: its variant, or its rotation's first."""
    rotation = rotation_of(game)
    if rotation is not None:
        return rotation.games[0].game, rotation.games[0].structure
    assert game.variant is not None
    return game.variant, game.structure


def described(game: GameSection) -> str:
    """``fixed-limit holdem``, ``rotation horse`` or ``rotation of 3 games`` (and ``, dealer's
    choice``): what ``tablectl config check`` and ``tablectl doctor`` say a table deals."""
    if game.variant is not None:
        return f"{game.structure.value} {game.variant.value}"
    choice = ", dealer's choice" if game.dealers_choice else ""
    if game.rotation is not None:
        return f"rotation {game.rotation}{choice}"
    return f"rotation of {len(game.games or ())} games{choice}"


class RunIt(BaseModel):
    """``[game.run_it]``: an all-in hand may be run more than once (docs/rules.md, "Run it
    twice"); absent, the preset's rule stands (only ``phh`` allows it)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    max_runs: Annotated[int, Field(ge=1, le=3, strict=True)] = 2
    structures: list[BettingStructure] = Field(default_factory=lambda: list(BettingStructure))
    variants: list[GameKind] = Field(default_factory=lambda: sorted(BOARD_GAMES))
    odd_chip: RunOddChip = RunOddChip.ONE_EACH

    @field_validator("variants")
    @classmethod
    def _board_games(cls, value: list[GameKind]) -> list[GameKind]:
        stud = [g.value for g in value if g not in BOARD_GAMES]
        if stud:
            raise ValueError(f"only board games are run more than once, not {', '.join(stud)}")
        return value

    def rule(self) -> RunItTwice:
        """The engine's house rule."""
        return RunItTwice(max_runs=self.max_runs, structures=frozenset(self.structures),
                          games=frozenset(self.variants), odd_chip=self.odd_chip)
