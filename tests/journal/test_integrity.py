"""A journal is never silently replaced (issue 25, item 6): an empty, truncated, corrupted or
foreign file at the journal's path is refused before anything writes to it; a new journal
(nothing there) and a sound one open as before."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablectl.clock import ManualClock
from tablectl.journal import InputRecord, JournalRefusedError, SqliteJournal
from tablectl.journal.integrity import Refusal, journal_refusal, set_aside

ROOT = Path(__file__).resolve().parents[2]


def _played(path: Path, inputs: int = 400) -> None:
    """A journal with some history, closed cleanly (its WAL checkpointed away)."""
    with SqliteJournal.open(path, ManualClock()) as j:
        j.start_epoch()
        for i in range(inputs):
            j.append_input(InputRecord(source="shoe", kind="card_read",
                                       payload={"read": f"r{i}", "pad": "x" * 200}))
    assert not Path(f"{path}-wal").exists()


def _refusal(path: Path) -> Refusal:
    with pytest.raises(JournalRefusedError) as info:
        SqliteJournal.open(path, ManualClock())
    assert "--new-journal" in str(info.value) and "\n" not in str(info.value)
    assert journal_refusal(str(path)) is not None
    return info.value.refusal


def test_a_new_and_a_sound_journal_open(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    assert journal_refusal(str(path)) is None
    _played(path)
    assert journal_refusal(str(path)) is None
    with SqliteJournal.open(path, ManualClock()) as j:
        assert j.start_epoch() == 2


def test_an_emptied_journal_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _played(path)
    os.truncate(path, 0)
    assert _refusal(path) is Refusal.EMPTY
    assert path.stat().st_size == 0            # nothing was written to it


def test_a_truncated_journal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _played(path)
    os.truncate(path, path.stat().st_size // 2)
    assert _refusal(path) in (Refusal.TRUNCATED, Refusal.CORRUPT)
    os.truncate(path, 100)
    assert _refusal(path) is Refusal.TRUNCATED


def test_a_corrupted_page_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _played(path)
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.seek(size // 2 // 4096 * 4096 + 8)
        f.write(os.urandom(2000))
    assert _refusal(path) is Refusal.CORRUPT


def test_a_file_that_is_not_a_journal_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 100)
    assert _refusal(text) is Refusal.NOT_A_JOURNAL
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t(x)")
    conn.close()
    assert _refusal(other) is Refusal.NOT_A_JOURNAL
    with sqlite3.connect(other) as conn:     # untouched: no journal tables were added
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert names == {"t"}


def test_a_write_ahead_log_without_its_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    Path(f"{path}-wal").write_bytes(b"\x37\x7f\x06\x82" + b"\x00" * 60)
    assert _refusal(path) is Refusal.ORPHAN_WAL
    assert not path.exists()


def test_set_aside_moves_the_file_and_its_sidecars_and_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    for suffix, data in (("", b""), ("-wal", b"w"), ("-shm", b"s")):
        Path(f"{path}{suffix}").write_bytes(data)
    first = set_aside(str(path), "T1")
    assert [p.name for p in first] == ["j.sqlite.T1.refused", "j.sqlite.T1.refused-wal",
                                       "j.sqlite.T1.refused-shm"]
    path.write_bytes(b"")
    second = set_aside(str(path), "T1")
    assert [p.name for p in second] == ["j.sqlite.T1-1.refused"]
    assert not path.exists() and all(p.exists() for p in first + second)


def _config(tmp_path: Path, journal: Path) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(
        f'deck = "{ROOT / "config/decks/demo-red.csv"}"\n[table]\nid = "t"\n[game]\n'
        'variant = "holdem"\nstructure = "no-limit"\n[game.stakes]\nsmall_blind = 1\n'
        'big_blind = 2\n[[seats]]\nnumber = 1\nstack = 100\n[[seats]]\nnumber = 2\n'
        'stack = 100\n[[sources]]\nkind = "manual"\n[mqtt]\nurl = "mqtt://127.0.0.1:9"\n'
        '[access.roles]\ndealer-t = "dealer"\n'
        f'[journal]\npath = "{journal}"\n')
    return path


def _run(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablectl", "run", "--config", str(config),
                           *extra], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          check=False)


def test_tablectl_run_refuses_an_emptied_journal_with_exit_2(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    _played(journal)
    os.truncate(journal, 0)
    config = _config(tmp_path, journal)
    proc = _run(config)
    assert proc.returncode == 2, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("tablectl run: journal ") and "--new-journal" in last, proc.stderr
    assert "Traceback" not in proc.stderr
    assert journal.stat().st_size == 0 and not Path(f"{journal}-wal").exists()


def test_new_journal_sets_a_refused_journal_aside_and_starts_afresh(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    _played(journal)
    os.truncate(journal, 0)
    config = _config(tmp_path, journal)
    proc = subprocess.Popen([sys.executable, "-m", "tablectl", "run", "--config", str(config),
                             "--new-journal"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while journal_refusal(str(journal)) is not None or not journal.exists() \
                or journal.stat().st_size == 0:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    aside = list(tmp_path.glob("j.sqlite.*.refused"))
    assert len(aside) == 1 and aside[0].stat().st_size == 0, err
    assert "moved aside" in err
    # a sound journal is kept: the flag left in a unit file does not start a new table
    again = _run(config, "--new-journal")
    assert again.returncode == 2 and "is sound" in again.stderr
    assert list(tmp_path.glob("j.sqlite.*.refused")) == aside


def test_doctor_and_config_check_report_a_refused_journal(tmp_path: Path) -> None:
    from tablectl.doctor import Status, check_journal_file

    journal = tmp_path / "j.sqlite"
    config = _config(tmp_path, journal)
    assert check_journal_file(journal).status is Status.OK          # none yet
    _played(journal)
    assert check_journal_file(journal).status is Status.OK
    checked = subprocess.run([sys.executable, "-m", "tablectl", "config", "check",
                              str(config)], capture_output=True, text=True, timeout=60,
                             cwd=ROOT, check=False)
    assert checked.returncode == 0, checked.stderr
    os.truncate(journal, 0)
    found = check_journal_file(journal)
    assert found.status is Status.FAIL and "empty" in found.detail
    assert "--new-journal" in found.fix
    checked = subprocess.run([sys.executable, "-m", "tablectl", "config", "check",
                              str(config)], capture_output=True, text=True, timeout=60,
                             cwd=ROOT, check=False)
    assert checked.returncode == 2
    assert "journal.path: tablectl run would refuse it" in checked.stderr
