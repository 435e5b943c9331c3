"""The host's asyncio client of one device: connect, reconnect, and hand on events once.

>>> async def main() -> None:                                       # doctest: +SKIP
...     async with DeviceClient("/dev/serial/by-id/usb-Acme_Shoe_42-if00") as shoe:
...         async for event in shoe.events():
...             match event:
...                 case Delivered(message=TagSeen() as read):
...                     print(read.antenna, read.uid_hex, read.index)
...                 case Connected(new_boot=True):
...                     pass  # per-device state is void; a snapshot is on its way

The client owns a host-role :class:`~firmware_bridge.session.Session` that lives across
reconnects (so sequence numbers, duplicate suppression and the last boot id survive an
unplug). Each connection: open the link through the injected opener (which re-resolves the
stable name), handshake, pump bytes and timers; on unplug, closed link, dead link or failed
handshake it closes the link at once and retries with backoff 0.5 -> 1 -> 2 -> 5 s (capped;
reset by a successful handshake). A peer of another major version is reported
(:class:`Incompatible`), the link closed, and the handshake retried every
``incompatible_retry`` seconds (30 s) with a fresh session, until the device is replaced or
updated: the client never stops on what a device answers.

With ``ack_when_consumed``, a consumer that cannot keep an event (its journal failed) calls
:meth:`DeviceClient.refuse`: the batch is never acknowledged, the link is closed and the
client stays down (:meth:`DeviceClient.events` ends); the device keeps the events and
resends them to the next host (the restarted daemon).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Final, Self, TypeAlias

from firmware_bridge.clock import Clock, SystemClock
from firmware_bridge.errors import LinkClosedError, LocalProtocolError
from firmware_bridge.link import Link, LinkOpener, open_serial_link
from firmware_bridge.messages import PROTO_MAJOR, DeviceKind, HelloAck, Message
from firmware_bridge.outage import Outage
from firmware_bridge.session import Session, SessionStats
from firmware_bridge.session_config import LinkEnd, SessionConfig
from firmware_bridge.session_events import (
    BadPayload,
    HandshakeFailed,
    LinkDead,
    LinkUp,
    Received,
    SessionEvent,
    VersionMismatch,
)
from firmware_bridge.transitions import LinkState

_LOGGER = logging.getLogger(__name__)

DEFAULT_BACKOFF: Final = (0.5, 1.0, 2.0, 5.0)
INCOMPATIBLE_RETRY: Final = 30.0
"""Seconds between handshakes with a device of another major version (it may be replaced)."""


@dataclass(frozen=True, slots=True)
class Connected:
    """The handshake completed.

    Attributes:
        device: the client's name. peer: the device's HELLO_ACK (kind, firmware, boot id).
        new_boot: the device restarted since we last saw it (True on the first connection):
            drop per-device state; ``snapshot_req_id`` names the snapshot on its way.
    """

    device: str
    peer: HelloAck
    new_boot: bool
    snapshot_req_id: int | None


@dataclass(frozen=True, slots=True)
class DeviceRebooted:
    """The device came back with another boot id: events not yet delivered may be lost.

    Sent just before the :class:`Connected` of that handshake.
    """

    device: str
    previous_boot_id: int
    boot_id: int


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The link went down (unplug, silence, closed port, failed handshake)."""

    device: str
    reason: str


@dataclass(frozen=True, slots=True)
class Delivered:
    """A device message (TagSeen, TagGone, AntennaState, SnapshotDone, Misread, Button,
    Status, or UnknownMessage), delivered exactly once and in the device's order.

    Attributes:
        seq: the device's frame seq. at: host monotonic time of arrival (the client's clock).
    """

    device: str
    message: Message
    seq: int
    at: float


@dataclass(frozen=True, slots=True)
class Malformed:
    """A reliable frame whose payload did not decode (acknowledged, so the device moved on)."""

    device: str
    type: int
    seq: int
    error: str


@dataclass(frozen=True, slots=True)
class Incompatible:
    """The device answered the handshake with another major protocol version, or is
    another kind of device than the client takes (``kind``): nothing is exchanged with it
    (not one of its events is taken or acknowledged); the client tries again every
    ``incompatible_retry`` seconds.

    Attributes:
        device: the client's name. peer_major: the device's version. ours: this host's.
        kind: the kind of device that answered, when that was what was wrong.
        wanted: the kinds the client takes (with ``kind``).
    """

    device: str
    peer_major: int
    ours: int = PROTO_MAJOR
    kind: DeviceKind | int | None = None
    wanted: tuple[DeviceKind, ...] = ()

    @property
    def reason(self) -> str:
        """One line for displays and logs."""
        if self.kind is not None:
            wanted = " or ".join(_kind_name(k) for k in self.wanted)
            return (f"a {_kind_name(self.kind)} answered on this port, which is set up for a "
                    f"{wanted}: check which device is plugged in here (cables swapped, or "
                    "the system numbered the ports anew)")
        return (f"the reader speaks protocol v{self.peer_major}, this host v{self.ours}: "
                "replace it or update its firmware")


def _kind_name(kind: DeviceKind | int) -> str:
    names: dict[int, str] = {DeviceKind.SHOE: "card shoe", DeviceKind.TABLE: "table reader",
                             DeviceKind.KEYPAD: "keypad", DeviceKind.COMBO: "combined reader"}
    return names.get(kind, f"device of kind {int(kind)}")


DeviceEvent: TypeAlias = (Connected | DeviceRebooted | Disconnected | Delivered | Malformed
                          | Incompatible)
"""What :meth:`DeviceClient.events` yields."""


@dataclass(frozen=True, slots=True)
class Translation:
    """What one event of a host session means to whoever consumes a device.

    Attributes:
        events: the device events to hand on, in order.
        down: why the link is over (nothing heard, or a handshake that gave up), else None.
    """

    events: tuple[DeviceEvent, ...] = ()
    down: str | None = None


def translate(device: str, event: SessionEvent, now: float) -> Translation:
    """The consumer's view of ``event``, an event of the host session of ``device``.

    Args:
        device: the name the device events carry. now: the host's time of arrival.

    >>> translate("shoe", LinkDead(3.0), 0.0)
    Translation(events=(), down='no frame for 3.0 s')
    """
    match event:
        case Received(message=message, seq=seq):
            return Translation((Delivered(device, message, seq, now),))
        case LinkUp(peer=peer, new_boot=new_boot, previous_boot_id=prev,
                    snapshot_req_id=req):
            connected = Connected(device, peer, new_boot, req)
            if new_boot and prev is not None:
                return Translation((DeviceRebooted(device, prev, peer.boot_id), connected))
            return Translation((connected,))
        case BadPayload(type=ftype, seq=seq, error=error):
            return Translation((Malformed(device, ftype, seq, error),))
        case LinkDead(silent_for=silent):
            return Translation(down=f"no frame for {silent:.1f} s")
        case HandshakeFailed(attempts=n):
            return Translation(down=f"no HELLO_ACK after {n} HELLOs")
        case VersionMismatch(peer_major=major):
            seen = Incompatible(device, major)
            return Translation((seen,), down=seen.reason)
        case _:
            return Translation()


class DeviceClient:
    """Host side of one device, as an async context manager (reusable, not re-entrant).

    Args:
        address: path, stable name or pyserial URL, passed to ``opener`` on every connect.
        name: used in events and logs (default: the address).
        opener: opens the link; default :func:`open_serial_link`. Tests pass a pipe's opener.
        clock: injected time (``monotonic`` + ``sleep``).
        config: session timing.
        backoff: waits between failed connection attempts, the last one repeating.
        nonce: HELLO nonce source (default random).
        ack_when_consumed: acknowledge a batch of delivered events only once the consumer
            has taken every event and asked for the next one (the loop of ``async for event
            in client.events()`` finished its body). A host that makes each event durable
            in that body (a journal) then never ACKs a read it could lose in a crash: the
            device resends it to the next host. Default False (ACK on receipt).
        incompatible_retry: seconds between handshakes with a device of another major
            protocol version, or of a kind not in ``kinds``.
        kinds: the device kinds this host takes (None: any). Another kind answering (a
            port that now leads to another device) is :class:`Incompatible`: its events are
            never delivered nor acknowledged, so it keeps them for the host that takes it.
    """

    def __init__(self, address: str, *, name: str | None = None,
                 opener: LinkOpener = open_serial_link, clock: Clock | None = None,
                 config: SessionConfig | None = None,
                 backoff: Sequence[float] = DEFAULT_BACKOFF,
                 nonce: Callable[[], int] | None = None,
                 ack_when_consumed: bool = False,
                 incompatible_retry: float = INCOMPATIBLE_RETRY,
                 kinds: frozenset[DeviceKind] | None = None) -> None:
        if not backoff or min(backoff) < 0:
            raise ValueError("backoff needs at least one non-negative delay")
        self.address = address
        self.name = name or address
        self._opener = opener
        self._clock: Clock = clock or SystemClock()
        self._backoff = tuple(backoff)
        self._config = config
        self._nonce = nonce
        self._session = Session(LinkEnd.HOST, now=self._clock.monotonic(), config=config,
                                nonce=nonce)
        self._incompatible_retry = incompatible_retry
        self._refused = asyncio.Event()
        self._queue: asyncio.Queue[DeviceEvent | None] = asyncio.Queue()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._ack_when_consumed = ack_when_consumed
        self._kinds = kinds
        self._wrong_kind = False

    # ---- lifecycle -----------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        if self._task is not None:
            raise LocalProtocolError("DeviceClient is not re-entrant")
        self._queue = asyncio.Queue()
        self._refused.clear()
        self._task = asyncio.create_task(self._run(), name=f"device-client {self.name}")
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop the client and close its link; :meth:`events` ends."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._queue.put_nowait(None)

    # ---- consumer API --------------------------------------------------------------------

    @property
    def state(self) -> LinkState:
        """The session's state (UP when events flow)."""
        return self._session.state

    @property
    def peer(self) -> HelloAck | None:
        """The device's last HELLO_ACK, None before the first handshake."""
        return self._session.peer

    @property
    def stats(self) -> SessionStats:
        """Session counters (frames, drops by reason, duplicates, retransmissions...)."""
        return self._session.stats

    async def events(self) -> AsyncIterator[DeviceEvent]:
        """Every event once, in order; ends when the client closes, or once the consumer
        asks for the next event after :meth:`refuse`."""
        while not self._refused.is_set():
            event = await self._queue.get()
            if event is None:
                return
            try:
                yield event
            finally:
                self._queue.task_done()     # the consumer is done with it (see __init__)
        while not self._queue.empty():      # the rest of a refused batch: never handed on
            self._queue.get_nowait()
            self._queue.task_done()

    def refuse(self) -> None:
        """The consumer cannot keep the event it holds (with ``ack_when_consumed``): the batch
        it came in is not acknowledged, the link is closed and the client stays down; the
        iteration of :meth:`events` ends when the consumer asks for the next event (do ask:
        that ends the batch). The device keeps every unacknowledged event and resends it to
        the next host session; this one expects them again if it is entered again."""
        self._refused.set()

    @property
    def incompatible_retry(self) -> float:
        """Seconds between handshakes with a device of another major protocol version."""
        return self._incompatible_retry

    @property
    def refused(self) -> bool:
        """:meth:`refuse` was called (the client is down until it is entered again)."""
        return self._refused.is_set()

    def request_snapshot(self) -> int:
        """Queue a SNAPSHOT_REQ (sent when the link is up); returns its ``req_id``.

        Raises:
            QueueOverflowError: too many commands are waiting.
        """
        req = self._session.request_snapshot(self._clock.monotonic())
        self._wake.set()
        return req

    def send(self, message: Message) -> None:
        """Queue a reliable command (SHOE_RESET, INDICATE, SET_CONFIG, REBOOT...).

        Raises:
            LocalProtocolError: not a reliable message. QueueOverflowError: queue full.
        """
        self._session.send(message, self._clock.monotonic())
        self._wake.set()

    # ---- the loop ------------------------------------------------------------------------

    async def _run(self) -> None:
        attempt = 0
        outage = Outage()
        try:
            while True:
                try:
                    link = await self._opener(self.address)
                except (LinkClosedError, OSError) as exc:
                    level, text = outage.failed(self._clock.monotonic(), str(exc))
                    _LOGGER.log(level, "%s: %s", self.name, text)
                else:
                    back = outage.recovered(self._clock.monotonic())
                    if back is not None:
                        _LOGGER.info("%s: %s opened, %s", self.name, self.address, back)
                    up = await self._serve(link)
                    if self._refused.is_set():
                        _LOGGER.error("%s: the host could not keep a delivered event: not "
                                      "acknowledged, the device keeps it; link closed until "
                                      "the host restarts", self.name)
                        return
                    if up:
                        attempt = 0
                if self._session.state is LinkState.FAILED or self._wrong_kind:
                    # another major version, or another kind of device: a fresh session
                    # asks again, slowly, in case the device is replaced or updated
                    delay = self._incompatible_retry
                    self._wrong_kind = False
                    self._session = Session(LinkEnd.HOST, now=self._clock.monotonic(),
                                            config=self._config, nonce=self._nonce)
                else:
                    delay = self._backoff[min(attempt, len(self._backoff) - 1)]
                    attempt += 1
                await self._clock.sleep(delay)
        finally:
            if self._refused.is_set():
                self._queue.put_nowait(None)

    async def _serve(self, link: Link) -> bool:
        """Run one connection; True if its handshake succeeded."""
        session = self._session
        was_up = False
        reason = "closed"
        session.connect(self._clock.monotonic())
        reader: asyncio.Task[bytes] = asyncio.create_task(link.read())
        # the timer and the waker live across iterations: a frame in wakes the loop through
        # the reader alone, with no task made or cancelled for it
        timer: asyncio.Task[None] | None = None
        timer_at = 0.0
        waker: asyncio.Task[bool] = asyncio.create_task(self._wake.wait())
        try:
            await link.write(session.data_to_send())
            while True:
                now = self._clock.monotonic()
                deadline = session.next_deadline()
                if timer is not None and (timer.done() or deadline is None
                                          or deadline < timer_at):
                    timer.cancel()
                    timer = None
                if timer is None and deadline is not None:
                    timer_at = deadline
                    timer = asyncio.create_task(self._clock.sleep(max(0.0, deadline - now)))
                waits: set[asyncio.Future[object]] = {reader, waker}  # type: ignore[arg-type]
                if timer is not None:
                    waits.add(timer)  # type: ignore[arg-type]
                if not (reader.done() or waker.done() or (timer is not None and timer.done())):
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if waker.done():
                    self._wake.clear()
                    waker = asyncio.create_task(self._wake.wait())
                if timer is not None and timer.done():
                    timer = None
                now = self._clock.monotonic()
                events: list[SessionEvent] = []
                if reader.done():
                    data = reader.result()  # LinkClosedError on unplug
                    if not data:
                        reason = "link closed by the device"
                        return was_up
                    events += session.receive_data(data, now)
                    reader = asyncio.create_task(link.read())
                events += session.poll(now)
                # hand events on before writing: a failing write must not lose them
                stop = None
                for event in events:
                    if isinstance(event, LinkUp) and not self._takes(event.peer):
                        # nothing of this device is handed on or acknowledged
                        reason = self._refuse_kind(event.peer)
                        return was_up
                    was_up |= isinstance(event, LinkUp)
                    stop = self._dispatch(event, now) or stop
                if stop:
                    reason = stop
                    return was_up
                if self._ack_when_consumed and any(isinstance(e, Received) for e in events):
                    await self._queue.join()    # the ACK below only once the host has them
                    if self._refused.is_set():  # ... and never if it could not keep them
                        session.rewind(next(e.seq for e in events if isinstance(e, Received)))
                        reason = "the host refused a delivered event"
                        return was_up
                out = session.data_to_send()
                if out:
                    await link.write(out)
        except LinkClosedError as exc:
            cause = exc.__cause__
            reason = f"{type(cause).__name__}: {cause}" if cause else str(exc)
            return was_up
        finally:
            for task in (reader, waker, timer):
                if task is not None:
                    task.cancel()
            for task in (reader, waker, timer):
                if task is not None:
                    with contextlib.suppress(BaseException):
                        await task
            await link.aclose()
            session.link_lost(self._clock.monotonic())
            if was_up:
                self._queue.put_nowait(Disconnected(self.name, reason))
            _LOGGER.info("%s: link down: %s", self.name, reason)
            me = asyncio.current_task()
            if me is not None and me.cancelling():
                # a stop (aclose) that came while the tasks above were awaited was taken for
                # theirs by the suppress: it stops this client now, not a reconnect later
                raise asyncio.CancelledError

    def _takes(self, peer: HelloAck) -> bool:
        return self._kinds is None or peer.device_kind in self._kinds

    def _refuse_kind(self, peer: HelloAck) -> str:
        seen = Incompatible(self.name, peer.proto_major, kind=peer.device_kind,
                            wanted=tuple(sorted(self._kinds or ())))
        self._wrong_kind = True
        self._queue.put_nowait(seen)
        return seen.reason

    def _dispatch(self, event: SessionEvent, now: float) -> str | None:
        """Queue the consumer's view of ``event``; return a reason to drop the link, or None."""
        step = translate(self.name, event, now)
        for item in step.events:
            self._queue.put_nowait(item)
        return step.down
