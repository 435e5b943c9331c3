"""A read-only page server (Starlette on uvicorn): static files of one package and a stream of
server-sent events, nothing else. The floor page (``tablectl floor web``) and the tournament
page (``tablectl tournament web``) are each one: no login, and nothing can be sent from them.

A subclass names its files and its package, sets :attr:`ReadOnlyPage.hub`'s first message,
and gives the coroutines that feed the hub (:meth:`ReadOnlyPage.feeders`); :meth:`run` serves
until :meth:`stop`, and cancels them when it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Coroutine, Iterator, Mapping, Sequence
from importlib import resources
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Route

from tablectl.web.guard import GuardedH11
from tablectl.web.server import Hub

HEADERS: Mapping[str, str] = {
    "Content-Security-Policy": "default-src 'self'; object-src 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
"""Every response's headers: the page's own scripts and styles only, never in a frame."""


class _Server(uvicorn.Server):
    """uvicorn without its own signal capture (the command stops the page itself)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class ReadOnlyPage:
    """``/`` is ``index``, ``/static/{name}`` one of ``files`` (name: media type) from the
    ``static`` folder of ``package``, ``/events`` the hub's stream."""

    def __init__(self, *, package: str, index: str, files: Mapping[str, str],
                 first: str) -> None:
        self._package, self._index, self._files = package, index, dict(files)
        self.hub = Hub(first)
        self._server: uvicorn.Server | None = None
        self.app = Starlette(routes=[
            Route("/", self._page), Route("/static/{name}", self._static),
            Route("/events", self._events)])

    def feeders(self) -> Sequence[Coroutine[Any, Any, None]]:
        """The coroutines that feed :attr:`hub` while the page is served."""
        return ()

    async def _page(self, request: Request) -> Response:
        return self._file(self._index)

    async def _static(self, request: Request) -> Response:
        return self._file(str(request.path_params["name"]))

    def _file(self, name: str) -> Response:
        if name not in self._files:
            return Response("not found", status_code=404)
        text = resources.files(self._package).joinpath("static", name).read_text("utf-8")
        return HTMLResponse(text, media_type=self._files[name], headers=dict(HEADERS))

    async def _events(self, request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            async for chunk in self.hub.stream():
                yield chunk
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers=dict(HEADERS))

    async def serve(self, *, host: str, port: int, sock: socket.socket | None) -> None:
        """Serve until :meth:`stop`, with :meth:`feeders` running beside."""
        config = uvicorn.Config(self.app, host=host, port=port, log_config=None,
                                access_log=False, lifespan="off", ws="none",
                                timeout_graceful_shutdown=2, http=GuardedH11)
        self._server = _Server(config)
        tasks = [asyncio.create_task(c) for c in self.feeders()]
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


__all__ = ["HEADERS", "ReadOnlyPage"]
