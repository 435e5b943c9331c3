"""The ``tablectl`` command: argument parsing, logging set-up and printing.

This is the only module that configures logging handlers or prints. Each subcommand is a
``_add_<name>(subparsers)`` function that registers its parser and sets ``handler`` to a
function ``(args) -> int`` (the exit code). Exit codes: 0 success, 1 a failure of the work
itself (a replay that did not match, a hand that could not be played), 2 bad usage or bad
configuration (one clear line per problem, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, TypeAlias, TypeVar

from tablectl import __version__
from tablectl.doctor import add_doctor
from tablectl.domain.errors import ConfigError
from tablectl.vision.cli import add_camera as _add_camera

_LOGGER = logging.getLogger(__name__)

TRACE: Final = 5
"""Log level for raw frames and other very chatty detail (below DEBUG)."""

Handler = Callable[[argparse.Namespace], int]
_Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
_T = TypeVar("_T")

_HAND_FIELDS: Final = ("table", "hand")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and ``table``/``hand`` when the
    record carries them (pass ``extra={"table": ..., "hand": ...}`` on hand-level lines)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in _HAND_FIELDS:
            value = getattr(record, key, None)
            if value is not None:
                out[key] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class HumanFormatter(logging.Formatter):
    """``time level logger [table/hand] message`` for a terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s %(message)s", "%H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        ids = [str(getattr(record, key)) for key in _HAND_FIELDS
               if getattr(record, key, None) is not None]
        if ids:
            head, _, tail = text.partition(record.name + " ")
            text = f"{head}{record.name} [{'/'.join(ids)}] {tail}"
        return text


def setup_logging(level: str, fmt: str) -> None:
    """Configure the root logger once, on stderr."""
    logging.addLevelName(TRACE, "TRACE")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else HumanFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(TRACE if level == "trace" else getattr(logging, level.upper()))


def _count(n: int, word: str) -> str:
    """``1 hand``, ``2 hands``."""
    return f"{n} {word}{'s' * (n != 1)}"


def _print_json(obj: object) -> None:
    print(json.dumps(obj, ensure_ascii=False, sort_keys=False), flush=True)


# --- config -------------------------------------------------------------------------------

def _config_check(args: argparse.Namespace) -> int:
    from tablectl.config import check_config
    from tablectl.config_check import findings

    failed = 0
    for path in args.files:
        try:
            cfg = check_config(Path(path))
        except ConfigError as exc:
            print(exc.render(), file=sys.stderr)
            failed += 1
            continue
        found = findings(cfg)
        for finding in found:
            print(finding.render(path), file=sys.stderr)
        errors = sum(f.level == "error" for f in found)
        if errors:
            failed += 1
            continue
        warned = f", {_count(len(found), 'warning')}" if found else ""
        print(f"{path}: ok (table {cfg.table.id}, {cfg.game.structure.value} "
              f"{cfg.game.variant.value}, preset {cfg.game.preset.value}, "
              f"{_count(len(cfg.seats), 'seat')}, {_count(len(cfg.sources), 'source')}"
              f"{warned})")
    return 2 if failed else 0


def _add_config(sub: _Subparsers) -> None:
    p = sub.add_parser("config", help="table configuration files")
    inner = p.add_subparsers(dest="config_command", required=True, metavar="COMMAND")
    check = inner.add_parser("check", help="validate table config files (exit 2 on any problem)")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.set_defaults(handler=_config_check)


# --- web ----------------------------------------------------------------------------------

def _web(args: argparse.Namespace) -> int:
    if args.hash_password:
        import getpass

        from tablectl.web.auth import hash_password

        password = (getpass.getpass("password: ") if sys.stdin.isatty()
                    else sys.stdin.readline().rstrip("\n"))
        if not password:
            print("no password given", file=sys.stderr)
            return 2
        print(hash_password(password))
        return 0
    if args.config is None:
        print("tablectl web: --config FILE is required", file=sys.stderr)
        return 2
    import asyncio

    from tablectl.app import run_web
    from tablectl.config import load_config
    from tablectl.domain.errors import TablectlError

    config = load_config(Path(args.config))
    try:
        asyncio.run(run_web(config, host=args.host, port=args.port))
    except ValueError as exc:  # a bad users file (UsersFileError) or other bad input
        print(f"tablectl web: {exc}", file=sys.stderr)
        return 2
    except TablectlError as exc:
        print(f"tablectl web: {exc}", file=sys.stderr)
        return 1
    return 0


def _add_web(sub: _Subparsers) -> None:
    p = sub.add_parser("web", help="serve the table display, dealer console and broadcast "
                                   "overlay to browsers (config section [web])")
    p.add_argument("--config", metavar="FILE", help="the table config file")
    p.add_argument("--host", default=None, help="listen address (default: web.host)")
    p.add_argument("--port", type=int, default=None, help="listen port (default: web.port)")
    p.add_argument("--hash-password", action="store_true",
                   help="read a password (prompt or stdin) and print its hash for the "
                        "users file, then exit")
    p.set_defaults(handler=_web)


# --- phh (hand histories) ----------------------------------------------------------------

def _phh_replay(args: argparse.Namespace) -> int:
    from tablectl.domain.games import RulesPreset
    from tablectl.game import PRESETS
    from tablectl.history.phh import replay_paths
    from tablectl.progress import tracked

    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:       # a usage error, exit 2 like every command's
        print(f"tablectl phh replay: no such file or folder: {', '.join(missing)}",
              file=sys.stderr)
        return 2
    rules = PRESETS[RulesPreset(args.rules)]
    counts = {"matched": 0, "failed": 0, "skipped": 0}
    for result in tracked(replay_paths([Path(p) for p in args.paths], rules), "hands replayed"):
        if result.skipped:
            counts["skipped"] += 1
        elif result.ok and result.match is not False:
            counts["matched"] += 1
        else:
            counts["failed"] += 1
        if args.json:
            _print_json(result.as_json())
        else:
            status = ("skipped" if result.skipped else "ok" if result.ok and result.match
                      else "replayed (no finishing stacks)" if result.ok and result.match is None
                      else "MISMATCH" if result.ok else "FAILED")
            detail = f": {result.error}" if result.error else ""
            if result.ok and result.match is False:
                detail = f": {result.finishing_stacks} != expected {result.expected}"
            print(f"{result.file} [{result.variant}] {status}{detail}")
    if not args.json:
        print(f"{counts['matched']} replayed, {counts['failed']} failed, "
              f"{counts['skipped']} skipped (variants not dealt)")
    return 1 if counts["failed"] or (counts["skipped"] and not args.allow_skip) else 0


def _add_phh(sub: _Subparsers) -> None:
    from tablectl.domain.games import RulesPreset

    p = sub.add_parser("phh", help="poker hand histories (PHH files)")
    inner = p.add_subparsers(dest="phh_command", required=True, metavar="COMMAND")
    rep = inner.add_parser("replay", help="replay PHH files through the rules engine and "
                                          "compare finishing stacks (exit 1 on any failure, "
                                          "or any hand skipped without --allow-skip)")
    rep.add_argument("paths", nargs="+", metavar="PATH", help=".phh/.phhs files or folders")
    rep.add_argument("--rules", default=RulesPreset.PHH.value,
                     choices=[r.value for r in RulesPreset],
                     help="house-rule preset (default: phh, the PHH reference conventions)")
    rep.add_argument("--json", action="store_true",
                     help="one JSON object per hand: file, variant, ok, finishing_stacks, "
                          "expected, match, error")
    rep.add_argument("--allow-skip", action="store_true",
                     help="exit 0 although some hands were skipped (variants not dealt)")
    rep.set_defaults(handler=_phh_replay)


# --- demo (interim main job until the daemon exists) -------------------------------------

def _demo_engine_only(args: argparse.Namespace) -> int:
    from tablectl.domain.games import RulesPreset
    from tablectl.game import PRESETS
    from tablectl.history.demo import parse_variant, play_demo

    try:
        game, structure = parse_variant(args.engine_variant)
    except ValueError as exc:
        print(f"tablectl demo: {exc}", file=sys.stderr)
        return 2
    if args.hands < 1:
        print("tablectl demo: --hands must be at least 1", file=sys.stderr)
        return 2
    rules = PRESETS[RulesPreset(args.rules)]
    tty = sys.stdout.isatty()
    console = None
    if tty:
        from rich.console import Console
        from rich.panel import Panel

        console = Console()
    showdowns = 0
    for demo in play_demo(game, structure, rules, hands=args.hands, seed=args.seed):
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
            print(f"hand {demo.number}: {len(demo.actions)} actions; board "
                  f"{demo.board or '-'}; " + "; ".join(demo.winners))
    print(f"{_count(args.hands, 'hand')} of {structure.value} {game.value} ({rules.name} rules, "
          f"seed {args.seed}); {showdowns} went to a showdown")
    return 0


def _demo(args: argparse.Namespace) -> int:
    if args.engine_only:
        args.engine_variant = args.variant
        return _demo_engine_only(args)
    import asyncio

    from rich.console import Console
    from rich.live import Live

    from tablectl.demo import DemoOptions, run_demo
    from tablectl.terminal.follow import FollowUpdate, TableFollower
    from tablectl.terminal.view import describe_event, hand_summary_line, render

    if args.hands is not None and args.hands < 1:
        print("tablectl demo: --hands must be at least 1", file=sys.stderr)
        return 2
    tty = sys.stdout.isatty() and not args.plain
    if args.log_level == "info":             # the table is the output; keep the log quiet
        logging.getLogger().setLevel(logging.ERROR)
    pace = args.pace if args.pace is not None else (0.4 if tty else 0.02)
    options = DemoOptions(variant=args.variant, hands=args.hands, seed=args.seed,
                          broker=args.broker, table=args.table, pace=pace)
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

    if args.broker is not None and not args.broker.startswith("mqtt://"):
        print("tablectl demo: --broker must be mqtt://host:port", file=sys.stderr)
        return 2

    def interrupted(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt        # so the private broker and the simulator are stopped

    import signal

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, interrupted)
    try:
        if live is not None:
            with live:
                played = asyncio.run(run_demo(options, on_update=on_update, on_note=on_note))
        else:
            played = asyncio.run(run_demo(options, on_update=on_update, on_note=on_note))
    except KeyboardInterrupt:
        return 130
    wanted = args.hands
    print(f"{_count(played, 'hand')} of {args.variant} played on table {args.table} "
          f"(seed {args.seed})")
    return 0 if wanted is None or played >= wanted else 1


def _add_demo(sub: _Subparsers) -> None:
    from tablectl.domain.games import RulesPreset

    p = sub.add_parser("demo", help="a simulated table played by a simulated dealer, live in "
                                    "the terminal (simulator + daemon + broker + display)")
    p.add_argument("--variant", default="holdem:no-limit",
                   help="game:structure (holdem:no-limit, omaha-hi-lo:fixed-limit, "
                        "stud:fixed-limit, razz:fixed-limit, ...) or a PHH code (NT, FO/8, "
                        "F7S/8, FR, ...); default holdem:no-limit")
    p.add_argument("--hands", type=int, default=None,
                   help="play this many hands, then exit with a summary (default: until ^C)")
    p.add_argument("--seed", type=int, default=1, help="the simulator's seed (default 1)")
    p.add_argument("--broker", metavar="URL", default=None,
                   help="publish to this broker (mqtt://host:port) instead of starting a "
                        "private mosquitto")
    p.add_argument("--table", default="demo", help="table id (default demo)")
    p.add_argument("--pace", type=float, default=None,
                   help="seconds between the dealer's steps (default 0.4 live, 0.02 plain)")
    p.add_argument("--plain", action="store_true",
                   help="one line per hand even on a terminal")
    p.add_argument("--four-colour", action="store_true", help="four-colour deck")
    p.add_argument("--engine-only", action="store_true",
                   help="no broker, no devices: play hands through the rules engine alone")
    p.add_argument("--rules", default=RulesPreset.CASINO.value,
                   choices=[r.value for r in RulesPreset],
                   help="house-rule preset (with --engine-only)")
    p.set_defaults(handler=_demo)


# --- run (the table daemon) ---------------------------------------------------------------

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
    from tablectl.app import run_daemon
    from tablectl.config import load_config
    from tablectl.domain.errors import TablectlError

    overrides: dict[str, object] = {}
    if args.broker:
        overrides["mqtt.url"] = args.broker
    if args.journal:
        overrides["journal.path"] = str(Path(args.journal).resolve())
    config = load_config(Path(args.config), overrides=overrides)
    from tablectl.stopping import until_stopped

    try:
        run_on_fast_loop(until_stopped(run_daemon(config), f"table {config.table.id}"))
    except ConfigError as exc:
        print(f"tablectl run: {exc}", file=sys.stderr)
        return 2
    except TablectlError as exc:
        print(f"tablectl run: {exc}", file=sys.stderr)
        return 1
    return 0


def _add_run(sub: _Subparsers) -> None:
    p = sub.add_parser("run", help="run the table daemon: card sources in, hand rules, "
                                   "MQTT out (until interrupted)")
    p.add_argument("--config", required=True, metavar="FILE", help="the table config file")
    p.add_argument("--broker", metavar="URL", help="override mqtt.url")
    p.add_argument("--journal", metavar="PATH", help="override journal.path")
    p.set_defaults(handler=_run)


# --- deck / table (registration, verification, calibration) ------------------------------

class _TerminalDialogue:
    """Prompts on stdout; the dealer's lines from stdin, one per answer (a terminal, or a
    pipe or file when a script drives the command). A daemon thread reads stdin, so a read
    blocked on a terminal never holds up the exit."""

    def __init__(self, say: Callable[[str], None] | None = None) -> None:
        import asyncio

        self._queue: asyncio.Queue[str | None] | None = None
        self._eof = False
        self._say = say

    def say(self, text: str) -> None:
        if self._say is not None:
            self._say(text)
        else:
            print(text, flush=True)

    async def readline(self) -> str | None:
        import asyncio
        import threading

        if self._eof:
            return None
        if self._queue is None:
            loop = asyncio.get_running_loop()
            queue: asyncio.Queue[str | None] = asyncio.Queue()
            self._queue = queue

            def pump() -> None:
                try:
                    while line := sys.stdin.readline():
                        loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\r\n"))
                    loop.call_soon_threadsafe(queue.put_nowait, None)
                except (RuntimeError, ValueError, OSError):
                    return  # the loop closed, or stdin did

            threading.Thread(target=pump, name="stdin", daemon=True).start()
        line = await self._queue.get()
        self._eof = line is None
        return line


def _check_out(path: Path, force: bool, command: str) -> bool:
    if path.exists() and not force:
        print(f"tablectl {command}: {path} exists (use --force to overwrite it)",
              file=sys.stderr)
        return False
    return True


def _write_checked(path: Path, text: str, check: Callable[[Path], object]) -> None:
    """Write ``text`` beside ``path``, check the file loads, then move it into place."""
    import os

    tmp = path.with_name(f".{path.name}.new")
    tmp.write_text(text, encoding="utf-8")
    try:
        check(tmp)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


def _quiet_unmapped_antennas() -> None:
    # a table reader before calibration: no antenna has a role yet, and that is no news
    logging.getLogger("tablectl.sources.rfid").setLevel(logging.ERROR)


def _deck_register(args: argparse.Namespace) -> int:
    import asyncio

    from tablectl.clock import SystemClock
    from tablectl.domain.deck import Deck
    from tablectl.progress import counted_lines
    from tablectl.setup.dialogue import open_reader
    from tablectl.setup.errors import RunnerError
    from tablectl.setup.register import DeckRegistration, RegistrationMode, load_card_order
    from tablectl.setup.runners import register_deck

    out = Path(args.out)
    if not _check_out(out, args.force, "deck register"):
        return 2
    known = [Deck.load(Path(p)) for p in args.known]
    order = load_card_order(Path(args.order)) if args.order else None
    mode = RegistrationMode.CONFIRM if args.confirm else RegistrationMode.ORDERED
    registration = (DeckRegistration(mode=mode, order=order, known=known) if order
                    else DeckRegistration(mode=mode, known=known))
    deck_id = args.deck_id or out.stem
    if args.reader == "table":
        _quiet_unmapped_antennas()

    async def run() -> None:
        clock = SystemClock()
        source = open_reader(args.reader, args.device, clock=clock)
        async with source:
            await register_deck(registration, source.events(), dialogue, clock=clock,
                                idle_timeout=args.timeout)

    try:
        with counted_lines(f"registering deck {deck_id}", total=52,
                           count=lambda: registration.count) as say:
            dialogue = _TerminalDialogue(say)
            asyncio.run(run())
    except RunnerError as exc:
        print(f"tablectl deck register: {exc}; nothing written", file=sys.stderr)
        return 1
    deck = registration.deck(deck_id)
    if not _check_out(out, args.force, "deck register"):
        return 2
    header = (f"# Deck {deck_id}: registered by tablectl deck register "
              f"({mode.value} mode) on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC.\n")
    _write_checked(out, header + deck.to_text(), Deck.load)
    print(f"wrote {out}: deck {deck_id}, 52 cards", flush=True)
    return 0


def _deck_verify(args: argparse.Namespace) -> int:
    import asyncio

    from tablectl.clock import SystemClock
    from tablectl.domain.deck import Deck
    from tablectl.progress import counted_lines
    from tablectl.setup.dialogue import open_reader
    from tablectl.setup.errors import RunnerError
    from tablectl.setup.runners import verify_deck
    from tablectl.setup.verify import DeckVerification, VerificationReport

    deck = Deck.load(Path(args.deck))
    others = [Deck.load(Path(p)) for p in args.other]
    verification = DeckVerification(deck, others=others)
    if args.reader == "table":
        _quiet_unmapped_antennas()

    async def run() -> VerificationReport:
        clock = SystemClock()
        source = open_reader(args.reader, args.device, clock=clock)
        async with source:
            return await verify_deck(verification, source.events(), dialogue, clock=clock,
                                     idle_timeout=args.timeout, settle=args.settle)

    try:
        with counted_lines(f"checking deck {deck.deck_id}", total=len(deck.cards_by_uid),
                           count=lambda: verification.present) as say:
            dialogue = _TerminalDialogue(say)
            report = asyncio.run(run())
    except RunnerError as exc:
        print(f"tablectl deck verify: {exc}", file=sys.stderr)
        return 1
    if args.json:
        _print_json({
            "deck": report.deck_id, "ok": report.ok, "present": len(report.present),
            "missing": [str(c) for c in report.missing],
            "duplicates": [{"card": str(c), "reads": n} for c, n in report.duplicates],
            "foreign": [{"uid": u, "deck": d, "card": str(c)} for u, d, c in report.foreign],
            "unknown": list(report.unknown)})
    else:
        for line in report.problems():
            print(line)
        print(f"deck {report.deck_id}: {len(report.present)}/52 present, "
              + ("ok" if report.ok else f"{len(report.problems())} problem(s)"), flush=True)
    return 0 if report.ok else 1


def _table_calibrate(args: argparse.Namespace) -> int:
    import asyncio

    from tablectl.clock import SystemClock
    from tablectl.setup.calibrate import Calibration
    from tablectl.setup.dialogue import open_reader
    from tablectl.setup.errors import RunnerError
    from tablectl.setup.runners import calibrate_table
    from tablectl.sources.base import load_antenna_map

    out = Path(args.out)
    if not _check_out(out, args.force, "table calibrate"):
        return 2
    try:
        calibration = Calibration(Calibration.positions(
            args.seats, slots=args.slots, board=args.board, muck=not args.no_muck,
            burn=not args.no_burn))
    except ValueError as exc:
        print(f"tablectl table calibrate: {exc}", file=sys.stderr)
        return 2
    _quiet_unmapped_antennas()
    dialogue = _TerminalDialogue()

    async def run() -> None:
        clock = SystemClock()
        source = open_reader("table", args.device, clock=clock)
        async with source:
            await calibrate_table(calibration, source.events(), dialogue, clock=clock,
                                  idle_timeout=args.timeout)

    try:
        asyncio.run(run())
    except RunnerError as exc:
        print(f"tablectl table calibrate: {exc}; nothing written", file=sys.stderr)
        return 1
    if not _check_out(out, args.force, "table calibrate"):
        return 2
    title = (f"Antenna role map written by tablectl table calibrate on "
             f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC.")
    _write_checked(out, calibration.to_toml(title=title), load_antenna_map)
    print(f"wrote {out}: {len(calibration.antenna_map())} antennas"
          + (f", no antenna for {', '.join(map(str, calibration.skipped))}"
             if calibration.skipped else ""), flush=True)
    return 0


def _add_reader_arguments(p: argparse.ArgumentParser, *, reader: bool = True) -> None:
    p.add_argument("--device", required=True, metavar="URL",
                   help="the reader: a serial path (/dev/serial/by-id/...) or socket://HOST:PORT")
    if reader:
        p.add_argument("--reader", choices=["shoe", "table"], default="shoe",
                       help="what the reader is: a card shoe (default) or table antennas")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                   help="give up after this long without a read or an answer (default 60)")


def _add_deck(sub: _Subparsers) -> None:
    p = sub.add_parser("deck", help="register a deck's tags, verify a deck on a reader")
    inner = p.add_subparsers(dest="deck_command", required=True, metavar="COMMAND")
    reg = inner.add_parser(
        "register", help="read a new deck's 52 tags and write its deck file",
        description="Ordered mode (default): pass the cards in the stated order (FULL_DECK "
                    "order, 2c 2d 2h 2s 3c ... As, or --order FILE); type 'undo' to take back "
                    "the last card, 'quit' to stop. --confirm: read a card, then type which it "
                    "is. Answers come from stdin line by line. Exit 0 written, 1 stopped "
                    "(nothing written), 2 bad usage.")
    _add_reader_arguments(reg)
    reg.add_argument("--out", required=True, metavar="FILE",
                     help="the deck file to write (config/decks/NAME.csv)")
    reg.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    how = reg.add_mutually_exclusive_group()
    how.add_argument("--order", metavar="FILE",
                     help="the stated order: a file of the 52 cards in passing order")
    how.add_argument("--confirm", action="store_true",
                     help="name each card after it is read, instead of a stated order")
    reg.add_argument("--known", action="append", default=[], metavar="DECK",
                     help="a registered deck whose tags are refused (repeatable)")
    reg.add_argument("--deck-id", help="the deck's id (default: the --out file's stem)")
    reg.set_defaults(handler=_deck_register)
    ver = inner.add_parser(
        "verify", help="check a deck on a reader: 52 present, no duplicate, no unknown tag",
        description="Pass the deck over the reader. Ends when every card was read and "
                    "--settle seconds pass quietly, after --timeout seconds without a read, "
                    "or on a 'done' line on stdin. Exit 0 ok, 1 problems found.")
    ver.add_argument("deck", metavar="DECK", help="the deck file (config/decks/NAME.csv)")
    _add_reader_arguments(ver)
    ver.add_argument("--other", action="append", default=[], metavar="DECK",
                     help="another registered deck, to name the deck of a foreign tag "
                          "(repeatable)")
    ver.add_argument("--settle", type=float, default=1.0, metavar="SECONDS",
                     help="after the last card, wait this long for stray reads (default 1)")
    ver.add_argument("--json", action="store_true", help="print the report as JSON")
    ver.set_defaults(handler=_deck_verify)


def _add_table(sub: _Subparsers) -> None:
    p = sub.add_parser("table", help="table antennas")
    inner = p.add_subparsers(dest="table_command", required=True, metavar="COMMAND")
    cal = inner.add_parser(
        "calibrate", help="build the antenna role map: a card on each position in turn",
        description="Asks for a card on each seat, board position, the muck and the burn in "
                    "turn and records which antenna saw it; type 'skip' for a position with "
                    "no antenna, 'quit' to stop. Exit 0 written, 1 stopped (nothing written).")
    _add_reader_arguments(cal, reader=False)
    cal.add_argument("--out", required=True, metavar="FILE",
                     help="the antenna map to write (config/antennas/NAME.toml)")
    cal.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    cal.add_argument("--seats", type=int, default=10, help="seats (default 10)")
    cal.add_argument("--slots", type=int, default=1,
                     help="antennas per seat (default 1; 2 asks for 'seat N slot K')")
    cal.add_argument("--board", type=int, default=5, help="board positions (default 5)")
    cal.add_argument("--no-muck", action="store_true", help="the table has no muck antenna")
    cal.add_argument("--no-burn", action="store_true", help="the table has no burn antenna")
    cal.set_defaults(handler=_table_calibrate)


# --- watch (a terminal display of any table) ---------------------------------------------

def _watch(args: argparse.Namespace) -> int:
    import asyncio

    from rich.console import Console
    from rich.live import Live

    from tablectl.app import broker_settings
    from tablectl.publish.errors import PublishError
    from tablectl.terminal.follow import FollowUpdate, TableFollower, follow_table
    from tablectl.terminal.view import hand_summary_line, render

    if not args.broker.startswith(("mqtt://", "mqtts://")):
        print("tablectl watch: --broker must be mqtt://host:port or mqtts://host:port",
              file=sys.stderr)
        return 2
    settings = broker_settings(args.broker, credentials=Path(args.credentials)
                               if args.credentials else None,
                               cafile=Path(args.cafile) if args.cafile else None, role="watch")
    if args.check:
        from tablectl.terminal.check import run_watch_check

        return run_watch_check(settings, args.table, hands=args.hands, seconds=args.timeout,
                               out=sys.stdout, err=sys.stderr)
    if args.hands is not None and args.hands < 1:
        print("tablectl watch: --hands must be at least 1", file=sys.stderr)
        return 2
    tty = sys.stdout.isatty() and not args.plain
    live = Live(console=Console(), refresh_per_second=8) if tty else None
    hands_seen = 0

    async def on_update(follower: TableFollower, update: FollowUpdate) -> bool:
        nonlocal hands_seen
        if live is not None:
            live.update(render(follower.view, title=args.table, four_colour=args.four_colour))
        elif update.hand_ended is not None:
            print(hand_summary_line(update.hand_ended), flush=True)
        hands_seen = follower.hands_ended
        return args.hands is None or hands_seen < args.hands

    async def main() -> None:
        loop = asyncio.get_running_loop()
        await follow_table(settings, args.table, on_update=on_update, monotonic=loop.time)

    try:
        if live is not None:
            from tablectl.terminal.live_log import logs_above

            with live, logs_above(live.console):
                asyncio.run(main())
        else:
            asyncio.run(main())
    except PublishError as exc:
        print(f"tablectl watch: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


def _add_watch(sub: _Subparsers) -> None:
    p = sub.add_parser("watch", help="follow a table over MQTT in the terminal, like any "
                                     "display (seq gaps resync from the snapshot)")
    p.add_argument("--broker", default="mqtt://127.0.0.1:1883", metavar="URL",
                   help="broker URL (default mqtt://127.0.0.1:1883)")
    p.add_argument("--table", required=True, help="table id")
    p.add_argument("--credentials", metavar="FILE",
                   help="TOML file with username and password (a display user)")
    p.add_argument("--cafile", metavar="FILE", help="CA certificate for mqtts://")
    p.add_argument("--hands", type=int, default=None,
                   help="exit after this many hands have ended")
    p.add_argument("--plain", action="store_true", help="one line per hand")
    p.add_argument("--four-colour", action="store_true", help="four-colour deck")
    p.add_argument("--check", action="store_true", help="check the view against every "
                   "snapshot the daemon publishes (docs/mqtt.md 9.2); exit 1 on a difference")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="with --check: stop after S seconds")
    p.set_defaults(handler=_watch)


# --- recall / history export (read the journal, also while the daemon runs) --------------

def _journal_of(config_path: str) -> Path:
    from tablectl.config import load_config

    return load_config(Path(config_path)).journal.path


def _compact(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _recall(args: argparse.Namespace) -> int:
    from tablectl.history.export import open_readonly
    from tablectl.history.recall import active_errors, recall_hands
    from tablectl.history.recall_text import recall_lines
    from tablectl.journal import JournalError

    if args.n < 1:
        print("tablectl recall: N must be at least 1", file=sys.stderr)
        return 2
    path = _journal_of(args.config)
    try:
        with open_readonly(path) as journal:
            hands = recall_hands(journal, args.n, hand_id=args.hand, secure=args.secure)
            errors = active_errors(journal)
    except JournalError as exc:
        print(f"tablectl recall: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"tablectl recall: {exc}", file=sys.stderr)
        return 2
    if args.json:
        _print_json({"journal": str(path),
                     "active_errors": [{"code": e.code, "since": e.raised_at.isoformat(),
                                        "detail": dict(e.detail)} for e in errors],
                     "hands": [h.to_json() for h in hands]})
        return 0
    if not hands:
        print(f"{path}: no hands journaled")
    for line in recall_lines(hands, errors, _cards_of(args.config)):
        print(line)
    return 0


def _cards_of(config_path: str) -> dict[str, str]:
    """Tag UID -> card of the config's decks (empty if they cannot be read)."""
    from tablectl.config import load_config

    try:
        decks = load_config(Path(config_path)).load_decks()
    except ConfigError:
        return {}
    return {uid: str(card) for deck in decks.values() for uid, card in deck.cards_by_uid.items()}


def _add_recall(sub: _Subparsers) -> None:
    p = sub.add_parser(
        "recall", help="show the last N hands step by step from the journal",
        description="Reads the journal file read-only: works while the daemon runs and while "
                    "an error is active. Each step is an input (time, who, kind) with the "
                    "events it caused. Exit 1 if the journal cannot be read.")
    p.add_argument("--config", required=True, metavar="FILE", help="the table config file")
    p.add_argument("n", nargs="?", type=int, default=10, metavar="N",
                   help="how many of the last hands (default 10)")
    p.add_argument("--hand", type=int, metavar="ID",
                   help="only the hand with this journal id (any age)")
    p.add_argument("--secure", action="store_true",
                   help="include the secure hole-card events")
    p.add_argument("--json", action="store_true", help="one JSON object: errors and hands")
    p.set_defaults(handler=_recall)


def _history_export(args: argparse.Namespace) -> int:
    from tablectl.app import table_setup
    from tablectl.config import load_config
    from tablectl.history.export import export_hands, finished_hands, open_readonly
    from tablectl.journal import JournalError
    from tablectl.progress import tracked

    if args.hands is not None and args.hands < 1:
        print("tablectl history export: --hands must be at least 1", file=sys.stderr)
        return 2
    config = load_config(Path(args.config))
    setup = table_setup(config)
    out = Path(args.out)
    try:
        with open_readonly(config.journal.path) as journal:
            recalls = finished_hands(journal, args.hands)
        results = list(tracked(export_hands(setup, recalls, out), "hands exported",
                               total=len(recalls)))
    except JournalError as exc:
        print(f"tablectl history export: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"tablectl history export: cannot write {out}: {exc}", file=sys.stderr)
        return 1
    failed = [r for r in results if r.error is not None]
    for result in failed:
        print(f"hand {result.journal_id}: not exported: {result.error}", file=sys.stderr)
    print(f"{_count(len(results) - len(failed), 'hand')} written to {out}"
          + (f", {len(failed)} failed" if failed else ""))
    return 1 if failed else 0


def _add_history(sub: _Subparsers) -> None:
    p = sub.add_parser("history", help="hand histories from the journal")
    inner = p.add_subparsers(dest="history_command", required=True, metavar="COMMAND")
    exp = inner.add_parser(
        "export", help="write the journal's finished hands as PHH files, one per hand",
        description="Rebuilds each settled hand from the journal (read-only) through the "
                    "rules engine, checks its finishing stacks against the journal, and writes "
                    "OUT/<hand id>.phh. Exit 1 if any hand could not be exported.")
    exp.add_argument("--config", required=True, metavar="FILE", help="the table config file")
    exp.add_argument("--out", default="phh", metavar="DIR",
                     help="where to write (default ./phh, created if needed)")
    exp.add_argument("--hands", type=int, default=None, metavar="N",
                     help="only the finished hands among the last N (default: all)")
    exp.set_defaults(handler=_history_export)


def _equity(args: argparse.Namespace) -> int:
    from tablectl.odds.command import run

    result = run(args)
    for text, stream in ((result.out, sys.stdout), (result.err, sys.stderr)):
        if text:
            print(text, file=stream)
    return result.code


def _add_equity(sub: _Subparsers) -> None:
    from tablectl.odds.command import add_arguments

    add_arguments(sub.add_parser("equity", help="the equity of given hands (exact or Monte "
                                 "Carlo), as live odds are")).set_defaults(handler=_equity)


# --- parser -------------------------------------------------------------------------------

def _add_floor(sub: _Subparsers) -> None:
    from tablectl.floor.command import add_floor

    add_floor(sub)


_ADDERS: Final[tuple[Callable[[_Subparsers], None], ...]] = (
    _add_run,
    _add_floor,
    _add_watch,
    _add_config,
    _add_web,
    _add_phh,
    _add_demo,
    _add_camera,
    _add_deck,
    _add_table,
    _add_recall,
    _add_history,
    add_doctor,
    _add_equity,
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (exposed for docs and tests)."""
    parser = argparse.ArgumentParser(
        prog="tablectl",
        description="Controller of a physical poker table: card readers in, hand rules, "
                    "MQTT events out.",
    )
    parser.add_argument("--version", action="version", version=f"tablectl {__version__}")
    parser.add_argument("--log-level", default="info",
                        choices=["trace", "debug", "info", "warning", "error"])
    parser.add_argument("--log-format", default="human", choices=["human", "json"],
                        help="human-readable lines (default) or JSON lines")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in _ADDERS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``tablectl`` command; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args.log_level, args.log_format)
    handler: Handler = args.handler
    try:
        return handler(args)
    except ConfigError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
