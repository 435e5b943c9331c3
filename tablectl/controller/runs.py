"""Run it twice at the table: the dealer enters how many times the players run the board.

``run_it {count}`` (dealer role, in a hand) hands the engine a ``RunsIn`` (``game/hand.py``):
allowed only once every live hand but one is all-in and no betting remains, before the
run-out's first card, and only as often as the house rule allows (``RuleSet.run_it``,
docs/rules.md "Run it twice"). A count the house does not allow is refused
``illegal_action`` with the house's reason; one at the wrong moment ``wrong_phase``. Cards
read afterwards go to run 1, then run 2, then run 3, in dealing order; the public ``runs``
event, each run's ``board`` events, the snapshot's ``runs`` and the per-run awards follow
from the engine's events (``controller/views.py``).
"""

from __future__ import annotations

from tablectl.controller.args import ArgValues
from tablectl.controller.core import Stage
from tablectl.controller.inputs import Command
from tablectl.controller.reads import ReadHygiene
from tablectl.controller.reply import ErrorCode, Refused
from tablectl.controller.table import TableSetup
from tablectl.domain.jsonvalue import JsonValue
from tablectl.game import RuleViolation, RunsIn

MAX_RUNS = 3
"""The most runs a command may name (the house may allow fewer)."""


def run_count(value: object, setup: TableSetup | None) -> str | None:
    """The argument check of ``run_it``'s ``count``."""
    assert isinstance(value, int)
    return None if 1 <= value <= MAX_RUNS else f"count must be within 1..{MAX_RUNS}"


class RunCounting(ReadHygiene):
    """The ``run_it`` command and whether it would be taken now."""

    def _cmd_run_it(self, cmd: Command, args: ArgValues) -> dict[str, JsonValue]:
        count = args.integer("count")
        hand = self._hand
        assert hand is not None and self._stage is Stage.IN_HAND
        start = hand.start_args
        refusal = start.rules.run_it.refusal(start.game, start.structure, count)
        if refusal is not None:
            raise Refused(ErrorCode.ILLEGAL_ACTION, refusal)
        inp = RunsIn(count)
        try:
            hand.verify(inp)
        except RuleViolation as exc:
            raise Refused(ErrorCode.WRONG_PHASE, exc.reason) from exc
        self._apply(inp)
        self._drain()
        return {"count": count}

    def _can_run_it(self) -> bool:
        """Whether a ``run_it`` of two runs would be taken now (the console's control)."""
        hand = self._hand
        return hand is not None and self._stage is Stage.IN_HAND and hand.can(RunsIn(2))
