"""Card reads and their hygiene: where a read goes, and the error states of a bad one.

A shoe read is the card for whatever the engine expects next; a table read names its antenna's
role and is staged until the engine deals to that place (:meth:`ReadHygiene._drain`). Unknown
tags, a second deck, duplicates, too many cards (a shoe card with no hand in progress among
them), a board card while betting is open, a wrong antenna and a doubtful read each raise an
active error state that halts further reads.
"""

from __future__ import annotations

from datetime import datetime

from tablectl.controller.core import (
    CARD_EXPECTATIONS,
    ControllerCore,
    Key,
    Pending,
    Placed,
    Stage,
    key_of,
    target_text,
)
from tablectl.controller.inputs import (
    CardRead,
    Location,
    LocationKind,
    ReadMissed,
    ReadStatus,
)
from tablectl.controller.reply import READ_ERRORS, ErrorCode, Refused
from tablectl.domain.cards import Card
from tablectl.game import (
    Act,
    Burn,
    CardIn,
    Done,
    Hand,
    Showdown,
    Street,
)


class ReadHygiene(ControllerCore):
    """Card reads, missed reads and the names of cards in public messages."""

    def _on_read(self, read: CardRead, *, halted_ok: bool) -> bool:
        """Process a read; True if it was accepted (applied or staged)."""
        run = self._run
        blocking = [c.value for c in self._errors if c in READ_ERRORS]
        if not halted_ok and (blocking or self._pending is not None):
            why = ", ".join(blocking) or "a doubtful read is pending"
            run.log.append(f"read {read.read_id} refused: the table waits for the dealer ({why})")
            return False
        card = self._resolve(read)
        if card is None:
            return False
        hand = self._hand
        loc = read.location
        if hand is None or self._stage is not Stage.IN_HAND:
            return self._outside_hand(read, card)
        if loc is not None and loc.kind is LocationKind.MUCK:
            run.log.append(f"read {read.read_id} on the muck ignored")
            return False
        placed = self._accepted.get(card)
        if placed is not None and not hand.back_in_play(card):  # stud: recycled cards
            # the same read again (a reader resends what a crashed host never acknowledged)
            # is a repeat however late it comes
            if placed.read_id == read.read_id or self._same_place(placed, read, loc):
                run.log.append(f"read {read.read_id} repeats an accepted read")
                return False
            self._raise(ErrorCode.DUPLICATE_CARD,
                        f"{self._name(card).capitalize()} was already dealt to "
                        f"{target_text(placed.key)}"
                        f" (read again {self._where(read)})", read.at,
                        {"card": str(card), "read": read.read_id})
            return False
        try:
            key = self._target_for(read, card, hand)
        except Refused as refusal:
            self._raise(refusal.code, refusal.reason, read.at,
                        {"card": str(card), "read": read.read_id,
                         "location": str(loc) if loc else None})
            return False
        if read.status is ReadStatus.NEEDS_CONFIRMATION:
            self._pending = Pending(read, card, key)
            self._raise(ErrorCode.DOUBTFUL_READ,
                        f"read {read.read_id} needs confirmation: {self._name(card)} for "
                        f"{target_text(key if loc else key_of(hand.expected()))}"
                        f" (confidence {read.confidence:.2f})", read.at,
                        {"read": read.read_id, "card": str(card)})
            return False
        self._accept(card, read, key)
        return True

    def _outside_hand(self, read: CardRead, card: Card) -> bool:
        """A read while no hand is in progress (before ``start_hand``, or after the hand
        settled): a shoe card is a card out of the shoe that no hand will count, so it is
        ``too_many_cards`` until the dealer has put it aside and a floor cleared it; left
        alone it would become the first card of the next hand and shift every later one onto
        the wrong seat. A table antenna's read is only logged: collecting the cards of a
        settled hand slides them across the antennas."""
        run = self._run
        if read.location is not None:
            run.log.append(f"read {read.read_id} at {read.location} ignored: no hand "
                           "in progress")
            return False
        placed = self._accepted.get(card)       # the settled hand's cards, until next_hand
        if placed is not None and placed.read_id == read.read_id:
            run.log.append(f"read {read.read_id} repeats an accepted read")
            return False
        when = ("the hand is settled" if self._stage is Stage.SETTLED
                else "no hand is in progress")
        self._raise(ErrorCode.TOO_MANY_CARDS,
                    f"a card came out of {read.source} while {when}: it belongs to no hand; "
                    "put it aside (it is not dealt), then a floor clears the error before "
                    "the next hand starts", read.at,
                    {"card": str(card), "read": read.read_id, "when": self._stage.value})
        return False

    def _on_missed(self, missed: ReadMissed) -> None:
        if self._stage is not Stage.IN_HAND:
            self._run.log.append(f"{missed.source}: {missed.reason} (no hand in progress)")
            return
        self._raise(ErrorCode.MISSED_READ,
                    f"{missed.source}: {missed.reason}; enter the card with manual_card "
                    "(or check that none is missing), then clear the error", missed.at,
                    {"source": missed.source, "antenna": missed.antenna})

    def _public_cards(self) -> set[Card]:
        """Cards anybody may see now: the board, up cards, hands shown at showdown."""
        hand, folder = self._hand, self._folder
        if hand is None or folder is None:
            return set()
        seen = {c for board in hand.boards for c in board if c is not None}
        for sv in self._memo_of(hand).view().seats:
            seen.update(c.card for c in sv.cards
                        if c.card is not None and (c.face_up or sv.seat in folder.revealed))
        return seen

    def _name(self, card: Card) -> str:
        """The card's name for a public message, or "a card" while it may be a hidden one."""
        return str(card) if card in self._public_cards() else "a card"

    def _public_text(self, card: Card | None) -> str | None:
        return str(card) if card is not None and card in self._public_cards() else None

    def _resolve(self, read: CardRead) -> Card | None:
        if read.card is not None:
            return read.card
        assert read.uid is not None
        card = self._setup.deck.card_for(read.uid)
        if card is not None:
            return card
        for deck_id, deck in self._setup.decks.items():
            other = deck.card_for(read.uid)
            if other is not None and deck_id != self._setup.deck_id:
                self._raise(ErrorCode.SECOND_DECK,
                            f"a tag of deck {deck_id}, not of "
                            f"{self._setup.deck_id} ({self._where(read)})", read.at,
                            {"uid": read.uid, "deck": deck_id, "read": read.read_id})
                return None
        self._raise(ErrorCode.UNKNOWN_TAG,
                    f"a tag in no registered deck ({self._where(read)})",
                    read.at, {"uid": read.uid, "read": read.read_id})
        return None

    @staticmethod
    def _where(read: CardRead) -> str:
        if read.location is not None:
            return f"at {read.location}"
        return f"from {read.source} antenna {read.antenna}"

    def _same_place(self, placed: Placed, read: CardRead, loc: Location | None) -> bool:
        if loc is None:
            return (placed.source == read.source and placed.antenna == read.antenna
                    and (read.at - placed.at).total_seconds() <= self._setup.debounce)
        return placed.key is not None and placed.key == self._location_key(loc)

    @staticmethod
    def _location_key(loc: Location) -> Key | None:
        if loc.kind is LocationKind.SEAT:
            assert loc.seat is not None
            return ("seat", loc.seat)
        if loc.kind is LocationKind.BOARD:
            assert loc.index is not None
            return ("board", loc.index - 1)
        if loc.kind is LocationKind.BURN:
            return ("burn", 0)
        return None

    def _betting_before_board(self, hand: Hand) -> bool:
        """Betting is open and a board card (with its burn) will follow it."""
        return (isinstance(hand.expected(), Act) and not self._stud
                and hand.street is not Street.RIVER)

    def _target_for(self, read: CardRead, card: Card, hand: Hand) -> Key | None:
        """Where a read goes (None: the current expectation, for a shoe), or Refused."""
        exp = hand.expected()
        loc = read.location

        def name() -> str:  # only for a refusal: it needs a view of the hand
            return self._name(card)

        if loc is None:
            if isinstance(exp, CARD_EXPECTATIONS):
                return None
            if self._betting_before_board(hand):
                raise Refused(ErrorCode.BOARD_BEFORE_ROUND_CLOSED,
                               f"{name()} came out of {read.source} while the "
                               f"{hand.street} betting is open")
            raise Refused(ErrorCode.TOO_MANY_CARDS,
                           f"{name()} came out of {read.source}, but no card is expected now")
        key = self._location_key(loc)
        assert key is not None
        memo = self._memo_of(hand)
        run = [k for e in memo.upcoming() if (k := key_of(e)) is not None]
        kind, n = key
        staged = len(self._staged.get(key, []))
        if kind == "seat":
            view = {s.seat: s for s in memo.view().seats}
            if n not in view or view[n].folded:
                raise Refused(ErrorCode.WRONG_ANTENNA,
                               f"{name()} read at {loc}, but seat {n} is not in the hand")
            have, need = len(hand.hole_cards(n)), run.count(key)
            if loc.slot is not None:
                taken = {r.location.slot for _, r in self._staged.get(key, [])
                         if r.location is not None}
                if have < loc.slot <= have + need and loc.slot not in taken:
                    return key
                if loc.slot <= have or loc.slot in taken:
                    raise Refused(ErrorCode.TOO_MANY_CARDS,
                                   f"{name()} read at {loc}, which already holds a card")
            elif need > staged:
                return key
            if any(k[0] == "seat" for k in run) or not run:
                raise Refused(ErrorCode.TOO_MANY_CARDS,
                               f"{name()} read at {loc}, but seat {n} has all its cards for "
                               "this round")
            raise Refused(ErrorCode.WRONG_ANTENNA,
                           f"{name()} read at {loc} while the board is being dealt")
        if key in run and run.count(key) > staged:
            return key
        if kind == "board" and n < len(hand.board):
            raise Refused(ErrorCode.TOO_MANY_CARDS,
                           f"{name()} read at {loc}, which already holds a card")
        if self._betting_before_board(hand):
            raise Refused(ErrorCode.BOARD_BEFORE_ROUND_CLOSED,
                           f"{name()} read at {loc} while the {hand.street} betting is open")
        if kind == "board" and (len(hand.board) >= 5 or isinstance(exp, Showdown | Done)):
            raise Refused(ErrorCode.TOO_MANY_CARDS,
                           f"{name()} read at {loc}, but the board is complete")
        raise Refused(ErrorCode.WRONG_ANTENNA,
                       f"{name()} read at {loc}, but {target_text(key_of(exp))} is expected"
                       if isinstance(exp, CARD_EXPECTATIONS)
                       else f"{name()} read at {loc}, but no card is expected now")

    def _accept(self, card: Card, read: CardRead, key: Key | None) -> None:
        hand = self._hand
        assert hand is not None
        if key is None:  # shoe: the card for the current expectation
            target = key_of(hand.expected())
            self._placed(card, target, read.source, read.antenna, at=read.at,
                         read_id=read.read_id)
            self._apply(CardIn(card))
        else:
            self._accepted[card] = Placed(key, read.source, read.antenna, read.at,
                                           read.read_id)
            self._staged.setdefault(key, []).append((card, read))
        self._drain()

    def _placed(self, card: Card | None, key: Key | None, source: str, antenna: int | None,
                *, at: datetime, read_id: str = "") -> None:
        if card is not None:
            self._accepted[card] = Placed(key, source, antenna, at, read_id)

    def _drain(self) -> None:
        """Apply staged table reads whose turn has come (and unread burns before them)."""
        hand = self._hand
        while hand is not None and self._stage is Stage.IN_HAND:
            exp = hand.expected()
            key = key_of(exp)
            if key is None:
                return
            queue = self._staged.get(key)
            pick: int | None = 0
            if queue and key[0] == "seat":  # a seat's slots say which of its cards is which
                slot = len(hand.hole_cards(key[1])) + 1
                pick = next((i for i, (_, r) in enumerate(queue)
                             if r.location is None or r.location.slot in (None, slot)), None)
            if queue and pick is not None:
                card, _read = queue.pop(pick)
                if not queue:
                    del self._staged[key]
                self._apply(CardIn(card))
                continue
            if isinstance(exp, Burn) and self._staged:
                self._run.log.append("burn card not read: entered as unknown")
                self._apply(CardIn(None, burn=True))
                continue
            return
