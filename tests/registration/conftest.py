"""Fixtures of the registration tests: the bridge tests' manual clock and leak check, the
demo decks, and a driver for ``tablectl`` run as a subprocess against a simulated reader."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from tests.firmware_bridge.conftest import (
    _no_leaked_tasks,
    blue_deck,
    clock,
    driver,
    red_deck,
)

__all__ = ["Cli", "_no_leaked_tasks", "blue_deck", "clock", "driver", "red_deck", "tablectl"]

ROOT = Path(__file__).resolve().parents[2]
DECKS = ROOT / "config" / "decks"


class Cli:
    """``python -m tablectl ...`` as a subprocess: read its stdout line by line, answer on its
    stdin. Every wait is bounded."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[str] = []

    async def expect(self, pattern: str, within: float = 15.0) -> re.Match[str]:
        """Read stdout lines until one matches ``pattern`` (regex search)."""
        assert self.proc.stdout is not None
        async with asyncio.timeout(within):
            while True:
                raw = await self.proc.stdout.readline()
                if not raw:
                    raise AssertionError(f"stdout ended before {pattern!r}; got {self.lines}")
                line = raw.decode().rstrip("\n")
                self.lines.append(line)
                m = re.search(pattern, line)
                if m:
                    return m

    async def send(self, line: str) -> None:
        """One line on the command's stdin."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        await self.proc.stdin.drain()

    async def finish(self, within: float = 20.0) -> tuple[int, str, str]:
        """Wait for the exit: ``(code, the rest of stdout, stderr)``."""
        async with asyncio.timeout(within):
            out, err = await self.proc.communicate()
        rest = out.decode()
        self.lines += rest.splitlines()
        assert self.proc.returncode is not None
        return self.proc.returncode, rest, err.decode()


@pytest.fixture
async def tablectl() -> AsyncIterator[Callable[..., Awaitable[Cli]]]:
    """Start ``tablectl ARGS`` (stdin a pipe unless ``stdin=`` says otherwise); every process
    is killed at the end of the test if it is still running."""
    procs: list[asyncio.subprocess.Process] = []

    async def start(*args: str, stdin: int = asyncio.subprocess.PIPE) -> Cli:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tablectl", "--log-level", "warning", *args,
            stdin=stdin, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            cwd=ROOT, env=env)
        procs.append(proc)
        return Cli(proc)

    yield start
    for proc in procs:
        if proc.returncode is None:
            proc.kill()
        with contextlib.suppress(Exception):
            await proc.communicate()
