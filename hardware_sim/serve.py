"""Serving simulated devices: in memory (a pipe), over a pty with a stable symlink, and TCP.

* :class:`PipeDevice` — for unit tests: its :meth:`PipeDevice.open` is a
  :data:`~firmware_bridge.link.LinkOpener` for ``DeviceClient(opener=...)``; unplugging fails
  the host's reads with the exact ``SerialException`` pyserial raises on a real unplug.
* :class:`PtyDevice` — a real tty for the host: ``os.openpty`` in raw mode, and a symlink
  (standing in for ``/dev/serial/by-id/...``) re-pointed atomically at every plug, so
  pyserial opens it like hardware; unplugging closes the master (the host's pending read
  raises pyserial's real unplug exception) and removes the link, as udev does.
* :func:`serve_tcp` — each TCP connection (``socket://host:port`` on the host) talks to the
  device; closing the connection plays the unplug.

One :class:`DeviceServer` pumps bytes and timers between a device and a link; the device
outlives links (a self-powered reader keeps its queue across an unplug, unless
``power_cut=True`` reboots it).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import signal
import tty
from pathlib import Path
from types import TracebackType
from typing import Self

import serial

from firmware_bridge.clock import Clock
from firmware_bridge.errors import LinkClosedError
from firmware_bridge.link import UNPLUG_MESSAGE, Link, MemoryLink, pipe
from hardware_sim.devices import SimDevice
from hardware_sim.faults import ByteFaults

_LOGGER = logging.getLogger(__name__)


class DeviceServer:
    """Runs one simulated device over successive links.

    Args:
        device: the model; its output is flushed whenever it produces some.
        clock: injected time (the device's clock).
        faults: optional byte-level faults applied to everything the device writes.
    """

    def __init__(self, device: SimDevice, *, clock: Clock,
                 faults: ByteFaults | None = None) -> None:
        self.device = device
        self.clock = clock
        self.faults = faults
        self._wake = asyncio.Event()

    async def serve(self, link: Link) -> None:
        """Pump until the link closes or fails (the device stays as it is)."""
        device = self.device
        device.on_output = self._wake.set
        reader: asyncio.Task[bytes] = asyncio.create_task(link.read())
        try:
            await self._flush(link)
            while True:
                deadline = device.next_deadline()
                waits: set[asyncio.Future[object]] = {reader}  # type: ignore[arg-type]
                timer: asyncio.Task[None] | None = None
                if deadline is not None:
                    delay = max(0.0, deadline - self.clock.monotonic())
                    timer = asyncio.create_task(self.clock.sleep(delay))
                    waits.add(timer)  # type: ignore[arg-type]
                waker = asyncio.create_task(self._wake.wait())
                waits.add(waker)  # type: ignore[arg-type]
                try:
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for t in (timer, waker):
                        if t is not None and not t.done():
                            t.cancel()
                self._wake.clear()
                if reader.done():
                    data = reader.result()
                    if not data:
                        return
                    device.receive_data(data)
                    reader = asyncio.create_task(link.read())
                device.poll()
                await self._flush(link)
        except LinkClosedError as exc:
            _LOGGER.info("device link closed: %s", exc)
        finally:
            device.on_output = None
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader

    async def _flush(self, link: Link) -> None:
        out = self.device.data_to_send()
        if not out:
            return
        if self.faults is not None:
            stall = self.faults.stall()
            if stall:
                await self.clock.sleep(stall)
            out = self.faults(out)
        if out:
            await link.write(out)


class PipeDevice:
    """A simulated device reachable in memory; use :meth:`open` as the host's LinkOpener."""

    def __init__(self, device: SimDevice, *, clock: Clock,
                 faults: ByteFaults | None = None) -> None:
        self.server = DeviceServer(device, clock=clock, faults=faults)
        self.plugged = True
        self._link: MemoryLink | None = None
        self._task: asyncio.Task[None] | None = None
        self.opens = 0

    @property
    def device(self) -> SimDevice:
        """The model."""
        return self.server.device

    async def open(self, address: str) -> Link:
        """Connect a new pipe to the device (what opening the port does).

        Raises:
            LinkClosedError: unplugged, caused by the SerialException pyserial raises for a
                missing port; or the previous link is still open (exclusive access).
        """
        if not self.plugged:
            cause = serial.SerialException(
                errno.ENOENT, f"could not open port {address}: [Errno 2] No such file or "
                              f"directory: '{address}'")
            raise LinkClosedError(f"cannot open {address}: {cause}") from cause
        if self._link is not None and not self._link.closed:
            raise LinkClosedError(f"{address}: Could not exclusively lock port")
        host, dev = pipe(names=("host", "device"))
        self._link = dev
        self._task = asyncio.create_task(self.server.serve(dev))
        self.opens += 1
        return host

    async def unplug(self, *, power_cut: bool = False) -> None:
        """Pull the cable: the host's read raises LinkClosedError caused by pyserial's unplug
        exception. ``power_cut`` also reboots the device (its queue is lost)."""
        self.plugged = False
        if self._link is not None:
            self._link.fail(serial.SerialException(UNPLUG_MESSAGE))
        await self._stop()
        if power_cut:
            self.device.reboot()

    def replug(self) -> None:
        """Put the cable back: the next :meth:`open` succeeds."""
        self.plugged = True

    async def _stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def aclose(self) -> None:
        """Stop serving."""
        if self._link is not None:
            self._link.close()
        await self._stop()


class PtyMasterLink:
    """The device's end of a pty, as a :class:`~firmware_bridge.link.Link`."""

    def __init__(self, master: int, slave: int) -> None:
        self._master = master
        self._slave = slave  # held open so the host can come and go without EIO here
        self._loop = asyncio.get_running_loop()
        os.set_blocking(master, False)
        self._closed = False

    async def read(self) -> bytes:
        """See Link."""
        while not self._closed:
            try:
                data = os.read(self._master, 4096)
            except BlockingIOError:
                data = None
            except OSError as exc:
                raise LinkClosedError(f"pty: {exc}") from exc
            if data:
                return data
            if data == b"":
                return b""
            fut: asyncio.Future[None] = self._loop.create_future()
            self._loop.add_reader(self._master, _resolve, fut)
            try:
                await fut
            finally:
                with contextlib.suppress(Exception):
                    self._loop.remove_reader(self._master)
        return b""

    async def write(self, data: bytes) -> None:
        """See Link. A full pty buffer (no host reading) loses the bytes, as a UART would."""
        if self._closed:
            raise LinkClosedError("pty closed")
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._master, view)
            except BlockingIOError:
                _LOGGER.debug("pty full: %d bytes lost", len(view))
                return
            except OSError as exc:
                raise LinkClosedError(f"pty: {exc}") from exc
            view = view[n:]

    async def aclose(self) -> None:
        """Close both fds (an unplug, seen from the host)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            self._loop.remove_reader(self._master)
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def _resolve(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


def unplug_on_sigterm() -> None:
    """Make SIGTERM cancel the running task, as SIGINT interrupts it, so that the devices
    it serves are unplugged on the way out: a pty's symlink goes, as udev removes a
    device's. Left behind, the link would point at a pty number the system gives to the
    next pty opened, and a host still retrying the path would open another device's port.
    Call from the task that serves (the ``asyncio.run`` coroutine)."""
    task = asyncio.current_task()
    if task is not None:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)


class PtyDevice:
    """A simulated device on a pty behind a stable symlink, with unplug and replug.

    Use as ``async with PtyDevice(shoe, path, clock=clock) as port: ...``; the host opens
    ``path`` with pyserial (``open_serial_link(str(path))``).
    """

    def __init__(self, device: SimDevice, path: Path | str, *, clock: Clock,
                 faults: ByteFaults | None = None) -> None:
        self.path = Path(path)
        self.server = DeviceServer(device, clock=clock, faults=faults)
        self._link: PtyMasterLink | None = None
        self._task: asyncio.Task[None] | None = None
        self.slave_name: str | None = None

    @property
    def device(self) -> SimDevice:
        """The model."""
        return self.server.device

    async def __aenter__(self) -> Self:
        self.plug()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.unplug()

    @property
    def plugged(self) -> bool:
        """The cable is in (a host can open the symlink)."""
        return self._link is not None

    def plug(self) -> None:
        """Create a new pty and point the symlink at it (the device appears)."""
        if self._link is not None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no CR translation, before the host opens it
        self.slave_name = os.ttyname(slave)
        tmp = self.path.with_name(f".{self.path.name}.new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        tmp.symlink_to(self.slave_name)
        tmp.replace(self.path)
        self._link = PtyMasterLink(master, slave)
        self._task = asyncio.create_task(self.server.serve(self._link))
        _LOGGER.info("plugged %s -> %s", self.path, self.slave_name)

    async def unplug(self, *, power_cut: bool = False) -> None:
        """Close the pty (the host's read raises pyserial's unplug SerialException) and
        remove the symlink; ``power_cut`` also reboots the device."""
        link, self._link = self._link, None
        task, self._task = self._task, None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        if link is not None:
            await link.aclose()
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if power_cut:
            self.device.reboot()

    async def replug(self) -> None:
        """Unplug if needed, then plug again (a new pty under the same name)."""
        await self.unplug()
        self.plug()


class StreamLink:
    """A :class:`~firmware_bridge.link.Link` over an asyncio stream pair (TCP)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def read(self) -> bytes:
        """See Link."""
        try:
            return await self._reader.read(4096)
        except OSError as exc:
            raise LinkClosedError(f"tcp: {exc}") from exc

    async def write(self, data: bytes) -> None:
        """See Link."""
        try:
            self._writer.write(data)
            await self._writer.drain()
        except OSError as exc:
            raise LinkClosedError(f"tcp: {exc}") from exc

    async def aclose(self) -> None:
        """See Link."""
        self._writer.close()
        with contextlib.suppress(OSError):
            await self._writer.wait_closed()


async def serve_tcp(device: SimDevice, host: str, port: int, *, clock: Clock,
                    faults: ByteFaults | None = None) -> asyncio.Server:
    """Listen on ``host:port``; each connection talks to ``device`` (one at a time, as a
    serial port allows: a second connection is closed at once). Close the returned server
    to stop."""
    server = DeviceServer(device, clock=clock, faults=faults)
    busy = asyncio.Lock()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        link = StreamLink(reader, writer)
        if busy.locked():
            await link.aclose()
            return
        async with busy:
            try:
                await server.serve(link)
            finally:
                await link.aclose()

    return await asyncio.start_server(handle, host, port)
