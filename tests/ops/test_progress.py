"""Long work shows progress: a rich bar on a terminal (a real pty here), plain lines
otherwise, on stderr so that stdout keeps the results."""

from __future__ import annotations

import os
import subprocess
import sys

from tablectl.progress import progress
from tests.ops.helpers import ROOT


def test_a_terminal_gets_a_bar() -> None:
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as tty:
        assert tty.isatty()
        with progress("exporting hands", total=3, stream=tty) as step:
            for i in range(3):
                step(note=f"hand {i}")
    shown = b""
    os.set_blocking(master, False)
    while True:
        try:
            chunk = os.read(master, 65536)
        except (BlockingIOError, OSError):
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    text = shown.decode(errors="replace")
    assert "exporting hands" in text and "3/3" in text
    assert "\x1b[" in text                      # drawn with terminal control sequences


def test_a_pipe_gets_plain_lines_on_stderr_and_stdout_keeps_the_results() -> None:
    folder = ROOT / "tests" / "data" / "phh"
    out = subprocess.run([sys.executable, "-m", "tablectl", "phh", "replay", str(folder),
                          "--json"], capture_output=True, text=True, timeout=120, check=False)
    results = out.stdout.splitlines()
    assert results and all(line.startswith("{") for line in results)
    last = out.stderr.strip().splitlines()[-1]
    assert last == f"hands replayed: {len(results)} done", out.stderr[-500:]
    assert "\x1b[" not in out.stderr
