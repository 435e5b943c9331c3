"""Log lines above a live terminal view, not through it.

``rich.live.Live`` redraws its region in place and sends what the program writes to stdout
and stderr above it, but only what goes through ``sys.stdout`` / ``sys.stderr`` while it runs.
A logging handler made before keeps the original stream and writes straight over the view
(``tablectl watch`` showed a reconnect line in the middle of the table). :func:`logs_above`
points the root logger's stream handlers at the live console for as long as the view is up.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from rich.console import Console


class _ConsoleHandler(logging.Handler):
    def __init__(self, console: Console, formatter: logging.Formatter | None) -> None:
        super().__init__()
        self.console = console
        if formatter is not None:
            self.setFormatter(formatter)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.console.print(self.format(record), markup=False, highlight=False,
                               soft_wrap=True)
        except Exception:   # logging must never raise: report it as logging does
            self.handleError(record)


@contextlib.contextmanager
def logs_above(console: Console) -> Iterator[None]:
    """While inside, the root logger's stream handlers print through ``console`` (above a
    live view on it), with their level and formatter; restored afterwards."""
    root = logging.getLogger()
    saved = list(root.handlers)
    swapped: list[logging.Handler] = []
    for handler in saved:
        if isinstance(handler, logging.StreamHandler):
            replacement = _ConsoleHandler(console, handler.formatter)
            replacement.setLevel(handler.level)
            swapped.append(replacement)
        else:
            swapped.append(handler)
    root.handlers[:] = swapped
    try:
        yield
    finally:
        root.handlers[:] = saved
