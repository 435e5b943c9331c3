"""The reference firmware cross-built for a Cortex-M3 (QEMU's lm3s6965evb) and run in the
emulator: its protocol UART on a pty (behind a stable symlink, as the host build's), its
scripted radio's command line on the emulator's stdin/stdout. Built once per run with
``make arm`` (gcc-arm-none-eabi, newlib); skipped where the toolchain or QEMU is missing."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import re
import secrets
import shutil
import subprocess
from pathlib import Path
from types import TracebackType
from typing import Self

import pytest

from .harness import REFERENCE

PTY_LINE = re.compile(r"char device redirected to (/dev/pts/\d+) \(label serial0\)")


def build_emulated(common: Path) -> tuple[Path, str]:
    """``make arm`` into a folder of ``common`` (one build per run, under a lock); returns the
    ELF and the line the build printed about flash and RAM use."""
    for tool in ("make", "arm-none-eabi-gcc", "qemu-system-arm"):
        if shutil.which(tool) is None:
            pytest.skip(f"the emulated reader needs {tool} (.ci/setup.sh installs it as root)")
    key = hashlib.sha256(str(REFERENCE).encode()).hexdigest()[:12]
    build = common / f"reference-arm-{key}"
    build.mkdir(parents=True, exist_ok=True)
    with (common / f"reference-arm-{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        elf = build / "reader-lm3s6965.elf"
        elf.unlink(missing_ok=True)     # always relink, so the size line is printed
        done = subprocess.run(["make", "-s", "-C", str(REFERENCE), "arm", f"BUILD={build}"],
                              capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"make arm failed:\n{done.stdout}\n{done.stderr}")
    return elf, done.stdout.strip().splitlines()[-1]


class EmulatedReader:
    """``qemu-system-arm`` running the reader; the same command interface as
    :class:`~tests.firmware_reference.harness.ReferenceReader` for what a dealer does
    (``pass``, ``tag``, ``untag``)."""

    def __init__(self, elf: Path, link: Path) -> None:
        self.elf, self.link = elf, link
        self.boots: list[int] = []
        self._proc: asyncio.subprocess.Process | None = None
        self._replies: asyncio.Queue[str] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._booted = asyncio.Event()
        self._plugged = asyncio.Event()
        self._unanswered = 0

    async def __aenter__(self) -> Self:
        entropy = secrets.randbits(32)   # the emulated board has no RNG: a word at start
        self._proc = await asyncio.create_subprocess_exec(
            "qemu-system-arm", "-M", "lm3s6965evb", "-display", "none", "-monitor", "none",
            "-serial", "pty", "-serial", "stdio", "-kernel", str(self.elf),
            "-device", f"loader,addr=0x2000FFFC,data={entropy:#x},data-len=4",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL)
        self._reader = asyncio.create_task(self._read())
        async with asyncio.timeout(20):
            await self._plugged.wait()
            await self._booted.wait()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        proc = self._proc
        assert proc is not None
        if proc.returncode is None:
            proc.kill()
        await proc.wait()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self.link.unlink(missing_ok=True)

    async def _read(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        while raw := await proc.stdout.readline():
            line = raw.decode(errors="replace").strip()
            if m := PTY_LINE.search(line):
                tmp = self.link.with_name(f".{self.link.name}.new")
                tmp.unlink(missing_ok=True)
                tmp.symlink_to(m.group(1))
                tmp.replace(self.link)
                self._plugged.set()
            elif line.startswith("boot "):
                self.boots.append(int(line[5:], 16))
                self._booted.set()
            elif line.startswith(("ok ", "err ")):
                self._replies.put_nowait(line)

    @property
    def boot_id(self) -> int:
        """The current boot's id."""
        return self.boots[-1]

    async def command(self, line: str) -> None:
        """One radio command, answered ``ok`` (AssertionError on ``err``)."""
        self.send_nowait(line)
        await self.settle()

    def send_nowait(self, line: str) -> None:
        """Send a command without waiting; :meth:`settle` waits for the answers."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        proc.stdin.write(line.encode() + b"\n")
        self._unanswered += 1

    async def settle(self) -> None:
        """Wait until every command sent was applied."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        await proc.stdin.drain()
        while self._unanswered:
            async with asyncio.timeout(20):
                reply = await self._replies.get()
            self._unanswered -= 1
            assert reply.startswith("ok "), reply
