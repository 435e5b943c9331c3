"""The evaluator against two independent oracles on seeded random hands.

High hands are checked against phevaluator (C, Cactus-Kev equivalence classes), lows against
PokerKit 0.7.7 (``EightOrBetterLowHand``, ``OmahaEightOrBetterLowHand``, ``RegularLowHand``).
Each check orders *every* pair of sampled hands: the hands are grouped by our key and the
oracle must give one value per group and strictly rank the groups in the same order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from itertools import pairwise
from typing import TypeVar

import phevaluator
import pokerkit
import pytest

from tablectl.domain.cards import FULL_DECK, Card
from tablectl.game.evaluate import (
    HandCategory,
    best_high,
    best_omaha_high,
    high_key,
    low8_key,
    omaha_high_key,
    omaha_low8_key,
    razz_key,
)

SEED = 20261129
T = TypeVar("T")


def _deals(n: int, k: int, seed: int) -> list[list[Card]]:
    rng = random.Random(seed)
    return [rng.sample(FULL_DECK, k) for _ in range(n)]


def _text(cards: Sequence[Card]) -> str:
    return "".join(map(str, cards))


def _assert_same_order(
    ours: Sequence[int | None],
    theirs: Sequence[T],
    *,
    theirs_better: Callable[[T, T], bool],
) -> int:
    """Every pair of hands is ordered alike; returns the number of distinct keys compared.

    ``ours`` are keys where bigger is better (callers negate low keys); None (no hand) must
    coincide with the oracle's own "no hand" value, which callers map to None too.
    """
    groups: dict[int, T] = {}
    for key, value in zip(ours, theirs, strict=True):
        if key is None:
            assert value is None
            continue
        assert value is not None
        first = groups.setdefault(key, value)
        assert first == value, f"key {key:#x}: oracle values {first!r} and {value!r} differ"
    ordered = sorted(groups.items())
    for (k1, worse), (k2, better) in pairwise(ordered):
        assert theirs_better(better, worse), f"{k2:#x} > {k1:#x} but oracle disagrees"
    return len(groups)


# phevaluator: 1 (royal flush) .. 7462 (7-5-4-3-2), lower is better; category bounds are the
# standard equivalence-class counts 10, 156, 156, 1277, 10, 858, 858, 2860, 1277.
_PH_BOUNDS = (
    (10, HandCategory.STRAIGHT_FLUSH),
    (166, HandCategory.FOUR_OF_A_KIND),
    (322, HandCategory.FULL_HOUSE),
    (1599, HandCategory.FLUSH),
    (1609, HandCategory.STRAIGHT),
    (2467, HandCategory.THREE_OF_A_KIND),
    (3325, HandCategory.TWO_PAIR),
    (6185, HandCategory.PAIR),
    (7462, HandCategory.HIGH_CARD),
)


def _ph_category(value: int) -> HandCategory:
    return next(category for bound, category in _PH_BOUNDS if value <= bound)


def _lower_is_better(a: int, b: int) -> bool:
    return a < b


@pytest.mark.parametrize(("size", "count"), [(5, 4000), (6, 4000), (7, 6000)])
def test_high_hands_order_like_phevaluator(size: int, count: int) -> None:
    deals = _deals(count, size, SEED + size)
    ours = [high_key(cards) for cards in deals]
    theirs = [phevaluator.evaluate_cards(*map(str, cards)) for cards in deals]
    distinct = _assert_same_order(ours, theirs, theirs_better=_lower_is_better)
    assert distinct > count // 4  # the sample really spreads over many classes
    for cards, value in zip(deals[:1500], theirs, strict=False):
        assert best_high(cards).category is _ph_category(value)


def test_rare_high_categories_order_like_phevaluator() -> None:
    """Quads, full houses, flushes and straight flushes are rare in random deals: force them."""
    rng = random.Random(SEED)
    deals: list[list[Card]] = []
    for _ in range(3000):
        suit = rng.choice(FULL_DECK).suit
        suit_cards = [c for c in FULL_DECK if c.suit is suit]
        if rng.random() < 0.5:  # five to seven cards of one suit, some of them runs
            start = rng.randrange(9)
            run = sorted(suit_cards, key=lambda c: c.rank.high_value)[start : start + 5]
            cards = run if rng.random() < 0.5 else rng.sample(suit_cards, 5)
        else:  # two or three ranks taken whole
            ranks = rng.sample([c.rank for c in FULL_DECK[::4]], 2)
            cards = [c for c in FULL_DECK if c.rank in ranks]
            cards = rng.sample(cards, 5)
        rest = [c for c in FULL_DECK if c not in cards]
        deals.append(cards + rng.sample(rest, rng.randrange(3)))
    ours = [high_key(cards) for cards in deals]
    theirs = [phevaluator.evaluate_cards(*map(str, cards)) for cards in deals]
    _assert_same_order(ours, theirs, theirs_better=_lower_is_better)
    categories = {best_high(cards).category for cards in deals}
    assert {
        HandCategory.STRAIGHT_FLUSH,
        HandCategory.FOUR_OF_A_KIND,
        HandCategory.FULL_HOUSE,
        HandCategory.FLUSH,
    } <= categories


def test_omaha_high_orders_like_phevaluator() -> None:
    deals = _deals(4000, 9, SEED + 9)
    ours = [omaha_high_key(cards[:4], cards[4:]) for cards in deals]
    theirs = [phevaluator.evaluate_omaha_cards(*map(str, cards[4:] + cards[:4])) for cards in deals]
    _assert_same_order(ours, theirs, theirs_better=_lower_is_better)
    for cards, value in zip(deals[:1000], theirs, strict=False):
        assert best_omaha_high(cards[:4], cards[4:]).category is _ph_category(value)


def test_omaha_high_flush_heavy_orders_like_phevaluator() -> None:
    """Two suits only: flushes need two suited hole cards and three suited board cards."""
    rng = random.Random(SEED + 1)
    two_suits = [c for c in FULL_DECK if c.suit.order >= 2]
    deals = [rng.sample(two_suits, 9) for _ in range(2500)]
    ours = [omaha_high_key(cards[:4], cards[4:]) for cards in deals]
    theirs = [phevaluator.evaluate_omaha_cards(*map(str, cards[4:] + cards[:4])) for cards in deals]
    _assert_same_order(ours, theirs, theirs_better=_lower_is_better)
    flushes = sum(_ph_category(v) is HandCategory.FLUSH for v in theirs)
    assert flushes > 200


def _pokerkit_or_none(make: Callable[..., T], *args: str) -> T | None:
    try:
        return make(*args)
    except ValueError:  # PokerKit's "no valid hand" (no qualifying low)
        return None


def _pk_omaha_low(cards: Sequence[Card]) -> object:
    return _pokerkit_or_none(
        pokerkit.OmahaEightOrBetterLowHand.from_game, _text(cards[:4]), _text(cards[4:])
    )


def _stronger(a: Hashable, b: Hashable) -> bool:
    return bool(a > b)  # type: ignore[operator]


def _negated(keys: Sequence[int | None]) -> list[int | None]:
    return [None if k is None else -k for k in keys]


@pytest.mark.parametrize(("size", "min_lows"), [(5, 15), (6, 80), (7, 200)])
def test_low8_orders_like_pokerkit(size: int, min_lows: int) -> None:
    deals = _deals(1500, size, SEED + 100 + size)
    ours = [low8_key(cards) for cards in deals]
    theirs = [
        _pokerkit_or_none(pokerkit.EightOrBetterLowHand.from_game, _text(cards)) for cards in deals
    ]
    _assert_same_order(_negated(ours), theirs, theirs_better=_stronger)
    assert sum(k is not None for k in ours) > min_lows  # the sample holds qualifying lows


def test_omaha_low8_orders_like_pokerkit() -> None:
    deals = _deals(1500, 9, SEED + 200)
    ours = [omaha_low8_key(cards[:4], cards[4:]) for cards in deals]
    theirs = [_pk_omaha_low(cards) for cards in deals]
    _assert_same_order(_negated(ours), theirs, theirs_better=_stronger)
    assert sum(k is not None for k in ours) > 100


def test_omaha_low8_low_heavy_orders_like_pokerkit() -> None:
    """Only ace-to-nine cards, so most hands have a low and counterfeits are common."""
    rng = random.Random(SEED + 300)
    small = [c for c in FULL_DECK if c.rank.low_value <= 9]
    deals = [rng.sample(small, 9) for _ in range(1500)]
    ours = [omaha_low8_key(cards[:4], cards[4:]) for cards in deals]
    theirs = [_pk_omaha_low(cards) for cards in deals]
    _assert_same_order(_negated(ours), theirs, theirs_better=_stronger)
    assert sum(k is not None for k in ours) > 600
    assert sum(k is None for k in ours) > 50


@pytest.mark.parametrize("small_ranks", [13, 5])
def test_razz_orders_like_pokerkit(small_ranks: int) -> None:
    """Whole deck, and a deck of five ranks only (every hand paired, trips and more)."""
    rng = random.Random(SEED + 400 + small_ranks)
    deck = [c for c in FULL_DECK if c.rank.low_value <= small_ranks]
    deals = [rng.sample(deck, rng.choice((5, 6, 7))) for _ in range(1500)]
    ours = [razz_key(cards) for cards in deals]
    theirs = [pokerkit.RegularLowHand.from_game(_text(cards)) for cards in deals]
    distinct = _assert_same_order(_negated(ours), theirs, theirs_better=_stronger)
    assert distinct > 50
    pairings = {key >> 20 for key in ours}
    assert pairings == ({0, 1, 2, 3} if small_ranks == 13 else {0, 1, 2, 3, 4, 5})
