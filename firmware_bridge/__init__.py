"""firmware_bridge: wire protocol v1 between the table computer and the card readers.

Stands alone: stdlib and pyserial only, nothing from tablectl. Layers, bottom up:
:mod:`~firmware_bridge.frames` (COBS + CRC-32 framing, a resyncing decoder),
:mod:`~firmware_bridge.messages` (the catalogue), :mod:`~firmware_bridge.session` (sans-IO
ACK/window/retransmit and heartbeats, moving along the state table of
:mod:`~firmware_bridge.transitions`, with the host's and the device's handshake as the
strategies of :mod:`~firmware_bridge.handshake`), :mod:`~firmware_bridge.link`
(the Link seam, an in-memory pipe, pyserial), :mod:`~firmware_bridge.client` (the host's
asyncio DeviceClient). Wire format and rules: docs/protocol.md.
"""

from firmware_bridge.client import (
    Connected,
    Delivered,
    DeviceClient,
    DeviceEvent,
    DeviceRebooted,
    Disconnected,
    Incompatible,
    Malformed,
)
from firmware_bridge.clock import Clock, SystemClock
from firmware_bridge.errors import (
    BridgeError,
    ChecksumError,
    FrameError,
    LengthError,
    LinkClosedError,
    QueueOverflowError,
    RemoteProtocolError,
)
from firmware_bridge.link import Link, LinkOpener, MemoryLink, open_serial_link, pipe

__all__ = [
    "BridgeError",
    "ChecksumError",
    "Clock",
    "Connected",
    "Delivered",
    "DeviceClient",
    "DeviceEvent",
    "DeviceRebooted",
    "Disconnected",
    "FrameError",
    "Incompatible",
    "LengthError",
    "Link",
    "LinkClosedError",
    "LinkOpener",
    "Malformed",
    "MemoryLink",
    "QueueOverflowError",
    "RemoteProtocolError",
    "SystemClock",
    "open_serial_link",
    "pipe",
]
