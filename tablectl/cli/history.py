"""The journal and hand histories: ``tablectl recall``, ``tablectl history export`` (both read
the journal read-only, also while the daemon runs) and ``tablectl phh replay``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tablectl.cli.errors import CommandError, Exit, UsageError, stops_on
from tablectl.cli.output import Subparsers, count, print_json
from tablectl.domain.errors import ConfigError
from tablectl.domain.numbers import HANDS_MAX, JOURNAL_ID_MAX, whole


def _phh_replay(args: argparse.Namespace) -> int:
    from tablectl.domain.games import RulesPreset
    from tablectl.game import PRESETS
    from tablectl.history.phh import replay_paths
    from tablectl.progress import tracked

    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:       # a usage error, exit 2 like every command's
        raise UsageError(f"tablectl phh replay: no such file or folder: {', '.join(missing)}")
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
            print_json(result.as_json())
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
    failed = counts["failed"] or (counts["skipped"] and not args.allow_skip)
    return Exit.FAILED if failed else Exit.OK


def add_phh(sub: Subparsers) -> None:
    """Register ``tablectl phh replay``."""
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


def _journal_of(config_path: str) -> Path:
    from tablectl.config import load_config

    return load_config(Path(config_path)).journal.path


def _recall(args: argparse.Namespace) -> int:
    from tablectl.history.export import open_readonly
    from tablectl.history.recall import active_errors, recall_hands
    from tablectl.history.recall_text import recall_lines
    from tablectl.journal import JournalError

    path = _journal_of(args.config)
    with (stops_on("tablectl recall", {JournalError: Exit.FAILED, ValueError: Exit.USAGE}),
          open_readonly(path) as journal):
        hands = recall_hands(journal, args.n, hand_id=args.hand, secure=args.secure)
        errors = active_errors(journal)
    if args.json:
        print_json({"journal": str(path),
                    "active_errors": [{"code": e.code, "since": e.raised_at.isoformat(),
                                       "detail": dict(e.detail)} for e in errors],
                    "hands": [h.to_json() for h in hands]})
        return Exit.OK
    if not hands:
        print(f"{path}: no hands journaled")
    for line in recall_lines(hands, errors, _cards_of(args.config)):
        print(line)
    return Exit.OK


def _cards_of(config_path: str) -> dict[str, str]:
    """Tag UID -> card of the config's decks (empty if they cannot be read)."""
    from tablectl.config import load_config

    try:
        decks = load_config(Path(config_path)).load_decks()
    except ConfigError:
        return {}
    return {uid: str(card) for deck in decks.values() for uid, card in deck.cards_by_uid.items()}


def add_recall(sub: Subparsers) -> None:
    """Register ``tablectl recall``."""
    p = sub.add_parser(
        "recall", help="show the last N hands step by step from the journal",
        description="Reads the journal file read-only: works while the daemon runs and while "
                    "an error is active. Each step is an input (time, who, kind) with the "
                    "events it caused. Exit 1 if the journal cannot be read.")
    p.add_argument("--config", required=True, metavar="FILE", help="the table config file")
    p.add_argument("n", nargs="?", type=whole(1, HANDS_MAX), default=10, metavar="N",
                   help="how many of the last hands (default 10)")
    p.add_argument("--hand", type=whole(1, JOURNAL_ID_MAX), metavar="ID",
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

    config = load_config(Path(args.config))
    setup = table_setup(config)
    out = Path(args.out)
    try:
        with stops_on("tablectl history export", {JournalError: Exit.FAILED}):
            with open_readonly(config.journal.path) as journal:
                recalls = finished_hands(journal, args.hands)
            results = list(tracked(export_hands(setup, recalls, out), "hands exported",
                                   total=len(recalls)))
    except OSError as exc:
        raise CommandError(f"tablectl history export: cannot write {out}: {exc}") from exc
    failed = [r for r in results if r.error is not None]
    for result in failed:
        print(f"hand {result.journal_id}: not exported: {result.error}", file=sys.stderr)
    print(f"{count(len(results) - len(failed), 'hand')} written to {out}"
          + (f", {len(failed)} failed" if failed else ""))
    return Exit.FAILED if failed else Exit.OK


def add_history(sub: Subparsers) -> None:
    """Register ``tablectl history export``."""
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
    exp.add_argument("--hands", type=whole(1, HANDS_MAX), default=None, metavar="N",
                     help="only the finished hands among the last N (default: all)")
    exp.set_defaults(handler=_history_export)
