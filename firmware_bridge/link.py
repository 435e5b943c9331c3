"""The byte link under a session: the :class:`Link` seam, an in-memory pipe, and pyserial.

``Link`` follows h11's convention: ``read()`` returns ``b""`` when the peer closed the link
cleanly and raises :class:`~firmware_bridge.errors.LinkClosedError` when it went away (an
unplug: the original pyserial ``SerialException`` or ``OSError`` is the ``__cause__``).

:func:`open_serial_link` opens a port by path, by stable name (``/dev/serial/by-id/...``, a
symlink resolved again on every open) or by pyserial URL (``socket://host:port``); it is
exclusive, sets DTR/RTS *before* opening (a line profile), and reads without the
read-with-timeout trap: the port is non-blocking (``timeout=0``) and is read only when the
event loop reports it readable, so a frame is handed on as soon as its bytes arrive.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, Protocol

import serial

from firmware_bridge.errors import LinkClosedError

_LOGGER = logging.getLogger(__name__)

_CHUNK: Final = 4096
UNPLUG_MESSAGE: Final = ("device reports readiness to read but returned no data "
                         "(device disconnected or multiple access on port?)")
"""What pyserial raises on Linux when a USB serial device is unplugged under a read."""


class Link(Protocol):
    """A bidirectional byte stream to one device."""

    async def read(self) -> bytes:
        """The next bytes (at least one), or b"" when the link closed.

        Raises:
            LinkClosedError: the link went away (unplug, I/O error).
        """
        ...

    async def write(self, data: bytes) -> None:
        """Write all of ``data``.

        Raises:
            LinkClosedError: the link is closed or went away.
        """
        ...

    async def aclose(self) -> None:
        """Close the link; idempotent."""
        ...


LinkOpener = Callable[[str], Awaitable[Link]]
"""Opens a link by address; the default is :func:`open_serial_link`."""

Manipulator = Callable[[bytes], bytes]
"""Transforms the bytes of each write on a :func:`pipe` (fault injection, as in
:mod:`hardware_sim.faults`)."""


class MemoryLink:
    """One end of an in-memory :func:`pipe`; shipped for tests, demos and replay."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._inbox: asyncio.Queue[bytes | BaseException] = asyncio.Queue()
        self._peer: MemoryLink | None = None
        self._manipulate: Manipulator | None = None
        self._closed = False

    @property
    def closed(self) -> bool:
        """True once either end closed or the pipe was unplugged."""
        return self._closed

    async def read(self) -> bytes:
        """See :class:`Link`."""
        if self._closed and self._inbox.empty():
            return b""
        item = await self._inbox.get()
        if isinstance(item, BaseException):
            self._closed = True
            raise LinkClosedError(f"{self.name}: {item}") from item
        return item

    async def write(self, data: bytes) -> None:
        """See :class:`Link`."""
        self.write_nowait(data)

    def write_nowait(self, data: bytes) -> None:
        """Write without awaiting (the pipe never blocks).

        Raises:
            LinkClosedError: the pipe is closed.
        """
        if self._closed or self._peer is None or self._peer._closed:
            raise LinkClosedError(f"{self.name}: write on a closed pipe")
        out = self._manipulate(data) if self._manipulate else data
        if out:
            self._peer._inbox.put_nowait(out)

    async def aclose(self) -> None:
        """Close both directions: the other end reads b"" after what is buffered."""
        self.close()

    def close(self) -> None:
        """Synchronous :meth:`aclose`."""
        for end in (self, self._peer):
            if end is not None and not end._closed:
                end._closed = True
                end._inbox.put_nowait(b"")

    def fail(self, exc: BaseException) -> None:
        """Make both ends fail as an unplug does: pending and later reads raise
        LinkClosedError caused by ``exc`` (typically the pyserial exception of an unplug)."""
        for end in (self, self._peer):
            if end is not None and not end._closed:
                end._inbox.put_nowait(exc)
                end._closed = True


def pipe(*, to_a: Manipulator | None = None, to_b: Manipulator | None = None,
         names: tuple[str, str] = ("a", "b")) -> tuple[MemoryLink, MemoryLink]:
    """Two connected in-memory links ``(a, b)``: what ``a`` writes, ``b`` reads.

    Args:
        to_a: applied to every write towards ``a`` (e.g. a fault manipulator).
        to_b: applied to every write towards ``b``.
        names: for error messages.
    """
    a, b = MemoryLink(names[0]), MemoryLink(names[1])
    a._peer, b._peer = b, a
    b._manipulate, a._manipulate = to_a, to_b
    return a, b


@dataclass(frozen=True, slots=True)
class LineProfile:
    """DTR/RTS levels applied before the port opens (why: docs/protocol.md, "Why the link
    works this way")."""

    name: str
    dtr: bool
    rts: bool


LINE_PROFILES: Final = {
    p.name: p for p in (
        LineProfile("plain", dtr=True, rts=True),
        LineProfile("native-cdc", dtr=True, rts=False),
        LineProfile("esp32-bridge", dtr=False, rts=False),
    )
}


def describe_port(address: str) -> str:
    """``address`` with the kernel device a stable name points to, for log lines."""
    if "://" in address:
        return address
    real = os.path.realpath(address)
    return address if real == address else f"{address} -> {real}"


class SerialLink:
    """A :class:`Link` over an open pyserial port, driven by event-loop readiness.

    Create it with :func:`open_serial_link`. The only pyserial user in firmware_bridge: its
    exceptions become :class:`LinkClosedError` here, the original kept as ``__cause__``.
    """

    def __init__(self, port: serial.SerialBase, address: str) -> None:
        self.address = address
        self._port = port
        self._fd: int = port.fileno()
        # pyserial's own class for a local port (not a URL handler with a protocol of its
        # own in read(), such as rfc2217), on an fd it opened non-blocking
        self._raw = (type(port) is serial.Serial and os.name == "posix"
                     and bool(fcntl.fcntl(self._fd, fcntl.F_GETFL) & os.O_NONBLOCK))
        self._loop = asyncio.get_running_loop()
        self._readable: asyncio.Future[None] | None = None
        self._closed = False

    async def read(self) -> bytes:
        """See :class:`Link`."""
        readable = False
        while True:
            if self._closed:
                return b""
            try:
                data = self._read_now(readable)
            except (serial.SerialException, OSError) as exc:
                await self.aclose()
                raise LinkClosedError(f"{self.address}: {exc}") from exc
            if data:
                return data
            fut = self._loop.create_future()
            self._readable = fut
            self._loop.add_reader(self._fd, _set_done, fut)
            try:
                await fut
            finally:
                with contextlib.suppress(Exception):
                    self._loop.remove_reader(self._fd)
                self._readable = None
            readable = True

    def _read_now(self, readable: bool) -> bytes:
        """Whatever bytes are there now, b"" if none (raises when the device is gone).

        ``readable``: the event loop just reported the port readable.
        """
        if not self._raw:
            data: bytes = self._port.read(_CHUNK)  # timeout=0: whatever is there, now
            return data
        # a plain POSIX port (opened O_NONBLOCK by pyserial): one read() system call where
        # pyserial's read makes three (select, read, select)
        try:
            data = os.read(self._fd, _CHUNK)
        except BlockingIOError:
            return b""
        if not data and readable:
            # (a tty polled with VMIN=0 reads b"" when it has nothing) reported readable with
            # nothing to read: a device that went away, as pyserial's read() has it
            raise serial.SerialException("device reports readiness to read but returned no "
                                         "data (device disconnected or multiple access on "
                                         "port?)")
        return data

    async def write(self, data: bytes) -> None:
        """See :class:`Link`."""
        if self._closed:
            raise LinkClosedError(f"{self.address}: closed")
        try:
            self._port.write(data)
        except (serial.SerialException, OSError) as exc:
            await self.aclose()
            raise LinkClosedError(f"{self.address}: {exc}") from exc

    async def aclose(self) -> None:
        """Close the port at once (so a re-plugged device can take the same name)."""
        if self._closed:
            return
        self._closed = True
        if self._readable is not None and not self._readable.done():
            self._readable.set_result(None)
        with contextlib.suppress(Exception):
            self._loop.remove_reader(self._fd)
        with contextlib.suppress(Exception):
            self._port.close()


def _set_done(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


async def open_serial_link(address: str, *, profile: LineProfile | str = "plain",
                           baudrate: int = 115200) -> SerialLink:
    """Open a device by path, stable name or pyserial URL.

    The name is resolved anew on each call, so calling it again after an unplug finds the
    re-plugged device under its stable name.

    Raises:
        LinkClosedError: the port does not exist, is locked by another exclusive user, or
            cannot be opened (the pyserial error is the ``__cause__``).
    """
    line = LINE_PROFILES[profile] if isinstance(profile, str) else profile
    try:
        port = serial.serial_for_url(address, do_not_open=True, baudrate=baudrate, timeout=0,
                                     write_timeout=2, exclusive=True)
        port.dtr = line.dtr  # before open(): opening must not reset an ESP32 board
        port.rts = line.rts
        port.open()
    except (serial.SerialException, OSError, ValueError) as exc:
        # pyserial's "could not open port P: [Errno 2] No such file...: 'P'" names the path
        # twice more: the OS's reason says it all
        errno = getattr(exc, "errno", None)
        why = (os.strerror(errno) if isinstance(errno, int) and "could not open port" in str(exc)
               else str(exc))
        raise LinkClosedError(f"cannot open {describe_port(address)}: {why}") from exc
    _LOGGER.info("opened %s (%s)", describe_port(address), line.name)
    return SerialLink(port, address)
