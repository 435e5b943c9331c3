"""House rules files: the shipped example loads; bad files are refused with one line per
problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.domain.errors import ConfigError
from tablectl.floor.rules import HouseRules, Shown

SHIPPED = Path(__file__).resolve().parents[2] / "config" / "floor" / "house-rules.toml"


def test_the_shipped_rules_load_and_judge_hands() -> None:
    rules = HouseRules.load(SHIPPED)
    assert [r.name for r in rules.rules] == ["bad-beat", "high-hand"]
    quads = Shown(1, ("9c", "9d"), ("9c", "9d", "9h", "9s", "Ah"))
    aces_full = Shown(2, ("Ah", "Ad"), ("Ah", "Ad", "Ac", "Ks", "Kh"))
    holdem = {"variant": "holdem"}
    flags = rules.flags("h1", holdem, 5, [quads, aces_full], [(1, "whole")])
    assert sorted((f.rule, f.seat) for f in flags) == [("bad-beat", 2), ("high-hand", 1)]
    assert rules.flags("h1", {"variant": "razz"}, 5, [quads, aces_full], [(1, "whole")]) == []


@pytest.mark.parametrize(("text", "problem"), [
    ("[[rule]]\nname = 'x'\nkind = 'jackpot'\nminimum = 'Ah Ad Ac Th Td'\n", "kind"),
    ("[[rule]]\nname = 'x'\nkind = 'bad_beat'\nminimum = 'Ah Ad Ac Th'\n", "five different"),
    ("[[rule]]\nname = 'x'\nkind = 'bad_beat'\nminimum = 'Ah Ad Ac Th Zz'\n", "not a card"),
    ("[[rule]]\nname = 'x'\nkind = 'bad_beat'\nminimum = 'Ah Ad Ac Th Td'\nmin_dealt_in = 1\n",
     "min_dealt_in"),
    ("[[rule]]\nname = 'x'\nkind = 'bad_beat'\nminimum = 'Ah Ad Ac Th Td'\ncolour = 1\n",
     "unknown key"),
    ("rule = 3\n", "array of tables"),
    ("[[rule]\n", "not valid TOML"),
])
def test_bad_rules_are_refused(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=problem):
        HouseRules.load(path)
