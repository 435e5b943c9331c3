"""``tablectl floor web``: the floor page, every table live (Starlette on uvicorn).

An MQTT client subscribes to every table's ``state`` and ``status`` and to the floor service's
``poker/v1/floor/flags``; :class:`~tablectl.floor.board.FloorBoard` folds them; the page
(``static/floor.html``) receives the whole board as server-sent events, at most every
``throttle`` seconds. It is a read-only view: no login, nothing can be sent to a table from it.
Serve it on the floor network only (docs/floor.md).
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Coroutine, Sequence
from typing import Any

from tablectl.floor.board import FloorBoard
from tablectl.publish.base import Subscriber
from tablectl.publish.topics import PUBLIC_ROOT
from tablectl.web.readonly import ReadOnlyPage

FILTERS = (f"{PUBLIC_ROOT}/tables/+/state", f"{PUBLIC_ROOT}/tables/+/status",
           f"{PUBLIC_ROOT}/floor/flags")


class FloorPage(ReadOnlyPage):
    """The page server: :meth:`run` until :meth:`stop`."""

    def __init__(self, feed: Subscriber, *, throttle: float = 0.2) -> None:
        self.feed = feed
        self.board = FloorBoard()
        self.throttle = throttle
        self._dirty = asyncio.Event()
        super().__init__(package="tablectl.floor", index="floor.html",
                         files={"floor.html": "text/html; charset=utf-8",
                                "floor.js": "text/javascript", "floor.css": "text/css"},
                         first=json.dumps(self.board.to_json()))

    def feeders(self) -> Sequence[Coroutine[Any, Any, None]]:
        return (self._consume(), self._publish())

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
        await self.serve(host=host, port=port, sock=sock)


__all__ = ["FILTERS", "FloorPage"]
