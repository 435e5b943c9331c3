"""Scenario files: a table, a device, a seed, hands to play, scripted cards and actions,
faults. TOML, in ``config/scenarios/``; paths are relative to the file.

::

    name = "holdem-nl-clean"
    description = "One clean hand of no-limit hold'em through the shoe."
    seed = 7                          # shuffle, decisions, device ids: one seed, one byte stream
    hands = 1
    device = "shoe"                   # shoe | table
    deck = "../decks/demo-red.csv"
    foreign_deck = "../decks/demo-blue.csv"   # optional: tags for foreign_tag faults
    table = "sim"                     # table id (hand ids, MQTT topics)

    [game]
    variant = "holdem"                # tablectl.domain.games.GameKind values
    structure = "no-limit"
    preset = "casino"
    stud_short_deck = "reshuffle"     # optional: overrides the preset's (StudShortDeck values)
    button = 1
    [game.stakes]                     # tablectl.game.Stakes fields, chip units
    small_blind = 100
    big_blind = 200
    units_per_currency = 100          # optional: chip units a unit of money (default 100,
                                      # as a table config's): how amounts are printed

    [[seats]]
    number = 1
    name = "Ada"
    stack = 20000

    [strategy]                        # optional: seeded random decisions
    weights = { fold = 1, check = 4, call = 4, bet = 1, raise = 1 }
    all_in = 0.05

    [script]                          # optional
    cards = ["As", "Kd"]              # dealing order (burns included), then random
    actions = ["3 raise 600", "5 call"]   # then check/call

    [[faults]]
    kind = "drop"                     # hardware_sim.faults.FaultKind values
    at_card = 5
    hand = 1

:func:`load_scenario` validates everything (the engine accepts the game, seats and stakes; the
faults fit the device) and reports every problem with its key, as one :class:`ScenarioError`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final, TypeVar

from hardware_sim.errors import DealerError
from hardware_sim.faults import FaultKind, FaultPlan
from hardware_sim.strategies import RandomStrategy, ScriptedAction, ScriptedStrategy, Strategy
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tablectl.domain.errors import ConfigError
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.game import (
    PRESETS,
    ActionKind,
    Hand,
    HandSetupError,
    RuleSet,
    SeatSetup,
    Stakes,
    StudShortDeck,
)

E = TypeVar("E", GameKind, BettingStructure, RulesPreset, FaultKind, StudShortDeck)

DEVICES: Final = ("shoe", "table")
_TOP: Final = {"name", "description", "seed", "hands", "device", "deck", "foreign_deck",
               "table", "game", "seats", "strategy", "script", "faults"}
_STAKES: Final = {"small_blind", "big_blind", "straddle", "ante", "big_blind_ante", "bring_in",
                  "small_bet", "big_bet", "min_bet"}
_FAULT_KEYS: Final = {"kind", "at_card", "hand", "seconds", "cards", "power_cut", "foreign",
                      "antenna", "clear"}


class ScenarioError(DealerError, ValueError):
    """A scenario file that cannot be played; ``problems`` lists (key, message) pairs."""

    def __init__(self, problems: Sequence[tuple[str, str]], source: str = "") -> None:
        self.problems = list(problems)
        self.source = source
        text = "; ".join(f"{k}: {m}" if k else m for k, m in self.problems)
        super().__init__(f"{source}: {text}" if source else text)


@dataclass(frozen=True, slots=True)
class Scenario:
    """A validated scenario (see the module docstring for the file format)."""

    name: str
    description: str
    seed: int
    hands: int
    device: str
    deck: Deck
    foreign_deck: Deck | None
    table: str
    game: GameKind
    structure: BettingStructure
    preset: RulesPreset
    stakes: Stakes
    button: int
    seats: tuple[SeatSetup, ...]
    weights: Mapping[ActionKind, float] = field(default_factory=dict)
    all_in: float = 0.05
    cards: tuple[Card, ...] = ()
    actions: tuple[ScriptedAction, ...] = ()
    faults: tuple[FaultPlan, ...] = ()
    path: Path | None = None
    stud_short_deck: StudShortDeck | None = None
    units_per_currency: int = 100
    """Chip units a unit of the table's money (as ``game.stakes.units_per_currency`` of a
    table config): how amounts are printed."""

    @property
    def rules(self) -> RuleSet:
        """The preset's house rules (with the scenario's ``stud_short_deck``, if given)."""
        rules = PRESETS[self.preset]
        if self.stud_short_deck is not None:
            rules = replace(rules, stud_short_deck=self.stud_short_deck)
        return rules

    def strategy(self, seed: int | None = None) -> Strategy:
        """The decisions: the script (if any), then seeded random ones."""
        rand = RandomStrategy(self.seed if seed is None else seed, self.weights,
                              all_in=self.all_in)
        return ScriptedStrategy(self.actions, then=rand) if self.actions else rand


def load_scenario(path: Path) -> Scenario:
    """Read and validate a scenario file.

    Raises:
        ScenarioError: unreadable, not TOML, or any invalid value (all problems at once).
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScenarioError([("", f"cannot read: {exc.strerror}")], str(path)) from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ScenarioError([("", f"not valid TOML: {exc}")], str(path)) from exc
    return parse_scenario(data, base=path.parent, source=str(path), path=path)


def parse_scenario(data: Mapping[str, object], *, base: Path, source: str = "",
                   path: Path | None = None) -> Scenario:
    """Validate parsed scenario data (paths relative to ``base``).

    Raises:
        ScenarioError: every problem, each with its key.
    """
    p: list[tuple[str, str]] = []
    for key in sorted(set(data) - _TOP):
        p.append((key, "unknown key"))
    name = _str(data, "name", p, default=path.stem if path else "scenario")
    seed = _int(data, "seed", p, default=0)
    hands = _int(data, "hands", p, default=1, low=1)
    device = _str(data, "device", p, default="shoe")
    if device not in DEVICES:
        p.append(("device", f"{device!r} is not shoe or table"))
    deck = _deck(data, "deck", base, p, required=True)
    foreign = _deck(data, "foreign_deck", base, p, required=False)
    table = _str(data, "table", p, default="sim")

    game_data = _table(data, "game", p)
    game = _enum(GameKind, game_data, "game.variant", "variant", p, default=None)
    structure = _enum(BettingStructure, game_data, "game.structure", "structure", p,
                      default=BettingStructure.FIXED_LIMIT)
    preset = _enum(RulesPreset, game_data, "game.preset", "preset", p,
                   default=RulesPreset.CASINO)
    short_deck = _enum(StudShortDeck, game_data, "game.stud_short_deck", "stud_short_deck", p,
                       default=None) if "stud_short_deck" in game_data else None
    button = _int(game_data, "button", p, default=1, key_path="game.button")
    stakes_data = _table(game_data, "stakes", p, key_path="game.stakes")
    units = _int(stakes_data, "units_per_currency", p, default=100, low=1,
                 key_path="game.stakes.units_per_currency")
    for key in sorted(set(stakes_data) - _STAKES - {"units_per_currency"}):
        p.append((f"game.stakes.{key}", "unknown key"))
    stakes_values = {k: _int(stakes_data, k, p, default=0, low=0, key_path=f"game.stakes.{k}")
                     for k in _STAKES}
    stakes = Stakes(**stakes_values)
    for key in sorted(set(game_data) - {"variant", "structure", "preset", "button", "stakes",
                                        "stud_short_deck"}):
        p.append((f"game.{key}", "unknown key"))

    seats: list[SeatSetup] = []
    raw_seats = data.get("seats", [])
    if not isinstance(raw_seats, list) or not raw_seats:
        p.append(("seats", "a list of [[seats]] tables is required"))
        raw_seats = []
    for i, s in enumerate(raw_seats):
        if not isinstance(s, dict):
            p.append((f"seats[{i}]", "not a table"))
            continue
        number = _int(s, "number", p, default=0, low=1, key_path=f"seats[{i}].number")
        stack = _int(s, "stack", p, default=0, low=1, key_path=f"seats[{i}].stack")
        seats.append(SeatSetup(number, stack, _str(s, "name", p, default="",
                                                   key_path=f"seats[{i}].name")))

    strat = _table(data, "strategy", p)
    weights: dict[ActionKind, float] = {}
    raw_weights = strat.get("weights", {})
    if isinstance(raw_weights, dict):
        for k, v in raw_weights.items():
            try:
                kind = ActionKind(str(k))
            except ValueError:
                p.append((f"strategy.weights.{k}", "not an action kind"))
                continue
            if not isinstance(v, int | float) or isinstance(v, bool) or v < 0:
                p.append((f"strategy.weights.{k}", "must be a number >= 0"))
                continue
            weights[kind] = float(v)
    else:
        p.append(("strategy.weights", "must be a table"))
    all_in = strat.get("all_in", 0.05)
    if not isinstance(all_in, int | float) or not 0 <= all_in <= 1:
        p.append(("strategy.all_in", "must be a probability"))
        all_in = 0.05

    script = _table(data, "script", p)
    cards: list[Card] = []
    for i, text in enumerate(_list(script, "cards", p, "script.cards")):
        try:
            cards.append(Card.parse(str(text)))
        except ValueError as exc:
            p.append((f"script.cards[{i}]", str(exc)))
    if len(set(cards)) != len(cards):
        p.append(("script.cards", "a card repeats"))
    actions: list[ScriptedAction] = []
    for i, text in enumerate(_list(script, "actions", p, "script.actions")):
        try:
            actions.append(ScriptedAction.parse(str(text)))
        except ValueError as exc:
            p.append((f"script.actions[{i}]", str(exc)))

    faults: list[FaultPlan] = []
    raw_faults = data.get("faults", [])
    if not isinstance(raw_faults, list):
        p.append(("faults", "must be a list of [[faults]] tables"))
        raw_faults = []
    for i, f in enumerate(raw_faults):
        key = f"faults[{i}]"
        if not isinstance(f, dict):
            p.append((key, "not a table"))
            continue
        for extra in sorted(set(f) - _FAULT_KEYS):
            p.append((f"{key}.{extra}", "unknown key"))
        fkind = _enum(FaultKind, f, f"{key}.kind", "kind", p, default=None)
        foreign_card: Card | None = None
        if "foreign" in f:
            try:
                foreign_card = Card.parse(str(f["foreign"]))
            except ValueError as exc:
                p.append((f"{key}.foreign", str(exc)))
        antenna = f.get("antenna")
        if fkind is None:
            continue
        try:
            faults.append(FaultPlan(
                fkind, _int(f, "at_card", p, default=0, key_path=f"{key}.at_card"),
                hand=_int(f, "hand", p, default=1, key_path=f"{key}.hand"),
                seconds=_float(f, "seconds", p, default=0.3, key_path=f"{key}.seconds"),
                cards=_int(f, "cards", p, default=2, key_path=f"{key}.cards"),
                power_cut=bool(f.get("power_cut", False)), foreign=foreign_card,
                antenna=str(antenna) if antenna is not None else None,
                clear=_str(f, "clear", p, default="", key_path=f"{key}.clear")
                if "clear" in f else None))
        except (ValueError, TypeError) as exc:
            p.append((key, str(exc)))
        if fkind is FaultKind.WRONG_ANTENNA and device != "table":
            p.append((f"{key}.kind", "wrong_antenna needs device = \"table\""))
        if fkind is FaultKind.DUPLICATE_READ and device != "shoe":
            p.append((f"{key}.kind", "duplicate_read needs device = \"shoe\""))
        if fkind is FaultKind.FOREIGN_TAG and foreign is None and "foreign_deck" not in data:
            p.append((f"{key}.kind", "foreign_tag needs foreign_deck"))

    if game is not None and not p:
        try:
            Hand.start(game=game, structure=structure or BettingStructure.FIXED_LIMIT,
                       rules=PRESETS[preset or RulesPreset.CASINO], stakes=stakes, seats=seats,
                       button=button)
        except HandSetupError as exc:
            p.append(("game", str(exc)))
    if p:
        raise ScenarioError(p, source)
    assert game is not None and structure is not None and preset is not None
    assert deck is not None
    return Scenario(name=name, description=_str(data, "description", p, default=""),
                    seed=seed, hands=hands, device=device, deck=deck, foreign_deck=foreign,
                    table=table, game=game, structure=structure, preset=preset, stakes=stakes,
                    button=button, seats=tuple(seats), weights=weights, all_in=float(all_in),
                    cards=tuple(cards), actions=tuple(actions), faults=tuple(faults), path=path,
                    stud_short_deck=short_deck, units_per_currency=units)


def find_scenarios(folder: Path) -> list[Path]:
    """The ``*.toml`` files of ``folder``, sorted by name."""
    return sorted(folder.glob("*.toml"))


# ---- small typed readers ------------------------------------------------------------------------


def _table(data: Mapping[str, object], key: str, p: list[tuple[str, str]],
           key_path: str | None = None) -> dict[str, object]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        p.append((key_path or key, "must be a table"))
        return {}
    return value


def _list(data: Mapping[str, object], key: str, p: list[tuple[str, str]],
          key_path: str) -> list[object]:
    value = data.get(key, [])
    if not isinstance(value, list):
        p.append((key_path, "must be a list"))
        return []
    return value


def _str(data: Mapping[str, object], key: str, p: list[tuple[str, str]], *, default: str,
         key_path: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        p.append((key_path or key, "must be a string"))
        return default
    return value


def _int(data: Mapping[str, object], key: str, p: list[tuple[str, str]], *, default: int,
         low: int | None = None, key_path: str | None = None) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        p.append((key_path or key, "must be an integer"))
        return default
    if low is not None and value < low:
        p.append((key_path or key, f"must be at least {low}"))
        return default
    return value


def _enum(cls: type[E], data: Mapping[str, object], key_path: str, key: str,
          p: list[tuple[str, str]], *, default: E | None) -> E | None:
    if key not in data:
        if default is None:
            p.append((key_path, "required key is missing"))
        return default
    try:
        return cls(str(data[key]))
    except ValueError:
        allowed = ", ".join(m.value for m in cls)
        p.append((key_path, f"{data[key]!r} is not one of {allowed}"))
        return default


def _float(data: Mapping[str, object], key: str, p: list[tuple[str, str]], *,
           default: float, key_path: str) -> float:
    value = data.get(key, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        p.append((key_path, "must be a number >= 0"))
        return default
    return float(value)


def _deck(data: Mapping[str, object], key: str, base: Path, p: list[tuple[str, str]], *,
          required: bool) -> Deck | None:
    value = data.get(key)
    if value is None:
        if required:
            p.append((key, "required key is missing"))
        return None
    if not isinstance(value, str):
        p.append((key, "must be a path"))
        return None
    path = Path(value)
    try:
        return Deck.load(path if path.is_absolute() else base / path)
    except ConfigError as exc:
        p.append((key, str(exc)))
        return None
