"""The publish layer's errors, rooted in :class:`~tablectl.domain.errors.TablectlError`."""

from __future__ import annotations

from tablectl.domain.errors import TablectlError


class PublishError(TablectlError):
    """Root of the publish layer's errors: a message was not (or not provably) delivered.

    Attributes:
        topic: the topic concerned, if any.
    """

    def __init__(self, message: str, topic: str | None = None) -> None:
        self.topic = topic
        super().__init__(message)


class NotConnectedError(PublishError, ConnectionError):
    """The client is not connected to the broker; nothing was sent."""


class ConnectionLostError(PublishError, ConnectionError):
    """The connection dropped before the broker acknowledged the message.

    The broker may or may not have it: resend (consumers drop duplicates by ``seq``).
    """


class PublishRefusedError(PublishError):
    """The broker answered the publish with an MQTT 5 failure reason (e.g. 0x87 not authorised).

    Attributes:
        reason_code: the numeric MQTT 5 reason code.
    """

    def __init__(self, message: str, topic: str | None, reason_code: int) -> None:
        self.reason_code = reason_code
        super().__init__(message, topic)


class BirthRefusedError(PublishError):
    """The availability guard refused to publish the birth (another daemon is online for
    this table): the client left the broker without firing its will and stays off."""
