"""The two roles of a protocol v1 link, as strategies of a :class:`~firmware_bridge.session.
Session`: what the host and a device do differently (docs/protocol.md, "Link rules").

* :class:`HostHandshake` sends ``00`` + HELLO, retries every ``hello_retry`` seconds
  (``hello_attempts`` in all), takes the HELLO_ACK echoing its nonce, keeps the device's boot
  id across reconnects (a boot it does not know restarts the handshake) and queues the
  SNAPSHOT_REQs a new boot, a long outage or a device's queue overflow call for.
* :class:`DeviceHandshake` announces its boot (an unsolicited HELLO_ACK), answers every HELLO
  (restarting its expectation of host frames at seq 1 and resending what is unacknowledged),
  resumes when the host is heard again, and reports its own trouble as STATUS (queue
  overflow, bad payloads, unknown types, configuration values out of range) and in its
  heartbeat.

Neither assigns the session's state: each fires a
:class:`~firmware_bridge.transitions.Trigger` and the session moves along the table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from firmware_bridge.messages import (
    PROTO_MAJOR,
    Heartbeat,
    HeartbeatStatus,
    Hello,
    HelloAck,
    Message,
    SetConfig,
    Severity,
    Status,
    StatusCode,
    UnknownMessage,
)
from firmware_bridge.seq import seq_before
from firmware_bridge.session_config import DeviceIdentity, SessionConfig
from firmware_bridge.session_events import (
    HandshakeFailed,
    HostConnected,
    LinkUp,
    SessionEvent,
    SnapshotRequested,
    VersionMismatch,
)
from firmware_bridge.transitions import LinkState, Trigger


class Endpoint(Protocol):
    """The parts of a session a handshake drives (a :class:`~firmware_bridge.session.
    Session` is one)."""

    config: SessionConfig
    _expected: int

    @property
    def state(self) -> LinkState: ...

    @property
    def queued(self) -> int: ...

    def uptime_ms(self, now: float) -> int: ...

    def connect(self, now: float) -> None: ...

    def _fire(self, trigger: Trigger) -> bool: ...

    def _fire_or_refuse(self, trigger: Trigger) -> None: ...

    def _try_snapshot(self, now: float) -> int | None: ...

    def _restart_receiving(self, expected: int) -> None: ...

    def _restart_sending(self) -> None: ...

    def _resend(self, now: float, *, heartbeat_at: float) -> None: ...

    def _send_heartbeat(self, now: float) -> None: ...

    def _send_handshake(self, message: Hello | HelloAck, now: float) -> None: ...

    def _queue_report(self, status: Status, now: float) -> None: ...

    def _oldest_unacked(self) -> int: ...


class Handshake:
    """What one role does differently; the base does nothing (hooks called by the session).

    Attributes:
        peer: the peer's last HELLO_ACK (host role), else None.
    """

    peer: HelloAck | None = None

    def __init__(self, session: Endpoint) -> None:
        self._s = session

    def connect(self, now: float) -> None:
        """:meth:`~firmware_bridge.session.Session.connect`."""

    def handshake(self, message: Hello | HelloAck, now: float,
                  events: list[SessionEvent]) -> None:
        """A HELLO or HELLO_ACK arrived."""

    def heard(self, now: float) -> None:
        """A valid frame arrived."""

    def poll(self, now: float, events: list[SessionEvent]) -> None:
        """Run the handshake's timer."""

    def deadline(self) -> float | None:
        """When :meth:`poll` has work to do, or None."""
        return None

    def went_down(self, since: float | None) -> None:
        """The link left UP at ``since`` or, with None, a handshake in progress was dropped."""

    def queue_full(self) -> None:
        """:meth:`~firmware_bridge.session.Session.send` refused a message."""

    def acked(self, now: float) -> None:
        """The peer acknowledged something: the send queue may have room again."""

    def delivered(self, message: Message, ftype: int, now: float,
                  events: list[SessionEvent]) -> None:
        """A reliable message was delivered (``events`` already holds its Received)."""

    def bad_payload(self, ftype: int, now: float) -> None:
        """A reliable frame in sequence did not decode."""

    def heartbeat(self, now: float) -> Heartbeat:
        """The heartbeat this role sends."""
        return Heartbeat()


class HostHandshake(Handshake):
    """The host's side (see the module docstring).

    Args:
        session: the session it drives.
        nonce: source of HELLO nonces.
        now: when the session was created (it counts as down since then).
    """

    def __init__(self, session: Endpoint, nonce: Callable[[], int], now: float) -> None:
        super().__init__(session)
        self._nonce_source = nonce
        self._nonce = 0
        self._attempts = 0
        self._deadline: float | None = None
        self._down_since: float | None = now

    def connect(self, now: float) -> None:
        s = self._s
        was_up = s.state is LinkState.UP
        s._fire_or_refuse(Trigger.CONNECT)
        if was_up:
            self._down_since = now
        self._attempts = 0
        self._send_hello(now)

    def poll(self, now: float, events: list[SessionEvent]) -> None:
        s = self._s
        if s.state is LinkState.CONNECTING and self._deadline is not None \
                and now >= self._deadline:
            if self._attempts >= s.config.hello_attempts:
                s._fire(Trigger.GAVE_UP)
                self._deadline = None
                events.append(HandshakeFailed(self._attempts))
            else:
                self._send_hello(now)

    def deadline(self) -> float | None:
        return self._deadline if self._s.state is LinkState.CONNECTING else None

    def went_down(self, since: float | None) -> None:
        if since is not None:
            self._down_since = since
        self._deadline = None

    def delivered(self, message: Message, ftype: int, now: float,
                  events: list[SessionEvent]) -> None:
        if isinstance(message, Status) and message.code == StatusCode.TX_QUEUE_OVERFLOW:
            req = self._s._try_snapshot(now)
            if req is not None:
                events.append(SnapshotRequested(req, "device queue overflow"))

    def handshake(self, message: Hello | HelloAck, now: float,
                  events: list[SessionEvent]) -> None:
        if not isinstance(message, HelloAck):
            return
        s, ack = self._s, message
        if ack.echo_nonce == 0:
            # unsolicited: the device booted; a boot we do not know means a new handshake
            unknown_boot = self.peer is None or ack.boot_id != self.peer.boot_id
            # (a FAILED session does not: its owner closes it and asks again later, with a
            # new session; connecting here raised out of receive_data, found by fuzzing)
            if unknown_boot and s.state not in (LinkState.CONNECTING, LinkState.FAILED):
                s.connect(now)
            return
        if ack.echo_nonce != self._nonce:
            return
        same_major = ack.proto_major == PROTO_MAJOR
        if not s._fire(Trigger.HELLO_ACK_OK if same_major else Trigger.HELLO_ACK_BAD):
            return  # not waiting for a HELLO_ACK
        if not same_major:
            events.append(VersionMismatch(ack.proto_major))
            return
        previous = self.peer
        new_boot = previous is None or previous.boot_id != ack.boot_id
        oldest = ack.oldest_unacked_seq or 1
        # same boot and we already delivered past ``oldest``: our ACK was lost, keep ours
        keep = not new_boot and seq_before(oldest, s._expected)
        s._restart_receiving(s._expected if keep else oldest)
        self.peer = ack
        self._deadline = None
        down_for = now - self._down_since if self._down_since is not None else 0.0
        self._down_since = None
        s._restart_sending()    # our seq restarts at 1 after each HELLO
        req: int | None = None
        if new_boot or down_for > s.config.snapshot_after_down:
            req = s._try_snapshot(now)
        events.append(LinkUp(ack, new_boot, previous.boot_id if previous else None, req))
        s._send_heartbeat(now)

    def _send_hello(self, now: float) -> None:
        self._nonce = self._nonce_source() & 0xFFFFFFFF or 1
        self._attempts += 1
        self._deadline = now + self._s.config.hello_retry
        self._s._send_handshake(Hello(self._nonce), now)


class DeviceHandshake(Handshake):
    """A device's side (see the module docstring).

    Args:
        session: the session it drives.
        identity: what the device says about itself in HELLO_ACK.
    """

    def __init__(self, session: Endpoint, identity: DeviceIdentity) -> None:
        super().__init__(session)
        self._identity = identity
        self._overflowed = False
        self._overflow_status_due = False

    def connect(self, now: float) -> None:
        self._s._fire_or_refuse(Trigger.ANNOUNCE)
        self._s._send_handshake(self._hello_ack(0), now)

    def heard(self, now: float) -> None:
        if self._s._fire(Trigger.RESUMED):
            # the host is back within its session: resume, resending what is unacked
            self._s._resend(now, heartbeat_at=now)

    def queue_full(self) -> None:
        self._overflowed = True
        self._overflow_status_due = True

    def acked(self, now: float) -> None:
        if self._overflow_status_due and self._s.queued < self._s.config.queue_limit:
            self._overflow_status_due = False
            self._report(StatusCode.TX_QUEUE_OVERFLOW, "events lost", now)

    def delivered(self, message: Message, ftype: int, now: float,
                  events: list[SessionEvent]) -> None:
        if isinstance(message, UnknownMessage):
            self._report(StatusCode.UNKNOWN_TYPE, f"type {ftype:#04x}", now)
        elif isinstance(message, SetConfig) and not message.in_range:
            self._report(StatusCode.CONFIG_REJECTED,
                         f"config key {int(message.key)} value {message.value}", now)

    def bad_payload(self, ftype: int, now: float) -> None:
        self._report(StatusCode.BAD_PAYLOAD, f"type {ftype:#04x}", now)

    def heartbeat(self, now: float) -> Heartbeat:
        status = HeartbeatStatus.TX_QUEUE_OVERFLOW if self._overflowed else HeartbeatStatus(0)
        return Heartbeat(self._s.uptime_ms(now), status, self._s.queued)

    def handshake(self, message: Hello | HelloAck, now: float,
                  events: list[SessionEvent]) -> None:
        if not isinstance(message, Hello):
            return
        s, hello = self._s, message
        s._restart_receiving(1)
        self._overflowed = False
        s._send_handshake(self._hello_ack(hello.host_nonce), now)
        if hello.proto_major != self._identity.proto_major:
            s._fire(Trigger.HELLO_BAD)
            events.append(VersionMismatch(hello.proto_major))
            return
        s._fire(Trigger.HELLO_OK)
        s._resend(now, heartbeat_at=now + s.config.heartbeat_every)
        events.append(HostConnected(hello))

    def _report(self, code: StatusCode, text: str, now: float) -> None:
        severity = Severity.ERROR if code == StatusCode.TX_QUEUE_OVERFLOW else Severity.WARN
        self._s._queue_report(Status(severity, code, self._s.uptime_ms(now), text=text), now)

    def _hello_ack(self, nonce: int) -> HelloAck:
        ident = self._identity
        return HelloAck(echo_nonce=nonce, boot_id=ident.boot_id,
                        oldest_unacked_seq=self._s._oldest_unacked(), uptime_ms=0,
                        device_kind=ident.device_kind, antenna_count=ident.antenna_count,
                        caps=ident.caps, hw_id=ident.hw_id, fw_version=ident.fw_version,
                        proto_major=ident.proto_major)
