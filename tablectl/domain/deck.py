"""Registered decks: the map from RFID tag UIDs to cards.

A deck file is CSV with a header line ``uid,card`` and one line per card; ``#`` starts a
comment line. The deck id is the file's stem (``config/decks/demo-red.csv`` is ``demo-red``).
UIDs are hexadecimal (4, 7 or 10 bytes, as ISO 14443 tags carry), written in any case and
stored upper-case. Loading checks 52 distinct cards and unique UIDs and names the line of
every problem.

>>> deck = Deck.from_text("uid,card\\n04A1,As\\n", deck_id="x", require_full=False)
>>> str(deck.card_for("04a1"))
'As'
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Final

from tablectl.domain.cards import FULL_DECK, Card, CardParseError
from tablectl.domain.errors import ConfigError
from tablectl.domain.textfile import TextFileError, read_text_file

_UID_RE: Final = re.compile(r"^[0-9A-F]{2,20}$")


def normalise_uid(uid: str) -> str:
    """Upper-case hex without separators (``04:a1:b2`` -> ``04A1B2``).

    Raises:
        ValueError: not an even-length hex string of 1 to 10 bytes.
    """
    text = uid.strip().replace(":", "").replace("-", "").replace(" ", "").upper()
    if not _UID_RE.match(text) or len(text) % 2:
        raise ValueError(f"not a tag UID: {uid!r} (expected 2 to 20 hex digits, whole bytes)")
    return text


@dataclass(frozen=True, slots=True)
class Deck:
    """A registered deck: which tag UID is which card.

    Attributes:
        deck_id: a short name, unique among the decks of a card room.
        cards_by_uid: read-only map of normalised UID to card.
    """

    deck_id: str
    cards_by_uid: Mapping[str, Card]
    uids_by_card: Mapping[Card, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        inverse = {card: uid for uid, card in self.cards_by_uid.items()}
        if len(inverse) != len(self.cards_by_uid):
            raise ValueError(f"deck {self.deck_id}: a card has two UIDs")
        object.__setattr__(self, "cards_by_uid", MappingProxyType(dict(self.cards_by_uid)))
        object.__setattr__(self, "uids_by_card", MappingProxyType(inverse))

    def card_for(self, uid: str) -> Card | None:
        """The card carrying ``uid``, or None for a tag that is not in this deck."""
        try:
            return self.cards_by_uid.get(normalise_uid(uid))
        except ValueError:
            return None

    def uid_for(self, card: Card) -> str:
        """The UID of ``card``'s tag. Raises KeyError if the deck lacks the card."""
        return self.uids_by_card[card]

    @property
    def is_complete(self) -> bool:
        """True when all 52 cards are registered."""
        return len(self.uids_by_card) == len(FULL_DECK)

    @classmethod
    def from_pairs(cls, deck_id: str, pairs: Iterable[tuple[str, Card]]) -> Deck:
        """Build a deck from ``(uid, card)`` pairs (no completeness check)."""
        return cls(deck_id, {normalise_uid(uid): card for uid, card in pairs})

    @classmethod
    def from_text(cls, text: str, *, deck_id: str, source: str | None = None,
                  require_full: bool = True) -> Deck:
        """Parse deck CSV text.

        Raises:
            ConfigError: with one ``line N`` problem per bad line, duplicate card or UID,
                and a problem naming the missing cards when ``require_full`` and fewer than 52.
        """
        problems: list[tuple[str, str]] = []
        cards: dict[str, Card] = {}
        first_line_of_card: dict[Card, int] = {}
        first_line_of_uid: dict[str, int] = {}
        header_seen = False
        try:
            rows = list(csv.reader(io.StringIO(text)))
        except csv.Error as exc:   # a field beyond the reader's limit, a NUL
            raise ConfigError([("", f"not a deck CSV: {exc}")], source=source) from None
        for lineno, row in enumerate(rows, start=1):
            if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
                continue
            cells = [cell.strip() for cell in row]
            if not header_seen:
                header_seen = True
                if [c.lower() for c in cells] == ["uid", "card"]:
                    continue
                problems.append((f"line {lineno}", "expected the header 'uid,card'"))
                continue
            if len(cells) != 2:
                problems.append((f"line {lineno}", f"expected 2 fields uid,card, got {len(cells)}"))
                continue
            try:
                uid = normalise_uid(cells[0])
            except ValueError as exc:
                problems.append((f"line {lineno}", str(exc)))
                continue
            try:
                card = Card.parse(cells[1])
            except CardParseError as exc:
                problems.append((f"line {lineno}", str(exc)))
                continue
            if uid in first_line_of_uid:
                problems.append((f"line {lineno}",
                                 f"UID {uid} already used on line {first_line_of_uid[uid]}"))
                continue
            if card in first_line_of_card:
                problems.append((f"line {lineno}",
                                 f"card {card} already registered on line "
                                 f"{first_line_of_card[card]}"))
                continue
            first_line_of_uid[uid] = lineno
            first_line_of_card[card] = lineno
            cards[uid] = card
        if require_full and not problems and len(cards) != len(FULL_DECK):
            missing = [str(c) for c in FULL_DECK if c not in first_line_of_card]
            problems.append(("", f"deck has {len(cards)} cards, expected 52; missing: "
                                 + " ".join(missing)))
        if problems:
            raise ConfigError(problems, source=source)
        return cls(deck_id, cards)

    @classmethod
    def load(cls, path: Path, *, require_full: bool = True) -> Deck:
        """Read a deck CSV file; the deck id is the file's stem.

        Raises:
            ConfigError: unreadable file or bad content (see :meth:`from_text`).
        """
        try:
            text = read_text_file(path)
        except TextFileError as exc:
            raise ConfigError([("", exc.said("deck file"))], source=str(path)) from None
        return cls.from_text(text, deck_id=path.stem, source=str(path),
                             require_full=require_full)

    def to_text(self) -> str:
        """Deck CSV, cards in FULL_DECK order; ``Deck.from_text(d.to_text())`` round-trips."""
        lines = ["uid,card"]
        lines += [f"{self.uids_by_card[c]},{c}" for c in FULL_DECK if c in self.uids_by_card]
        return "\n".join(lines) + "\n"
