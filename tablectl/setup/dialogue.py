"""The set-up runners' I/O: the reader they open and how they wait for reads and the dealer.

:func:`open_reader` makes the card source of a registration, verification or calibration
reader; a :class:`Dialogue` is the dealer's side (the CLI's terminal, or a test's script);
:class:`Inputs` races the source's events, the dealer's lines and a timeout measured on the
injected clock."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from typing import Final, Protocol

from tablectl.clock import Clock
from tablectl.controller.inputs import CardRead, DeviceStatus, ReadMissed
from tablectl.setup.errors import ReaderTimeoutError, RunnerError
from tablectl.sources.base import SourceEvent
from tablectl.sources.rfid import RfidShoeSource, RfidTableSource


def open_reader(kind: str, address: str, *, clock: Clock) -> RfidShoeSource | RfidTableSource:
    """The source for a registration, verification or calibration reader (not yet opened):
    ``kind`` ``"shoe"`` (reads in passing order) or ``"table"`` (antennas, no roles yet).

    Raises:
        ValueError: another kind.
    """
    if kind == "shoe":
        return RfidShoeSource("reader", address, clock=clock)
    if kind == "table":
        return RfidTableSource("reader", address, roles={}, clock=clock)
    raise ValueError(f"unknown reader kind {kind!r} (shoe or table)")


class Dialogue(Protocol):
    """How a runner talks to the dealer (the CLI's terminal, or a test's script)."""

    def say(self, text: str) -> None:
        """Show one line to the dealer."""
        ...

    async def readline(self) -> str | None:
        """The dealer's next line (without its newline), or None at the end of input."""
        ...


class Timeout:
    """What :meth:`Inputs.next` returns when its wait ran out."""


TIMEOUT: Final = Timeout()
Item = CardRead | str | None | Timeout
"""What a wait returns: a read, a line, the end of the dealer's input, or a timeout."""


class Inputs:
    """Races the source's events, the dealer's lines and a timeout, losing none of them:
    whatever arrives while the runner waits for the other kind is kept for later."""

    def __init__(self, events: AsyncIterator[SourceEvent], dialogue: Dialogue,
                 clock: Clock) -> None:
        self._events = events
        self._dialogue = dialogue
        self._clock = clock
        self._reads: deque[CardRead] = deque()
        self._lines: deque[str] = deque()
        self._read_task: asyncio.Task[SourceEvent] | None = None
        self._line_task: asyncio.Task[str | None] | None = None
        self._eof = False
        self.online = False

    @property
    def eof(self) -> bool:
        """The dealer's input has ended (no more lines will come)."""
        return self._eof and not self._lines

    async def _next_event(self) -> SourceEvent:
        return await anext(self._events)

    async def next(self, seconds: float, *, read: bool = True, line: bool = True,
                   reads_first: bool = False) -> Item:
        """The next read (if ``read``) or line (if ``line``), None at the end of the dealer's
        input, or :data:`TIMEOUT`. Lines kept come before reads kept, unless ``reads_first``.

        Raises:
            RunnerError: the source ended.
        """
        timer = asyncio.create_task(self._clock.sleep(seconds))
        try:
            while True:
                if reads_first and read and self._reads:
                    return self._reads.popleft()
                if line and self._lines:
                    return self._lines.popleft()
                if line and self._eof:
                    return None
                if read and self._reads:
                    return self._reads.popleft()
                if self._read_task is None:
                    self._read_task = asyncio.create_task(self._next_event())
                if self._line_task is None and not self._eof:
                    self._line_task = asyncio.create_task(self._dialogue.readline())
                waits: set[asyncio.Future[object]] = {timer}  # type: ignore[arg-type]
                waits.add(self._read_task)  # type: ignore[arg-type]
                if self._line_task is not None:
                    waits.add(self._line_task)  # type: ignore[arg-type]
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if self._read_task.done():
                    task, self._read_task = self._read_task, None
                    try:
                        self._on_event(task.result())
                    except StopAsyncIteration:
                        raise RunnerError("the reader's source closed") from None
                if self._line_task is not None and self._line_task.done():
                    got = self._line_task.result()
                    self._line_task = None
                    if got is None:
                        self._eof = True
                    else:
                        self._lines.append(got)
                if timer.done() and not (line and (self._lines or self._eof)) \
                        and not (read and self._reads):
                    return TIMEOUT
        finally:
            if not timer.done():
                timer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await timer

    def unread(self, line: str) -> None:
        """Put a line back: the next wait for a line returns it first."""
        self._lines.appendleft(line)

    def _on_event(self, event: SourceEvent) -> None:
        match event:
            case CardRead(uid=uid) if uid is not None:
                self._reads.append(event)
            case DeviceStatus(online=online):
                self.online = online
                self._dialogue.say("reader online" if online
                                   else "reader offline: waiting for it to come back")
            case ReadMissed(reason=reason):
                self._dialogue.say(f"missed read: {reason}; pass that card again")
            case _:
                pass

    async def aclose(self) -> None:
        """Stop waiting for anything."""
        for task in (self._read_task, self._line_task):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                    await task
        self._read_task = self._line_task = None

    def no_read(self, seconds: float, what: str) -> ReaderTimeoutError:
        """The error for a wait that timed out."""
        state = "" if self.online else " (the reader never came online)"
        return ReaderTimeoutError(f"nothing read in {seconds:g} s{state}; {what}", seconds=seconds)
