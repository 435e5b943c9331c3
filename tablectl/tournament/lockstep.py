"""Hand for hand across the tables, sans-IO: the service's side.

While hand for hand is on (tablectl/tournament/balance.py decides when), the service
publishes ``hand_for_hand_go``, the round the tables may start, in the tournament's status.
Each table starts one hand of that round and, between hands, reports
``hand_for_hand_ready`` with the round it played (tablectl/daemon/lockstep.py). When every
table with players has reported the round (or a later one), the next round goes. A round
starts at 0 when hand for hand begins: the tables finish the hands they are in and report,
and round 1 starts them together.

The state is the service's memory: a restarted service starts at round 0 again; each table
takes a round published below the one it played as played (tablectl/daemon/lockstep.py) and,
ready and waiting, reports again at the next status it gets, so round 1 follows at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class Lockstep:
    """The round that may start and the tables ready (see the module docstring)."""

    go: int = 0
    ready: dict[int, int] = field(default_factory=dict)

    def reset(self) -> None:
        """Hand for hand is off."""
        self.go = 0
        self.ready.clear()

    def report(self, table: int, played: int, tables: Iterable[int]) -> bool:
        """``table`` is between hands, having played round ``played``; True when that made
        the next round go (every one of ``tables`` ready)."""
        if played < self.go:
            return False                   # late: of a round already over
        self.ready[table] = max(played, self.ready.get(table, played))
        waiting = [t for t in tables if self.ready.get(t, -1) < self.go]
        if waiting:
            return False
        self.go = max(self.ready.values()) + 1
        self.ready.clear()
        return True

    def waiting(self, tables: Iterable[int]) -> list[int]:
        """The tables not ready for the round now."""
        return sorted(t for t in tables if self.ready.get(t, -1) < self.go)


__all__ = ["Lockstep"]
