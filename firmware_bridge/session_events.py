"""What a protocol v1 session reports: the values :class:`~firmware_bridge.session.Session`'s
``receive_data`` and ``poll`` return, in the order they happened."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from firmware_bridge.messages import Hello, HelloAck, Message


@dataclass(frozen=True, slots=True)
class LinkUp:
    """Host: the handshake completed.

    Attributes:
        peer: the device's HELLO_ACK.
        new_boot: the boot id differs from the last one this session saw (True on the first
            connection): per-device state is void.
        previous_boot_id: the boot id seen before, None on the first connection.
        snapshot_req_id: the SNAPSHOT_REQ queued with this link-up, or None.
    """

    peer: HelloAck
    new_boot: bool
    previous_boot_id: int | None
    snapshot_req_id: int | None


@dataclass(frozen=True, slots=True)
class HostConnected:
    """Device: a HELLO arrived (the session is up)."""

    hello: Hello


@dataclass(frozen=True, slots=True)
class Received:
    """A reliable message, delivered exactly once and in order."""

    message: Message
    seq: int


@dataclass(frozen=True, slots=True)
class BadPayload:
    """A reliable frame whose payload does not decode: ACKed (so the peer moves on), reported.

    Attributes:
        type: the frame type. seq: its seq. error: what was wrong.
    """

    type: int
    seq: int
    error: str


@dataclass(frozen=True, slots=True)
class LinkDead:
    """Nothing valid was heard for ``silent_for`` seconds."""

    silent_for: float


@dataclass(frozen=True, slots=True)
class HandshakeFailed:
    """Host: no HELLO_ACK after every attempt."""

    attempts: int


@dataclass(frozen=True, slots=True)
class VersionMismatch:
    """The peer speaks another major version; the session is FAILED."""

    peer_major: int


@dataclass(frozen=True, slots=True)
class SnapshotRequested:
    """Host: a SNAPSHOT_REQ was queued by the session itself (overflow reported by the peer)."""

    req_id: int
    reason: str


SessionEvent: TypeAlias = (
    LinkUp | HostConnected | Received | BadPayload | LinkDead | HandshakeFailed
    | VersionMismatch | SnapshotRequested
)
