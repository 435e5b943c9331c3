"""Simulated devices: what each model sends, and a firmware_bridge host receiving exactly
that, over an in-memory pipe and over TCP."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from firmware_bridge.client import Connected, Delivered, DeviceClient
from firmware_bridge.frames import Frame, FrameDecoder, encode_frame
from firmware_bridge.messages import (
    Ack,
    AntennaState,
    Button,
    ButtonAction,
    Hello,
    Message,
    Misread,
    MisreadReason,
    ShoeReset,
    SnapshotDone,
    SnapshotReq,
    TagGone,
    TagId,
    TagSeen,
    Tech,
    decode_message,
    encode_message,
)
from hardware_sim.devices import SimDevice, SimKeypad, SimShoe, SimTable, standard_roles
from hardware_sim.faults import ByteFaults, FaultSpec
from hardware_sim.serve import PipeDevice, serve_tcp
from tablectl.clock import ManualClock
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tests.firmware_bridge.conftest import Collector, Driver


def hello(nonce: int = 5) -> bytes:
    return b"\x00" + encode_frame(encode_message(Hello(nonce)))


def wire_messages(data: bytes) -> list[Message]:
    return [decode_message(f) for f in FrameDecoder().feed(data) if isinstance(f, Frame)]


def drain(device: SimDevice) -> list[Message]:
    """Everything the device sends until it is idle, as a perfect host sees it: each reliable
    frame once, acknowledged."""
    out: list[Message] = []
    seen: set[int] = set()
    while True:
        frames = [f for f in FrameDecoder().feed(device.data_to_send()) if isinstance(f, Frame)]
        if not frames:
            return out
        top = 0
        for f in frames:
            if f.reliable:
                if f.seq in seen:
                    continue
                seen.add(f.seq)
                top = max(top, f.seq)
            out.append(decode_message(f))
        if top:
            device.receive_data(encode_frame(encode_message(Ack(top))))


def scripted_run(deck: Deck, seed: int) -> bytes:
    clock = ManualClock()
    shoe = SimShoe(deck, clock=clock, seed=seed)
    out = shoe.data_to_send()
    shoe.receive_data(hello())
    for _ in range(12):
        clock.advance(0.1)
        shoe.draw()
        shoe.poll()
    shoe.misread()
    out += shoe.data_to_send()
    return out


def test_same_seed_same_bytes_on_the_wire(red_deck: Deck) -> None:
    assert scripted_run(red_deck, 42) == scripted_run(red_deck, 42)
    assert scripted_run(red_deck, 42) != scripted_run(red_deck, 43)


def test_shoe_deals_the_registered_deck_once_with_draw_indexes(red_deck: Deck,
                                                                clock: ManualClock) -> None:
    shoe = SimShoe(red_deck, clock=clock, seed=1)
    reads = [shoe.draw() for _ in range(52)]
    cards = [red_deck.card_for(r.uid_hex) for r in reads]
    assert None not in cards and len(set(cards)) == 52
    assert [r.index for r in reads] == list(range(52))
    assert cards != sorted(cards, key=str)           # shuffled
    with pytest.raises(IndexError):
        shoe.draw()
    shoe.new_shoe()
    assert shoe.remaining == 52 and shoe.draw().index == 0


def test_shoe_faults_are_the_reads_a_real_shoe_would_send(red_deck: Deck, blue_deck: Deck,
                                                          clock: ManualClock) -> None:
    shoe = SimShoe(red_deck, clock=clock, seed=2)
    first = shoe.draw(Card.parse("As"))
    assert red_deck.card_for(first.uid_hex) == Card.parse("As")
    dup = shoe.duplicate_read()
    assert dup.uid == first.uid and dup.index == 1
    foreign = shoe.foreign_tag(bytes.fromhex(blue_deck.uid_for(Card.parse("Kd"))))
    assert red_deck.card_for(foreign.uid_hex) is None
    miss = shoe.misread()
    assert miss.reason is MisreadReason.NO_TAG and shoe.remaining == 50
    a, b = shoe.two_at_once()
    assert a.t_ms == b.t_ms and (a.index, b.index) == (4, 5) and a.uid != b.uid
    face_up = shoe.draw_face_up()
    assert face_up.index == 6 and red_deck.card_for(face_up.uid_hex) is not None


def test_shoe_reset_from_the_host_restarts_the_index(red_deck: Deck,
                                                     clock: ManualClock) -> None:
    shoe = SimShoe(red_deck, clock=clock, seed=3)
    shoe.receive_data(hello())
    shoe.draw()
    shoe.draw()
    shoe.receive_data(encode_frame(encode_message(ShoeReset(), 1)))
    assert ShoeReset() in shoe.commands
    assert shoe.draw().index == 0


def test_table_edges_several_tags_and_snapshot(red_deck: Deck, clock: ManualClock) -> None:
    table = SimTable(standard_roles(6), clock=clock, seed=4, deck=red_deck)
    assert table.antenna("seat3") == 2 and table.antenna("muck") == 11
    sees = table.place_many("seat3", [Card.parse("As"), Card.parse("Kd")])
    assert [s.antenna for s in sees] == [2, 2] and [s.index for s in sees] == [0, 1]
    assert table.place("seat3", Card.parse("As")) is None       # already there: no edge
    wrong = table.place("seat4", Card.parse("Qh"))               # dealt to the wrong seat
    assert wrong is not None and wrong.antenna == 3
    clock.advance(2.5)
    gone = table.remove("seat3", Card.parse("Kd"))
    assert gone is not None and gone.dwell_ms == 2500
    table.receive_data(hello())
    table.data_to_send()
    table.receive_data(encode_frame(encode_message(SnapshotReq(7), 1)))
    sent = drain(table)
    states = {m.antenna: m for m in sent if isinstance(m, AntennaState)}
    assert len(states) == 13
    assert states[2].tags == (TagId(Tech.ISO14443A, bytes.fromhex(red_deck.uid_for(
        Card.parse("As")))),)
    assert len(states[3].tags) == 1 and states[0].tags == ()
    assert SnapshotDone(7, 13) in sent


def test_keypad_press_release_and_long_press(clock: ManualClock) -> None:
    pad = SimKeypad(clock=clock, seed=5, long_after=0.8)
    pad.receive_data(hello())
    pad.data_to_send()
    pad.press(3)
    clock.advance(0.1)
    pad.release(3)
    pad.press(4)
    clock.advance(0.9)
    pad.poll()                                     # held long enough: LONG while down
    pad.release(4)
    pad.long_press(5)
    sent = [m for m in drain(pad) if isinstance(m, Button)]
    assert [(b.key, b.action) for b in sent] == [
        (3, ButtonAction.PRESS), (3, ButtonAction.RELEASE),
        (4, ButtonAction.PRESS), (4, ButtonAction.LONG), (4, ButtonAction.RELEASE),
        (5, ButtonAction.PRESS), (5, ButtonAction.LONG), (5, ButtonAction.RELEASE)]
    with pytest.raises(ValueError, match="not down"):
        pad.release(3)
    with pytest.raises(ValueError, match="no key"):
        pad.press(99)


def test_fault_specs_are_validated() -> None:
    assert FaultSpec.parse("drop=0.1, flip=0.01") == FaultSpec(drop=0.1, flip=0.01)
    for bad in ["drop", "drop=x", "melt=0.1", "drop=2"]:
        with pytest.raises(ValueError, match=r"fault|probability"):
            FaultSpec.parse(bad)


def delivered(events: list[object]) -> list[Message]:
    return [e.message for e in events if isinstance(e, Delivered)]


async def test_host_receives_exactly_what_table_and_keypad_sent(
        red_deck: Deck, clock: ManualClock, driver: Driver,
        collect: Callable[[DeviceClient], Collector]) -> None:
    table = SimTable(standard_roles(4), clock=clock, seed=6, deck=red_deck)
    pad = SimKeypad(clock=clock, seed=7)
    table_port, pad_port = PipeDevice(table, clock=clock), PipeDevice(pad, clock=clock)
    async with DeviceClient("table", opener=table_port.open, clock=clock) as tc, \
            DeviceClient("keypad", opener=pad_port.open, clock=clock) as kc:
        tgot, kgot = collect(tc), collect(kc)
        await driver.until(lambda: tc.peer is not None and kc.peer is not None)
        await driver.advance(0.1)
        sent: list[Message] = []
        sent += table.place_many("seat1", [Card.parse("2c"), Card.parse("2d")])
        sent.append(table.place("board1", Card.parse("Th")) or TagSeen(0, Tech.UNKNOWN, 0, 0,
                                                                          0, b"\x00"))
        clock.advance(1.0)
        sent.append(table.remove("seat1", Card.parse("2c")) or TagGone(0, Tech.UNKNOWN, 0, 0,
                                                                          b"\x00"))
        keys = [pad.press(1), pad.release(1), *pad.long_press(2)]
        await driver.until(lambda: len(buttons(kgot.events)) == len(keys)
                           and len([m for m in delivered(tgot.events)
                                    if isinstance(m, TagSeen | TagGone)]) == 4)
        assert [m for m in delivered(tgot.events) if isinstance(m, TagSeen | TagGone)] == sent
        assert buttons(kgot.events) == keys
        await table_port.aclose()
        await pad_port.aclose()


async def test_served_over_tcp_like_a_socket_url(red_deck: Deck) -> None:
    from firmware_bridge.clock import SystemClock
    clock = SystemClock()
    shoe = SimShoe(red_deck, clock=clock, seed=8)
    server = await serve_tcp(shoe, "127.0.0.1", 0, clock=clock)
    port = server.sockets[0].getsockname()[1]
    try:
        async with DeviceClient(f"socket://127.0.0.1:{port}", clock=clock) as client:
            import asyncio
            events = client.events()
            first = await asyncio.wait_for(anext(events), 5)
            assert isinstance(first, Connected)
            drawn = [shoe.draw() for _ in range(5)]
            got: list[Message] = []
            async with asyncio.timeout(5):
                async for ev in events:
                    if isinstance(ev, Delivered) and isinstance(ev.message, TagSeen):
                        got.append(ev.message)
                        if len(got) == 5:
                            break
            assert got == drawn
    finally:
        server.close()
        await server.wait_closed()


def test_misread_on_the_wire(red_deck: Deck, clock: ManualClock) -> None:
    shoe = SimShoe(red_deck, clock=clock, seed=9)
    shoe.receive_data(hello())
    shoe.data_to_send()
    shoe.misread()
    (m,) = [m for m in wire_messages(shoe.data_to_send()) if isinstance(m, Misread)]
    assert m.antenna == 0 and m.reason is MisreadReason.NO_TAG


def test_byte_faults_are_seeded() -> None:
    data = b"".join(encode_frame(encode_message(ShoeReset(), i)) for i in range(1, 50))
    a = ByteFaults.parse("flip=0.3,drop=0.2,garbage=0.2,dup=0.1", seed=1)(data)
    b = ByteFaults.parse("flip=0.3,drop=0.2,garbage=0.2,dup=0.1", seed=1)(data)
    assert a == b != data


def buttons(events: list[object]) -> list[Message]:
    return [m for m in delivered(events) if isinstance(m, Button)]
