"""The simulator's errors: the root of the dealer's errors (scenario, console, check) and a
console command the daemon refused."""

from __future__ import annotations

from collections.abc import Mapping


class DealerError(Exception):
    """Root of the simulator's dealer errors (scenario, console, check)."""


class ConsoleRefusedError(DealerError):
    """The daemon answered a console command with ``ok: false``.

    Attributes:
        name: the command. reply: the whole reply.
    """

    def __init__(self, name: str, reply: Mapping[str, object]) -> None:
        self.name = name
        self.reply = dict(reply)
        super().__init__(f"command {name} refused: {reply.get('error')}")
