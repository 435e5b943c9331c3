"""The seam between the web server and the MQTT broker.

The web package never imports an MQTT library (only ``tablectl.publish`` does). The composition
root hands the server two kinds of objects that satisfy the protocols below, built from
``tablectl.publish``'s client (or, in tests, any object of the same shape):

* a :class:`Feed` per subscription (public ``poker/`` topics with the web server's display
  credentials; the secure feed with the overlay's certificate), an async iterable of
  :data:`FeedItem`;
* a :class:`CommandChannel` that sends one dealer command under the console's broker user and
  returns the daemon's reply (MQTT 5 response topic + correlation data).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, TypeAlias

from tablectl.publish.topics import floor_stats


@dataclass(frozen=True, slots=True)
class Message:
    """One MQTT message as received: its topic and raw payload."""

    topic: str
    payload: bytes


class LinkState(StrEnum):
    """The web server's own connection to the broker."""

    UP = "up"
    DOWN = "down"


@dataclass(frozen=True, slots=True)
class LinkChange:
    """The feed's broker connection went up (subscriptions are in place) or down."""

    state: LinkState


FeedItem: TypeAlias = Message | LinkChange


class Feed(Protocol):
    """Messages of one subscription, with link changes in between; ends when closed.

    After every ``LinkChange(UP)`` the broker delivers the retained messages again, so a
    consumer rebuilds its view from them.
    """

    def __aiter__(self) -> AsyncIterator[FeedItem]:
        """Iterate over the items as they arrive."""
        ...


class CommandChannel(Protocol):
    """Sends one command to the table daemon and waits for its reply."""

    async def request(self, name: str, payload: bytes, *, expiry: float) -> bytes:
        """Publish ``payload`` to ``poker/v1/tables/{t}/cmd/{name}`` and return the reply.

        Args:
            name: the command name (``action``, ``undo``, ...).
            payload: the UTF-8 JSON command ``{"id", "args"}``.
            expiry: the command's MQTT message expiry, and how long to wait for the
                reply, in seconds.

        Raises:
            TimeoutError: no reply within ``expiry``.
            TablectlError: the command could not be published.
        """
        ...


def table_topics(table: str) -> tuple[str, str, str]:
    """The public topics a display subscribes to: state, events, status.

    >>> table_topics("t01")[0]
    'poker/v1/tables/t01/state'
    """
    base = f"poker/v1/tables/{table}"
    return (f"{base}/state", f"{base}/events", f"{base}/status")


def web_topics(table: str) -> tuple[str, ...]:
    """The public topics the web server subscribes to: the table's, and the floor's
    statistics of its seated players (only the overlay shows them, after the delay).

    >>> web_topics("t01")[3]
    'poker/v1/floor/tables/t01/stats'
    """
    return (*table_topics(table), floor_stats_topic(table))


def floor_stats_topic(table: str) -> str:
    """Where the floor publishes the statistics of the players seated at ``table``
    (docs/floor.md, "Published for the displays and the overlay")."""
    return floor_stats(table).value


def secure_topics(table: str) -> tuple[str, str, str]:
    """The secure-feed topics the broadcast overlay needs: hole cards, the full state, odds.

    >>> secure_topics("t01")
    ('secure/v1/tables/t01/holecards', 'secure/v1/tables/t01/state', 'secure/v1/tables/t01/odds')
    """
    base = f"secure/v1/tables/{table}"
    return (f"{base}/holecards", f"{base}/state", f"{base}/odds")
