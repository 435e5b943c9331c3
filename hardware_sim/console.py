"""Dealer consoles for the simulated dealer: the MQTT command API, and an in-memory recorder.

Both implement :class:`Console`, the simulated dealer's console (``await console.command(name,
args)`` returns the reply dict ``{"id", "ok", "result"}`` or ``{"id", "ok": false, "error"}``;
``await console.wait_turn(turn)`` returns once the daemon expects that decision).

* :class:`MqttConsole` — publishes ``{"id", "args"}`` to
  ``poker/v1/tables/{t}/cmd/{name}/{user}`` as an MQTT 5 request (ResponseTopic under
  ``poker/v1/replies/{user}/``, CorrelationData, MessageExpiryInterval) through
  :class:`tablectl.publish.mqtt.MqttPublisher`, and waits for the daemon's reply; it follows
  the table's retained state snapshot (``poker/v1/tables/{t}/state``) so the dealer can wait
  for its turn (:mod:`hardware_sim.turns`).
* :class:`RecordingConsole` — records every command and answers ``ok`` (or a configured
  refusal), for unit tests and the engine-only dry run; every turn is there at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Final, Protocol, Self
from urllib.parse import urlsplit

from hardware_sim.errors import TurnTimeoutError
from hardware_sim.turns import SnapshotWatch, Turn, mismatch
from tablectl.config_urls import check_broker_url
from tablectl.publish import topics
from tablectl.publish.base import MessageProps
from tablectl.publish.mqtt import MqttPublisher
from tablectl.publish.mqtt_settings import MqttSettings

TURN_WAIT: Final = 120.0
"""Seconds the MQTT console waits for the daemon to expect a decision: a guard against a
daemon that stopped, not a pace (the wait ends as soon as the snapshot shows the turn). On a
2-core machine with a load average of 25, a daemon once took more than 30 s to report the
first cards of a demo hand its device had sent (the dealer is then right to wait: a decision
sent sooner is refused ``out_of_turn``)."""


class Console(Protocol):
    """The dealer console: one command, one reply (``{"id", "ok", "result"|"error"}``)."""

    async def command(self, name: str, args: Mapping[str, object]) -> Mapping[str, object]:
        """Send command ``name`` with ``args``; return the daemon's reply.

        Raises:
            TimeoutError: no reply in time (MQTT consoles).
        """
        ...

    async def wait_turn(self, turn: Turn) -> None:
        """Return once the daemon expects ``turn``'s decision (its cards all read).

        Raises:
            hardware_sim.errors.TurnTimeoutError: not within the console's turn timeout.
        """
        ...


@dataclass(frozen=True, slots=True)
class ConsoleCommand:
    """A command as sent: its ``id``, ``name`` and ``args``."""

    id: str
    name: str
    args: Mapping[str, object] = field(default_factory=dict)

    def payload(self) -> bytes:
        """The JSON request payload ``{"id", "args"}``."""
        return json.dumps({"id": self.id, "args": dict(self.args)},
                          separators=(",", ":")).encode()


class RecordingConsole:
    """Records commands and replies ``ok`` (deterministic ids ``{prefix}-{n}``).

    Args:
        on_command: called with each command as it is sent (e.g. ``timeline.append`` of a
            loopback, so the dry-run check sees reads and commands in order).
        refuse: command name -> error code to answer with ``ok: false``.
        prefix: id prefix.
    """

    def __init__(self, *, on_command: Callable[[ConsoleCommand], None] | None = None,
                 refuse: Mapping[str, str] | None = None, prefix: str = "sim") -> None:
        self.commands: list[ConsoleCommand] = []
        self._on_command = on_command
        self._refuse = dict(refuse or {})
        self._prefix = prefix
        self._count = itertools.count(1)

    async def command(self, name: str, args: Mapping[str, object]) -> Mapping[str, object]:
        """See :class:`Console`."""
        cmd = ConsoleCommand(f"{self._prefix}-{next(self._count)}", name, dict(args))
        self.commands.append(cmd)
        if self._on_command is not None:
            self._on_command(cmd)
        code = self._refuse.get(name)
        if code is not None:
            return {"id": cmd.id, "ok": False,
                    "error": {"code": code, "reason": f"{name} refused (RecordingConsole)"}}
        return {"id": cmd.id, "ok": True, "result": {}}

    async def wait_turn(self, turn: Turn) -> None:
        """See :class:`Console`: the recorder has no daemon to wait for."""


class MqttConsole:
    """The daemon's command API over MQTT 5 request/response.

    Use as ``async with MqttConsole.connect("mqtt://127.0.0.1:1883", table="t01",
    user="dealer-t01") as console: reply = await console.command("undo", {})``, or wrap an
    :class:`MqttPublisher` you already entered (``MqttConsole(client, table=..., user=...)``).

    Args:
        client: a connected MQTT client (entered by the caller, unless built by
            :meth:`connect`).
        table: the table id. user: the broker username commands are sent under (the last
            level of the command topic; the broker ACL pins it to the sender).
        timeout: seconds to wait for a reply (also the message expiry).
        turn_timeout: seconds :meth:`wait_turn` waits for the daemon's snapshot to expect the
            decision. follow_state: subscribe to the table's state topic (False: a stand-in
            daemon that publishes no snapshot; :meth:`wait_turn` then returns at once).
    """

    def __init__(self, client: MqttPublisher, *, table: str, user: str,
                 timeout: float = 10.0, owns_client: bool = False,
                 turn_timeout: float = TURN_WAIT, follow_state: bool = True) -> None:
        self._client = client
        self.table = topics.segment(table, "table id")
        self.user = topics.segment(user, "user")
        self.timeout = timeout
        self._owns = owns_client
        self.reply_topic = topics.reply(user, f"sim-{secrets.token_hex(4)}")
        self._pending: dict[bytes, asyncio.Future[bytes]] = {}
        self._task: asyncio.Task[None] | None = None
        self._ids = itertools.count(1)
        self._token = secrets.token_hex(3)
        self.commands: list[ConsoleCommand] = []
        self.turn_timeout = turn_timeout
        self._follow = follow_state
        self._state_topic = topics.state(self.table)
        self._watch = SnapshotWatch()
        self._changed = asyncio.Event()

    @classmethod
    def connect(cls, url: str, *, table: str, user: str, password: str | None = None,
                timeout: float = 10.0, turn_timeout: float = TURN_WAIT,
                follow_state: bool = True) -> MqttConsole:
        """A console with its own client for broker ``mqtt://host:port`` (enter it).

        Raises:
            ValueError: not an ``mqtt://host:port`` URL.
        """
        parts = urlsplit(check_broker_url(url, schemes=("mqtt",), port_required=False))
        settings = MqttSettings(host=parts.hostname or "127.0.0.1", port=parts.port or 1883,
                                client_id=f"{user}-sim-{secrets.token_hex(3)}",
                                username=user, password=password, session_expiry=0,
                                connect_timeout=timeout)
        return cls(MqttPublisher(settings), table=table, user=user, timeout=timeout,
                   owns_client=True, turn_timeout=turn_timeout, follow_state=follow_state)

    async def __aenter__(self) -> Self:
        """Connect (if owned), subscribe to the reply topic (and the state topic), start
        reading."""
        if self._owns:
            await self._client.__aenter__()
        try:
            await self._client.subscribe(self.reply_topic.value, qos=1)
            if self._follow:
                await self._client.subscribe(self._state_topic.value, qos=1)
        except BaseException:
            if self._owns:
                await self._client.__aexit__(None, None, None)
            raise
        self._task = asyncio.create_task(self._read())
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._owns:
            await self._client.__aexit__(exc_type, exc, tb)

    async def _read(self) -> None:
        async for msg in self._client.messages():
            if msg.topic == self._state_topic:
                if self._watch.feed(msg.payload):
                    self._changed.set()
                continue
            if msg.topic != self.reply_topic:
                continue
            corr = msg.props.correlation_data
            fut = self._pending.get(corr) if corr is not None else None
            if fut is not None and not fut.done():
                fut.set_result(msg.payload)

    async def command(self, name: str, args: Mapping[str, object]) -> Mapping[str, object]:
        """See :class:`Console`.

        Raises:
            TimeoutError: no reply within ``timeout`` seconds.
            ValueError: the reply is not a JSON object.
            tablectl.publish.errors.PublishError: the broker refused or the link is down.
        """
        cmd = ConsoleCommand(f"sim-{self._token}-{next(self._ids)}", name, dict(args))
        corr = cmd.id.encode()
        fut: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._pending[corr] = fut
        self.commands.append(cmd)
        try:
            await self._client.publish(
                topics.cmd(self.table, name, self.user), cmd.payload(), qos=1,
                props=MessageProps(response_topic=self.reply_topic.value, correlation_data=corr,
                                   message_expiry=max(1, round(self.timeout)),
                                   content_type="application/json"))
            async with asyncio.timeout(self.timeout):
                raw = await fut
        finally:
            self._pending.pop(corr, None)
        try:
            reply = json.loads(raw)
        except RecursionError:
            raise ValueError(f"reply to {name} is nested too deep") from None
        if not isinstance(reply, dict):
            raise ValueError(f"reply to {name} is not a JSON object: {raw[:80]!r}")
        return normalise_reply(reply)

    @property
    def snapshot(self) -> Mapping[str, object] | None:
        """The newest public snapshot of the table seen (None: none yet, or not following)."""
        return self._watch.snapshot

    async def wait_snapshot(self, why_not: Callable[[Mapping[str, object] | None], str | None]
                            ) -> None:
        """Wait until ``why_not(newest snapshot)`` is None (checked now and at every newer
        snapshot; bound it with ``asyncio.timeout``)."""
        while why_not(self._watch.snapshot) is not None:
            self._changed.clear()
            await self._changed.wait()

    async def wait_turn(self, turn: Turn) -> None:
        """See :class:`Console`: waits (at most ``turn_timeout`` seconds) for a state
        snapshot in which the daemon expects ``turn``.

        Raises:
            TurnTimeoutError: it did not come; the message says what the daemon expects.
        """
        if not self._follow:
            return
        try:
            async with asyncio.timeout(self.turn_timeout):
                await self.wait_snapshot(lambda snap: mismatch(snap, turn))
        except TimeoutError:
            why = mismatch(self._watch.snapshot, turn)
            raise TurnTimeoutError(f"waited {self.turn_timeout:g} s for {turn.text()}: "
                                   f"{why}") from None


def normalise_reply(reply: Mapping[str, object]) -> dict[str, object]:
    """The daemon's wire reply (``tablectl.publish.envelope.ReplyPayload``: ``status`` ok|error,
    ``error`` {code, message}, ``data``) as the dealer's ``{"id", "ok", "result"|"error"}``.

    >>> normalise_reply({"v": 1, "id": "c1", "status": "error",
    ...                  "error": {"code": "out_of_turn", "message": "seat 3 acts"}, "data": {}})
    {'id': 'c1', 'ok': False, 'error': {'code': 'out_of_turn', 'reason': 'seat 3 acts'}}
    """
    if "status" not in reply:
        return dict(reply)
    if reply.get("status") == "ok":
        return {"id": reply.get("id"), "ok": True, "result": reply.get("data") or {}}
    err = reply.get("error")
    err = err if isinstance(err, Mapping) else {}
    return {"id": reply.get("id"), "ok": False,
            "error": {"code": err.get("code"), "reason": err.get("message")}}
