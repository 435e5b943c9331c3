"""The metrics port as a hostile client uses it (tablectl/metrics/http.py), in the loop that
serves it, over real sockets: connections that send nothing cannot take every file descriptor
of the process (the table daemon's, when ``[metrics] port`` is set)."""

from __future__ import annotations

import asyncio

from prometheus_client import CollectorRegistry, Counter

from tablectl.metrics.http import MAX_OPEN, serve_metrics


async def scrape(port: int) -> bytes:
    """The answer to a scrape; ``b"refused"`` for 503 or a reset (the server closes a
    refused connection at once, so its unread request may turn the close into a reset)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
    try:
        answer = await asyncio.wait_for(reader.read(), 10)
    except ConnectionResetError:
        return b"refused"
    finally:
        writer.close()
    return b"refused" if answer.startswith(b"HTTP/1.1 503 ") else answer


async def test_connections_past_the_cap_are_refused_and_scrapes_go_on_after() -> None:
    registry = CollectorRegistry()
    Counter("tablectl_probe", "a probe", registry=registry).inc()
    async with serve_metrics(registry, "127.0.0.1", 0) as port:
        idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(MAX_OPEN)]
        try:
            await asyncio.sleep(0)
            for _ in range(200):            # until the server has taken the idle ones in
                answer = await scrape(port)
                if answer == b"refused":
                    break
                await asyncio.sleep(0.02)
            assert answer == b"refused"
        finally:
            for _, writer in idle:
                writer.close()
        for _ in range(200):                # until it has let them go
            answer = await scrape(port)
            if answer.startswith(b"HTTP/1.1 200 "):
                break
            await asyncio.sleep(0.02)
        assert b"tablectl_probe_total 1.0" in answer
