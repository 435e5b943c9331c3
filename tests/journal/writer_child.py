"""Child process for the journal durability tests (run as ``python -m tests.journal.writer_child``).

``writer_child PATH [FSIZE_LIMIT]``: opens the journal, starts an epoch, then appends inputs (and
one outbox event per input) forever, printing ``IN <seq> <i>`` / ``EV <id> <seq>`` after
each append returned.
With FSIZE_LIMIT the process may not grow any file beyond that many bytes (RLIMIT_FSIZE, a
full disk without root); on JournalWriteError it prints ``FAIL <reason>`` and exits 3.
"""

from __future__ import annotations

import resource
import signal
import sys

from tablectl.clock import SystemClock
from tablectl.journal import InputRecord, JournalWriteError, NewEvent, SqliteJournal


def main() -> int:
    path = sys.argv[1]
    journal = SqliteJournal.open(path, SystemClock())
    journal.start_epoch()
    if len(sys.argv) > 2:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        limit = int(sys.argv[2])
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    hand = journal.start_hand()
    i = 0
    while True:
        i += 1
        try:
            rec = journal.append_input(InputRecord(
                source="shoe", kind="card_read", payload={"i": i, "pad": "x" * 200},
                hand_id=hand.id))
            print("IN", rec.seq, i, flush=True)
            (ev,) = journal.append_events([NewEvent("t/events", "card", {"i": i}, hand.id)])
            print("EV", ev.id, ev.seq, flush=True)
        except JournalWriteError as exc:
            print("FAIL", exc.reason, flush=True)
            return 3


if __name__ == "__main__":
    sys.exit(main())
