"""Every journal has a random id from its creation on: kept across restarts, different for a
fresh journal, and given on open to a journal made before ids existed (its epochs kept)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from tablectl.clock import ManualClock
from tablectl.history.export import open_readonly
from tablectl.journal import JournalError, MemoryJournal, SqliteJournal

HEX16 = re.compile(r"^[0-9a-f]{16}$")


def test_the_id_survives_restarts_and_a_fresh_journal_has_another(tmp_path: Path) -> None:
    with SqliteJournal.open(tmp_path / "a.db", ManualClock()) as a:
        first = a.journal_id
        assert a.start_epoch() == 1
    with SqliteJournal.open(tmp_path / "a.db", ManualClock()) as a:
        assert a.journal_id == first and a.start_epoch() == 2
    with SqliteJournal.open(tmp_path / "b.db", ManualClock()) as b:
        assert b.start_epoch() == 1
        assert b.journal_id != first
    assert HEX16.match(first)
    with open_readonly(tmp_path / "a.db") as ro:
        assert ro.journal_id == first


def test_a_journal_without_an_id_gets_one_on_open_and_keeps_its_epochs(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with SqliteJournal.open(path, ManualClock()) as j:
        j.start_epoch()
        j.start_epoch()
    conn = sqlite3.connect(path)             # what a journal of the previous version holds
    conn.execute("DELETE FROM meta WHERE key='journal_id'")
    conn.commit()
    conn.close()
    with open_readonly(path) as ro, pytest.raises(JournalError, match="no id yet"):
        _ = ro.journal_id                    # read-only: nothing is written, it says why
    with SqliteJournal.open(path, ManualClock()) as j:
        given = j.journal_id
        assert HEX16.match(given) and j.epoch == 2 and j.start_epoch() == 3
    with SqliteJournal.open(path, ManualClock()) as j:
        assert j.journal_id == given


def test_memory_journals_have_distinct_ids_unless_given() -> None:
    assert MemoryJournal(ManualClock()).journal_id != MemoryJournal(ManualClock()).journal_id
    assert MemoryJournal(ManualClock(), journal_id="x1").journal_id == "x1"
