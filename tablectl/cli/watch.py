"""``tablectl watch``: a terminal display of any table, following it over MQTT."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tablectl.cli.errors import Exit, UsageError, stops_on
from tablectl.cli.logs import CLIENT_LOG_LEVEL
from tablectl.cli.options import broker_url
from tablectl.cli.output import Subparsers
from tablectl.domain.numbers import HANDS_MAX, WAIT_MAX, number, whole


def _watch(args: argparse.Namespace) -> int:
    import asyncio

    from rich.console import Console
    from rich.live import Live

    from tablectl.app import broker_settings
    from tablectl.publish.errors import PublishError
    from tablectl.publish.tls import TlsKeys
    from tablectl.publish.topics import TopicError, segment
    from tablectl.terminal.follow import (
        FollowUpdate,
        TableFollower,
        follow_table,
    )
    from tablectl.terminal.view import hand_summary_line, render

    try:
        segment(args.table, "table id")
    except TopicError as exc:
        raise UsageError(f"tablectl watch: --table: {exc} (letters, digits, _ . -)") from exc
    settings = broker_settings(args.broker, credentials=Path(args.credentials)
                               if args.credentials else None,
                               cafile=Path(args.cafile) if args.cafile else None, role="watch",
                               keys=TlsKeys(cafile="--cafile"))
    if args.check:
        from tablectl.terminal.check import run_watch_check

        return run_watch_check(settings, args.table, hands=args.hands, seconds=args.timeout,
                               out=sys.stdout, err=sys.stderr)
    tty = sys.stdout.isatty() and not args.plain
    live = Live(console=Console(), refresh_per_second=8) if tty else None
    hands_seen = 0
    heard = False

    async def on_update(follower: TableFollower, update: FollowUpdate) -> bool:
        nonlocal hands_seen, heard
        heard = True
        if live is not None:
            live.update(render(follower.view, title=args.table, four_colour=args.four_colour))
        elif update.hand_ended is not None:
            print(hand_summary_line(update.hand_ended), flush=True)
        hands_seen = follower.hands_ended
        return args.hands is None or hands_seen < args.hands

    async def main() -> None:
        loop = asyncio.get_running_loop()
        await follow_table(settings, args.table, on_update=on_update, monotonic=loop.time,
                           seconds=args.timeout)

    with stops_on("tablectl watch", {PublishError: Exit.FAILED}):
        if live is not None:
            from tablectl.terminal.live_log import logs_above

            with live, logs_above(live.console):
                asyncio.run(main())
        else:
            asyncio.run(main())
    if not heard:       # --timeout ran out: a mistyped table id would look like a quiet table
        print(f"tablectl watch: nothing from table {args.table} on {args.broker} in "
              f"{args.timeout:g} s: check the table id and that its daemon runs",
              file=sys.stderr)
    return Exit.OK


def add_watch(sub: Subparsers) -> None:
    """Register ``tablectl watch``."""
    p = sub.add_parser("watch", help="follow a table over MQTT in the terminal, like any "
                                     "display (seq gaps resync from the snapshot)")
    p.add_argument("--broker", default="mqtt://127.0.0.1:1883", metavar="URL", type=broker_url,
                   help="broker URL (default mqtt://127.0.0.1:1883)")
    p.add_argument("--table", required=True, help="table id")
    p.add_argument("--credentials", metavar="FILE",
                   help="TOML file with username and password (a display user)")
    p.add_argument("--cafile", metavar="FILE", help="CA certificate for mqtts://")
    p.add_argument("--hands", type=whole(1, HANDS_MAX), default=None,
                   help="exit after this many hands have ended")
    p.add_argument("--plain", action="store_true", help="one line per hand")
    p.add_argument("--four-colour", action="store_true", help="four-colour deck")
    p.add_argument("--check", action="store_true", help="check the view against every "
                   "snapshot the daemon publishes (docs/mqtt.md 9.2); exit 1 on a difference")
    p.add_argument("--timeout", type=number(0, WAIT_MAX, above=True), default=None, metavar="S",
                   help="stop after S seconds (exit 0; with --check, its verdict)")
    p.set_defaults(handler=_watch, default_log_level=CLIENT_LOG_LEVEL)
