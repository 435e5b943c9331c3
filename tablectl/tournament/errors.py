"""The tournament's refusals: a command that does not fit the clock or the field.

A bad structure file is a :class:`~tablectl.domain.errors.ConfigError` (one line per problem);
a command the tournament refuses (pause a clock that is not running, bust a player who is not
in) is a :class:`TournamentError`, with nothing changed.
"""

from __future__ import annotations

from tablectl.domain.errors import TablectlError


class TournamentError(TablectlError, ValueError):
    """A command refused; the message says why in the director's words, nothing changed."""


class AlreadyRecordedError(TournamentError):
    """An elimination a table reports again (the same table, hand and seat): recorded once,
    nothing changed."""


class StoreUnavailableError(TablectlError, RuntimeError):
    """The tournament's database cannot be reached: nothing was changed; try again."""


class StoreSetupError(StoreUnavailableError):
    """The database is not set up (it does not exist, or refuses the login): waiting does
    not help; the message says what to do."""


__all__ = ["AlreadyRecordedError", "StoreSetupError", "StoreUnavailableError", "TournamentError"]
