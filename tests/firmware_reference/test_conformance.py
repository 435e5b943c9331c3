"""The conformance suite (``python -m firmware_bridge conformance``) against the three kinds
of reader it must pass: the reference firmware's host build (a table, its tag prompts
scripted), the firmware cross-built for a Cortex-M3 running in QEMU, hardware_sim's shoe on a
pty, and the host build again through the command line with a ``--script``; and against a
reader that breaks a rule, which it must fail on that rule alone."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from firmware_bridge.clock import SystemClock
from firmware_bridge.conformance import Prompt, Verdict, run_conformance, summary
from firmware_bridge.link import open_serial_link
from firmware_bridge.session_config import SessionConfig
from hardware_sim.devices import SimShoe
from hardware_sim.serve import PtyDevice
from tablectl.domain.deck import Deck

from .emulator import EmulatedReader
from .harness import ROOT, ReferenceReader

UID = "e004010012345678"


def failures(verdicts: list[Verdict]) -> list[str]:
    return [f"{v.clause}: {v.check}: {v.detail}" for v in verdicts if v.passed is not True]


async def test_the_reference_firmware_passes_every_check(tmp_path: Path,
                                                        reference_build: Path) -> None:
    link = tmp_path / "usb-Ref_Table-if00"
    async with ReferenceReader(reference_build, link, kind="table", antennas=4) as firmware:
        asked: list[Prompt] = []

        async def prompter(prompt: Prompt) -> None:
            asked.append(prompt)
            await firmware.command(f"pass {prompt.antenna} {UID}")

        verdicts = await run_conformance(await open_serial_link(str(link)),
                                         clock=SystemClock(), prompter=prompter, antenna=3)
        assert failures(verdicts) == []
        assert summary(verdicts) == (len(verdicts), 0, 0) and len(verdicts) >= 12
        assert [(p.action, p.antenna) for p in asked] == [("tag", 3)]
        assert len(firmware.boots) == 2            # the suite ends with a REBOOT


async def test_the_emulated_firmware_passes_every_check(
        tmp_path: Path, emulated_build: tuple[Path, str]) -> None:
    elf, _size = emulated_build
    async with EmulatedReader(elf, tmp_path / "usb-Ref_Cortex_M3-if00") as emulated:

        async def prompter(prompt: Prompt) -> None:
            await emulated.command(f"pass {prompt.antenna} {UID}")

        # the emulator's clock is the loaded machine's: its timer interrupt, and so its
        # heartbeat, comes late when QEMU waits for a core (once in two runs beside another
        # whole suite); the heartbeat period is judged on the host build above
        verdicts = await run_conformance(await open_serial_link(str(emulated.link)),
                                         clock=SystemClock(), prompter=prompter,
                                         heartbeat_within=10.0)
        assert failures(verdicts) == []
        assert len(emulated.boots) == 2 and len(set(emulated.boots)) == 2   # REBOOT: a reset


async def test_hardware_sims_shoe_passes_every_check(tmp_path: Path, red_deck: Deck) -> None:
    link = tmp_path / "usb-Sim_Shoe-if00"
    shoe = SimShoe(red_deck, clock=SystemClock(), random_boot=True)

    async def prompter(prompt: Prompt) -> None:
        if prompt.action == "dead":
            shoe.misread()
        else:
            shoe.draw()

    async with PtyDevice(shoe, link, clock=SystemClock()):
        verdicts = await run_conformance(await open_serial_link(str(link)),
                                         clock=SystemClock(), prompter=prompter)
    assert failures(verdicts) == []
    assert ("Messages (MISREAD)", True) in [(v.clause, v.passed) for v in verdicts]


async def test_a_reader_that_never_resends_fails_that_clause(tmp_path: Path,
                                                            red_deck: Deck) -> None:
    link = tmp_path / "usb-Sim_Shoe-if00"
    lazy = SimShoe(red_deck, clock=SystemClock(), random_boot=True,
                   config=SessionConfig(retransmit_after=30.0))   # resends only on NAK/HELLO

    async def prompter(prompt: Prompt) -> None:
        if prompt.action == "dead":
            lazy.misread()
        else:
            lazy.draw()

    async with PtyDevice(lazy, link, clock=SystemClock()):
        verdicts = await run_conformance(await open_serial_link(str(link)),
                                         clock=SystemClock(), prompter=prompter)
    failed = [(v.clause, v.check) for v in verdicts if v.passed is False]
    assert failed == [("Link rules 2 (reliability)",
                       "an unacknowledged TAG_SEEN is resent with RETX")]


async def test_the_command_line_with_a_script_against_the_firmware(
        tmp_path: Path, reference_build: Path) -> None:
    link, fifo = tmp_path / "usb-Ref_Shoe-if00", tmp_path / "control"
    os.mkfifo(fifo)
    script = tmp_path / "prompts.sh"
    script.write_text(  # one line per prompt: a card with a dead tag, then a tag
        f"[ \"$CONFORMANCE_ACTION\" = dead ] && printf 'blank\\n' > {fifo}\n"
        f"printf 'pass $CONFORMANCE_ANTENNA {UID}\\n' > {fifo}\n")
    async with ReferenceReader(reference_build, link, control=fifo, sensor=True):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "firmware_bridge", "conformance", str(link),
            "--script", str(script), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=ROOT)
        async with asyncio.timeout(60):
            out, err = await proc.communicate()
    lines = out.decode().splitlines()
    assert proc.returncode == 0, out.decode() + err.decode()
    assert all(ln.startswith("PASS  ") for ln in lines[:-1]), lines
    assert any("Link rules 2 (reliability): an unacknowledged TAG_SEEN" in ln for ln in lines)
    assert any("Messages (MISREAD): a card the passage sensor saw" in ln for ln in lines)
    assert lines[-1] == f"conformance: {len(lines) - 1} passed, 0 failed, 0 skipped"


@pytest.mark.parametrize("argv", [["--script", "/nonexistent/prompts.sh"]])
def test_bad_usage_is_one_clear_error(argv: list[str], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    from firmware_bridge.__main__ import main

    assert main(["conformance", str(tmp_path / "none"), *argv]) == 2
    assert capsys.readouterr().err.strip() == "conformance: no script file " + argv[1]
    assert main(["conformance", str(tmp_path / "none"), "--no-prompts"]) == 1
    assert "cannot open" in capsys.readouterr().err
