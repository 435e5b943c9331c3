"""The root of every error tablectl raises on purpose.

Each layer subclasses :class:`TablectlError` (and the builtin that fits); state travels on the
error so a caller can report it without parsing the message.
"""

from __future__ import annotations


class TablectlError(Exception):
    """Root of tablectl's own errors."""


class ConfigError(TablectlError, ValueError):
    """One or more problems in a configuration, deck or scenario file.

    Attributes:
        problems: one ``(key_path, message)`` pair per problem, in file order; the key path
            is empty for a problem with the file as a whole.
        source: the file that was read, if any.
    """

    def __init__(self, problems: list[tuple[str, str]], source: str | None = None) -> None:
        self.problems = list(problems)
        self.source = source
        super().__init__(self.render())

    def render(self) -> str:
        """One line per problem, ``file: key.path: message``."""
        prefix = f"{self.source}: " if self.source else ""
        return "\n".join(
            f"{prefix}{path}: {msg}" if path else f"{prefix}{msg}" for path, msg in self.problems
        )


class JournalError(TablectlError):
    """Root of the journal's errors (:mod:`tablectl.journal`)."""


class JournalStateError(JournalError, ValueError):
    """A request the journal refuses (bad value, no epoch yet, unknown hand); nothing changed.

    Also what :mod:`tablectl.domain.jsonvalue` raises for a payload that is not JSON, so a
    value refused before it reaches the journal fails as the journal would refuse it.
    """
