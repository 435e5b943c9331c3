"""Set-up at the table: ``tablectl deck register``, ``tablectl deck verify`` and ``tablectl
table calibrate`` (the runners are :mod:`tablectl.setup`; this is their terminal)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from tablectl.cli.dialogue import TerminalDialogue
from tablectl.cli.errors import Exit, UsageError, stops_on
from tablectl.cli.output import Subparsers, print_json
from tablectl.config import MAX_SEATS
from tablectl.domain.numbers import number, whole


def _check_out(path: Path, force: bool, command: str) -> None:
    """Refuse to overwrite ``path`` without ``--force`` (exit 2)."""
    if path.exists() and not force:
        raise UsageError(f"tablectl {command}: {path} exists (use --force to overwrite it)")


def _write_checked(path: Path, text: str, check: Callable[[Path], object]) -> None:
    """Write ``text`` beside ``path``, check the file loads, then move it into place."""
    tmp = path.with_name(f".{path.name}.new")
    tmp.write_text(text, encoding="utf-8")
    try:
        check(tmp)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


def _check_device(url: str, command: str) -> None:
    """Refuse a reader path that cannot be opened (exit 2) before waiting on it: a serial
    path that does not exist or is not ours to open is a typo or a permission, not a reader
    that is slow to answer. URLs (``socket://``, ``rfc2217://``) are left to the reader."""
    if "://" in url:
        return
    try:
        fd = os.open(url, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as exc:
        raise UsageError(f"tablectl {command}: cannot open the device {url}: "
                         f"{exc.strerror or exc}") from exc
    os.close(fd)


def _quiet_unmapped_antennas() -> None:
    # a table reader before calibration: no antenna has a role yet, and that is no news
    logging.getLogger("tablectl.sources.rfid").setLevel(logging.ERROR)


def _deck_register(args: argparse.Namespace) -> int:
    from tablectl.clock import SystemClock
    from tablectl.domain.deck import Deck
    from tablectl.progress import counted_lines
    from tablectl.setup.dialogue import open_reader
    from tablectl.setup.errors import RunnerError
    from tablectl.setup.register import DeckRegistration, RegistrationMode, load_card_order
    from tablectl.setup.runners import register_deck

    out = Path(args.out)
    _check_out(out, args.force, "deck register")
    known = [Deck.load(Path(p)) for p in args.known]
    order = load_card_order(Path(args.order)) if args.order else None
    mode = RegistrationMode.CONFIRM if args.confirm else RegistrationMode.ORDERED
    registration = (DeckRegistration(mode=mode, order=order, known=known) if order
                    else DeckRegistration(mode=mode, known=known))
    deck_id = args.deck_id or out.stem
    _check_device(args.device, "deck register")
    if args.reader == "table":
        _quiet_unmapped_antennas()

    async def run() -> None:
        clock = SystemClock()
        source = open_reader(args.reader, args.device, clock=clock)
        async with source:
            await register_deck(registration, source.events(), dialogue, clock=clock,
                                idle_timeout=args.timeout)

    with (stops_on("tablectl deck register", {RunnerError: Exit.FAILED},
                   suffix="; nothing written"),
          counted_lines(f"registering deck {deck_id}", total=52,
                        count=lambda: registration.count) as say):
        dialogue = TerminalDialogue(say)
        asyncio.run(run())
    deck = registration.deck(deck_id)
    _check_out(out, args.force, "deck register")
    header = (f"# Deck {deck_id}: registered by tablectl deck register "
              f"({mode.value} mode) on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC.\n")
    _write_checked(out, header + deck.to_text(), Deck.load)
    print(f"wrote {out}: deck {deck_id}, 52 cards", flush=True)
    return Exit.OK


def _deck_verify(args: argparse.Namespace) -> int:
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
    _check_device(args.device, "deck verify")
    if args.reader == "table":
        _quiet_unmapped_antennas()

    async def run() -> VerificationReport:
        clock = SystemClock()
        source = open_reader(args.reader, args.device, clock=clock)
        async with source:
            return await verify_deck(verification, source.events(), dialogue, clock=clock,
                                     idle_timeout=args.timeout, settle=args.settle)

    with (stops_on("tablectl deck verify", {RunnerError: Exit.FAILED}),
          counted_lines(f"checking deck {deck.deck_id}", total=len(deck.cards_by_uid),
                        count=lambda: verification.present) as say):
        dialogue = TerminalDialogue(say)
        report = asyncio.run(run())
    if args.json:
        print_json({
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
    return Exit.OK if report.ok else Exit.FAILED


def _table_calibrate(args: argparse.Namespace) -> int:
    from tablectl.clock import SystemClock
    from tablectl.setup.calibrate import Calibration
    from tablectl.setup.dialogue import open_reader
    from tablectl.setup.errors import RunnerError
    from tablectl.setup.runners import calibrate_table
    from tablectl.sources.base import load_antenna_map

    out = Path(args.out)
    _check_out(out, args.force, "table calibrate")
    with stops_on("tablectl table calibrate", {ValueError: Exit.USAGE}):
        calibration = Calibration(Calibration.positions(
            args.seats, slots=args.slots, board=args.board, muck=not args.no_muck,
            burn=not args.no_burn))
    _check_device(args.device, "table calibrate")
    _quiet_unmapped_antennas()
    dialogue = TerminalDialogue()

    async def run() -> None:
        clock = SystemClock()
        source = open_reader("table", args.device, clock=clock)
        async with source:
            await calibrate_table(calibration, source.events(), dialogue, clock=clock,
                                  idle_timeout=args.timeout)

    with stops_on("tablectl table calibrate", {RunnerError: Exit.FAILED},
                  suffix="; nothing written"):
        asyncio.run(run())
    _check_out(out, args.force, "table calibrate")
    title = (f"Antenna role map written by tablectl table calibrate on "
             f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC.")
    _write_checked(out, calibration.to_toml(title=title), load_antenna_map)
    print(f"wrote {out}: {len(calibration.antenna_map())} antennas"
          + (f", no antenna for {', '.join(map(str, calibration.skipped))}"
             if calibration.skipped else ""), flush=True)
    return Exit.OK


def _add_reader_arguments(p: argparse.ArgumentParser, *, reader: bool = True) -> None:
    p.add_argument("--device", required=True, metavar="URL",
                   help="the reader: a serial path (/dev/serial/by-id/...) or socket://HOST:PORT")
    if reader:
        p.add_argument("--reader", choices=["shoe", "table"], default="shoe",
                       help="what the reader is: a card shoe (default) or table antennas")
    p.add_argument("--timeout", type=number(0, 86400, above=True), default=60.0, metavar="SECONDS",
                   help="give up after this long without a read or an answer (default 60)")


def add_deck(sub: Subparsers) -> None:
    """Register ``tablectl deck register`` and ``tablectl deck verify``."""
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
    ver.add_argument("--settle", type=number(0, 3600), default=1.0, metavar="SECONDS",
                     help="after the last card, wait this long for stray reads (default 1)")
    ver.add_argument("--json", action="store_true", help="print the report as JSON")
    ver.set_defaults(handler=_deck_verify)


def add_table(sub: Subparsers) -> None:
    """Register ``tablectl table calibrate``."""
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
    cal.add_argument("--seats", type=whole(1, MAX_SEATS), default=10, help="seats (default 10)")
    cal.add_argument("--slots", type=whole(1, 4), default=1,
                     help="antennas per seat (default 1; 2 asks for 'seat N slot K')")
    cal.add_argument("--board", type=whole(0, 10), default=5, help="board positions (default 5)")
    cal.add_argument("--no-muck", action="store_true", help="the table has no muck antenna")
    cal.add_argument("--no-burn", action="store_true", help="the table has no burn antenna")
    cal.set_defaults(handler=_table_calibrate)
