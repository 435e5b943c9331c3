"""The table daemon: one module per job.

| module | what |
|---|---|
| ``table.py`` | :class:`TableDaemon`: journal before apply, faults, commands and replies, sources |
| ``recovery.py`` | rebuilding the controller from the journal at start |
| ``hand_rows.py`` | the journal's open hand row and the outbox rows of an outcome |
| ``outbox.py`` | publishing the outbox in order, then the snapshots |
| ``answers.py`` | ``recall`` and ``replay``, answered from the journal |
| ``level.py`` | a tournament table's level: the status decoded, the follower's states (sans-IO) |
| ``busts.py`` | who a tournament hand left at 0 chips (sans-IO) |
| ``tournament.py`` | the link to the tournament: levels as stakes, the status watched, busts |
"""

from tablectl.daemon.answers import MAX_RECALL_HANDS, MAX_REPLAY_EVENTS, recall_json
from tablectl.daemon.table import JOURNAL_UNAVAILABLE, TableDaemon, status_payloads

__all__ = ["JOURNAL_UNAVAILABLE", "MAX_RECALL_HANDS", "MAX_REPLAY_EVENTS", "TableDaemon",
           "recall_json", "status_payloads"]
