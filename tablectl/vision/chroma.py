"""A card told from a background of its own brightness by its colour.

Held up in a room, a card often stands before a wall as bright and as pale as itself
(beige wallpaper, a white-washed wall): every brightness mask of
:mod:`tablectl.vision.locate` merges the card with the wall. Their colours still differ:
card paper is nearly grey, the wall, skin and wood are warm. The mask here is the
frame's **bright** pixels (lightness above its Otsu cut) that lie on the **grey side of
the frame's chroma cut**: the blue-yellow axis of CIE Lab (``b*``, 128 is grey) is cut
by Otsu, and of its two sides the one that holds grey is the paper's. A frame whose
``b*`` has no two sides (the cut is within :data:`SPLIT` of grey, or splits off too
little) gives no mask: brightness alone is all there is.

Computed on the unbalanced frame (white balance would make a warm wall grey and the
card blue) and at half the search size (a card's outline needs no more).
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.model import Image

GREY: Final = 128
"""``b*`` of grey in OpenCV's 8-bit Lab."""
SPLIT: Final = 4
"""A chroma cut this far or farther from grey leaves grey on one side, the paper's; a cut
nearer grey may leave paper on either side, and both are searched."""
SIDE: Final = 0.1
"""The least share of the frame on each side of the chroma cut."""
COVER: Final = 0.5
"""Where a squared piece's side lies: its cover across first reaches this share of its
typical cover (see :func:`squared`)."""
FILL: Final = 0.8
"""The least share of its rectangle a squared piece must fill."""
SMALLEST: Final = 0.002
"""Pieces of a mask under this share of the frame are not squared (no card)."""
OPEN: Final = 60
"""The masks are opened with a disc of 1/OPEN of the frame's short side: a card joined
to a pale sleeve or a highlight by a thin strip comes apart (a card is much wider)."""


def chroma_masks(small: Image) -> list[tuple[Image, Image]]:
    """The frame's bright pixels on each side of its blue-yellow cut (see the module
    docstring), each the size of ``small`` (BGR, unbalanced): ``(squared, paper)``, the
    pieces squared off (:func:`squared`) and the mask itself; none for a side that holds
    under :data:`SIDE` of the frame."""
    if small.ndim != 3:
        return []
    h, w = small.shape[:2]
    half = cv2.resize(small, (max(8, w // 2), max(8, h // 2)), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(half, cv2.COLOR_BGR2Lab)
    light, _, yb = cv2.split(lab)
    yb = cv2.GaussianBlur(yb, (3, 3), 0)
    t, warm = cv2.threshold(yb, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    _, bright = cv2.threshold(light, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    k = max(3, min(half.shape[:2]) // OPEN) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    out = []
    sides = ([cv2.bitwise_not(warm)] if t >= GREY + SPLIT else [warm] if t <= GREY - SPLIT
             else [cv2.bitwise_not(warm), warm])
    for side in sides:
        share = float(np.count_nonzero(side)) / side.size
        if not SIDE <= share <= 1.0 - SIDE:
            continue
        mask = cv2.morphologyEx(cv2.bitwise_and(side, bright), cv2.MORPH_OPEN, kernel)
        out.append((cv2.resize(squared(mask), (w, h), interpolation=cv2.INTER_NEAREST),
                    cv2.resize(mask, (w, h), interpolation=cv2.INTER_NEAREST)))
    return out


def squared(mask: Image) -> Image:
    """Each piece of ``mask`` (its holes filled: pips, an index) replaced by the rectangle
    that its row and column profiles give: a side lies where the piece's cover across it
    first reaches :data:`COVER` of its typical cover. Fingers round a card's edge and a
    thumb over it stick out of, or bite into, only a short stretch of a side: the
    rectangle keeps to the card. The rectangle is taken along the piece's main axes or
    along its least enclosing rectangle's, whichever it fits better (fingers along one
    side turn the main axes). Pieces under :data:`SMALLEST` of the frame, or filling
    under :data:`FILL` of their rectangle, are dropped."""
    out = np.zeros_like(mask)
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    least = SMALLEST * mask.shape[0] * mask.shape[1]
    for c in cnts:
        if cv2.contourArea(c) < least:
            continue
        x, y, w, h = cv2.boundingRect(c)
        blob = np.zeros((h, w), np.uint8)
        cv2.drawContours(blob, [c - np.array([x, y])], -1, 1, -1)
        ys, xs = np.nonzero(blob)
        pts = np.stack([xs, ys], axis=1).astype(np.float32)
        centre = pts.mean(axis=0)
        d = pts - centre
        _, vecs = np.linalg.eigh(d.T @ d / len(d))
        angle = np.deg2rad(cv2.minAreaRect(c)[2])
        box_axes = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
        best = max((_profile_rect(d, axes) for axes in (vecs.T, box_axes)),
                   key=lambda t: t[0])
        _, fill, corners = best
        if fill < FILL:
            continue  # not a rectangle with bits round it: no card
        quad = np.round(corners + centre + np.array([x, y])).astype(np.int32)
        cv2.fillConvexPoly(out, quad, 255)
    return out


def _profile_rect(d: npt.NDArray[np.float32], axes: npt.NDArray[np.float64],
                  ) -> tuple[float, float, npt.NDArray[np.float64]]:
    """The rectangle along ``axes`` (rows: two unit directions) that the profiles of the
    points ``d`` (centred) give: its IoU with the points, the share of it they fill, and
    its corners (centred)."""
    proj = d @ axes.T
    lo_hi = []
    for k in range(2):
        p = proj[:, k]
        base = float(p.min())
        hist = np.bincount(np.round(p - base).astype(np.int64))
        typical = float(np.percentile(hist[hist > 0], 90))
        keep = np.flatnonzero(hist >= COVER * typical)
        lo_hi.append((base + float(keep[0]) - 0.5, base + float(keep[-1]) + 0.5))
    (u0, u1), (v0, v1) = lo_hi
    area = (u1 - u0) * (v1 - v0)
    corners = np.array([a * axes[0] + b * axes[1]
                        for a, b in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))])
    if area <= 0:
        return 0.0, 0.0, corners
    inside = float(np.count_nonzero((proj[:, 0] >= u0) & (proj[:, 0] <= u1)
                                    & (proj[:, 1] >= v0) & (proj[:, 1] <= v1)))
    return inside / (len(d) + area - inside), inside / area, corners
