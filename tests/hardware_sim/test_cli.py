"""``python -m hardware_sim serve`` as a user runs it, read by a firmware_bridge host."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

from firmware_bridge.client import Connected, Delivered, DeviceClient
from firmware_bridge.messages import TagSeen
from tablectl.domain.deck import Deck

ROOT = Path(__file__).resolve().parents[2]


async def test_serve_shoe_over_tcp_with_auto_draws(red_deck: Deck) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "hardware_sim", "serve", "shoe", "--tcp", "127.0.0.1:0",
        "--deck", str(ROOT / "config/decks/demo-red.csv"), "--seed", "5", "--auto", "0.05",
        stdout=subprocess.PIPE, cwd=ROOT)
    try:
        assert proc.stdout is not None
        first = (await asyncio.wait_for(proc.stdout.readline(), 20)).decode()
        url = first.split()[2]
        assert url.startswith("socket://127.0.0.1:")
        reads: list[TagSeen] = []
        async with asyncio.timeout(20), DeviceClient(url) as client:
            async for event in client.events():
                if isinstance(event, Connected):
                    assert event.peer.fw_version.startswith("hardware_sim")
                if isinstance(event, Delivered) and isinstance(event.message, TagSeen):
                    reads.append(event.message)
                    if len(reads) == 3:
                        break
        assert [r.index for r in reads] == [0, 1, 2]
        assert all(red_deck.card_for(r.uid_hex) is not None for r in reads)
    finally:
        proc.terminate()
        await proc.wait()


def test_a_shoe_without_a_deck_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, "-m", "hardware_sim", "serve", "shoe", "--tcp",
                           "127.0.0.1:0"], check=False, capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 2
    assert "needs a deck" in done.stderr


async def test_a_stopped_pty_shoe_takes_its_symlink_with_it(tmp_path: Path) -> None:
    """SIGTERM unplugs: the symlink goes, as udev removes a device's. A link left behind
    points at a pty number the system gives to the next pty opened, and a host retrying the
    path would open another device's port (seen in CI: one test's daemon took another
    test's shoe, and a card read with it)."""
    link = tmp_path / "shoe"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "hardware_sim", "serve", "shoe", "--pty", str(link),
        "--deck", str(ROOT / "config/decks/demo-red.csv"), stdout=subprocess.PIPE, cwd=ROOT)
    try:
        assert proc.stdout is not None
        first = (await asyncio.wait_for(proc.stdout.readline(), 20)).decode()
        assert first.startswith(f"shoe on {link} -> /dev/pts/"), first
        assert link.is_symlink()
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        assert not link.is_symlink()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
