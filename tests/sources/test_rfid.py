"""RFID sources over the simulated devices: every read once, each failure as the dealer must
see it (a missed or lost read becomes ReadMissed; an unplug loses nothing)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hardware_sim.devices import AntennaRole, SimShoe, SimTable
from hardware_sim.serve import PipeDevice
from tablectl.clock import SystemClock
from tablectl.controller.inputs import CardRead, DeviceStatus, Location, ReadMissed, TagLeft
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tablectl.domain.errors import ConfigError
from tablectl.sources.base import SourceEvent, load_antenna_map
from tablectl.sources.keypad import KeypadSource
from tablectl.sources.rfid import RfidShoeSource, RfidTableSource

ROOT = Path(__file__).resolve().parents[2]
RED = Deck.load(ROOT / "config" / "decks" / "demo-red.csv")


async def take(events: AsyncIterator[SourceEvent], n: int, *,
               what: type | tuple[type, ...] = object) -> list[SourceEvent]:
    """The next ``n`` events of the given types (others are skipped), within 10 s."""
    out: list[SourceEvent] = []
    async with asyncio.timeout(10):
        while len(out) < n:
            ev = await anext(events)
            if isinstance(ev, what):
                out.append(ev)
    return out


async def test_shoe_reads_arrive_once_in_dealing_order() -> None:
    clock = SystemClock()
    shoe = SimShoe(RED, clock=clock, seed=3)
    pipe = PipeDevice(shoe, clock=clock)
    async with RfidShoeSource("shoe", "/dev/serial/by-id/sim-shoe", clock=clock,
                              opener=pipe.open) as source:
        events = source.events()
        first = await take(events, 1)
        assert isinstance(first[0], DeviceStatus) and first[0].online
        drawn = [Card.parse("As"), Card.parse("Kd"), Card.parse("7c"), Card.parse("2h")]
        for card in drawn:
            shoe.draw(card)
        reads = await take(events, 4, what=CardRead)
        assert [RED.card_for(r.uid or "") for r in reads if isinstance(r, CardRead)] == drawn
        assert all(isinstance(r, CardRead) and r.location is None for r in reads)
        assert len({r.read_id for r in reads if isinstance(r, CardRead)}) == 4
    await pipe.aclose()


async def test_shoe_unplug_loses_and_doubles_nothing_but_a_power_cut_is_reported() -> None:
    clock = SystemClock()
    shoe = SimShoe(RED, clock=clock, seed=5)
    pipe = PipeDevice(shoe, clock=clock)
    async with RfidShoeSource("shoe", "x", clock=clock, opener=pipe.open) as source:
        events = source.events()
        await take(events, 1, what=DeviceStatus)
        shoe.draw()
        shoe.draw()
        await pipe.unplug()
        shoe.draw()                           # drawn while the cable is out: queued in the shoe
        shoe.draw()
        pipe.replug()
        got = await take(events, 4, what=CardRead)
        uids = [e.uid for e in got if isinstance(e, CardRead)]
        assert len(set(uids)) == 4
        await pipe.unplug(power_cut=True)
        pipe.replug()
        missed = await take(events, 1, what=ReadMissed)
        assert "restarted" in missed[0].reason if isinstance(missed[0], ReadMissed) else False
    await pipe.aclose()


async def test_shoe_misread_becomes_read_missed() -> None:
    clock = SystemClock()
    shoe = SimShoe(RED, clock=clock, seed=9)
    pipe = PipeDevice(shoe, clock=clock)
    async with RfidShoeSource("shoe", "x", clock=clock, opener=pipe.open) as source:
        events = source.events()
        shoe.draw()
        shoe.misread()
        shoe.draw()
        got = await take(events, 3, what=(CardRead, ReadMissed))
        assert [type(e) for e in got] == [CardRead, ReadMissed, CardRead]
    await pipe.aclose()


def _roles() -> tuple[list[AntennaRole], dict[int, Location]]:
    roles = [AntennaRole("seat", 1), AntennaRole("seat", 2), AntennaRole("board", 1),
             AntennaRole("muck")]
    return roles, {0: Location.parse("seat 1"), 1: Location.parse("seat 2"),
                   2: Location.parse("board 1"), 3: Location.parse("muck")}


async def test_table_reads_carry_locations_and_reboot_reconciles() -> None:
    clock = SystemClock()
    roles, mapping = _roles()
    table = SimTable(roles, clock=clock, deck=RED, seed=1)
    pipe = PipeDevice(table, clock=clock)
    async with RfidTableSource("table", "x", roles=mapping, clock=clock,
                               opener=pipe.open) as source:
        events = source.events()
        table.place(0, Card.parse("As"))
        table.place(1, Card.parse("Kd"))
        reads = await take(events, 2, what=CardRead)
        assert [str(r.location) for r in reads if isinstance(r, CardRead)] == ["seat 1",
                                                                               "seat 2"]
        table.remove(1, Card.parse("Kd"))
        gone = await take(events, 1, what=TagLeft)
        assert isinstance(gone[0], TagLeft) and str(gone[0].location) == "seat 2"
        # power cut: As stays on seat 1; Qh lands on the board while the reader is down
        await pipe.unplug(power_cut=True)
        table.present[2][bytes.fromhex(RED.uid_for(Card.parse("Qh")))] = (table.tech, 0.0)
        pipe.replug()
        after = await take(events, 1, what=(CardRead, TagLeft))
        assert isinstance(after[0], CardRead)
        assert RED.card_for(after[0].uid or "") == Card.parse("Qh")
        assert str(after[0].location) == "board 1"
    await pipe.aclose()


def test_antenna_map_errors_name_the_antenna(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[antennas]\n0 = "seat 1 slot 1"\n1 = "board 3"\n2 = "muck"\n')
    assert str(load_antenna_map(good)[1]) == "board 3"
    bad = tmp_path / "bad.toml"
    bad.write_text('[antennas]\n0 = "seat 1"\n1 = "seat 1"\n2 = "table"\nx = "muck"\n')
    with pytest.raises(ConfigError) as info:
        load_antenna_map(bad)
    assert [p for p, _ in info.value.problems] == ["antennas.1", "antennas.2", "antennas.x"]


class _SwappedShoe:
    """The shoe's port: whichever device is plugged in answers there."""

    def __init__(self, port: PipeDevice) -> None:
        self.port = port

    async def open(self, address: str) -> object:
        return await self.port.open(address)


async def test_a_shoe_that_comes_back_speaking_another_version_is_incompatible_and_missed(
        ) -> None:
    """A reader restarted into firmware of another protocol version: the source says it is
    incompatible (the table goes on) and, as for any restart of a reader it was reading,
    that reads it had not delivered are lost."""

    class FutureShoe(SimShoe):
        proto_major = 2

    clock = SystemClock()
    plug = _SwappedShoe(PipeDevice(SimShoe(RED, clock=clock, seed=1), clock=clock))
    first = plug.port
    source = RfidShoeSource("shoe", "sim", clock=clock, opener=plug.open)  # type: ignore[arg-type]
    async with source:
        events = source.events()
        [up] = await take(events, 1, what=DeviceStatus)
        assert up.online and not up.problem
        plug.port = PipeDevice(FutureShoe(RED, clock=clock, seed=2), clock=clock)
        await first.aclose()                           # unplugged; the new one answers v2
        [offline, status, missed] = await take(events, 3, what=(DeviceStatus, ReadMissed))
        assert isinstance(offline, DeviceStatus) and not offline.online
        assert isinstance(status, DeviceStatus) and not status.online
        assert "protocol v2" in status.problem and source.incompatible
        assert isinstance(missed, ReadMissed)
        await plug.port.aclose()


async def _first_status(source: RfidShoeSource | RfidTableSource | KeypadSource) -> DeviceStatus:
    async with source, asyncio.timeout(20):
        async for event in source.events():
            if isinstance(event, DeviceStatus):
                return event
    raise AssertionError("no device status")


async def test_a_source_refuses_another_kind_of_device_on_its_port() -> None:
    """Cables swapped or ports numbered anew: a table reader on the shoe's port would have
    its tags dealt as shoe cards, a shoe on the keypad's port would be ignored unseen. Each
    source takes only its kind (or a combined reader) and says what answered instead."""
    clock = SystemClock()
    roles, mapping = _roles()
    table = PipeDevice(SimTable(roles, clock=clock, deck=RED, seed=1), clock=clock)
    shoe = PipeDevice(SimShoe(RED, clock=clock, seed=2), clock=clock)
    try:
        status = await _first_status(RfidShoeSource("shoe", "x", clock=clock,
                                                    opener=table.open))
        assert not status.online and status.problem
        assert "a table reader answered" in status.problem
        status = await _first_status(RfidTableSource("table", "x", roles=mapping,
                                                     clock=clock, opener=shoe.open))
        assert not status.online and "a card shoe answered" in (status.problem or "")
        status = await _first_status(KeypadSource("keypad", "x", clock=clock,
                                                  opener=shoe.open))
        assert not status.online and "set up for a keypad" in (status.problem or "")
        # its own kind is taken
        status = await _first_status(RfidShoeSource("shoe", "x", clock=clock,
                                                    opener=shoe.open))
        assert status.online and not status.problem
    finally:
        await table.aclose()
        await shoe.aclose()
