"""Sans-IO session of protocol v1, for both roles: the host (table computer) and a device.

No port, socket, clock or event loop in here: the caller passes ``now`` (monotonic seconds)
into every call, feeds received bytes to :meth:`Session.receive_data`, calls
:meth:`Session.poll` at :meth:`Session.next_deadline`, and writes out
:meth:`Session.data_to_send`. Link rules (research/serial.md §2.2):

* **Handshake.** The host sends ``00`` + HELLO and retries every 0.5 s, 4 attempts in all.
  The device answers HELLO_ACK (echoing the nonce, with its boot id and the oldest seq it has
  not had acknowledged), then resends every unacknowledged reliable frame in order, marked
  RETX, before any new one; it restarts its expectation of host frames at seq 1. A device
  sends one unsolicited HELLO_ACK (nonce 0) when it boots; a host that sees a boot id it does
  not know starts a new handshake.
* **Reliability.** Reliable frames carry seq 1..65535 (65535 wraps to 1) per sender and
  session; at most ``window`` (8) are unacknowledged; the rest wait in a queue of
  ``queue_limit`` messages. All unacknowledged frames are resent from the oldest after
  ``retransmit_after`` (0.25 s) without progress, on NAK, and after every HELLO. The receiver
  delivers only the expected seq, re-ACKs and drops duplicates, NAKs a gap once and drops
  the frame. ACKs are cumulative, sent after every batch that held reliable frames and with
  every heartbeat. Sequence comparison is serial-number arithmetic.
* **Duplicate suppression across reconnects.** With the same boot id, the host keeps its own
  expectation when it is ahead of the device's ``oldest_unacked_seq`` (the ACK was lost), so
  a resent frame is recognised as a duplicate. A new boot id resets it.
* **Liveness.** Both sides send HEARTBEAT every ``heartbeat_every`` (1 s); ``dead_after``
  (3 s) without any valid frame makes the link dead (:class:`LinkDead`).
* **Snapshots.** The host queues SNAPSHOT_REQ when a link comes up with a new boot id (the
  first connection included) or after more than 1 s down, and on STATUS TX_QUEUE_OVERFLOW.
* **Overflow** is never silent: :meth:`Session.send` raises QueueOverflowError; a device also sets
  the heartbeat's TX_QUEUE_OVERFLOW bit and sends STATUS TX_QUEUE_OVERFLOW when room returns.
"""

from __future__ import annotations

import logging
import random
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Final, TypeAlias

from firmware_bridge.errors import FrameError, LocalProtocolError, QueueOverflowError
from firmware_bridge.frames import (
    Dropped,
    DropReason,
    Frame,
    FrameDecoder,
    FrameFlags,
    encode_frame,
)
from firmware_bridge.messages import (
    PROTO_MAJOR,
    Ack,
    Caps,
    DeviceKind,
    Heartbeat,
    HeartbeatStatus,
    Hello,
    HelloAck,
    Message,
    Nak,
    Severity,
    SnapshotReq,
    Status,
    StatusCode,
    UnknownMessage,
    decode_message,
    encode_message,
    is_reliable,
)

_LOGGER = logging.getLogger(__name__)

SEQ_MAX: Final = 0xFFFF
_STATUS_RESERVE: Final = 4
"""Room beyond queue_limit kept for the device's own STATUS reports."""
_SEQ_SPACE: Final = SEQ_MAX  # 1..65535


def seq_next(seq: int) -> int:
    """The seq after ``seq`` (65535 wraps to 1; 0 is never used).

    >>> seq_next(65535)
    1
    """
    return seq % SEQ_MAX + 1


def seq_before(a: int, b: int) -> bool:
    """Serial-number ``a < b`` on the 1..65535 circle.

    >>> seq_before(65534, 2), seq_before(2, 65534)
    (True, False)
    """
    d = (b - a) % _SEQ_SPACE
    return 0 < d < _SEQ_SPACE // 2


class Role(StrEnum):
    """Which end of the line a session plays."""

    HOST = "host"
    DEVICE = "device"


class LinkState(StrEnum):
    """Where the session stands."""

    IDLE = "idle"
    """Not started (host) or waiting for a HELLO (device)."""
    CONNECTING = "connecting"
    """Host: HELLO sent, waiting for HELLO_ACK."""
    UP = "up"
    DEAD = "dead"
    """Nothing heard for ``dead_after`` seconds."""
    FAILED = "failed"
    """The peer speaks another major version; nothing more is exchanged."""


@dataclass(frozen=True, slots=True)
class SessionConfig:
    """Timing and sizes of a session (seconds, messages)."""

    window: int = 8
    retransmit_after: float = 0.25
    heartbeat_every: float = 1.0
    dead_after: float = 3.0
    hello_retry: float = 0.5
    hello_attempts: int = 4
    queue_limit: int = 64
    snapshot_after_down: float = 1.0

    def __post_init__(self) -> None:
        if not 1 <= self.window <= 64 or self.queue_limit < self.window:
            raise ValueError("window must be 1..64 and queue_limit at least the window")
        if min(self.retransmit_after, self.heartbeat_every, self.hello_retry) <= 0:
            raise ValueError("intervals must be positive")
        if self.dead_after <= self.heartbeat_every:
            raise ValueError("dead_after must exceed heartbeat_every")


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """What a device says about itself in HELLO_ACK (device role only)."""

    device_kind: DeviceKind
    antenna_count: int
    caps: Caps
    boot_id: int
    hw_id: bytes = b""
    fw_version: str = ""


# ---- events -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LinkUp:
    """Host: the handshake completed.

    Attributes:
        peer: the device's HELLO_ACK.
        new_boot: the boot id differs from the last one this session saw (True on the first
            connection): per-device state is void.
        previous_boot_id: the boot id seen before, None on the first connection.
        snapshot_req_id: the SNAPSHOT_REQ queued with this link-up, or None.
    """

    peer: HelloAck
    new_boot: bool
    previous_boot_id: int | None
    snapshot_req_id: int | None


@dataclass(frozen=True, slots=True)
class HostConnected:
    """Device: a HELLO arrived (the session is up)."""

    hello: Hello


@dataclass(frozen=True, slots=True)
class Received:
    """A reliable message, delivered exactly once and in order."""

    message: Message
    seq: int


@dataclass(frozen=True, slots=True)
class BadPayload:
    """A reliable frame whose payload does not decode: ACKed (so the peer moves on), reported.

    Attributes:
        type: the frame type. seq: its seq. error: what was wrong.
    """

    type: int
    seq: int
    error: str


@dataclass(frozen=True, slots=True)
class LinkDead:
    """Nothing valid was heard for ``silent_for`` seconds."""

    silent_for: float


@dataclass(frozen=True, slots=True)
class HandshakeFailed:
    """Host: no HELLO_ACK after every attempt."""

    attempts: int


@dataclass(frozen=True, slots=True)
class VersionMismatch:
    """The peer speaks another major version; the session is FAILED."""

    peer_major: int


@dataclass(frozen=True, slots=True)
class SnapshotRequested:
    """Host: a SNAPSHOT_REQ was queued by the session itself (overflow reported by the peer)."""

    req_id: int
    reason: str


SessionEvent: TypeAlias = (
    LinkUp | HostConnected | Received | BadPayload | LinkDead | HandshakeFailed
    | VersionMismatch | SnapshotRequested
)


@dataclass(slots=True)
class SessionStats:
    """Counters of one session (mutable; read them, do not write)."""

    frames_in: int = 0
    delivered: int = 0
    duplicates: int = 0
    gaps: int = 0
    retransmitted: int = 0
    overflows: int = 0
    drops: Mapping[DropReason, int] = field(default_factory=dict)


class Session:
    """One end of a protocol v1 link, sans-IO.

    Args:
        role: HOST or DEVICE.
        now: the current monotonic time (seconds); a device's uptime counts from here.
        identity: required for the DEVICE role.
        config: timing and sizes.
        nonce: source of HELLO nonces (host role); defaults to a random u32.

    Raises:
        ValueError: a device without an identity.
    """

    def __init__(self, role: Role, *, now: float, identity: DeviceIdentity | None = None,
                 config: SessionConfig | None = None,
                 nonce: Callable[[], int] | None = None) -> None:
        if role is Role.DEVICE and identity is None:
            raise ValueError("a device session needs a DeviceIdentity")
        self.role = role
        self.config = config or SessionConfig()
        self.identity = identity
        self._nonce_source = nonce or (lambda: random.getrandbits(32) or 1)
        self._decoder = FrameDecoder()
        self._out = bytearray()
        self._ack_due = False   # an ACK is owed; encoded when the bytes are taken
        self._started = now
        self.state = LinkState.IDLE
        # sending
        self._next_seq = 1
        self._unacked: deque[tuple[int, Message]] = deque()
        self._pending: deque[Message] = deque()
        self._retx_deadline: float | None = None
        # receiving
        self._expected = 1
        self._last_delivered = 0
        self._last_nak: tuple[int, float] | None = None
        # liveness
        self._last_rx = now
        self._next_heartbeat = now + self.config.heartbeat_every
        # handshake (host)
        self._nonce = 0
        self._hello_attempts = 0
        self._hello_deadline: float | None = None
        self._peer: HelloAck | None = None
        self._down_since: float | None = now
        # snapshots (host)
        self._req_id = 0
        # overflow (device)
        self._overflowed = False
        self._overflow_status_due = False
        self.stats = SessionStats(drops=self._decoder.drops)

    # ---- public API ----------------------------------------------------------------------

    @property
    def peer(self) -> HelloAck | None:
        """Host: the last HELLO_ACK of the device (None before the first handshake)."""
        return self._peer

    @property
    def queued(self) -> int:
        """Reliable messages not yet acknowledged (in flight plus waiting)."""
        return len(self._unacked) + len(self._pending)

    def uptime_ms(self, now: float) -> int:
        """Milliseconds since this session was created (a device's uptime), as u32."""
        return int((now - self._started) * 1000) & 0xFFFFFFFF

    def connect(self, now: float) -> None:
        """Host: start (or restart) the handshake. Device: announce the boot (unsolicited
        HELLO_ACK) and wait for a HELLO."""
        if self.state is LinkState.FAILED:
            raise LocalProtocolError("session failed on a version mismatch")
        if self.role is Role.HOST:
            if self.state is LinkState.UP:
                self._down_since = now
            self.state = LinkState.CONNECTING
            self._hello_attempts = 0
            self._send_hello(now)
        else:
            self._out += b"\x00"
            self._emit(self._hello_ack(0), now)

    def link_lost(self, now: float) -> None:
        """The transport under the session went away (unplug, closed port): the link is DEAD
        until the next :meth:`connect` (host) or HELLO (device). Queues are kept."""
        if self.state is LinkState.UP:
            self._down_since = now
        if self.state in (LinkState.UP, LinkState.CONNECTING):
            self.state = LinkState.DEAD
            self._retx_deadline = None
            self._hello_deadline = None
        self._ack_due = False     # the peer resends what is unacknowledged after a handshake

    def can_send(self) -> bool:
        """True when :meth:`send` would accept one more message (the queue has room)."""
        return self.queued < self.config.queue_limit

    def send(self, message: Message, now: float) -> None:
        """Queue a reliable message; it goes out when the window and the link allow.

        Raises:
            LocalProtocolError: ``message`` is not of a reliable type.
            QueueOverflowError: ``queue_limit`` messages are already waiting (a device also
                reports it to the host: heartbeat status bit and STATUS TX_QUEUE_OVERFLOW).
        """
        if not is_reliable(message):
            raise LocalProtocolError(f"{type(message).__name__} is not a reliable message")
        if self.queued >= self.config.queue_limit:
            self.stats.overflows += 1
            if self.role is Role.DEVICE:
                self._overflowed = True
                self._overflow_status_due = True
            raise QueueOverflowError(self.config.queue_limit)
        self._pending.append(message)
        self._fill_window(now)

    def request_snapshot(self, now: float) -> int:
        """Host: queue a SNAPSHOT_REQ; returns its ``req_id`` (1..255, cycling).

        Raises:
            QueueOverflowError: the send queue is full.
        """
        self._req_id = self._req_id % 255 + 1
        self.send(SnapshotReq(self._req_id), now)
        return self._req_id

    def receive_data(self, data: bytes, now: float) -> list[SessionEvent]:
        """Feed received bytes; returns the events they caused, in order."""
        events: list[SessionEvent] = []
        saw_reliable = False
        for item in self._decoder.feed(data):
            if isinstance(item, Dropped):
                continue
            self.stats.frames_in += 1
            self._last_rx = now
            if self.state is LinkState.DEAD and self.role is Role.DEVICE:
                # the host is back within its session: resume, resending what is unacked
                self.state = LinkState.UP
                self._next_heartbeat = now
                self._retransmit(now)
            if item.reliable:
                saw_reliable = True
                self._on_reliable(item.type, item.seq, item.payload, now, events)
                continue
            try:
                message = decode_message(item)
            except FrameError as exc:
                _LOGGER.debug("undecodable %#04x frame: %s", item.type, exc)
                continue
            self._on_control(message, now, events)
        if saw_reliable and self.state is LinkState.UP:
            # written by data_to_send(): the frame is built only when it goes out, off the
            # path from a read to its delivery (and one ACK covers several receives)
            self._ack_due = True
        self._fill_window(now)
        return events

    def poll(self, now: float) -> list[SessionEvent]:
        """Run the timers (handshake retry, retransmission, heartbeat, dead link)."""
        events: list[SessionEvent] = []
        if self.state is LinkState.CONNECTING and self._hello_deadline is not None \
                and now >= self._hello_deadline:
            if self._hello_attempts >= self.config.hello_attempts:
                self.state = LinkState.IDLE
                self._hello_deadline = None
                events.append(HandshakeFailed(self._hello_attempts))
            else:
                self._send_hello(now)
        if self.state is LinkState.UP:
            if now - self._last_rx >= self.config.dead_after:
                self.state = LinkState.DEAD
                self._down_since = self._last_rx
                self._retx_deadline = None
                events.append(LinkDead(now - self._last_rx))
                return events
            if self._retx_deadline is not None and now >= self._retx_deadline:
                self._retransmit(now)
            if now >= self._next_heartbeat:
                self._send_heartbeat(now)
        return events

    def next_deadline(self) -> float | None:
        """The earliest time :meth:`poll` has work to do, or None."""
        times: list[float] = []
        if self.state is LinkState.CONNECTING and self._hello_deadline is not None:
            times.append(self._hello_deadline)
        if self.state is LinkState.UP:
            times.append(self._last_rx + self.config.dead_after)
            times.append(self._next_heartbeat)
            if self._retx_deadline is not None:
                times.append(self._retx_deadline)
        return min(times) if times else None

    def data_to_send(self) -> bytes:
        """Take the bytes waiting to be written (empty if none)."""
        if self._ack_due:
            self._ack_due = False
            if self.state is LinkState.UP:
                self._out[:0] = encode_frame(encode_message(Ack(self._last_delivered)))
        data = bytes(self._out)
        self._out.clear()
        return data

    # ---- receiving -----------------------------------------------------------------------

    def _on_reliable(self, ftype: int, seq: int, payload: bytes, now: float,
                     events: list[SessionEvent]) -> None:
        if self.state is not LinkState.UP:
            return  # the peer resends after the handshake; nothing is delivered outside one
        if seq != self._expected:
            if seq_before(seq, self._expected):
                self.stats.duplicates += 1
            else:
                self.stats.gaps += 1
                if self._last_nak is None or self._last_nak[0] != self._expected \
                        or now - self._last_nak[1] >= self.config.retransmit_after:
                    self._last_nak = (self._expected, now)
                    self._emit(Nak(self._expected), now)
            return
        self._last_delivered = seq
        self._expected = seq_next(seq)
        self.stats.delivered += 1
        try:
            message = decode_message(Frame(ftype, seq, payload, FrameFlags.ACK_REQ))
        except FrameError as exc:
            events.append(BadPayload(ftype, seq, str(exc)))
            if self.role is Role.DEVICE:
                self._queue_status(StatusCode.BAD_PAYLOAD, f"type {ftype:#04x}", now)
            return
        if isinstance(message, UnknownMessage) and self.role is Role.DEVICE:
            self._queue_status(StatusCode.UNKNOWN_TYPE, f"type {ftype:#04x}", now)
        events.append(Received(message, seq))
        if self.role is Role.HOST and isinstance(message, Status) \
                and message.code == StatusCode.TX_QUEUE_OVERFLOW:
            req = self._try_snapshot(now)
            if req is not None:
                events.append(SnapshotRequested(req, "device queue overflow"))

    def _on_control(self, message: Message, now: float, events: list[SessionEvent]) -> None:
        match message:
            case Ack(ack_seq=ack):
                self._on_ack(ack, now)
            case Nak(expected_seq=expected):
                if self._unacked and not seq_before(expected, self._unacked[0][0]):
                    self._on_ack(self._prev(expected), now)
                    self._retransmit(now)
            case Hello() if self.role is Role.DEVICE:
                self._on_hello(message, now, events)
            case HelloAck() if self.role is Role.HOST:
                self._on_hello_ack(message, now, events)
            case _:
                pass  # heartbeats only refresh liveness

    def _on_ack(self, ack: int, now: float) -> None:
        if not self._unacked or ack == 0:
            return
        last_sent = self._unacked[-1][0]
        if seq_before(last_sent, ack):
            return  # acknowledges what was never sent: stale, ignore
        progressed = False
        while self._unacked and not seq_before(ack, self._unacked[0][0]):
            self._unacked.popleft()
            progressed = True
        if progressed:
            self._retx_deadline = (now + self.config.retransmit_after) if self._unacked else None
            if self._overflow_status_due and self.queued < self.config.queue_limit:
                self._overflow_status_due = False
                self._queue_status(StatusCode.TX_QUEUE_OVERFLOW, "events lost", now)
            self._fill_window(now)

    def _on_hello(self, hello: Hello, now: float, events: list[SessionEvent]) -> None:
        self._expected = 1
        self._last_delivered = 0
        self._last_nak = None
        self._overflowed = False
        self._out += b"\x00"
        self._emit(self._hello_ack(hello.host_nonce), now)
        if hello.proto_major != PROTO_MAJOR:
            self.state = LinkState.FAILED
            events.append(VersionMismatch(hello.proto_major))
            return
        self.state = LinkState.UP
        self._next_heartbeat = now + self.config.heartbeat_every
        self._retransmit(now)
        events.append(HostConnected(hello))

    def _on_hello_ack(self, ack: HelloAck, now: float, events: list[SessionEvent]) -> None:
        if ack.echo_nonce == 0:
            # unsolicited: the device booted; a boot we do not know means a new handshake
            unknown_boot = self._peer is None or ack.boot_id != self._peer.boot_id
            if unknown_boot and self.state is not LinkState.CONNECTING:
                self.connect(now)
            return
        if self.state is not LinkState.CONNECTING or ack.echo_nonce != self._nonce:
            return
        if ack.proto_major != PROTO_MAJOR:
            self.state = LinkState.FAILED
            events.append(VersionMismatch(ack.proto_major))
            return
        previous = self._peer
        new_boot = previous is None or previous.boot_id != ack.boot_id
        oldest = ack.oldest_unacked_seq or 1
        if new_boot or not seq_before(oldest, self._expected):
            self._expected = oldest
        # else: same boot and we already delivered past ``oldest`` (our ACK was lost)
        self._last_delivered = self._prev(self._expected)
        self._last_nak = None
        self._peer = ack
        self.state = LinkState.UP
        self._hello_deadline = None
        down_for = now - self._down_since if self._down_since is not None else 0.0
        self._down_since = None
        self._next_heartbeat = now
        # our seq restarts at 1 after each HELLO: requeue what was in flight
        self._pending.extendleft(reversed([m for _, m in self._unacked]))
        self._unacked.clear()
        self._retx_deadline = None
        self._next_seq = 1
        req: int | None = None
        if new_boot or down_for > self.config.snapshot_after_down:
            req = self._try_snapshot(now)
        events.append(LinkUp(ack, new_boot, previous.boot_id if previous else None, req))
        self._send_heartbeat(now)

    # ---- sending -------------------------------------------------------------------------

    def _prev(self, seq: int) -> int:
        return 0 if seq == 1 else (seq - 2) % _SEQ_SPACE + 1

    def _try_snapshot(self, now: float) -> int | None:
        try:
            return self.request_snapshot(now)
        except QueueOverflowError:
            _LOGGER.warning("cannot queue a snapshot request: send queue full")
            return None

    def _queue_status(self, code: StatusCode, text: str, now: float) -> None:
        if self.queued >= self.config.queue_limit + _STATUS_RESERVE:
            self.stats.overflows += 1  # a flood of bad frames must not grow the queue
            return
        status = Status(Severity.ERROR if code == StatusCode.TX_QUEUE_OVERFLOW else Severity.WARN,
                        code, self.uptime_ms(now), text=text)
        self._pending.append(status)  # may exceed queue_limit by _STATUS_RESERVE reports
        self._fill_window(now)

    def _fill_window(self, now: float) -> None:
        if self.state is not LinkState.UP:
            return
        while self._pending and len(self._unacked) < self.config.window:
            message = self._pending.popleft()
            seq = self._next_seq
            self._next_seq = seq_next(seq)
            self._unacked.append((seq, message))
            self._emit(message, now, seq)
            if self._retx_deadline is None:
                self._retx_deadline = now + self.config.retransmit_after

    def _retransmit(self, now: float) -> None:
        for seq, message in self._unacked:
            self._emit(message, now, seq, retx=True)
            self.stats.retransmitted += 1
        self._retx_deadline = (now + self.config.retransmit_after) if self._unacked else None

    def _send_hello(self, now: float) -> None:
        self._nonce = self._nonce_source() & 0xFFFFFFFF or 1
        self._hello_attempts += 1
        self._hello_deadline = now + self.config.hello_retry
        self._out += b"\x00"
        self._emit(Hello(self._nonce), now)

    def _send_heartbeat(self, now: float) -> None:
        self._next_heartbeat = now + self.config.heartbeat_every
        if self.role is Role.HOST:
            self._emit(Heartbeat(), now)
        else:
            status = HeartbeatStatus.TX_QUEUE_OVERFLOW if self._overflowed \
                else HeartbeatStatus(0)
            self._emit(Heartbeat(self.uptime_ms(now), status, self.queued), now)
        self._emit(Ack(self._last_delivered), now)

    def _hello_ack(self, nonce: int) -> HelloAck:
        ident = self.identity
        assert ident is not None
        oldest = self._unacked[0][0] if self._unacked else self._next_seq
        return HelloAck(echo_nonce=nonce, boot_id=ident.boot_id, oldest_unacked_seq=oldest,
                        uptime_ms=0, device_kind=ident.device_kind,
                        antenna_count=ident.antenna_count, caps=ident.caps, hw_id=ident.hw_id,
                        fw_version=ident.fw_version)

    def _emit(self, message: Message, now: float, seq: int = 0, *, retx: bool = False) -> None:
        if isinstance(message, HelloAck):
            message = _with_uptime(message, self.uptime_ms(now))
        self._out += encode_frame(encode_message(message, seq, retx=retx))


def _with_uptime(ack: HelloAck, uptime_ms: int) -> HelloAck:
    return replace(ack, uptime_ms=uptime_ms)
