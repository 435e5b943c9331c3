"""``tablectl floor hands``: what it lists, as text and JSON lines (the table's and players'
names, not ids); bad input exits 2."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from tablectl.cli import main
from tablectl.floor.pg import PgStore
from tests.floor.streams import events_of, snapshot, stream
from tests.floor.test_fold import BAD_BEAT


class Run:
    """One ``tablectl`` command run in this process (a subprocess each cost seconds)."""

    def __init__(self, args: Sequence[str], capsys: pytest.CaptureFixture[str]) -> None:
        try:
            self.returncode = main(list(args))
        except SystemExit as exc:        # argparse's usage errors
            self.returncode = exc.code if isinstance(exc.code, int) else 1
        out = capsys.readouterr()
        self.stdout, self.stderr = out.out, out.err


def test_hands_lists_what_the_floor_recorded(pg_url: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    store = PgStore(pg_url, rules=BAD_BEAT)
    store.ingest(events_of(stream("t01", 1, 2) + stream("t02", "j9-1", 1)),
                 [snapshot("t01", 1, 0, table_name="Main room 1"), snapshot("t02", "j9-1", 0)])
    store.close()
    out = Run(["floor", "hands", "--db", pg_url, "--json"], capsys)
    assert out.returncode == 0, out.stderr
    hands = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(h["table"], h["number"], h["pot"], h["flags"]) for h in hands] == [
        ("t01", 1, 400, ["bad-beat"]), ("t02", 1, 400, ["bad-beat"]),
        ("t01", 2, 400, ["bad-beat"])]
    assert hands[0]["winners"] == [{"seat": 2, "amount": 400, "half": "whole", "pot": 0,
                                    "name": "P2"}]
    # the name of the table's latest snapshot; the id for a table that has none
    assert [h["table_name"] for h in hands] == ["Main room 1", "t02", "Main room 1"]
    one = Run(["floor", "hands", "--db", pg_url, "--table", "t01", "--since",
               hands[2]["started_at"]], capsys)
    assert one.returncode == 0
    lines = one.stdout.splitlines()
    assert len(lines) == 1 and "t01:1:23" in lines[0] and "won: P2 400" in lines[0]
    assert "  Main room 1  #2  " in lines[0] and "seat 2" not in lines[0]
    assert "[bad-beat]" in lines[0]


def test_hands_shows_pots_and_winnings_in_the_tables_money(pg_url: str,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    """A table counting 1,000 units a dollar: its 400-unit pot is 0.40 USD, as the floor page
    and the daemon show it (not 'pot 400'); --json keeps the stored units and the stakes."""
    stakes = {"small_blind": 50, "big_blind": 100, "units_per_currency": 1000,
              "currency": "USD"}
    store = PgStore(pg_url, rules=BAD_BEAT)
    store.ingest(events_of(stream("t07", 1, 1)), [snapshot("t07", 1, 0, stakes=stakes)])
    store.close()
    out = Run(["floor", "hands", "--db", pg_url, "--table", "t07"], capsys)
    assert out.returncode == 0, out.stderr
    (line,) = out.stdout.splitlines()
    assert "pot 0.40 USD" in line and "won: P2 0.40" in line, line
    js = Run(["floor", "hands", "--db", pg_url, "--table", "t07", "--json"], capsys)
    (hand,) = [json.loads(x) for x in js.stdout.splitlines()]
    assert hand["pot"] == 400 and hand["stakes"] == stakes


def test_bad_input_is_refused_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for args, problem in [
            (("floor", "hands", "--db", "mysql://x"), "postgresql://"),
            (("floor", "hands", "--db", "postgresql://postgres@127.0.0.1/x", "--since",
              "yesterday"), "ISO time"),
            (("floor", "run", "--broker", "http://x", "--db", "postgresql://h/x"), "mqtt://"),
            (("floor", "run", "--broker", "mqtt://127.0.0.1:1", "--db",
              "postgresql://postgres@127.0.0.1:5432/postgres", "--rules", "/nonexistent"),
             "cannot read")]:
        out = Run(args, capsys)
        assert out.returncode == 2, (args, out.stderr)
        assert problem in out.stderr and "Traceback" not in out.stderr
    down = Run(["floor", "hands", "--db", "postgresql://postgres@127.0.0.1:1/x"], capsys)
    assert down.returncode == 1 and "database unavailable" in down.stderr


def test_every_floor_option_has_help_and_states_its_default() -> None:
    """``tablectl floor <sub> --help`` explains every option; one with a default names it."""
    import argparse

    from tablectl.floor.command import add_floor

    parser = argparse.ArgumentParser(prog="tablectl")
    add_floor(parser.add_subparsers())
    floor = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    inner_action = next(a for a in floor.choices["floor"]._actions
                        if isinstance(a, argparse._SubParsersAction))
    missing = []
    for name, sub in inner_action.choices.items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            option = f"floor {name} {action.option_strings[0]}"
            if not action.help:
                missing.append(f"{option}: no help")
            elif (action.default not in (None, False) and "default" not in action.help):
                missing.append(f"{option}: default {action.default!r} not stated")
    assert missing == []


def test_quarantine_lists_what_was_set_aside_and_refuses_a_bad_limit(
        pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    from datetime import UTC, datetime

    from tablectl.floor.model import QuarantineRow

    store = PgStore(pg_url)
    store.connect()
    empty = Run(["floor", "quarantine", "--db", pg_url], capsys)
    assert empty.returncode == 0 and empty.stdout == "no quarantined messages\n"
    raw = b'{"seq":\x00\xff' + b"x" * 40000
    row = QuarantineRow.of(topic="poker/v1/tables/t1/events", table="t1",
                           reason="event: $: not UTF-8 text (byte 8)", raw=raw,
                           received_at=datetime.now(UTC))
    store.quarantine([row])
    store.quarantine([row])                      # the same again: one row, counted twice
    store.close()
    out = Run(["floor", "quarantine", "--db", pg_url, "--json"], capsys)
    assert out.returncode == 0, out.stderr
    (held,) = [json.loads(line) for line in out.stdout.splitlines()]
    assert held["count"] == 2 and held["size"] == len(raw) and held["truncated"] is True
    assert held["payload"].startswith('{"seq":\\x00\\xff') and held["table"] == "t1"
    text = Run(["floor", "quarantine", "--db", pg_url, "--table", "t1"], capsys)
    assert " x2, last " in text.stdout and "not UTF-8" in text.stdout
    assert Run(["floor", "quarantine", "--db", pg_url, "--table", "t2"], capsys
               ).stdout == "no quarantined messages\n"
    bad = Run(["floor", "quarantine", "--db", pg_url, "--limit", "0"], capsys)
    assert bad.returncode == 2 and "--limit" in bad.stderr
