"""The simulator's errors: the root of the dealer's errors (scenario, console, check), a
console command the daemon refused, and a decision the daemon never came to expect."""

from __future__ import annotations

from collections.abc import Mapping


class DealerError(Exception):
    """Root of the simulator's dealer errors (scenario, console, check)."""


def refusal_text(error: object) -> str:
    """A refusal's ``error`` (``{code, reason}``, or the wire's ``{code, message}``) in words.

    >>> refusal_text({"code": "out_of_turn", "reason": "seat 3 acts"})
    'out_of_turn: seat 3 acts'
    >>> refusal_text({"code": "not_authorised", "message": "a dealer may not adjust_stack"})
    'not_authorised: a dealer may not adjust_stack'
    >>> refusal_text(None), refusal_text({"code": "busy"}), refusal_text("gone")
    ('no reason given', 'busy', 'gone')
    """
    if not isinstance(error, Mapping):
        return str(error) if error else "no reason given"
    code = error.get("code")
    reason = error.get("reason") or error.get("message")
    parts = [str(p) for p in (code, reason) if p]
    return ": ".join(parts) if parts else "no reason given"


class ConsoleRefusedError(DealerError):
    """The daemon answered a console command with ``ok: false``.

    Attributes:
        name: the command. reply: the whole reply.
    """

    def __init__(self, name: str, reply: Mapping[str, object]) -> None:
        self.name = name
        self.reply = dict(reply)
        super().__init__(f"command {name} refused: {refusal_text(reply.get('error'))}")


class TurnTimeoutError(DealerError):
    """The daemon's snapshot did not come to expect the dealer's decision in time (the
    dealer's hand and the daemon's have parted, or the daemon stopped publishing)."""
