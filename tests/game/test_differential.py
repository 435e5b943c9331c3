"""Differential test: seeded random complete hands through our engine and PokerKit 0.7.7.

Both engines get the same edge-rich set-up (``edge_setup``: 2-8 seats, eight-handed stud
often, stacks of 1 chip up to 150 bets, antes that equal or exceed a stack, blinds and
bring-ins all-in for less, a quarter of the hands raked), cards and random legal actions; at
every decision the seat to act, the call amount and the wager range must agree, and at the
end every stack. PokerKit's known defects and rule differences (``KNOWN_DIFFERENCES``, one
list with the reason of each) are recognised and counted, never copied: a hand that hits one
stops being compared there (a no-op check PokerKit asks for is played and the hand goes on).

The whole budget is 5 050 hands (``.ci/test --all``); ``.ci/test`` plays a third of it, and
``--diff-hands N`` (or ``DIFF_HANDS=N``) scales every variant's share (PokerKit is slow for
Omaha, so Omaha gets fewer hands).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tablectl.domain.games import BettingStructure, GameKind
from tests.game.conftest import CI_DIFF_HANDS
from tests.game.pokerkit_oracle import KNOWN_DIFFERENCES, VARIANTS, play_both

BUDGET: dict[tuple[GameKind, BettingStructure], int] = {
    (GameKind.HOLDEM, BettingStructure.FIXED_LIMIT): 600,
    (GameKind.HOLDEM, BettingStructure.POT_LIMIT): 600,
    (GameKind.HOLDEM, BettingStructure.NO_LIMIT): 600,
    (GameKind.HOLDEM_HI_LO, BettingStructure.FIXED_LIMIT): 600,
    (GameKind.OMAHA, BettingStructure.FIXED_LIMIT): 300,
    (GameKind.OMAHA, BettingStructure.POT_LIMIT): 300,
    (GameKind.OMAHA_HI_LO, BettingStructure.FIXED_LIMIT): 200,
    (GameKind.OMAHA_HI_LO, BettingStructure.POT_LIMIT): 200,
    (GameKind.STUD, BettingStructure.FIXED_LIMIT): 550,
    (GameKind.STUD_HI_LO, BettingStructure.FIXED_LIMIT): 550,
    (GameKind.RAZZ, BettingStructure.FIXED_LIMIT): 550,
}
DEFAULT_TOTAL = sum(BUDGET.values())


def test_budget_covers_every_variant_and_five_thousand_hands() -> None:
    assert set(BUDGET) == set(VARIANTS)
    assert DEFAULT_TOTAL >= 5000


@pytest.mark.parametrize(("game", "structure"), VARIANTS,
                         ids=[f"{g.value}-{s.value}" for g, s in VARIANTS])
def test_random_hands_agree_with_pokerkit(game: GameKind, structure: BettingStructure,
                                          diff_hands: int, diff_seed: str) -> None:
    share = BUDGET[(game, structure)]
    count = max(1, diff_hands * share // DEFAULT_TOTAL)
    outcomes: Counter[str] = Counter()
    for k in range(count):
        rng = random.Random(f"{diff_seed}/{game.value}/{structure.value}/{k}")
        # raises MismatchError on any disagreement that is not a known difference
        result = play_both(rng, game, structure, edge=True)
        for note in set(result.notes):
            assert note in KNOWN_DIFFERENCES
            outcomes[note] += 1
        if result.known:
            assert result.known in KNOWN_DIFFERENCES
            outcomes[result.known] += 1
        else:
            assert result.ours == result.theirs
            assert sum(result.ours) + result.hand.rake == sum(
                s.stack for s in result.hand.start_args.seats)
            outcomes["matched"] += 1
    assert outcomes["matched"] >= count * 0.75, outcomes
    print(f"{game.value} {structure.value}: {dict(outcomes)}")


RUN_BUDGET: dict[tuple[GameKind, BettingStructure], int] = {
    # hands in .ci/test; scaled with the differential budget (three times as many in --all)
    (GameKind.HOLDEM, BettingStructure.NO_LIMIT): 50,
    (GameKind.HOLDEM_HI_LO, BettingStructure.FIXED_LIMIT): 40,
    (GameKind.OMAHA_HI_LO, BettingStructure.POT_LIMIT): 15,
}


@pytest.mark.parametrize(("game", "structure"), list(RUN_BUDGET),
                         ids=[f"{g.value}-{s.value}" for g, s in RUN_BUDGET])
def test_hands_run_twice_and_three_times_agree_with_pokerkit(
        game: GameKind, structure: BettingStructure, diff_hands: int,
        diff_seed: str) -> None:
    """Every hand whose run-out both engines offer at once is run 2 or 3 times in both (each
    pot split per run, odd chips to the first run, hi-lo per run: docs/rules.md, "Run it
    twice"); the rest once, and compared as above."""
    count = max(1, diff_hands * RUN_BUDGET[(game, structure)] // CI_DIFF_HANDS)
    outcomes: Counter[str] = Counter()
    for k in range(count):
        rng = random.Random(f"{diff_seed}/runs/{game.value}/{structure.value}/{k}")
        result = play_both(rng, game, structure, edge=True, runs=2 + k % 2)
        for note in set(result.notes):
            assert note in KNOWN_DIFFERENCES
        if result.known:
            assert result.known in KNOWN_DIFFERENCES
            outcomes[result.known] += 1
            continue
        assert result.ours == result.theirs
        outcomes[f"matched, run {result.hand.runs} times"] += 1
    multi = sum(n for label, n in outcomes.items() if "run 1 " not in label
                and label.startswith("matched"))
    assert multi >= count * 0.2, outcomes
    print(f"{game.value} {structure.value}: {dict(outcomes)}")


@pytest.mark.parametrize(("game", "structure"), list(RUN_BUDGET),
                         ids=[f"{g.value}-{s.value}" for g, s in RUN_BUDGET])
def test_double_board_hands_agree_with_pokerkit(
        game: GameKind, structure: BettingStructure, diff_hands: int,
        diff_seed: str) -> None:
    """Double-board hands (PokerKit's two starting boards): every street's cards for both
    boards, every pot split per board, hi-lo per board (docs/rules.md, "Double board")."""
    count = max(1, diff_hands * RUN_BUDGET[(game, structure)] // CI_DIFF_HANDS)
    outcomes: Counter[str] = Counter()
    for k in range(count):
        rng = random.Random(f"{diff_seed}/double/{game.value}/{structure.value}/{k}")
        result = play_both(rng, game, structure, edge=True, boards=2)
        for note in set(result.notes):
            assert note in KNOWN_DIFFERENCES
        if result.known:
            assert result.known in KNOWN_DIFFERENCES
            outcomes[result.known] += 1
            continue
        assert result.ours == result.theirs
        shown = any(type(ev).__name__ == "ShowdownHand" for ev in result.hand.events)
        outcomes["matched at a showdown" if shown else "matched"] += 1
    assert outcomes["matched at a showdown"] >= count * 0.2, outcomes
    print(f"{game.value} {structure.value}: {dict(outcomes)}")
