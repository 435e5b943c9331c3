"""The web server's connections, bounded: what one client, or many, can hold.

uvicorn's HTTP/1.1 protocol (h11) keeps a connection for as long as its client sends a
request head, however slowly, and accepts connections until the process runs out of file
descriptors. Then every display and console is locked out, and each refused accept is
logged with a traceback (measured: 1100 connections sending half a head, from one client,
held every page away for as long as they stayed open and logged 100,000 errors in 15 s).
:class:`GuardedH11` is that protocol with three bounds (docs/security.md §2.1):

* a request head must arrive whole within :data:`HEAD_TIMEOUT` seconds of the connection,
  or of the previous response on a kept-alive one; else the connection is closed;
* one client address holds at most :data:`PER_CLIENT` connections at once;
* the server holds at most :func:`connection_cap` in all, kept under the process's file
  limit so the broker links and files always have descriptors.

A connection past a cap is answered ``503`` and closed at once. Each kind of refusal is
logged the first time and then once a minute with its count.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import Any, Final

from uvicorn.protocols.http.h11_impl import H11Protocol

_LOGGER = logging.getLogger(__name__)

HEAD_TIMEOUT: Final = 10.0
"""Seconds a connection has to send a whole request head."""

PER_CLIENT: Final = 128
"""Connections one client address may hold at once. A display page holds one stream and a
few short requests; a TLS proxy on this machine is one client for all it forwards."""

MOST_CONNECTIONS: Final = 2048
"""The server's cap on connections where the file limit allows it."""

SPARE_FILES: Final = 64
"""File descriptors kept free for the broker links, the users file and the log."""

_BUSY: Final = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; "
                b"charset=utf-8\r\ncontent-length: 21\r\nconnection: close\r\n\r\n"
                b"too many connections\n")
_LOG_EVERY: Final = 60.0


def connection_cap() -> int:
    """The most connections the server holds: :data:`MOST_CONNECTIONS`, or fewer where the
    process's open-file limit is lower (at least 16)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MOST_CONNECTIONS
    return max(16, min(MOST_CONNECTIONS, soft - SPARE_FILES))


class _Refusals:
    """Counts each kind of refusal; logs the first, then once a minute with the count."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self._logged: dict[str, tuple[float, int]] = {}

    def note(self, kind: str, client: str) -> None:
        n = self.counts.get(kind, 0) + 1
        self.counts[kind] = n
        now = time.monotonic()
        last = self._logged.get(kind)
        if last is None or now - last[0] >= _LOG_EVERY:
            since = n - (last[1] if last else 0)
            _LOGGER.warning("web: %s (client %s; %d so far, %d since last said)", kind,
                            client, n, since)
            self._logged[kind] = (now, n)


REFUSALS: Final = _Refusals()
"""This process's refusals (``counts`` by kind: ``head too slow``, ``client over its
connection cap``, ``server at its connection cap``)."""


def _peer(conn: object) -> str | None:
    """A connection's client address (None where its protocol does not say)."""
    client = getattr(conn, "client", None)
    return str(client[0]) if isinstance(client, tuple) and client else None


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head and connection caps."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._waiting_after: object = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        peer = self.client[0] if self.client else "?"
        if len(self.connections) > connection_cap():
            self._refuse("server at its connection cap", peer)
        elif sum(_peer(c) == peer for c in self.connections) > PER_CLIENT:
            self._refuse("client over its connection cap", peer)
        else:
            self._await_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._head_timer is not None and self.cycle is not self._waiting_after:
            self._head_timer.cancel()           # a request head arrived whole
            self._head_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self._head_timer is None:
            self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().connection_lost(exc)

    def _await_head(self) -> None:
        self._waiting_after = self.cycle
        self._head_timer = self.loop.call_later(HEAD_TIMEOUT, self._head_late)

    def _head_late(self) -> None:
        self._head_timer = None
        idle = self.cycle is None or self.cycle.response_complete
        if self.cycle is self._waiting_after and idle and not self.transport.is_closing():
            REFUSALS.note("head too slow", self.client[0] if self.client else "?")
            self.transport.close()

    def _refuse(self, kind: str, peer: str) -> None:
        REFUSALS.note(kind, peer)
        self.transport.write(_BUSY)
        self.transport.close()
