"""Where a protocol v1 link stands, and the one table of how it moves.

A :class:`~firmware_bridge.session.Session` never assigns its state: it fires a
:class:`Trigger` and :data:`TRANSITIONS` says where that leads. A pair missing from the table
is not a move: the session ignores the trigger (a stray HELLO_ACK, a loss while already down)
or, for :attr:`Trigger.CONNECT` and :attr:`Trigger.ANNOUNCE`, refuses the call. Some triggers
belong to one role (the host sends HELLO and waits for HELLO_ACK, a device answers HELLO):

======================  ==========  ==========================================================
trigger                 role        from -> to
======================  ==========  ==========================================================
CONNECT                 host        idle, connecting, up, dead -> connecting
ANNOUNCE                device      idle, up, dead -> unchanged (boot announced)
HELLO_ACK_OK            host        connecting -> up
HELLO_ACK_BAD           host        connecting -> failed
GAVE_UP                 host        connecting -> idle
HELLO_OK                device      idle, up, dead, failed -> up
HELLO_BAD               device      idle, up, dead, failed -> failed
RESUMED                 device      dead -> up
SILENT                  both        up -> dead
LOST                    both        up, connecting -> dead
======================  ==========  ==========================================================

>>> next_state(LinkState.CONNECTING, Trigger.HELLO_ACK_OK)
<LinkState.UP: 'up'>
>>> next_state(LinkState.FAILED, Trigger.CONNECT) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Final


class LinkState(StrEnum):
    """Where the session stands."""

    IDLE = "idle"
    """Not started (host) or waiting for a HELLO (device)."""
    CONNECTING = "connecting"
    """Host: HELLO sent, waiting for HELLO_ACK."""
    UP = "up"
    DEAD = "dead"
    """Nothing heard for ``dead_after`` seconds, or the transport went away."""
    FAILED = "failed"
    """The peer speaks another major version; nothing more is exchanged."""


class Trigger(StrEnum):
    """What happened to a session, as far as its state is concerned."""

    CONNECT = "connect"
    """Host: a HELLO went out to start (or restart) the handshake."""
    ANNOUNCE = "announce"
    """Device: the boot was announced (an unsolicited HELLO_ACK)."""
    HELLO_ACK_OK = "hello_ack_ok"
    """Host: the HELLO_ACK answering our HELLO, same major version."""
    HELLO_ACK_BAD = "hello_ack_bad"
    """Host: the HELLO_ACK answering our HELLO, another major version."""
    GAVE_UP = "gave_up"
    """Host: no HELLO_ACK after every attempt."""
    HELLO_OK = "hello_ok"
    """Device: a HELLO of the same major version."""
    HELLO_BAD = "hello_bad"
    """Device: a HELLO of another major version."""
    RESUMED = "resumed"
    """Device: a valid frame while dead (the host is back within its session)."""
    SILENT = "silent"
    """Nothing valid heard for ``dead_after`` seconds."""
    LOST = "lost"
    """The transport under the session went away (unplug, closed port)."""


_S = LinkState
_T = Trigger

TRANSITIONS: Final[Mapping[tuple[LinkState, Trigger], LinkState]] = {
    **{(s, _T.CONNECT): _S.CONNECTING for s in (_S.IDLE, _S.CONNECTING, _S.UP, _S.DEAD)},
    **{(s, _T.ANNOUNCE): s for s in (_S.IDLE, _S.UP, _S.DEAD)},
    (_S.CONNECTING, _T.HELLO_ACK_OK): _S.UP,
    (_S.CONNECTING, _T.HELLO_ACK_BAD): _S.FAILED,
    (_S.CONNECTING, _T.GAVE_UP): _S.IDLE,
    **{(s, _T.HELLO_OK): _S.UP for s in (_S.IDLE, _S.UP, _S.DEAD, _S.FAILED)},
    **{(s, _T.HELLO_BAD): _S.FAILED for s in (_S.IDLE, _S.UP, _S.DEAD, _S.FAILED)},
    (_S.DEAD, _T.RESUMED): _S.UP,
    (_S.UP, _T.SILENT): _S.DEAD,
    (_S.UP, _T.LOST): _S.DEAD,
    (_S.CONNECTING, _T.LOST): _S.DEAD,
}
"""``(state, trigger) -> state``; a pair not in here is not a move."""


def next_state(state: LinkState, trigger: Trigger) -> LinkState | None:
    """Where ``trigger`` takes a session in ``state``, or None when it is not a move there."""
    return TRANSITIONS.get((state, trigger))
