"""Fixtures for the tournament tests: a structure small enough to reason about by hand, a
database of our own on the test PostgreSQL (tests/floor/conftest.py says which server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tablectl.tournament.structure import Structure
from tests.floor.conftest import create_database, database_url, drop_database

SMALL = """
name = "Test turbo"
starting_stack = 10000
seats_per_table = 6
late_registration_until_level = 2
reentry_until_level = 2
max_entries = 2
paid_places = 3
[[level]]
small_blind = 50
big_blind = 100
minutes = 10
[[level]]
small_blind = 100
big_blind = 200
ante = 200
minutes = 10
[[break]]
after_level = 2
minutes = 5
chip_up = [25]
[[level]]
small_blind = 200
big_blind = 400
ante = 400
ante_kind = "ante"
minutes = 10
"""
"""Periods: level 1 (600 s), level 2 (600 s), break (300 s), level 3 (600 s, the last)."""


@pytest.fixture
def small() -> Structure:
    """The :data:`SMALL` structure."""
    return Structure.parse(SMALL, "small.toml")


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A new empty database for one test; dropped afterwards."""
    name = create_database("tournament_test")
    try:
        yield database_url(name)
    finally:
        drop_database(name)
