"""Reuses the bridge tests' fixtures: manual clock, driver, event collector, demo decks."""

from tests.firmware_bridge.conftest import (
    _no_leaked_tasks,
    blue_deck,
    clock,
    collect,
    driver,
    red_deck,
)

__all__ = ["_no_leaked_tasks", "blue_deck", "clock", "collect", "driver", "red_deck"]
