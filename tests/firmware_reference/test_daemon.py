"""Whole hands dealt from the reference firmware into the daemon, from its host build and
from the firmware cross-built for a Cortex-M3 running in QEMU: the dealer (hardware_sim's
SimDealer, its own rules engine deciding what comes next) slides each card past the
firmware's antenna; the daemon (a child process) reads the pty through firmware_bridge,
journals every read once and settles every hand as the dealer's engine did."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Protocol

import pytest

from firmware_bridge.messages import TagSeen, Tech
from hardware_sim.dealer import SimDealer
from hardware_sim.devices import SimDevice, SimShoe
from hardware_sim.strategies import RandomStrategy
from tablectl.app import table_setup
from tablectl.clock import SystemClock
from tablectl.config import load_config
from tablectl.domain.deck import Deck
from tablectl.game import SeatSetup
from tests.conftest import Broker
from tests.reliability.harness import (
    TABLE,
    VARIANTS,
    DaemonProcess,
    RetryingConsole,
    awards_of,
    journal_count,
    poll_until,
    read_journal,
    write_config,
)

from .emulator import EmulatedReader
from .harness import ReferenceReader


class Firmware(Protocol):
    """What the dealer's shoe and ports need of a running firmware."""

    def send_nowait(self, line: str) -> None: ...
    async def settle(self) -> None: ...
    async def command(self, line: str) -> None: ...


@contextlib.asynccontextmanager
async def running(kind: str, link: Path, request: pytest.FixtureRequest
                  ) -> AsyncIterator[Firmware]:
    """The firmware of ``kind`` (``host`` or ``emulated``) with its UART behind ``link``."""
    if kind == "host":
        build = request.getfixturevalue("reference_build")
        async with ReferenceReader(build, link, store=link.with_name("store")) as firmware:
            yield firmware
        return
    elf, size = request.getfixturevalue("emulated_build")
    print(size)                                    # flash and RAM use, in the test's output
    async with EmulatedReader(elf, link) as emulated:
        yield emulated


class FirmwareShoe(SimShoe):
    """The dealer's shoe: it keeps the dealer's order of cards, but every card drawn passes
    the reference firmware's antenna, and the firmware sends the read."""

    def __init__(self, deck: Deck, firmware: Firmware, seed: int) -> None:
        super().__init__(deck, clock=SystemClock(), seed=seed)
        self.firmware = firmware
        self.reads = 0

    def _read(self, uid: bytes) -> TagSeen:
        read = TagSeen(0, Tech.ISO15693, 0, self.index & 0xFFFF, 0, uid)
        self.index += 1
        self.reads += 1
        self.firmware.send_nowait(f"pass 0 {uid.hex()}")
        return read


class FirmwarePorts:
    """After each card: the firmware read it, and the daemon journaled every read so far."""

    def __init__(self, firmware: Firmware, shoe: FirmwareShoe, journal: Path) -> None:
        self.firmware, self.shoe, self.journal = firmware, shoe, journal

    def journaled_reads(self) -> int:
        return journal_count(self.journal, "SELECT count(DISTINCT json_extract(payload, "
                             "'$.read_id')) FROM inputs WHERE kind='card_read'")

    async def step(self) -> None:
        await self.firmware.settle()
        await poll_until(lambda: self.journaled_reads() >= self.shoe.reads, 30)

    async def unplug(self, device: SimDevice) -> None:
        await self.firmware.command("unplug")

    async def replug(self, device: SimDevice) -> None:
        await self.firmware.command("plug")

    def arm(self, device: SimDevice, kind: str, seconds: float = 0.0) -> None:
        raise NotImplementedError("byte faults are the contract tests' business")


@pytest.mark.parametrize("kind", ["host", "emulated"])
async def test_hands_dealt_from_the_firmware_settle_in_the_daemon(
        kind: str, tmp_path: Path, mosquitto: Broker, request: pytest.FixtureRequest) -> None:
    variant, structure, stakes = VARIANTS[1]
    path = write_config(tmp_path, f"mqtt://{mosquitto.host}:{mosquitto.port}", variant,
                        structure, stakes)
    config = load_config(path)
    setup = table_setup(config)
    daemon = DaemonProcess(path, tmp_path / "daemon.log")
    async with running(kind, tmp_path / "dev" / "shoe", request) as firmware:
        shoe = FirmwareShoe(config.load_deck(), firmware, seed=5)
        ports = FirmwarePorts(firmware, shoe, config.journal.path)
        async with RetryingConsole(mosquitto.host, mosquitto.port, table=TABLE) as console:
            dealer = SimDealer(game=setup.game, structure=setup.structure,
                               rules=setup.rule_set, stakes=setup.stakes,
                               seats=[SeatSetup(s.number, s.stack, s.name)
                                      for s in config.seats],
                               button=config.button or 1, device=shoe, console=console,
                               ports=ports, strategy=RandomStrategy(5), seed=5,
                               table_id=TABLE)
            daemon.start()
            try:
                summaries = await dealer.play(2)
            finally:
                daemon.stop()
    journal = read_journal(config.journal.path)
    assert len(journal.hands) == 2, daemon.log_tail()
    for summary, hand in zip(summaries, journal.hands, strict=True):
        assert awards_of(hand) == {(a.seat, a.amount, a.half.value)
                                   for r in summary.results for a in r.awards}
        assert hand["board"] == [str(d.card) for d in summary.cards
                                 if d.target.startswith("board")]
    dealt = sum(len(s.cards) for s in summaries)
    assert ports.journaled_reads() == dealt == shoe.reads
