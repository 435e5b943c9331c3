"""``tablectl web``: the browser display server, and hashing a password for its users file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tablectl.cli.errors import Exit, UsageError, stops_on
from tablectl.cli.output import Subparsers
from tablectl.domain.errors import TablectlError
from tablectl.domain.numbers import whole


def _web(args: argparse.Namespace) -> int:
    if args.hash_password:
        import getpass

        from tablectl.web.auth import hash_password

        password = (getpass.getpass("password: ") if sys.stdin.isatty()
                    else sys.stdin.readline().rstrip("\n"))
        if not password:
            raise UsageError("no password given")
        print(hash_password(password))
        return Exit.OK
    if args.config is None:
        raise UsageError("tablectl web: --config FILE is required")
    import asyncio

    from tablectl.app import run_web
    from tablectl.config import load_config

    config = load_config(Path(args.config))
    # a bad users file (UsersFileError) or other bad input is a ValueError
    with stops_on("tablectl web", {ValueError: Exit.USAGE, TablectlError: Exit.FAILED}):
        asyncio.run(run_web(config, host=args.host, port=args.port))
    return Exit.OK


def add_web(sub: Subparsers) -> None:
    """Register ``tablectl web``."""
    p = sub.add_parser("web", help="serve the table display, dealer console and broadcast "
                                   "overlay to browsers (config section [web])")
    p.add_argument("--config", metavar="FILE", help="the table config file")
    p.add_argument("--host", default=None, help="listen address (default: web.host)")
    p.add_argument("--port", type=whole(0, 65535), default=None,
                   help="listen port (default: web.port)")
    p.add_argument("--hash-password", action="store_true",
                   help="read a password (prompt or stdin) and print its hash for the "
                        "users file, then exit")
    p.set_defaults(handler=_web)
