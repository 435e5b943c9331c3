"""A found quad a few pixels off its card, each side moved onto the card's own edge.

The outline finder (:mod:`tablectl.vision.locate`) fits a quad to a mask made at its own
scale and cut; on a small card seen at a slant (a webcam over a table) that quad may lie
a few pixels off the card along a side, or be a rectangle where the card is a sheared
parallelogram. A 10-15 px index in the card's corner then falls half outside the warped
corner crop, and the card is read as another, or not at all.

Along each side, at :data:`SAMPLES` points, the grey profile across the side (within
:data:`REACH` of the card's long side, either way) is searched for the strongest fall from
paper inside to table outside over :data:`STEP` px; a side where at least a third of the
points fall by :data:`DROP` grey levels or more is refitted through them (Huber's robust
line fit), else it stays where it was (a side under another card, white on white). The
refitted sides' crossings are the new corners. The result is only a hypothesis: the
reader keeps it only where its read is better than the found quad's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.indexread import IndexRead
from tablectl.vision.model import FaceStatus, Image, Quad

REACH: Final = 0.12
"""How far a side may move, either way: this share of the quad's longest side."""
SAMPLES: Final = 20
"""Points sampled along each side (its middle 76%, clear of the rounded corners)."""
STEP: Final = 2.0
"""Distance (px) over which the fall from paper to table is measured."""
DROP: Final = 20.0
"""Smallest fall (grey levels over :data:`STEP`) that counts as the card's edge."""
SNAPPED_EVIDENCE: Final = frozenset({"index+face", "index+pips"})
"""What a snapped quad's read may rest on to replace the quad's own: a second look at the
same card gives a look-alike a second chance, so a second kind of evidence must agree as
well (on its index alone, a club jack of a deck enrolled without it was accepted as the
spade, snapped): its face, or a blurred number card's pips read as the card with its
face fitting it (:meth:`~tablectl.vision.evidence.Evidence.judge`). Hand-held photos
refused on their found quad were read right on the snapped one on their pips, and were
dropped for that alone (docs/camera.md §6)."""
_RES: Final = 0.5
"""Profile sampling (px)."""
_AREA: Final = (0.7, 1.4)
"""A snapped quad whose area is not within these shares of the found quad's is dropped."""


Line = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]
"""A point and a unit direction."""


def edge_grey(frame: Image) -> npt.NDArray[np.float32]:
    """The grey frame, blurred, in which :func:`snapped` looks for a card's edges (the
    same for every quad of the frame)."""
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    out: npt.NDArray[np.float32] = cv2.GaussianBlur(grey, (3, 3), 0).astype(np.float32)
    return out


def snapped(frame: Image, quad: Quad, grey: Image | None = None) -> Quad | None:
    """``quad`` (clockwise, corner order kept) with each side moved onto the card's edge
    where one is seen (see the module docstring); ``None`` where no side moved by a pixel,
    or the result is not a plausible quad of the same card (a corner moved more than twice
    :data:`REACH`, not convex, or an area off by :data:`_AREA`). ``grey``: the frame's
    :func:`edge_grey`, where made already."""
    pts = np.array(quad, np.float64)
    if grey is None:
        grey = edge_grey(frame)
    mid = pts.mean(axis=0)
    longest = max(float(np.hypot(*(pts[(i + 1) % 4] - pts[i]))) for i in range(4))
    reach = max(3.0, REACH * longest)
    lines = [_edge(grey, pts[i], pts[(i + 1) % 4], mid, reach) for i in range(4)]
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        a = np.array([d1, -d2]).T
        if abs(float(np.linalg.det(a))) < 1e-6:
            return None
        t = np.linalg.solve(a, p2 - p1)
        out.append(p1 + t[0] * d1)
    new = np.array(out)
    moved = float(np.abs(new - pts).max())
    if moved < 1.0 or moved > 2 * reach:
        return None
    c = new.astype(np.float32)
    area, was = abs(cv2.contourArea(c)), abs(cv2.contourArea(pts.astype(np.float32)))
    if not cv2.isContourConvex(c) or not _AREA[0] * was <= area <= _AREA[1] * was:
        return None
    return tuple((float(x), float(y)) for x, y in new)  # type: ignore[return-value]


def _edge(grey: Image, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64],
          mid: npt.NDArray[np.float64], reach: float) -> Line:
    """The card's edge near the side ``a``-``b`` (``mid``: a point inside the quad), or
    the side itself where too few of its points see one."""
    length = float(np.hypot(*(b - a)))
    d = (b - a) / max(length, 1e-9)
    n = np.array([d[1], -d[0]])
    if float(np.dot(n, (a + b) / 2 - mid)) < 0:
        n = -n  # outward
    offs = np.arange(-reach, reach + 1e-6, _RES)
    base = a[None, :] + np.linspace(0.12, 0.88, SAMPLES)[:, None] * (b - a)[None, :]
    xy = base[:, None, :] + offs[None, :, None] * n[None, None, :]
    prof = cv2.remap(grey, xy[..., 0].astype(np.float32), xy[..., 1].astype(np.float32),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    k = max(1, round(STEP / _RES / 2))
    fall = prof[:, :-2 * k] - prof[:, 2 * k:]   # inside minus outside
    j = fall.argmax(axis=1)
    strong = fall[np.arange(SAMPLES), j] >= DROP
    if int(strong.sum()) < SAMPLES // 3:
        return a, d
    on = base[strong] + offs[j[strong] + k][:, None] * n[None, :]
    vx, vy, x0, y0 = cv2.fitLine(on.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)


def read_snapped(frame: Image, quad: Quad, read: Callable[[Quad], IndexRead],
                 first: IndexRead | None = None,
                 grey: Callable[[Image], Image] = edge_grey) -> tuple[Quad, IndexRead]:
    """``quad`` and its read (``first``, where made already, else ``read(quad)``); where
    that is not accepted, its :func:`snapped` quad and read instead if that one is
    accepted on a second kind of evidence (:data:`SNAPPED_EVIDENCE`). ``grey`` gives the
    frame's :func:`edge_grey` (a caller snapping many quads of one frame makes it once)."""
    r = read(quad) if first is None else first
    if r.status is FaceStatus.ACCEPTED:
        return quad, r
    s = snapped(frame, quad, grey(frame))
    if s is None:
        return quad, r
    rs = read(s)
    sure = rs.status is FaceStatus.ACCEPTED and rs.evidence in SNAPPED_EVIDENCE
    return (s, rs) if sure else (quad, r)
