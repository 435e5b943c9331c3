"""Dealer commands as they come from the broker: an MQTT message to a controller
:class:`~tablectl.controller.inputs.Command`, or the error reply a bad one gets.

The topic names the command and the user (the broker's ACL pins the user to its topic); the
payload is a :class:`~tablectl.publish.envelope.CommandPayload`. A retained command is never
executed: it could be one from long ago.
"""

from __future__ import annotations

import contextlib
import json
from datetime import datetime

from tablectl.controller.inputs import Command
from tablectl.publish import topics
from tablectl.publish.base import IncomingMessage
from tablectl.publish.envelope import (
    CommandPayload,
    EnvelopeError,
    ReplyError,
    ReplyPayload,
    decode,
)


def command_from_message(msg: IncomingMessage, at: datetime) -> Command | ReplyPayload:
    """A :class:`Command` received ``at`` from an MQTT message, or the error reply for a bad
    one (``bad_topic``, ``bad_args``, ``stale_command``)."""
    try:
        parsed = topics.parse_command(msg.topic)
    except ValueError as exc:
        return ReplyPayload(id="unknown", status="error",
                            error=ReplyError(code="bad_topic", message=str(exc)))
    try:
        payload = decode(CommandPayload, msg.payload)
    except EnvelopeError as exc:
        cid = "unknown"
        with contextlib.suppress(ValueError, AttributeError):
            raw = json.loads(msg.payload)
            if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"]:
                cid = raw["id"][:128]   # an empty id cannot be echoed (nor one too long)
        return ReplyPayload(id=cid, status="error",
                            error=ReplyError(code="bad_args", message=str(exc)))
    if msg.retain:
        return ReplyPayload(id=payload.id, status="error", error=ReplyError(
            code="stale_command", message="a retained command is never executed"))
    return Command(name=parsed.name, user=parsed.user, id=payload.id,
                   at=at, args=dict(payload.args), sent_at=payload.ts)
