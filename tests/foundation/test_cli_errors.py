"""The ``tablectl`` command turns errors into exit codes in one place: a command raises a
:class:`CommandError` (or a library error named in its :func:`stops_on` table) and ``main``
prints one line and exits with the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.cli.errors import CommandError, Exit, UsageError, stops_on
from tablectl.domain.errors import JournalError, JournalStateError


def test_the_first_matching_type_of_the_table_gives_the_code() -> None:
    # a JournalStateError is a JournalError and a ValueError: the table's order decides
    with pytest.raises(CommandError) as raised, stops_on(
            "tablectl recall", {JournalError: Exit.FAILED, ValueError: Exit.USAGE}):
        raise JournalStateError("no such hand")
    assert (raised.value.line, raised.value.code) == ("tablectl recall: no such hand", 1)
    with pytest.raises(CommandError) as raised, stops_on(
            "tablectl recall", {JournalError: Exit.FAILED, ValueError: Exit.USAGE}):
        raise ValueError("bad")
    assert (raised.value.line, raised.value.code) == ("tablectl recall: bad", 2)


def test_a_suffix_is_added_and_other_errors_pass_through() -> None:
    with pytest.raises(CommandError) as raised, stops_on(
            "tablectl table calibrate", {OSError: Exit.FAILED}, suffix="; nothing written"):
        raise TimeoutError("no read for 60 s")
    assert raised.value.line == "tablectl table calibrate: no read for 60 s; nothing written"
    with pytest.raises(KeyError), stops_on("x", {OSError: Exit.FAILED}):
        raise KeyError("not in the table")
    with pytest.raises(UsageError) as usage, stops_on("x", {Exception: Exit.FAILED}):
        raise UsageError("x: --hands must be at least 1")
    assert usage.value.code == 2       # a CommandError keeps its own line and code


def test_main_prints_the_line_and_exits_with_its_code(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "antennas.toml"
    out.write_text("")
    code = main(["table", "calibrate", "--device", "socket://127.0.0.1:1", "--out", str(out)])
    assert code == 2
    assert type(code) is int
    assert capsys.readouterr().err == (f"tablectl table calibrate: {out} exists "
                                       "(use --force to overwrite it)\n")
    # a library's ValueError, named in the command's stops_on table (--slots 0 was one until
    # argparse bounded the numbers: tests/foundation/test_cli_numbers.py)
    code = main(["demo", "--engine-only", "--hands", "1", "--variant", "nope"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == ("tablectl demo: unknown variant 'nope' (use a PHH code such as FO/8, or "
                   "game[:structure], e.g. holdem:no-limit)\n")


def test_main_renders_a_config_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "table.toml"
    bad.write_text("[table]\nid = 3\n")
    assert main(["recall", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}: ") and "Traceback" not in err
    assert not err.startswith("tablectl recall: ")


def test_help_texts_are_plain_text() -> None:
    """Every command's --help reads as written: no reST markup from a docstring (doctor's
    description was its module docstring's first line, ``tablectl doctor ...``)."""
    import argparse

    from tablectl.cli import build_parser

    def walk(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
        found = [parser]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child in action.choices.values():
                    found += walk(child)
        return found

    for parser in walk(build_parser()):
        assert "``" not in parser.format_help(), parser.prog


def test_a_closed_pipe_ends_the_command_quietly() -> None:
    # `tablectl phh replay … | head -1`: far more output than a pipe holds, and the reader
    # closes after one line, so the command's next write fails with EPIPE
    import subprocess
    import sys

    phh = sorted((Path(__file__).parents[1] / "data" / "phh").rglob("*.phh"))[0]
    proc = subprocess.Popen([sys.executable, "-m", "tablectl", "phh", "replay",
                             *[str(phh)] * 3000],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == Exit.PIPE_CLOSED
    assert first.startswith(str(phh).encode())
    assert "Traceback" not in err and "BrokenPipe" not in err, err
