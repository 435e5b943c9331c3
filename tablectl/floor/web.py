"""``tablectl floor web``: the floor page, every table live (Starlette on uvicorn).

An MQTT client subscribes to every table's ``state`` and ``status`` and to the floor service's
``poker/v1/floor/flags``; :class:`~tablectl.floor.board.FloorBoard` folds them; the page
(``static/floor.html``) receives the whole board as server-sent events, at most every
``throttle`` seconds. It is a read-only view: no login, nothing can be sent to a table from it.
Serve it on the floor network only (docs/floor.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Iterator
from importlib import resources

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Route

from tablectl.floor.board import FloorBoard
from tablectl.publish.base import Subscriber
from tablectl.publish.topics import PUBLIC_ROOT
from tablectl.web.server import Hub

FILTERS = (f"{PUBLIC_ROOT}/tables/+/state", f"{PUBLIC_ROOT}/tables/+/status",
           f"{PUBLIC_ROOT}/floor/flags")
_STATIC = {"floor.html": "text/html; charset=utf-8", "floor.js": "text/javascript",
           "floor.css": "text/css"}
_HEADERS = {"Content-Security-Policy": "default-src 'self'; object-src 'none'; "
                                       "frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


class _Server(uvicorn.Server):
    """uvicorn without its own signal capture (the command stops the page itself)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class FloorPage:
    """The page server: :meth:`run` until :meth:`stop`."""

    def __init__(self, feed: Subscriber, *, throttle: float = 0.2) -> None:
        self.feed = feed
        self.board = FloorBoard()
        self.hub = Hub(json.dumps(self.board.to_json()))
        self.throttle = throttle
        self._server: uvicorn.Server | None = None
        self._dirty = asyncio.Event()
        self.app = Starlette(routes=[
            Route("/", self._page), Route("/static/{name}", self._static),
            Route("/events", self._events)])

    async def _page(self, request: Request) -> Response:
        return self._file("floor.html")

    async def _static(self, request: Request) -> Response:
        return self._file(str(request.path_params["name"]))

    @staticmethod
    def _file(name: str) -> Response:
        if name not in _STATIC:
            return Response("not found", status_code=404)
        text = resources.files("tablectl.floor").joinpath("static", name).read_text("utf-8")
        return HTMLResponse(text, media_type=_STATIC[name], headers=_HEADERS)

    async def _events(self, request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            async for chunk in self.hub.stream():
                yield chunk
        return StreamingResponse(stream(), media_type="text/event-stream", headers=_HEADERS)

    async def _consume(self) -> None:
        for topic_filter in FILTERS:
            await self.feed.subscribe(topic_filter, qos=1)
        async for msg in self.feed.messages():
            if self.board.on_message(msg.topic.value, msg.payload):
                self._dirty.set()

    async def _publish(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            self.hub.publish(json.dumps(self.board.to_json()))
            await asyncio.sleep(self.throttle)

    async def run(self, *, host: str = "127.0.0.1", port: int = 8090,
                  sock: socket.socket | None = None) -> None:
        """Serve until :meth:`stop`."""
        config = uvicorn.Config(self.app, host=host, port=port, log_config=None,
                                access_log=False, lifespan="off", ws="none",
                                timeout_graceful_shutdown=2)
        self._server = _Server(config)
        tasks = [asyncio.create_task(self._consume()), asyncio.create_task(self._publish())]
        try:
            await self._server.serve(sockets=[sock] if sock is not None else None)
        finally:
            self.hub.close()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self) -> None:
        """End the event streams and stop serving."""
        self.hub.close()
        if self._server is not None:
            self._server.should_exit = True


__all__ = ["FILTERS", "FloorPage"]
