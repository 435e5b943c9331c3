"""SqliteJournal specifics: WAL + synchronous=FULL, restarts, SIGKILL durability, write failures."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablectl.clock import ManualClock
from tablectl.journal import (
    InputRecord,
    JournalError,
    JournalWriteError,
    NewEvent,
    SqliteJournal,
)

ROOT = Path(__file__).resolve().parents[2]


def card(i: int, hand_id: int | None = None) -> InputRecord:
    return InputRecord(source="shoe", kind="card_read", payload={"i": i}, hand_id=hand_id)


def test_wal_and_full_sync_are_on(tmp_path: Path) -> None:
    with SqliteJournal.open(tmp_path / "j.db", ManualClock()) as j:
        assert j.pragma("journal_mode") == "wal"
        assert j.pragma("synchronous") == 2          # FULL
        assert j.pragma("foreign_keys") == 1
    # WAL mode is persistent in the file header: a plain connection sees it too
    conn = sqlite3.connect(tmp_path / "j.db")
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_restart_keeps_everything_and_starts_a_new_epoch(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal.open(path, ManualClock()) as j:
        assert j.start_epoch() == 1
        hand = j.start_hand()
        j.append_input(card(1, hand.id))
        j.append_events([NewEvent("t/events", "a", {}, hand.id),
                         NewEvent("t/events", "b", {}, hand.id)])
        j.mark_published(1)
        j.raise_error("reader_link_lost", {"device": "shoe"})
    with SqliteJournal.open(path, ManualClock()) as j:
        assert j.epoch == 1
        assert j.start_epoch() == 2
        current = j.current_hand()
        assert current is not None and current.id == hand.id
        assert [r.payload for r in j.inputs_of_hand(hand.id)] == [{"i": 1}]
        assert [(e.epoch, e.seq, e.type) for e in j.unpublished()] == [(1, 2, "b")]
        assert [e.code for e in j.active_errors()] == ["reader_link_lost"]
        rec = j.append_input(card(2, hand.id))
        assert (rec.seq, rec.epoch) == (2, 2)
        (ev,) = j.append_events([NewEvent("t/events", "c", {}, hand.id)])
        assert (ev.id, ev.epoch, ev.seq) == (3, 2, 1)


def test_the_journal_is_append_only_at_the_sql_level(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal.open(path, ManualClock()) as j:
        j.start_epoch()
        j.append_input(card(1))
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("DELETE FROM inputs")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("UPDATE inputs SET payload='{}'")
    finally:
        conn.close()


def test_a_file_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    SqliteJournal.open(path, ManualClock()).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value=99 WHERE key='schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="schema 99"):
        SqliteJournal.open(path, ManualClock())


def _child(path: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.journal.writer_child", str(path), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_everything_acknowledged_survives_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    proc = _child(path)
    assert proc.stdout is not None
    acked_inputs: dict[int, int] = {}
    acked_events: list[tuple[int, int]] = []
    for line in proc.stdout:
        kind, a, b = line.split()
        if kind == "IN":
            acked_inputs[int(a)] = int(b)
        else:
            acked_events.append((int(a), int(b)))
        if len(acked_inputs) >= 150:
            break
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    with SqliteJournal.open(path, ManualClock()) as j:
        stored = {r.seq: r.payload["i"] for r in j.inputs()}
        for seq, i in acked_inputs.items():
            assert stored[seq] == i
        # what is there is contiguous (nothing half-written in the middle)
        assert sorted(stored) == list(range(1, len(stored) + 1))
        events = {e.id: e.seq for e in j.unpublished()}
        for ev_id, ev_seq in acked_events:
            assert events[ev_id] == ev_seq
        assert sorted(events.values()) == list(range(1, len(events) + 1))
        assert j.current_hand() is not None


def test_a_file_size_limit_gives_write_errors_never_false_success(tmp_path: Path) -> None:
    """RLIMIT_FSIZE makes the OS refuse to grow the files: a full disk without root."""
    path = tmp_path / "j.db"
    SqliteJournal.open(path, ManualClock()).close()
    proc = _child(path, str(512 * 1024))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    lines = out.splitlines()
    assert lines[-1].startswith("FAIL")
    acked = {int(a): int(b) for k, a, b in (ln.split() for ln in lines[:-1]) if k == "IN"}
    assert len(acked) > 10
    with SqliteJournal.open(path, ManualClock()) as j:
        stored = {r.seq: r.payload["i"] for r in j.inputs()}
        assert stored == acked       # every acknowledged input, and nothing unacknowledged
        j.start_epoch()              # usable again once space is back
        assert j.append_input(card(1)).seq == len(acked) + 1


def test_max_page_count_full_database_raises_and_keeps_state(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal.open(path, ManualClock()) as j:
        j.start_epoch()
        pages = int(str(j.pragma("page_count")))
    with SqliteJournal.open(path, ManualClock(), max_page_count=pages + 3) as j:
        acked = []
        with pytest.raises(JournalWriteError) as info:
            for i in range(10_000):
                acked.append(j.append_input(InputRecord(
                    source="shoe", kind="k", payload={"i": i, "pad": "y" * 500})).seq)
        assert "full" in info.value.reason
        assert isinstance(info.value, OSError) and info.value.operation == "append_input"
        assert [r.seq for r in j.inputs()] == acked
        with pytest.raises(JournalWriteError):
            j.append_events([NewEvent("t", "x", {"pad": "z" * 5000})])
        assert j.unpublished() == []


def _make_immutable(path: Path) -> bool:
    if os.geteuid() != 0:
        path.chmod(0o444)
        path.parent.chmod(0o555)
        return True
    chattr = shutil.which("chattr")
    if chattr is None:
        return False
    done = subprocess.run([chattr, "+i", str(path)], check=False, capture_output=True)
    return done.returncode == 0


def _undo_immutable(path: Path) -> None:
    if os.geteuid() != 0:
        path.parent.chmod(0o755)
        path.chmod(0o644)
    else:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_read_only_file_is_never_reported_as_written(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal.open(path, ManualClock()) as j:
        j.start_epoch()
        j.append_input(card(1))
    if not _make_immutable(path):
        pytest.skip("cannot make a read-only file here (root without chattr)")
    try:
        try:
            j2 = SqliteJournal.open(path, ManualClock())
        except JournalWriteError:
            pass                      # refusing at open is fine too
        else:
            with j2, pytest.raises(JournalWriteError):
                j2.append_input(card(2))
    finally:
        _undo_immutable(path)
    with SqliteJournal.open(path, ManualClock()) as j:
        assert [r.payload for r in j.inputs()] == [{"i": 1}]


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs, if this machine lets us mount one (root); skipped otherwise."""
    mnt = tmp_path / f"tmpfs-{uuid.uuid4().hex[:8]}"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)],
            check=False, capture_output=True).returncode != 0:
        pytest.skip("no tmpfs mount available (optional test)")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_really_full_file_system(tiny_tmpfs: Path) -> None:
    path = tiny_tmpfs / "j.db"
    acked = []
    with SqliteJournal.open(path, ManualClock()) as j:
        j.start_epoch()
        with pytest.raises(JournalWriteError):
            for i in range(100_000):
                acked.append(j.append_input(InputRecord(
                    source="shoe", kind="k", payload={"i": i, "pad": "q" * 400})).seq)
        assert acked
    with SqliteJournal.open(path, ManualClock()) as j:
        assert [r.seq for r in j.inputs()] == acked


def test_a_read_only_file_system(tiny_tmpfs: Path) -> None:
    path = tiny_tmpfs / "j.db"
    with SqliteJournal.open(path, ManualClock()) as j:
        j.start_epoch()
        j.append_input(card(1))
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_tmpfs)], check=True)
    try:
        j2 = SqliteJournal.open(path, ManualClock())
    except JournalWriteError:
        return                        # refusing at open is fine
    with j2:
        with pytest.raises(JournalWriteError):
            j2.append_input(card(2))
        assert [r.payload for r in j2.inputs()] == [{"i": 1}]


def test_a_failed_write_rolls_back_its_whole_transaction_even_when_caught(
        tmp_path: Path) -> None:
    """A full disk inside a transaction: SQLite may roll back on its own; nothing of the
    block may be committed afterwards, even if the block went on after catching the error."""
    with SqliteJournal.open(tmp_path / "j.db", ManualClock()) as j:
        j.start_epoch()
        hand = j.start_hand()
        j.append_input(card(1, hand.id))
        before = (j.inputs(), j.unpublished())
        pages = j._conn.execute("PRAGMA page_count").fetchone()[0]
        big = {"pad": "x" * 50_000}
        with pytest.raises(JournalWriteError), j.transaction():
            j._conn.execute(f"PRAGMA max_page_count={pages}")
            j.append_input(card(2, hand.id))
            with pytest.raises(JournalWriteError, match="full"):
                j.append_events([NewEvent("t/events", "big", big, hand.id)])
            # a later write of the same block is refused, not autocommitted
            with pytest.raises(JournalWriteError, match="earlier write"):
                j.append_input(card(3, hand.id))
        j._conn.execute("PRAGMA max_page_count=1073741823")
        assert (j.inputs(), j.unpublished()) == before
        assert j.append_input(card(4, hand.id)).seq == 2


def test_a_version_1_journal_is_upgraded_and_keeps_its_inputs(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with SqliteJournal.open(path, ManualClock()) as j:
        j.start_epoch()
        j.append_input(card(1))
    # what a version 1 journal is: the same, without inputs.decision
    conn = sqlite3.connect(path)
    conn.executescript("DROP TRIGGER inputs_append_only; ALTER TABLE inputs DROP COLUMN decision;"
                       "UPDATE meta SET value=1 WHERE key='schema_version';")
    conn.close()
    with SqliteJournal.open(path, ManualClock()) as j:
        j.start_epoch()
        old = j.input_at(1)
        assert (old.payload, old.decision) == ({"i": 1}, None)
        new = j.append_input(InputRecord(source="shoe", kind="card_read", payload={"i": 2},
                                         decision={"applied": True}))
        assert j.input_at(new.seq).decision == {"applied": True}
        assert [r.decision for r in j.inputs()] == [None, {"applied": True}]
        assert j.pragma("user_version") == 0
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == (3,)
    conn.close()
    with SqliteJournal.open(path, ManualClock()) as j, pytest.raises(JournalError,
                                                                    match="no input 9"):
        j.input_at(9)


def test_a_second_writer_of_the_same_file_is_refused_until_the_first_closes(
        tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    first = SqliteJournal.open(path, ManualClock())
    with pytest.raises(JournalWriteError, match=r"in use by another process .* stop it first"):
        SqliteJournal.open(path, ManualClock())
    first.start_epoch()                     # the refused open changed nothing of the first
    first.close()
    with SqliteJournal.open(path, ManualClock()) as again:
        assert again.start_epoch() == 2


def test_a_mark_survives_a_restart(tmp_path: Path) -> None:
    clock = ManualClock()
    with SqliteJournal.open(tmp_path / "j.db", clock) as j:
        j.set_mark("hand_for_hand_round", 7)
    with SqliteJournal.open(tmp_path / "j.db", clock) as j:
        assert j.mark("hand_for_hand_round") == 7


def test_a_mark_a_hand_changed_in_the_file_is_an_error_not_a_crash(tmp_path: Path) -> None:
    clock = ManualClock()
    with SqliteJournal.open(tmp_path / "j.db", clock) as j:
        j.set_mark("hand_for_hand_round", 7)
    with sqlite3.connect(tmp_path / "j.db") as conn:
        conn.execute("UPDATE meta SET value='seven' WHERE key='mark:hand_for_hand_round'")
    with SqliteJournal.open(tmp_path / "j.db", clock) as j, pytest.raises(
            JournalError, match="not a whole number"):
        j.mark("hand_for_hand_round")
