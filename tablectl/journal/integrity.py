"""Is the file at a journal's path a sound journal? Checked before the daemon writes to it.

A journal is never silently replaced (issue 25): SQLite happily opens an empty file, or a
file whose pages a disk fault destroyed, as a database, and the daemon would then start a new
table (stacks back to the config's) or play on a damaged history. So, before a journal is
opened for writing:

* **no file** (and no ``-wal`` beside it): a new journal, created by tablectl;
* **an empty file**: refused. tablectl creates the file and SQLite writes its header in the
  same start (the WAL mode is set on the first open), so a 0-byte file at the path is a
  journal that lost its content (``truncate``, a copy that failed, a full disk at restore);
* **shorter than a page, or not an SQLite file**: refused (truncated, or not a journal);
* **a ``-wal`` file without its database**: refused. The write-ahead log holds the latest
  commits of the database beside it; a new database would replay a stranger's log;
* **an SQLite file**: ``PRAGMA quick_check`` must say ``ok`` (any damaged page, b-tree or
  record is refused), and it must hold tablectl's ``meta`` table (else it is another
  program's database, refused as not a journal). ``tablectl doctor`` and ``config check``
  run the full ``integrity_check``, which also matches every index against its table.

A refusal is :class:`JournalRefusedError`; its message says how to recover (docs/operations.md,
"A journal refused at start") or start afresh on purpose (``tablectl run --new-journal``,
which moves the refused file and its ``-wal``/``-shm`` aside with :func:`set_aside`, never
deleting them). Both checks read the whole file: on the development machine a journal of
100,000 inputs (16.7 MB) takes 0.035 s with ``quick_check`` and 0.09 s with
``integrity_check`` (docs/operations.md).
"""

from __future__ import annotations

import os
import sqlite3
from enum import StrEnum
from pathlib import Path
from typing import Final

from tablectl.domain.errors import JournalError

SQLITE_MAGIC: Final = b"SQLite format 3\x00"
SIDECARS: Final = ("-wal", "-shm")
"""The files SQLite keeps beside a WAL-mode database; they belong to it and move with it."""
_MIN_SIZE: Final = 512
"""The smallest SQLite database file: one page of the smallest page size."""


class Refusal(StrEnum):
    """Why a journal file is refused."""

    EMPTY = "empty"
    TRUNCATED = "truncated"
    CORRUPT = "corrupt"
    NOT_A_JOURNAL = "not_a_journal"
    ORPHAN_WAL = "orphan_wal"


_WHAT: Final = {
    Refusal.EMPTY: "empty: a journal that lost its content (tablectl writes the header as "
                   "it creates one)",
    Refusal.TRUNCATED: "truncated",
    Refusal.CORRUPT: "corrupted",
    Refusal.NOT_A_JOURNAL: "not a tablectl journal",
    Refusal.ORPHAN_WAL: "missing, but its write-ahead log is there",
}


class JournalRefusedError(JournalError):
    """The file at the journal's path is not a sound journal; nothing was written to it.

    Attributes:
        path: the journal's path. refusal: why. detail: what was found.
    """

    def __init__(self, path: str, refusal: Refusal, detail: str) -> None:
        self.path = path
        self.refusal = refusal
        self.detail = detail
        super().__init__(
            f"journal {path} is {_WHAT[refusal]} ({detail}); nothing was written to it. "
            "Restore it from a backup or recover it with sqlite3 .recover "
            "(docs/operations.md, 'A journal refused at start'), or start a new table on "
            "purpose with --new-journal (the file is moved aside, not deleted)")


def inspect_file(path: str) -> bool:
    """What lies at ``path`` before it is opened: True for a file to open and check with
    :func:`check_open`, False for a new journal (nothing there).

    Raises:
        JournalRefusedError: an empty, truncated or non-SQLite file, or a lone ``-wal``.
    """
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        wal = Path(path + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise JournalRefusedError(path, Refusal.ORPHAN_WAL,
                                 f"{wal.name} holds {wal.stat().st_size} bytes") from None
        return False
    except OSError as exc:
        raise JournalRefusedError(path, Refusal.NOT_A_JOURNAL, exc.strerror or str(exc)) from exc
    if size == 0:
        raise JournalRefusedError(path, Refusal.EMPTY, "0 bytes")
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise JournalRefusedError(path, Refusal.NOT_A_JOURNAL, exc.strerror or str(exc)) from exc
    if size < _MIN_SIZE and SQLITE_MAGIC.startswith(head):
        raise JournalRefusedError(path, Refusal.TRUNCATED, f"{size} bytes, less than one page")
    if head != SQLITE_MAGIC:
        raise JournalRefusedError(path, Refusal.NOT_A_JOURNAL, "not an SQLite database")
    return True


def check_open(conn: sqlite3.Connection, path: str, *, full: bool = False) -> None:
    """Check an existing journal just opened on ``conn`` (before anything is written):
    ``PRAGMA quick_check`` (every page, b-tree and record), or with ``full`` the
    ``integrity_check`` that also matches each index against its table (2-3 times slower).

    Raises:
        JournalRefusedError: the check found damage (or SQLite could not read the file),
            or the database has no tablectl ``meta`` table.
    """
    try:
        check = "integrity_check" if full else "quick_check"
        rows = conn.execute(f"PRAGMA {check}(20)").fetchall()
        found = [str(r[0]) for r in rows]
        if found != ["ok"]:
            lines = [" ".join(line.split()) for text in found for line in text.splitlines()
                     if line.strip() and not line.startswith("***")]
            shown = "; ".join(lines[:3]) + (f"; and {len(lines) - 3} more" if len(lines) > 3
                                             else "")
            raise JournalRefusedError(path, Refusal.CORRUPT, f"{check}: {shown[:300]}")
        meta = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
                            ).fetchone()
        version = conn.execute("SELECT value FROM meta WHERE key='schema_version'"
                               ).fetchone() if meta else None
    except sqlite3.DatabaseError as exc:
        size = _size(path)
        kind = Refusal.TRUNCATED if _short(path, size) else Refusal.CORRUPT
        raise JournalRefusedError(path, kind, f"{exc} ({size} bytes)") from exc
    if version is None:
        raise JournalRefusedError(path, Refusal.NOT_A_JOURNAL,
                             "an SQLite database without tablectl's meta table")


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _short(path: str, size: int) -> bool:
    """The header's page size times its page count is more than the file holds."""
    try:
        with open(path, "rb") as f:
            head = f.read(32)
    except OSError:
        return False
    if len(head) < 32:
        return True
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    return size % page != 0 or pages * page > size


def set_aside(path: str, stamp: str) -> list[Path]:
    """Move the journal at ``path`` and its ``-wal``/``-shm`` files to ``{path}.{stamp}
    .refused`` (plus the same suffixes), never overwriting a file; return the new paths.

    The caller holds the journal's writer lock or knows no daemon runs on it.

    Raises:
        OSError: a file could not be moved (what was moved stays moved).
    """
    base = f"{path}.{stamp}.refused"
    n = 0
    while any(Path(base + s).exists() for s in ("", *SIDECARS)):
        n += 1
        base = f"{path}.{stamp}-{n}.refused"
    moved: list[Path] = []
    for suffix in ("", *SIDECARS):
        src = Path(path + suffix)
        if src.exists():
            dst = Path(base + suffix)
            src.rename(dst)             # dst was checked free above; same folder, atomic
            moved.append(dst)
    return moved


def journal_refusal(path: str, *, full: bool = True) -> JournalRefusedError | None:
    """Why the journal at ``path`` would be refused at start, or None (sound, or new).

    Opens the file read-only (never creating or changing it): for ``tablectl doctor``,
    ``config check`` and ``run --new-journal``, which must not write to a journal a daemon
    may have open. ``full``: the ``integrity_check`` (indexes too), as these can take the
    time a daemon's start should not.
    """
    try:
        if not inspect_file(path):
            return None
        uri = Path(path).resolve().as_uri() + "?mode=ro"
        conn = sqlite3.connect(uri, uri=True)
    except JournalRefusedError as refused:
        return refused
    except sqlite3.Error as exc:
        return JournalRefusedError(path, Refusal.NOT_A_JOURNAL, str(exc))
    try:
        check_open(conn, path, full=full)
    except JournalRefusedError as refused:
        return refused
    finally:
        conn.close()
    return None
