"""The reader's full verdict on one index crop (:class:`IndexRead`), kept apart from the
reader itself (:mod:`tablectl.vision.recognise`) so that module stays one job: finding and
reading cards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tablectl.domain.cards import Card
from tablectl.vision.evidence import INDEX_ONLY_GLYPHS
from tablectl.vision.model import FaceStatus, Thresholds

CORNER_LAYOUT: Final = 0.8
"""A card found by its index alone must match its enrolled index layout more closely than
the gate asks (this share of ``Thresholds.layout``): the search tries many places in a
frame, so a look-alike of another deck gets many chances to pass."""
CORNER_INDEX: Final = 0.01
"""Likewise, how much more closely its whole index must match (added to
``Thresholds.index``)."""


@dataclass(frozen=True, slots=True)
class IndexRead:
    """The classifier's full verdict on one index crop (for tuning and the verifier).

    ``card`` is the best guess (``None`` when nothing index-like was found); the scores are
    correlations; ``layout`` is a distance (lower is better).
    """

    card: Card | None
    status: FaceStatus
    confidence: float
    rank_score: float = 0.0
    suit_score: float = 0.0
    rank_margin: float = 0.0
    suit_margin: float = 0.0
    index_score: float = 0.0
    layout: float = 9.0
    colour_ok: bool = True
    deck_match: bool | None = None
    """Whether the index's print (whole-index correlation and layout) matches this deck's
    enrolment; ``None`` when the glyphs were too unsure to tell."""
    separation: float = 0.0
    """The weaker of the rank and suit separations (see
    :class:`~tablectl.vision.model.Thresholds`)."""
    box: tuple[int, int, int, int] | None = None
    """Where the index lies in the crop it was read from (``x, y, w, h``, crop px scaled
    to the reader's canonical crop height)."""
    axis: tuple[float, float, float, float] | None = None
    """The rank's and the suit's centres in the same crop px ``(rx, ry, sx, sy)``."""
    tilt: float = 0.0
    """How far the card's axes are turned from the crop's, in radians (positive: the
    card's "down" leans towards the crop's right), judged from where the suit sits under
    the rank compared with the enrolled layout."""
    face: float | None = None
    """The face's margin (:class:`~tablectl.vision.face.FaceVerdict`): how much better the
    face fits the card read than any card of another rank; ``None``: no face compared."""
    evidence: str = ""
    """What an accepted read rests on: ``"index+face"``, ``"index+pips"`` (a blurred
    number card's pips, :mod:`tablectl.vision.evidence`), ``"index"`` (the card's
    index-only gate) or ``""`` (a profile without faces and gates: the index alone)."""
    face_only: bool = False
    """The index's print comes near this deck's but short of its gate
    (:data:`~tablectl.vision.classify.PRINT_SLACK`): accepted only if the face agrees,
    never on the index alone."""
    pips: bool = False
    """The index's glyphs name this card but its print is not this deck's at all, or its
    glyphs are short of the gate (a blurred photo): accepted only if the card's pips
    (:mod:`tablectl.vision.pips`) read as its rank and suit and its face fits it."""


_PRIORITY: Final = {FaceStatus.ACCEPTED: 3, FaceStatus.NEEDS_CONFIRMATION: 2,
                    FaceStatus.NO_CARD: 1, FaceStatus.OUT_OF_FRAME: 0}


def read_rank(r: IndexRead) -> tuple[int, bool, bool, float]:
    """How good a read is, to choose among reads of one card: its status first, then a
    print within the deck's gate over one that needs the face, and one near it over one
    that needs the pips, then its confidence."""
    return _PRIORITY[r.status], not r.face_only, not r.pips, r.confidence


def better(a: IndexRead, b: IndexRead) -> bool:
    """Whether read ``a`` is better than ``b`` (:func:`read_rank`)."""
    return read_rank(a) > read_rank(b)


def corner_grade(r: IndexRead, t: Thresholds) -> int:
    """How a corner-search read may be accepted, at a deck's thresholds ``t``: 2 on its
    index (the full gate with the stricter deck check :data:`CORNER_LAYOUT` and
    :data:`CORNER_INDEX`), 1 only if the face of the card placed from it agrees (the
    ordinary deck check, and a suit glyph of
    :data:`~tablectl.vision.evidence.INDEX_ONLY_GLYPHS`: the face is the second,
    independent check, which a look-alike gets no second chance at), 0 not at all. A
    print short of the deck's gate (``face_only``) gets 0 here: the corner search
    gives a look-alike many chances, and one such read, a blurred four of spades read
    as the club with its face agreeing on a four, was accepted wrong on
    ``handheld_low``."""
    if r.status is not FaceStatus.ACCEPTED or r.box is None or r.face_only:
        return 0
    if r.layout <= CORNER_LAYOUT * t.layout and r.index_score >= t.index + CORNER_INDEX:
        return 2
    # the face compares ranks and tells suits apart only coarsely: the suit glyph must
    # stand on its own, as on an index-only read
    return 1 if r.suit_score >= INDEX_ONLY_GLYPHS else 0
