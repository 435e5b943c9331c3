"""Fixtures of the bridge tests: a manual clock and a way to run the loop against it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from firmware_bridge.client import DeviceClient, DeviceEvent
from tablectl.clock import ManualClock
from tablectl.domain.deck import Deck

DECKS = Path(__file__).resolve().parents[2] / "config" / "decks"


@pytest.fixture
def red_deck() -> Deck:
    return Deck.load(DECKS / "demo-red.csv")


@pytest.fixture
def blue_deck() -> Deck:
    return Deck.load(DECKS / "demo-blue.csv")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


class Driver:
    """Moves a ManualClock in small steps and lets the loop run in between (no real sleep)."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock

    async def settle(self) -> None:
        for _ in range(30):
            await asyncio.sleep(0)

    async def advance(self, seconds: float, step: float = 0.01) -> None:
        end = self.clock.monotonic() + seconds
        while self.clock.monotonic() < end - 1e-9:
            self.clock.advance(min(step, end - self.clock.monotonic()))
            await self.settle()

    async def until(self, done: Callable[[], bool], within: float = 30.0,
                    step: float = 0.01) -> None:
        end = self.clock.monotonic() + within
        await self.settle()
        while not done():
            assert self.clock.monotonic() < end, "condition not reached in simulated time"
            self.clock.advance(step)
            await self.settle()


@pytest.fixture
def driver(clock: ManualClock) -> Driver:
    return Driver(clock)


class Collector:
    """Collects a client's events in the background."""

    def __init__(self, client: DeviceClient) -> None:
        self.events: list[DeviceEvent] = []
        self._task = asyncio.create_task(self._run(client))

    async def _run(self, client: DeviceClient) -> None:
        async for event in client.events():
            self.events.append(event)

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


@pytest.fixture
async def collect() -> AsyncIterator[Callable[[DeviceClient], Collector]]:
    made: list[Collector] = []

    def start(client: DeviceClient) -> Collector:
        c = Collector(client)
        made.append(c)
        return c

    yield start
    for c in made:
        await c.stop()


@pytest.fixture(autouse=True)
async def _no_leaked_tasks() -> AsyncIterator[None]:
    """Fail a test that leaves tasks running (a client or server not closed)."""
    yield
    for _ in range(5):
        await asyncio.sleep(0)
    current = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    assert not left, f"leaked tasks: {left}"
