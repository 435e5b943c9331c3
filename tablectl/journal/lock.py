"""One writer per journal file: a second ``tablectl run`` on the same journal is refused.

Two daemons writing one journal would interleave their epochs and replay each other's inputs.
:class:`WriterLock` holds an exclusive ``flock`` on the database file for as long as the
journal is open for writing; the operating system drops it when the process ends, however it
ends (a SIGKILL or a power cut leaves nothing to clean up). Readers (``recall``, ``history
export``) take no lock and read beside a running daemon.

The lock is taken before SQLite opens the file and dropped after SQLite closed it: closing
another descriptor of the file while SQLite has it open would drop SQLite's own POSIX locks.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os

from tablectl.journal.records import JournalWriteError

_LOGGER = logging.getLogger(__name__)


class WriterLock:
    """The exclusive writer's lock of one journal file (see the module docstring)."""

    def __init__(self, fd: int) -> None:
        """Wrap a locked descriptor; use :meth:`acquire`."""
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, path: str) -> WriterLock:
        """Lock ``path`` (creating it empty if it does not exist) for this writer.

        Raises:
            JournalWriteError: the file cannot be opened, or another writer holds it (a file
                system that cannot lock at all is only warned of).
        """
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise JournalWriteError("open", path, exc.strerror or str(exc)) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                os.close(fd)
                raise JournalWriteError(
                    "open", path, "in use by another process (a tablectl run of this table "
                    "already running?): stop it first, or give this one its own journal "
                    "(--journal)") from exc
            # a file system without flock: the journal works, unguarded, as it did before
            _LOGGER.warning("journal %s: cannot lock it (%s): nothing stops a second writer",
                            path, exc.strerror or exc)
        return cls(fd)

    def release(self) -> None:
        """Drop the lock (idempotent)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)
