"""Reuses the bridge tests' fixtures: manual clock, driver, event collector, demo decks."""

from tests.firmware_bridge.conftest import blue_deck, clock, collect, driver, red_deck

__all__ = ["blue_deck", "clock", "collect", "driver", "red_deck"]
