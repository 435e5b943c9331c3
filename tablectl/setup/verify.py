"""Deck verification: the sans-IO core that checks a deck on the reader.

Every read is OK, a duplicate, a tag of another known deck ("foreign") or unknown;
:meth:`DeckVerification.report` lists the cards present and missing and every problem. The
dialogue that drives it is :func:`tablectl.setup.runners.verify_deck`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from tablectl.domain.cards import FULL_DECK, Card
from tablectl.domain.deck import Deck, normalise_uid
from tablectl.setup.register import tag_owners


class Verdict(StrEnum):
    """What one read means for the deck under test."""

    OK = "ok"
    DUPLICATE = "duplicate"
    """The tag was read before (a double read, or two tags with one UID)."""
    FOREIGN = "foreign"
    """A tag of another known deck."""
    UNKNOWN = "unknown"
    """A tag of no known deck (or not a tag UID at all)."""


@dataclass(frozen=True, slots=True)
class VerifiedRead:
    """One read, judged.

    Attributes:
        uid: the tag (normalised when it is a valid UID). verdict: see :class:`Verdict`.
        card: the card in its deck (the deck under test, or ``deck_id`` for a foreign tag).
        deck_id: the deck the tag belongs to, if known.
        count: reads of this tag so far (2 or more for a duplicate).
    """

    uid: str
    verdict: Verdict
    card: Card | None
    deck_id: str | None
    count: int


@dataclass(frozen=True, slots=True)
class VerificationReport:
    """The outcome of a deck check.

    Attributes:
        deck_id: the deck under test.
        present: its cards read at least once, in FULL_DECK order.
        missing: its cards never read, in FULL_DECK order.
        duplicates: ``(card, reads)`` for its cards read more than once.
        foreign: ``(uid, deck_id, card)`` for tags of other known decks.
        unknown: UIDs of no known deck.
    """

    deck_id: str
    present: tuple[Card, ...]
    missing: tuple[Card, ...]
    duplicates: tuple[tuple[Card, int], ...]
    foreign: tuple[tuple[str, str, Card], ...]
    unknown: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """52 present, no duplicate, no foreign or unknown tag."""
        return not (self.missing or self.duplicates or self.foreign or self.unknown)

    def problems(self) -> list[str]:
        """One line per problem, for the dealer (empty when :attr:`ok`)."""
        out: list[str] = []
        if self.missing:
            out.append(f"missing {len(self.missing)}: " + " ".join(map(str, self.missing)))
        out += [f"duplicate: {card} read {n} times (a double read, or two tags with one UID)"
                for card, n in self.duplicates]
        out += [f"foreign tag {uid}: {card} of deck {deck_id}"
                for uid, deck_id, card in self.foreign]
        out += [f"unknown tag {uid}: in no registered deck" for uid in self.unknown]
        return out


class DeckVerification:
    """Checks the tags read against a registered deck (see the module docstring).

    Args:
        deck: the deck under test.
        others: other registered decks, to name the deck of a foreign tag.
    """

    def __init__(self, deck: Deck, *, others: Sequence[Deck] = ()) -> None:
        self.deck = deck
        self._others = tag_owners([d for d in others if d.deck_id != deck.deck_id])
        self._reads: Counter[str] = Counter()
        self._order: list[str] = []

    def read(self, uid: str) -> VerifiedRead:
        """Judge one read (every read counts, the refused ones included)."""
        try:
            norm = normalise_uid(uid)
        except ValueError:
            norm = uid.strip()
        if norm not in self._reads:
            self._order.append(norm)
        self._reads[norm] += 1
        count = self._reads[norm]
        card = self.deck.cards_by_uid.get(norm)
        if card is not None:
            verdict = Verdict.OK if count == 1 else Verdict.DUPLICATE
            return VerifiedRead(norm, verdict, card, self.deck.deck_id, count)
        if norm in self._others:
            deck_id, other = self._others[norm]
            return VerifiedRead(norm, Verdict.FOREIGN, other, deck_id, count)
        return VerifiedRead(norm, Verdict.UNKNOWN, None, None, count)

    @property
    def present(self) -> int:
        """Cards of the deck read at least once."""
        return sum(1 for uid in self._reads if uid in self.deck.cards_by_uid)

    @property
    def complete(self) -> bool:
        """Every card of the deck was read (problems may still be found)."""
        return self.present == len(self.deck.cards_by_uid)

    def report(self) -> VerificationReport:
        """What was found so far."""
        seen = {self.deck.cards_by_uid[u] for u in self._reads if u in self.deck.cards_by_uid}
        return VerificationReport(
            deck_id=self.deck.deck_id,
            present=tuple(c for c in FULL_DECK if c in seen),
            missing=tuple(c for c in FULL_DECK if c not in seen),
            duplicates=tuple((self.deck.cards_by_uid[u], self._reads[u]) for u in self._order
                             if u in self.deck.cards_by_uid and self._reads[u] > 1),
            foreign=tuple((u, *self._others[u]) for u in self._order
                          if u not in self.deck.cards_by_uid and u in self._others),
            unknown=tuple(u for u in self._order
                          if u not in self.deck.cards_by_uid and u not in self._others),
        )
