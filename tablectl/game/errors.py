"""Errors of the rules engine, rooted in :class:`~tablectl.domain.errors.TablectlError`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tablectl.domain.errors import TablectlError

if TYPE_CHECKING:
    from tablectl.game.model import Expectation


class HandSetupError(TablectlError, ValueError):
    """A hand cannot start with these seats, stakes or rules (nothing was created)."""


class RuleViolation(TablectlError, ValueError):  # noqa: N818 (the agreed API name)
    """An input the hand does not accept now; the hand is unchanged.

    Attributes:
        reason: one sentence for a dealer or a log ("seat 3 may not check: 40 to call").
        expected: what the hand expected instead (its ``expected()`` at that moment).
    """

    def __init__(self, reason: str, expected: Expectation) -> None:
        self.reason = reason
        self.expected = expected
        super().__init__(f"{reason} (expected: {expected})")


class DuplicateCard(RuleViolation):
    """A card that was already dealt, burned or shown in this hand."""


class CardOutOfTurn(RuleViolation):
    """A card, or a card target (seat, board, burn), that is not the one expected now."""
