"""Sans-IO session of protocol v1, for both roles: the host (table computer) and a device.

No port, socket, clock or event loop in here: the caller passes ``now`` (monotonic seconds)
into every call, feeds received bytes to :meth:`Session.receive_data`, calls
:meth:`Session.poll` at :meth:`Session.next_deadline`, and writes out
:meth:`Session.data_to_send`. The state moves only along the table of
:mod:`firmware_bridge.transitions`; what the host and a device do differently are the
strategies of :mod:`firmware_bridge.handshake`. Link rules
(docs/protocol.md, "Link rules"):

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
  (3 s) without any valid frame makes the link dead
  (:class:`~firmware_bridge.session_events.LinkDead`).
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
from typing import Final

from firmware_bridge.errors import FrameError, LocalProtocolError, QueueOverflowError
from firmware_bridge.frames import (
    Dropped,
    DropReason,
    Frame,
    FrameDecoder,
    FrameFlags,
    encode_frame,
)
from firmware_bridge.handshake import DeviceHandshake, Handshake, HostHandshake
from firmware_bridge.messages import (
    Ack,
    Hello,
    HelloAck,
    Message,
    Nak,
    SnapshotReq,
    Status,
    decode_message,
    encode_message,
    is_reliable,
)
from firmware_bridge.seq import seq_before, seq_next, seq_prev
from firmware_bridge.session_config import DeviceIdentity, LinkEnd, SessionConfig
from firmware_bridge.session_events import (
    BadPayload,
    LinkDead,
    Received,
    SessionEvent,
)
from firmware_bridge.transitions import LinkState, Trigger, next_state

_LOGGER = logging.getLogger(__name__)

_STATUS_RESERVE: Final = 4
"""Room beyond queue_limit kept for a device's own STATUS reports."""


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

    The state is read-only: every change goes through :data:`~firmware_bridge.transitions.
    TRANSITIONS`. What differs between the roles (the handshake, the heartbeat, what a device
    reports about itself) lives in the session's
    :class:`~firmware_bridge.handshake.Handshake` strategy.

    Args:
        role: HOST or DEVICE.
        now: the current monotonic time (seconds); a device's uptime counts from here.
        identity: required for the DEVICE role.
        config: timing and sizes.
        nonce: source of HELLO nonces (host role); defaults to a random u32.

    Raises:
        ValueError: a device without an identity.
    """

    def __init__(self, role: LinkEnd, *, now: float, identity: DeviceIdentity | None = None,
                 config: SessionConfig | None = None,
                 nonce: Callable[[], int] | None = None) -> None:
        self.role = role
        self.config = config or SessionConfig()
        self.identity = identity
        self._handshake: Handshake
        if role is LinkEnd.DEVICE:
            if identity is None:
                raise ValueError("a device session needs a DeviceIdentity")
            self._handshake = DeviceHandshake(self, identity)
        else:
            self._handshake = HostHandshake(
                self, nonce or (lambda: random.getrandbits(32) or 1), now)
        self._decoder = FrameDecoder()
        self._out = bytearray()
        self._ack_due = False   # an ACK is owed; encoded when the bytes are taken
        self._started = now
        self._state = LinkState.IDLE
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
        # snapshots (host)
        self._req_id = 0
        self.stats = SessionStats(drops=self._decoder.drops)

    # ---- public API ----------------------------------------------------------------------

    @property
    def state(self) -> LinkState:
        """Where the link stands (moved only along the transition table)."""
        return self._state

    @property
    def peer(self) -> HelloAck | None:
        """Host: the last HELLO_ACK of the device (None before the first handshake)."""
        return self._handshake.peer

    @property
    def queued(self) -> int:
        """Reliable messages not yet acknowledged (in flight plus waiting)."""
        return len(self._unacked) + len(self._pending)

    def uptime_ms(self, now: float) -> int:
        """Milliseconds since this session was created (a device's uptime), as u32."""
        return int((now - self._started) * 1000) & 0xFFFFFFFF

    def connect(self, now: float) -> None:
        """Host: start (or restart) the handshake. Device: announce the boot (unsolicited
        HELLO_ACK) and wait for a HELLO.

        Raises:
            LocalProtocolError: the session failed on a version mismatch.
        """
        self._handshake.connect(now)

    def link_lost(self, now: float) -> None:
        """The transport under the session went away (unplug, closed port): the link is DEAD
        until the next :meth:`connect` (host) or HELLO (device). Queues are kept."""
        was_up = self._state is LinkState.UP
        if self._fire(Trigger.LOST):
            self._retx_deadline = None
            self._handshake.went_down(now if was_up else None)
        self._ack_due = False     # the peer resends what is unacknowledged after a handshake

    def rewind(self, seq: int) -> None:
        """Host: the consumer did not keep the message of ``seq`` (nor any after it): expect
        it again, and acknowledge only what came before it. Call before the link is closed
        without writing the ACK owed; the device resends from ``seq`` after the next HELLO.
        Nothing changes when ``seq`` is not one of the messages delivered since the last
        acknowledgement could have gone out (then it is too late to take back)."""
        if seq == 0 or not seq_before(seq, self._expected):
            return
        self._restart_receiving(seq)
        self._ack_due = False

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
            self._handshake.queue_full()
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
            self._handshake.heard(now)
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
        if saw_reliable and self._state is LinkState.UP:
            # written by data_to_send(): the frame is built only when it goes out, off the
            # path from a read to its delivery (and one ACK covers several receives)
            self._ack_due = True
        self._fill_window(now)
        return events

    def poll(self, now: float) -> list[SessionEvent]:
        """Run the timers (handshake retry, retransmission, heartbeat, dead link)."""
        events: list[SessionEvent] = []
        self._handshake.poll(now, events)
        if self._state is LinkState.UP:
            if now - self._last_rx >= self.config.dead_after:
                self._fire(Trigger.SILENT)
                self._handshake.went_down(self._last_rx)
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
        handshake = self._handshake.deadline()
        if handshake is not None:
            times.append(handshake)
        if self._state is LinkState.UP:
            times.append(self._last_rx + self.config.dead_after)
            times.append(self._next_heartbeat)
            if self._retx_deadline is not None:
                times.append(self._retx_deadline)
        return min(times) if times else None

    def data_to_send(self) -> bytes:
        """Take the bytes waiting to be written (empty if none)."""
        if self._ack_due:
            self._ack_due = False
            if self._state is LinkState.UP:
                self._out[:0] = encode_frame(encode_message(Ack(self._last_delivered)))
        data = bytes(self._out)
        self._out.clear()
        return data

    # ---- state ---------------------------------------------------------------------------

    def _fire(self, trigger: Trigger) -> bool:
        """Move along the table; False (and no change) when ``trigger`` is not a move here."""
        new = next_state(self._state, trigger)
        if new is None:
            return False
        self._state = new
        return True

    def _fire_or_refuse(self, trigger: Trigger) -> None:
        if not self._fire(trigger):
            if self._state is LinkState.FAILED:
                raise LocalProtocolError("session failed on a version mismatch")
            raise LocalProtocolError(f"{trigger} is not a move while {self._state}")

    # ---- receiving -----------------------------------------------------------------------

    def _on_reliable(self, ftype: int, seq: int, payload: bytes, now: float,
                     events: list[SessionEvent]) -> None:
        if self._state is not LinkState.UP:
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
            self._handshake.bad_payload(ftype, now)
            return
        events.append(Received(message, seq))
        self._handshake.delivered(message, ftype, now, events)

    def _on_control(self, message: Message, now: float, events: list[SessionEvent]) -> None:
        match message:
            case Ack(ack_seq=ack):
                self._on_ack(ack, now)
            case Nak(expected_seq=expected):
                if self._unacked and not seq_before(expected, self._unacked[0][0]):
                    self._on_ack(seq_prev(expected), now)
                    self._retransmit(now)
            case Hello() | HelloAck():
                self._handshake.handshake(message, now, events)
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
            self._handshake.acked(now)
            self._fill_window(now)

    def _restart_receiving(self, expected: int) -> None:
        """Expect ``expected`` next (after a handshake); nothing beyond it is delivered yet."""
        self._expected = expected
        self._last_delivered = seq_prev(expected)
        self._last_nak = None

    # ---- sending -------------------------------------------------------------------------

    def _restart_sending(self) -> None:
        """Our seq restarts at 1 after each HELLO: requeue what was in flight."""
        self._pending.extendleft(reversed([m for _, m in self._unacked]))
        self._unacked.clear()
        self._retx_deadline = None
        self._next_seq = 1

    def _try_snapshot(self, now: float) -> int | None:
        try:
            return self.request_snapshot(now)
        except QueueOverflowError:
            _LOGGER.warning("cannot queue a snapshot request: send queue full")
            return None

    def _fill_window(self, now: float) -> None:
        if self._state is not LinkState.UP:
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

    def _send_heartbeat(self, now: float) -> None:
        self._next_heartbeat = now + self.config.heartbeat_every
        self._emit(self._handshake.heartbeat(now), now)
        self._emit(Ack(self._last_delivered), now)

    def _send_handshake(self, message: Hello | HelloAck, now: float) -> None:
        """HELLO or HELLO_ACK, after a lone 0x00 that ends whatever the peer half-received."""
        self._out += b"\x00"
        self._emit(message, now)

    def _resend(self, now: float, *, heartbeat_at: float) -> None:
        """A device's link (back) up: resend what is unacknowledged, next heartbeat then."""
        self._next_heartbeat = heartbeat_at
        self._retransmit(now)

    def _queue_report(self, status: Status, now: float) -> None:
        """Queue a device's own STATUS, even when the queue is full (within a reserve)."""
        if self.queued >= self.config.queue_limit + _STATUS_RESERVE:
            self.stats.overflows += 1  # a flood of bad frames must not grow the queue
            return
        self._pending.append(status)  # may exceed queue_limit by _STATUS_RESERVE reports
        self._fill_window(now)

    def _oldest_unacked(self) -> int:
        """The oldest seq the peer has not acknowledged (the next one when none is out)."""
        return self._unacked[0][0] if self._unacked else self._next_seq

    def _emit(self, message: Message, now: float, seq: int = 0, *, retx: bool = False) -> None:
        if isinstance(message, HelloAck):
            message = replace(message, uptime_ms=self.uptime_ms(now))
        self._out += encode_frame(encode_message(message, seq, retx=retx))
