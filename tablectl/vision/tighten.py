"""A found quad that took in more than its card: the card inside it.

The outline finder (:mod:`tablectl.vision.locate`) sometimes returns the card together with
a pale stretch of table that merges with it at the detection scale, or one card small
inside a larger pale area: the quad is then the wrong shape for the card, its warp puts
the indices on blank paper, and a card wholly inside the frame may even be reported running
out of it. Both readings of the card, its index and its face
(:mod:`tablectl.vision.face`), are only as good as the quad under them.

Inside such a quad the card is the brightest paper: Otsu's cut of the grey values within the
quad, the largest bright piece (its holes, the pips and index, filled), and its minimum
area rectangle. It replaces the quad only if it is clearly a card of its own: a card's
shape (long/short :data:`ASPECT`), a rectangle it fills (:data:`FILL`), a good deal smaller
than the quad (:data:`SMALLER`) but not a speck, and clearly brighter than the rest of the
quad (:data:`CONTRAST` grey levels). A quad that is already the card finds its own paper
filling almost all of it, and stays.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.model import Image, Quad

ASPECT: Final = (1.3, 1.65)
FILL: Final = 0.80
SMALLER: Final = (0.1, 0.8)
"""The card found inside must cover between these shares of the quad's area."""
CONTRAST: Final = 25.0


def tightened(frame: Image, quad: Quad) -> npt.NDArray[np.float32] | None:
    """The four corners (unordered, frame pixels) of the card inside ``quad`` where the
    quad took in more than the card (see the module docstring), else ``None``."""
    pts = np.array(quad, np.float32)
    h, w = frame.shape[:2]
    x0, y0, bw, bh = cv2.boundingRect(pts)
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(w, x0 + bw), min(h, y0 + bh)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    roi = frame[y0:y1, x0:x1]
    grey = roi if roi.ndim == 2 else cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY)
    inside = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(pts - (x0, y0)).astype(np.int32), 255)
    vals = grey[inside > 0]
    if vals.size < 64:
        return None
    cut, _ = cv2.threshold(vals.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    upper = vals[vals > cut]
    cuts = [cut]
    if upper.size >= 64:  # the card may be the brighter part of a pale area: cut again
        cuts.append(cv2.threshold(upper.reshape(-1, 1), 0, 255,
                                  cv2.THRESH_BINARY | cv2.THRESH_OTSU)[0])
    short = min(cv2.minAreaRect(pts)[1])
    k = max(3, round(short / 30))
    for level in cuts:
        box = _card_in(grey, inside, level, k, float(cv2.contourArea(pts)))
        if box is not None:
            return box + np.array([x0, y0], np.float32)
    return None


def _card_in(grey: Image, inside: Image, level: float, k: int,
             quad_area: float) -> npt.NDArray[np.float32] | None:
    """The card cut out at grey ``level`` (opened by a ``k`` px square, so a thin bridge of
    pale table does not join it), if it is one (see the module docstring)."""
    raw = ((grey > level) & (inside > 0)).astype(np.uint8) * 255
    bright = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    cnt = max(contours, key=cv2.contourArea)
    area = float(cv2.contourArea(cnt))
    if quad_area <= 0 or not SMALLER[0] * quad_area <= area <= SMALLER[1] * quad_area:
        return None
    rect = cv2.minAreaRect(cnt)
    rw, rh = rect[1]
    if min(rw, rh) < 8 or area < FILL * rw * rh:
        return None
    if not ASPECT[0] <= max(rw, rh) / min(rw, rh) <= ASPECT[1]:
        return None
    card = np.zeros(inside.shape, np.uint8)
    cv2.drawContours(card, [cnt], -1, 255, -1)
    rest = (inside > 0) & (card == 0)
    if not rest.any() or float(grey[card > 0].mean()) - float(grey[rest].mean()) < CONTRAST:
        return None
    box: npt.NDArray[np.float32] = cv2.boxPoints(rect).astype(np.float32)
    return box
