"""Errors of the browser display server, rooted at :class:`WebError`."""

from __future__ import annotations

from tablectl.domain.errors import TablectlError


class WebError(TablectlError):
    """Root of the web package's own errors."""


class UsersFileError(WebError, ValueError):
    """The page-login users file is unreadable or invalid.

    Attributes:
        path: the file.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class CommandError(WebError):
    """A console command could not be sent: no command channel, or the broker link failed.

    Attributes:
        name: the command name.
    """

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"command {name}: {reason}")
