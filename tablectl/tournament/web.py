"""``tablectl tournament web``: the tournament page for the room's TVs (Starlette on uvicorn).

An MQTT client follows the tournament's retained status (``poker/v1/tournaments/{id}/clock``);
:class:`~tablectl.tournament.board.TournamentBoard` decodes it; the page
(``static/tournament.html``) receives the board as server-sent events and counts the time
down by itself between two messages, from the time left and the moment it received it (so a
TV whose clock is wrong still shows the right time). Read-only: no login, nothing can be sent
from it (docs/tournament.md, "The tournament page").
"""

from __future__ import annotations

import json
import socket
from collections.abc import Coroutine, Sequence
from typing import Any

from tablectl.publish.base import Subscriber
from tablectl.tournament.board import TournamentBoard
from tablectl.tournament.service import clock_topic
from tablectl.web.readonly import ReadOnlyPage


class TournamentPage(ReadOnlyPage):
    """The page server for one tournament: :meth:`run` until :meth:`stop`."""

    def __init__(self, feed: Subscriber, tournament: str) -> None:
        self.feed = feed
        self.topic = clock_topic(tournament).value
        self.board = TournamentBoard(tournament)
        super().__init__(package="tablectl.tournament", index="tournament.html",
                         files={"tournament.html": "text/html; charset=utf-8",
                                "tournament.js": "text/javascript",
                                "tournament.css": "text/css"},
                         first=json.dumps(self.board.to_json()))

    def feeders(self) -> Sequence[Coroutine[Any, Any, None]]:
        return (self._consume(),)

    async def _consume(self) -> None:
        await self.feed.subscribe(self.topic, qos=1)
        async for msg in self.feed.messages():
            if msg.topic.value == self.topic and self.board.on_status(msg.payload):
                self.hub.publish(json.dumps(self.board.to_json()))

    async def run(self, *, host: str = "127.0.0.1", port: int = 8091,
                  sock: socket.socket | None = None) -> None:
        """Serve until :meth:`stop`."""
        await self.serve(host=host, port=port, sock=sock)


__all__ = ["TournamentPage"]
