"""The MQTT topic tree (docs/mqtt.md §1) as code.

::

    poker/v1/tables/{t}/state                 retained public snapshot
    poker/v1/tables/{t}/events                one sequenced event per message
    poker/v1/tables/{t}/status                retained birth / LWT (online, offline)
    poker/v1/tables/{t}/cmd/{name}/{user}     dealer commands in; {user} = the publisher's
                                              MQTT username, enforced by the broker ACL
                                              ``pattern write poker/v1/tables/+/cmd/+/%u``
    poker/v1/replies/{user}/{rest...}         command replies, readable only by {user}
    poker/v1/clients/{user}/status            every client's own birth / LWT
    secure/v1/tables/{t}/holecards            live hole cards (separate root, mTLS only)
    secure/v1/tables/{t}/state                secure snapshot
    secure/v1/tables/{t}/odds                 live odds of the live players (not retained)

Secret data goes only under the secure root: :func:`check_publishable` refuses a secret
payload on any other topic, and every publisher calls it.

>>> state("t07")
Topic(value='poker/v1/tables/t07/state')
>>> cmd("t07", "start_hand", "dealer-t07").value
'poker/v1/tables/t07/cmd/start_hand/dealer-t07'
>>> parse_command(Topic("poker/v1/tables/t07/cmd/void_hand/dealer-t07"))
CommandTopic(table='t07', name='void_hand', user='dealer-t07')
>>> secure_holecards("t07").is_secure
True
>>> check_publishable(events("t07"), secret=True)
Traceback (most recent call last):
...
tablectl.publish.topics.SecretTopicError: secret payload refused on public topic \
poker/v1/tables/t07/events
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from tablectl.publish.errors import PublishError

PUBLIC_ROOT: Final = "poker/v1"
SECURE_ROOT: Final = "secure/v1"

_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


class TopicError(PublishError, ValueError):
    """A malformed topic or topic segment."""


class SecretTopicError(PublishError, ValueError):
    """A secret payload addressed to a topic outside the secure root (``.topic`` says which)."""

    def __init__(self, topic: Topic) -> None:
        super().__init__(f"secret payload refused on public topic {topic.value}", topic.value)


@dataclass(frozen=True, slots=True)
class Topic:
    """A concrete MQTT topic name (no wildcards, no empty levels, not ``$``-reserved).

    >>> Topic("poker/v1/tables/+/state")
    Traceback (most recent call last):
    ...
    tablectl.publish.topics.TopicError: invalid topic: 'poker/v1/tables/+/state'
    """

    value: str

    def __post_init__(self) -> None:
        v = self.value
        if (not isinstance(v, str) or not v or "+" in v or "#" in v or "\x00" in v
                or v.startswith("$") or "" in v.split("/")
                or len(v.encode("utf-8")) > 65535):
            raise TopicError(f"invalid topic: {v!r}")

    @property
    def levels(self) -> tuple[str, ...]:
        """The topic's levels."""
        return tuple(self.value.split("/"))

    @property
    def is_secure(self) -> bool:
        """True for topics under the secure root (``secure/v1/...``)."""
        return self.value.startswith(SECURE_ROOT + "/")

    def __str__(self) -> str:
        """The topic string."""
        return self.value


def segment(value: str, what: str = "topic segment") -> str:
    """Validate one topic level built from data (table id, user, command name).

    Letters, digits, ``_ . -``, starting with a letter or digit, at most 64 characters: no
    ``/``, no wildcards, nothing a broker ACL ``%u`` substitution would refuse.

    Raises:
        TopicError: anything else.
    """
    if not isinstance(value, str) or not _SEGMENT.match(value):
        raise TopicError(f"invalid {what}: {value!r}")
    return value


def _table(t: str) -> str:
    return f"{PUBLIC_ROOT}/tables/{segment(t, 'table id')}"


def state(t: str) -> Topic:
    """``poker/v1/tables/{t}/state``: the retained public snapshot."""
    return Topic(f"{_table(t)}/state")


def events(t: str) -> Topic:
    """``poker/v1/tables/{t}/events``: the sequenced public event stream."""
    return Topic(f"{_table(t)}/events")


def status(t: str) -> Topic:
    """``poker/v1/tables/{t}/status``: the controller's retained birth and LWT."""
    return Topic(f"{_table(t)}/status")


def floor_stats(t: str) -> Topic:
    """``poker/v1/floor/tables/{t}/stats``: the floor's statistics of the players seated at
    table ``t``, retained (docs/floor.md, "Published for the displays and the overlay")."""
    return Topic(f"{PUBLIC_ROOT}/floor/tables/{segment(t, 'table id')}/stats")


def cmd(t: str, name: str, user: str) -> Topic:
    """``poker/v1/tables/{t}/cmd/{name}/{user}``: where console ``user`` sends command ``name``.

    The last level is the sender's MQTT username; the broker's ACL
    (``pattern write poker/v1/tables/+/cmd/+/%u``) refuses any other value, so the controller
    can trust it (docs/mqtt.md, "Who sent a command").
    """
    return Topic(f"{_table(t)}/cmd/{segment(name, 'command name')}/{segment(user, 'user')}")


def cmd_filter(t: str) -> str:
    """The subscription filter for every command to table ``t``: ``.../cmd/+/+``."""
    return f"{_table(t)}/cmd/+/+"


@dataclass(frozen=True, slots=True)
class CommandTopic:
    """A parsed command topic."""

    table: str
    name: str
    user: str


def parse_command(topic: Topic) -> CommandTopic:
    """Split a command topic into table, command name and sender.

    Raises:
        TopicError: ``topic`` is not ``poker/v1/tables/{t}/cmd/{name}/{user}``.
    """
    levels = topic.levels
    root = tuple(PUBLIC_ROOT.split("/"))
    if len(levels) != len(root) + 5 or levels[:len(root)] != root or \
            levels[len(root)] != "tables" or levels[len(root) + 2] != "cmd":
        raise TopicError(f"not a command topic: {topic.value!r}")
    t, name, user = levels[len(root) + 1], levels[-2], levels[-1]
    return CommandTopic(segment(t, "table id"), segment(name, "command name"),
                        segment(user, "user"))


def reply(user: str, *rest: str) -> Topic:
    """``poker/v1/replies/{user}/{rest...}``: a reply area only ``user`` can read.

    >>> reply("dealer-t07", "console-1", "void_hand").value
    'poker/v1/replies/dealer-t07/console-1/void_hand'
    """
    tail = "/".join(segment(r, "reply level") for r in rest)
    return Topic(f"{PUBLIC_ROOT}/replies/{segment(user, 'user')}" + (f"/{tail}" if tail else ""))


def check_reply_topic(user: str, topic: str) -> Topic:
    """Validate a client-supplied MQTT 5 response topic for a command sent by ``user``.

    The controller may write anywhere under ``poker/v1/replies/``; this makes sure a command
    from ``user`` can only be answered into ``user``'s own reply area, so no one can use the
    controller to write into another user's replies.

    Raises:
        TopicError: ``topic`` is malformed or outside ``poker/v1/replies/{user}/``.
    """
    parsed = Topic(topic)
    prefix = reply(user).value + "/"
    if not parsed.value.startswith(prefix):
        raise TopicError(f"response topic {topic!r} is outside {prefix}")
    return parsed


def client_status(user: str) -> Topic:
    """``poker/v1/clients/{user}/status``: a display's or console's own birth / LWT."""
    return Topic(f"{PUBLIC_ROOT}/clients/{segment(user, 'user')}/status")


def secure_holecards(t: str) -> Topic:
    """``secure/v1/tables/{t}/holecards``: live hole cards, mTLS consumers only."""
    return Topic(f"{SECURE_ROOT}/tables/{segment(t, 'table id')}/holecards")


def secure_state(t: str) -> Topic:
    """``secure/v1/tables/{t}/state``: the secure snapshot (not retained on a persistent broker)."""
    return Topic(f"{SECURE_ROOT}/tables/{segment(t, 'table id')}/state")


def secure_odds(t: str) -> Topic:
    """``secure/v1/tables/{t}/odds``: live odds (derived from hole cards: secure root only)."""
    return Topic(f"{SECURE_ROOT}/tables/{segment(t, 'table id')}/odds")


def check_publishable(topic: Topic, *, secret: bool) -> None:
    """Refuse a secret payload outside the secure root.

    Every :class:`~tablectl.publish.base.Publisher` calls this before sending; the controller
    marks hole cards (and anything else not yet revealed) ``secret=True``.

    Raises:
        SecretTopicError: ``secret`` and ``topic`` is not under ``secure/v1/``.
    """
    if secret and not topic.is_secure:
        raise SecretTopicError(topic)


def topic_matches(topic_filter: str, topic: Topic) -> bool:
    """MQTT filter matching (``+`` one level, ``#`` the rest), as a broker does it.

    >>> topic_matches("poker/v1/tables/+/cmd/#", cmd("t07", "undo", "d1"))
    True
    >>> topic_matches("poker/#", secure_state("t07"))
    False
    """
    flt = topic_filter.split("/")
    levels = topic.levels
    for i, part in enumerate(flt):
        if part == "#":
            return i < len(levels) or i == len(levels)
        if i >= len(levels) or (part != "+" and part != levels[i]):
            return False
    return len(flt) == len(levels)
