"""How the simulated dealer decides for the seat to act: a :class:`Strategy`.

:class:`RandomStrategy` picks seeded, weighted legal actions; :class:`ScriptedStrategy` plays a
PHH-like list (``"3 raise 600"``), then hands over to another strategy.

>>> RandomStrategy(seed=1).weights[ActionKind.CALL]
4.0
>>> ScriptedAction.parse("3 raise 600")
ScriptedAction(seat=3, kind=<ActionKind.RAISE: 'raise'>, amount=600)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from hardware_sim.errors import DealerError
from tablectl.domain.games import BettingStructure
from tablectl.game import ActionIn, ActionKind, Hand, LegalActions, RuleViolation

_WAGERS: Final = frozenset({ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE})


class Strategy(Protocol):
    """Chooses the decision of the seat to act."""

    def choose(self, hand: Hand, legal: LegalActions) -> ActionIn:
        """One of ``legal`` for ``legal.seat``.

        Raises:
            DealerError: a scripted decision is not legal now.
        """
        ...


DEFAULT_WEIGHTS: Final[Mapping[ActionKind, float]] = {
    ActionKind.FOLD: 1.0, ActionKind.CHECK: 4.0, ActionKind.CALL: 4.0, ActionKind.BET: 1.0,
    ActionKind.RAISE: 1.0, ActionKind.COMPLETE: 1.0, ActionKind.BRING_IN: 3.0,
}
_KIND_ORDER: Final = tuple(ActionKind)


class RandomStrategy:
    """Seeded random legal decisions.

    Args:
        seed: seeds the generator (one generator per strategy).
        weights: relative weight per action kind (missing kinds: :data:`DEFAULT_WEIGHTS`);
            all-zero weights for the legal kinds fall back to check / call / bring-in.
        all_in: probability that a no-limit or pot-limit wager goes to the maximum; otherwise
            it is the minimum (70 %) or uniform in between.

    Raises:
        ValueError: a negative weight or a probability outside 0..1.
    """

    def __init__(self, seed: int = 0, weights: Mapping[ActionKind, float] | None = None,
                 *, all_in: float = 0.05) -> None:
        merged = dict(DEFAULT_WEIGHTS)
        merged.update(weights or {})
        if any(w < 0 for w in merged.values()):
            raise ValueError("action weights must not be negative")
        if not 0.0 <= all_in <= 1.0:
            raise ValueError("all_in must be a probability")
        self.weights: Mapping[ActionKind, float] = merged
        self.all_in = all_in
        self._rng = random.Random(seed)

    def choose(self, hand: Hand, legal: LegalActions) -> ActionIn:
        """See :class:`Strategy`."""
        kinds = [k for k in _KIND_ORDER if k in legal.kinds]
        weights = [self.weights.get(k, 0.0) for k in kinds]
        if sum(weights) <= 0:
            passive = [k for k in kinds if k in (ActionKind.CHECK, ActionKind.CALL,
                                                  ActionKind.BRING_IN)]
            kind = passive[0] if passive else kinds[0]
        else:
            kind = self._rng.choices(kinds, weights)[0]
        if kind not in _WAGERS:
            return ActionIn(legal.seat, kind)
        low, high = legal.min_to, legal.max_to
        if hand.start_args.structure is BettingStructure.FIXED_LIMIT or high <= low:
            return ActionIn(legal.seat, kind, low)
        r = self._rng.random()
        if r < self.all_in:
            amount = high
        elif r < 0.7:
            amount = low
        else:
            amount = self._rng.randint(low, high)
        return ActionIn(legal.seat, kind, amount)


@dataclass(frozen=True, slots=True)
class ScriptedAction:
    """One scripted decision: ``seat``, ``kind`` and, for wagers, the "to" ``amount``."""

    seat: int
    kind: ActionKind
    amount: int | None = None

    @classmethod
    def parse(cls, text: str) -> ScriptedAction:
        """Parse ``"SEAT KIND [AMOUNT]"`` (``"3 raise 600"``, ``"5 call"``, ``"2 bring-in"``).

        Raises:
            ValueError: not in that form, unknown kind, or a wager without an amount.
        """
        parts = text.split()
        try:
            if len(parts) not in (2, 3):
                raise ValueError("expected 'SEAT KIND [AMOUNT]'")
            seat, kind = int(parts[0]), ActionKind(parts[1].lower())
            amount = int(parts[2]) if len(parts) == 3 else None
        except ValueError as exc:
            raise ValueError(f"bad scripted action {text!r}: {exc}") from None
        if kind in _WAGERS and amount is None:
            raise ValueError(f"bad scripted action {text!r}: {kind.value} needs a 'to' amount")
        return cls(seat, kind, amount)

    def __str__(self) -> str:
        return f"{self.seat} {self.kind.value}" + (f" {self.amount}" if self.amount else "")


class ScriptedStrategy:
    """Decisions from a list, in order, across hands; when the list runs out, ``then``
    decides (default: check, else call, else bring-in).

    Raises (from :meth:`choose`):
        DealerError: the script names another seat than the one to act, or an illegal action.
    """

    def __init__(self, actions: Sequence[ScriptedAction], then: Strategy | None = None) -> None:
        self._actions = list(actions)
        self._next = 0
        self._then = then

    @property
    def remaining(self) -> int:
        """Scripted decisions not used yet."""
        return len(self._actions) - self._next

    def choose(self, hand: Hand, legal: LegalActions) -> ActionIn:
        """See :class:`Strategy`."""
        if self._next >= len(self._actions):
            if self._then is not None:
                return self._then.choose(hand, legal)
            for kind in (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN):
                if kind in legal.kinds:
                    return ActionIn(legal.seat, kind)
            raise DealerError(f"script exhausted and seat {legal.seat} cannot check or call")
        scripted = self._actions[self._next]
        action = ActionIn(scripted.seat, scripted.kind, scripted.amount)
        try:
            hand.verify(action)
        except RuleViolation as exc:
            raise DealerError(f"scripted action #{self._next + 1} ({scripted}) is not legal: "
                              f"{exc.reason}") from exc
        self._next += 1
        return action
