"""A card seen as a canonical picture: found whole, warped upright, its index corners cut.

The reader compares every card at one size (``CARD_W`` x ``CARD_H`` pixels, portrait) and
looks for its index in a corner crop of that picture; a photo that is the card itself (a
tight crop or scan) is the card's picture as it stands. Enrolment, the reader and the finder
all take these from here, so they see a card the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import cv2
import numpy as np

from tablectl.vision.locate import locate_cards, order_quad
from tablectl.vision.model import Image, Quad
from tablectl.vision.outline import quad_area

CARD_W: Final = 200
CARD_H: Final = 280
CORNER: Final = (0.30, 0.36)
"""Index corner crop as fractions of the canonical card's width and height."""
CORNER_WIDE: Final = (0.42, 0.50)
"""The corner crop tried when the usual one shows no index (jumbo-index decks)."""

def find_cards(frame: Image, min_width: float = 40.0) -> list[Quad]:
    """The quads of the cards wholly inside a BGR frame (see :func:`locate_cards`)."""
    return [f.quad for f in locate_cards(frame, min_width) if not f.cut]


CROP_BORDER: Final = 0.03
"""The border ring, as a share of the frame's short side, that :func:`is_card_crop` looks at."""
CROP_LARGEST: Final = 0.5
"""A frame whose largest card found covers less than this share of it may be a crop."""


def is_card_crop(frame: Image, quads: Sequence[Quad]) -> bool:
    """Whether a single-card photo is the card itself (a tight crop or scan): paper all round
    its border (the ring's median grey at least 90% of the frame's brightest, its 99th
    percentile) and no
    card found covering half of it (what was found is part of the card: a court picture's
    frame, an index box). Enrolment and recognition both ask this, so they find the card of
    such a photo the same way."""
    h, w = frame.shape[:2]
    area = float(h * w)
    if any(quad_area(q) >= CROP_LARGEST * area for q in quads):
        return False
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    b = max(2, round(CROP_BORDER * min(h, w)))
    ring = np.concatenate([grey[:b].ravel(), grey[-b:].ravel(), grey[:, :b].ravel(),
                           grey[:, -b:].ravel()])
    return float(np.median(ring)) >= 0.9 * float(np.percentile(grey[::4, ::4], 99))


def whole_frame_quad(frame: Image) -> Quad:
    """The frame itself as a card: a tightly cropped card photo or scan, with no background
    to find the card against (a square crop is a card stretched to a square)."""
    h, w = frame.shape[:2]
    pts = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    return order_quad(pts)


def warp_source(frame: Image) -> Image:
    """A BGR ``frame`` made ready for many :func:`warp_card` calls: with a fourth channel.
    OpenCV's bilinear warp of a four-channel image takes about half the time of a
    three-channel one (its vector code works on four channels; measured with the OpenCV 5.0
    wheel, one thread: 0.24 against 0.48 ms a 200x280 card), and its first three channels
    are the three-channel warp's bit for bit; the conversion costs about 0.2 ms a 1280x720
    frame, paid back from the first card."""
    out: Image = cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)
    return out


def warp_card(frame: Image, quad: Quad) -> Image:
    """The card under ``quad`` warped to a canonical ``CARD_W`` x ``CARD_H`` portrait;
    ``frame`` is BGR, or its :func:`warp_source` (the card is BGR either way)."""
    src = np.array(quad, np.float32)
    dst = np.array([[0, 0], [CARD_W - 1, 0], [CARD_W - 1, CARD_H - 1], [0, CARD_H - 1]],
                   np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    card: Image = cv2.warpPerspective(frame, m, (CARD_W, CARD_H), flags=cv2.INTER_LINEAR)
    if card.ndim == 3 and card.shape[2] == 4:
        return np.asarray(cv2.cvtColor(card, cv2.COLOR_BGRA2BGR))
    return card


def corner_crops(card: Image, corner: tuple[float, float] = CORNER) -> tuple[Image, Image]:
    """The top-left index crop and the bottom-right one turned upright (180 deg);
    ``corner`` is the crop's size as fractions of the card's width and height."""
    return corner_crop(card, corner), corner_crop(card, corner, turned=True)


def corner_crop(card: Image, corner: tuple[float, float] = CORNER, *,
                turned: bool = False) -> Image:
    """One of :func:`corner_crops`: the top-left, or with ``turned`` the bottom-right
    turned upright (the reader turns that one only where the top-left does not settle
    the card)."""
    cw, ch = round(CARD_W * corner[0]), round(CARD_H * corner[1])
    if not turned:
        return card[:ch, :cw]
    br: Image = cv2.flip(card[CARD_H - ch:, CARD_W - cw:], -1)  # the same bytes, a new array
    return br
