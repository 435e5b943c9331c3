"""Vectorised hand evaluation: NumPy lookup tables over many hands at once (for equity).

The showdown uses :mod:`tablectl.game.evaluate` (one hand at a time, with the best five cards
and a description); this module answers only "which hand is better" for whole arrays of hands
and is built from that module's own five-card keys, so the two agree by construction (and the
tests compare them on every hand category).

**Cards** are the dense indices ``Card.index`` (0..51, ``4 * (rank - 2) + suit``).

**Values.** :func:`high_values` returns ``int16`` classes 0..7461, bigger is better (one class
per distinct five-card high hand: equal values tie). :func:`low8_values` returns the 8-bit mask
of the five low ranks (bit 0 the ace .. bit 7 the eight), smaller is better, or
:data:`NO_LOW` (256) when no 8-or-better low qualifies; :func:`razz_values` returns ``int16``
classes, smaller is better.

**How.** Each card adds ``5 ** r`` for deuce..eight (``r`` = 0..6) or ``5 ** (r - 7) << 20``
for nine..ace to a hand's *rank key*: base-5 digit sums count each rank (at most four of a
rank, so no digit carries). The two halves index two small tables of the multisets that a
half can hold (3 302 and 1 652 of them), and the pair indexes one ``int16`` table of 5.5 M
entries (11 MB) of the best hand of every multiset of 5 to 7 ranks. The five-card entries come
from :mod:`tablectl.game.evaluate`; a six- or seven-card multiset's entry is the best of those
with one card fewer, filled in by NumPy in a few passes. Flushes: each card also sets bit
``16 * suit + r`` of a *suit mask*; a 13-bit field with 5 or more bits is looked up in a
flush table of 8 192 entries, and a hand is the better of its rank-only and flush values (the
rank-only value already is the best non-flush hand of the cards). Razz uses the same rank key
with its own table; lows OR 8-bit masks. Tables are built on first use (about 0.2 s for the
high one) and shared by every later call.

>>> import numpy as np
>>> from tablectl.domain.cards import parse_cards
>>> def ids(text): return np.array([[c.index for c in parse_cards(text)]])
>>> int(high_values(ids("Ah Kh Qh Jh Th 2c 3d"))[0]) == HIGH_CLASSES - 1
True
>>> int(high_values(ids("7c 5d 4h 3s 2c"))[0])
0
>>> format(int(low8_values(ids("Ah 2d 4c 6s 8h Kd Kc"))[0]), "08b")
'10101011'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement
from typing import Final

import numpy as np
import numpy.typing as npt

from tablectl.game import evaluate as _ev

__all__ = [
    "HIGH_CLASSES",
    "NO_LOW",
    "BoardParts",
    "CardTables",
    "OmahaParts",
    "board_parts",
    "card_tables",
    "high_from_keys",
    "high_values",
    "holdem_high",
    "holdem_low8",
    "low8_from_masks",
    "low8_values",
    "omaha_high",
    "omaha_high_values",
    "omaha_low8",
    "omaha_low8_values",
    "omaha_parts",
    "razz_from_keys",
    "razz_values",
]

IntArray = npt.NDArray[np.int64]

HIGH_CLASSES: Final = 7462
"""Number of distinct five-card high hands (values 0..7461)."""
NO_LOW: Final = 256
"""The low value of a hand with no qualifying 8-or-better low (worse than every low)."""

_HALF_SHIFT: Final = 20
_HALF_MASK: Final = (1 << _HALF_SHIFT) - 1
_LOW_RANKS: Final = 7  # deuce..eight in the low half of the rank key, nine..ace in the high
_INVALID_LOW: Final = 1 << 8  # an Omaha pair or triple that cannot be part of a low


@dataclass(frozen=True, slots=True)
class CardTables:
    """Per-card contributions, indexed by ``Card.index``.

    Attributes:
        rank_key: the base-5 rank key of each card (summed over a hand).
        suit_mask: bit ``16 * suit + rank`` (OR-ed or summed over a hand: cards differ).
        low_bit: bit ``low value - 1`` for ace..eight, 0 for nine..king.
    """

    rank_key: IntArray
    suit_mask: IntArray
    low_bit: IntArray


@cache
def card_tables() -> CardTables:
    """The per-card contributions (built once)."""
    rank_key = np.zeros(52, np.int64)
    suit_mask = np.zeros(52, np.int64)
    low_bit = np.zeros(52, np.int64)
    for index in range(52):
        r, s = divmod(index, 4)
        rank_key[index] = 5**r if r < _LOW_RANKS else (5 ** (r - _LOW_RANKS)) << _HALF_SHIFT
        suit_mask[index] = 1 << (16 * s + r)
        low_value = 1 if r == 12 else r + 2
        low_bit[index] = (1 << (low_value - 1)) if low_value <= 8 else 0
    for array in (rank_key, suit_mask, low_bit):
        array.setflags(write=False)
    return CardTables(rank_key, suit_mask, low_bit)


# ---------------------------------------------------------------------------------------------
# Multisets of ranks and the tables indexed by them
# ---------------------------------------------------------------------------------------------


def _half_index(ranks: int, weight_of: list[int]) -> tuple[IntArray, int]:
    """For ``ranks`` ranks: a table from base-5 half key to a dense index over every multiset
    of at most 7 cards (at most 4 of a rank), and the number of such multisets."""
    keys = sorted({
        sum(weight_of[r] for r in combo)
        for size in range(8)
        for combo in combinations_with_replacement(range(ranks), size)
        if all(combo.count(r) <= 4 for r in set(combo))
    })
    table = np.full(5**ranks, -1, np.int64)
    table[np.array(keys, np.int64)] = np.arange(len(keys), dtype=np.int64)
    return table, len(keys)


@dataclass(frozen=True, slots=True)
class _RankIndex:
    """Maps a rank key to a slot of the multiset tables."""

    low: IntArray   # low half key -> dense index
    high: IntArray  # high half key -> dense index
    width: int      # number of high-half multisets

    def slots(self, keys: IntArray) -> IntArray:
        slots: IntArray = self.low[keys & _HALF_MASK] * self.width + self.high[keys >> _HALF_SHIFT]
        return slots


@cache
def _rank_index() -> _RankIndex:
    low, _ = _half_index(_LOW_RANKS, [5**r for r in range(_LOW_RANKS)])
    high, width = _half_index(13 - _LOW_RANKS, [5**r for r in range(13 - _LOW_RANKS)])
    return _RankIndex(low, high, width)


def _multisets(size: int) -> IntArray:
    """Every multiset of ``size`` ranks 0..12 with at most four of a rank: rows of ranks."""
    rows = np.array(list(combinations_with_replacement(range(13), size)), np.int64)
    counts = np.zeros((len(rows), 13), np.int64)
    np.add.at(counts, (np.arange(len(rows))[:, None], rows), 1)
    return rows[(counts <= 4).all(axis=1)]


def _rank_keys_of(rows: IntArray) -> IntArray:
    """Rank keys of rows of ranks (0..12), as if one card of each."""
    ct = card_tables()
    keys: IntArray = ct.rank_key[rows * 4].sum(axis=1)
    return keys


def _fill_from_fives(five_values: IntArray, *, better_is_max: bool) -> npt.NDArray[np.int16]:
    """The multiset table: five-card values given, six and seven the best of one fewer."""
    index = _rank_index()
    size = (index.low.max() + 1) * index.width
    fill = -1 if better_is_max else np.iinfo(np.int16).max
    table = np.full(int(size), fill, np.int16)
    fives = _multisets(5)
    table[index.slots(_rank_keys_of(fives))] = five_values
    ct = card_tables()
    for n in (6, 7):
        rows = _multisets(n)
        keys = _rank_keys_of(rows)
        best = np.full(len(rows), fill, np.int16)
        for drop in range(n):  # remove one card (rows hold each rank once per card)
            sub = table[index.slots(keys - ct.rank_key[rows[:, drop] * 4])]
            best = np.maximum(best, sub) if better_is_max else np.minimum(best, sub)
        table[index.slots(keys)] = best
    table.setflags(write=False)
    return table


@dataclass(frozen=True, slots=True)
class _HighTables:
    ranks: npt.NDArray[np.int16]   # rank-multiset slot -> value (no flush)
    flush: npt.NDArray[np.int16]   # 13-bit suit field -> best flush value, -1 below five


@cache
def _high_tables() -> _HighTables:
    fives = _multisets(5)
    rank_keys = [
        _ev._rank_pattern_key(int(sum(1 << (3 * int(r)) for r in row))) for row in fives
    ]
    flush_keys = _ev._FLUSH5_KEYS
    ordinal = {key: i for i, key in enumerate(sorted(set(rank_keys) | set(flush_keys.values())))}
    assert len(ordinal) == HIGH_CLASSES
    ranks = _fill_from_fives(np.array([ordinal[k] for k in rank_keys], np.int16),
                             better_is_max=True)
    flush = np.full(1 << 13, -1, np.int16)
    for bits in range(5, 8):
        for combo in combinations(range(13), bits):
            mask = sum(1 << r for r in combo)
            flush[mask] = max(ordinal[flush_keys[sum(1 << r for r in five)]]
                              for five in combinations(combo, 5))
    flush.setflags(write=False)
    return _HighTables(ranks, flush)


@cache
def _razz_table() -> npt.NDArray[np.int16]:
    fives = _multisets(5)
    # ace-low values: ranks 0..11 are deuce..king (2..13), rank 12 the ace (1)
    keys = [_ev._razz_five_key([1 if r == 12 else int(r) + 2 for r in row]) for row in fives]
    ordinal = {key: i for i, key in enumerate(sorted(set(keys)))}
    return _fill_from_fives(np.array([ordinal[k] for k in keys], np.int16),
                            better_is_max=False)


@cache
def _low_tables() -> tuple[IntArray, IntArray]:
    """(any five of an 8-bit mask -> best low, exactly five of a 9-bit mask -> low)."""
    best = np.full(256, NO_LOW, np.int64)
    for mask in range(256):
        bits = [b for b in range(8) if mask >> b & 1]
        if len(bits) >= 5:
            best[mask] = sum(1 << b for b in bits[:5])
    exact = np.full(512, NO_LOW, np.int64)
    for mask in range(256):
        if bin(mask).count("1") == 5:
            exact[mask] = mask
    best.setflags(write=False)
    exact.setflags(write=False)
    return best, exact


def warm() -> None:
    """Build every table now (the daemon's worker does this before its first request)."""
    _high_tables()
    _razz_table()
    _low_tables()


# ---------------------------------------------------------------------------------------------
# Values from summed keys (the building blocks of equity.py) and from arrays of cards
# ---------------------------------------------------------------------------------------------


def high_from_keys(rank_keys: IntArray, suit_masks: IntArray) -> npt.NDArray[np.int16]:
    """High values of hands given their summed rank keys and suit masks (any shape)."""
    tables = _high_tables()
    value = tables.ranks[_rank_index().slots(rank_keys)]
    flush = tables.flush
    for suit in range(4):
        value = np.maximum(value, flush[(suit_masks >> (16 * suit)) & 0x1FFF])
    return value


def razz_from_keys(rank_keys: IntArray) -> npt.NDArray[np.int16]:
    """Razz values (smaller is better) of hands given their summed rank keys."""
    table = _razz_table()
    return table[_rank_index().slots(rank_keys)]


def low8_from_masks(low_masks: IntArray) -> IntArray:
    """8-or-better low values (any five of the cards) of OR-ed low masks."""
    return _low_tables()[0][low_masks]


def _cards(cards: npt.ArrayLike) -> IntArray:
    array = np.asarray(cards, np.int64)
    if array.ndim != 2 or not 5 <= array.shape[1] <= 7:
        raise ValueError(f"need rows of 5 to 7 card indices, got shape {array.shape}")
    if array.size and (array.min() < 0 or array.max() > 51):
        raise ValueError("card indices must be 0..51")
    return array


def high_values(cards: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """High value of the best five cards of each row (5 to 7 card indices, no repeats)."""
    array = _cards(cards)
    ct = card_tables()
    return high_from_keys(_column_sum(ct.rank_key, array), _column_sum(ct.suit_mask, array))


def razz_values(cards: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """Razz value of each row (5 to 7 card indices); smaller is better."""
    array = _cards(cards)
    return razz_from_keys(_column_sum(card_tables().rank_key, array))


def low8_values(cards: npt.ArrayLike) -> IntArray:
    """8-or-better low value of each row (5 to 7 card indices), :data:`NO_LOW` if none."""
    array = _cards(cards)
    return low8_from_masks(_column_or(card_tables().low_bit, array))


_SUIT_COUNT: Final = np.array([1 << (4 * (i & 3)) for i in range(52)], np.int64)


def _column_sum(table: IntArray, cards: IntArray) -> IntArray:
    """``table[cards].sum(axis=-1)``, one column at a time (several times faster for the
    narrow rows of hands)."""
    total = table[cards[..., 0]]
    for j in range(1, cards.shape[-1]):
        total = total + table[cards[..., j]]
    return total


def _column_or(table: IntArray, cards: IntArray) -> IntArray:
    total = table[cards[..., 0]]
    for j in range(1, cards.shape[-1]):
        total = total | table[cards[..., j]]
    return total


@dataclass(frozen=True, slots=True)
class BoardParts:
    """What a hold'em board contributes to every hand played with it (arrays over boards).

    Attributes:
        rank: summed rank key.
        shift: ``16 * suit`` of the one suit the board holds three or more of (48 if none:
            then ``field`` is 0 and no flush is possible).
        field: the board's 13-bit rank mask in that suit.
        low: OR-ed low bits.
    """

    rank: IntArray
    shift: IntArray
    field: IntArray
    low: IntArray


def board_parts(boards: IntArray) -> BoardParts:
    """:class:`BoardParts` of rows of board cards (at least three, at most five)."""
    ct = card_tables()
    counts = _column_sum(_SUIT_COUNT, boards)   # four 4-bit fields
    flush_suit = np.full(counts.shape, 4, np.int64)
    for s in range(4):
        flush_suit[((counts >> (4 * s)) & 15) >= 3] = s
    shift = 16 * np.minimum(flush_suit, 3)
    mask = _column_sum(ct.suit_mask, boards)
    field = np.where(flush_suit < 4, (mask >> shift) & 0x1FFF, 0)
    return BoardParts(_column_sum(ct.rank_key, boards), shift, field,
                      _column_or(ct.low_bit, boards))


def holdem_high(board: BoardParts, hole: IntArray) -> npt.NDArray[np.int16]:
    """High values of hole cards (``1 x h`` or ``N x h``) with each board of ``board``."""
    ct = card_tables()
    tables = _high_tables()
    value = tables.ranks[_rank_index().slots(board.rank + _column_sum(ct.rank_key, hole))]
    own = (_column_sum(ct.suit_mask, hole) >> board.shift) & 0x1FFF
    best: npt.NDArray[np.int16] = np.maximum(value, tables.flush[board.field | own])
    return best


def holdem_low8(board: BoardParts, hole: IntArray) -> IntArray:
    """8-or-better low values of hole cards with each board (any five of the seven)."""
    return low8_from_masks(board.low | _column_or(card_tables().low_bit, hole))


_PAIRS: Final = np.array(list(combinations(range(4), 2)), np.int64)     # 6 x 2
_TRIPLES: Final = np.array(list(combinations(range(5), 3)), np.int64)   # 10 x 3
_POPCOUNT: Final = np.array([bin(m).count("1") for m in range(256)], np.int64)


@dataclass(frozen=True, slots=True)
class OmahaParts:
    """The 6 hole pairs (``... x 6``) or 10 board triples (``... x 10``) of Omaha hands.

    Attributes:
        rank: summed rank keys.
        suit: the suit when every card is of one suit, else 4 (pairs) or 5 (triples), so
            that a pair and a triple make a flush exactly when their ``suit`` is equal.
        field: the 13-bit rank mask of the cards (meaningful where ``suit`` < 4).
        low: OR-ed low bits, or bit 8 when a rank repeats or a card is above eight.
    """

    rank: IntArray
    suit: IntArray
    field: IntArray
    low: IntArray


def omaha_parts(cards: IntArray, *, board: bool) -> OmahaParts:
    """:class:`OmahaParts` of rows of 4 hole cards or (``board=True``) 5 board cards."""
    ct = card_tables()
    combos, width, mixed = (_TRIPLES, 3, 5) if board else (_PAIRS, 2, 4)
    picked = cards[..., combos]                        # ... x C x width
    suits = picked & 3
    same = (suits == suits[..., :1]).all(axis=-1)
    low = _column_or(ct.low_bit, picked)
    field = np.zeros(picked.shape[:-1], np.int64)
    for j in range(width):
        field |= np.int64(1) << (picked[..., j] >> 2)
    return OmahaParts(
        rank=_column_sum(ct.rank_key, picked),
        suit=np.where(same, suits[..., 0], mixed),
        field=field,
        low=np.where(_POPCOUNT[low] == width, low, _INVALID_LOW),
    )


def omaha_high(pairs: OmahaParts, triples: OmahaParts) -> npt.NDArray[np.int16]:
    """Best high value over every pair x triple (pairs ``N x 6`` or ``1 x 6``, triples
    ``N x 10``): one value per row."""
    tables = _high_tables()
    value = tables.ranks[_rank_index().slots(pairs.rank[:, :, None] + triples.rank[:, None, :])]
    flush = np.where(pairs.suit[:, :, None] == triples.suit[:, None, :],
                     tables.flush[pairs.field[:, :, None] | triples.field[:, None, :]], -1)
    best = np.maximum(value, flush)
    out: npt.NDArray[np.int16] = best.reshape(best.shape[0], -1).max(axis=1)
    return out


def omaha_low8(pairs: OmahaParts, triples: OmahaParts) -> IntArray:
    """Best 8-or-better low over every pair x triple, NO_LOW where none; one per row."""
    low = _low_tables()[1][pairs.low[:, :, None] | triples.low[:, None, :]]
    out: IntArray = low.reshape(low.shape[0], -1).min(axis=1)
    return out


def omaha_high_values(hole: npt.ArrayLike, board: npt.ArrayLike) -> npt.NDArray[np.int16]:
    """Omaha high value of each row: exactly two of 4 hole cards and three of 5 board cards."""
    h, b = _omaha_rows(hole, board)
    return omaha_high(omaha_parts(h, board=False), omaha_parts(b, board=True))


def omaha_low8_values(hole: npt.ArrayLike, board: npt.ArrayLike) -> IntArray:
    """Omaha 8-or-better low value of each row (two hole cards, three board), or NO_LOW."""
    h, b = _omaha_rows(hole, board)
    return omaha_low8(omaha_parts(h, board=False), omaha_parts(b, board=True))


def _omaha_rows(hole: npt.ArrayLike, board: npt.ArrayLike) -> tuple[IntArray, IntArray]:
    h = np.asarray(hole, np.int64)
    b = np.asarray(board, np.int64)
    if h.ndim != 2 or h.shape[1] != 4 or b.ndim != 2 or b.shape[1] != 5 or len(h) != len(b):
        raise ValueError(f"need rows of 4 hole and 5 board cards, got {h.shape} and {b.shape}")
    return h, b
