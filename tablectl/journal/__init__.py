"""The append-only journal: inputs, the event outbox, hands, error states and epochs.

``SqliteJournal`` (WAL, ``synchronous=FULL``) is the real one; ``MemoryJournal`` is its
in-memory twin. Both satisfy the ``Journal`` protocol and are generic over payloads (JSON
objects): the journal never interprets what the controller stores.
"""

from tablectl.domain.errors import JournalError, JournalStateError
from tablectl.journal.integrity import JournalRefusedError
from tablectl.journal.memory import MemoryJournal
from tablectl.journal.records import (
    ErrorRecord,
    EventRecord,
    HandRecall,
    HandRecord,
    InputRecord,
    Journal,
    JournalRecord,
    JournalWriteError,
    NewEvent,
    RefusalRecord,
)
from tablectl.journal.sqlite import SqliteJournal

__all__ = [
    "ErrorRecord",
    "EventRecord",
    "HandRecall",
    "HandRecord",
    "InputRecord",
    "Journal",
    "JournalError",
    "JournalRecord",
    "JournalRefusedError",
    "JournalStateError",
    "JournalWriteError",
    "MemoryJournal",
    "NewEvent",
    "RefusalRecord",
    "SqliteJournal",
]
