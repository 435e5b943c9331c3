"""Connections as a hostile client holds them (tablectl/web/guard.py), over real sockets to
the real server (uvicorn with the guarded h11 protocol) on a real mosquitto.

Before: a connection sending half a request head was kept as long as its client liked, and
connections were accepted until the process ran out of file descriptors: 1100 of them from
one client kept every display's page away, and logged 100,000 accept errors in 15 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tablectl.web import guard

Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


async def connect(port: int, client: str = "127.0.0.1") -> Conn:
    """A connection from ``client`` (any 127.x.y.z address is this machine's loopback)."""
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(client, 0))


async def get(conn: Conn, path: str = "/", keep: bool = False) -> bytes:
    """Send a GET and read its response head and body (``keep``: a kept-alive connection,
    the body read by its length)."""
    reader, writer = conn
    close = "" if keep else "Connection: close\r\n"
    writer.write(f"GET {path} HTTP/1.1\r\nHost: t\r\n{close}\r\n".encode())
    await writer.drain()
    if not keep:
        try:
            return await asyncio.wait_for(reader.read(), 10)
        finally:
            writer.close()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    return head + await asyncio.wait_for(reader.readexactly(length), 10)


async def closed_by_server(conn: Conn, within: float = 10.0) -> bool:
    """True when the server ends the connection (EOF or reset) within ``within`` seconds."""
    try:
        data = await asyncio.wait_for(conn[0].read(1000), within)
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return data == b""


async def connections_of(stack: Any) -> set[object]:
    """The running server's open connections (uvicorn's own set), once it is serving."""
    for _ in range(500):
        server = stack.server._uvicorn
        if server is not None and server.started:
            return set(server.server_state.connections)
        await asyncio.sleep(0.02)
    raise AssertionError("the web server did not start")


async def server_holds(stack: Any, n: int) -> None:
    """Wait until the server has taken in (or let go of) connections to hold ``n``."""
    await connections_of(stack)
    state = stack.server._uvicorn.server_state
    for _ in range(500):
        if len(state.connections) == n:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the server holds {len(state.connections)} connections, not {n}")


@contextlib.asynccontextmanager
async def held(stack: Any, n: int, client: str = "127.0.0.1") -> AsyncIterator[list[Conn]]:
    """``n`` more connections from ``client``, each having sent half a request head, once
    the server holds them."""
    before = len(await connections_of(stack))
    conns = [await connect(port_of(stack.url), client) for _ in range(n)]
    for _, writer in conns:
        writer.write(b"GET / HTTP/1.1\r\nHost: t\r\n")
    await server_holds(stack, before + n)
    try:
        yield conns
    finally:
        for _, writer in conns:
            writer.close()
        await server_holds(stack, before)


async def test_a_head_that_does_not_come_whole_is_closed(
        stack_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "HEAD_TIMEOUT", 0.5)
    stack = await stack_factory()
    port = port_of(stack.url)
    before = guard.REFUSALS.counts.get("head too slow", 0)
    async with held(stack, 1) as (slow,):
        assert await closed_by_server(slow)
    # a kept-alive connection: the next head has the same deadline from the last response
    conn = await connect(port)
    assert b" 200 " in (await get(conn, keep=True)).split(b"\r\n")[0]
    conn[1].write(b"GET / HTTP/1.1\r\n")
    assert await closed_by_server(conn)
    conn[1].close()
    assert guard.REFUSALS.counts["head too slow"] == before + 2
    # a stream held open far past the deadline is a request in progress, never cut
    stream = await connect(port)
    stream[1].write(b"GET /events/public HTTP/1.1\r\nHost: t\r\n\r\n")
    assert b" 200 " in await asyncio.wait_for(stream[0].readline(), 10)
    assert not await closed_by_server(stream, within=2.0)
    stream[1].close()


async def test_one_client_past_its_cap_is_refused_and_others_are_served(
        stack_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "PER_CLIENT", 4)
    stack = await stack_factory()
    port = port_of(stack.url)
    async with held(stack, 4):
        refused = await get(await connect(port))
        assert refused.startswith(b"HTTP/1.1 503 ") and refused.endswith(b"too many connections\n")
        assert b" 200 " in (await get(await connect(port, "127.0.0.2"))).split(b"\r\n")[0]
    assert b" 200 " in (await get(await connect(port))).split(b"\r\n")[0]


async def test_the_server_past_its_cap_refuses_every_client(
        stack_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "MOST_CONNECTIONS", 16)
    stack = await stack_factory()
    port = port_of(stack.url)
    async with held(stack, 8, "127.0.0.3"), held(stack, 8, "127.0.0.4"):
        refused = await get(await connect(port, "127.0.0.5"))
        assert refused.startswith(b"HTTP/1.1 503 ")
    assert b" 200 " in (await get(await connect(port, "127.0.0.5"))).split(b"\r\n")[0]


@pytest.mark.parametrize(("files", "cap"), [(1024, 960), (200, 136), (40, 16),
                                            (4096, guard.MOST_CONNECTIONS)])
def test_the_cap_stays_under_the_process_file_limit(files: int, cap: int) -> None:
    out = subprocess.run(
        ["prlimit", f"--nofile={files}:{files}", sys.executable, "-c",
         "from tablectl.web.guard import connection_cap; print(connection_cap())"],
        capture_output=True, text=True, check=True, timeout=60)
    assert int(out.stdout) == cap
