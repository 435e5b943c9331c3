"""Long work shows progress: a rich bar on a terminal (a real pty here), plain lines
otherwise, on stderr so that stdout keeps the results."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from typing import TextIO

from tablectl.progress import counted_lines, progress
from tests.ops.helpers import ROOT


def _drain(master: int) -> str:
    """What a terminal was shown (all of it: the writer is done)."""
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
    return shown.decode(errors="replace")


def test_a_terminal_gets_a_bar() -> None:
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as tty:
        assert tty.isatty()
        with progress("exporting hands", total=3, stream=tty) as step:
            for i in range(3):
                step(note=f"hand {i}")
    text = _drain(master)
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


def _register_three(stream: TextIO) -> None:
    """A deck registration's dialogue: three cards registered, each said as it is."""
    done = 0
    with counted_lines("registering deck club-3", total=52, count=lambda: done,
                       stream=stream) as say:
        say("pass the cards in this order: 2c 2d 2h ...")
        for n, card in enumerate(("2c", "2d", "2h"), 1):
            done = n
            say(f"{n:2d}/52 {card} = 04AB{n:02d}; next: [x]")


def test_a_dialogue_on_a_terminal_gets_its_lines_above_a_bar() -> None:
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as tty:
        _register_three(tty)
    text = _drain(master)
    assert "registering deck club-3" in text and "3/52" in text
    assert " 3/52 2h = 04AB03; next: [x]" in text       # said as it is (no markup read)
    assert "\x1b[" in text


def test_a_dialogue_elsewhere_is_its_lines_alone() -> None:
    out = io.StringIO()
    _register_three(out)
    assert out.getvalue().splitlines() == [
        "pass the cards in this order: 2c 2d 2h ...", " 1/52 2c = 04AB01; next: [x]",
        " 2/52 2d = 04AB02; next: [x]", " 3/52 2h = 04AB03; next: [x]"]
