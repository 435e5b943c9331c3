"""The dealer's side of a set-up dialogue (deck registration, verification, table
calibration) on a terminal: prompts on stdout, answers from stdin."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable


class TerminalDialogue:
    """Prompts on stdout; the dealer's lines from stdin, one per answer (a terminal, or a
    pipe or file when a script drives the command). A daemon thread reads stdin, so a read
    blocked on a terminal never holds up the exit."""

    def __init__(self, say: Callable[[str], None] | None = None) -> None:
        self._queue: asyncio.Queue[str | None] | None = None
        self._eof = False
        self._say = say

    def say(self, text: str) -> None:
        if self._say is not None:
            self._say(text)
        else:
            print(text, flush=True)

    async def readline(self) -> str | None:
        if self._eof:
            return None
        if self._queue is None:
            loop = asyncio.get_running_loop()
            queue: asyncio.Queue[str | None] = asyncio.Queue()
            self._queue = queue

            def pump() -> None:
                try:
                    while line := sys.stdin.readline():
                        loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\r\n"))
                    loop.call_soon_threadsafe(queue.put_nowait, None)
                except (RuntimeError, ValueError, OSError):
                    return  # the loop closed, or stdin did

            threading.Thread(target=pump, name="stdin", daemon=True).start()
        line = await self._queue.get()
        self._eof = line is None
        return line
