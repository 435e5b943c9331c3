"""Hand for hand at one table, sans-IO: when it may start a hand, and when it says it is
ready.

While the tournament's status says ``hand_for_hand``, it also carries ``hand_for_hand_go``:
the hand-for-hand round the tables may start (docs/tournament.md, "Hand for hand"). A table
starts at most one hand in each round; between hands, having started the round's hand (or
before the first round), it tells the service it is ready (``hand_for_hand_ready`` with the
round it played), and the service publishes the next round once every table is ready
(tablectl/tournament/lockstep.py).

A table that does not know which round it played last (hand for hand just began) takes the
round published as played: at worst it sits out one hand rather than dealing one while
another table is still in its hand. What it knows is kept in its journal (:meth:`kept`,
:meth:`restore`; tablectl/daemon/table.py): a daemon restarted in hand for hand waits, as it
did before it stopped, until the service publishes a later round, even before it hears the
status (a hand started then would be a second one in the round, the service having counted
the table ready already).
"""

from __future__ import annotations


class TableLockstep:
    """One table's side of hand for hand (see the module docstring)."""

    def __init__(self) -> None:
        self.on = False
        self.go = 0
        self.played: int | None = None
        """the round of the last hand started under hand for hand (None: not known)"""

    def on_status(self, hand_for_hand: bool, go: int | None) -> None:
        """A status taken; ``go`` None (a status from a floor command, which does not keep
        the rounds) leaves the round as it was."""
        if not hand_for_hand:
            self.on, self.go, self.played = False, 0, None
            return
        if go is None:
            return
        self.on, self.go = True, go
        if self.played is None or self.played > go:    # a service that restarted counts anew
            self.played = go

    def restore(self, played: int) -> None:
        """What the journal kept (:meth:`kept`): hand for hand was on and the table had
        played round ``played`` (or was waiting for the round after it)."""
        self.on, self.go, self.played = True, played, played

    def kept(self) -> int | None:
        """What a restarted daemon must know (:meth:`restore`): the round played while hand
        for hand is on, else None."""
        return self.played if self.on else None

    def holds(self) -> str | None:
        """Why a hand may not start now (None: it may)."""
        if not self.on or self.played is None or self.played < self.go:
            return None
        return (f"hand for hand: this table played round {self.played}; the next hand "
                "starts when every table has finished its hand")

    def started(self) -> None:
        """A hand started."""
        if self.on:
            self.played = self.go

    def ready(self, between_hands: bool) -> int | None:
        """The round to report ready for (None: nothing to report: not hand for hand, in a
        hand, or free to start the next one)."""
        if not between_hands or self.holds() is None:
            return None
        return self.played


__all__ = ["TableLockstep"]
