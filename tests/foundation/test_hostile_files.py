"""Every small file an operator hands the table, read as hostile input.

Decks, antenna maps, card orders, credentials, web users, house rules, tournament structures
and PHH hand histories each went through ``Path.read_text`` and ``tomllib`` or ``csv``
alone. Before :mod:`tablectl.domain.textfile`: a non-UTF-8 deck, antenna map, card order or
house-rules file raised ``UnicodeDecodeError``; a TOML array nested past the parser raised
``RecursionError`` from every TOML loader; a deck with one field past the csv module's limit
raised ``csv.Error``; and ``/dev/zero`` given as any of them was read until memory ran out.
Each now raises the loader's own error, one line naming the file and why.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tablectl.config import read_credentials
from tablectl.domain.deck import Deck
from tablectl.domain.errors import TablectlError
from tablectl.domain.textfile import MAX_TEXT_FILE, TextFileError, read_text_file
from tablectl.floor.rules import HouseRules
from tablectl.history import phh
from tablectl.setup.register import load_card_order
from tablectl.sources.base import load_antenna_map
from tablectl.tournament.structure import Structure
from tablectl.web.auth import Users

LOADERS: dict[str, Callable[[Path], object]] = {
    "deck": Deck.load,
    "antenna map": load_antenna_map,
    "card order": load_card_order,
    "credentials": read_credentials,
    "users": Users.load,
    "house rules": HouseRules.load,
    "structure": Structure.load,
    "phh": phh.load,
}
TOML_LOADERS = ("antenna map", "credentials", "users", "house rules", "structure", "phh")

CONTENTS: dict[str, tuple[bytes, str]] = {
    "not UTF-8": (b"\xff\xfe\x00\x01garbage = 1\n", r"not UTF-8 text \(byte 0\)"),
    "a NUL byte": (b"a = 1\x00\n", "a NUL byte at 5"),
    "larger than a table's file": (b"# " + b"x" * (MAX_TEXT_FILE + 1) + b"\n",
                                   "larger than 1024 KiB"),
}


@pytest.mark.parametrize("content", list(CONTENTS))
@pytest.mark.parametrize("loader", list(LOADERS))
def test_a_file_that_is_not_text_is_refused_by_every_loader(
        tmp_path: Path, loader: str, content: str) -> None:
    data, said = CONTENTS[content]
    if loader == "phh" and content.startswith("larger"):
        data = b"# " + b"x" * (phh.MAX_PHH_FILE + 1) + b"\n"
        said = "larger than 64 MiB"
    path = tmp_path / "input"
    path.write_bytes(data)
    with pytest.raises(TablectlError, match=said) as err:
        LOADERS[loader](path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("loader", TOML_LOADERS)
def test_toml_nested_past_the_parser_is_refused(tmp_path: Path, loader: str) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 20_000 + "]" * 20_000 + "\n")
    with pytest.raises(TablectlError, match="nested too deep"):
        LOADERS[loader](path)


@pytest.mark.parametrize("loader", list(LOADERS))
def test_a_device_that_never_ends_is_read_no_further_than_the_bound(loader: str) -> None:
    """``/dev/zero`` as a deck (a slip in a config): the bound, not the memory, ends it."""
    with pytest.raises(TablectlError, match="larger than"):
        LOADERS[loader](Path("/dev/zero"))


@pytest.mark.parametrize("loader", list(LOADERS))
def test_a_missing_file_says_so(tmp_path: Path, loader: str) -> None:
    with pytest.raises(TablectlError, match=r"cannot read .*No such file or directory"):
        LOADERS[loader](tmp_path / "absent")


def test_a_deck_field_past_the_csv_reader_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deck.csv"
    path.write_text("uid,card\n" + "x" * 300_000 + ",As\n")
    with pytest.raises(TablectlError, match="not a deck CSV: field larger than field limit"):
        Deck.load(path)


def test_the_reader_reads_text_and_names_what_a_caller_reads() -> None:
    err = TextFileError("No such file or directory", unreadable=True)
    assert err.said("deck file") == "cannot read deck file: No such file or directory"
    assert TextFileError("not UTF-8 text (byte 3)").said("deck file") == (
        "deck file: not UTF-8 text (byte 3)")


def test_a_sound_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "ok.txt"
    path.write_text("uid,card\n04A1,As\n")
    assert read_text_file(path) == "uid,card\n04A1,As\n"
    deck = Deck.load(path, require_full=False)
    assert len(deck.uids_by_card) == 1
