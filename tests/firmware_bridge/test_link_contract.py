"""The Link contract, run against the in-memory pipe and a real pty opened with pyserial.

Each test gets ``(link, device)``: the host's link under test (a :class:`MemoryLink` of
:func:`pipe`, or the :class:`SerialLink` that :func:`open_serial_link` makes of a pty's slave)
and the device's end of the same line (the other end of the pipe, or the pty's master), plus
a way to pull the cable. The same test functions run on both, so what the client's tests
learn on the pipe holds on a serial port.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tty
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import pytest
import serial

from firmware_bridge.errors import LinkClosedError
from firmware_bridge.link import UNPLUG_MESSAGE, Link, open_serial_link, pipe
from hardware_sim.serve import PtyMasterLink

WAIT = 10.0


@dataclass
class Line:
    """The link under test, the device's end, and the cable."""

    link: Link
    device: Link
    unplug: Callable[[], Awaitable[None]]


@pytest.fixture(params=["memory", "pty"])
async def line(request: pytest.FixtureRequest) -> AsyncIterator[Line]:
    if request.param == "memory":
        host, device = pipe(names=("host", "device"))

        async def pull_memory() -> None:
            device.fail(serial.SerialException(UNPLUG_MESSAGE))
        yield Line(host, device, pull_memory)
        host.close()
        return
    if sys.platform == "win32":
        pytest.skip("needs a pty")
    master, slave = os.openpty()
    tty.setraw(slave)
    link = await open_serial_link(os.ttyname(slave))
    device_end = PtyMasterLink(master, slave)
    yield Line(link, device_end, device_end.aclose)
    await link.aclose()
    await device_end.aclose()


async def read_exactly(link: Link, n: int) -> bytes:
    """``n`` bytes from ``link``, however they are split across reads."""
    got = bytearray()
    async with asyncio.timeout(WAIT):
        while len(got) < n:
            data = await link.read()
            assert data, f"closed after {len(got)} of {n} bytes"
            got += data
    return bytes(got)


async def read_exactly_after(first: asyncio.Task[bytes], link: Link, n: int) -> bytes:
    """What the read ``first`` returned, plus more from ``link`` up to ``n`` bytes."""
    data = await first
    return data + (await read_exactly(link, n - len(data)) if len(data) < n else b"")


async def test_bytes_from_the_device_arrive_intact_and_in_order(line: Line) -> None:
    chunks = [bytes([i]) * (i + 1) + b"\x00" for i in range(40)]
    reader = asyncio.create_task(read_exactly(line.link, sum(map(len, chunks))))
    for chunk in chunks:
        await line.device.write(chunk)
    assert await reader == b"".join(chunks)


async def test_bytes_to_the_device_arrive_intact_and_in_order(line: Line) -> None:
    chunks = [bytes(range(256))[i:] + b"\x00" for i in range(0, 256, 32)]
    reader = asyncio.create_task(read_exactly(line.device, sum(map(len, chunks))))
    for chunk in chunks:
        await line.link.write(chunk)
    assert await reader == b"".join(chunks)


async def test_a_waiting_read_wakes_when_bytes_arrive(line: Line) -> None:
    reader = asyncio.create_task(line.link.read())
    await asyncio.sleep(0)
    assert not reader.done()
    await line.device.write(b"\x01\x02\x00")
    async with asyncio.timeout(WAIT):
        assert await read_exactly_after(reader, line.link, 3) == b"\x01\x02\x00"


async def test_after_closing_reads_end_and_writes_fail(line: Line) -> None:
    await line.link.aclose()
    await line.link.aclose()                     # idempotent
    async with asyncio.timeout(WAIT):
        assert await line.link.read() == b""
    with pytest.raises(LinkClosedError):
        await line.link.write(b"x")


async def test_an_unplug_fails_a_waiting_read_with_its_cause_then_the_link_is_closed(
        line: Line) -> None:
    reader = asyncio.create_task(line.link.read())
    await asyncio.sleep(0)
    await line.unplug()
    async with asyncio.timeout(WAIT):
        with pytest.raises(LinkClosedError) as caught:
            await reader
    assert isinstance(caught.value.__cause__, serial.SerialException | OSError)
    async with asyncio.timeout(WAIT):
        assert await line.link.read() == b""
    with pytest.raises(LinkClosedError):
        await line.link.write(b"x")
