"""Fixtures of the SimDealer tests: the demo decks, the scenario folder, a small table."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.domain.deck import Deck
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.game import PRESETS, SeatSetup, Stakes

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "config" / "scenarios"
DECKS = ROOT / "config" / "decks"


@pytest.fixture
def red_deck() -> Deck:
    return Deck.load(DECKS / "demo-red.csv")


@pytest.fixture
def blue_deck() -> Deck:
    return Deck.load(DECKS / "demo-blue.csv")


TABLE = {
    "game": GameKind.HOLDEM, "structure": BettingStructure.NO_LIMIT,
    "rules": PRESETS[RulesPreset.CASINO], "stakes": Stakes(small_blind=100, big_blind=200),
    "seats": (SeatSetup(1, 20000, "Ada"), SeatSetup(3, 20000, "Brook"),
              SeatSetup(5, 20000, "Cy")),
    "button": 1,
}
