"""How the outlines found in a frame relate to the cards read in it: a found outline that is
part of a card accepted in the same frame (a court card's picture frame, a block of pips),
and a found outline against the card placed from its index corner (the same card, a piece
of it, or several cards seen as one). Used by :class:`~tablectl.vision.recognise.Recogniser`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import cv2
import numpy as np

from tablectl.vision.locate import box_iou, quad_box
from tablectl.vision.model import Quad

FITS: Final = (0.65, 1.2)
"""A found outline is taken for the card placed from its index alone when their boxes
overlap this much (IoU) and the outline is at most this much bigger."""

PART_OF: Final = 0.8
"""A quad lying this much inside a card accepted in the same frame is part of that card."""

PART_OF_CARD: Final = 0.5
"""An outline not accepted that lies this much inside a card accepted in the same frame is
taken for part of it: it is not read a quarter turn on nor grown
(:meth:`~tablectl.vision.recognise.Recogniser._read_found`)."""


def parts_of(found: Sequence[Quad], accepted: Sequence[bool]) -> list[bool]:
    """For each of ``found``, whether it is not accepted and lies inside a card accepted in
    the same frame (``accepted`` says which are): a court card's picture frame, its block
    of pips (:func:`~tablectl.vision.locate.locate_cards` keeps such a quad beside the
    card, since either may be the one that reads)."""
    cards = [q for q, a in zip(found, accepted, strict=True) if a]
    return [bool(cards) and not a and part_of_any(q, cards)
            for q, a in zip(found, accepted, strict=True)]


def part_of_any(q: Quad, cards: Sequence[Quad], share: float = PART_OF) -> bool:
    """Whether ``q`` lies at least ``share`` inside one of ``cards`` (the cards accepted in
    its frame)."""
    inner = np.array(q, np.float32).reshape(-1, 1, 2)
    area = float(cv2.contourArea(inner))
    return area > 0 and any(
        cv2.intersectConvexConvex(np.array(c, np.float32).reshape(-1, 1, 2), inner)[0]
        >= share * area for c in cards)


COVERED: Final = 0.3
"""A card placed from its index whose quad lies this much under cards accepted in the same
frame shows too little of its face to be judged on it: its index-only gate decides."""


def covered(q: Quad, cards: Sequence[Quad]) -> float:
    """The share of ``q``'s area that lies under ``cards`` (the cards accepted in its
    frame; where they overlap each other the share is overcounted, at most 1)."""
    inner = np.array(q, np.float32).reshape(-1, 1, 2)
    area = float(cv2.contourArea(inner))
    if area <= 0:
        return 0.0
    under = sum(float(cv2.intersectConvexConvex(
        np.array(c, np.float32).reshape(-1, 1, 2), inner)[0]) for c in cards)
    return min(1.0, under / area)


def within(outline: Quad, estimate: Quad) -> bool:
    """A found outline is part of the card placed from its index: it lies almost wholly
    inside it."""
    a = np.array(outline, np.float32).reshape(-1, 1, 2)
    b = np.array(estimate, np.float32).reshape(-1, 1, 2)
    inter, _ = cv2.intersectConvexConvex(a, b)
    return float(inter) >= 0.85 * quad_area(outline)


def fits(outline: Quad, estimate: Quad) -> bool:
    """A found outline is the card whose outline was estimated from its index: they
    overlap, and the outline is not much bigger (several cards seen as one)."""
    return (box_iou(quad_box(outline), quad_box(estimate)) >= FITS[0]
            and quad_area(outline) <= FITS[1] * quad_area(estimate))


def quad_area(q: Quad) -> float:
    """The area of ``q`` (px²)."""
    return float(cv2.contourArea(np.array(q, np.float32)))


def long_side(q: Quad) -> float:
    """The mean length of a quad's two longer opposite sides (a card's length)."""
    p = np.array(q, np.float64)
    sides = np.hypot(*(np.roll(p, -1, axis=0) - p).T)
    return float(max(sides[0] + sides[2], sides[1] + sides[3]) / 2)
