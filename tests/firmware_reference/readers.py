"""The readers the contract tests run against, behind one small interface: hardware_sim's
shoe served on a pty (:class:`SimShoeReader`) and the reference firmware's host build
(:class:`FirmwareShoeReader`). A test says what happens at the shoe (a card passes, the
cable comes out, the reader reboots); each reader makes it happen its own way."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Protocol

from firmware_bridge.client import DeviceClient, DeviceEvent
from firmware_bridge.clock import SystemClock
from hardware_sim.devices import SimShoe
from hardware_sim.serve import PtyDevice
from tablectl.domain.deck import Deck

from .harness import ReferenceReader


class ShoeUnderTest(Protocol):
    """A shoe on a pty behind ``link``."""

    link: Path

    @property
    def boot_id(self) -> int: ...
    async def draw(self, uid: bytes) -> None:
        """A card passes the shoe's antenna."""
    async def draw_again(self, uid: bytes) -> None:
        """The same card passes again after it left (a flaky antenna, a card put back)."""
    async def dead_tag(self) -> None:
        """A card whose tag does not answer crosses the passage sensor."""
    async def unplug(self) -> None: ...
    async def plug(self) -> None: ...
    async def reboot(self) -> None:
        """A watchdog reset: a new boot, unacknowledged reads lost."""


class SimShoeReader:
    """hardware_sim's SimShoe, served by :class:`PtyDevice`."""

    def __init__(self, deck: Deck, link: Path) -> None:
        self.link = link
        self.shoe = SimShoe(deck, clock=SystemClock(), random_boot=True, shuffle=False)
        self.port = PtyDevice(self.shoe, link, clock=SystemClock())

    @property
    def boot_id(self) -> int:
        return self.shoe.boot_id

    async def draw(self, uid: bytes) -> None:
        self.shoe.foreign_tag(uid)   # any tag passing the antenna: a read with the next index

    async def draw_again(self, uid: bytes) -> None:
        self.shoe.foreign_tag(uid)

    async def dead_tag(self) -> None:
        self.shoe.misread()

    async def unplug(self) -> None:
        await self.port.unplug()

    async def plug(self) -> None:
        self.port.plug()

    async def reboot(self) -> None:
        self.shoe.reboot()


class FirmwareShoeReader:
    """The reference firmware (host build): cards pass its scripted radio's antenna 0."""

    def __init__(self, firmware: ReferenceReader) -> None:
        self.firmware = firmware
        self.link = firmware.link

    @property
    def boot_id(self) -> int:
        return self.firmware.boot_id

    async def draw(self, uid: bytes) -> None:
        await self.firmware.command(f"pass 0 {uid.hex()}")

    async def draw_again(self, uid: bytes) -> None:
        # the card must have left the field first (debounce), or it is the same draw
        await self.firmware.command("settle 0")
        await self.draw(uid)

    async def dead_tag(self) -> None:
        await self.firmware.command("blank")

    async def unplug(self) -> None:
        await self.firmware.command("unplug")

    async def plug(self) -> None:
        await self.firmware.command("plug")

    async def reboot(self) -> None:
        await self.firmware.command("reboot")


@contextlib.asynccontextmanager
async def open_shoe(kind: str, tmp_path: Path, deck: Deck,
                    build: Callable[[], Path]) -> AsyncIterator[ShoeUnderTest]:
    """A shoe of ``kind`` (``hardware_sim`` or ``reference``) on a pty under ``tmp_path``."""
    link = tmp_path / "usb-Shoe-if00"
    if kind == "hardware_sim":
        sim = SimShoeReader(deck, link)
        async with sim.port:
            yield sim
        return
    async with ReferenceReader(build(), link, store=tmp_path / "store", sensor=True) as firmware:
        yield FirmwareShoeReader(firmware)


class Watch:
    """Collects a client's events and wakes waiters on each one."""

    def __init__(self, client: DeviceClient) -> None:
        self.events: list[DeviceEvent] = []
        self._cond = asyncio.Condition()
        self._task = asyncio.create_task(self._run(client))

    async def _run(self, client: DeviceClient) -> None:
        async for event in client.events():
            async with self._cond:
                self.events.append(event)
                self._cond.notify_all()

    async def until(self, pred: Callable[[list[DeviceEvent]], bool], within: float = 15) -> None:
        async with asyncio.timeout(within), self._cond:
            await self._cond.wait_for(lambda: pred(self.events))

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
