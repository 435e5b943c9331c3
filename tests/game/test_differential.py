"""Differential test: seeded random complete hands through our engine and PokerKit 0.7.7.

Both engines get the same seats (2-8, short stacks that force side pots), cards and random
legal actions; at every decision the seat to act, the call amount and the wager range must
agree, and at the end every stack. PokerKit's known defects (``KNOWN_DIFFERENCES``) are
recognised and counted, never copied: a hand that hits one stops being compared there.

The default run plays about 2 200 hands in total; ``--diff-hands N`` scales every variant's
share (PokerKit is slow for Omaha, so Omaha gets fewer hands).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tablectl.domain.games import BettingStructure, GameKind
from tests.game.pokerkit_oracle import KNOWN_DIFFERENCES, VARIANTS, play_both

BUDGET: dict[tuple[GameKind, BettingStructure], int] = {
    (GameKind.HOLDEM, BettingStructure.FIXED_LIMIT): 300,
    (GameKind.HOLDEM, BettingStructure.POT_LIMIT): 250,
    (GameKind.HOLDEM, BettingStructure.NO_LIMIT): 300,
    (GameKind.HOLDEM_HI_LO, BettingStructure.FIXED_LIMIT): 250,
    (GameKind.OMAHA, BettingStructure.FIXED_LIMIT): 110,
    (GameKind.OMAHA, BettingStructure.POT_LIMIT): 110,
    (GameKind.OMAHA_HI_LO, BettingStructure.FIXED_LIMIT): 110,
    (GameKind.OMAHA_HI_LO, BettingStructure.POT_LIMIT): 110,
    (GameKind.STUD, BettingStructure.FIXED_LIMIT): 220,
    (GameKind.STUD_HI_LO, BettingStructure.FIXED_LIMIT): 220,
    (GameKind.RAZZ, BettingStructure.FIXED_LIMIT): 220,
}
DEFAULT_TOTAL = sum(BUDGET.values())


def test_budget_covers_every_variant_and_two_thousand_hands() -> None:
    assert set(BUDGET) == set(VARIANTS)
    assert DEFAULT_TOTAL >= 2000


@pytest.mark.parametrize(("game", "structure"), VARIANTS,
                         ids=[f"{g.value}-{s.value}" for g, s in VARIANTS])
def test_random_hands_agree_with_pokerkit(game: GameKind, structure: BettingStructure,
                                          diff_hands: int | None, diff_seed: str) -> None:
    share = BUDGET[(game, structure)]
    count = share if diff_hands is None else max(1, diff_hands * share // DEFAULT_TOTAL)
    outcomes: Counter[str] = Counter()
    for k in range(count):
        rng = random.Random(f"{diff_seed}/{game.value}/{structure.value}/{k}")
        result = play_both(rng, game, structure)   # raises MismatchError on any disagreement
        if result.skipped:
            outcomes["skipped: " + result.skipped] += 1
        elif result.known:
            assert result.known in KNOWN_DIFFERENCES
            outcomes[result.known] += 1
        else:
            assert result.ours == result.theirs
            assert sum(result.ours) + result.hand.rake == sum(
                s.stack for s in result.hand.start_args.seats)
            outcomes["matched"] += 1
    assert outcomes["matched"] >= count * 0.9, outcomes
    print(f"{game.value} {structure.value}: {dict(outcomes)}")
