"""The engine's process-wide memo tables: every cache the hand machine keeps between hands.

Hands build the same small immutable values over and over (expectations, legal actions, the
hole-card deal of a table) and look every dealt card up by its index. Sharing those values
(a flyweight) and remembering each card object's index saves most of the cost of creating
frozen dataclasses and hashing cards. The tables live here and nowhere else:

* :data:`CARD_KEYS` - ``id(card)`` -> the card object and its index (:func:`card_key`);
* :data:`VALUES` - one shared instance per distinct engine value (:func:`shared`);
* :data:`ACTS` - one ``Act`` per distinct legal situation (``game/betting.py``);
* :data:`HOLE_QUEUES` - the hole-card deal per seat order and card count (``game/streets.py``).

Each is a :class:`Memo`: a dict cleared wholesale when it reaches :data:`LIMIT` entries, so
memory stays small whatever the amounts. Only immutable values are stored; a table being
cleared changes no result. :func:`clear` empties them all.

>>> from tablectl.domain.cards import Card
>>> card = Card.parse("As")
>>> card_key(card) == card.index
True
>>> shared(tuple, "ab") is shared(tuple, "ab")
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TypeVar

from tablectl.domain.cards import Card

if TYPE_CHECKING:
    from tablectl.game.model import Act, Expectation

LIMIT: Final = 1 << 16
"""Entries a memo table holds before it is cleared."""

_K = TypeVar("_K")
_V = TypeVar("_V")
_T = TypeVar("_T")


class Memo(dict[_K, _V]):
    """A dict that forgets everything when it reaches :data:`LIMIT` entries.

    Look values up with the plain dict methods (``get`` runs at C speed); add them with
    :meth:`remember`.
    """

    __slots__ = ()

    def remember(self, key: _K, value: _V) -> _V:
        """Store ``value`` under ``key`` (clearing the table first if it is full); return it."""
        if len(self) >= LIMIT:
            self.clear()
        self[key] = value
        return value


CARD_KEYS: Final[Memo[int, tuple[Card, int]]] = Memo()
VALUES: Final[Memo[tuple[object, ...], object]] = Memo()
ACTS: Final[Memo[tuple[int, bool, int, int, int, int], Act]] = Memo()
HOLE_QUEUES: Final[Memo[tuple[tuple[int, ...], int], list[Expectation]]] = Memo()
_TABLES: Final = (CARD_KEYS, VALUES, ACTS, HOLE_QUEUES)


def card_key(card: Card) -> int:
    """``card.index`` (0..51), remembered per card object.

    Hashing a Card runs Python code for its two enums; the engine looks cards up on every
    deal, so it keys them by this int instead. The table holds each card object it has seen
    (so an ``id`` is never reused while remembered).
    """
    entry = CARD_KEYS.get(id(card))
    if entry is not None and entry[0] is card:
        return entry[1]
    return CARD_KEYS.remember(id(card), (card, card.index))[1]


def shared(cls: Callable[..., _T], *args: object) -> _T:
    """One shared instance per distinct value ``cls(*args)`` of an immutable engine value."""
    key = (cls, *args)
    value = VALUES.get(key)
    if value is None:
        value = VALUES.remember(key, cls(*args))
    return value  # type: ignore[return-value]


def clear() -> None:
    """Empty every memo table (results do not change; the next hands rebuild them)."""
    for table in _TABLES:
        table.clear()
