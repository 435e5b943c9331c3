"""Deck registration: the sans-IO core that builds a deck file from tag reads.

In **ordered** mode the dealer passes the cards in a stated order
(:data:`~tablectl.domain.cards.FULL_DECK` order unless an order file says otherwise, see
:func:`load_card_order`) and each new UID is given the next card. In **confirm** mode each
read waits for the dealer to name its card (:meth:`DeckRegistration.confirm`). A read that
would spoil the deck (a tag already registered, a tag of another known deck, a malformed UID)
is refused with :class:`~tablectl.setup.errors.RegistrationError` and changes nothing. The
dialogue that drives it is :func:`tablectl.setup.runners.register_deck`.

>>> reg = DeckRegistration()
>>> reg.read("04A1B2C3D4E5F6")
Assigned(uid='04A1B2C3D4E5F6', card=Card(rank=<Rank.TWO: '2'>, suit=<Suit.CLUBS: 'c'>), count=1)
>>> reg.read("04a1b2c3d4e5f6")
Traceback (most recent call last):
...
tablectl.setup.errors.RegistrationError: tag 04A1B2C3D4E5F6 is already registered as 2c
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from tablectl.domain.cards import FULL_DECK, Card, CardParseError, parse_cards
from tablectl.domain.deck import Deck, normalise_uid
from tablectl.domain.errors import ConfigError
from tablectl.domain.textfile import TextFileError, read_text_file
from tablectl.setup.errors import RegistrationError

# --- card order --------------------------------------------------------------------------------


def load_card_order(path: Path) -> tuple[Card, ...]:
    """Read a stated order: the 52 cards in the order the dealer will pass them, separated by
    spaces, commas or new lines; ``#`` starts a comment.

    Raises:
        ConfigError: unreadable file, a word that is not a card, a card twice or missing.
    """
    try:
        text = read_text_file(path)
    except TextFileError as exc:
        raise ConfigError([("", exc.said("card order"))], source=str(path)) from None
    problems: list[tuple[str, str]] = []
    cards: list[Card] = []
    first_line: dict[Card, int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        body = line.split("#", 1)[0]
        if not body.strip():
            continue
        try:
            parsed = parse_cards(body)
        except CardParseError as exc:
            problems.append((f"line {lineno}", str(exc)))
            continue
        for card in parsed:
            if card in first_line:
                problems.append((f"line {lineno}",
                                 f"{card} is already on line {first_line[card]}"))
                continue
            first_line[card] = lineno
            cards.append(card)
    if not problems and len(cards) != len(FULL_DECK):
        missing = " ".join(str(c) for c in FULL_DECK if c not in first_line)
        problems.append(("", f"{len(cards)} cards, expected 52; missing: {missing}"))
    if problems:
        raise ConfigError(problems, source=str(path))
    return tuple(cards)


# --- registration ------------------------------------------------------------------------------


class RegistrationMode(StrEnum):
    """How the dealer tells which card a tag is."""

    ORDERED = "ordered"
    """Cards pass in a stated order; each new tag is the next card."""
    CONFIRM = "confirm"
    """Each read waits for the dealer to name the card."""


@dataclass(frozen=True, slots=True)
class Assigned:
    """A tag registered as a card.

    Attributes:
        uid: normalised tag UID. card: its card. count: cards registered so far (1..52).
    """

    uid: str
    card: Card
    count: int


def tag_owners(decks: Sequence[Deck]) -> dict[str, tuple[str, Card]]:
    """Tag UID -> ``(deck id, card)`` over ``decks`` (the first deck naming a tag wins)."""
    owners: dict[str, tuple[str, Card]] = {}
    for deck in decks:
        for uid, card in deck.cards_by_uid.items():
            owners.setdefault(uid, (deck.deck_id, card))
    return owners


class DeckRegistration:
    """Registers the 52 tags of a new deck (see the module docstring).

    Args:
        mode: ordered (default) or confirm.
        order: the stated order for ordered mode, 52 distinct cards (default FULL_DECK).
        known: decks already registered in the card room; their tags are refused.

    Raises:
        ValueError: ``order`` is not the 52 distinct cards.
    """

    def __init__(self, *, mode: RegistrationMode = RegistrationMode.ORDERED,
                 order: Sequence[Card] = FULL_DECK, known: Sequence[Deck] = ()) -> None:
        if len(order) != len(FULL_DECK) or set(order) != set(FULL_DECK):
            raise ValueError("the stated order must hold each of the 52 cards once")
        self.mode = mode
        self.order: tuple[Card, ...] = tuple(order)
        self._known = tag_owners(known)
        self._by_uid: dict[str, Card] = {}
        self._by_card: dict[Card, str] = {}
        self._history: list[Assigned] = []
        self._pending: str | None = None

    # ---- state --------------------------------------------------------------------------------

    @property
    def count(self) -> int:
        """Cards registered so far."""
        return len(self._history)

    @property
    def complete(self) -> bool:
        """True when all 52 cards have a tag."""
        return self.count == len(FULL_DECK)

    @property
    def expected(self) -> Card | None:
        """Ordered mode: the card the next new tag becomes (None when complete or in confirm
        mode)."""
        if self.mode is not RegistrationMode.ORDERED or self.complete:
            return None
        return self.order[self.count]

    @property
    def pending(self) -> str | None:
        """Confirm mode: the tag waiting for the dealer to name its card."""
        return self._pending

    @property
    def remaining(self) -> tuple[Card, ...]:
        """Cards without a tag yet, in the stated order."""
        return tuple(c for c in self.order if c not in self._by_card)

    @property
    def assignments(self) -> tuple[Assigned, ...]:
        """Every registration so far, oldest first."""
        return tuple(self._history)

    # ---- verify / do ----------------------------------------------------------------------

    def verify_read(self, uid: str) -> str:
        """Check that ``uid`` may be registered now; return it normalised.

        Raises:
            RegistrationError: malformed UID, deck complete, a confirmation pending, the tag
                already registered, or a tag of a known deck.
        """
        try:
            norm = normalise_uid(uid)
        except ValueError as exc:
            raise RegistrationError(str(exc)) from exc
        if norm in self._by_uid:
            raise RegistrationError(
                f"tag {norm} is already registered as {self._by_uid[norm]}", uid=norm)
        if norm in self._known:
            deck_id, card = self._known[norm]
            raise RegistrationError(
                f"tag {norm} belongs to deck {deck_id} ({card}): take that card out", uid=norm)
        if self.complete:
            raise RegistrationError("all 52 cards are registered", uid=norm)
        if self._pending is not None:
            raise RegistrationError(
                f"tag {self._pending} is waiting for its card: confirm or reject it first",
                uid=norm)
        return norm

    def can_read(self, uid: str) -> bool:
        """True when :meth:`read` would accept ``uid``."""
        try:
            self.verify_read(uid)
        except RegistrationError:
            return False
        return True

    def read(self, uid: str) -> Assigned | None:
        """A tag was read. Ordered mode: it becomes :attr:`expected` (returned). Confirm mode:
        it becomes :attr:`pending` and None is returned.

        Raises:
            RegistrationError: see :meth:`verify_read`; nothing changes.
        """
        norm = self.verify_read(uid)
        if self.mode is RegistrationMode.CONFIRM:
            self._pending = norm
            return None
        card = self.expected
        assert card is not None
        return self._assign(norm, card)

    def confirm(self, card: Card | str) -> Assigned:
        """Confirm mode: the dealer names the pending tag's card.

        Raises:
            RegistrationError: no tag pending, not a card, or the card already has a tag;
                the tag stays pending.
        """
        if self._pending is None:
            raise RegistrationError("no tag is waiting for a card: read one first")
        if isinstance(card, str):
            try:
                card = Card.parse(card.strip())
            except CardParseError as exc:
                raise RegistrationError(str(exc), uid=self._pending) from exc
        if card in self._by_card:
            raise RegistrationError(
                f"{card} is already registered (tag {self._by_card[card]})", uid=self._pending)
        uid, self._pending = self._pending, None
        return self._assign(uid, card)

    def reject(self) -> str:
        """Confirm mode: drop the pending tag (the dealer skips it); returns it.

        Raises:
            RegistrationError: no tag pending.
        """
        if self._pending is None:
            raise RegistrationError("no tag is waiting for a card")
        uid, self._pending = self._pending, None
        return uid

    def undo(self) -> Assigned:
        """Take back the last registration (a wrong card passed); returns it.

        Raises:
            RegistrationError: nothing registered, or a confirmation pending.
        """
        if self._pending is not None:
            raise RegistrationError(
                f"tag {self._pending} is waiting for its card: confirm or reject it first")
        if not self._history:
            raise RegistrationError("nothing to undo")
        last = self._history.pop()
        del self._by_uid[last.uid]
        del self._by_card[last.card]
        return last

    def _assign(self, uid: str, card: Card) -> Assigned:
        self._by_uid[uid] = card
        self._by_card[card] = uid
        done = Assigned(uid, card, len(self._history) + 1)
        self._history.append(done)
        return done

    def deck(self, deck_id: str) -> Deck:
        """The registered deck.

        Raises:
            RegistrationError: fewer than 52 cards registered.
        """
        if not self.complete:
            raise RegistrationError(f"only {self.count} of 52 cards are registered")
        return Deck(deck_id, dict(self._by_uid))
