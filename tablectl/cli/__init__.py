"""The ``tablectl`` command: argument parsing, logging set-up and printing.

This package is the only part of tablectl that configures logging handlers or prints. Each
command group is a module with an ``add_<name>(subparsers)`` function that registers its
parser and sets ``handler`` to a function ``(args) -> int`` (the exit code):

==========================  ====================================================
``run``, ``config``         :mod:`tablectl.cli.run`
``web``                     :mod:`tablectl.cli.web`
``demo``                    :mod:`tablectl.cli.demo`
``watch``                   :mod:`tablectl.cli.watch`
``deck``, ``table``         :mod:`tablectl.cli.setup`
``camera``                  :mod:`tablectl.cli.camera`, :mod:`tablectl.cli.camera_live`
``recall``, ``history``,    :mod:`tablectl.cli.history`
``phh``
``equity``                  :mod:`tablectl.cli.equity`
``floor``                   :mod:`tablectl.floor.command`
``tournament``              :mod:`tablectl.tournament.command`
``doctor``                  :mod:`tablectl.doctor`
==========================  ====================================================

Exit codes (:class:`tablectl.cli.errors.Exit`): 0 success, 1 a failure of the work itself (a
replay that did not match, a hand that could not be played), 2 bad usage or bad configuration
(one clear line per problem, never a traceback), 130 interrupted. A command that stops raises
:class:`~tablectl.cli.errors.CommandError`; :func:`main` prints its line and exits with its
code, the one place that turns errors into exit codes.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Callable, Sequence
from typing import Final, NoReturn, cast

from tablectl import __version__
from tablectl.cli.camera import add_camera
from tablectl.cli.demo import add_demo
from tablectl.cli.equity import add_equity
from tablectl.cli.errors import CommandError, Exit, shortened
from tablectl.cli.history import add_history, add_phh, add_recall
from tablectl.cli.logs import log_level_of, setup_logging
from tablectl.cli.output import Handler, Subparsers
from tablectl.cli.run import add_config, add_run
from tablectl.cli.setup import add_deck, add_table
from tablectl.cli.watch import add_watch
from tablectl.cli.web import add_web
from tablectl.doctor import add_doctor
from tablectl.domain.errors import ConfigError


def _add_floor(sub: Subparsers) -> None:
    from tablectl.floor.command import add_floor

    add_floor(sub)


def _add_tournament(sub: Subparsers) -> None:
    from tablectl.tournament.command import add_tournament

    add_tournament(sub)


_ADDERS: Final[dict[str, Callable[[Subparsers], None]]] = {
    "run": add_run,
    "floor": _add_floor,
    "tournament": _add_tournament,
    "watch": add_watch,
    "config": add_config,
    "web": add_web,
    "phh": add_phh,
    "demo": add_demo,
    "camera": add_camera,
    "deck": add_deck,
    "table": add_table,
    "recall": add_recall,
    "history": add_history,
    "doctor": add_doctor,
    "equity": add_equity,
}
"""Every command by name (each adder registers exactly that one), in the order ``tablectl
--help`` lists them."""

_VALUED_OPTIONS: Final = ("--log-level", "--log-format")
"""The options before the command that take a value as the next word."""


def command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, or None when its first word that is no option (nor an
    option's value) is no command: ``--help``, a typo, nothing.

    >>> command_of(["--log-level", "info", "floor", "run"]), command_of(["--log-level=info", "run"])
    ('floor', 'run')
    >>> command_of(["--help"]) is None, command_of(["rnu"]) is None
    (True, True)
    """
    value_next = False
    for word in argv:
        if value_next:
            value_next = False
        elif word.startswith("-"):
            # an abbreviation such as --log-l takes its value the same way
            value_next = "=" not in word and len(word) > 2 and any(
                o.startswith(word) for o in _VALUED_OPTIONS)
        else:
            return word if word in _ADDERS else None
    return None


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its usage errors with long words cut (:func:`shortened`); the
    subcommands' parsers are of the same class."""

    def error(self, message: str) -> NoReturn:
        super().error(shortened(message))


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (exposed for docs and tests): every command, or only ``command``'s
    when given, so that a command does not import the modules of all the others (the floor's
    and the tournament's load the whole MQTT API, most of a second at each start)."""
    parser = _Parser(
        prog="tablectl",
        description="Controller of a physical poker table: card readers in, hand rules, "
                    "MQTT events out.",
    )
    parser.add_argument("--version", action="version", version=f"tablectl {__version__}")
    parser.add_argument("--log-level", default=None,
                        choices=["trace", "debug", "info", "warning", "error"],
                        help="default info for the daemons (run, web, floor run), warning for "
                             "clients such as watch, doctor and equity, error for demo")
    parser.add_argument("--log-format", default="human", choices=["human", "json"],
                        help="human-readable lines (default) or JSON lines")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, add in _ADDERS.items():
        if command is None or name == command:
            add(cast(Subparsers, sub))  # their parsers are _Parser, an ArgumentParser
    return parser


_BAD_PATH: Final = frozenset({errno.ENAMETOOLONG, errno.ENOENT, errno.ENOTDIR, errno.EISDIR,
                              errno.ELOOP})
"""What an ``OSError`` says of a path that is wrong as given (a usage error, exit 2), not
of a system that failed (exit 1)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tablectl`` command; returns the exit code."""
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(command_of(words))
    args = parser.parse_args(words)
    setup_logging(log_level_of(args), args.log_format)
    handler: Handler = args.handler
    try:
        return int(handler(args))
    except CommandError as exc:
        print(shortened(exc.line), file=sys.stderr, flush=True)
        return int(exc.code)
    except ConfigError as exc:
        print(shortened(exc.render()), file=sys.stderr)
        return int(Exit.USAGE)
    except KeyboardInterrupt:
        return int(Exit.INTERRUPTED)
    except BrokenPipeError:
        # what is still buffered for the closed pipe goes nowhere, so the interpreter's own
        # flush at exit does not fail a second time with a traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return int(Exit.PIPE_CLOSED)
    except OSError as exc:
        if exc.filename is None:
            raise
        # a path a command was given that the system refuses (too long, a loop of links, a
        # folder it may not read), met where the command did not expect it: one line
        print(shortened(f"tablectl {args.command}: {exc.strerror}: {exc.filename}"),
              file=sys.stderr, flush=True)
        return int(Exit.USAGE if exc.errno in _BAD_PATH else Exit.FAILED)
