"""The vectorised evaluator (tablectl.game.fasteval) against the showdown one (evaluate.py).

Both must order every pair of hands alike, on random hands and on hands forced into every
category: each high category (straight flushes and the wheel included), 8-or-better lows that
qualify and that do not, every razz pairing, and Omaha's exactly-two-plus-three (a board
flush or straight with one hole card of it is not a flush or straight).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import pytest

from tablectl.domain.cards import FULL_DECK, Card, Rank, parse_cards
from tablectl.game import fasteval as fe
from tablectl.game.evaluate import (
    HandCategory,
    best_high,
    best_omaha_high,
    best_razz,
    high_key,
    low8_key,
    omaha_high_key,
    omaha_low8_key,
    razz_key,
)

SEED = 20261201


def _ids(deals: Sequence[Sequence[Card]]) -> np.ndarray:
    return np.array([[c.index for c in d] for d in deals], np.int64)


def _same_order(keys: Sequence[int | None], values: Sequence[int], *,
                none_value: int | None) -> int:
    """Equal keys have equal values and the order of keys is the order of values (both
    bigger-is-better for high hands, both smaller-is-better for lows); returns the number of
    distinct keys."""
    groups: dict[int, int] = {}
    for key, value in zip(keys, values, strict=True):
        if key is None:
            assert value == none_value
            continue
        assert value != none_value
        assert groups.setdefault(key, value) == value, f"key {key:#x}: two values"
    ordered = sorted(groups.items())
    for (_, a), (_, b) in pairwise(ordered):
        assert b > a, (a, b)
    return len(groups)


def _forced_hands(rng: random.Random, count: int) -> list[list[Card]]:
    """Hands of 5 to 7 cards rich in the rare categories (runs of one suit, whole ranks)."""
    deals: list[list[Card]] = []
    by_rank = sorted(FULL_DECK, key=lambda c: (c.rank.high_value, c.suit.order))
    for i in range(count):
        kind = i % 4
        if kind == 0:      # a run of one suit (straight flushes, the steel wheel)
            suit = rng.choice(FULL_DECK).suit
            suited = [c for c in by_rank if c.suit is suit]
            start = rng.randrange(-1, 9)
            cards = [suited[j % 13] for j in range(start, start + 5)]
        elif kind == 1:    # five of one suit anywhere (flushes)
            suit = rng.choice(FULL_DECK).suit
            cards = rng.sample([c for c in FULL_DECK if c.suit is suit], 5)
        elif kind == 2:    # two or three ranks taken whole (quads, full houses, trips)
            ranks = rng.sample(list(Rank), rng.choice((2, 3)))
            cards = rng.sample([c for c in FULL_DECK if c.rank in ranks], 5)
        else:              # a straight of mixed suits, the wheel included
            start = rng.randrange(-1, 9)
            cards = [rng.choice([c for c in FULL_DECK if c.rank is list(Rank)[j % 13]])
                     for j in range(start, start + 5)]
        rest = [c for c in FULL_DECK if c not in cards]
        deals.append(cards + rng.sample(rest, rng.randrange(3)))
    return deals


@pytest.mark.parametrize("size", [5, 6, 7])
def test_high_values_order_like_the_showdown_evaluator(size: int) -> None:
    rng = random.Random(SEED + size)
    deals = [rng.sample(FULL_DECK, size) for _ in range(3000)]
    deals += [d for d in _forced_hands(rng, 2000) if len(d) == size]
    values = fe.high_values(_ids(deals)).tolist()
    distinct = _same_order([high_key(d) for d in deals], values, none_value=None)
    assert distinct > 1000
    categories = {best_high(d).category for d in deals}
    assert categories == set(HandCategory)      # every category was compared


def test_high_values_span_every_class_in_order() -> None:
    assert int(fe.high_values(_ids([parse_cards("7c 5d 4h 3s 2c")]))[0]) == 0
    assert int(fe.high_values(_ids([parse_cards("As Ks Qs Js Ts")]))[0]) == \
        fe.HIGH_CLASSES - 1
    wheel, six = fe.high_values(_ids([parse_cards("5h 4h 3h 2h Ah"),
                                      parse_cards("6h 5h 4h 3h 2h")])).tolist()
    assert six == wheel + 1                       # the steel wheel is the lowest straight flush


@pytest.mark.parametrize("size", [5, 6, 7])
def test_low8_and_razz_values_order_like_the_showdown_evaluator(size: int) -> None:
    rng = random.Random(SEED + 10 + size)
    small = [c for c in FULL_DECK if c.rank.low_value <= 9]   # many lows and many pairs
    deals = [rng.sample(small if i % 2 else FULL_DECK, size) for i in range(3000)]
    deals += [d for d in _forced_hands(rng, 2000) if len(d) == size]
    ids = _ids(deals)
    lows = fe.low8_values(ids).tolist()
    keys = [low8_key(d) for d in deals]
    assert None in keys and any(k is not None for k in keys)
    _same_order(keys, lows, none_value=fe.NO_LOW)
    razz = fe.razz_values(ids).tolist()
    _same_order([razz_key(d) for d in deals], razz, none_value=None)
    pairings = {best_razz(d).key >> 20 for d in deals}
    # the pairings a best razz hand of this many cards commonly has (seven cards of three
    # or more ranks always make two pair or better)
    assert pairings >= {5: {0, 1, 2, 3, 4, 5}, 6: {0, 1, 2, 3}, 7: {0, 1, 2}}[size]


def test_omaha_values_order_like_the_showdown_evaluator() -> None:
    rng = random.Random(SEED + 20)
    small = [c for c in FULL_DECK if c.rank.low_value <= 9]
    deals = [rng.sample(small if i % 3 == 0 else FULL_DECK, 9) for i in range(4000)]
    for i, forced in enumerate(_forced_hands(rng, 2000)):
        five = forced[:5]
        rest = rng.sample([c for c in FULL_DECK if c not in five], 4)
        if i % 2:   # the forced cards on the board
            deals.append(rest + five)
        else:       # two of them in the hand, three on the board
            deals.append(five[:2] + rest[:2] + five[2:] + rest[2:])
    holes = _ids([d[:4] for d in deals])
    boards = _ids([d[4:] for d in deals])
    highs = fe.omaha_high_values(holes, boards).tolist()
    _same_order([omaha_high_key(d[:4], d[4:]) for d in deals], highs, none_value=None)
    lows = fe.omaha_low8_values(holes, boards).tolist()
    keys = [omaha_low8_key(d[:4], d[4:]) for d in deals]
    assert None in keys and any(k is not None for k in keys)
    _same_order(keys, lows, none_value=fe.NO_LOW)


@pytest.mark.parametrize(("hole", "board", "category"), [
    # four spades on the board and one in the hand: no flush (two hole cards must play)
    ("As Kd 7c 2h", "Qs Js Ts 9s 3d", "straight"),
    # a board straight with one hole card of it: the hand is only the pair it can make
    ("9h 2c 2d 3c", "Th Jh Qd Ks 4s", "pair"),
    # a hole flush needs three board cards of the suit
    ("Ah Kh Qh Jh", "Th 9c 8c 2d 3s", "straight"),
])
def test_omaha_uses_exactly_two_hole_cards(hole: str, board: str, category: str) -> None:
    value = int(fe.omaha_high_values(_ids([parse_cards(hole)]), _ids([parse_cards(board)]))[0])
    ours_key = omaha_high_key(parse_cards(hole), parse_cards(board))
    assert HandCategory(list(HandCategory)[ours_key >> 20]).value == category
    # the same class as the five cards the showdown evaluator picks
    five = best_omaha_high(parse_cards(hole), parse_cards(board)).cards
    assert int(fe.high_values(_ids([five]))[0]) == value


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="5 to 7"):
        fe.high_values(np.zeros((2, 4), np.int64))
    with pytest.raises(ValueError, match=r"0\.\.51"):
        fe.high_values(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(ValueError, match="4 hole and 5 board"):
        fe.omaha_high_values(np.zeros((1, 3), np.int64), np.zeros((1, 5), np.int64))
