"""Hand evaluation: high hands, ace-to-five lows (8-or-better and razz), stud up cards.

Pure functions of the cards, sans-IO and stdlib only. Two layers:

* ``best_high``, ``best_omaha_high``, ``best_low8``, ``best_omaha_low8`` and ``best_razz``
  return :class:`HighHand` / :class:`LowHand` values with the best five cards and an English
  description, for showdowns and displays;
* ``high_key``, ``omaha_high_key``, ``low8_key``, ``omaha_low8_key`` and ``razz_key`` return
  just the integer key (the same ``key`` the hand objects carry), several times faster, for
  code that only needs to rank hands (equity, "who is winning" on every card).

**Keys.** High keys: *bigger is better*, equal keys tie. A key is ``category << 20`` followed
by five 4-bit rank values (2..14, ace 14; a straight stores its top card, 5 for the wheel) in
describing order, so ``Full house, kings full of fours`` is ``(6, 13, 4, 0, 0, 0)`` packed.
Low keys: *smaller is better*. A razz key is ``pairing << 20`` (0 no pair, 1 pair, 2 two pair,
3 three of a kind, 4 full house, 5 four of a kind; straights and flushes do not count) followed
by the ace-low rank values (1..13) of the groups, largest group first, then the kickers from the
highest down -- i.e. a lowball hand is compared like an inverted high hand with aces low. An
unpaired razz hand and an 8-or-better low of the same five ranks have the same key.

**Descriptions.** High: ``"Royal flush"``, ``"Straight flush, nine high"``, ``"Four of a kind,
queens"``, ``"Full house, kings full of fours"``, ``"Flush, ace high"``, ``"Straight, five
high"`` (the wheel), ``"Three of a kind, sevens"``, ``"Two pair, aces and eights"``, ``"Pair of
jacks"``, ``"High card, ace"``. Lows (8-or-better and unpaired razz): the five ranks from the
highest down, ace as ``A``, ten as ``T``, then ``low``: ``"8-6-4-2-A low"``. A paired razz hand
names its pairing as a high hand would, then lists the five ranks from the highest down:
``"Pair of sixes, 7-6-6-3-2"``, ``"Two pair, sixes and threes, 6-6-3-3-A"``, ``"Three of a kind,
kings, K-K-K-7-2"``. ``cards`` holds the five cards in the same describing order (a high hand's
groups first; a low hand from its highest rank down); when several physical cards could play
(a pair out of trips, a straight card held twice) the higher suit is shown.

**Speed.** Each card maps to one integer (rank count in 3-bit fields, suit count in 4-bit
fields); a hand's integer is the sum of its cards'. A flush shows as a suit field reaching 5;
otherwise the rank part is looked up in a table of rank multisets: the 6 175 five-card entries
are built at import (about 15 ms), six- and seven-card entries are filled in on first use (a
memo of at most 73 775 entries, about 7 MB; results never depend on it). Omaha adds the 6
hole-pair sums to the 10 board-triple sums (60 lookups, repeated rank patterns removed first)
and looks for flushes only when the board has three cards of a suit. Lows use 8-bit masks of
ace-to-eight ranks; an Omaha low tries each hole pair with the three lowest unused board low
ranks. ``bench/evaluate.py`` measures all this against phevaluator and PokerKit.

>>> from tablectl.domain.cards import parse_cards
>>> best_high(parse_cards("Kh Kd 4c 4s Kc 9h 2d")).description
'Full house, kings full of fours'
>>> best_omaha_high(parse_cards("As 2c 3d 4h"), parse_cards("Ks Qs Js 9s 5c")).description
'High card, ace'
>>> best_low8(parse_cards("Ah 2d 4c 6s 8h Kd Kc")).description
'8-6-4-2-A low'
>>> best_low8(parse_cards("Ah 2d 4c 9s Th Kd Kc")) is None
True
>>> best_razz(parse_cards("6h 6d 7c 3s 2h 3d 2c")).description
'Pair of twos, 7-6-3-2-2'
>>> best_razz(parse_cards("3s 3d 2h 2c Ah Ad 3c")).description
'Two pair, twos and aces, 3-2-2-A-A'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import combinations
from operator import attrgetter
from typing import Final, NoReturn

from tablectl.domain.cards import Card, Rank, Suit

__all__ = [
    "HandCategory",
    "HighHand",
    "LowHand",
    "best_high",
    "best_low8",
    "best_omaha_high",
    "best_omaha_low8",
    "best_razz",
    "high_key",
    "low8_key",
    "omaha_high_key",
    "omaha_low8_key",
    "razz_key",
    "stud_up_card_key",
]


class HandCategory(StrEnum):
    """Category of a high hand, weakest first; a royal flush is a ``STRAIGHT_FLUSH``."""

    HIGH_CARD = "high_card"
    PAIR = "pair"
    TWO_PAIR = "two_pair"
    THREE_OF_A_KIND = "three_of_a_kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"
    STRAIGHT_FLUSH = "straight_flush"

    @property
    def strength(self) -> int:
        """0 for ``HIGH_CARD`` up to 8 for ``STRAIGHT_FLUSH`` (the key's top bits)."""
        return _CATEGORIES.index(self)


_CATEGORIES: Final = tuple(HandCategory)
_HIGH, _PAIR, _TWO_PAIR, _TRIPS, _STRAIGHT, _FLUSH, _FULL, _QUADS, _SFLUSH = range(9)


@dataclass(frozen=True, slots=True, order=True)
class HighHand:
    """A high hand: compare with ``<``/``>`` (bigger is better); equal keys tie.

    Attributes:
        key: the ranking integer (see the module docstring); decides every comparison.
        category: the hand's category (agrees with ``key``).
        cards: the best five cards in describing order (not compared).
        description: English description, e.g. ``"Two pair, aces and eights"`` (not compared).
    """

    key: int
    category: HandCategory
    cards: tuple[Card, ...] = field(compare=False)
    description: str = field(compare=False)


@dataclass(frozen=True, slots=True, order=True)
class LowHand:
    """An ace-to-five low hand: the SMALLER key is the better hand; equal keys tie.

    Attributes:
        key: the ranking integer (see the module docstring); decides every comparison.
        cards: the five cards from the highest rank down (not compared).
        description: ``"8-6-4-2-A low"`` or, razz with a pair, ``"Pair of sixes,
            7-6-6-3-2"`` (not compared).
    """

    key: int
    cards: tuple[Card, ...] = field(compare=False)
    description: str = field(compare=False)


# --------------------------------------------------------------------------------------------
# Card encoding
# --------------------------------------------------------------------------------------------
# r = 0..12 for deuce..ace, s = Suit.order. A card's code is 1 << 3r (rank count, 3 bits per
# rank: at most 4 of a rank) plus 1 << (40 + 4s) (suit count, 4 bits per suit). Adding
# _SUIT_OFFSET (3 in every suit field) to a hand's sum makes bit 3 of a suit field set exactly
# when that suit holds 5 or more cards (3 + 7 < 16: no carry out of the field).
_SUIT_SHIFT: Final = 40
_RANK_PART: Final = (1 << 39) - 1
_SUIT_OFFSET: Final = 0x3333 << _SUIT_SHIFT
_FLUSH_TEST: Final = 0x8888 << _SUIT_SHIFT
_BOARD3_OFFSET: Final = 0x5555 << _SUIT_SHIFT  # bit 3 set when a suit has 3+ of the cards
_RANKS: Final = tuple(Rank)  # index r
_SUITS: Final = tuple(Suit)  # index s

_CODE: Final[dict[Rank, dict[Suit, int]]] = {
    rank: {suit: (1 << (3 * r)) + (1 << (_SUIT_SHIFT + 4 * s)) for s, suit in enumerate(_SUITS)}
    for r, rank in enumerate(_RANKS)
}
_HIGH_VALUE: Final[dict[Rank, int]] = {rank: r + 2 for r, rank in enumerate(_RANKS)}
_LOW_VALUE: Final[dict[Rank, int]] = {rank: rank.low_value for rank in _RANKS}
# Ace-to-eight bit (bit v-1 for low value v <= 8), 0 for nines and up.
_LOW8_BIT: Final[dict[Rank, int]] = {
    rank: (1 << (v - 1)) if v <= 8 else 0 for rank, v in _LOW_VALUE.items()
}
_SUIT_ORDER: Final[dict[Suit, int]] = {suit: s for s, suit in enumerate(_SUITS)}
_RANK_CHAR: Final = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")


def _codes(cards: Sequence[Card], what: str, low: int = 5, high: int = 7) -> list[int]:
    """The cards' codes, after checking the count and that no card repeats."""
    try:
        codes = [_CODE[c.rank][c.suit] for c in cards]
    except (AttributeError, KeyError, TypeError):
        _raise_not_cards(what, cards)
    n = len(codes)
    if n < low or n > high or len(set(codes)) != n:
        _raise_bad_count_or_duplicate(what, cards, low, high)
    return codes


def _raise_not_cards(what: str, cards: Sequence[Card]) -> NoReturn:
    bad = next((c for c in cards if not isinstance(c, Card)), cards)
    raise TypeError(f"{what}: not a Card: {bad!r}") from None


def _check_count(what: str, cards: Sequence[Card], low: int, high: int) -> None:
    n = len(cards)
    if n < low or n > high:
        span = f"{low}" if low == high else f"{low} to {high}"
        raise ValueError(f"{what} needs {span} cards, got {n}")


def _raise_bad_count_or_duplicate(
    what: str, cards: Sequence[Card], low: int, high: int
) -> NoReturn:
    _check_count(what, cards, low, high)
    _raise_duplicate(what, cards)


def _raise_duplicate(what: str, cards: Sequence[Card]) -> NoReturn:
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise ValueError(f"{what}: duplicate card {card}")
        seen.add(card)
    raise AssertionError("no duplicate found")  # pragma: no cover


def _pack(category: int, ranks: Sequence[int]) -> int:
    key = category
    for value in ranks:
        key = (key << 4) | value
    return key << (4 * (5 - len(ranks)))


def _unpack(key: int) -> tuple[int, list[int]]:
    """Category and the non-zero rank values of a key."""
    ranks = [(key >> shift) & 15 for shift in (16, 12, 8, 4, 0)]
    return key >> 20, [v for v in ranks if v]


def _straight_top(mask: int) -> int:
    """Top card value (14..5) of the best straight in a 13-bit deuce..ace mask, or 0."""
    extended = (mask << 1) | ((mask >> 12) & 1)  # bit v-1 = value v, ace also as 1
    for top in range(14, 4, -1):
        if (extended >> (top - 5)) & 31 == 31:
            return top
    return 0


def _top_values(mask: int, count: int) -> list[int]:
    """The ``count`` highest rank values (2..14) in a 13-bit mask, highest first."""
    out: list[int] = []
    for r in range(12, -1, -1):
        if mask >> r & 1:
            out.append(r + 2)
            if len(out) == count:
                break
    return out


# --------------------------------------------------------------------------------------------
# High hands
# --------------------------------------------------------------------------------------------


def _rank_pattern_key(rank_part: int) -> int:
    """High key of a rank multiset (no flush possible): the best five of its 5..7 cards."""
    counts = [(rank_part >> (3 * r)) & 7 for r in range(13)]
    groups = sorted(((c, r + 2) for r, c in enumerate(counts) if c), reverse=True)
    top_count, top_value = groups[0]
    rest = sorted((v for _, v in groups[1:]), reverse=True)
    if top_count >= 4:
        return _pack(_QUADS, (top_value, rest[0]))
    if top_count == 3 and groups[1][0] >= 2:
        return _pack(_FULL, (top_value, groups[1][1]))
    mask = 0
    for r, c in enumerate(counts):
        if c:
            mask |= 1 << r
    straight = _straight_top(mask)
    if straight:
        return _pack(_STRAIGHT, (straight,))
    if top_count == 3:
        return _pack(_TRIPS, (top_value, *rest[:2]))
    if top_count == 2 and groups[1][0] == 2:
        second = groups[1][1]
        kicker = max(v for _, v in groups[2:])
        return _pack(_TWO_PAIR, (top_value, second, kicker))
    if top_count == 2:
        return _pack(_PAIR, (top_value, *rest[:3]))
    return _pack(_HIGH, [top_value, *rest[:4]])


def _flush_key(mask: int) -> int:
    """High key of the best five of one suit's cards (a 13-bit mask with 5+ bits)."""
    straight = _straight_top(mask)
    if straight:
        return _pack(_SFLUSH, (straight,))
    return _pack(_FLUSH, _top_values(mask, 5))


def _build_rank_table(flush_keys: dict[int, int]) -> dict[int, int]:
    """Keys of all 6 175 five-card rank multisets, enumerated by category (no evaluation)."""
    table: dict[int, int] = {}
    for mask, key in flush_keys.items():  # five distinct ranks: a straight or a high card
        part = sum(1 << (3 * r) for r in range(13) if mask >> r & 1)
        if key >> 20 == _SFLUSH:
            table[part] = key - ((_SFLUSH - _STRAIGHT) << 20)
        else:
            table[part] = key - ((_FLUSH - _HIGH) << 20)
    ranks = range(12, -1, -1)  # highest first, so kicker tuples come out in describing order
    for g in ranks:
        others = [r for r in ranks if r != g]
        for k in others:
            table[(4 << 3 * g) + (1 << 3 * k)] = _pack(_QUADS, (g + 2, k + 2))
            table[(3 << 3 * g) + (2 << 3 * k)] = _pack(_FULL, (g + 2, k + 2))
        for k1, k2 in combinations(others, 2):
            part = (3 << 3 * g) + (1 << 3 * k1) + (1 << 3 * k2)
            table[part] = _pack(_TRIPS, (g + 2, k1 + 2, k2 + 2))
        for k1, k2, k3 in combinations(others, 3):
            part = (2 << 3 * g) + (1 << 3 * k1) + (1 << 3 * k2) + (1 << 3 * k3)
            table[part] = _pack(_PAIR, (g + 2, k1 + 2, k2 + 2, k3 + 2))
        for low_pair in others:
            if low_pair < g:
                for k in others:
                    if k != low_pair:
                        part = (2 << 3 * g) + (2 << 3 * low_pair) + (1 << 3 * k)
                        table[part] = _pack(_TWO_PAIR, (g + 2, low_pair + 2, k + 2))
    return table


# 13-bit masks of five ranks of one suit -> flush or straight-flush key (Omaha).
_FLUSH5_KEYS: Final[dict[int, int]] = {
    mask: _flush_key(mask)
    for mask in (sum(1 << r for r in combo) for combo in combinations(range(13), 5))
}
# rank part -> key; five-card patterns built now, six and seven on first use.
_RANK_KEYS: Final[dict[int, int]] = _build_rank_table(_FLUSH5_KEYS)


def _suit_mask(codes: Sequence[int], suit: int) -> int:
    """13-bit rank mask of the codes of one suit."""
    mask = 0
    suit_bit = 1 << (_SUIT_SHIFT + 4 * suit)
    for code in codes:
        if code & suit_bit:
            mask |= 1 << ((code & _RANK_PART).bit_length() - 1) // 3
    return mask


def _flush_suit(total: int) -> int:
    """The suit whose field has bit 3 set in an offset sum."""
    for s in range(4):
        if total >> (_SUIT_SHIFT + 4 * s + 3) & 1:
            return s
    raise AssertionError("no flush suit")  # pragma: no cover


def high_key(cards: Sequence[Card]) -> int:
    """Key of the best five-card high hand of 5 to 7 cards (bigger is better).

    Raises:
        ValueError: fewer than 5 or more than 7 cards, or a card given twice.
        TypeError: an element is not a :class:`Card`.
    """
    # _codes inlined: this is the hot path of equity-style loops.
    code = _CODE
    try:
        codes = [code[c.rank][c.suit] for c in cards]
    except (AttributeError, KeyError, TypeError):
        _raise_not_cards("high hand", cards)
    n = len(codes)
    if n < 5 or n > 7 or len(set(codes)) != n:
        _raise_bad_count_or_duplicate("high hand", cards, 5, 7)
    total = sum(codes) + _SUIT_OFFSET
    if total & _FLUSH_TEST:
        return _flush_key(_suit_mask(codes, _flush_suit(total)))
    part = total & _RANK_PART
    key = _RANK_KEYS.get(part)
    if key is None:
        key = _RANK_KEYS[part] = _rank_pattern_key(part)
    return key


_HOLE_PAIRS: Final = tuple(combinations(range(4), 2))
# card code -> 1 << r (its rank's bit in a 13-bit mask)
_RANK_BIT: Final[dict[int, int]] = {
    suit_codes[suit]: 1 << r for r, suit_codes in enumerate(_CODE.values()) for suit in _SUITS
}
_BOARD_TRIPLES: Final = {n: tuple(combinations(range(n), 3)) for n in (3, 4, 5)}


def _omaha_codes(hole: Sequence[Card], board: Sequence[Card]) -> tuple[list[int], list[int]]:
    """Codes of 4 hole cards and 3 to 5 board cards, all different."""
    code = _CODE
    try:
        hole_codes = [code[c.rank][c.suit] for c in hole]
        board_codes = [code[c.rank][c.suit] for c in board]
    except (AttributeError, KeyError, TypeError):
        _raise_not_cards("Omaha hand", [*hole, *board])
    n = len(board_codes)
    if len(hole_codes) != 4 or n < 3 or n > 5 or len({*hole_codes, *board_codes}) != n + 4:
        _check_count("Omaha hole", hole, 4, 4)
        _check_count("Omaha board", board, 3, 5)
        _raise_duplicate("Omaha hand", [*hole, *board])
    return hole_codes, board_codes


def _omaha_high_key_of_codes(hole: list[int], board: list[int]) -> int:
    rp = _RANK_PART
    h0, h1, h2, h3 = hole
    pairs = {
        (h0 + h1) & rp,
        (h0 + h2) & rp,
        (h0 + h3) & rp,
        (h1 + h2) & rp,
        (h1 + h3) & rp,
        (h2 + h3) & rp,
    }
    if len(board) == 5:
        b0, b1, b2, b3, b4 = board
        b01, b23 = b0 + b1, b2 + b3
        triples = {
            (b01 + b2) & rp,
            (b01 + b3) & rp,
            (b01 + b4) & rp,
            (b0 + b23) & rp,
            (b0 + b2 + b4) & rp,
            (b0 + b3 + b4) & rp,
            (b1 + b23) & rp,
            (b1 + b2 + b4) & rp,
            (b1 + b3 + b4) & rp,
            (b23 + b4) & rp,
        }
    else:
        triples = {(board[a] + board[b] + board[c]) & rp for a, b, c in _BOARD_TRIPLES[len(board)]}
    table = _RANK_KEYS
    best = max([table[p + t] for p in pairs for t in triples])
    suits = sum(board) + _BOARD3_OFFSET
    if suits & _FLUSH_TEST:  # three or more board cards of one suit
        return max(best, _omaha_flush_key(hole, board, suits))
    return best


def _omaha_flush_key(hole: list[int], board: list[int], suits: int) -> int:
    """Best flush key of 2 hole + 3 board cards of one suit, or 0."""
    best = 0
    bit = _RANK_BIT
    for s in range(4):
        if not suits >> (_SUIT_SHIFT + 4 * s + 3) & 1:
            continue
        suit_bit = 1 << (_SUIT_SHIFT + 4 * s)
        hole_bits = [bit[c] for c in hole if c & suit_bit]
        if len(hole_bits) < 2:
            continue
        board_bits = [bit[c] for c in board if c & suit_bit]
        best = max(
            best,
            *(
                _FLUSH5_KEYS[a | b | x | y | z]
                for a, b in combinations(hole_bits, 2)
                for x, y, z in combinations(board_bits, 3)
            ),
        )
    return best


def omaha_high_key(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Key of the best Omaha high hand: exactly two of 4 hole cards and three of the board.

    The board may have 3 to 5 cards (the flop and turn give the hand so far).

    Raises:
        ValueError: not 4 hole cards or not 3 to 5 board cards, or a card given twice.
        TypeError: an element is not a :class:`Card`.
    """
    hole_codes, board_codes = _omaha_codes(hole, board)
    return _omaha_high_key_of_codes(hole_codes, board_codes)


def _high_description(key: int) -> str:
    category, values = _unpack(key)
    word = [""] * 2 + [rank.word for rank in _RANKS]
    plural = [""] * 2 + [rank.plural for rank in _RANKS]
    top = values[0]
    if category == _SFLUSH:
        return "Royal flush" if top == 14 else f"Straight flush, {word[top]} high"
    if category == _QUADS:
        return f"Four of a kind, {plural[top]}"
    if category == _FULL:
        return f"Full house, {plural[top]} full of {plural[values[1]]}"
    if category == _FLUSH:
        return f"Flush, {word[top]} high"
    if category == _STRAIGHT:
        return f"Straight, {word[top]} high"
    if category == _TRIPS:
        return f"Three of a kind, {plural[top]}"
    if category == _TWO_PAIR:
        return f"Two pair, {plural[top]} and {plural[values[1]]}"
    if category == _PAIR:
        return f"Pair of {plural[top]}"
    return f"High card, {word[top]}"


def _high_pattern(key: int) -> tuple[HandCategory, tuple[int, ...], str]:
    """Category, the five rank values in describing order (wheel ace last) and description."""
    category, v = _unpack(key)
    if category in (_STRAIGHT, _SFLUSH):
        top = v[0]
        ranks = tuple(x if x > 1 else 14 for x in range(top, top - 5, -1))
    elif category == _QUADS:
        ranks = (v[0],) * 4 + (v[1],)
    elif category == _FULL:
        ranks = (v[0],) * 3 + (v[1],) * 2
    elif category == _TRIPS:
        ranks = (v[0],) * 3 + (v[1], v[2])
    elif category == _TWO_PAIR:
        ranks = (v[0], v[0], v[1], v[1], v[2])
    elif category == _PAIR:
        ranks = (v[0], v[0], v[1], v[2], v[3])
    else:
        ranks = tuple(v)
    return _CATEGORIES[category], ranks, _high_description(key)


# Suit is a StrEnum whose values sort c < d < h < s: sorting by the suit sorts in bridge order.
assert tuple(sorted(Suit)) == _SUITS
_BY_SUIT: Final = attrgetter("suit")


def _pick(
    cards: Sequence[Card], values: Sequence[int], value_of: dict[Rank, int]
) -> tuple[Card, ...]:
    """For each value in order, an unused card of that value, higher suits first."""
    pool = sorted(cards, key=_BY_SUIT, reverse=True)
    pool_values = [value_of[c.rank] for c in pool]
    chosen: list[Card] = []
    for value in values:
        i = pool_values.index(value)
        pool_values[i] = 0
        chosen.append(pool[i])
    return tuple(chosen)


# key -> (category, describing-order values, description), filled on first use (<= 7 462).
_HIGH_PATTERNS: dict[int, tuple[HandCategory, tuple[int, ...], str]] = {}


def _high_hand(key: int, cards: Sequence[Card]) -> HighHand:
    pattern = _HIGH_PATTERNS.get(key)
    if pattern is None:
        pattern = _HIGH_PATTERNS[key] = _high_pattern(key)
    category, values, description = pattern
    if key >> 20 in (_FLUSH, _SFLUSH):
        suits = [c.suit for c in cards]
        suit = max(_SUITS, key=suits.count)
        cards = [c for c in cards if c.suit is suit]
    return HighHand(key, category, _pick(cards, values, _HIGH_VALUE), description)


def best_high(cards: Sequence[Card]) -> HighHand:
    """The best five-card high hand of 5 to 7 cards (hold'em, stud, showdown displays).

    Raises:
        ValueError: fewer than 5 or more than 7 cards, or a card given twice.
        TypeError: an element is not a :class:`Card`.

    >>> from tablectl.domain.cards import parse_cards
    >>> hand = best_high(parse_cards("As Ks Qs Js Ts 9s 2d"))
    >>> hand.description, [str(c) for c in hand.cards]
    ('Royal flush', ['As', 'Ks', 'Qs', 'Js', 'Ts'])
    """
    return _high_hand(high_key(cards), cards)


def best_omaha_high(hole: Sequence[Card], board: Sequence[Card]) -> HighHand:
    """The best Omaha high hand: exactly two of the 4 hole cards and three board cards.

    The board may have 3 to 5 cards. ``cards`` are the five cards used.

    Raises:
        ValueError: not 4 hole cards or not 3 to 5 board cards, or a card given twice.
        TypeError: an element is not a :class:`Card`.

    >>> from tablectl.domain.cards import parse_cards
    >>> best_omaha_high(parse_cards("Ah Kd 7c 2c"), parse_cards("Ac Qc 9c 3c 4d")).description
    'Flush, ace high'
    """
    hole_codes, board_codes = _omaha_codes(hole, board)
    key = _omaha_high_key_of_codes(hole_codes, board_codes)
    triples = _BOARD_TRIPLES[len(board)]
    if key >> 20 in (_FLUSH, _SFLUSH):
        bit = _RANK_BIT
        for a, b in _HOLE_PAIRS:
            pair = hole_codes[a] + hole_codes[b] + _SUIT_OFFSET
            for x, y, z in triples:
                if not (pair + board_codes[x] + board_codes[y] + board_codes[z]) & _FLUSH_TEST:
                    continue
                mask = bit[hole_codes[a]] | bit[hole_codes[b]]
                mask |= bit[board_codes[x]] | bit[board_codes[y]] | bit[board_codes[z]]
                if _FLUSH5_KEYS[mask] == key:
                    return _high_hand(key, (hole[a], hole[b], board[x], board[y], board[z]))
    else:
        rp, table = _RANK_PART, _RANK_KEYS
        triple_parts = [
            ((board_codes[x] + board_codes[y] + board_codes[z]) & rp, x, y, z)
            for x, y, z in triples
        ]
        for a, b in _HOLE_PAIRS:
            pair = (hole_codes[a] + hole_codes[b]) & rp
            for part, x, y, z in triple_parts:
                if table[pair + part] == key:
                    return _high_hand(key, (hole[a], hole[b], board[x], board[y], board[z]))
    raise AssertionError("best Omaha combination not found")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# Lows
# --------------------------------------------------------------------------------------------


def _build_low8_table() -> tuple[int, ...]:
    """For each 8-bit ace..eight mask, the key of its lowest five ranks, or 0 (no low)."""
    table = [0] * 256
    for mask in range(256):
        values = [v for v in range(1, 9) if mask >> (v - 1) & 1]
        if len(values) >= 5:
            table[mask] = _pack(0, sorted(values[:5], reverse=True))
    return tuple(table)


_LOW8_KEYS: Final = _build_low8_table()
# 8-bit mask -> its three lowest bits, or 0 when it has fewer than three.
_LOWEST3: Final = tuple(
    (m & -m) | (m2 & -m2) | (m3 & -m3) if m.bit_count() >= 3 else 0
    for m in range(256)
    for m2 in [m & (m - 1)]
    for m3 in [m2 & (m2 - 1)]
)
# card code -> its ace-to-eight bit (0 for nines and up)
_LOW8_BIT_OF_CODE: Final[dict[int, int]] = {
    suit_codes[suit]: _LOW8_BIT[rank] for rank, suit_codes in _CODE.items() for suit in _SUITS
}


def _low8_mask(cards: Sequence[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= _LOW8_BIT[card.rank]
    return mask


def low8_key(cards: Sequence[Card]) -> int | None:
    """Key of the best ace-to-five 8-or-better low of 5 to 7 cards, or None if none qualifies.

    Raises:
        ValueError: fewer than 5 or more than 7 cards, or a card given twice.
        TypeError: an element is not a :class:`Card`.
    """
    _codes(cards, "low hand", 5, 7)
    return _LOW8_KEYS[_low8_mask(cards)] or None


def _omaha_low8_key_of(hole_codes: list[int], board_codes: list[int]) -> int | None:
    """Best Omaha low key from card codes (or None).

    For a given pair of hole ranks the best three board ranks are simply the three lowest
    board low ranks the pair does not use (a lower mask is a better low), so only the <= 6
    hole pairs are tried.
    """
    bit = _LOW8_BIT_OF_CODE
    hole_bits = [b for c in hole_codes if (b := bit[c])]
    board_mask = 0
    for c in board_codes:
        board_mask |= bit[c]
    lowest3 = _LOWEST3
    table = _LOW8_KEYS
    keys = [
        table[pair | rest]
        for pair in {a | b for a, b in combinations(hole_bits, 2) if a != b}
        if (rest := lowest3[board_mask & ~pair])
    ]
    return min(keys) if keys else None


def omaha_low8_key(hole: Sequence[Card], board: Sequence[Card]) -> int | None:
    """Key of the best Omaha 8-or-better low (exactly 2 hole + 3 board cards), or None.

    Raises:
        ValueError: not 4 hole cards or not 3 to 5 board cards, or a card given twice.
        TypeError: an element is not a :class:`Card`.
    """
    return _omaha_low8_key_of(*_omaha_codes(hole, board))


def _low_ranks_text(values: Sequence[int]) -> str:
    return "-".join(_RANK_CHAR[v] for v in values)


def _low_hand(key: int, cards: Sequence[Card]) -> LowHand:
    """An unpaired low (8-or-better or razz) from its key and cards containing its ranks."""
    _, values = _unpack(key)
    return LowHand(key, _pick(cards, values, _LOW_VALUE), f"{_low_ranks_text(values)} low")


def best_low8(cards: Sequence[Card]) -> LowHand | None:
    """The best ace-to-five 8-or-better low of 5 to 7 cards, or None if none qualifies.

    A low needs five different ranks, ace (low) to eight; straights and flushes do not count.

    Raises:
        ValueError: fewer than 5 or more than 7 cards, or a card given twice.
        TypeError: an element is not a :class:`Card`.

    >>> from tablectl.domain.cards import parse_cards
    >>> best_low8(parse_cards("5h 4h 3h 2h Ah Kd Kc")).description
    '5-4-3-2-A low'
    """
    key = low8_key(cards)
    return None if key is None else _low_hand(key, cards)


def best_omaha_low8(hole: Sequence[Card], board: Sequence[Card]) -> LowHand | None:
    """The best Omaha 8-or-better low (exactly 2 hole + 3 board cards), or None.

    Raises:
        ValueError: not 4 hole cards or not 3 to 5 board cards, or a card given twice.
        TypeError: an element is not a :class:`Card`.

    >>> from tablectl.domain.cards import parse_cards
    >>> best_omaha_low8(parse_cards("Ac 2d Kh Ks"), parse_cards("3c 4d 5h Qs 8c")).description
    '5-4-3-2-A low'
    """
    key = omaha_low8_key(hole, board)
    if key is None:
        return None
    _, values = _unpack(key)
    wanted = set(values)
    hole_part = [c for c in hole if _LOW_VALUE[c.rank] in wanted]
    for a, b in combinations(hole_part, 2):
        pair_values = {_LOW_VALUE[a.rank], _LOW_VALUE[b.rank]}
        if len(pair_values) == 2:
            rest = wanted - pair_values
            board_part = [c for c in board if _LOW_VALUE[c.rank] in rest]
            if len({_LOW_VALUE[c.rank] for c in board_part}) == 3:
                return _low_hand(key, [a, b, *board_part])
    raise AssertionError("best Omaha low combination not found")  # pragma: no cover


# Razz: ace-to-five lowball, pairs count against the hand.
_RAZZ_KEYS: dict[tuple[int, ...], int] = {}


def _razz_five_key(values: Sequence[int]) -> int:
    """Razz key of five ace-low values (1..13)."""
    counts: dict[int, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    groups = sorted(((c, v) for v, c in counts.items()), reverse=True)
    shape = tuple(c for c, _ in groups)
    pairing = {
        (1, 1, 1, 1, 1): 0,
        (2, 1, 1, 1): 1,
        (2, 2, 1): 2,
        (3, 1, 1): 3,
        (3, 2): 4,
        (4, 1): 5,
    }[shape]
    return _pack(pairing, [v for _, v in groups])


def _razz_key_of(values: list[int]) -> int:
    values.sort()
    memo = tuple(values)
    key = _RAZZ_KEYS.get(memo)
    if key is None:
        key = _RAZZ_KEYS[memo] = min(_razz_five_key(five) for five in combinations(memo, 5))
    return key


def razz_key(cards: Sequence[Card]) -> int:
    """Key of the best razz (ace-to-five lowball) hand of 5 to 7 cards; smaller is better.

    Raises:
        ValueError: fewer than 5 or more than 7 cards, or a card given twice.
        TypeError: an element is not a :class:`Card`.
    """
    _codes(cards, "razz hand", 5, 7)
    return _razz_key_of([_LOW_VALUE[c.rank] for c in cards])


_RAZZ_GROUP_NAMES: Final = (
    "",
    "Pair of {0}",
    "Two pair, {0} and {1}",
    "Three of a kind, {0}",
    "Full house, {0} full of {1}",
    "Four of a kind, {0}",
)
_RAZZ_COUNTS: Final = ((1, 1, 1, 1, 1), (2, 1, 1, 1), (2, 2, 1), (3, 1, 1), (3, 2), (4, 1))


def best_razz(cards: Sequence[Card]) -> LowHand:
    """The best razz hand of 5 to 7 cards: ace-to-five lowball, pairs allowed but bad.

    Straights and flushes do not count. Any unpaired hand beats any paired one; then fewer
    pairings beat more (pair < two pair < three of a kind < full house < four of a kind); within
    a pairing the lower group ranks win, then the lower kickers from the highest down.
    Unpaired hands are described as lows (``"K-Q-7-3-2 low"``), paired ones as
    ``"Pair of sixes, 7-6-6-3-2"`` (pairing words, then the ranks from the highest down).

    Raises:
        ValueError: fewer than 5 or more than 7 cards, or a card given twice.
        TypeError: an element is not a :class:`Card`.

    >>> from tablectl.domain.cards import parse_cards
    >>> best_razz(parse_cards("Kc Qd 6s 3h 7d 2c 6h")).description
    'Q-7-6-3-2 low'
    >>> best_razz(parse_cards("6s 6h 6d 6c 7h 3d 2c")).description
    'Pair of sixes, 7-6-6-3-2'
    """
    key = razz_key(cards)
    pairing, groups = _unpack(key)
    if pairing == 0:
        return _low_hand(key, cards)
    values = sorted(
        (v for v, n in zip(groups, _RAZZ_COUNTS[pairing], strict=True) for _ in range(n)),
        reverse=True,
    )
    plural = [""] + [rank.plural for rank in (Rank.ACE, *_RANKS[:-1])]
    name = _RAZZ_GROUP_NAMES[pairing].format(*(plural[v] for v in groups))
    return LowHand(key, _pick(cards, values, _LOW_VALUE), f"{name}, {_low_ranks_text(values)}")


# --------------------------------------------------------------------------------------------
# Stud up cards
# --------------------------------------------------------------------------------------------


def stud_up_card_key(card: Card, *, low: bool) -> tuple[int, int]:
    """Strength of one up card for the stud bring-in: bigger is better, the smallest brings in.

    ``low=False`` (seven-card stud, stud hi-lo): ``(rank 2..14, suit 0..3)`` with aces high
    and bridge suit order clubs < diamonds < hearts < spades, so the 2c is the weakest card
    and brings in (PokerKit ``Opening.LOW_CARD``; WSOP: lowest card by suit).

    ``low=True`` (razz): aces are low and the *highest* card brings in; ties go by suit with
    spades the highest (worst) suit, so the order is reversed: ``(14 - low value, 3 - suit)``.
    The Ks is the weakest card and brings in, the Ac is the strongest. This is PokerKit's
    ``Opening.HIGH_CARD`` (``Ks`` brings in against ``Kh``) and the published razz rule
    (highest card brings it in, spades the highest suit). Suits order single cards only
    (the bring-in); openers on later streets are the engine's rule (``RuleSet``, docs/rules.md
    "PokerKit 0.7.7"), not this function's.

    Stud hi-lo uses ``low=False`` (lowest card brings in, aces high).

    >>> from tablectl.domain.cards import Card
    >>> min(map(Card.parse, ["2s", "2c", "9h"]), key=lambda c: stud_up_card_key(c, low=False))
    Card(rank=<Rank.TWO: '2'>, suit=<Suit.CLUBS: 'c'>)
    >>> min(map(Card.parse, ["Kh", "Ks", "7h"]), key=lambda c: stud_up_card_key(c, low=True))
    Card(rank=<Rank.KING: 'K'>, suit=<Suit.SPADES: 's'>)
    """
    if low:
        return 14 - _LOW_VALUE[card.rank], 3 - _SUIT_ORDER[card.suit]
    return _HIGH_VALUE[card.rank], _SUIT_ORDER[card.suit]
