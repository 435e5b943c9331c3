"""The reader's read is acknowledged only once the host is done with it: a host that crashes
while journaling a read makes the reader resend it instead of losing it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from firmware_bridge.client import Delivered, DeviceClient, DeviceEvent
from firmware_bridge.messages import TagSeen
from hardware_sim.devices import SimShoe
from hardware_sim.serve import PipeDevice
from tablectl.clock import SystemClock
from tablectl.domain.deck import Deck
from tests.reliability.harness import ROOT, poll_until


async def next_read(events: AsyncIterator[DeviceEvent]) -> Delivered:
    async with asyncio.timeout(10):
        while True:
            event = await anext(events)
            if isinstance(event, Delivered) and isinstance(event.message, TagSeen):
                return event


@pytest.mark.parametrize("after_consumed", [True, False])
async def test_the_ack_waits_for_the_consumer_only_when_asked(after_consumed: bool) -> None:
    clock = SystemClock()
    shoe = SimShoe(Deck.load(ROOT / "config/decks/demo-red.csv"), clock=clock, seed=1)
    port = PipeDevice(shoe, clock=clock)
    client = DeviceClient("sim-shoe", name="shoe", opener=port.open, clock=clock,
                          ack_when_consumed=after_consumed)
    try:
        async with client:
            events = client.events()
            await poll_until(lambda: shoe.connected, 10)
            shoe.draw()
            held = await next_read(events)  # held, as the daemon holds it while journaling
            if after_consumed:
                await asyncio.sleep(0.3)   # ample time for an ACK to come back, had one been sent
                # the held read is still the oldest the shoe waits an ACK for (what the shoe
                # sent after it, its TAG_GONE on a slow machine, waits behind it)
                assert shoe.session._oldest_unacked() == held.seq
                more = asyncio.ensure_future(anext(events))  # done with it: the ACK goes out
                await poll_until(lambda: shoe.session._oldest_unacked() != held.seq, 30)
                more.cancel()
                with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                    await more
            else:
                await poll_until(lambda: shoe.session.queued == 0, 30)
    finally:
        await port.aclose()
