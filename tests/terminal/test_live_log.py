"""A log line while the live view is up goes above the view, through its console, not over it."""

from __future__ import annotations

import io
import logging

from rich.console import Console
from rich.live import Live
from rich.text import Text

from tablectl.terminal.live_log import logs_above


def test_log_lines_go_through_the_live_console_and_the_handlers_come_back() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80, color_system=None)
    stray = io.StringIO()
    root = logging.getLogger()
    saved = list(root.handlers)
    handler = logging.StreamHandler(stray)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    root.handlers[:] = [handler]
    try:
        with Live(Text("THE TABLE VIEW"), console=console, auto_refresh=False) as live, \
                logs_above(live.console):
            logging.getLogger("tablectl.publish.mqtt").warning("mqtt: disconnected")
            live.refresh()
        assert root.handlers == [handler]
    finally:
        root.handlers[:] = saved
    assert stray.getvalue() == ""                  # nothing written around the view
    text = out.getvalue()
    assert "WARNING mqtt: disconnected" in text
    assert text.index("WARNING mqtt: disconnected") < text.rindex("THE TABLE VIEW")
