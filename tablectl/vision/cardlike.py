"""Is what a quad outlines a playing card at all? Asked of quads that are not read.

A quad the reader does not read (one running off the frame, reported ``out_of_frame``) or
that shows no index (``no_card``) is still reported: the table is told a card lies there.
Things that are not cards must never be: a leaf, a box, a plate. A card is light paper
with print on it, so the part of the quad inside the frame must be

* **paper**: at least :data:`PAPER` of it light (within :data:`LIGHT` of the frame's bright
  end) and unsaturated (HSV saturation under :data:`GREY`: paper, not a leaf or a
  cardboard box; a court card's picture is the rest);
* **printed**: at least one ink mark of a pip's or an index's size (:data:`MARK`, a share of
  the quad's area), dark against that paper (:data:`INK`), and not all of the paper ink
  (a patterned cloth).

Only OpenCV and numpy; the quad is looked at in a box around it, at most :data:`SIDE` px.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from tablectl.vision.levels import median, percentile
from tablectl.vision.model import Image, Quad

PAPER: Final = 0.35
LIGHT: Final = 0.70
GREY: Final = 70
INK: Final = 0.60
MARK: Final = (0.0008, 0.08)
"""The least and the most area of one ink mark, as shares of the quad's area in view."""
SIDE: Final = 160


def card_like(frame: Image, quad: Quad) -> bool:
    """Whether the part of ``quad`` inside ``frame`` (BGR) is light paper with print on it
    (see the module docstring)."""
    h, w = frame.shape[:2]
    pts = np.array(quad, np.float32)
    x0, y0 = (max(0, int(np.floor(v))) for v in pts.min(axis=0))
    x1, y1 = (int(np.ceil(v)) for v in pts.max(axis=0))
    x1, y1 = min(w, x1 + 1), min(h, y1 + 1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return False
    k = min(1.0, SIDE / max(x1 - x0, y1 - y0))
    box = frame[y0:y1, x0:x1]
    if k < 1.0:
        box = cv2.resize(box, (max(4, round((x1 - x0) * k)), max(4, round((y1 - y0) * k))),
                         interpolation=cv2.INTER_AREA)
    mask = np.zeros(box.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round((pts - [x0, y0]) * k).astype(np.int32), 255)
    inside = mask > 0
    n = int(inside.sum())
    if n < 16:
        return False
    if box.ndim == 2:
        grey = box
        sat = np.zeros_like(box)
    else:
        grey = cv2.cvtColor(box, cv2.COLOR_BGR2GRAY)
        sat = cv2.cvtColor(box, cv2.COLOR_BGR2HSV)[..., 1]
    sample = frame[::8, ::8] if frame.ndim == 2 else cv2.cvtColor(frame[::8, ::8],
                                                                 cv2.COLOR_BGR2GRAY)
    bright = percentile(sample, 99)
    if bright is None:
        bright = float(np.percentile(sample, 99))
    paper = inside & (grey >= LIGHT * bright) & (sat < GREY)
    if float(paper.sum()) < PAPER * n:
        return False
    level = median(grey[paper])
    ink = (inside & (grey < INK * level)).astype(np.uint8)
    if float(ink.sum()) > 0.6 * n:
        return False
    count, _, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        ink, 8, cv2.CV_32S, cv2.CCL_GRANA)  # as glyphs._pairs: the same, in less time
    lo, hi = MARK[0] * n, MARK[1] * n
    return any(lo <= int(stats[i, cv2.CC_STAT_AREA]) <= hi for i in range(1, count))
