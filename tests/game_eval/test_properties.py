"""Properties: order of the cards does not matter, the five shown are the five that rank,
brute force over every five-card subset agrees, and bad input is refused."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.domain.cards import FULL_DECK, Card
from tablectl.game import evaluate
from tablectl.game.evaluate import (
    best_high,
    best_low8,
    best_omaha_high,
    best_omaha_low8,
    best_razz,
    high_key,
    low8_key,
    omaha_high_key,
    omaha_low8_key,
    razz_key,
)

FAST = settings(max_examples=150, deadline=None)


def _hand(low: int, high: int) -> st.SearchStrategy[list[Card]]:
    return st.integers(low, high).flatmap(
        lambda n: st.lists(st.sampled_from(FULL_DECK), min_size=n, max_size=n, unique=True)
    )


nine_cards = st.lists(st.sampled_from(FULL_DECK), min_size=9, max_size=9, unique=True)


@FAST
@given(cards=_hand(5, 7), data=st.data())
def test_permutation_invariance(cards: list[Card], data: st.DataObject) -> None:
    shuffled = data.draw(st.permutations(cards))
    a, b = best_high(cards), best_high(shuffled)
    assert (a.key, a.category, a.description, set(a.cards)) == (
        b.key,
        b.category,
        b.description,
        set(b.cards),
    )
    assert razz_key(cards) == razz_key(shuffled)
    assert best_razz(cards).description == best_razz(shuffled).description
    assert low8_key(cards) == low8_key(shuffled)


@FAST
@given(cards=nine_cards, data=st.data())
def test_omaha_permutation_invariance(cards: list[Card], data: st.DataObject) -> None:
    hole, board = cards[:4], cards[4:]
    hole2, board2 = data.draw(st.permutations(hole)), data.draw(st.permutations(board))
    assert omaha_high_key(hole, board) == omaha_high_key(hole2, board2)
    assert omaha_low8_key(hole, board) == omaha_low8_key(hole2, board2)
    assert best_omaha_high(hole, board).description == best_omaha_high(hole2, board2).description


@FAST
@given(cards=_hand(5, 7))
def test_best_five_are_brute_force_best(cards: list[Card]) -> None:
    hand = best_high(cards)
    fives = list(combinations(cards, 5))
    assert hand.key == max(high_key(five) for five in fives)
    assert len(set(hand.cards)) == 5 and set(hand.cards) <= set(cards)
    assert high_key(hand.cards) == hand.key
    razz = best_razz(cards)
    assert razz.key == min(razz_key(five) for five in fives)
    assert set(razz.cards) <= set(cards) and razz_key(razz.cards) == razz.key
    low = best_low8(cards)
    lows = [k for k in (low8_key(five) for five in fives) if k is not None]
    if low is None:
        assert not lows
    else:
        assert low.key == min(lows) and low8_key(low.cards) == low.key
        assert set(low.cards) <= set(cards)


@FAST
@given(cards=nine_cards, board_size=st.integers(3, 5))
def test_omaha_is_best_two_plus_three(cards: list[Card], board_size: int) -> None:
    hole, board = cards[:4], cards[4 : 4 + board_size]
    fives = [(*two, *three) for two in combinations(hole, 2) for three in combinations(board, 3)]
    hand = best_omaha_high(hole, board)
    assert hand.key == max(high_key(five) for five in fives)
    assert len(set(hand.cards) & set(hole)) == 2 and len(set(hand.cards) & set(board)) == 3
    assert high_key(hand.cards) == hand.key
    low = best_omaha_low8(hole, board)
    lows = [k for k in (low8_key(five) for five in fives) if k is not None]
    if low is None:
        assert not lows
    else:
        assert low.key == min(lows)
        assert len(set(low.cards) & set(hole)) == 2 and len(set(low.cards) & set(board)) == 3


@FAST
@given(cards=_hand(5, 6), data=st.data())
def test_duplicates_are_refused(cards: list[Card], data: st.DataObject) -> None:
    twice = data.draw(st.sampled_from(cards))
    hand = [*cards, Card(twice.rank, twice.suit)]  # an equal card, not the same object
    for fn in (best_high, best_low8, best_razz, high_key, low8_key, razz_key):
        with pytest.raises(ValueError, match="duplicate card"):
            fn(hand)


@FAST
@given(cards=nine_cards, hole_index=st.integers(0, 3), board_index=st.integers(0, 4))
def test_omaha_duplicates_are_refused(cards: list[Card], hole_index: int, board_index: int) -> None:
    hole, board = cards[:4], cards[4:]
    board[board_index] = hole[hole_index]  # the same card in the hand and on the board
    for fn in (best_omaha_high, best_omaha_low8, omaha_high_key, omaha_low8_key):
        with pytest.raises(ValueError, match="duplicate card"):
            fn(hole, board)
    hole[0] = hole[1]
    with pytest.raises(ValueError, match="duplicate card"):
        best_omaha_high(hole, cards[4:8])


@pytest.mark.parametrize("count", [0, 4, 8])
def test_wrong_counts_are_refused(count: int) -> None:
    cards: Sequence[Card] = FULL_DECK[:count]
    for fn in (best_high, best_low8, best_razz, high_key, low8_key, razz_key):
        with pytest.raises(ValueError, match=f"got {count}"):
            fn(cards)


@pytest.mark.parametrize(("hole", "board"), [(3, 5), (5, 5), (4, 2), (4, 6)])
def test_omaha_wrong_counts_are_refused(hole: int, board: int) -> None:
    for fn in (best_omaha_high, best_omaha_low8, omaha_high_key, omaha_low8_key):
        with pytest.raises(ValueError, match="Omaha"):
            fn(FULL_DECK[:hole], FULL_DECK[20 : 20 + board])


def test_non_cards_are_refused() -> None:
    with pytest.raises(TypeError, match="not a Card"):
        best_high(["As", "Kd", "Qh", "Js", "Tc"])  # type: ignore[list-item]


def test_five_card_table_matches_direct_evaluation() -> None:
    """The import-time table is built by enumerating patterns; the lazy path evaluates counts.

    The two are written independently; they must agree on all 6 175 five-card rank patterns.
    """
    for part, key in evaluate._build_rank_table(evaluate._FLUSH5_KEYS).items():
        assert evaluate._rank_pattern_key(part) == key
