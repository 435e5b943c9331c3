"""The contract every shoe must keep, run against hardware_sim's simulated shoe and against
the reference firmware (host build), each on a real pty, read by firmware_bridge's client:
reads arrive once and in order with their draw indexes, a card read again is a new draw, a
card with a dead tag is a MISREAD (NO_TAG) that still counts as a draw, an
unplug loses and doubles nothing, a reboot shows as a new boot with a snapshot and restarts
the draw index, and corrupted bytes both ways cost nothing but time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest

from firmware_bridge.client import (
    Connected,
    Delivered,
    DeviceClient,
    DeviceEvent,
    DeviceRebooted,
    Disconnected,
)
from firmware_bridge.clock import SystemClock
from firmware_bridge.link import Link, open_serial_link
from firmware_bridge.messages import Caps, Misread, MisreadReason, SnapshotDone, TagSeen
from hardware_sim.faults import ByteFaults
from tablectl.domain.deck import Deck

from .readers import ShoeUnderTest, Watch, open_shoe

KINDS = ["hardware_sim", "reference"]


ShoeOf = Callable[[str], AbstractAsyncContextManager[ShoeUnderTest]]


@pytest.fixture
def shoe_of(tmp_path: Path, red_deck: Deck, request: pytest.FixtureRequest) -> ShoeOf:
    def build() -> Path:
        return Path(request.getfixturevalue("reference_build"))

    return lambda kind: open_shoe(kind, tmp_path, red_deck, build)


def uids(deck: Deck, n: int, start: int = 0) -> list[bytes]:
    return [bytes.fromhex(u) for u in list(deck.uids_by_card.values())[start:start + n]]


def reads(events: list[DeviceEvent]) -> list[TagSeen]:
    return [e.message for e in events
            if isinstance(e, Delivered) and isinstance(e.message, TagSeen)]


def client_for(shoe: ShoeUnderTest, opener: Callable[[str], Awaitable[Link]] | None = None
               ) -> DeviceClient:
    return DeviceClient(str(shoe.link), name="shoe", clock=SystemClock(), backoff=(0.05, 0.1),
                        opener=opener or open_serial_link)


@pytest.mark.parametrize("kind", KINDS)
async def test_reads_arrive_once_in_order_with_draw_indexes(
        kind: str, shoe_of: ShoeOf, red_deck: Deck) -> None:
    async with shoe_of(kind) as shoe, client_for(shoe) as client:
        watch = Watch(client)
        await watch.until(lambda ev: any(isinstance(e, Connected) for e in ev))
        up = next(e for e in watch.events if isinstance(e, Connected))
        assert up.new_boot and up.peer.boot_id == shoe.boot_id
        await watch.until(lambda ev: any(isinstance(e, Delivered) and e.message ==
                                         SnapshotDone(up.snapshot_req_id or 0, 1) for e in ev))
        cards = uids(red_deck, 20)
        for uid in cards:
            await shoe.draw(uid)
        await watch.until(lambda ev: len(reads(ev)) >= 20)
        await asyncio.sleep(0)
        got = reads(watch.events)
        assert [r.uid for r in got] == cards
        assert [r.index for r in got] == list(range(20))
        await watch.stop()


@pytest.mark.parametrize("kind", KINDS)
async def test_a_card_read_again_is_a_new_draw(
        kind: str, shoe_of: ShoeOf, red_deck: Deck) -> None:
    async with shoe_of(kind) as shoe, client_for(shoe) as client:
        watch = Watch(client)
        await watch.until(lambda ev: any(isinstance(e, Connected) for e in ev))
        first, second = uids(red_deck, 2)
        await shoe.draw(first)
        await watch.until(lambda ev: len(reads(ev)) == 1)
        await shoe.draw_again(first)
        await shoe.draw(second)
        await watch.until(lambda ev: len(reads(ev)) >= 3)
        assert [(r.uid, r.index) for r in reads(watch.events)] == [
            (first, 0), (first, 1), (second, 2)]
        await watch.stop()


@pytest.mark.parametrize("kind", KINDS)
async def test_a_dead_tag_is_a_misread_and_still_a_draw(
        kind: str, shoe_of: ShoeOf, red_deck: Deck) -> None:
    async with shoe_of(kind) as shoe, client_for(shoe) as client:
        watch = Watch(client)
        await watch.until(lambda ev: any(isinstance(e, Connected) for e in ev))
        up = next(e for e in watch.events if isinstance(e, Connected))
        assert Caps.PASSAGE_SENSOR in up.peer.caps
        first, second, third = uids(red_deck, 3)
        await shoe.draw(first)
        await shoe.draw(second)
        await shoe.dead_tag()                     # the third card out has a dead tag
        await shoe.draw(third)
        await watch.until(lambda ev: len(reads(ev)) >= 3)
        await asyncio.sleep(0)
        order = [(m.uid, m.index) if isinstance(m, TagSeen) else (m.antenna, m.reason)
                 for e in watch.events if isinstance(e, Delivered)
                 and isinstance(m := e.message, TagSeen | Misread)]
        assert order == [(first, 0), (second, 1), (0, MisreadReason.NO_TAG), (third, 3)]
        await watch.stop()


@pytest.mark.parametrize("kind", KINDS)
async def test_an_unplug_mid_stream_loses_and_doubles_nothing(
        kind: str, shoe_of: ShoeOf, red_deck: Deck) -> None:
    async with shoe_of(kind) as shoe, client_for(shoe) as client:
        watch = Watch(client)
        await watch.until(lambda ev: any(isinstance(e, Connected) for e in ev))
        cards = uids(red_deck, 24)
        for uid in cards[:10]:
            await shoe.draw(uid)
        await shoe.unplug()                       # mid-stream: some reads are unacked
        for uid in cards[10:16]:
            await shoe.draw(uid)                  # dealt while the cable is out
        await watch.until(lambda ev: any(isinstance(e, Disconnected) for e in ev))
        await shoe.plug()
        for uid in cards[16:]:
            await shoe.draw(uid)
        await watch.until(lambda ev: len(reads(ev)) >= 24)
        await asyncio.sleep(0)
        assert [r.uid for r in reads(watch.events)] == cards
        assert [r.index for r in reads(watch.events)] == list(range(24))
        assert not any(isinstance(e, DeviceRebooted) for e in watch.events)
        ups = [e for e in watch.events if isinstance(e, Connected)]
        assert [u.new_boot for u in ups] == [True, False]
        await watch.stop()


@pytest.mark.parametrize("kind", KINDS)
async def test_a_reboot_mid_hand_is_a_new_boot_a_snapshot_and_index_zero(
        kind: str, shoe_of: ShoeOf, red_deck: Deck) -> None:
    async with shoe_of(kind) as shoe, client_for(shoe) as client:
        watch = Watch(client)
        await watch.until(lambda ev: any(isinstance(e, Connected) for e in ev))
        first_boot = shoe.boot_id
        cards = uids(red_deck, 6)
        for uid in cards[:5]:
            await shoe.draw(uid)
        await watch.until(lambda ev: len(reads(ev)) == 5)
        await shoe.reboot()
        await watch.until(lambda ev: any(isinstance(e, DeviceRebooted) for e in ev))
        rebooted = next(e for e in watch.events if isinstance(e, DeviceRebooted))
        assert rebooted.previous_boot_id == first_boot != rebooted.boot_id == shoe.boot_id
        await watch.until(lambda ev: sum(isinstance(e, Connected) for e in ev) == 2)
        up = [e for e in watch.events if isinstance(e, Connected)][-1]
        assert up.new_boot and up.peer.boot_id == shoe.boot_id
        await watch.until(lambda ev: any(isinstance(e, Delivered) and e.message ==
                                         SnapshotDone(up.snapshot_req_id or 0, 1) for e in ev))
        await shoe.draw(cards[5])
        await watch.until(lambda ev: len(reads(ev)) == 6)
        assert reads(watch.events)[-1].index == 0 and reads(watch.events)[-1].uid == cards[5]
        await watch.stop()


class FaultyLink:
    """A real serial link whose bytes are corrupted both ways by seeded faults."""

    def __init__(self, link: Link, seed: int) -> None:
        self.link = link
        self.inbound = ByteFaults.parse("garbage=0.05,flip=0.08,drop=0.05,dup=0.05", seed=seed)
        self.outbound = ByteFaults.parse("garbage=0.05,flip=0.08,drop=0.05,dup=0.05",
                                         seed=seed + 1)

    async def read(self) -> bytes:
        while data := await self.link.read():
            if out := self.inbound(data):
                return out
        return b""

    async def write(self, data: bytes) -> None:
        await self.link.write(self.outbound(data))

    async def aclose(self) -> None:
        await self.link.aclose()


@pytest.mark.parametrize("kind", KINDS)
async def test_corrupted_bytes_both_ways_cost_nothing_but_time(
        kind: str, shoe_of: ShoeOf, red_deck: Deck) -> None:
    links: list[FaultyLink] = []

    async def opener(address: str) -> Link:
        links.append(FaultyLink(await open_serial_link(address), seed=len(links) + 5))
        return links[-1]

    async with shoe_of(kind) as shoe, client_for(shoe, opener) as client:
        watch = Watch(client)
        await watch.until(lambda ev: any(isinstance(e, Connected) for e in ev), within=30)
        cards = uids(red_deck, 30)
        for uid in cards:
            await shoe.draw(uid)
        await watch.until(lambda ev: len(reads(ev)) >= 30, within=60)
        await asyncio.sleep(0)
        assert [r.uid for r in reads(watch.events)] == cards
        assert sum(sum(f.inbound.counts.values()) + sum(f.outbound.counts.values())
                   for f in links) > 0
        assert sum(client.stats.drops.values()) > 0
        await watch.stop()
