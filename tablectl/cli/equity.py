"""``tablectl equity``: the equity of given hands; :mod:`tablectl.odds.command` builds the
text, this prints it."""

from __future__ import annotations

import argparse
import sys

from tablectl.cli.logs import CLIENT_LOG_LEVEL
from tablectl.cli.output import Subparsers


def _equity(args: argparse.Namespace) -> int:
    from tablectl.odds.command import run

    result = run(args)
    for text, stream in ((result.out, sys.stdout), (result.err, sys.stderr)):
        if text:
            print(text, file=stream)
    return result.code


def add_equity(sub: Subparsers) -> None:
    """Register ``tablectl equity``."""
    from tablectl.odds.arguments import add_arguments

    add_arguments(sub.add_parser("equity", help="the equity of given hands (exact or Monte "
                                 "Carlo), as live odds are")).set_defaults(
        handler=_equity, default_log_level=CLIENT_LOG_LEVEL)
