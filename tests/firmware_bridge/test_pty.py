"""Integration through a real pty with pyserial: unplug, replug under the same stable name,
and a device reboot. Real time (SystemClock); waits are bounded, nothing sleeps."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import serial

from firmware_bridge.client import (
    Connected,
    Delivered,
    DeviceClient,
    DeviceEvent,
    DeviceRebooted,
    Disconnected,
)
from firmware_bridge.clock import SystemClock
from firmware_bridge.errors import LinkClosedError
from firmware_bridge.link import UNPLUG_MESSAGE, open_serial_link
from firmware_bridge.messages import SnapshotDone, TagSeen
from hardware_sim.devices import SimShoe
from hardware_sim.serve import PtyDevice
from tablectl.domain.deck import Deck

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")


class Watch:
    """Collects events and wakes waiters on each one."""

    def __init__(self, client: DeviceClient) -> None:
        self.events: list[DeviceEvent] = []
        self._cond = asyncio.Condition()
        self._task = asyncio.create_task(self._run(client))

    async def _run(self, client: DeviceClient) -> None:
        async for event in client.events():
            async with self._cond:
                self.events.append(event)
                self._cond.notify_all()

    async def until(self, pred: Callable[[list[DeviceEvent]], bool], within: float = 10) -> None:
        async with asyncio.timeout(within), self._cond:
            await self._cond.wait_for(lambda: pred(self.events))

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


def reads(events: list[DeviceEvent]) -> list[TagSeen]:
    return [e.message for e in events if isinstance(e, Delivered)
            and isinstance(e.message, TagSeen)]


async def test_unplug_replug_and_reboot_through_a_real_pty(tmp_path: Path, red_deck: Deck) -> None:
    clock = SystemClock()
    by_id = tmp_path / "usb-Sim_RFID_Shoe_0001-if00"   # stands in for /dev/serial/by-id/...
    shoe = SimShoe(red_deck, clock=clock, seed=11)
    async with PtyDevice(shoe, by_id, clock=clock) as port:
        client = DeviceClient(str(by_id), name="shoe", clock=clock, backoff=(0.05, 0.1))
        async with client:
            watch = Watch(client)
            await watch.until(lambda ev: any(isinstance(e, Connected) for e in ev))
            drawn: list[TagSeen] = []
            for _ in range(25):
                drawn.append(shoe.draw())
                await asyncio.sleep(0)
            await port.unplug()                     # mid-stream: some reads are unacked
            for _ in range(10):
                drawn.append(shoe.draw())           # dealt while unplugged
            await watch.until(lambda ev: any(isinstance(e, Disconnected) for e in ev))
            down = next(e for e in watch.events if isinstance(e, Disconnected))
            # the two exceptions a real unplug raises, on a read or on a write (docs/protocol.md)
            assert down.reason in {f"SerialException: {UNPLUG_MESSAGE}",
                                   "SerialException: write failed: [Errno 5] Input/output error"}
            port.plug()                             # a new pty under the same name
            assert by_id.is_symlink() and by_id.resolve().name.isdigit()
            for _ in range(15):
                drawn.append(shoe.draw())
            await watch.until(lambda ev: len(reads(ev)) >= len(drawn))
            assert reads(watch.events) == drawn     # every read exactly once, in order
            assert not any(isinstance(e, DeviceRebooted) for e in watch.events)

            shoe.reboot()                           # a watchdog reset: new boot id
            await watch.until(lambda ev: any(isinstance(e, DeviceRebooted) for e in ev))
            up = [e for e in watch.events if isinstance(e, Connected)][-1]
            await watch.until(lambda ev: any(
                isinstance(e, Delivered) and e.message == SnapshotDone(
                    up.snapshot_req_id or 0, 1) for e in ev))
            assert up.new_boot and up.peer.boot_id == shoe.boot_id
            await watch.stop()


async def test_the_port_is_exclusive_and_a_missing_name_is_a_clear_error(
        tmp_path: Path, red_deck: Deck) -> None:
    clock = SystemClock()
    path = tmp_path / "usb-Sim-if00"
    with pytest.raises(LinkClosedError, match="cannot open") as info:
        await open_serial_link(str(path))
    assert isinstance(info.value.__cause__, serial.SerialException)
    async with PtyDevice(SimShoe(red_deck, clock=clock), path, clock=clock):
        link = await open_serial_link(str(path))
        try:
            with pytest.raises(LinkClosedError, match="exclusively lock"):
                await open_serial_link(str(path))
        finally:
            await link.aclose()
