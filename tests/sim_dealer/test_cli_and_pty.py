"""The command line (a subprocess) and a served device: the dealer deals through a real pty to
a firmware_bridge host that opens it with pyserial, across an unplug and replug."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from firmware_bridge.client import DeviceClient, Disconnected
from firmware_bridge.messages import TagSeen
from hardware_sim.console import RecordingConsole
from hardware_sim.play import play_served
from hardware_sim.scenario import load_scenario
from tests.firmware_bridge.test_pty import Watch, reads
from tests.sim_dealer.conftest import ROOT, SCENARIOS


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hardware_sim", "play", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)


def test_play_a_scenario_from_the_command_line(tmp_path: Path) -> None:
    done = run_cli(str(SCENARIOS / "scripted-holdem-fl.toml"))
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("hand 1 sim-000001 holdem/fixed-limit: 14 cards, 9 actions")
    # money, as the live demo prints it (the table counts 100 units a dollar), not units
    assert "seat 3 wins 20.00" in first and "net seat 3 +10.00, seat 5 -10.00" in first
    assert first.endswith("check ok")
    bad = tmp_path / "bad.toml"
    bad.write_text('device = "camera"\n[game]\nvariant = "whist"\n')
    refused = run_cli(str(bad))
    assert refused.returncode == 2
    assert "device: 'camera' is not shoe or table" in refused.stdout
    assert "game.variant" in refused.stdout and "deck: required key is missing" in refused.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
async def test_served_on_a_pty_the_host_gets_every_card_across_an_unplug(
        tmp_path: Path) -> None:
    scenario = load_scenario(SCENARIOS / "fault-unplug.toml")
    ready = asyncio.Event()

    def on_ready(addresses: Mapping[str, str]) -> None:
        assert addresses == {"shoe": str(tmp_path / "shoe")}
        ready.set()

    play = asyncio.create_task(play_served(
        scenario, console=RecordingConsole(), pty_dir=tmp_path, pace=0.0, wait_host=10,
        on_ready=on_ready))
    await asyncio.wait_for(ready.wait(), 10)
    async with DeviceClient(str(tmp_path / "shoe"), backoff=(0.1,)) as client:
        watch = Watch(client)
        try:
            result = await asyncio.wait_for(play, 30)
            summary = result.summaries[0]
            await watch.until(lambda ev: len(reads(ev)) >= len(summary.cards), within=15)
            got = [scenario.deck.card_for(r.uid_hex) for r in reads(watch.events)]
            assert got == [d.card for d in summary.cards]
            assert any(isinstance(e, Disconnected) for e in watch.events)
            assert all(isinstance(r, TagSeen) for r in reads(watch.events))
        finally:
            await watch.stop()


async def test_served_on_tcp_the_host_gets_every_card() -> None:
    scenario = load_scenario(SCENARIOS / "clean-omaha-hi-lo-fl.toml")
    address: dict[str, str] = {}
    ready = asyncio.Event()

    def on_ready(addresses: Mapping[str, str]) -> None:
        address.update(addresses)
        ready.set()

    play = asyncio.create_task(play_served(
        scenario, console=RecordingConsole(), tcp_base=0, pace=0.0, wait_host=10,
        on_ready=on_ready))
    await asyncio.wait_for(ready.wait(), 10)
    assert address["shoe"].startswith("socket://127.0.0.1:")
    async with DeviceClient(address["shoe"], backoff=(0.1,)) as client:
        watch = Watch(client)
        try:
            result = await asyncio.wait_for(play, 30)
            cards = [d.card for d in result.summaries[0].cards]
            await watch.until(lambda ev: len(reads(ev)) >= len(cards), within=15)
            assert [scenario.deck.card_for(r.uid_hex) for r in reads(watch.events)] == cards
            assert result.wire["shoe"]                    # the tap saw the bytes it served
        finally:
            await watch.stop()
