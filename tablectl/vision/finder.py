"""The one finder of a single-card photo's card, shared by enrolment and recognition.

Enrolment and ``camera recognise`` must find the card of a photo the same way, or enrolment
refuses ("no card index found") a photo that recognition reads with the finished profile.
Enrolment walks :func:`card_views` in this order and takes the first view whose corners show
an index; recognition (:meth:`~tablectl.vision.recognise.Recogniser.inspect_board` with
``whole_frame``) reads the same views, every found card and its grown quads, so no view
recognition could read is one enrolment never looks at:

1. the photo itself, where it is the card's own crop or scan
   (:func:`~tablectl.vision.recognise.is_card_crop`);
2. every card found wholly inside the photo (:func:`~tablectl.vision.locate.locate_cards`),
   the largest first; then each so near a square that which way up it lies is a guess, a
   quarter turn on (:func:`~tablectl.vision.grow.turned`: a card foreshortened by a low
   camera); and, for one squarer than a card (part of a card hidden by a cable or a
   shadow), its grown quads (:func:`~tablectl.vision.grow.grown_quads`);
3. every card the colour masks find that is not among those
   (:func:`~tablectl.vision.chroma.colour_cards`: a card held before a wall of its own
   brightness), the largest first; recognition reads these where it accepts no card of
   step 2;
4. the photo as one tightly cropped card.

Views are warped lazily: a caller that stops early pays for nothing more.
"""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np

from tablectl.vision.cardview import is_card_crop, warp_card, whole_frame_quad
from tablectl.vision.chroma import colour_cards
from tablectl.vision.grow import grown_quads, partial, squarish, turned
from tablectl.vision.locate import locate_cards
from tablectl.vision.model import Image, Quad


def _area(q: Quad) -> float:
    return float(cv2.contourArea(np.array(q, np.float32)))


def card_quads(frame: Image) -> Iterator[tuple[str, Quad]]:
    """The quads :func:`card_views` warps, with what each is: ``"crop"``, ``"found"``,
    ``"turned"``, ``"grown"``, ``"colour"`` or ``"whole"`` (see the module docstring)."""
    found = sorted((f.quad for f in locate_cards(frame) if not f.cut), key=_area,
                   reverse=True)
    whole = whole_frame_quad(frame)
    if is_card_crop(frame, found):
        yield "crop", whole
    for q in found:
        yield "found", q
    for q in found:
        if squarish(q):
            yield "turned", turned(q)
    for q in found:
        if partial(q):
            for g in grown_quads(q, frame):
                yield "grown", g
    for q in sorted((f.quad for f in colour_cards(frame, found)), key=_area, reverse=True):
        yield "colour", q
    yield "whole", whole


def card_views(frame: Image) -> Iterator[tuple[str, Quad, Image]]:
    """``(kind, quad, warped canonical card)`` for each quad of :func:`card_quads`."""
    for kind, q in card_quads(frame):
        yield kind, q, warp_card(frame, q)
