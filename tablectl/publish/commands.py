"""Dealer commands as they come from the broker: an MQTT message to a controller
:class:`~tablectl.controller.inputs.Command`, or the error reply a bad one gets.

The topic names the command and the user (the broker's ACL pins the user to its topic); the
payload is a :class:`~tablectl.publish.envelope.CommandPayload`. Every payload is hostile until
decoded: it is read by the one strict decoder (:mod:`tablectl.domain.strictjson`, with
:data:`COMMAND_LIMITS`: size before parsing, no NaN or Infinity, bounded depth, integers a
browser and the journal hold, strings bounded and free of control characters), and only then
validated as the envelope. A payload the decoder refuses is ``bad_request``; one that decodes
but is not a command envelope is ``bad_args``. Nothing of either reaches the controller. A
retained command is never executed: it could be one from long ago.

No text of a payload is echoed unbounded: replies and log lines carry at most
:data:`MAX_ECHO` characters of it, control characters escaped (:func:`bounded`).

>>> from tablectl.publish import topics
>>> msg = IncomingMessage(topics.cmd("t1", "action", "mallory"), b'{"id":"a","args":{"x":NaN}}')
>>> reply = command_from_message(msg, None)  # type: ignore[arg-type]
>>> reply.error.code, reply.error.message
('bad_request', 'not a command: $.x: NaN is not a number JSON allows')
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from pydantic import ValidationError

from tablectl.controller.inputs import Command
from tablectl.domain.jsonvalue import JsonValue
from tablectl.domain.strictjson import JsonLimits, StrictJsonError, decode_object
from tablectl.publish import topics
from tablectl.publish.base import IncomingMessage
from tablectl.publish.envelope import CommandPayload, ReplyError, ReplyPayload

COMMAND_LIMITS: Final = JsonLimits(max_bytes=16 * 1024, max_depth=6, max_string=512,
                                   max_key=64, max_items=64)
"""What a command payload may be: 16 KiB, six levels, strings of 512 characters, 64 entries
per object or array, integers within 2^53 (docs/mqtt.md §8.4, "Limits")."""

MAX_ECHO: Final = 160
"""The most characters of anything a sender wrote that a reply or a log line repeats."""

MAX_ID: Final = 128


def bounded(text: str, limit: int = MAX_ECHO) -> str:
    """``text`` cut to ``limit`` characters, control and other unprintable characters escaped.

    >>> bounded("a\\x00b" + "c" * 300, 10)
    'a\\\\x00bcccc...'
    """
    cut = text[:limit]
    safe = cut if cut.isprintable() else "".join(
        ch if ch.isprintable() else ascii(ch)[1:-1] for ch in cut)
    if len(safe) > limit:
        safe = safe[:limit]
    return safe + ("..." if len(text) > limit or len(safe) < len(cut) else "")


def refusal(cid: str, code: str, message: str) -> ReplyPayload:
    """An error reply (``message`` bounded)."""
    return ReplyPayload(id=cid, status="error",
                        error=ReplyError(code=code, message=bounded(message, 2 * MAX_ECHO)))


def decode_command(payload: bytes) -> dict[str, JsonValue]:
    """The payload as a JSON object within :data:`COMMAND_LIMITS`.

    Raises:
        StrictJsonError: what is wrong and where.
    """
    return decode_object(payload, COMMAND_LIMITS)


def _problems(exc: ValidationError) -> str:
    """The first problems of a validation error, one short clause each (no input echoed)."""
    parts = []
    for err in exc.errors(include_url=False, include_input=False)[:3]:
        where = ".".join(str(p) for p in err["loc"]) or "payload"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def command_id(body: dict[str, JsonValue]) -> str:
    """The id to answer a decoded payload with: its own when it is a usable one."""
    cid = body.get("id")
    if isinstance(cid, str) and 0 < len(cid) <= MAX_ID and cid.isprintable():
        return cid
    return "unknown"


def command_from_message(msg: IncomingMessage, at: datetime) -> Command | ReplyPayload:
    """A :class:`Command` received ``at`` from an MQTT message, or the error reply for a bad
    one (``bad_topic``, ``bad_request``, ``bad_args``, ``stale_command``)."""
    try:
        parsed = topics.parse_command(msg.topic)
    except ValueError as exc:
        return refusal("unknown", "bad_topic", str(exc))
    try:
        body = decode_command(msg.payload)
    except StrictJsonError as exc:
        return refusal("unknown", "bad_request", f"not a command: {exc}")
    return command_from_body(parsed, body, msg, at)


def command_from_body(parsed: topics.CommandTopic, body: dict[str, JsonValue],
                      msg: IncomingMessage, at: datetime) -> Command | ReplyPayload:
    """The :class:`Command` of a payload already decoded (:func:`decode_command`), or the
    error reply (``bad_args``: not a command envelope; ``stale_command``: retained)."""
    try:
        payload = CommandPayload.model_validate(body)
    except ValidationError as exc:
        return refusal(command_id(body), "bad_args", f"bad command: {_problems(exc)}")
    if msg.retain:
        return refusal(payload.id, "stale_command", "a retained command is never executed")
    return Command(name=parsed.name, user=parsed.user, id=payload.id,
                   at=at, args=dict(payload.args), sent_at=payload.ts)
