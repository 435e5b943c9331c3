"""A bare protocol v1 host for the conformance suite: raw frames in and out, no session.

:class:`~firmware_bridge.session.Session` would hide exactly what conformance must see (which
frames came, in what order, with which flags) and refuses to send what conformance must send
(corrupted frames, unknown types, short payloads, a seq out of order). :class:`RawHost`
keeps every frame the device sent, tracks the device's seq as a host does, and
acknowledges in-order reliable frames only while :attr:`RawHost.auto_ack` is on.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Self

from firmware_bridge.clock import Clock
from firmware_bridge.errors import FrameError, LinkClosedError
from firmware_bridge.frames import Dropped, Frame, FrameDecoder, FrameFlags, encode_frame
from firmware_bridge.link import Link
from firmware_bridge.messages import (
    Ack,
    Heartbeat,
    Hello,
    HelloAck,
    Message,
    decode_message,
    encode_message,
)
from firmware_bridge.seq import seq_next, seq_prev


@dataclass(frozen=True, slots=True)
class Seen:
    """One frame the device sent, decoded when it could be (``message`` None otherwise)."""

    frame: Frame
    message: Message | None


class CheckFailed(Exception):  # noqa: N818 (a verdict, not an error of this package)
    """A conformance check did not hold; the text says what was expected and seen."""


class RawHost:
    """Frames to and from one device over ``link``.

    Args:
        link: an open link to the device (the host owns and closes it).
        clock: paces the host's heartbeats (one a second, as the link rules say).
    """

    def __init__(self, link: Link, clock: Clock) -> None:
        self.link = link
        self.clock = clock
        self.seen: list[Seen] = []
        """Every frame the device sent, in order."""
        self.drops = 0
        """Chunks from the device that did not decode (a conforming device sends none)."""
        self.auto_ack = True
        self.expected = 1
        """The device's next seq, as a host would expect it."""
        self.next_seq = 1
        """Our own next seq (restarts at 1 with every HELLO)."""
        self._decoder = FrameDecoder()
        self._cursor = 0
        self.found_at = 0
        self._arrived = asyncio.Event()
        self._closed: str | None = None
        self._tasks: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> Self:
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._beat())]
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, LinkClosedError):
                await task
        await self.link.aclose()

    async def _beat(self) -> None:
        while True:
            await self.clock.sleep(1.0)
            await self.send(encode_message(Heartbeat()))

    async def _read(self) -> None:
        try:
            while data := await self.link.read():
                await self._take(data)
            self._closed = "the device closed the link"
        except LinkClosedError as exc:
            self._closed = str(exc)
        self._arrived.set()

    async def _take(self, data: bytes) -> None:
        top = 0
        for item in self._decoder.feed(data):
            if isinstance(item, Dropped):
                self.drops += 1
                continue
            try:
                message: Message | None = decode_message(item)
            except FrameError:
                message = None
            self.seen.append(Seen(item, message))
            if item.reliable and item.seq == self.expected:
                top = item.seq
                self.expected = seq_next(item.seq)
            elif isinstance(message, HelloAck):
                self.expected = message.oldest_unacked_seq
        self._arrived.set()
        if top and self.auto_ack:
            await self.send(encode_message(Ack(top)))

    # ---- sending ---------------------------------------------------------------------------

    async def send(self, frame: Frame | bytes) -> None:
        """Write a frame (encoded here) or raw bytes (sent as they are)."""
        await self.link.write(encode_frame(frame) if isinstance(frame, Frame) else frame)

    async def send_reliable(self, message: Message | Frame, seq: int | None = None) -> int:
        """Send a reliable frame with our next seq (or ``seq``); returns the seq used."""
        used = self.next_seq if seq is None else seq
        frame = message if isinstance(message, Frame) else encode_message(message, used)
        if isinstance(message, Frame):
            frame = Frame(message.type, used, message.payload, FrameFlags.ACK_REQ)
        await self.send(frame)
        if seq is None:
            self.next_seq = seq_next(used)
        return used

    async def ack(self) -> None:
        """Acknowledge everything delivered in order so far."""
        await self.send(encode_message(Ack(seq_prev(self.expected))))

    # ---- waiting -----------------------------------------------------------------------------

    def mark(self) -> int:
        """Set the mark at the end of :attr:`seen`: :meth:`expect` looks only after it."""
        self._cursor = len(self.seen)
        return self._cursor

    @property
    def cursor(self) -> int:
        """Where the mark stands in :attr:`seen`."""
        return self._cursor

    async def expect(self, what: str, pred: Callable[[Seen], bool], within: float) -> Seen:
        """The first frame after the mark that satisfies ``pred`` (the mark stays; the
        frame's index is left in :attr:`found_at`).

        Raises:
            CheckFailed: none came within ``within`` seconds, or the link closed.
        """
        try:
            async with asyncio.timeout(within):
                while True:
                    for i in range(self._cursor, len(self.seen)):
                        if pred(self.seen[i]):
                            self.found_at = i
                            return self.seen[i]
                    if self._closed is not None:
                        raise CheckFailed(f"{what}: the link closed ({self._closed})")
                    self._arrived.clear()
                    await self._arrived.wait()
        except TimeoutError:
            raise CheckFailed(f"no {what} within {within:g} s") from None

    async def hello(self, nonce: int, *, attempts: int = 4, every: float = 0.5) -> HelloAck:
        """``00`` + HELLO, retried as docs/protocol.md says; returns the HELLO_ACK echoing
        ``nonce``. Our seq restarts at 1.

        Raises:
            CheckFailed: no such HELLO_ACK after every attempt.
        """
        self.next_seq = 1
        for _ in range(attempts):
            self.mark()
            await self.send(b"\x00" + encode_frame(encode_message(Hello(nonce))))
            with contextlib.suppress(CheckFailed):
                seen = await self.expect("HELLO_ACK", lambda s: isinstance(
                    s.message, HelloAck) and s.message.echo_nonce == nonce, every)
                assert isinstance(seen.message, HelloAck)
                self._cursor = self.found_at + 1      # what follows the HELLO_ACK
                return seen.message
        raise CheckFailed(f"no HELLO_ACK echoing nonce {nonce:#x} after {attempts} HELLOs")

