"""``tablectl tournament web``: the tournament page for the room's TVs (Starlette on uvicorn).

An MQTT client follows the tournament's retained status (``poker/v1/tournaments/{id}/clock``);
:class:`~tablectl.tournament.board.TournamentBoard` decodes it; the page
(``static/tournament.html``) receives the board as server-sent events and counts the time
down by itself between two messages, from the time left and the moment it received it (so a
TV whose clock is wrong still shows the right time). Read-only: no login, nothing can be sent
from it (docs/tournament.md, "The tournament page").
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

from tablectl.publish.base import Subscriber
from tablectl.tournament.board import TournamentBoard
from tablectl.tournament.service import clock_topic
from tablectl.web.server import Hub

_STATIC = {"tournament.html": "text/html; charset=utf-8", "tournament.js": "text/javascript",
           "tournament.css": "text/css"}
_HEADERS = {"Content-Security-Policy": "default-src 'self'; object-src 'none'; "
                                       "frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


class _Server(uvicorn.Server):
    """uvicorn without its own signal capture (the command stops the page itself)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class TournamentPage:
    """The page server for one tournament: :meth:`run` until :meth:`stop`."""

    def __init__(self, feed: Subscriber, tournament: str) -> None:
        self.feed = feed
        self.topic = clock_topic(tournament).value
        self.board = TournamentBoard(tournament)
        self.hub = Hub(json.dumps(self.board.to_json()))
        self._server: uvicorn.Server | None = None
        self.app = Starlette(routes=[
            Route("/", self._page), Route("/static/{name}", self._static),
            Route("/events", self._events)])

    async def _page(self, request: Request) -> Response:
        return self._file("tournament.html")

    async def _static(self, request: Request) -> Response:
        return self._file(str(request.path_params["name"]))

    @staticmethod
    def _file(name: str) -> Response:
        if name not in _STATIC:
            return Response("not found", status_code=404)
        text = resources.files("tablectl.tournament").joinpath("static", name).read_text(
            "utf-8")
        return HTMLResponse(text, media_type=_STATIC[name], headers=_HEADERS)

    async def _events(self, request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            async for chunk in self.hub.stream():
                yield chunk
        return StreamingResponse(stream(), media_type="text/event-stream", headers=_HEADERS)

    async def _consume(self) -> None:
        await self.feed.subscribe(self.topic, qos=1)
        async for msg in self.feed.messages():
            if msg.topic.value == self.topic and self.board.on_status(msg.payload):
                self.hub.publish(json.dumps(self.board.to_json()))

    async def run(self, *, host: str = "127.0.0.1", port: int = 8091,
                  sock: socket.socket | None = None) -> None:
        """Serve until :meth:`stop`."""
        config = uvicorn.Config(self.app, host=host, port=port, log_config=None,
                                access_log=False, lifespan="off", ws="none",
                                timeout_graceful_shutdown=2)
        self._server = _Server(config)
        task = asyncio.create_task(self._consume())
        try:
            await self._server.serve(sockets=[sock] if sock is not None else None)
        finally:
            self.hub.close()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def stop(self) -> None:
        """End the event streams and stop serving."""
        self.hub.close()
        if self._server is not None:
            self._server.should_exit = True


__all__ = ["TournamentPage"]
