"""The set-up tools' errors: a refused read or answer, a run that stopped."""

from __future__ import annotations

from tablectl.domain.errors import TablectlError


class RegistrationError(TablectlError, ValueError):
    """A read or a confirmation that registration refused; nothing changed.

    Attributes:
        uid: the tag concerned (normalised), if the refusal is about one.
        reason: the message for the dealer.
    """

    def __init__(self, reason: str, *, uid: str | None = None) -> None:
        self.uid = uid
        self.reason = reason
        super().__init__(reason)


class CalibrationError(TablectlError, ValueError):
    """An antenna read that calibration refused (the antenna already has a role).

    Attributes:
        antenna: the antenna number. reason: the message for the dealer.
    """

    def __init__(self, reason: str, *, antenna: int) -> None:
        self.antenna = antenna
        self.reason = reason
        super().__init__(reason)


class RunnerError(TablectlError):
    """A registration, verification or calibration run stopped before it finished; nothing
    was written."""


class ReaderTimeoutError(RunnerError, TimeoutError):
    """Nothing arrived (no read, no answer) within the timeout.

    Attributes:
        seconds: the timeout that passed.
    """

    def __init__(self, message: str, *, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(message)


class AbortedError(RunnerError):
    """The dealer quit, or the input ended while an answer was awaited."""
