"""The sans-IO session, host and device roles, over a simulated line (no sleeps, no I/O).

The line is a discrete-event model: each frame written by one side arrives at the other
after a delay, and may be lost, duplicated or delayed past later frames (reordering), all from
a seeded random generator so every failure replays.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.errors import QueueOverflowError
from firmware_bridge.frames import FrameDecoder, FrameFlags, encode_frame
from firmware_bridge.messages import (
    CONFIG_RANGES,
    Ack,
    Button,
    ButtonAction,
    Caps,
    ConfigKey,
    DeviceKind,
    Frame,
    Hello,
    HelloAck,
    SetConfig,
    SnapshotReq,
    Status,
    StatusCode,
    TagSeen,
    Tech,
    UnknownMessage,
    encode_message,
)
from firmware_bridge.seq import seq_before, seq_next
from firmware_bridge.session import Session
from firmware_bridge.session_config import DeviceIdentity, LinkEnd, SessionConfig
from firmware_bridge.session_events import (
    BadPayload,
    HandshakeFailed,
    HostConnected,
    LinkDead,
    LinkUp,
    Received,
    SessionEvent,
    SnapshotRequested,
    VersionMismatch,
)
from firmware_bridge.transitions import LinkState


def identity(boot_id: int = 0xB001) -> DeviceIdentity:
    return DeviceIdentity(DeviceKind.TABLE, 4, Caps.TAG_GONE, boot_id, b"\x01\x02", "test-1")


def tag(i: int) -> TagSeen:
    return TagSeen(i % 4, Tech.ISO14443A, i, i % 65536, 0, i.to_bytes(7, "big"))


@dataclass
class Line:
    """Two sessions joined by a lossy, duplicating, reordering line."""

    host: Session
    device: Session
    rng: random.Random
    loss: float = 0.0
    dup: float = 0.0
    max_delay: float = 0.002
    min_delay: float = 0.0005
    now: float = 0.0
    host_events: list[SessionEvent] = field(default_factory=list)
    device_events: list[SessionEvent] = field(default_factory=list)
    _queue: list[tuple[float, int, str, bytes]] = field(default_factory=list)
    _n: int = 0
    wire_to_host: list[bytes] = field(default_factory=list)

    def _carry(self, to: str, data: bytes) -> None:
        for chunk in data.split(b"\x00"):
            if not chunk:
                continue
            frame = chunk + b"\x00"
            copies = 0 if self.rng.random() < self.loss else 1
            if copies and self.rng.random() < self.dup:
                copies = 2
            for _ in range(copies):
                self._n += 1
                at = self.now + self.rng.uniform(self.min_delay, self.max_delay)
                heapq.heappush(self._queue, (at, self._n, to, frame))

    def flush(self) -> None:
        out = self.host.data_to_send()
        if out:
            self._carry("device", out)
        out = self.device.data_to_send()
        if out:
            self.wire_to_host.append(out)
            self._carry("host", out)

    def run_until(self, t: float, step: float = 0.01) -> None:
        """Advance time to ``t``: deliver frames and run both sessions' timers."""
        while True:
            self.flush()
            deadlines = [d for d in (self.host.next_deadline(), self.device.next_deadline())
                         if d is not None]
            nxt = min([t, self.now + step, *deadlines])
            if self._queue and self._queue[0][0] <= nxt:
                at, _, to, data = heapq.heappop(self._queue)
                self.now = max(self.now, at)
                if to == "host":
                    self.host_events += self.host.receive_data(data, self.now)
                else:
                    self.device_events += self.device.receive_data(data, self.now)
                continue
            self.now = max(self.now, nxt)
            self.host_events += self.host.poll(self.now)
            self.device_events += self.device.poll(self.now)
            self.flush()
            if self.now >= t and not (self._queue and self._queue[0][0] <= t):
                return


def pair(seed: int = 0, config: SessionConfig | None = None, **kw: float) -> Line:
    nonces = random.Random(seed)
    host = Session(LinkEnd.HOST, now=0.0, config=config, nonce=lambda: nonces.getrandbits(32))
    device = Session(LinkEnd.DEVICE, now=0.0, identity=identity(), config=config)
    return Line(host, device, random.Random(seed), **kw)


def received(events: list[SessionEvent]) -> list[object]:
    return [e.message for e in events if isinstance(e, Received)]


def test_seq_arithmetic_wraps_past_zero() -> None:
    assert seq_next(65535) == 1
    assert seq_before(65535, 1)
    assert not seq_before(1, 65535)
    assert not seq_before(5, 5)


def test_first_handshake_is_a_new_boot_and_requests_a_snapshot() -> None:
    line = pair()
    line.device.connect(0.0)
    line.host.connect(0.0)
    line.run_until(0.1)
    ups = [e for e in line.host_events if isinstance(e, LinkUp)]
    assert len(ups) == 1
    assert ups[0].new_boot and ups[0].previous_boot_id is None
    assert ups[0].peer.boot_id == 0xB001 and ups[0].peer.fw_version == "test-1"
    assert line.host.state is LinkState.UP and line.device.state is LinkState.UP
    assert any(isinstance(e, HostConnected) for e in line.device_events)
    assert received(line.device_events) == [SnapshotReq(ups[0].snapshot_req_id or -1)]


def test_events_flow_in_order_with_a_window_of_eight() -> None:
    line = pair()
    line.host.connect(0.0)
    line.run_until(0.1)
    # freeze the host: record what the device puts on the wire without any ACK
    sent = [tag(i) for i in range(20)]
    for m in sent:
        line.device.send(m, line.now)
    wire = line.device.data_to_send()
    frames = [f for f in FrameDecoder().feed(wire) if isinstance(f, Frame)]
    assert [f.seq for f in frames] == list(range(1, 9))
    line.host_events += line.host.receive_data(wire, line.now)
    line.run_until(1.0)
    assert received(line.host_events) == sent
    assert line.device.queued == 0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), loss=st.floats(0, 0.3), dup=st.floats(0, 0.2),
       count=st.integers(1, 80))
def test_lossy_line_delivers_every_event_exactly_once_in_order(
        seed: int, loss: float, dup: float, count: int) -> None:
    line = pair(seed, loss=loss, dup=dup, max_delay=0.03)
    line.device.connect(0.0)
    line.host.connect(0.0)
    sent = [tag(i) if i % 3 else Button(0, i % 9, ButtonAction.PRESS, i) for i in range(count)]
    todo = list(sent)
    t = 0.0
    while t < 600 and len(received(line.host_events)) < count:
        while todo and line.device.can_send():
            line.device.send(todo.pop(0), line.now)
        t += 0.05
        line.run_until(t)
        for e in line.host_events[-10:]:
            if isinstance(e, LinkDead | HandshakeFailed) and line.host.state is not \
                    LinkState.CONNECTING:
                line.host.connect(line.now)
    line.host_events = [e for e in line.host_events if not isinstance(e, LinkUp)]
    assert received(line.host_events) == sent


def test_reboot_shows_as_a_new_boot_id_and_a_snapshot() -> None:
    line = pair()
    line.device.connect(0.0)
    line.host.connect(0.0)
    line.run_until(0.2)
    for i in range(3):
        line.device.send(tag(i), line.now)
    line.run_until(0.5)
    # power cut: a new device session with another boot id; unacked events are gone
    line.device.send(tag(99), line.now)
    line.device = Session(LinkEnd.DEVICE, now=line.now, identity=identity(0xB002))
    line.device.connect(line.now)
    line.run_until(1.0)
    ups = [e for e in line.host_events if isinstance(e, LinkUp)]
    assert [u.new_boot for u in ups] == [True, True]
    assert ups[1].previous_boot_id == 0xB001 and ups[1].peer.boot_id == 0xB002
    assert ups[1].snapshot_req_id is not None
    assert received(line.device_events) == [SnapshotReq(1), SnapshotReq(ups[1].snapshot_req_id)]
    assert received(line.host_events) == [tag(0), tag(1), tag(2)]


def test_same_boot_reconnect_after_a_lost_ack_delivers_no_duplicate() -> None:
    line = pair(min_delay=0.001, max_delay=0.001)   # in order, so the resend meets the host
    line.host.connect(0.0)
    line.run_until(0.2)
    line.device.send(tag(1), line.now)
    wire = line.device.data_to_send()
    line.host_events += line.host.receive_data(wire, line.now)
    line.host.data_to_send()           # the host's ACK is lost on the way
    line.host.connect(line.now)        # and the host reconnects (say, after an unplug)
    line.run_until(0.6)
    assert received(line.host_events) == [tag(1)]
    assert line.host.stats.duplicates >= 1
    assert line.device.queued == 0
    ups = [e for e in line.host_events if isinstance(e, LinkUp)]
    assert ups[-1].new_boot is False and ups[-1].snapshot_req_id is None


def test_heartbeats_keep_the_link_and_silence_kills_it() -> None:
    line = pair()
    line.host.connect(0.0)
    line.run_until(10.01)              # heartbeats went both ways at ~10.0
    assert line.host.state is LinkState.UP and line.device.state is LinkState.UP
    assert not [e for e in line.host_events if isinstance(e, LinkDead)]
    line.loss = 1.0                    # the cable is cut
    line.run_until(12.9)
    assert line.host.state is LinkState.UP
    line.run_until(13.1)
    dead = [e for e in line.host_events if isinstance(e, LinkDead)]
    assert len(dead) == 1 and dead[0].silent_for >= 3.0
    assert line.device.state is LinkState.DEAD


def test_handshake_fails_after_four_attempts() -> None:
    line = pair(loss=1.0)
    line.host.connect(0.0)
    line.run_until(1.49)
    assert not line.host_events
    line.run_until(2.1)
    assert line.host_events == [HandshakeFailed(4)]
    assert line.host.state is LinkState.IDLE


def test_overflow_is_refused_loudly_and_reported_to_the_host() -> None:
    config = SessionConfig(queue_limit=10)
    line = pair(config=config)
    line.host.connect(0.0)
    line.run_until(0.2)
    line.loss = 1.0                    # host away: the device queues
    for i in range(10):
        line.device.send(tag(i), line.now)
    try:
        line.device.send(tag(10), line.now)
    except QueueOverflowError as exc:
        assert exc.limit == 10
    else:
        raise AssertionError("overflow was silent")
    line.loss = 0.0
    line.run_until(1.0)
    got = received(line.host_events)
    assert got[:10] == [tag(i) for i in range(10)]
    assert [m.code for m in got[10:] if isinstance(m, Status)] == [StatusCode.TX_QUEUE_OVERFLOW]
    asked = [e for e in line.host_events if isinstance(e, SnapshotRequested)]
    assert len(asked) == 1
    assert SnapshotReq(asked[0].req_id) in received(line.device_events)


def test_unknown_and_bad_reliable_frames_are_acked_and_reported() -> None:
    line = pair()
    line.host.connect(0.0)
    line.run_until(0.2)
    # frames from a newer device: an unknown type and a short BUTTON payload
    raw = (encode_frame(Frame(0x90, 1, b"\x01", FrameFlags.ACK_REQ))
           + encode_frame(Frame(0x20, 2, b"\x00", FrameFlags.ACK_REQ)))
    events = line.host.receive_data(raw, line.now)
    assert events[0] == Received(UnknownMessage(0x90, b"\x01"), 1)
    assert isinstance(events[1], BadPayload) and events[1].seq == 2
    acks = [f for f in FrameDecoder().feed(line.host.data_to_send()) if isinstance(f, Frame)]
    assert Ack(2).payload() in [f.payload for f in acks if f.type == 0x04]


def test_another_major_version_fails_the_session() -> None:
    host = Session(LinkEnd.HOST, now=0.0, nonce=lambda: 77)
    host.connect(0.0)
    host.data_to_send()
    ack = HelloAck(77, 1, 1, 0, DeviceKind.SHOE, 1, Caps(0), b"", "x", proto_major=2)
    events = host.receive_data(encode_frame(encode_message(ack)), 0.01)
    assert events == [VersionMismatch(2)]
    assert host.state is LinkState.FAILED
    device = Session(LinkEnd.DEVICE, now=0.0, identity=identity())
    events = device.receive_data(encode_frame(encode_message(Hello(5, proto_major=3))), 0.0)
    assert events == [VersionMismatch(3)] and device.state is LinkState.FAILED


any_frame = st.builds(
    lambda t, seq, payload, rel: Frame(t, seq if rel else 0, payload,
                                       FrameFlags.ACK_REQ if rel else FrameFlags(0)),
    st.sampled_from([0x01, 0x02, 0x03, 0x04, 0x05, 0x10, 0x11, 0x12, 0x13, 0x14, 0x20, 0x30,
                     0x40, 0x41, 0x42, 0x43, 0x44, 0x90]),
    st.integers(1, 0xFFFF), st.binary(max_size=40), st.booleans())


@settings(max_examples=150, deadline=None)
@given(role=st.sampled_from(LinkEnd), connect=st.booleans(),
       steps=st.lists(st.tuples(st.lists(any_frame, max_size=30), st.floats(0, 2)), max_size=12))
def test_any_frames_in_any_state_never_raise(role: LinkEnd, connect: bool,
                                             steps: list[tuple[list[Frame], float]]) -> None:
    """Whatever a peer sends, in whatever state, the session answers with events and bytes,
    never an exception, and its queue stays within bounds (h2's every-pair property)."""
    session = Session(role, now=0.0, identity=identity() if role is LinkEnd.DEVICE else None,
                      nonce=lambda: 1)
    now = 0.0
    if connect:
        session.connect(now)
    for frames, dt in steps:
        now += dt
        session.receive_data(b"".join(encode_frame(f) for f in frames), now)
        session.poll(now)
        session.data_to_send()
        assert session.queued <= session.config.queue_limit + 4
        assert session.state in LinkState


def test_a_flood_of_bad_frames_cannot_grow_a_device_queue() -> None:
    device = Session(LinkEnd.DEVICE, now=0.0, identity=identity())
    device.receive_data(encode_frame(encode_message(Hello(9))), 0.0)
    flood = b"".join(encode_frame(Frame(0x90, seq, b"", FrameFlags.ACK_REQ))
                     for seq in range(1, 201))
    events = device.receive_data(flood, 0.1)
    assert len([e for e in events if isinstance(e, Received)]) == 200   # all acked, reported
    assert device.queued <= device.config.queue_limit + 4
    assert device.stats.overflows > 0


@pytest.mark.parametrize("key", list(ConfigKey))
def test_a_config_value_out_of_range_is_reported_and_in_range_is_not(key: ConfigKey) -> None:
    low, high = CONFIG_RANGES[key]
    line = pair()
    line.host.connect(0.0)
    line.run_until(0.2)
    values = [v for v in (low - 1, low, high, high + 1) if 0 <= v < 1 << 32]
    for value in values:
        line.host.send(SetConfig(key, value), line.now)
    line.run_until(1.0)
    rejected = [m.text for m in received(line.host_events)
                if isinstance(m, Status) and m.code == StatusCode.CONFIG_REJECTED]
    expected = [f"config key {int(key)} value {v}" for v in values if not low <= v <= high]
    assert rejected == expected
    # every one of them still reaches the device, which takes only those in range
    assert [m for m in received(line.device_events) if isinstance(m, SetConfig)] == [
        SetConfig(key, v) for v in values]
