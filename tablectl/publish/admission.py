"""Which command messages reach the controller: refusals before any journal or controller
work, each user's rate limit, and the bounded record a refusal leaves. Sans-IO: the caller
passes the monotonic time and the wall-clock time of each message.

A message is refused here, in this order (docs/mqtt.md §8.4, "Refused before the
controller"):

1. ``bad_topic``: the topic is not ``poker/v1/tables/{t}/cmd/{name}/{user}``;
2. ``rate_limited``: the sender's token bucket is empty. Dealers and floor users each have a
   generous bucket (:attr:`AccessLimits.staff`), users of another role each a small one
   (:attr:`AccessLimits.user`), and every user with no role at this table shares one
   (:attr:`AccessLimits.strangers`): a flood from strangers costs the same however many
   names it uses. Only the first refusal of a run is answered; the rest are counted;
3. ``bad_request``: the payload is not a JSON object within the command limits
   (:func:`~tablectl.publish.commands.decode_command`);
4. ``bad_args``: not a command envelope; ``stale_command``: a retained message;
5. ``unknown_command``: no such command;
6. ``not_authorised``: the sender has no role here, or its role may not send this command.

Each refusal leaves a :class:`~tablectl.journal.RefusalRecord` (user, topic, size, SHA-256
of the payload, code, reason; never the payload), as long as the journal's own bucket
(:attr:`AccessLimits.records`) has a token; past it, and for every ``rate_limited`` refusal,
the refusal is only counted, and the counts go to the journal as one record per user and
code every :attr:`AccessLimits.aggregate_every` seconds (:meth:`Admission.due`). Every table
here is bounded: the buckets and the counts by :attr:`AccessLimits.max_users` users (least
recently seen dropped first).

>>> from datetime import UTC, datetime
>>> from tablectl.publish import topics
>>> gate = Admission("t1", {"d": "dealer"}, {"dealer": frozenset({"start_hand"})},
...                  AccessLimits(strangers=RateLimit(1.0, 1)))
>>> at = datetime(2026, 1, 1, tzinfo=UTC)
>>> msg = IncomingMessage(topics.cmd("t1", "start_hand", "mallory"), b'{"id":"x"}')
>>> [(t.code, t.reply is not None) for t in (gate.admit(msg, 0.0, at), gate.admit(msg, 0.1, at),
...                                           gate.admit(msg, 0.2, at))]
[('not_authorised', True), ('rate_limited', True), ('rate_limited', False)]
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from tablectl.controller.commands import COMMANDS
from tablectl.controller.inputs import Command
from tablectl.domain.strictjson import StrictJsonError
from tablectl.journal import RefusalRecord
from tablectl.journal.records import MAX_REFUSAL_TEXT
from tablectl.publish import topics
from tablectl.publish.base import IncomingMessage
from tablectl.publish.commands import (
    bounded,
    command_from_body,
    decode_command,
    refusal,
)
from tablectl.publish.envelope import ReplyPayload

JOURNAL_COMMANDS: Final = frozenset({"recall", "replay"})
"""Commands answered from the journal (any role may send them)."""

STAFF_ROLES: Final = frozenset({"dealer", "floor"})


@dataclass(frozen=True, slots=True)
class RateLimit:
    """A token bucket's shape: ``rate`` commands a second on average, ``burst`` at once."""

    rate: float
    burst: int

    def __post_init__(self) -> None:
        if not (0 < self.rate <= 1e6) or not (1 <= self.burst <= 1_000_000):
            raise ValueError(f"a rate limit needs 0 < rate <= 1e6 and 1 <= burst <= 1e6, "
                             f"not {self.rate}/{self.burst}")


@dataclass(frozen=True, slots=True)
class AccessLimits:
    """The rate limits of one table (config ``[access.rate_limit]``, README
    "Configuration")."""

    staff: RateLimit = RateLimit(500.0, 1000)
    """Each dealer and floor user (and the keypad's user, should it send over MQTT)."""
    user: RateLimit = RateLimit(5.0, 20)
    """Each user of another role (a display)."""
    strangers: RateLimit = RateLimit(5.0, 20)
    """All users with no role at this table, together."""
    records: RateLimit = RateLimit(20.0, 100)
    """Refusal records written to the journal, all users together; past it, counted."""
    max_users: int = 1024
    """Users whose buckets and counts are kept (least recently seen dropped first)."""
    aggregate_every: float = 60.0
    """Seconds between the journal records of counted refusals."""


class _Bucket:
    """One token bucket and whether its user is being refused (``limited``)."""

    __slots__ = ("limited", "stamp", "tokens")

    def __init__(self, limit: RateLimit, now: float) -> None:
        self.tokens = float(limit.burst)
        self.stamp = now
        self.limited = False

    def take(self, limit: RateLimit, now: float) -> bool:
        elapsed = max(0.0, now - self.stamp)
        self.stamp = now
        self.tokens = min(float(limit.burst), self.tokens + elapsed * limit.rate)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


@dataclass(slots=True)
class _Count:
    count: int = 0
    size: int = 0
    since: datetime | None = None


@dataclass(frozen=True, slots=True)
class Turned:
    """A message refused here.

    Attributes:
        code: the refusal's code.
        reply: the reply to send, None when none is owed (a run of ``rate_limited``).
        record: the refusal record to journal now, None when it was only counted.
    """

    code: str
    reply: ReplyPayload | None
    record: RefusalRecord | None = None


@dataclass
class Admission:
    """The refusals before the controller (see the module docstring).

    Args:
        table: the table id.
        roles: user -> role (the table's setup).
        permissions: role -> the commands it may send.
        limits: the rate limits.
    """

    table: str
    roles: Mapping[str, str]
    permissions: Mapping[str, frozenset[str]]
    limits: AccessLimits = field(default_factory=AccessLimits)
    _buckets: OrderedDict[str, _Bucket] = field(default_factory=OrderedDict, init=False)
    _records: _Bucket | None = field(default=None, init=False)
    _counts: OrderedDict[tuple[str, str], _Count] = field(default_factory=OrderedDict,
                                                         init=False)
    _flushed: float | None = field(default=None, init=False)

    # -- the checks ------------------------------------------------------------------------

    def admit(self, msg: IncomingMessage, now: float, at: datetime) -> Command | Turned:
        """The message's :class:`Command`, or why it is turned away.

        Args:
            msg: the message as received.
            now: monotonic seconds (the buckets' clock).
            at: the wall-clock time (the command's ``at``, the record's time).
        """
        try:
            parsed = topics.parse_command(msg.topic)
        except ValueError as exc:
            if not self._take("*", None, now):      # no user to answer: counted as strangers
                self._count("-", "bad_topic", len(msg.payload), at)
                return Turned("bad_topic", None)
            return self._turn(msg, now, at, None, refusal("unknown", "bad_topic", str(exc)))
        user = parsed.user
        role = self.roles.get(user)
        if not self._take(user, role, now):
            return self._limited(msg, user, role, at)
        try:
            body = decode_command(msg.payload)
        except StrictJsonError as exc:
            return self._turn(msg, now, at, user, refusal("unknown", "bad_request",
                                                          f"not a command: {exc}"))
        made = command_from_body(parsed, body, msg, at)
        if isinstance(made, ReplyPayload):
            return self._turn(msg, now, at, user, made)
        if made.name not in COMMANDS and made.name not in JOURNAL_COMMANDS:
            return self._turn(msg, now, at, user, refusal(
                made.id, "unknown_command", f"no command {made.name!r}"))
        if role is None:
            return self._turn(msg, now, at, user, refusal(
                made.id, "not_authorised", f"user {user!r} has no role at this table"))
        if made.name in COMMANDS and made.name not in self.permissions.get(role, ()):
            return self._turn(msg, now, at, user, refusal(
                made.id, "not_authorised", f"a {role} may not {made.name} (user {user!r})"))
        return made

    def _limit_of(self, role: str | None) -> RateLimit:
        if role is None:
            return self.limits.strangers
        return self.limits.staff if role in STAFF_ROLES else self.limits.user

    def _bucket(self, key: str, limit: RateLimit, now: float) -> _Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(limit, now)
            while len(self._buckets) > self.limits.max_users:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket

    def _take(self, user: str, role: str | None, now: float) -> bool:
        # strangers share one bucket: keyed by no user name a topic level can hold
        bucket = self._bucket(user if role is not None else "*", self._limit_of(role), now)
        if bucket.take(self._limit_of(role), now):
            bucket.limited = False
            return True
        return False

    def _limited(self, msg: IncomingMessage, user: str, role: str | None,
                 at: datetime) -> Turned:
        bucket = self._buckets[user if role is not None else "*"]
        self._count(user, "rate_limited", len(msg.payload), at)
        if bucket.limited:
            return Turned("rate_limited", None)
        bucket.limited = True
        limit = self._limit_of(role)
        return Turned("rate_limited", refusal("unknown", "rate_limited", (
            f"more than {limit.burst} commands at once or {limit.rate:g} a second from "
            f"{'users with no role here' if role is None else repr(user)}: refused until "
            "the rate drops (no reply to the rest)")))

    # -- records ---------------------------------------------------------------------------

    def _turn(self, msg: IncomingMessage, now: float, at: datetime, user: str | None,
              reply: ReplyPayload) -> Turned:
        error = reply.error
        assert error is not None
        records = self._records
        if records is None:
            records = self._records = _Bucket(self.limits.records, now)
        if not records.take(self.limits.records, now):
            self._count(user or "-", error.code, len(msg.payload), at)
            return Turned(error.code, reply)
        return Turned(error.code, reply, RefusalRecord(
            at=at, user=user, topic=bounded(msg.topic.value, MAX_REFUSAL_TEXT - 3),
            size=len(msg.payload), digest=hashlib.sha256(msg.payload).digest(),
            code=error.code, reason=bounded(error.message, MAX_REFUSAL_TEXT - 3)))

    def _count(self, user: str, code: str, size: int, at: datetime) -> None:
        key = (user, code)
        counted = self._counts.get(key)
        if counted is None:
            if len(self._counts) >= self.limits.max_users:
                key = ("*", code)          # beyond the table: counted together
                counted = self._counts.get(key)
            if counted is None:
                counted = self._counts[key] = _Count(since=at)
        counted.count += 1
        counted.size += size

    def due(self, now: float, at: datetime, *, force: bool = False) -> list[RefusalRecord]:
        """The records of the refusals counted since the last call that returned any, once
        :attr:`AccessLimits.aggregate_every` seconds have passed (or ``force``: at exit)."""
        if self._flushed is None:
            self._flushed = now
        if not self._counts or (not force
                                and now - self._flushed < self.limits.aggregate_every):
            return []
        self._flushed = now
        out = []
        for (user, code), counted in self._counts.items():
            since = counted.since.isoformat() if counted.since is not None else "?"
            out.append(RefusalRecord(
                at=at, user=None if user in ("*", "-") else user,
                topic=bounded(topics.cmd_filter(self.table), MAX_REFUSAL_TEXT - 3),
                size=counted.size, digest=None, code=code,
                reason=f"{counted.count} refused since {since}"
                       + (" (users beyond the table, together)" if user == "*" else ""),
                count=counted.count))
        self._counts.clear()
        return out

    @property
    def tracked_users(self) -> int:
        """Buckets kept (at most :attr:`AccessLimits.max_users`)."""
        return len(self._buckets)
