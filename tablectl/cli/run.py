"""``tablectl run`` (the table daemon) and ``tablectl config check``."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import TypeVar

from tablectl.cli.errors import Exit, UsageError, stops_on
from tablectl.cli.options import broker_url
from tablectl.cli.output import Subparsers, count
from tablectl.domain.errors import ConfigError, TablectlError

_T = TypeVar("_T")
_LOGGER = logging.getLogger(__name__)


def run_on_fast_loop(main: Coroutine[object, object, _T]) -> _T:
    """``asyncio.run(main)``, on uvloop's event loop where uvloop is installed.

    The daemon's loop: every card read crosses it several times (the reader's fd, the
    source, the publisher, paho's socket), and uvloop's loop costs less per step than the
    standard one (docs/architecture.md, "Third-party libraries").
    """
    import asyncio

    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


def _run(args: argparse.Namespace) -> int:
    from tablectl.config import load_config

    overrides: dict[str, object] = {}
    if args.broker:
        overrides["mqtt.url"] = args.broker
    if args.journal:
        overrides["journal.path"] = str(Path(args.journal).resolve())
    config = load_config(Path(args.config), overrides=overrides)
    # the daemon's modules (MQTT, web server, metrics: most of a second) only for a config
    # that loaded: a refused one exits 2 without them
    from tablectl.app import run_daemon
    from tablectl.journal import JournalRefusedError
    from tablectl.stopping import until_stopped

    if args.new_journal:
        _set_aside(str(config.journal.path))
    with stops_on("tablectl run", {ConfigError: Exit.USAGE, JournalRefusedError: Exit.USAGE,
                                   TablectlError: Exit.FAILED}):
        run_on_fast_loop(until_stopped(run_daemon(config), f"table {config.table.id}"))
    return Exit.OK


def _set_aside(path: str) -> None:
    """``--new-journal``: move a refused journal (and its -wal, -shm) aside, never deleting
    it; a sound journal is left alone (a flag forgotten in a unit file must not start a new
    table at every restart)."""
    from tablectl.clock import SystemClock
    from tablectl.journal.integrity import journal_refusal, set_aside

    refused = journal_refusal(path)
    if refused is None:
        if Path(path).exists():
            raise UsageError(f"tablectl run: --new-journal: journal {path} is sound and is "
                             "kept; to start a new table with it there, move it away "
                             "yourself (or use another journal.path)")
        return
    stamp = SystemClock().now().strftime("%Y%m%dT%H%M%SZ")
    try:
        moved = set_aside(path, stamp)
    except OSError as exc:
        raise UsageError(f"tablectl run: --new-journal: cannot move {path} aside: "
                         f"{exc.strerror or exc}") from exc
    _LOGGER.warning("journal %s was %s: moved aside to %s; starting a new journal", path,
                    refused.refusal.value, ", ".join(str(m) for m in moved))


def add_run(sub: Subparsers) -> None:
    """Register ``tablectl run``."""
    p = sub.add_parser("run", help="run the table daemon: card sources in, hand rules, "
                                   "MQTT out (until interrupted)")
    p.add_argument("--config", required=True, metavar="FILE", help="the table config file")
    p.add_argument("--broker", metavar="URL", type=broker_url, help="override mqtt.url")
    p.add_argument("--journal", metavar="PATH", help="override journal.path")
    p.add_argument("--new-journal", action="store_true",
                   help="the journal was refused (empty, truncated, corrupted, not a "
                        "journal): move it and its -wal/-shm aside (never deleted) and start "
                        "a new one; a sound journal is kept")
    p.set_defaults(handler=_run)


def _config_check(args: argparse.Namespace) -> int:
    from tablectl.config_games import described
    from tablectl.config_review import review

    failed = 0
    for path in args.files:      # each file's every problem, then the next file
        result = review(Path(path))
        for finding in result.found:
            print(finding.render(path), file=sys.stderr)
        cfg = result.config
        if result.errors or cfg is None:
            failed += 1
            continue
        warned = f", {count(len(result.found), 'warning')}" if result.found else ""
        print(f"{path}: ok (table {cfg.table.id}, {described(cfg.game)}, "
              f"preset {cfg.game.preset.value}, "
              f"{count(len(cfg.seats), 'seat')}, {count(len(cfg.sources), 'source')}"
              f"{warned})")
    return Exit.USAGE if failed else Exit.OK


def add_config(sub: Subparsers) -> None:
    """Register ``tablectl config check``."""
    p = sub.add_parser("config", help="table configuration files")
    inner = p.add_subparsers(dest="config_command", required=True, metavar="COMMAND")
    check = inner.add_parser("check", help="validate table config files (exit 2 on any problem)")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.set_defaults(handler=_config_check)
