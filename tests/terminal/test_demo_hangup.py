"""Closing the terminal under a live ``tablectl demo``: on a real pty, the demo stops as it does
on SIGHUP (exit 130), quietly: no EIO traceback from the live table, no task left to die."""

from __future__ import annotations

import os
import pty
import select
import sys
from pathlib import Path

from tablectl.cli.errors import Exit


def test_closing_the_terminal_stops_the_live_demo_quietly(tmp_path: Path) -> None:
    err = tmp_path / "stderr"
    pid, master = pty.fork()
    if pid == 0:                                              # the child, on the pty
        fd = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fd, 2)
        os.execv(sys.executable, [sys.executable, "-m", "tablectl", "demo", "--pace", "0.02"])
    seen = b""
    try:
        # wait until the live table has drawn a hand (the last seconds bound only a hang)
        while b"seat" not in seen or len(seen) < 4000:
            ready, _, _ = select.select([master], [], [], 60)
            assert ready, seen[-500:]
            seen += os.read(master, 65536)
    finally:
        os.close(master)                                      # the terminal window is closed
    _, status = os.waitpid(pid, 0)
    text = err.read_text()
    assert os.waitstatus_to_exitcode(status) == Exit.INTERRUPTED, text[-2000:]
    assert "Traceback" not in text and "ERROR" not in text, text[-2000:]
