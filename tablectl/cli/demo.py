"""``tablectl demo``: a simulated table played live in the terminal, or hands played through
the rules engine alone (``--engine-only``)."""

from __future__ import annotations

import argparse
import errno
import os
import sys
from typing import Final

from tablectl.cli.errors import Exit, UsageError, stops_on
from tablectl.cli.options import plain_broker_url
from tablectl.cli.output import Subparsers, count
from tablectl.domain.numbers import HANDS_MAX, SEED_MAX, number, whole

ENGINE_HANDS: Final = 5
"""Hands ``demo --engine-only`` plays without ``--hands`` (it has no ^C to wait for)."""


def _demo_engine_only(args: argparse.Namespace) -> int:
    from tablectl.domain.games import RulesPreset
    from tablectl.game import PRESETS
    from tablectl.history.demo import (
        UNITS_PER_CURRENCY,
        demo_rotation,
        parse_variant,
        play_demo,
        play_rotation,
    )
    from tablectl.terminal.view import money

    horse = args.engine_variant == "horse"
    with stops_on("tablectl demo", {ValueError: Exit.USAGE}):
        game, structure = parse_variant("holdem" if horse else args.engine_variant)
    hands = ENGINE_HANDS if args.hands is None else args.hands
    rules = PRESETS[RulesPreset(args.rules or RulesPreset.CASINO.value)]
    tty = sys.stdout.isatty()
    console = None
    if tty:
        from rich.console import Console
        from rich.panel import Panel

        console = Console()
    showdowns = 0
    stakes = {"units_per_currency": UNITS_PER_CURRENCY}     # money as the live demo prints it
    played = (play_rotation(demo_rotation(rules), rules, hands=hands, seed=args.seed,
                            money=lambda amount: money(amount, stakes)) if horse else
              play_demo(game, structure, rules, hands=hands, seed=args.seed,
                        money=lambda amount: money(amount, stakes)))
    for demo in played:
        start = demo.hand.start_args
        game, structure = start.game, start.structure
        showdowns += any(a.half.value != "whole" or a.description not in (
            "uncontested", "uncalled") for r in demo.hand.results for a in r.awards)
        if console is not None:
            body = "\n".join([
                "[bold]actions[/]: " + ", ".join(demo.actions),
                f"[bold]board[/]: {demo.board or '-'}",
                *(f"[green]{w}[/]" for w in demo.winners),
            ])
            console.print(Panel(body, title=f"hand {demo.number} "
                                             f"({structure.value} {game.value})"))
        else:
            label = f" ({game.value})" if horse else ""
            print(f"hand {demo.number}{label}: {len(demo.actions)} actions; board "
                  f"{demo.board or '-'}; " + "; ".join(demo.winners))
    what = "horse" if horse else f"{structure.value} {game.value}"
    print(f"{count(hands, 'hand')} of {what} ({rules.name} rules, "
          f"seed {args.seed}); {showdowns} went to a showdown")
    return Exit.OK


def _off_the_terminal(fds: list[int]) -> None:
    """Point ``fds`` (stdout/stderr that were a terminal) at /dev/null: once the terminal is
    gone (its window closed, the SSH session dropped) every write to it fails with EIO, and the
    live table's last frame and the clean-up would end in a traceback instead of a quiet stop."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in fds:
            os.dup2(null, fd)
    finally:
        os.close(null)


def _demo(args: argparse.Namespace) -> int:
    if args.engine_only and args.odds:
        raise UsageError("tablectl demo: --odds goes with the live demo (the engine-only demo "
                         "publishes nothing)")
    if args.engine_only:
        args.engine_variant = args.variant
        return _demo_engine_only(args)
    import asyncio

    from rich.console import Console
    from rich.live import Live

    from tablectl.demo import DemoOptions, run_demo
    from tablectl.terminal.follow import FollowUpdate, TableFollower
    from tablectl.terminal.view import describe_event, hand_summary_line, render

    if args.rules is not None:
        raise UsageError("tablectl demo: --rules goes with --engine-only (the live demo deals "
                         "its scenario's house rules)")
    tty = sys.stdout.isatty() and not args.plain
    pace = args.pace if args.pace is not None else (0.4 if tty else 0.02)
    options = DemoOptions(variant=args.variant, hands=args.hands, seed=args.seed,
                          broker=args.broker, table=args.table, pace=pace, odds=args.odds)
    console = Console()
    live = Live(console=console, refresh_per_second=8, transient=False) if tty else None

    def on_update(follower: TableFollower, update: FollowUpdate) -> None:
        if live is not None:
            live.update(render(follower.view, four_colour=args.four_colour))
        elif update.hand_ended is not None:
            print(hand_summary_line(update.hand_ended), flush=True)
        elif update.seat_change is not None:      # a rebuy between hands
            stakes = (follower.view.snapshot or {}).get("stakes")
            print(describe_event(update.seat_change, stakes if isinstance(stakes, dict) else {}),
                  flush=True)

    def on_note(text: str) -> None:
        print(f"tablectl demo: {text}", file=sys.stderr, flush=True)

    terminals = [fd for fd in (sys.stdout.fileno(), sys.stderr.fileno()) if os.isatty(fd)]

    async def demo() -> int:
        # SIGTERM and SIGHUP stop the demo as ^C does: its task is cancelled, so the private
        # broker and the simulator are stopped (an exception raised from a signal handler
        # would land in whichever task runs, and leave the others to die noisily)
        import signal

        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        stopped: list[int] = []

        def stop(signum: int) -> None:
            if signum == signal.SIGHUP:
                _off_the_terminal(terminals)
            stopped.append(signum)
            task.cancel()

        for signum in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(signum, stop, signum)
        try:
            return await run_demo(options, on_update=on_update, on_note=on_note)
        except asyncio.CancelledError:
            if stopped:
                raise KeyboardInterrupt from None
            raise

    if live is not None:
        try:
            with live:
                played = asyncio.run(demo())
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            _off_the_terminal(terminals)     # the terminal went away without a hangup signal
            return Exit.INTERRUPTED
    else:
        played = asyncio.run(demo())
    wanted = args.hands
    print(f"{count(played, 'hand')} of {args.variant} played on table {args.table} "
          f"(seed {args.seed})")
    return Exit.OK if wanted is None or played >= wanted else Exit.FAILED


def add_demo(sub: Subparsers) -> None:
    """Register ``tablectl demo``."""
    from tablectl.domain.games import RulesPreset

    p = sub.add_parser("demo", help="a simulated table played by a simulated dealer, live in "
                                    "the terminal (simulator + daemon + broker + display)")
    p.add_argument("--variant", default="holdem:no-limit",
                   help="game:structure (holdem:no-limit, omaha-hi-lo:fixed-limit, "
                        "stud:fixed-limit, razz:fixed-limit, ...) or a PHH code (NT, FO/8, "
                        "F7S/8, FR, ...); default holdem:no-limit")
    p.add_argument("--hands", type=whole(1, HANDS_MAX), default=None,
                   help="play this many hands, then exit with a summary (default: until ^C; "
                        f"{ENGINE_HANDS} with --engine-only)")
    p.add_argument("--seed", type=whole(0, SEED_MAX), default=1,
                   help="the simulator's seed (default 1)")
    p.add_argument("--broker", metavar="URL", default=None, type=plain_broker_url,
                   help="publish to this broker (mqtt://host:port) instead of starting a "
                        "private mosquitto")
    p.add_argument("--table", default="demo", help="table id (default demo)")
    p.add_argument("--pace", type=number(0, 60), default=None,
                   help="seconds between the dealer's steps (default 0.4 live, 0.02 plain)")
    p.add_argument("--plain", action="store_true",
                   help="one line per hand even on a terminal")
    p.add_argument("--four-colour", action="store_true", help="four-colour deck")
    p.add_argument("--odds", action="store_true",
                   help="live odds on, as on a broadcast table: published on "
                        "secure/v1/tables/TABLE/odds for the overlay (docs/odds.md)")
    p.add_argument("--engine-only", action="store_true",
                   help="no broker, no devices: play hands through the rules engine alone")
    p.add_argument("--rules", default=None, choices=[r.value for r in RulesPreset],
                   help="house-rule preset (with --engine-only; default casino)")
    # the table is the output: only errors reach the log by default
    p.set_defaults(handler=_demo, default_log_level="error")
