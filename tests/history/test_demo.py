"""``tablectl demo --engine-only``: seeded, repeatable, one line per hand without a terminal."""

from __future__ import annotations

import pytest

from tablectl.cli import main
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.history.demo import parse_variant


def test_demo_is_repeatable_and_prints_one_line_per_hand(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--engine-only", "--variant", "F7S/8", "--hands", "4", "--seed", "3"]) == 0
    first = capsys.readouterr().out
    assert main(["demo", "--engine-only", "--variant", "F7S/8", "--hands", "4", "--seed", "3"]) == 0
    assert capsys.readouterr().out == first
    lines = first.splitlines()
    assert [line.split(":")[0] for line in lines[:4]] == [f"hand {i}" for i in range(1, 5)]
    assert lines[4].startswith("4 hands of fixed-limit stud-hi-lo")
    assert " wins " in first


def test_demo_rejects_unknown_variants(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--engine-only", "--variant", "razz:no-limit"]) == 2
    assert "not dealt no-limit" in capsys.readouterr().err


def test_variant_names() -> None:
    assert parse_variant("PO") == (GameKind.OMAHA, BettingStructure.POT_LIMIT)
    assert parse_variant("holdem:no-limit") == (GameKind.HOLDEM, BettingStructure.NO_LIMIT)
    with pytest.raises(ValueError, match="unknown variant"):
        parse_variant("badugi")
