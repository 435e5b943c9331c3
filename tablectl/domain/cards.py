"""Playing cards: ranks, suits and the 52-card deck.

A card is written as two characters, rank then suit: ``As`` (ace of spades), ``Td`` (ten of
diamonds), ``2c``. ``10`` is accepted as a rank on input and always written ``T``: this module
is the one place where that mapping lives.

>>> Card.parse("As")
Card(rank=<Rank.ACE: 'A'>, suit=<Suit.SPADES: 's'>)
>>> str(Card.parse("10h"))
'Th'
>>> len(FULL_DECK)
52
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class Rank(StrEnum):
    """Card ranks, in ascending order for high games (ace high)."""

    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    ACE = "A"

    @property
    def high_value(self) -> int:
        """Value with aces high: 2..14.

        >>> Rank.ACE.high_value, Rank.TWO.high_value
        (14, 2)
        """
        return _RANK_ORDER.index(self) + 2

    @property
    def low_value(self) -> int:
        """Value with aces low, as in razz and 8-or-better lows: 1..13.

        >>> Rank.ACE.low_value, Rank.KING.low_value
        (1, 13)
        """
        return 1 if self is Rank.ACE else self.high_value

    @property
    def word(self) -> str:
        """English name of the rank ("ace", "ten")."""
        return _RANK_WORDS[self]

    @property
    def plural(self) -> str:
        """English plural ("aces", "sixes")."""
        return "sixes" if self is Rank.SIX else self.word + "s"


class Suit(StrEnum):
    """Card suits, in ascending bridge order (clubs < diamonds < hearts < spades).

    The bridge order is what stud rules use to break ties between equal up cards
    ("high card by suit").
    """

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"

    @property
    def order(self) -> int:
        """0 for clubs up to 3 for spades."""
        return _SUIT_ORDER.index(self)

    @property
    def symbol(self) -> str:
        """The suit's symbol (♣ ♦ ♥ ♠)."""
        return _SUIT_SYMBOLS[self]


_RANK_ORDER: Final = tuple(Rank)
_SUIT_ORDER: Final = tuple(Suit)
_RANK_WORDS: Final = {
    Rank.TWO: "two",
    Rank.THREE: "three",
    Rank.FOUR: "four",
    Rank.FIVE: "five",
    Rank.SIX: "six",
    Rank.SEVEN: "seven",
    Rank.EIGHT: "eight",
    Rank.NINE: "nine",
    Rank.TEN: "ten",
    Rank.JACK: "jack",
    Rank.QUEEN: "queen",
    Rank.KING: "king",
    Rank.ACE: "ace",
}
_SUIT_SYMBOLS: Final = {
    Suit.CLUBS: "\u2663",
    Suit.DIAMONDS: "\u2666",
    Suit.HEARTS: "\u2665",
    Suit.SPADES: "\u2660",
}


class CardParseError(ValueError):
    """A string that is not a card."""


@dataclass(frozen=True, slots=True, order=False)
class Card:
    """One playing card. Immutable and hashable; ``str(card)`` is its two-character code."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"As"``, ``"td"``, ``"10h"`` (case-insensitive rank, lower-case suit).

        Raises:
            CardParseError: the text is not one card.

        >>> Card.parse("kd").rank
        <Rank.KING: 'K'>
        >>> Card.parse("1x")
        Traceback (most recent call last):
        ...
        tablectl.domain.cards.CardParseError: not a card: '1x' (expected rank 2-9, T/10, ...)
        """
        raw = text.strip()
        rank_text, suit_text = raw[:-1], raw[-1:].lower()
        if rank_text == "10":
            rank_text = "T"
        try:
            return cls(Rank(rank_text.upper()), Suit(suit_text))
        except ValueError:
            raise CardParseError(
                f"not a card: {text!r} (expected rank 2-9, T/10, J, Q, K, A then suit c, d, h, s)"
            ) from None

    @property
    def index(self) -> int:
        """A dense index 0..51 (rank-major), handy for bit sets and arrays."""
        return (self.rank.high_value - 2) * 4 + self.suit.order

    def __str__(self) -> str:
        return f"{self.rank.value}{self.suit.value}"


FULL_DECK: Final[tuple[Card, ...]] = tuple(Card(rank, suit) for rank in Rank for suit in Suit)
"""The 52 cards, twos first, clubs before diamonds before hearts before spades."""


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a run of cards, with or without separators: ``"AsKd"``, ``"As Kd"``, ``"As,Kd"``.

    >>> [str(c) for c in parse_cards("As Kd10h")]
    ['As', 'Kd', 'Th']
    """
    compact = "".join(ch for ch in text if not ch.isspace() and ch != ",")
    cards: list[Card] = []
    i = 0
    while i < len(compact):
        width = 3 if compact.startswith("10", i) else 2
        cards.append(Card.parse(compact[i : i + width]))
        i += width
    return tuple(cards)
