"""Deck registration, deck verification and table calibration: sans-IO cores, thin runners.

The three cores take values and return values; none reads a device, a clock or a terminal:

* :class:`DeckRegistration` builds a deck file from tag reads. In **ordered** mode the dealer
  passes the cards in a stated order (:data:`~tablectl.domain.cards.FULL_DECK` order unless an
  order file says otherwise, see :func:`load_card_order`) and each new UID is given the next
  card. In **confirm** mode each read waits for the dealer to name its card
  (:meth:`DeckRegistration.confirm`). A read that would spoil the deck (a tag already
  registered, a tag of another known deck, a malformed UID) is refused with
  :class:`RegistrationError` and changes nothing.
* :class:`DeckVerification` checks a deck on the reader: every read is OK, a duplicate, a tag
  of another known deck ("foreign") or unknown; :meth:`DeckVerification.report` lists the
  cards present and missing and every problem.
* :class:`Calibration` asks for a card on each table position in turn and records which
  antenna saw it; an antenna that already has a role is refused. The result is the antenna
  map TOML that :func:`~tablectl.sources.base.load_antenna_map` reads.

The runners (:func:`register_deck`, :func:`verify_deck`, :func:`calibrate_table`) feed a core
from a card source's events (:class:`~tablectl.sources.rfid.RfidShoeSource` or
:class:`~tablectl.sources.rfid.RfidTableSource`) and talk to the dealer through a
:class:`Dialogue` (the CLI's terminal, or a test's script). Every wait is bounded by a
timeout measured on the injected clock.

>>> reg = DeckRegistration()
>>> reg.read("04A1B2C3D4E5F6")
Assigned(uid='04A1B2C3D4E5F6', card=Card(rank=<Rank.TWO: '2'>, suit=<Suit.CLUBS: 'c'>), count=1)
>>> reg.read("04a1b2c3d4e5f6")
Traceback (most recent call last):
...
tablectl.sources.registration.RegistrationError: tag 04A1B2C3D4E5F6 is already registered as 2c
>>> cal = Calibration(Calibration.positions(seats=2, board=0, muck=False, burn=False))
>>> cal.read(7).location
Location(kind=<LocationKind.SEAT: 'seat'>, seat=1, slot=None, index=None)
>>> cal.read(7)
Traceback (most recent call last):
...
tablectl.sources.registration.CalibrationError: antenna 7 is already seat 1
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter, deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final, Protocol

from tablectl.clock import Clock
from tablectl.controller.inputs import CardRead, DeviceStatus, Location, LocationKind, ReadMissed
from tablectl.domain.cards import FULL_DECK, Card, CardParseError, parse_cards
from tablectl.domain.deck import Deck, normalise_uid
from tablectl.domain.errors import ConfigError, TablectlError
from tablectl.sources.base import SourceEvent
from tablectl.sources.rfid import RfidShoeSource, RfidTableSource

_LOGGER = logging.getLogger(__name__)


# --- errors ------------------------------------------------------------------------------------


class RegistrationError(TablectlError, ValueError):
    """A read or a confirmation that registration refused; nothing changed.

    Attributes:
        uid: the tag concerned (normalised), if the refusal is about one.
        reason: the message for the dealer.
    """

    def __init__(self, reason: str, *, uid: str | None = None) -> None:
        self.uid = uid
        self.reason = reason
        super().__init__(reason)


class CalibrationError(TablectlError, ValueError):
    """An antenna read that calibration refused (the antenna already has a role).

    Attributes:
        antenna: the antenna number. reason: the message for the dealer.
    """

    def __init__(self, reason: str, *, antenna: int) -> None:
        self.antenna = antenna
        self.reason = reason
        super().__init__(reason)


class RunnerError(TablectlError):
    """A registration, verification or calibration run stopped before it finished; nothing
    was written."""


class ReaderTimeoutError(RunnerError, TimeoutError):
    """Nothing arrived (no read, no answer) within the timeout.

    Attributes:
        seconds: the timeout that passed.
    """

    def __init__(self, message: str, *, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(message)


class AbortedError(RunnerError):
    """The dealer quit, or the input ended while an answer was awaited."""


# --- card order --------------------------------------------------------------------------------


def load_card_order(path: Path) -> tuple[Card, ...]:
    """Read a stated order: the 52 cards in the order the dealer will pass them, separated by
    spaces, commas or new lines; ``#`` starts a comment.

    Raises:
        ConfigError: unreadable file, a word that is not a card, a card twice or missing.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([("", f"cannot read card order: {exc.strerror}")],
                          source=str(path)) from exc
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


def _owners(decks: Sequence[Deck]) -> dict[str, tuple[str, Card]]:
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
        self._known = _owners(known)
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


# --- verification ------------------------------------------------------------------------------


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
        self._others = _owners([d for d in others if d.deck_id != deck.deck_id])
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


# --- calibration -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Assignment:
    """An antenna given a role."""

    antenna: int
    location: Location


class Calibration:
    """Asks for a card on each position in turn and records the antenna that saw it.

    Args:
        positions: the table's positions in the order to ask for them (see
            :meth:`positions`); each at most once.

    Raises:
        ValueError: no position, or one position twice.
    """

    def __init__(self, positions: Sequence[Location]) -> None:
        if not positions:
            raise ValueError("nothing to calibrate: no position")
        if len({str(p) for p in positions}) != len(positions):
            raise ValueError("a position is listed twice")
        self._positions = tuple(positions)
        self._next = 0
        self._map: dict[int, Location] = {}
        self._skipped: list[Location] = []

    @staticmethod
    def positions(seats: int, *, slots: int = 1, board: int = 5, muck: bool = True,
                  burn: bool = True) -> tuple[Location, ...]:
        """The positions of a table: seats 1..``seats`` (with ``slots`` > 1, ``seat N slot
        K`` for each slot), board 1..``board``, then muck and burn.

        Raises:
            ValueError: fewer than 1 slot, negative counts.
        """
        if seats < 0 or board < 0 or slots < 1:
            raise ValueError("seats and board must be >= 0 and slots >= 1")
        out: list[Location] = []
        for seat in range(1, seats + 1):
            if slots == 1:
                out.append(Location(LocationKind.SEAT, seat=seat))
            else:
                out += [Location(LocationKind.SEAT, seat=seat, slot=k)
                        for k in range(1, slots + 1)]
        out += [Location(LocationKind.BOARD, index=n) for n in range(1, board + 1)]
        if muck:
            out.append(Location(LocationKind.MUCK))
        if burn:
            out.append(Location(LocationKind.BURN))
        return tuple(out)

    @property
    def current(self) -> Location | None:
        """The position being asked for (None when done)."""
        return self._positions[self._next] if self._next < len(self._positions) else None

    @property
    def complete(self) -> bool:
        """Every position has an antenna or was skipped."""
        return self.current is None

    @property
    def skipped(self) -> tuple[Location, ...]:
        """Positions the dealer skipped (the table has no antenna there)."""
        return tuple(self._skipped)

    @property
    def progress(self) -> tuple[int, int]:
        """``(asked so far, total)``."""
        return self._next, len(self._positions)

    def verify_read(self, antenna: int) -> Location:
        """The position ``antenna`` would get.

        Raises:
            CalibrationError: calibration is complete, the antenna number is not 0..255, or
                the antenna already has a role.
        """
        current = self.current
        if current is None:
            raise CalibrationError("calibration is complete", antenna=antenna)
        if not 0 <= antenna <= 255:
            raise CalibrationError(f"antenna {antenna} is not 0..255", antenna=antenna)
        if antenna in self._map:
            raise CalibrationError(f"antenna {antenna} is already {self._map[antenna]}",
                                     antenna=antenna)
        return current

    def read(self, antenna: int) -> Assignment:
        """A card was seen on ``antenna`` while :attr:`current` was asked for.

        Raises:
            CalibrationError: see :meth:`verify_read`; nothing changes.
        """
        location = self.verify_read(antenna)
        self._map[antenna] = location
        self._next += 1
        return Assignment(antenna, location)

    def skip(self) -> Location:
        """The table has no antenna at :attr:`current`: go on to the next position.

        Raises:
            CalibrationError: calibration is complete.
        """
        current = self.current
        if current is None:
            raise CalibrationError("calibration is complete", antenna=-1)
        self._skipped.append(current)
        self._next += 1
        return current

    def antenna_map(self) -> Mapping[int, Location]:
        """Antenna number -> role, as recorded so far."""
        return dict(sorted(self._map.items()))

    def to_toml(self, *, title: str = "") -> str:
        """The antenna map file (``[antennas]`` ``"N" = "role"``), readable by
        :func:`~tablectl.sources.base.load_antenna_map`."""
        lines = [f"# {title}" if title else "# Antenna role map",
                 "# antenna number = role; roles: \"seat N [slot K]\", \"board N\", "
                 "\"muck\", \"burn\"."]
        lines += [f"# no antenna: {loc}" for loc in self._skipped]
        lines += ["", "[antennas]"]
        lines += [f'"{antenna}" = "{loc}"' for antenna, loc in self.antenna_map().items()]
        return "\n".join(lines) + "\n"


# --- runners -----------------------------------------------------------------------------------


def open_reader(kind: str, address: str, *, clock: Clock) -> RfidShoeSource | RfidTableSource:
    """The source for a registration, verification or calibration reader (not yet opened):
    ``kind`` ``"shoe"`` (reads in passing order) or ``"table"`` (antennas, no roles yet).

    Raises:
        ValueError: another kind.
    """
    if kind == "shoe":
        return RfidShoeSource("reader", address, clock=clock)
    if kind == "table":
        return RfidTableSource("reader", address, roles={}, clock=clock)
    raise ValueError(f"unknown reader kind {kind!r} (shoe or table)")


class Dialogue(Protocol):
    """How a runner talks to the dealer (the CLI's terminal, or a test's script)."""

    def say(self, text: str) -> None:
        """Show one line to the dealer."""
        ...

    async def readline(self) -> str | None:
        """The dealer's next line (without its newline), or None at the end of input."""
        ...


class _Timeout:
    pass


_TIMEOUT: Final = _Timeout()
_Item = CardRead | str | None | _Timeout


class _Inputs:
    """Races the source's events, the dealer's lines and a timeout, losing none of them:
    whatever arrives while the runner waits for the other kind is kept for later."""

    def __init__(self, events: AsyncIterator[SourceEvent], dialogue: Dialogue,
                 clock: Clock) -> None:
        self._events = events
        self._dialogue = dialogue
        self._clock = clock
        self._reads: deque[CardRead] = deque()
        self._lines: deque[str] = deque()
        self._read_task: asyncio.Task[SourceEvent] | None = None
        self._line_task: asyncio.Task[str | None] | None = None
        self._eof = False
        self.online = False

    @property
    def eof(self) -> bool:
        """The dealer's input has ended (no more lines will come)."""
        return self._eof and not self._lines

    async def _next_event(self) -> SourceEvent:
        return await anext(self._events)

    async def next(self, seconds: float, *, read: bool = True, line: bool = True,
                   reads_first: bool = False) -> _Item:
        """The next read (if ``read``) or line (if ``line``), None at the end of the dealer's
        input, or :data:`_TIMEOUT`. Lines kept come before reads kept, unless ``reads_first``.

        Raises:
            RunnerError: the source ended.
        """
        timer = asyncio.create_task(self._clock.sleep(seconds))
        try:
            while True:
                if reads_first and read and self._reads:
                    return self._reads.popleft()
                if line and self._lines:
                    return self._lines.popleft()
                if line and self._eof:
                    return None
                if read and self._reads:
                    return self._reads.popleft()
                if self._read_task is None:
                    self._read_task = asyncio.create_task(self._next_event())
                if self._line_task is None and not self._eof:
                    self._line_task = asyncio.create_task(self._dialogue.readline())
                waits: set[asyncio.Future[object]] = {timer}  # type: ignore[arg-type]
                waits.add(self._read_task)  # type: ignore[arg-type]
                if self._line_task is not None:
                    waits.add(self._line_task)  # type: ignore[arg-type]
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if self._read_task.done():
                    task, self._read_task = self._read_task, None
                    try:
                        self._on_event(task.result())
                    except StopAsyncIteration:
                        raise RunnerError("the reader's source closed") from None
                if self._line_task is not None and self._line_task.done():
                    got = self._line_task.result()
                    self._line_task = None
                    if got is None:
                        self._eof = True
                    else:
                        self._lines.append(got)
                if timer.done() and not (line and (self._lines or self._eof)) \
                        and not (read and self._reads):
                    return _TIMEOUT
        finally:
            if not timer.done():
                timer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await timer

    def unread(self, line: str) -> None:
        """Put a line back: the next wait for a line returns it first."""
        self._lines.appendleft(line)

    def _on_event(self, event: SourceEvent) -> None:
        match event:
            case CardRead(uid=uid) if uid is not None:
                self._reads.append(event)
            case DeviceStatus(online=online):
                self.online = online
                self._dialogue.say("reader online" if online
                                   else "reader offline: waiting for it to come back")
            case ReadMissed(reason=reason):
                self._dialogue.say(f"missed read: {reason}; pass that card again")
            case _:
                pass

    async def aclose(self) -> None:
        """Stop waiting for anything."""
        for task in (self._read_task, self._line_task):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                    await task
        self._read_task = self._line_task = None

    def no_read(self, seconds: float, what: str) -> ReaderTimeoutError:
        """The error for a wait that timed out."""
        state = "" if self.online else " (the reader never came online)"
        return ReaderTimeoutError(f"nothing read in {seconds:g} s{state}; {what}", seconds=seconds)


async def register_deck(registration: DeckRegistration, events: AsyncIterator[SourceEvent],
                        dialogue: Dialogue, *, clock: Clock, idle_timeout: float) -> None:
    """Run ``registration`` until complete: tags from ``events``, the dealer's lines from
    ``dialogue``. In ordered mode the dealer may type ``undo`` (take back the last card) or
    ``quit``; in confirm mode each read is followed by a prompt for its card (an empty line
    skips the tag; answers typed ahead wait for their reads).

    Raises:
        ReaderTimeoutError: no read, or no answer, within ``idle_timeout`` seconds.
        AbortedError: the dealer typed ``quit``, or the input ended while a card was asked for.
        RunnerError: the source ended.
    """
    inputs = _Inputs(events, dialogue, clock)
    ordered = registration.mode is RegistrationMode.ORDERED
    if ordered:
        dialogue.say("pass the cards in this order: "
                     + " ".join(str(c) for c in registration.remaining))
        dialogue.say(f"next: {registration.expected}  (type 'undo' to take back the last "
                     "card, 'quit' to stop)")
    else:
        dialogue.say("read a card, then type which card it is (e.g. As, Td); an empty line "
                     "skips the tag, 'quit' stops")
    hold_lines = False   # confirm mode: an answer typed ahead waits for its read
    try:
        while not registration.complete:
            item = await inputs.next(idle_timeout, line=not (inputs.eof or hold_lines),
                                     reads_first=not ordered)
            match item:
                case _Timeout():
                    raise inputs.no_read(idle_timeout, f"{registration.count} of 52 registered")
                case None:
                    continue  # the dealer's input ended: reads still register (ordered)
                case str() as text:
                    if not ordered and text.strip().lower() not in ("", "quit", "undo"):
                        inputs.unread(text)
                        hold_lines = True
                        continue
                    _registration_command(registration, text, dialogue)
                case CardRead(uid=uid):
                    assert uid is not None
                    hold_lines = False
                    try:
                        done = registration.read(uid)
                    except RegistrationError as exc:
                        dialogue.say(f"refused: {exc.reason}")
                        continue
                    if done is not None:
                        nxt = registration.expected
                        dialogue.say(f"{done.count:2d}/52 {done.card} = {done.uid}"
                                     + (f"; next: {nxt}" if nxt else ""))
                    else:
                        await _confirm(registration, inputs, dialogue, idle_timeout)
    finally:
        await inputs.aclose()


def _registration_command(registration: DeckRegistration, text: str,
                          dialogue: Dialogue) -> None:
    word = text.strip().lower()
    if not word:
        return
    if word == "quit":
        raise AbortedError(f"stopped by the dealer; {registration.count} of 52 registered")
    if word == "undo":
        try:
            undone = registration.undo()
        except RegistrationError as exc:
            dialogue.say(f"refused: {exc.reason}")
            return
        nxt = registration.expected
        dialogue.say(f"took back {undone.card} = {undone.uid}"
                     + (f"; next: {nxt}" if nxt else ""))
        return
    dialogue.say(f"unknown command {text.strip()!r} (undo, quit)")


async def _confirm(registration: DeckRegistration, inputs: _Inputs, dialogue: Dialogue,
                   idle_timeout: float) -> None:
    uid = registration.pending
    while registration.pending is not None:
        dialogue.say(f"tag {uid}: which card?")
        answer = await inputs.next(idle_timeout, read=False)
        if isinstance(answer, _Timeout):
            registration.reject()
            raise inputs.no_read(idle_timeout, f"tag {uid} was not confirmed; "
                                          f"{registration.count} of 52 registered")
        if answer is None:
            registration.reject()
            raise AbortedError(f"input ended while tag {uid} waited for its card; "
                          f"{registration.count} of 52 registered")
        assert isinstance(answer, str)
        text = answer.strip()
        if text.lower() == "quit":
            registration.reject()
            raise AbortedError(f"stopped by the dealer; {registration.count} of 52 registered")
        if not text:
            registration.reject()
            dialogue.say(f"skipped tag {uid}")
            return
        try:
            done = registration.confirm(text)
        except RegistrationError as exc:
            dialogue.say(f"refused: {exc.reason}")
            continue
        dialogue.say(f"{done.count:2d}/52 {done.card} = {done.uid}")


async def verify_deck(verification: DeckVerification, events: AsyncIterator[SourceEvent],
                      dialogue: Dialogue, *, clock: Clock, idle_timeout: float,
                      settle: float = 1.0) -> VerificationReport:
    """Feed reads to ``verification`` until every card was seen and ``settle`` seconds pass
    without another read, or ``idle_timeout`` seconds pass without a new card of the deck (a
    reader that keeps reading the wrong deck stops too), or the dealer types ``done``; return
    the report. Each new card is counted aloud (``[12/52] Kd``), each problem read told as it
    arrives.

    Raises:
        RunnerError: the source ended.
    """
    inputs = _Inputs(events, dialogue, clock)
    total = len(verification.deck.cards_by_uid)
    dialogue.say(f"pass deck {verification.deck.deck_id} over the reader "
                 "(type 'done' to finish early)")
    progress_at = clock.monotonic()
    try:
        while True:
            left = idle_timeout - (clock.monotonic() - progress_at)
            wait = settle if verification.complete else left
            item = await inputs.next(wait, line=not inputs.eof) if wait > 0 else _TIMEOUT
            match item:
                case _Timeout():
                    if not verification.complete:
                        dialogue.say(f"no new card of deck {verification.deck.deck_id} in "
                                     f"{idle_timeout:g} s: stopping")
                    break
                case str() as text:
                    if text.strip().lower() == "done":
                        break
                case CardRead(uid=uid):
                    assert uid is not None
                    seen = verification.read(uid)
                    if seen.verdict is Verdict.OK:
                        progress_at = clock.monotonic()
                        dialogue.say(f"[{verification.present}/{total}] {seen.card}")
                    elif seen.verdict is Verdict.DUPLICATE:
                        dialogue.say(f"duplicate: {seen.card} read {seen.count} times")
                    elif seen.verdict is Verdict.FOREIGN:
                        dialogue.say(f"foreign tag {seen.uid}: {seen.card} of deck "
                                     f"{seen.deck_id}")
                    elif seen.verdict is Verdict.UNKNOWN:
                        dialogue.say(f"unknown tag {seen.uid}")
                case _:
                    pass
    finally:
        await inputs.aclose()
    return verification.report()


async def calibrate_table(calibration: Calibration, events: AsyncIterator[SourceEvent],
                          dialogue: Dialogue, *, clock: Clock, idle_timeout: float) -> None:
    """Ask for a card on each position of ``calibration`` in turn until complete. The dealer
    may type ``skip`` (no antenna there) or ``quit``.

    Raises:
        ReaderTimeoutError: no read within ``idle_timeout`` seconds of a question.
        AbortedError: the dealer typed ``quit``.
        RunnerError: the source ended.
    """
    inputs = _Inputs(events, dialogue, clock)
    try:
        while (position := calibration.current) is not None:
            asked, total = calibration.progress
            dialogue.say(f"[{asked + 1}/{total}] place a card on {position} "
                         "(or type 'skip')")
            while calibration.current == position:
                item = await inputs.next(idle_timeout, line=not inputs.eof)
                match item:
                    case _Timeout():
                        raise inputs.no_read(idle_timeout, f"{position} was not calibrated")
                    case str() as text:
                        word = text.strip().lower()
                        if word == "skip":
                            calibration.skip()
                            dialogue.say(f"{position}: no antenna")
                        elif word == "quit":
                            raise AbortedError(f"stopped by the dealer at {position}")
                        elif word:
                            dialogue.say(f"unknown command {text.strip()!r} (skip, quit)")
                    case CardRead(antenna=antenna):
                        try:
                            done = calibration.read(antenna)
                        except CalibrationError as exc:
                            dialogue.say(f"refused: {exc.reason}; place the card on "
                                         f"{position}")
                            continue
                        dialogue.say(f"{done.location} = antenna {done.antenna}")
                    case _:
                        pass
    finally:
        await inputs.aclose()
