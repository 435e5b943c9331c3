"""House rules for jackpots and high-hand prizes, as data (a TOML file), checked sans-IO.

A rule names a minimum hand (five cards), what must hold around it and where it applies::

    [[rule]]
    name = "bad-beat"
    kind = "bad_beat"            # the qualifying hand is shown and loses
    minimum = "Ah Ad Ac Th Td"   # aces full of tens or better
    both_hole_cards_play = true  # at least two of the player's own cards are in the five
    min_dealt_in = 4
    variants = ["holdem"]        # empty or absent: every game

    [[rule]]
    name = "high-hand"
    kind = "high_hand"           # the qualifying hand is shown, whatever the result
    minimum = "2c 2d 2h 2s 3c"   # four of a kind or better

A hand that qualifies is flagged (:class:`~tablectl.floor.model.FlagRow`): the floor writes it
to the ``flags`` table and publishes it for the floor supervisor to confirm. Nothing is paid
automatically. ``config/floor/house-rules.toml`` is the shipped example.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tablectl.domain.cards import Card, CardParseError, parse_cards
from tablectl.domain.errors import ConfigError
from tablectl.domain.textfile import TextFileError, parse_toml, read_text_file
from tablectl.floor.model import FlagRow
from tablectl.game.evaluate import high_key

KINDS: Final = ("bad_beat", "high_hand")
_WINNING_HALVES: Final = ("whole", "high")


@dataclass(frozen=True, slots=True)
class Shown:
    """A hand shown down: the player's cards and the five that play."""

    seat: int
    cards: tuple[str, ...]
    best: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"seat": self.seat, "cards": list(self.cards), "best": list(self.best)}

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Shown:
        """Inverse of :meth:`to_json`."""
        return cls(int(body["seat"]), tuple(body["cards"]), tuple(body["best"]))


@dataclass(frozen=True, slots=True)
class Rule:
    """One jackpot or prize rule (see the module docstring)."""

    name: str
    kind: str
    minimum: tuple[Card, ...]
    both_hole_cards_play: bool = False
    min_dealt_in: int = 2
    variants: frozenset[str] = frozenset()

    def qualifies(self, shown: Shown, variant: str | None, dealt_in: int) -> str | None:
        """Why ``shown`` qualifies (its five cards in words), or None."""
        if self.variants and variant not in self.variants:
            return None
        if dealt_in < self.min_dealt_in:
            return None
        try:
            best = [Card.parse(c) for c in shown.best]
        except CardParseError:
            return None
        if len(best) != 5 or high_key(best) < high_key(self.minimum):
            return None
        if self.both_hole_cards_play and len(set(shown.cards) & set(shown.best)) < 2:
            return None
        return f"{' '.join(shown.best)} (at least {' '.join(map(str, self.minimum))})"


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The room's rules; :meth:`flags` checks a finished hand against them."""

    rules: tuple[Rule, ...] = ()

    def flags(self, hand_id: str, game: Mapping[str, Any] | None, dealt_in: int,
              shown: Sequence[Shown], winners: Sequence[tuple[int, str]]) -> list[FlagRow]:
        """The flags a settled hand earns (none when nobody showed)."""
        variant = game.get("variant") if game else None
        won_high = {seat for seat, half in winners if half in _WINNING_HALVES}
        out: list[FlagRow] = []
        for rule in self.rules:
            for hand in shown:
                why = rule.qualifies(hand, str(variant) if variant else None, dealt_in)
                if why is None:
                    continue
                if rule.kind == "bad_beat" and hand.seat in won_high:
                    continue
                out.append(FlagRow(hand_id=hand_id, rule=rule.name, kind=rule.kind,
                                   seat=hand.seat, detail=why))
        return out

    @classmethod
    def parse(cls, text: str, source: str | None = None) -> HouseRules:
        """From TOML text.

        Raises:
            ConfigError: one line per problem; nothing is loaded then.
        """
        try:
            body = parse_toml(text)
        except TextFileError as exc:
            raise ConfigError([("", exc.reason)], source) from None
        problems: list[tuple[str, str]] = []
        rules: list[Rule] = []
        unknown = set(body) - {"rule"}
        if unknown:
            problems.append(("", f"unknown key(s) {sorted(unknown)}; expected [[rule]]"))
        raw_rules = body.get("rule", [])
        if not isinstance(raw_rules, list):
            raw_rules = []
            problems.append(("rule", "must be an array of tables ([[rule]])"))
        names: set[str] = set()
        for i, raw in enumerate(raw_rules):
            rule = _rule(raw, f"rule[{i}]", problems)
            if rule is None:
                continue
            if rule.name in names:
                problems.append((f"rule[{i}].name", f"{rule.name!r} is used twice"))
            names.add(rule.name)
            rules.append(rule)
        if problems:
            raise ConfigError(problems, source)
        return cls(tuple(rules))

    @classmethod
    def load(cls, path: Path) -> HouseRules:
        """From a TOML file (see :meth:`parse`)."""
        try:
            text = read_text_file(path)
        except TextFileError as exc:
            raise ConfigError([("", exc.said("file"))], str(path)) from None
        return cls.parse(text, str(path))


_RULE_KEYS: Final = frozenset({"name", "kind", "minimum", "both_hole_cards_play",
                               "min_dealt_in", "variants"})


def _rule(raw: object, where: str, problems: list[tuple[str, str]]) -> Rule | None:
    if not isinstance(raw, dict):
        problems.append((where, "must be a table"))
        return None
    before = len(problems)
    for key in sorted(set(raw) - _RULE_KEYS):
        problems.append((f"{where}.{key}", f"unknown key; known: {sorted(_RULE_KEYS)}"))
    name, kind = raw.get("name"), raw.get("kind")
    if not isinstance(name, str) or not name:
        problems.append((f"{where}.name", "a non-empty string is required"))
    if kind not in KINDS:
        problems.append((f"{where}.kind", f"must be one of {', '.join(KINDS)}"))
    minimum: tuple[Card, ...] = ()
    try:
        minimum = parse_cards(str(raw.get("minimum", "")))
    except CardParseError as exc:
        problems.append((f"{where}.minimum", str(exc)))
    else:
        if len(minimum) != 5 or len(set(minimum)) != 5:
            problems.append((f"{where}.minimum", "five different cards, e.g. \"Ah Ad Ac Th Td\""))
    both = raw.get("both_hole_cards_play", False)
    if not isinstance(both, bool):
        problems.append((f"{where}.both_hole_cards_play", "true or false"))
    dealt = raw.get("min_dealt_in", 2)
    if isinstance(dealt, bool) or not isinstance(dealt, int) or not 2 <= dealt <= 10:
        problems.append((f"{where}.min_dealt_in", "an integer from 2 to 10"))
    variants = raw.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        problems.append((f"{where}.variants", "a list of variant names"))
    if len(problems) > before:
        return None
    return Rule(name=str(name), kind=str(kind), minimum=minimum, both_hole_cards_play=both,
                min_dealt_in=dealt, variants=frozenset(variants))


__all__ = ["KINDS", "HouseRules", "Rule", "Shown"]
