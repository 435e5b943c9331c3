"""DeviceClient against simulated devices over an in-memory pipe, on a manual clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from firmware_bridge.client import (
    Connected,
    Delivered,
    DeviceClient,
    DeviceRebooted,
    Disconnected,
)
from firmware_bridge.errors import LinkClosedError, LocalProtocolError
from firmware_bridge.link import UNPLUG_MESSAGE
from firmware_bridge.messages import (
    AntennaState,
    DeviceKind,
    Heartbeat,
    ShoeReset,
    SnapshotDone,
    TagSeen,
)
from hardware_sim.devices import SimShoe
from hardware_sim.faults import ByteFaults
from hardware_sim.serve import PipeDevice
from tablectl.clock import ManualClock
from tablectl.domain.deck import Deck

from .conftest import Collector, Driver


def reads(events: list[object]) -> list[TagSeen]:
    return [e.message for e in events if isinstance(e, Delivered)
            and isinstance(e.message, TagSeen)]


def make(clock: ManualClock, deck: Deck, faults: ByteFaults | None = None,
         seed: int = 7) -> tuple[SimShoe, PipeDevice, DeviceClient]:
    shoe = SimShoe(deck, clock=clock, seed=seed)
    port = PipeDevice(shoe, clock=clock, faults=faults)
    client = DeviceClient("/dev/serial/by-id/usb-Sim_Shoe-if00", name="shoe", opener=port.open,
                          clock=clock, backoff=(0.1, 0.2), nonce=iter(range(1, 10**6)).__next__)
    return shoe, port, client


async def test_reads_arrive_once_in_order_after_a_first_snapshot(
        clock: ManualClock, driver: Driver, red_deck: Deck,
        collect: Callable[[DeviceClient], Collector]) -> None:
    shoe, port, client = make(clock, red_deck)
    async with client:
        got = collect(client)
        await driver.until(lambda: any(isinstance(e, Connected) for e in got.events))
        connected = next(e for e in got.events if isinstance(e, Connected))
        assert connected.new_boot and connected.peer.device_kind is DeviceKind.SHOE
        assert connected.peer.boot_id == shoe.boot_id
        drawn = [shoe.draw() for _ in range(30)]
        await driver.until(lambda: len(reads(got.events)) == 30)
        assert reads(got.events) == drawn
        assert [r.index for r in drawn] == list(range(30))
        # the first connection asked for the state of every antenna
        delivered = [e.message for e in got.events if isinstance(e, Delivered)]
        assert AntennaState(connected.snapshot_req_id or 0, 0, ()) in delivered
        assert SnapshotDone(connected.snapshot_req_id or 0, 1) in delivered
        await port.aclose()


async def test_unplug_mid_stream_loses_and_duplicates_nothing(
        clock: ManualClock, driver: Driver, red_deck: Deck,
        collect: Callable[[DeviceClient], Collector]) -> None:
    shoe, port, client = make(clock, red_deck)
    async with client:
        got = collect(client)
        await driver.until(lambda: client.peer is not None)
        drawn = [shoe.draw() for _ in range(10)]
        await port.unplug()                        # the device keeps its power
        drawn += [shoe.draw() for _ in range(10)]  # dealt while the cable is out
        await driver.advance(1.0)
        downs = [e for e in got.events if isinstance(e, Disconnected)]
        assert len(downs) == 1 and UNPLUG_MESSAGE in downs[0].reason
        assert "SerialException" in downs[0].reason
        port.replug()
        drawn += [shoe.draw() for _ in range(10)]
        await driver.until(lambda: len(reads(got.events)) >= 30)
        await driver.advance(1.0)
        assert reads(got.events) == drawn
        assert not [e for e in got.events if isinstance(e, DeviceRebooted)]
        ups = [e for e in got.events if isinstance(e, Connected)]
        assert [u.new_boot for u in ups] == [True, False]
        assert port.opens >= 2
        await port.aclose()


async def test_power_cut_shows_as_reboot_and_snapshot(
        clock: ManualClock, driver: Driver, red_deck: Deck,
        collect: Callable[[DeviceClient], Collector]) -> None:
    shoe, port, client = make(clock, red_deck)
    async with client:
        got = collect(client)
        await driver.until(lambda: client.peer is not None)
        first_boot = shoe.boot_id
        shoe.draw()
        await driver.until(lambda: len(reads(got.events)) == 1)
        await port.unplug(power_cut=True)
        port.replug()
        await driver.until(lambda: any(isinstance(e, DeviceRebooted) for e in got.events))
        rebooted = next(e for e in got.events if isinstance(e, DeviceRebooted))
        assert rebooted.previous_boot_id == first_boot != rebooted.boot_id == shoe.boot_id
        await driver.until(lambda: sum(isinstance(e, Connected) for e in got.events) == 2)
        last = [e for e in got.events if isinstance(e, Connected)][-1]
        assert last.new_boot and last.snapshot_req_id is not None
        await driver.until(lambda: any(isinstance(e, Delivered) and e.message ==
                                       SnapshotDone(last.snapshot_req_id or 0, 1)
                                       for e in got.events))
        assert shoe.draw().index == 0              # a rebooted shoe counts from 0 again
        await port.aclose()


@pytest.mark.parametrize("spec", ["garbage=0.2", "flip=0.2", "drop=0.2", "dup=0.3",
                                  "garbage=0.05,flip=0.05,drop=0.05,dup=0.05,delay=0.05"])
async def test_byte_faults_cost_nothing_but_time(
        clock: ManualClock, driver: Driver, red_deck: Deck,
        collect: Callable[[DeviceClient], Collector], spec: str) -> None:
    faults = ByteFaults.parse(spec, seed=3)
    shoe, port, client = make(clock, red_deck, faults)
    async with client:
        got = collect(client)
        await driver.until(lambda: client.peer is not None, within=60)
        drawn = [shoe.draw() for _ in range(40)]
        await driver.until(lambda: len(reads(got.events)) >= 40, within=120)
        await driver.advance(2.0)
        assert reads(got.events) == drawn
        assert sum(faults.counts.values()) > 0
        if "flip" in spec or "garbage" in spec:
            assert sum(client.stats.drops.values()) > 0
        await port.aclose()


async def test_commands_reach_the_device(clock: ManualClock, driver: Driver,
                                         red_deck: Deck,
                                         collect: Callable[[DeviceClient], Collector]) -> None:
    shoe, port, client = make(clock, red_deck)
    async with client:
        collect(client)
        await driver.until(lambda: client.peer is not None)
        shoe.draw()
        shoe.draw()
        client.send(ShoeReset())
        await driver.until(lambda: ShoeReset() in shoe.commands)
        assert shoe.draw().index == 0
        with pytest.raises(LocalProtocolError):
            client.send(Heartbeat())
        await port.aclose()


class _DroppingLink:
    """A link that goes away on the first write and whose read takes a while to stop."""

    def __init__(self, stopping: asyncio.Event) -> None:
        self.stopping = stopping

    async def read(self) -> bytes:
        try:
            await asyncio.get_running_loop().create_future()
        except asyncio.CancelledError:
            self.stopping.set()
            await asyncio.get_running_loop().create_future()   # until cancelled again
        return b""

    async def write(self, data: bytes) -> None:
        await asyncio.sleep(0)           # the reader is under way
        raise LinkClosedError("unplugged")

    async def aclose(self) -> None:
        return None


async def test_a_close_while_a_dropped_link_is_torn_down_stops_the_client(
        clock: ManualClock, driver: Driver) -> None:
    # tablectl demo ^C'd as its simulated shoe died: the client's stop arrived while it was
    # waiting for the dropped link's reader to end, and was taken for the reader's own; the
    # client went on reconnecting and the daemon never stopped
    stopping = asyncio.Event()

    async def opener(_address: str) -> _DroppingLink:
        return _DroppingLink(stopping)

    client = DeviceClient("/dev/serial/by-id/usb-Sim_Shoe-if00", name="shoe", opener=opener,
                          clock=clock, backoff=(0.1,))
    await client.__aenter__()
    await stopping.wait()                # the link dropped; its reader is being stopped
    closing = asyncio.create_task(client.aclose())
    await driver.settle()                # the clock stands still: no reconnect is due
    try:
        assert closing.done()
    finally:
        closing.cancel()
