"""No read lost, none misplaced; a reader the daemon cannot speak with stops nothing (issue 25,
items 3 and 5).

Real parts: the SQLite journal, the daemon in process, the RFID shoe source opening a real pty
with pyserial, a simulated shoe (``hardware_sim``) serving it through ``firmware_bridge`` in
the device role. The journal fault is SQLite's own read-only error (``query_only``, as in
``test_journal_unwritable.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from firmware_bridge.messages import TagSeen
from hardware_sim.devices import AntennaRole, SimShoe, SimTable
from hardware_sim.serve import PtyDevice
from tablectl.app import build_sources, initial_state, table_setup
from tablectl.clock import SystemClock
from tablectl.config import TableConfig, load_config
from tablectl.controller.inputs import CardRead, Command, DeviceStatus
from tablectl.daemon import TableDaemon
from tablectl.doctor import Status, check_handshake
from tablectl.domain.cards import Card
from tablectl.domain.deck import Deck
from tablectl.journal.sqlite import SqliteJournal
from tablectl.metrics import TableMetrics
from tablectl.publish.base import MemoryPublisher
from tablectl.sources.base import refusal_of
from tablectl.sources.rfid import SHOE_KINDS, RfidShoeSource
from tests.reliability.harness import DEALER, ROOT, VARIANTS, poll_until, write_config


@pytest.fixture
def config(tmp_path: Path) -> TableConfig:
    variant, structure, stakes = VARIANTS[1]
    return load_config(write_config(tmp_path, "mqtt://127.0.0.1:1", variant, structure,
                                    stakes))


@pytest.fixture
def deck() -> Deck:
    return Deck.load(ROOT / "config/decks/demo-red.csv")


class Table:
    """One daemon lifetime on the journal: the daemon, its shoe source fed by a task."""

    def __init__(self, config: TableConfig, journal: SqliteJournal) -> None:
        clock = SystemClock()
        self.daemon = TableDaemon(table_setup(config), initial_state(config), journal,
                                  MemoryPublisher(), clock=clock)
        self.daemon.recover()
        [source] = build_sources(config, clock)
        assert isinstance(source, RfidShoeSource)
        self.source = source
        self.feed: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Table:
        await self.source.__aenter__()
        self.feed = asyncio.create_task(self.daemon.feed_source(
            self.source.events(), refusal_of(self.source)))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.source.__aexit__()
        if self.feed is not None:
            self.feed.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.feed

    def command(self, name: str, n: int, **args: object) -> bool:
        out = self.daemon.apply(Command(name=name, user=DEALER, id=f"{name}{n}",
                                        at=self.daemon.clock.now(), args=args))  # type: ignore[arg-type]
        return out.reply is not None and out.reply.ok

    def hole_cards(self) -> dict[int, list[str]]:
        secure = self.daemon.secure_snapshot()
        seats = secure["seats"]
        assert isinstance(seats, list)
        return {s["seat"]: [c["card"] for c in s["cards"]] for s in seats if s["cards"]}

    def expected_seat(self) -> int:
        exp = self.daemon.controller.expected()
        seat = getattr(exp, "seat", None)
        assert isinstance(seat, int), exp
        return seat


def dealt(table: Table) -> int:
    return sum(len(cards) for cards in table.hole_cards().values())


def card_of(deck: Deck, read: TagSeen) -> str:
    card = deck.card_for(read.uid_hex)
    assert isinstance(card, Card)
    return str(card)


@contextlib.contextmanager
def journal_at(config: TableConfig) -> Iterator[SqliteJournal]:
    with SqliteJournal.open(config.journal.path, SystemClock()) as journal:
        yield journal


async def wait(pred: Callable[[], bool], within: float = 20) -> None:
    await poll_until(pred, within, every=0.02)


async def test_a_read_the_journal_cannot_take_is_kept_by_the_reader_and_lands_right(
        config: TableConfig, deck: Deck) -> None:
    clock = SystemClock()
    shoe = SimShoe(deck, clock=clock, seed=7, random_boot=True)
    async with PtyDevice(shoe, config.sources[0].url, clock=clock):
        with journal_at(config) as journal:
            async with Table(config, journal) as first:
                await wait(lambda: shoe.connected)
                assert first.command("start_hand", 1)
                shoe.draw()
                await wait(lambda: dealt(first) == 1)
                await wait(lambda: shoe.session.queued == 0)      # the first read was ACKed
                seat = first.expected_seat()
                before = first.hole_cards()

                conn: sqlite3.Connection = journal._conn
                conn.execute("PRAGMA query_only=1")              # a read-only disk
                held = card_of(deck, shoe.draw())
                await wait(lambda: first.daemon.faulted is not None)
                assert first.feed is not None
                await wait(first.feed.done)          # the source ended: its reader keeps it
                assert first.hole_cards() == before
                assert shoe.session.queued == 1      # never acknowledged
                conn.execute("PRAGMA query_only=0")              # the disk is fine again
            # the daemon is restarted on the same journal; the shoe was never unplugged
            async with Table(config, journal) as second:
                await wait(lambda: dealt(second) == 2)
                assert second.hole_cards()[seat][-1] == held     # the seat it was dealt to
                await wait(lambda: shoe.session.queued == 0)
                nxt = second.expected_seat()
                third = card_of(deck, shoe.draw())
                await wait(lambda: dealt(second) == 3)
                assert second.hole_cards()[nxt][-1] == third
                assert second.daemon.controller.active_errors == ()


class FutureShoe(SimShoe):
    """A shoe whose firmware speaks protocol v2."""

    proto_major = 2


async def test_a_reader_of_another_protocol_version_is_shown_and_the_table_goes_on(
        config: TableConfig, deck: Deck) -> None:
    clock = SystemClock()
    shoe = FutureShoe(deck, clock=clock, seed=3, random_boot=True)
    async with PtyDevice(shoe, config.sources[0].url, clock=clock):
        with journal_at(config) as journal:
            async with Table(config, journal) as table:
                table.daemon.metrics = metrics = TableMetrics("holdem")
                metrics.watch(sources=[table.source])
                applied: list[object] = []
                table.daemon.on_outcome = lambda inp, _out: applied.append(inp)
                await wait(lambda: any(isinstance(i, DeviceStatus) and i.problem
                                       for i in applied))
                devices = table.daemon.public_snapshot()["devices"]
                assert devices == [{"name": "shoe", "kind": "rfid-shoe",
                                    "status": "incompatible",
                                    "detail": "the reader speaks protocol v2, this host v1: "
                                              "replace it or update its firmware"}]
                assert table.source.incompatible and not table.source.link_up
                scraped = metrics.registry.get_sample_value(
                    "tablectl_reader_incompatible", {"source": "shoe"})
                assert scraped == 1.0
                # the daemon goes on: its feed still runs, commands and manual cards apply
                assert table.feed is not None and not table.feed.done()
                assert table.command("start_hand", 1)
                seat = table.expected_seat()
                assert table.command("manual_card", 2, card="As", seat=seat)
                assert table.hole_cards()[seat] == ["As"]
                assert not table.feed.done()
        # tablectl doctor --handshake says so too (the daemon no longer holds the port)
        found = await asyncio.to_thread(check_handshake, "shoe", config.sources[0].url)
        assert found.status is Status.FAIL and "speaks protocol v2" in found.detail


async def test_doctor_handshake_passes_a_reader_of_our_version(
        config: TableConfig, deck: Deck) -> None:
    clock = SystemClock()
    shoe = SimShoe(deck, clock=clock, seed=4, random_boot=True)
    async with PtyDevice(shoe, config.sources[0].url, clock=clock):
        shoe.draw()                    # a read no daemon journaled yet: the doctor keeps off
        found = await asyncio.to_thread(check_handshake, "shoe", config.sources[0].url)
        assert found.status is Status.OK and "protocol v1.0" in found.detail
        assert shoe.session.queued >= 1


async def test_a_table_reader_on_the_shoes_port_is_refused_and_deals_no_card(
        config: TableConfig, deck: Deck) -> None:
    """Cables swapped, or the system numbered the ports anew: a table reader answers where
    the shoe was. Its tags taken as shoe reads would be cards dealt to the wrong seats; it
    is shown as the wrong device, none of its tags is taken (it keeps them), and the table
    goes on with manual cards."""
    clock = SystemClock()
    table_reader = SimTable([AntennaRole("seat", 1), AntennaRole("seat", 2)], clock=clock,
                            deck=deck, seed=5, random_boot=True)
    async with PtyDevice(table_reader, config.sources[0].url, clock=clock):
        table_reader.place(0, Card.parse("As"))
        with journal_at(config) as journal:
            async with Table(config, journal) as table:
                applied: list[object] = []
                table.daemon.on_outcome = lambda inp, _out: applied.append(inp)
                await wait(lambda: any(isinstance(i, DeviceStatus) and i.problem
                                       for i in applied))
                [device] = table.daemon.public_snapshot()["devices"]
                assert device["status"] == "incompatible"
                assert device["detail"].startswith("a table reader answered on this port, "
                                                   "which is set up for a card shoe")
                assert table.command("start_hand", 1)
                table_reader.place(1, Card.parse("Kd"))
                await asyncio.sleep(0.5)
                assert not [i for i in applied if isinstance(i, CardRead)]
                assert table_reader.session.queued >= 2
        found = await asyncio.to_thread(check_handshake, "shoe", config.sources[0].url,
                                        kinds=SHOE_KINDS)
        assert found.status is Status.FAIL and "a table reader answered" in found.detail
