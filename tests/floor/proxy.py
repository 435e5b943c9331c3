"""A TCP relay between a table broker's bridge and the floor broker, that a test can cut.

The bridge connects to the relay, the relay to the floor broker; bytes (TLS included) pass
through untouched. :meth:`Relay.cut` closes every connection and refuses new ones for a
while: to the bridge it is exactly a network cut.
"""

from __future__ import annotations

import asyncio
import contextlib

from tests.conftest import free_port


class Relay:
    """``127.0.0.1:port`` -> ``target``; start with ``async with``."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.port = free_port()
        self.target = (target_host, target_port)
        self.cuts = 0
        self.ended = 0
        """Relayed connections that ended (either side closed them)."""
        self.last_traffic = 0.0
        """The event loop's time when bytes last crossed, either way."""
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> Relay:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        """Accept connections (again)."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def close(self) -> None:
        """Refuse new connections and drop every open one."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def cut(self, seconds: float) -> None:
        """A network cut of ``seconds``."""
        self.cuts += 1
        await self.close()
        await asyncio.sleep(seconds)
        await self.open()

    async def quiet(self, seconds: float) -> None:
        """Wait until nothing crossed for ``seconds``: what was in flight (the
        acknowledgements of messages already delivered) has been handed over."""
        loop = asyncio.get_running_loop()
        # (polled: a time since the last bytes, there is no event to wait for)
        while (idle := loop.time() - self.last_traffic) < seconds:  # noqa: ASYNC110
            await asyncio.sleep(seconds - idle)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        pumps = [asyncio.create_task(self._pump(reader, up_writer)),
                 asyncio.create_task(self._pump(up_reader, writer))]
        self._tasks.update(pumps)
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for w in (writer, up_writer):
            w.transport.abort()
            self._writers.discard(w)
        for task in pumps:
            task.cancel()
            self._tasks.discard(task)
        self.ended += 1

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                self.last_traffic = loop.time()
                writer.write(data)
                await writer.drain()
