"""Options of the engine tests: how many differential hands to play against PokerKit."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tablectl engine")
    group.addoption("--diff-hands", type=int, default=None, metavar="N",
                    help="random hands per differential run against PokerKit "
                         "(default 5050, spread over the variants by their speed)")
    group.addoption("--diff-seed", type=str, default="tablectl", metavar="SEED",
                    help="seed of the differential hands (default: fixed)")


@pytest.fixture
def diff_hands(request: pytest.FixtureRequest) -> int | None:
    """The ``--diff-hands`` total, or None for the default budget."""
    value = request.config.getoption("--diff-hands", default=None)
    return int(value) if value is not None else None


@pytest.fixture
def diff_seed(request: pytest.FixtureRequest) -> str:
    """The ``--diff-seed`` value."""
    return str(request.config.getoption("--diff-seed", default="tablectl"))
