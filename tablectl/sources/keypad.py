"""The dealer's keypad as a card source: BUTTON events become dealer commands.

A key does one thing on a short press and, optionally, another on a long press. The short
command is sent when the key is released without a LONG report before; the long command when
the keypad reports LONG (a key with no long binding held long still sends its short command
on release). So a press sends exactly one command, never both. REPEAT reports are ignored.

The default key map (:data:`DEFAULT_KEY_MAP`, keys numbered as the keypad reports them):

=====  ============================  =========================================
key    short press                   long press
=====  ============================  =========================================
1      ``action`` fold
2      ``action`` check
3      ``action`` call
4      ``action`` bet (the minimum)
5      ``undo``                      ``misdeal``
6      ``start_hand``
7      ``action`` raise (the minimum)
8      ``action`` complete (stud)
9      ``action`` bring_in (stud)
0      ``next_hand``
=====  ============================  =========================================

Action commands carry ``{"kind": ..., "amount": null}`` and no ``seat``: the keypad does not
know the table; the controller acts for the seat to act and resolves a null amount to the
minimum. Every command has ``user`` = the keypad's user name and a deterministic, unique
``id`` ``{name}:{boot_id:08x}:{n}`` (``n`` the device's frame seq, counting on past its
16-bit wrap), ``at`` from the injected clock.

>>> km = parse_key_map({"1": "fold", "5 long": "misdeal", "11": "kill_hand"})
>>> km[Key(5, long=True)]
KeyCommand(name='misdeal', args={})
>>> km[Key(1)].args["kind"]
'fold'
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, Self

from firmware_bridge.client import (
    Connected,
    Delivered,
    DeviceClient,
    DeviceRebooted,
    Disconnected,
    Incompatible,
    Malformed,
)
from firmware_bridge.link import LinkOpener, open_serial_link
from firmware_bridge.messages import Button, ButtonAction, DeviceKind
from tablectl.clock import Clock
from tablectl.controller.inputs import Command, DeviceStatus
from tablectl.domain.jsonvalue import JsonObject
from tablectl.sources.base import SourceEvent

_LOGGER = logging.getLogger(__name__)

ACTION_KINDS: Final = ("fold", "check", "call", "bet", "raise", "complete", "bring_in")
"""Action kinds a key may send as ``action`` commands."""


@dataclass(frozen=True, slots=True)
class Key:
    """A key and how it was pressed.

    Attributes:
        key: the key number the keypad reports (0..255). long: a long press.
    """

    key: int
    long: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.key <= 255:
            raise ValueError(f"key numbers are 0..255, not {self.key}")

    def __str__(self) -> str:
        return f"{self.key} long" if self.long else str(self.key)


@dataclass(frozen=True, slots=True)
class KeyCommand:
    """The command a key sends.

    Attributes:
        name: the command name (``action``, ``undo``, ``misdeal``...).
        args: its arguments (a JSON object).
    """

    name: str
    args: JsonObject = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a key command needs a name")

    @classmethod
    def action(cls, kind: str) -> KeyCommand:
        """An ``action`` command for the seat to act, minimum amount.

        Raises:
            ValueError: not one of :data:`ACTION_KINDS`.
        """
        if kind not in ACTION_KINDS:
            raise ValueError(f"unknown action kind {kind!r} (one of {', '.join(ACTION_KINDS)})")
        return cls("action", {"kind": kind, "amount": None})


DEFAULT_KEY_MAP: Final[Mapping[Key, KeyCommand]] = MappingProxyType({
    Key(1): KeyCommand.action("fold"),
    Key(2): KeyCommand.action("check"),
    Key(3): KeyCommand.action("call"),
    Key(4): KeyCommand.action("bet"),
    Key(5): KeyCommand("undo"),
    Key(5, long=True): KeyCommand("misdeal"),
    Key(6): KeyCommand("start_hand"),
    Key(7): KeyCommand.action("raise"),
    Key(8): KeyCommand.action("complete"),
    Key(9): KeyCommand.action("bring_in"),
    Key(0): KeyCommand("next_hand"),
})
"""The documented default (see the module docstring)."""


def parse_key_map(table: Mapping[str, str]) -> dict[Key, KeyCommand]:
    """A key map from text, as a config file holds it: ``"N"`` or ``"N long"`` = an action
    kind (``fold``...: an ``action`` command) or a command name without arguments.

    Raises:
        ValueError: a bad key or an empty command, naming the entry.
    """
    out: dict[Key, KeyCommand] = {}
    for spec, command in table.items():
        words = spec.split()
        if not words or not words[0].isdigit() or len(words) > 2 \
                or (len(words) == 2 and words[1].lower() != "long"):
            raise ValueError(f"key map: {spec!r} is not 'N' or 'N long'")
        key = Key(int(words[0]), long=len(words) == 2)
        name = command.strip()
        if not name:
            raise ValueError(f"key map: {spec!r} has no command")
        out[key] = KeyCommand.action(name) if name in ACTION_KINDS else KeyCommand(name)
    return out


KEYPAD_KINDS: Final = frozenset({DeviceKind.KEYPAD, DeviceKind.COMBO})
"""The device kinds a keypad source takes (another on its port is refused)."""


class KeypadSource:
    """A dealer keypad over firmware_bridge (a :class:`~tablectl.sources.base.CardSource`).

    Args:
        name: the source's name (also the command ``id`` prefix), e.g. ``"keypad-t01"``.
        address: device path or pyserial URL.
        clock: injected time (``at`` of every event).
        key_map: key -> command (default :data:`DEFAULT_KEY_MAP`); unmapped keys are logged
            and ignored.
        user: the user the commands are sent as (default: ``name``); the controller's
            permission table must allow it.
        opener: link opener (tests pass a simulated device's).
    """

    kind = "keypad"

    def __init__(self, name: str, address: str, *, clock: Clock,
                 key_map: Mapping[Key, KeyCommand] = DEFAULT_KEY_MAP, user: str | None = None,
                 opener: LinkOpener = open_serial_link) -> None:
        self.name = name
        self.address = address
        self.user = user or name
        self.key_map: Mapping[Key, KeyCommand] = MappingProxyType(dict(key_map))
        self._clock = clock
        # a reader that answers on the keypad's port (cables swapped) is refused, not read
        self._client = DeviceClient(address, name=name, opener=opener, clock=clock,
                                    kinds=KEYPAD_KINDS)
        self._boot = 0
        self._wraps = 0
        self._last_seq: int | None = None
        self._down: dict[tuple[int, int], bool] = {}
        """(keypad, key) held down -> its long command was already sent."""

    async def __aenter__(self) -> Self:
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._client.aclose()

    async def events(self) -> AsyncIterator[SourceEvent]:
        """Device status changes and the commands of key presses, once each, in order."""
        async for event in self._client.events():
            for out in self._translate(event):
                yield out

    def _translate(self, event: object) -> list[SourceEvent]:
        now = self._clock.now()
        match event:
            case Connected(peer=peer, new_boot=new_boot):
                if new_boot:
                    self._new_boot(peer.boot_id)
                return [DeviceStatus(self.name, True, now, kind=self.kind)]
            case DeviceRebooted(boot_id=boot_id):
                self._new_boot(boot_id)
                return []
            case Disconnected(reason=reason):
                _LOGGER.warning("%s: keypad offline: %s", self.name, reason)
                return [DeviceStatus(self.name, False, now, kind=self.kind)]
            case Malformed(error=error):
                _LOGGER.error("%s: undecodable keypad event: %s", self.name, error)
                return []
            case Incompatible() as seen:
                _LOGGER.error("%s: %s (retrying every %.0f s)", self.name, seen.reason,
                              self._client.incompatible_retry)
                return [DeviceStatus(self.name, False, now, kind=self.kind,
                                     problem=seen.reason)]
            case Delivered(message=message, seq=seq):
                number = self._number(seq)
                if not isinstance(message, Button):
                    return []
                command = self._on_button(message)
                if command is None:
                    return []
                return [Command(name=command.name, user=self.user,
                                id=f"{self.name}:{self._boot:08x}:{number}", at=now,
                                args=command.args)]
        return []

    def _new_boot(self, boot_id: int) -> None:
        self._boot = boot_id
        self._wraps = 0
        self._last_seq = None
        self._down.clear()   # the keypad forgot its held keys too

    def _number(self, seq: int) -> int:
        """The frame's number in this boot: its 16-bit seq, counting on past the wrap."""
        if self._last_seq is not None and seq < self._last_seq:
            self._wraps += 1
        self._last_seq = seq
        return self._wraps * 0x10000 + seq

    def _on_button(self, button: Button) -> KeyCommand | None:
        held = (button.keypad, button.key)
        match button.action:
            case ButtonAction.PRESS:
                self._down[held] = False
                return None
            case ButtonAction.LONG:
                if self._down.get(held) is not False:
                    return None          # not down (lost press) or long already sent
                command = self.key_map.get(Key(button.key, long=True))
                if command is not None:
                    self._down[held] = True
                return command
            case ButtonAction.RELEASE:
                long_sent = self._down.pop(held, False)
                if long_sent:
                    return None
                command = self.key_map.get(Key(button.key))
                if command is None:
                    _LOGGER.info("%s: key %d has no command", self.name, button.key)
                return command
        return None
