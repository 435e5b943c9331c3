"""What a protocol v1 session is made from: its role, its timing and, for a device, its
identity."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from firmware_bridge.messages import PROTO_MAJOR, Caps, DeviceKind


class LinkEnd(StrEnum):
    """Which end of the line a session plays."""

    HOST = "host"
    DEVICE = "device"


@dataclass(frozen=True, slots=True)
class SessionConfig:
    """Timing and sizes of a session (seconds, messages)."""

    window: int = 8
    retransmit_after: float = 0.25
    heartbeat_every: float = 1.0
    dead_after: float = 3.0
    hello_retry: float = 0.5
    hello_attempts: int = 4
    queue_limit: int = 64
    snapshot_after_down: float = 1.0

    def __post_init__(self) -> None:
        if not 1 <= self.window <= 64 or self.queue_limit < self.window:
            raise ValueError("window must be 1..64 and queue_limit at least the window")
        if min(self.retransmit_after, self.heartbeat_every, self.hello_retry) <= 0:
            raise ValueError("intervals must be positive")
        if self.dead_after <= self.heartbeat_every:
            raise ValueError("dead_after must exceed heartbeat_every")


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """What a device says about itself in HELLO_ACK (device role only)."""

    device_kind: DeviceKind
    antenna_count: int
    caps: Caps
    boot_id: int
    hw_id: bytes = b""
    fw_version: str = ""
    proto_major: int = PROTO_MAJOR
    """The protocol version it speaks (another one only in a simulator of a future device)."""
