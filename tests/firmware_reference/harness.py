"""The reference firmware's host build as a child process: built once per test run with make
(gcc, ASan and UBSan), its UART a real pty behind a stable symlink, its radio scripted on
stdin (``firmware_bridge/reference/host/host_main.c`` lists the commands)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "firmware_bridge" / "reference"
SANITIZER_MARKS = ("AddressSanitizer", "runtime error:", "LeakSanitizer")


def build_reference(common: Path) -> Path:
    """``make host`` into a ``reference-build-*`` folder of ``common`` (one build for every
    xdist worker, under a file lock); returns the build directory. Skips the test when there
    is no C compiler."""
    if shutil.which("make") is None or shutil.which(os.environ.get("CC", "gcc")) is None:
        pytest.skip("the reference firmware needs make and gcc")
    key = hashlib.sha256(str(REFERENCE).encode()).hexdigest()[:12]   # one per checkout
    build = common / f"reference-build-{key}"
    build.mkdir(parents=True, exist_ok=True)
    with (common / f"reference-build-{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(["make", "-s", "-j2", "-C", str(REFERENCE), "host",
                               f"BUILD={build}"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"make host failed:\n{done.stdout}\n{done.stderr}")
    return build


def sanitizer_report(text: str) -> str | None:
    """The first sanitizer finding in a process's stderr, or None."""
    for line in text.splitlines():
        if any(mark in line for mark in SANITIZER_MARKS):
            return line
    return None


class ReferenceReader:
    """``reader-host`` running, its pty behind ``link``.

    Use as ``async with ReferenceReader(build, link) as reader``; :meth:`command` sends one
    line and waits for the firmware's ``ok`` (an ``err`` raises AssertionError). Leaving
    the block quits the firmware and fails on any sanitizer report.
    """

    def __init__(self, build: Path, link: Path, *, kind: str = "shoe", antennas: int = 1,
                 store: Path | None = None, gone_ms: int = 100, poll_ms: int = 5,
                 control: Path | None = None, sensor: bool = False) -> None:
        self.argv = [str(build / "reader-host"), "--link", str(link), "--kind", kind,
                     "--antennas", str(antennas), "--gone", str(gone_ms), "--poll",
                     str(poll_ms)]
        if store is not None:
            self.argv += ["--store", str(store)]
        if control is not None:       # a named pipe other processes write commands into
            self.argv += ["--control", str(control)]
        if sensor:                    # a shoe with a card-passage sensor
            self.argv += ["--sensor", "1"]
        self.link = link
        self.stderr_path = link.with_name(link.name + ".stderr")
        self.boots: list[int] = []
        self.indications: list[str] = []
        self.stats: dict[str, str] = {}
        self._proc: asyncio.subprocess.Process | None = None
        self._replies: asyncio.Queue[str] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._booted = asyncio.Event()
        self._unanswered = 0

    async def __aenter__(self) -> Self:
        with self.stderr_path.open("wb") as err:
            self._proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=err)
        self._reader = asyncio.create_task(self._read())
        async with asyncio.timeout(20):
            await self._booted.wait()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        with contextlib.suppress(ConnectionError):
            proc.stdin.write(b"quit\n")
            await proc.stdin.drain()
        try:
            async with asyncio.timeout(10):
                await proc.wait()
        except TimeoutError:
            proc.kill()
            await proc.wait()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        report = sanitizer_report(self.stderr_path.read_text(errors="replace"))
        if exc_type is None:
            assert report is None, f"sanitizer: {report}"
            assert proc.returncode == 0, f"reader-host exited {proc.returncode}"

    async def _read(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        while line := (await proc.stdout.readline()).decode().strip():
            word, _, rest = line.partition(" ")
            if word == "boot":
                self.boots.append(int(rest, 16))
                self._booted.set()
            elif word == "indicate":
                self.indications.append(rest)
            elif word == "stats":
                self.stats = dict(kv.split("=", 1) for kv in rest.split())
            elif word in {"ok", "err"}:
                self._replies.put_nowait(line)

    @property
    def boot_id(self) -> int:
        """The current boot's id."""
        return self.boots[-1]

    async def command(self, line: str) -> None:
        """Send one command line and wait until the firmware applied it.

        Raises:
            AssertionError: the firmware answered ``err``.
        """
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        proc.stdin.write(line.encode() + b"\n")
        await proc.stdin.drain()
        async with asyncio.timeout(10):
            reply = await self._replies.get()
        assert reply.startswith("ok "), reply

    def send_nowait(self, line: str) -> None:
        """Send a command without waiting (from synchronous code); :meth:`settle` waits for
        the answers of every such command."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        proc.stdin.write(line.encode() + b"\n")
        self._unanswered += 1

    async def settle(self) -> None:
        """Wait until every command sent with :meth:`send_nowait` was applied.

        Raises:
            AssertionError: the firmware answered one of them with ``err``.
        """
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        await proc.stdin.drain()
        while self._unanswered:
            async with asyncio.timeout(10):
                reply = await self._replies.get()
            self._unanswered -= 1
            assert reply.startswith("ok "), reply

    async def commands(self, lines: Sequence[str]) -> None:
        """Several commands, in order."""
        for line in lines:
            await self.command(line)

    async def read_stats(self) -> dict[str, str]:
        """The firmware's counters (``stats``)."""
        await self.command("stats")
        return self.stats
