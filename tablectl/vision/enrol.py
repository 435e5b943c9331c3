"""Deck enrolment: capture glyph exemplars from the deck in use, then verify before enabling.

Live at the table the console drives an :class:`Enroller`: the dealer shows a card, the
console confirms its label and feeds the frame(s) with :meth:`Enroller.add`. Offline,
:func:`enrol_images` does the same from labelled image files. Each capture also adds a few
slightly rotated, blurred and coarser copies of the index, so small pose changes and a card
read smaller than it was enrolled still correlate well.

:func:`verify` then reads every labelled frame back. A pass with 100% correct and zero wrong
reads enables the profile (:meth:`DeckProfile.with_verification`); one with no wrong read and
at least :data:`ENABLE_SHARE` correct enables it too, holding back the cards read back unsure
(they are never accepted until the deck is enrolled again); any wrong read disables it.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, Literal

import cv2
import numpy as np

from tablectl.domain.cards import FULL_DECK, Card, CardParseError, Rank, Suit, parse_cards
from tablectl.domain.textfile import TextFileError, read_text_file
from tablectl.vision.cardview import CARD_H, CARD_W, CORNER, CORNER_WIDE, corner_crops
from tablectl.vision.corners import matching_corners
from tablectl.vision.face import Vec, face_vector
from tablectl.vision.finder import card_views
from tablectl.vision.frame import ImageFileError, read_image
from tablectl.vision.glyphs import CANON_H, IndexGlyphs, find_grown_index, find_index
from tablectl.vision.model import (
    EnrolmentError,
    FaceRead,
    FaceStatus,
    Image,
    NoIndexError,
    ProfileError,
    Thresholds,
)
from tablectl.vision.pips import LAYOUTS, enrolled_pips, read_pips
from tablectl.vision.profile import DeckProfile, Exemplar
from tablectl.vision.recognise import Recogniser

Mode = Literal["shoe", "board"]

_AUGMENT_ANGLES: Final = (-6.0, 6.0)
ENABLE_SHARE: Final = 0.9
"""Share of the verification reads that must be right (none wrong) for a profile to be
enabled with the cards read back unsure held back."""
_LABEL_RE: Final = re.compile(r"^(10|[2-9TtJjQqKkAa])([cdhsCDHS])(?:$|[^A-Za-z0-9])")


def label_from_name(path: Path) -> Card:
    """The card a file name stands for: ``As.jpg``, ``10h.png``, ``Td_2.jpg``, ``qs-left.png``.

    Raises:
        EnrolmentError: the name does not start with a card code.

    >>> str(label_from_name(Path("10h.png"))), str(label_from_name(Path("kd_2.jpg")))
    ('Th', 'Kd')
    """
    m = _LABEL_RE.match(path.stem)
    if not m:
        raise EnrolmentError("file name does not start with a card code (e.g. As, 10h)",
                             path.name)
    return Card.parse(m.group(1) + m.group(2).lower())


def labels_from_csv(path: Path) -> dict[str, Card]:
    """``file,card`` rows (header optional) mapping image file names to cards.

    Raises:
        EnrolmentError: a file that is not such a CSV (too large, not UTF-8, a NUL byte, a
            field beyond the CSV reader's limit), a row without two fields or with a bad
            card code.
    """
    out: dict[str, Card] = {}
    try:
        text = read_text_file(path).removeprefix("\ufeff")   # a spreadsheet's byte-order mark
    except TextFileError as exc:
        raise EnrolmentError(exc.said("labels CSV"), path.name) from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise EnrolmentError(f"not a CSV: {exc}", path.name) from None
    for n, row in enumerate(rows, start=1):
        if not row or row[0].strip().startswith("#"):
            continue
        if len(row) < 2:
            raise EnrolmentError(f"line {n}: expected 'file,card'", path.name)
        name, code = row[0].strip(), row[1].strip()
        if n == 1 and code.lower() in {"card", "label"}:
            continue
        try:
            out[name] = Card.parse(code)
        except CardParseError as exc:
            raise EnrolmentError(f"line {n}: {exc}", path.name) from exc
    return out


DECK_TEXT_MAX: Final = 400
"""The longest ``--deck`` text: the 52 card codes with a separator each, ``10`` for tens."""


def parse_deck(text: str) -> tuple[Card, ...]:
    """The cards a deck has: ``full`` (52), a rank range such as ``9-A`` (24 cards) or
    ``6-A`` (short-deck hold'em, 36), or a list of card codes.

    Raises:
        EnrolmentError: none of those.

    >>> len(parse_deck("full")), len(parse_deck("9-A")), len(parse_deck("6-a"))
    (52, 24, 36)
    """
    t = text.strip()
    if len(t) > DECK_TEXT_MAX:  # pasted by mistake: its error line would echo all of it
        raise EnrolmentError(f"deck {t[:40]!r}...: {len(t)} characters, more than a list "
                             f"of every card takes (at most {DECK_TEXT_MAX})")
    if t.lower() in {"full", "52"}:
        return FULL_DECK
    m = re.fullmatch(r"(10|[2-9TJQKA])-(10|[2-9TJQKA])", t.upper())
    if m:
        order = list(Rank)
        lo, hi = (order.index(Rank("T" if g == "10" else g)) for g in m.groups())
        if lo > hi:
            raise EnrolmentError(f"rank range {text!r} runs backwards")
        keep = set(order[lo:hi + 1])
        return tuple(c for c in FULL_DECK if c.rank in keep)
    try:
        cards = parse_cards(t.replace(",", " "))
    except CardParseError as exc:
        raise EnrolmentError(f"deck {text!r}: expected full, a rank range like 9-A, or "
                             f"card codes ({exc})") from exc
    if not cards:
        raise EnrolmentError("deck: no cards given")
    return cards


def _rotate(crop: Image, angle: float) -> Image:
    h, w = crop.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    return cv2.warpAffine(crop, m, (w, h), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def _coarse(crop: Image) -> Image:
    """``crop`` as a camera twice as far away would see it (half the resolution), brought
    back to its size: a card read smaller than it was enrolled."""
    h, w = crop.shape[:2]
    small = cv2.resize(crop, (max(8, w // 2), max(16, h // 2)), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


MENDED: Final = 1.15
"""How much taller or wider the hysteresis cut's index must be than Otsu's to be enrolled
as a variant of it (:func:`_mended`)."""


def _best_glyphs(crop: Image) -> IndexGlyphs | None:
    found = find_index(crop, max_pairs=1)
    return found[0] if found else None


def _mended(seen: IndexGlyphs, grown: IndexGlyphs) -> bool:
    """Whether the hysteresis cut's index is the Otsu cut's made whole: it lies where that
    one does, at least :data:`MENDED` taller or wider (a rank broken into pieces at
    Otsu's cut). Else the two are the same index (no variant is added: a near copy would
    only narrow the deck's leave-one-out margins) or another one."""
    x, y, w, h = seen.box
    gx, gy, gw, gh = grown.box
    overlap = (min(x + w, gx + gw) - max(x, gx)) * (min(y + h, gy + gh) - max(y, gy))
    return (overlap > 0.5 * w * h and gw * gh > w * h
            and (gh >= MENDED * h or gw >= MENDED * w))


def _grown_glyphs(crop: Image) -> IndexGlyphs | None:
    """The index at the hysteresis cut, where it differs from Otsu's (a faint print whose
    thin strokes break at Otsu's cut: recognition looks there too)."""
    found = find_grown_index(crop, max_pairs=1)
    return found[0] if found else None


@dataclass(frozen=True, slots=True)
class VerificationReport:
    """The outcome of reading enrolled cards back.

    Attributes:
        total: frames read.
        correct: accepted with the right card.
        wrong: accepted with a wrong card (must be zero).
        unsure: needs_confirmation or no_card.
        failures: ``(item, what was read)`` for every read that was not correct.
        held_back: the cards of the unsure reads (none of them is ever accepted).
        skipped: ``(item, card)`` of the photos enrolment could not use (no card index
            found; :func:`enrol_images`): those cards were not enrolled from them.
    """

    total: int
    correct: int
    wrong: int
    unsure: int
    failures: tuple[tuple[str, str], ...]
    held_back: tuple[Card, ...] = ()
    skipped: tuple[tuple[str, Card], ...] = ()

    @property
    def passed(self) -> bool:
        """100% correct and zero wrong."""
        return self.total > 0 and self.correct == self.total and self.wrong == 0

    @property
    def enabled(self) -> bool:
        """The profile may be used: every read was right, or none was wrong and at least
        :data:`ENABLE_SHARE` were right (the cards read back unsure are held back: always
        sent to the dealer, until enrolled again). A wrong read disables the profile."""
        return self.passed or (self.wrong == 0 and self.correct > 0
                               and self.correct >= ENABLE_SHARE * self.total)

    def summary(self) -> str:
        """One line for the profile and the console."""
        if self.passed:
            verdict = "enabled"
        elif self.enabled:
            verdict = ("enabled except " + " ".join(map(str, self.held_back))
                       + " (sent to the dealer until enrolled again)")
        else:
            verdict = "NOT enabled"
        line = (f"{verdict}: {self.correct}/{self.total} read back correctly, "
                f"{self.wrong} wrong, {self.unsure} unsure")
        if self.skipped:
            line += (f"; {len(self.skipped)} photo(s) skipped, no card index found: "
                     + " ".join(f"{item} ({card})" for item, card in self.skipped))
        return line


class Enroller:
    """Collects exemplars for one deck from labelled frames (live or from files).

    Args:
        deck_id: the deck's name.
        mode: ``"shoe"`` (the index is read inside ``shoe_roi``) or ``"board"`` (the
            largest card in the frame is found and both corners are enrolled).
        shoe_roi: index window ``(x, y, w, h)`` in shoe frames; ``None``: the whole frame.
        augment: also enrol slightly rotated, blurred and coarser copies of each index.
        deck: the cards the deck has (default all 52; a short deck has fewer).
    """

    def __init__(self, deck_id: str, mode: Mode = "board",
                 shoe_roi: tuple[int, int, int, int] | None = None,
                 augment: bool = True, deck: Sequence[Card] = FULL_DECK) -> None:
        self.deck_id = deck_id
        self.deck = tuple(deck)
        self.mode = mode
        self.shoe_roi = shoe_roi
        self.augment = augment
        self._exemplars: list[Exemplar] = []
        self._places: list[tuple[float, float, float]] = []
        self._seen: set[Card] = set()
        self._faces: list[tuple[Card, Vec]] = []
        self._pips: list[tuple[Suit, Vec]] = []
        self._captures = 0
        self._photos = 0

    @property
    def cards(self) -> frozenset[Card]:
        """Cards captured so far."""
        return frozenset(self._seen)

    @property
    def remaining(self) -> tuple[Card, ...]:
        """Cards of the deck not captured yet, in deck order (for the console's prompt)."""
        return tuple(c for c in self.deck if c not in self._seen)

    def _crops(self, frame: Image, item: str, card_read: Card | None = None,
               ) -> tuple[list[Image], float, Image | None]:
        """The index crops of ``frame``, for a warped board card the card px per canonical
        crop px (0: not a warped card), and the warped card (its face is enrolled too).
        Of the cards found, the first whose pips read as ``card_read``'s rank where it is
        a number card (a quad that cuts the card or takes in a hand gives a face that
        refuses the card's later photos), else the first with an index."""
        if self.mode == "shoe":
            roi = self.shoe_roi
            if roi is None:
                return [frame], 0.0, None
            x, y, w, h = roi
            if x < 0 or y < 0 or x + w > frame.shape[1] or y + h > frame.shape[0]:
                raise EnrolmentError(f"shoe ROI {roi} lies outside the {frame.shape[1]}x"
                                     f"{frame.shape[0]} frame", item)
            return [frame[y:y + h, x:x + w]], 0.0, None
        # the one finder recognition uses too (finder.py): the photo as the card's own
        # crop, every card found in it (largest first) and their grown quads; where none
        # shows an index (no outline: a card on paper or a pale box), the card's two index
        # corners found by themselves (no face), else the photo as one tightly cropped card
        whole: Image | None = None
        views = []
        first: tuple[list[Image], float, Image] | None = None
        for kind, _, card in card_views(frame):
            if kind == "whole":
                whole = card
                break
            crops, scale = self._card_crops(card)
            if crops:
                if card_read is None or card_read.rank not in LAYOUTS:
                    return crops, scale, card
                if read_pips(card, card_read.rank).rank is card_read.rank:
                    return crops, scale, card
                first = first or (crops, scale, card)
                continue
            views.append(card)
        if first is not None:
            return first
        both = matching_corners(frame)
        if both:
            return both, 0.0, None
        # a faint print (every cut of Otsu's breaks its rank): the views again, at the
        # hysteresis cut recognition also looks at last (glyphs.grown_cut)
        for card in views:
            crops, scale = self._card_crops(card, faint=True)
            if crops:
                return crops, scale, card
        assert whole is not None
        crops, scale = self._card_crops(whole)
        return crops, scale, whole

    @staticmethod
    def _card_crops(card: Image, *, faint: bool = False) -> tuple[list[Image], float]:
        """The index corners of a warped card (wider ones for a jumbo index), and the card
        px per canonical crop px; no crops if neither size shows an index (at Otsu's cut,
        or with ``faint`` at the hysteresis cut)."""
        look = _grown_glyphs if faint else _best_glyphs
        for corner in (CORNER, CORNER_WIDE):
            crops = list(corner_crops(card, corner))
            if any(look(c) is not None for c in crops):
                return crops, round(CARD_H * corner[1]) / CANON_H
        return [], 0.0

    def add(self, frame: Image, card: Card, item: str = "frame") -> int:
        """Enrol ``frame`` as showing ``card`` (the console has confirmed the label).

        Returns the number of exemplars added.

        Raises:
            EnrolmentError: no card index could be found, or the card is not in this deck
                (nothing is added).
        """
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise EnrolmentError("expected a BGR colour frame", item)
        if card not in self.deck:
            raise EnrolmentError(f"{card} is not in this deck", item)
        new: list[Exemplar] = []
        crops, scale, card_img = self._crops(frame, item, card)
        self._photos += 1
        places: list[tuple[float, float, float]] = []
        for crop in crops:
            self._captures += 1
            g = _best_glyphs(crop) or _grown_glyphs(crop)
            if g is None:
                continue
            if scale:
                x, y, _, h = g.box
                places.append((x * scale / CARD_W, y * scale / CARD_H, h * scale / CARD_H))
            variants = [g]
            grown = _grown_glyphs(crop)
            if grown is not None and _mended(g, grown):
                variants.append(grown)
            if self.augment:
                for ang in _AUGMENT_ANGLES:
                    v = _best_glyphs(_rotate(crop, ang))
                    if v is not None:
                        variants.append(v)
                v = _best_glyphs(cv2.GaussianBlur(crop, (0, 0), 1.2))
                if v is not None:
                    variants.append(v)
                v = _best_glyphs(_coarse(crop))
                if v is not None:
                    variants.append(v)
            new.extend(Exemplar(card, v.rank, v.suit, v.index, v.layout, v.chroma,
                                self._captures, k > 0, self._photos)
                       for k, v in enumerate(variants))
        if not new:
            raise NoIndexError(f"no card index found for {card}", item)
        if card_img is not None and card not in self._seen:
            # the card's first photo's face only: a later photo's face let another
            # design's four of spades fit this deck's four of clubs (docs/camera.md §6)
            self._faces.append((card, face_vector(card_img)))
            self._pips.extend((card.suit, v) for v in enrolled_pips(card, card_img))
        self._places.extend(places)
        self._exemplars.extend(new)
        self._seen.add(card)
        return len(new)

    def build(self, thresholds: Thresholds | None = None) -> DeckProfile:
        """The (unverified) profile from everything added so far.

        Raises:
            ProfileError: some rank or suit of the deck was never shown (the message names
                the ranks, suits and cards missing).
        """
        place = None
        if self._places:
            med = np.median(np.array(self._places), axis=0)
            place = (float(med[0]), float(med[1]), float(med[2]))
        return DeckProfile.from_exemplars(self.deck_id, self._exemplars, self.shoe_roi,
                                          thresholds, self.deck, index_on_card=place,
                                          faces=self._faces, pips=self._pips,
                                          across_photos=self.mode == "shoe")


def verify(profile: DeckProfile, samples: Iterable[tuple[str, Image, Card]],
           mode: Mode = "board", *, step: Callable[..., None] | None = None,
           ) -> tuple[DeckProfile, VerificationReport]:
    """Read every ``(item, frame, card)`` back; return the profile enabled or disabled.

    The reads are made as if the profile were already enabled; the profile returned is
    verified only if every read was accepted and right. ``step(note=item)``, when given, is
    called after each read (a progress display, :mod:`tablectl.progress`).
    """
    trial = Recogniser(profile.with_verification(True, "verifying"))
    total = correct = wrong = unsure = 0
    failures: list[tuple[str, str]] = []
    held: list[Card] = []
    for item, frame, card in samples:
        total += 1
        read = _read_one(trial, frame, mode)
        if step is not None:
            step(note=f"read back {item}")
        if read.status is FaceStatus.ACCEPTED and read.card == card:
            correct += 1
            continue
        if read.status is FaceStatus.ACCEPTED:
            wrong += 1
        else:
            unsure += 1
            held.append(card)
        failures.append((item, f"{read.card} {read.status.value} {read.confidence:.2f}"))
    report = VerificationReport(total, correct, wrong, unsure, tuple(failures),
                                tuple(sorted(set(held), key=lambda c: c.index)))
    return profile.with_verification(report.enabled, report.summary(),
                                     report.held_back if report.enabled else ()), report


def _read_one(rec: Recogniser, frame: Image, mode: Mode) -> FaceRead:
    if mode == "shoe":
        return rec.read_shoe(frame)
    reads = rec.read_board(frame, whole_frame=True)
    if not reads:
        return FaceRead(None, 0.0, FaceStatus.NO_CARD)
    return max(reads, key=lambda r: (r.status is FaceStatus.ACCEPTED, r.confidence))


def load_image(path: Path) -> Image:
    """Read a colour image file.

    Raises:
        EnrolmentError: no such file, a folder, too large, or not an image
            (:func:`~tablectl.vision.frame.read_image`).
    """
    try:
        return read_image(path)
    except ImageFileError as exc:
        raise EnrolmentError(str(exc), str(path)) from None


def enrol_images(deck_id: str, paths: Sequence[Path], mode: Mode = "board",
                 labels: dict[str, Card] | None = None,
                 shoe_roi: tuple[int, int, int, int] | None = None, *,
                 deck: Sequence[Card] = FULL_DECK, step: Callable[..., None] | None = None,
                 ) -> tuple[DeckProfile, VerificationReport]:
    """Enrol a deck from labelled image files and verify it by reading each one back.

    Labels come from ``labels`` (file name -> card, e.g. from :func:`labels_from_csv`) or
    else from the file names (:func:`label_from_name`). ``step(note=...)``, when given, is
    called after each image enrolled and each read back (twice per image in all).

    A photo in which no card index is found is skipped (it is listed in the report's
    ``skipped``, and its card is not enrolled from it) rather than stopping the whole
    enrolment; the deck must still show every rank and suit.

    Raises:
        EnrolmentError: an unreadable image or a bad label.
        ProfileError: the images used do not cover every rank and suit of ``deck`` (the
            message also names the photos skipped).
    """
    enroller = Enroller(deck_id, mode, shoe_roi, deck=deck)
    samples: list[tuple[str, Image, Card]] = []
    skipped: list[tuple[str, Card]] = []
    for path in paths:
        if labels is not None:
            if path.name not in labels:
                raise EnrolmentError("no label for this file in the CSV", path.name)
            card = labels[path.name]
        else:
            card = label_from_name(path)
        img = load_image(path)
        try:
            enroller.add(img, card, path.name)
        except NoIndexError:
            skipped.append((path.name, card))
            if step is not None:  # it will not be read back
                step(note=f"{path.name}: no card index found")
        else:
            samples.append((path.name, img, card))
        if step is not None:
            step(note=path.name)
    try:
        profile = enroller.build()
    except ProfileError as exc:
        if not skipped:
            raise
        names = " ".join(f"{item} ({card})" for item, card in skipped)
        raise ProfileError(f"{exc}; no card index found in: {names}") from exc
    profile, report = verify(profile, samples, mode, step=step)
    return profile, replace(report, skipped=tuple(skipped))
