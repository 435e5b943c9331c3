"""Splitting one outline around several overlapping cards along the top card's edge.

Cards laid partly over each other (a fanned hand, a board pushed together) often give one
paper outline around all of them: the finder (:mod:`tablectl.vision.locate`) fits one quad
to it, and that quad is read at one card's corner. But the edge of a card lying over
another is a straight step edge that crosses the outline from one side to the opposite
side, all along, roughly parallel to the other two sides. A line counts as such a cut when
it ends at least :data:`MARGIN` of a side away from the corners (not the outline itself),
lies within 20 degrees of the sides it does not cross, and at :data:`COVER` of the points
along it the gradient points across it (a court picture's or a carpet's edges point every
way). A court card's frame line can pass that test too, so the finder asks for a cut only
on a quad not shaped like one card (see ``CARD_SHAPE`` there).
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.model import Image

Pts = npt.NDArray[np.float64]
COVER: Final = 0.9
"""Share of a cut's chord (from one side of the quad to the other) that must be edge."""
_SAMPLES: Final = 60
_COS20: Final = 0.94
_ACROSS: Final = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
MARGIN: Final = 0.15
"""A cut ends at least this share of a side's length away from the side's corners."""


def _chord(poly: Pts, p: Pts, d: Pts) -> tuple[Pts, Pts, int, int] | None:
    """Where the line through ``p`` along ``d`` enters and leaves the convex polygon, and
    which sides it crosses."""
    hits = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        e = b - a
        den = d[0] * e[1] - d[1] * e[0]
        if abs(den) < 1e-9:
            continue
        w = a - p
        t = (w[0] * e[1] - w[1] * e[0]) / den
        u = (w[0] * d[1] - w[1] * d[0]) / den
        if -1e-6 <= u <= 1 + 1e-6:
            hits.append((t, i))
    if len(hits) < 2:
        return None
    hits.sort()
    (t0, i0), (t1, i1) = hits[0], hits[-1]
    if i0 == i1:
        return None
    return p + d * t0, p + d * t1, i0, i1


def coverage(gx: Image, gy: Image, a: Pts, b: Pts, low: float) -> float:
    """Share of the points from ``a`` to ``b`` (ends trimmed) on a step across the line:
    within 2 px of each, a gradient of at least ``low`` pointing across it (a texture's
    or a picture's edges point every way)."""
    d = (b - a) / max(float(np.hypot(*(b - a))), 1e-9)
    nrm = np.array([-d[1], d[0]])
    t = np.linspace(0.04, 0.96, _SAMPLES)
    base = a[None, :] + (b - a)[None, :] * t[:, None]
    h, w = gx.shape[:2]
    # the five lines at -2..2 px at once: each point's arithmetic as done line by line
    ij = np.round(base[None, :, :] + (nrm[None, :] * _ACROSS[:, None])[:, None, :]
                  ).astype(np.int64)
    xs = np.clip(ij[:, :, 0], 0, w - 1)
    ys = np.clip(ij[:, :, 1], 0, h - 1)
    vx = gx[ys, xs].astype(np.float64)
    vy = gy[ys, xs].astype(np.float64)
    across = np.abs(vx * nrm[0] + vy * nrm[1])
    hit = ((across >= low) & (across >= 0.85 * np.hypot(vx, vy))).any(axis=0)
    return float(np.count_nonzero(hit)) / _SAMPLES


def best_cut(grey: Image, edges: Image, quad: Pts, low: float,
             ) -> tuple[float, Pts, Pts, int, int] | None:
    """The straight line inside ``quad`` (a convex 4-gon, small-frame px) running most
    completely along a step edge of ``grey`` (``edges``: its dilated edge map; ``low``:
    the least gradient that counts) from one side to the opposite one, within 20 degrees
    of the sides it does not cross: ``(coverage, start, end, side_in, side_out)``."""
    x, y, w, h = cv2.boundingRect(np.round(quad).astype(np.int32))
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, edges.shape[1]), min(y + h, edges.shape[0])
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    patch = grey[y0:y1, x0:x1]
    gx = cv2.Sobel(patch, cv2.CV_16S, 1, 0)
    gy = cv2.Sobel(patch, cv2.CV_16S, 0, 1)
    local = quad - np.array([x0, y0], np.float64)
    centre = local.mean(axis=0)
    inner = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(inner, np.round(centre + (local - centre) * 0.9).astype(np.int32), 255)
    roi = cv2.bitwise_and(edges[y0:y1, x0:x1], inner)
    sides = [float(np.hypot(*(local[(i + 1) % 4] - local[i]))) for i in range(4)]
    short = min(sides)
    lines = cv2.HoughLinesP(roi, 1, np.pi / 180, threshold=max(10, round(0.3 * short)),
                            minLineLength=0.4 * short, maxLineGap=max(3.0, 0.05 * short))
    if lines is None:
        return None
    best: tuple[float, Pts, Pts, int, int] | None = None
    for x_a, y_a, x_b, y_b in lines.reshape(-1, 4)[:40]:
        p = np.array([x_a, y_a], np.float64)
        d = np.array([x_b - x_a, y_b - y_a], np.float64)
        n = float(np.hypot(*d))
        if n < 1:
            continue
        ch = _chord(local, p, d / n)
        if ch is None:
            continue
        a, b, i0, i1 = ch
        if (i1 - i0) % 4 != 2:
            continue  # a cut runs from one side to the opposite one
        f0 = _along_side(local, i0, a)
        f1 = _along_side(local, i1, b)
        if min(f0, 1 - f0, f1, 1 - f1) < MARGIN:
            continue  # along the outline itself (a quad a little off its card)
        u = d / n
        if min(_cos(u, local[(i0 + 1) % 4] - local[(i0 + 2) % 4]),
               _cos(u, local[(i0 + 3) % 4] - local[i0])) < _COS20:
            continue
        cov = coverage(gx, gy, a, b, low)
        if best is None or cov > best[0]:
            off = np.array([x0, y0], np.float64)
            best = (cov, a + off, b + off, i0, i1)
    return best


def _along_side(poly: Pts, i: int, p: Pts) -> float:
    """Where ``p`` lies along side ``i`` of ``poly`` (0 at its start, 1 at its end)."""
    a, b = poly[i], poly[(i + 1) % len(poly)]
    e = b - a
    return float(np.dot(p - a, e) / max(float(np.dot(e, e)), 1e-9))


def _cos(u: Pts, v: Pts) -> float:
    """|cos| of the angle between two directions."""
    return abs(float(np.dot(u, v))) / max(float(np.hypot(*u) * np.hypot(*v)), 1e-9)
