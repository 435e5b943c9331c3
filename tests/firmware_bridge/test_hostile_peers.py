"""Hostile or odd devices (issue 25): a reader of another protocol version, a host that cannot
keep a read, and fuzzing of the host's decoding path from bytes to the client's events.

The frame decoder's own properties (round trip, resync, bounded buffer) are in
``test_frames.py`` and the session's every-frame-in-every-state property in
``test_session.py``; these add what reaches the client: well-framed messages of every type
with arbitrary payloads, and handshakes with arbitrary HELLO_ACKs, each translated to the
client's events as :class:`~firmware_bridge.client.DeviceClient` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable

from hypothesis import example, given, settings
from hypothesis import strategies as st

from firmware_bridge.client import (
    Connected,
    Delivered,
    DeviceClient,
    DeviceEvent,
    DeviceRebooted,
    Disconnected,
    Incompatible,
    Malformed,
    translate,
)
from firmware_bridge.errors import FrameError
from firmware_bridge.frames import Frame, FrameFlags, encode_frame
from firmware_bridge.link import Link, MemoryLink, pipe
from firmware_bridge.messages import (
    Caps,
    DeviceKind,
    HelloAck,
    MessageType,
    TagSeen,
    Tech,
    decode_message,
    encode_message,
)
from firmware_bridge.session import Session
from firmware_bridge.session_config import LinkEnd
from firmware_bridge.session_events import LinkUp, Received, VersionMismatch
from firmware_bridge.transitions import LinkState
from hardware_sim.devices import AntennaRole, SimShoe, SimTable
from hardware_sim.serve import PipeDevice
from tablectl.clock import ManualClock
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck

from .conftest import Collector, Driver

# ---- a reader of another protocol version ---------------------------------------------------


class FutureShoe(SimShoe):
    """A shoe whose firmware speaks protocol v2."""

    proto_major = 2


class SwappablePort:
    """The stable name of a reader's port: whichever device is plugged in answers there."""

    def __init__(self, port: PipeDevice) -> None:
        self.port = port

    async def open(self, address: str) -> Link:
        return await self.port.open(address)


async def test_an_incompatible_reader_is_reported_retried_slowly_then_replaced(
        clock: ManualClock, driver: Driver, red_deck: Deck,
        collect: Callable[[DeviceClient], Collector]) -> None:
    future = PipeDevice(FutureShoe(red_deck, clock=clock, seed=1), clock=clock)
    plug = SwappablePort(future)
    client = DeviceClient("shoe", opener=plug.open, clock=clock, backoff=(0.1,),
                          incompatible_retry=30.0)
    async with client:
        got = collect(client)
        await driver.until(lambda: any(isinstance(e, Incompatible) for e in got.events))
        seen = next(e for e in got.events if isinstance(e, Incompatible))
        assert (seen.peer_major, seen.ours) == (2, 1) and "v2" in seen.reason
        assert client.state is not LinkState.UP and client.peer is None
        # slowly: no second handshake for 30 s (not every 0.1 s of the backoff)
        await driver.advance(20.0, step=0.5)
        assert [type(e) for e in got.events] == [Incompatible]
        await driver.until(lambda: len(got.events) == 2, within=15.0, step=0.5)
        assert [type(e) for e in got.events] == [Incompatible, Incompatible]
        # the reader is replaced by one of this version: it connects at the next attempt
        shoe = SimShoe(red_deck, clock=clock, seed=2)
        plug.port = PipeDevice(shoe, clock=clock)
        await driver.until(lambda: any(isinstance(e, Connected) for e in got.events),
                           within=40.0, step=0.5)
        drawn = shoe.draw()
        await driver.until(lambda: any(isinstance(e, Delivered) and e.message == drawn
                                       for e in got.events))
        await plug.port.aclose()
    await future.aclose()


async def test_another_kind_of_device_on_the_port_is_refused_and_keeps_its_events(
        clock: ManualClock, driver: Driver, red_deck: Deck,
        collect: Callable[[DeviceClient], Collector]) -> None:
    """A table reader answers on the port a shoe client was set up for (cables swapped, ports
    numbered anew): none of its tags is delivered nor acknowledged, it is reported, retried
    slowly, and the shoe is taken once it is back on the port."""
    table = SimTable([AntennaRole("seat", 1), AntennaRole("board", 1)], clock=clock,
                     deck=red_deck, seed=3)
    plug = SwappablePort(PipeDevice(table, clock=clock))
    table.place(0, Card.parse("As"))
    client = DeviceClient("shoe", opener=plug.open, clock=clock, backoff=(0.1,),
                          incompatible_retry=30.0, ack_when_consumed=True,
                          kinds=frozenset({DeviceKind.SHOE, DeviceKind.COMBO}))
    async with client:
        got = collect(client)
        await driver.until(lambda: any(isinstance(e, Incompatible) for e in got.events))
        seen = next(e for e in got.events if isinstance(e, Incompatible))
        assert seen.kind is DeviceKind.TABLE and "table reader" in seen.reason
        assert "card shoe or combined reader" in seen.reason
        table.place(1, Card.parse("Kd"))
        await driver.advance(20.0, step=0.5)
        assert [type(e) for e in got.events] == [Incompatible]     # slowly, nothing taken
        assert table.session.queued >= 2                          # it keeps both tags
        shoe = SimShoe(red_deck, clock=clock, seed=4)
        old, plug.port = plug.port, PipeDevice(shoe, clock=clock)
        await old.aclose()
        await driver.until(lambda: any(isinstance(e, Connected) for e in got.events),
                           within=40.0, step=0.5)
        drawn = shoe.draw()
        await driver.until(lambda: any(isinstance(e, Delivered) and e.message == drawn
                                       for e in got.events))
        # the only tag ever handed on is the shoe's; the table reader's never were
        assert [e.message for e in got.events if isinstance(e, Delivered)
                and isinstance(e.message, TagSeen)] == [drawn]
        await plug.port.aclose()


# ---- a host that cannot keep a read ---------------------------------------------------------


async def _next_read(events: object) -> Delivered:
    while True:
        event = await anext(events)  # type: ignore[call-overload]
        if isinstance(event, Delivered) and isinstance(event.message, TagSeen):
            return event


async def test_a_refused_read_is_not_acknowledged_and_comes_again_to_the_next_session(
        clock: ManualClock, driver: Driver, red_deck: Deck) -> None:
    shoe = SimShoe(red_deck, clock=clock, seed=5)
    port = PipeDevice(shoe, clock=clock)
    client = DeviceClient("shoe", opener=port.open, clock=clock, backoff=(0.1,),
                          ack_when_consumed=True)
    async with client:
        events = client.events()
        first = shoe.draw()
        second = shoe.draw()
        got = asyncio.ensure_future(_next_read(events))
        await driver.until(got.done)
        assert got.result().message == first
        client.refuse()                       # e.g. the journal failed: not kept
        rest: list[DeviceEvent] = []

        async def drain() -> None:
            async for event in events:
                rest.append(event)
        ending = asyncio.ensure_future(drain())
        await driver.until(ending.done)       # the events end, nothing more handed on
        assert not [e for e in rest if isinstance(e, Delivered)]
        await driver.advance(5.0)
        assert shoe.session.queued >= 2       # neither read was acknowledged
        assert client.refused
    # the client entered again (a restarted host) gets both reads, in order, once
    async with client:
        events = client.events()
        again = asyncio.ensure_future(_next_read(events))
        await driver.until(again.done)
        assert again.result().message == first
        nxt = asyncio.ensure_future(_next_read(events))
        await driver.until(nxt.done)
        assert nxt.result().message == second
        more = asyncio.ensure_future(_next_read(events))    # done with both: ACKed now
        await driver.until(lambda: shoe.session.queued == 0)
        more.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await more
    await port.aclose()


def test_rewind_expects_the_refused_seq_again_and_acks_only_before_it() -> None:
    host = Session(LinkEnd.HOST, now=0.0, nonce=lambda: 9)
    host.connect(0.0)
    host.data_to_send()
    ack = HelloAck(9, 0xB0, 1, 0, DeviceKind.SHOE, 1, Caps(0), b"", "x")
    host.receive_data(encode_frame(encode_message(ack)), 0.0)
    assert host.state is LinkState.UP
    host.data_to_send()
    reads = [TagSeen(0, Tech.ISO14443A, 0, i, 0, bytes([1, 2, 3, 4])) for i in range(3)]
    wire = b"".join(encode_frame(encode_message(r, seq)) for seq, r in enumerate(reads, 1))
    got = host.receive_data(wire, 0.1)
    assert [e.seq for e in got if isinstance(e, Received)] == [1, 2, 3]
    host.rewind(2)
    assert host.data_to_send() == b""            # the ACK owed is not sent
    host.rewind(7)                               # not delivered: nothing to take back
    again = host.receive_data(encode_frame(encode_message(reads[1], 2, retx=True)), 0.2)
    assert [e.seq for e in again if isinstance(e, Received)] == [2]


# ---- fuzzing: what a device's bytes can do to the host ---------------------------------------

MESSAGE_TYPES = [int(t) for t in MessageType] + [0x15, 0x60, 0x7F, 0x90, 0xFF]


@settings(max_examples=400, deadline=None)
@given(ftype=st.sampled_from(MESSAGE_TYPES), seq=st.integers(1, 0xFFFF),
       payload=st.binary(max_size=240), reliable=st.booleans())
def test_a_well_framed_message_of_any_payload_decodes_or_is_a_frame_error(
        ftype: int, seq: int, payload: bytes, reliable: bool) -> None:
    frame = Frame(ftype, seq if reliable else 0, payload,
                  FrameFlags.ACK_REQ if reliable else FrameFlags(0))
    with contextlib.suppress(FrameError):      # documented: the session drops or reports it
        decode_message(frame)


hello_acks = st.builds(
    HelloAck, echo_nonce=st.sampled_from([0, 9, 10]),
    boot_id=st.one_of(st.sampled_from([1, 2]), st.integers(0, 2**32 - 1)),
    oldest_unacked_seq=st.one_of(st.sampled_from([0, 1, 2]), st.integers(0, 0xFFFF)),
    uptime_ms=st.integers(0, 2**32 - 1),
    device_kind=st.sampled_from(DeviceKind), antenna_count=st.integers(0, 255),
    caps=st.integers(0, 0xFFFF).map(Caps), hw_id=st.binary(max_size=16),
    fw_version=st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=32),
    proto_major=st.sampled_from([0, 1, 1, 2, 255]), proto_minor=st.integers(0, 255))
reliable_frames = st.builds(
    lambda t, seq, payload: encode_frame(Frame(t, seq, payload, FrameFlags.ACK_REQ)),
    st.sampled_from([0x10, 0x11, 0x12, 0x13, 0x14, 0x20, 0x30, 0x90]),
    st.integers(1, 0xFFFF), st.binary(max_size=60))
wire_chunks = st.one_of(
    st.binary(max_size=120),
    hello_acks.map(lambda a: b"\x00" + encode_frame(encode_message(a))),
    reliable_frames,
    st.builds(lambda i, s: encode_frame(encode_message(
        TagSeen(0, Tech.ISO14443A, 0, i, 0, bytes([i % 256] * 4)), s)),
        st.integers(0, 0xFFFF), st.integers(1, 20)))


@settings(max_examples=300, deadline=None)
@given(steps=st.lists(st.tuples(st.lists(wire_chunks, max_size=8), st.floats(0, 1.5)),
                      max_size=14))
def test_whatever_a_device_sends_the_host_client_hands_on_events_never_raises(
        steps: list[tuple[list[bytes], float]]) -> None:
    """The host's path from bytes to the client's events, as DeviceClient runs it: the session
    (HELLO retries, handshakes, retransmission) and :func:`translate`, with arbitrary bytes,
    HELLO_ACKs of any version and nonce, and reliable frames of any seq and payload. Nothing
    raises; the session's state is one of the table's, UP only with a peer of our version,
    FAILED only after a version mismatch, and delivered seqs follow each other."""
    nonces = iter([9, 10, 11, 12, 13, 14, 15, 16] * 10)
    session = Session(LinkEnd.HOST, now=0.0, nonce=lambda: next(nonces))
    session.connect(0.0)
    now = 0.0
    mismatched = False
    last_seq: int | None = None
    for chunks, dt in steps:
        now += dt
        events = session.receive_data(b"".join(chunks), now) + session.poll(now)
        session.data_to_send()
        for event in events:
            step = translate("shoe", event, now)     # never raises
            mismatched |= isinstance(event, VersionMismatch)
            if isinstance(event, LinkUp):
                assert event.peer.proto_major == 1
                last_seq = None
            if isinstance(event, Received):
                assert last_seq is None or event.seq == last_seq % 0xFFFF + 1
                last_seq = event.seq
            assert all(isinstance(e, (Connected, Delivered, Incompatible)) or e is not None
                       for e in step.events)
        if session.state is LinkState.FAILED:
            assert mismatched
            session = Session(LinkEnd.HOST, now=now, nonce=lambda: next(nonces))
            session.connect(now)                     # what the client does, after a wait
            mismatched = False
        if session.state is LinkState.UP:
            assert session.peer is not None and session.peer.proto_major == 1
        if session.state is LinkState.DEAD or session.state is LinkState.IDLE:
            session.connect(now)                     # the client reconnects
        assert session.queued <= session.config.queue_limit + 4


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def _drive_client(steps: list[tuple[list[bytes], float]], ack_when_consumed: bool
                        ) -> None:
    clock = ManualClock()
    devices: list[MemoryLink] = []

    async def opener(address: str) -> Link:
        host, device = pipe()
        devices.append(device)
        return host

    nonces = itertools.cycle([9, 10])
    client = DeviceClient("dev", opener=opener, clock=clock, backoff=(0.1,),
                          incompatible_retry=1.0, nonce=lambda: next(nonces),
                          ack_when_consumed=ack_when_consumed)
    got: list[DeviceEvent] = []

    async def consume() -> None:
        async for event in client.events():
            got.append(event)

    async with client:
        consumer = asyncio.create_task(consume())
        for chunks, dt in steps:
            await _settle()
            if devices and not devices[-1].closed:
                devices[-1].write_nowait(b"".join(chunks))
            await _settle()
            clock.advance(dt)
            await _settle()
            assert not consumer.done()          # events() neither raised nor ended
            assert client.state in LinkState
        consumer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await consumer
    assert all(isinstance(e, Connected | Delivered | Incompatible | DeviceRebooted
                          | Disconnected | Malformed) for e in got)


_V1_ACK = b"\x00" + encode_frame(encode_message(HelloAck(9, 1, 1, 0, DeviceKind.SHOE, 1,
                                                          Caps(0), b"", "x")))
_V2_ACK = b"\x00" + encode_frame(encode_message(HelloAck(9, 2, 1, 0, DeviceKind.SHOE, 1,
                                                          Caps(0), b"", "x", proto_major=2)))
_BOOTED = b"\x00" + encode_frame(encode_message(HelloAck(0, 3, 1, 0, DeviceKind.SHOE, 1,
                                                          Caps(0), b"", "x")))
_TAG_1 = encode_frame(encode_message(TagSeen(0, Tech.ISO14443A, 0, 1, 0, b"\x01\x02\x03\x04"),
                                     1))


@settings(max_examples=40, deadline=None)
@given(steps=st.lists(st.tuples(st.lists(wire_chunks, max_size=6), st.floats(0, 1.2)),
                      max_size=10),
       ack_when_consumed=st.booleans())
@example(steps=[([], 0.0), ([_V1_ACK, _TAG_1, b"\x00\x01garbage"], 0.1), ([_TAG_1], 4.0)],
         ack_when_consumed=True)
@example(steps=[([], 0.0), ([_V2_ACK, _BOOTED], 0.1), ([], 1.5)],
         ack_when_consumed=False)
def test_no_exception_escapes_the_client_whatever_the_device_sends(
        steps: list[tuple[list[bytes], float]], ack_when_consumed: bool) -> None:
    """The asyncio client itself, fed arbitrary bytes, HELLO_ACKs of any version and nonce
    and frames of any seq over a pipe on a manual clock: its events never raise nor end,
    whatever comes (it reconnects, retries an incompatible device, delivers in order)."""
    asyncio.run(_drive_client(steps, ack_when_consumed))
