"""How a ``tablectl`` command ends: its exit codes, and the one line it stops with.

A command raises :class:`CommandError` (or :class:`UsageError`) instead of printing an error
and returning a code; :func:`tablectl.cli.main` prints the line and exits with the code.
:func:`stops_on` turns a library's errors into such a line, by a table of error types.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from enum import IntEnum
from typing import Final

WORD_MAX: Final = 256
"""The longest word an error line echoes whole (a path, a URL, a table id: a real one is
shorter); a longer one is cut to its first 60 characters and its length."""

_LONG_WORD: Final = re.compile(rf"\S{{{WORD_MAX + 1},}}")


def shortened(line: str) -> str:
    """``line`` with every word longer than :data:`WORD_MAX` cut to its first 60 characters
    and its length: a value pasted by mistake (100,000 characters of it) is named, not
    echoed.

    >>> shortened("no such variant " + "A" * 300)[:30], shortened("x" * 300)[-18:]
    ('no such variant AAAAAAAAAAAAAA', '. (300 characters)')
    """
    return _LONG_WORD.sub(lambda m: f"{m.group()[:60]}... ({len(m.group())} characters)", line)


class Exit(IntEnum):
    """The exit codes of every ``tablectl`` command."""

    OK = 0
    FAILED = 1
    """A failure of the work itself (a replay that did not match, a reader that stopped)."""
    USAGE = 2
    """Bad usage or bad configuration (one clear line per problem, never a traceback)."""
    INTERRUPTED = 130
    """Stopped by ^C or a signal."""
    PIPE_CLOSED = 141
    """The reader of the output went away (``... | head -1``): quietly, as a tool killed by
    SIGPIPE exits."""


class CommandError(Exception):
    """A command stops: ``line`` goes to stderr and ``code`` is the exit code."""

    def __init__(self, line: str, code: int = Exit.FAILED) -> None:
        super().__init__(line)
        self.line = line
        self.code = code


class UsageError(CommandError):
    """Bad usage or a bad value: exit 2."""

    def __init__(self, line: str) -> None:
        super().__init__(line, Exit.USAGE)


@contextmanager
def stops_on(prefix: str, codes: Mapping[type[Exception], int], *,
             suffix: str = "") -> Iterator[None]:
    """Inside the block, an error of a type in ``codes`` (the first type it is an instance
    of, in the table's order) stops the command with ``{prefix}: {error}{suffix}`` and that
    type's exit code. A :class:`CommandError` passes through as it is."""
    try:
        yield
    except CommandError:
        raise
    except tuple(codes) as exc:
        code = next(code for kind, code in codes.items() if isinstance(exc, kind))
        raise CommandError(f"{prefix}: {exc}{suffix}", code) from exc
