"""Options of the engine tests: how many differential hands to play against PokerKit."""

from __future__ import annotations

import os

import pytest

CI_DIFF_HANDS = 1700
"""Differential hands in ``.ci/test`` (a third of the full budget); ``.ci/test --all`` sets
``DIFF_HANDS=5050``, the whole budget."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tablectl engine")
    group.addoption("--diff-hands", type=int, default=None, metavar="N",
                    help="random hands per differential run against PokerKit, spread over "
                         f"the variants by their speed (default: $DIFF_HANDS, else "
                         f"{CI_DIFF_HANDS}; 5050 is the whole budget)")
    group.addoption("--diff-seed", type=str, default="tablectl", metavar="SEED",
                    help="seed of the differential hands (default: fixed)")


@pytest.fixture
def diff_hands(request: pytest.FixtureRequest) -> int:
    """The ``--diff-hands`` total, else ``$DIFF_HANDS``, else :data:`CI_DIFF_HANDS`."""
    value = request.config.getoption("--diff-hands", default=None)
    if value is None:
        value = os.environ.get("DIFF_HANDS", CI_DIFF_HANDS)
    return int(value)


@pytest.fixture
def diff_seed(request: pytest.FixtureRequest) -> str:
    """The ``--diff-seed`` value."""
    return str(request.config.getoption("--diff-seed", default="tablectl"))
