"""``GET /metrics`` on the event loop that owns what is measured.

prometheus_client's own server runs in a thread; a scrape would then read the daemon's state
(its outbox, its sources) from another thread while the loop changes it. This small HTTP/1.1
responder (one request per connection) runs as a task of the daemon's loop instead: a scrape
is a few microseconds of work between two inputs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Final

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from tablectl.domain.errors import ConfigError

_LOGGER = logging.getLogger(__name__)
_MAX_HEAD = 8192
MAX_OPEN: Final = 16
"""Connections answered at once; one past it is told ``503`` and closed. A scraper holds one;
without a cap, connections sending nothing for their 10 s each could take every file
descriptor of the process (the table daemon's: its journal, broker and readers)."""
_BUSY: Final = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                b"Connection: close\r\n\r\n")


async def _answer(registry: CollectorRegistry, reader: asyncio.StreamReader,
                  writer: asyncio.StreamWriter) -> None:
    try:
        async with asyncio.timeout(10):
            head = await reader.readuntil(b"\r\n\r\n")
    except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
            ConnectionError):
        writer.close()
        return
    parts = head.split(b"\r\n", 1)[0].split()
    method, path = (parts[0], parts[1]) if len(parts) >= 2 else (b"", b"")
    if method not in (b"GET", b"HEAD"):
        status, body, ctype = "405 Method Not Allowed", b"GET only\n", "text/plain"
    elif path.split(b"?", 1)[0] in (b"/metrics", b"/"):
        status, body, ctype = "200 OK", generate_latest(registry), CONTENT_TYPE_LATEST
    else:
        status, body, ctype = "404 Not Found", b"see /metrics\n", "text/plain"
    writer.write(f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}"
                 "\r\nConnection: close\r\n\r\n".encode("ascii"))
    if method != b"HEAD":
        writer.write(body)
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    writer.close()


@contextlib.asynccontextmanager
async def serve_metrics(registry: CollectorRegistry, host: str, port: int, *,
                        key: str = "metrics.port") -> AsyncIterator[int]:
    """Serve ``registry`` on ``host:port`` while the context is open; yields the bound port
    (``port`` 0 picks a free one).

    Raises:
        ConfigError: the address cannot be bound (in use, not local), named by ``key``.
    """
    open_now = 0
    refused = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal open_now, refused
        if open_now >= MAX_OPEN:
            refused += 1
            if refused == 1 or refused % 1000 == 0:
                _LOGGER.warning("metrics: %d connections refused: %d open already", refused,
                                MAX_OPEN)
            writer.write(_BUSY)
            writer.close()
            return
        open_now += 1
        try:
            await _answer(registry, reader, writer)
        finally:
            open_now -= 1

    try:
        server = await asyncio.start_server(handle, host, port, limit=_MAX_HEAD)
    except OSError as exc:
        raise ConfigError([(key, f"cannot serve metrics on {host}:{port}: "
                                 f"{exc.strerror or exc}")]) from exc
    bound = int(server.sockets[0].getsockname()[1])
    _LOGGER.info("metrics on http://%s:%d/metrics", host, bound)
    try:
        yield bound
    finally:
        server.close()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2):
                await server.wait_closed()
