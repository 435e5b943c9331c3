"""Errors of firmware_bridge: one root, :class:`BridgeError`.

::

    BridgeError
    ├── FrameError(ValueError)          a frame or payload that cannot be decoded
    │   ├── ChecksumError               CRC-32 mismatch
    │   ├── LengthError                 too short, too long, or a payload of the wrong size
    │   └── PayloadError                a field value outside its range (unknown enum value)
    ├── LocalProtocolError              we were asked to do something the protocol forbids
    ├── RemoteProtocolError             the peer broke the protocol (e.g. another major version)
    ├── QueueOverflowError                   a reliable message could not be queued (never silent)
    ├── LinkClosedError(ConnectionError)     the link was closed (or unplugged) under us
    ├── DeviceTimeout(TimeoutError)     the device did not answer in time
    └── DeviceNak                       the device reported an error status
"""

from __future__ import annotations


class BridgeError(Exception):
    """Root of every error raised by firmware_bridge."""


class FrameError(BridgeError, ValueError):
    """A frame or message payload that cannot be decoded."""


class ChecksumError(FrameError):
    """The CRC-32 of a frame does not match its contents."""


class LengthError(FrameError):
    """A frame or payload is too short or too long."""


class PayloadError(FrameError):
    """A payload field holds a value outside its range."""


class LocalProtocolError(BridgeError):
    """We were asked to do something the protocol does not allow (a bug on our side)."""


class RemoteProtocolError(BridgeError):
    """The peer broke the protocol.

    Attributes:
        detail: what the peer did.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class QueueOverflowError(BridgeError):
    """A reliable message was refused because the send queue is full.

    Attributes:
        limit: the queue's capacity in messages.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(f"send queue full ({limit} messages)")
        self.limit = limit


class LinkClosedError(BridgeError, ConnectionError):
    """The link is closed: the port was unplugged, the peer hung up, or we closed it."""


class DeviceTimeout(BridgeError, TimeoutError):  # noqa: N818 (public name, docs/protocol.md)
    """The device did not answer in time.

    Attributes:
        seconds: how long we waited.
    """

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"{what}: no answer within {seconds:g} s")
        self.seconds = seconds


class DeviceNak(BridgeError):  # noqa: N818 (public name, docs/protocol.md)
    """The device reported an error status.

    Attributes:
        code: the device's status code.
    """

    def __init__(self, code: int, text: str = "") -> None:
        super().__init__(f"device status {code}: {text}" if text else f"device status {code}")
        self.code = code
