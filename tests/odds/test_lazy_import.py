"""A daemon with the live odds off never loads the evaluator's NumPy tables (about 15 MB of
its peak memory): the odds are imported only when the config turns them on."""

from __future__ import annotations

import subprocess
import sys


def test_the_daemon_and_the_command_load_no_numpy() -> None:
    code = ("import sys, tablectl.app, tablectl.cli, tablectl.daemon; "
            "tablectl.cli.build_parser(); "     # every command builds the whole parser
            "print(sorted(m for m in ('numpy', 'tablectl.odds.feed', 'tablectl.game.equity') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]"
