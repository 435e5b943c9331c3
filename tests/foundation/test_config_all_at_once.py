"""``tablectl config check`` shows every problem of a file in one run, in the project's words.

A file with four mistakes is four lines in one run (not three runs, one stage each), none in
pydantic's words, with the nearest key for a misspelt one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.cli import main

ROOT = Path(__file__).resolve().parents[2]

FOUR_MISTAKES = """\
deck = "{decks}/demo-red.csv"

[tabel]
id = "t01"

[game]
variant = "holdem"
structure = "no-limit"

[game.stakes]
small_blind = "abc"
big_blind = 200

[[seats]]
number = 1
stack = 20000

[[sources]]
kind = "manual"

[access]
roles = {{ dealer-t01 = "dealer", floor-t01 = "floor" }}

[journal]
path = "{plain}/t01.sqlite"
"""


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["config", "check", str(path)])
    out, err = capsys.readouterr()
    assert "ok" not in out
    return code, [line.removeprefix(f"{path}: ") for line in err.splitlines()]


def test_four_mistakes_are_four_lines_in_one_run(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain"
    plain.write_text("a file where the journal's folder should be\n")
    path = tmp_path / "table.toml"
    path.write_text(FOUR_MISTAKES.format(decks=ROOT / "config" / "decks", plain=plain))
    code, lines = _check(path, capsys)
    assert code == 2
    assert lines == [
        "error: game.stakes.small_blind: must be a whole number, got 'abc'",
        "error: seats: needs at least 2 seats, got 1",
        "error: tabel: unknown key: did you mean `table`?",
        f"error: journal.path: cannot create the folder {plain}: {plain} is a file, not a "
        "folder; set journal.path (or --journal) to a file in a folder",
    ]


def test_every_stage_reports_in_the_same_run(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A value no part of the table can hold, a schema error, a missing deck file and a
    config that cannot work here (no roles): each said once, in one run."""
    path = tmp_path / "table.toml"
    text = FOUR_MISTAKES.format(decks=tmp_path, plain=tmp_path).replace("[tabel]", "[table]")
    text = text.replace('small_blind = "abc"', "small_blind = 100")
    text = text.replace("[access]\nroles", "[odds]\nprecision = nan\n[access]\nrols")
    path.write_text(text)
    code, lines = _check(path, capsys)
    assert code == 2
    assert lines == [
        "error: odds.precision: nan is not a number",
        "error: seats: needs at least 2 seats, got 1",
        "error: access.rols: unknown key: did you mean `roles`?",
        f"error: deck ({tmp_path}/demo-red.csv): cannot read deck file: No such file or "
        "directory",
    ]


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("number = 1", 'number = "one"', "seats[0].number: must be a whole number, got 'one'"),
    ("stack = 20000", "stack = 2.5", "seats[0].stack: must be a whole number, got 2.5"),
    ('kind = "manual"', 'kind = "manuel"',
     "sources[0].kind: must be one of rfid-shoe, rfid-table, keypad, camera, manual, got "
     "'manuel': did you mean `manual`?"),
    ("[game.stakes]", "[game.stake]", "game.stake: unknown key: did you mean `stakes`?"),
    ("stack = 20000", "stak = 20000", "seats[0].stak: unknown key: did you mean `stack`?"),
    ('variant = "holdem"', "variant = 7", "game.variant: must be one of holdem"),
    ("[journal]", "[odds]\nenabled = \"maybe\"\n[journal]",
     "odds.enabled: must be true or false, got 'maybe'"),
])
def test_schema_errors_are_in_the_projects_words(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 old: str, new: str, expected: str) -> None:
    text = FOUR_MISTAKES.format(decks=ROOT / "config" / "decks", plain=tmp_path)
    text = text.replace("[tabel]", "[table]").replace('"abc"', "100")
    text = text.replace("[[sources]]", "[[seats]]\nnumber = 2\nstack = 5\n\n[[sources]]")
    path = tmp_path / "table.toml"
    path.write_text(text)
    assert main(["config", "check", str(path)]) == 0      # the file before the mistake
    capsys.readouterr()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    code, lines = _check(path, capsys)
    assert code == 2
    assert any(line.startswith(f"error: {expected}") for line in lines), lines
    assert not any("Input should" in line or "valid integer" in line for line in lines), lines
