"""Finding cards in a real frame: candidate quadrilaterals from several binarisations.

A real frame (phone photo, webcam) is not the renderer's dark felt: wood, carpet, cloth and
newspaper; cards touching or overlapping; glare, shadows and colour casts. No single
threshold finds every card, so candidates come from several masks and the best-fitting,
non-overlapping quads are kept:

1. The frame is shrunk to at most :data:`DETECT_MAX` px and white-balanced (each channel
   scaled so its bright end is the same), so a colour cast does not turn paper into colour.
2. Masks: Otsu on the *whiteness* (darkest channel minus part of the saturation: card paper
   is bright and grey, wood and carpet are not), the same cut along Canny edges (so cards
   that touch or overlap become separate pieces), a local threshold (paper brighter than
   its surroundings; survives vignettes and uneven light), and the filled edge map.
3. Each outer contour is fitted with a 4-gon (convex hull, polygon approximation, else the
   minimum-area rectangle). It is a candidate if its short side is at least ``min_width``,
   its aspect is a card's seen under up to about 30 deg of tilt (1.15..2.0), it fills the
   quad (a merged pair of cards does not) and its inside is paper.
4. Candidates are scored by how well the contour fills the quad; overlapping candidates
   (IoU of their boxes above 0.5) keep the best; a quad that contains two others lying
   apart is two touching cards and is dropped, a quad inside another that runs along its
   outline is a part of it, and of other nested quads the better outlined one stays.
5. A kept quad not shaped like one card (long/short outside :data:`CARD_SHAPE`) is cut
   along a straight step edge running all across it, the edge of a card lying over another
   (:mod:`tablectl.vision.split`): one outline around overlapping cards becomes what shows
   of each.
6. Where no whole card was found, the two brightness-level masks are searched again closed
   over small gaps (:func:`_bridged`): a lone card crossed by a cable, or whose margin
   merges with the light stripes of a rug, is one piece there.

A card whose quad runs into the frame's edge is **cut**: it is reported, but not read.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.background import off_background
from tablectl.vision.levels import channel_percentiles, median, percentile
from tablectl.vision.model import Image, Quad
from tablectl.vision.split import COVER, best_cut
from tablectl.vision.tighten import tightened

Box = tuple[float, float, float, float]
DETECT_MAX: Final = 640
"""Frames are searched at most this large (longest side, px); quads come back in frame px."""
ASPECT: Final = (1.0, 2.1)
"""Long/short side ratio accepted for a card quad (a card is 1.4; tilt changes it)."""
CARD_SHAPE: Final = (1.25, 1.6)
"""Long/short side ratio of a quad taken for one whole card, never split (a card is 1.4)."""
_FILL: Final = 0.82
_EDGE_K: Final = np.ones((3, 3), np.uint8)
_FIT_K: Final = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
_LEVELS: Final = slice(4, 6)
"""Where :func:`_masks` puts the two brightness-level cuts: after Otsu's, the edge cut,
the local and the paper level's, before the background mask (where the frame has one)
and the filled edges; counted from the end, the background mask would shift them."""


@dataclass(frozen=True, slots=True)
class Found:
    """One card found in a frame.

    Attributes:
        quad: portrait corners in frame pixels, clockwise from a short side's left end.
        cut: the card runs into the frame's edge (part of it is outside): not to be read.
        score: how well the outline fills the quad (0..1).
    """

    quad: Quad
    cut: bool
    score: float


def order_quad(pts: npt.NDArray[np.float32]) -> Quad:
    """Order 4 corner points clockwise from top-left, then rotate so the first side (top)
    is a short side: the quad then describes a portrait card.

    >>> order_quad(np.array([[0, 0], [140, 0], [140, 100], [0, 100]], np.float32))
    ((0.0, 100.0), (0.0, 0.0), (140.0, 0.0), (140.0, 100.0))

    On four Python floats (numpy's per-call cost was most of it, asked of every fitted
    contour): the mean as numpy sums the rows, the angles by the same ``atan2``, the
    sides by ``np.hypot``, so the same quad (``tests/vision/test_finder_cost.py``)."""
    p = pts.reshape(4, 2).astype(np.float64).tolist()
    cx = (p[0][0] + p[1][0] + p[2][0] + p[3][0]) / 4
    cy = (p[0][1] + p[1][1] + p[2][1] + p[3][1]) / 4
    ang = [math.atan2(y - cy, x - cx) for x, y in p]
    p = [p[i] for i in sorted(range(4), key=ang.__getitem__)]  # clockwise (y down)
    start = min(range(4), key=lambda i: p[i][0] + p[i][1])
    turn = [(start + i) % 4 for i in range(4)]
    a, b, c = p[turn[0]], p[turn[1]], p[turn[2]]
    if np.hypot(b[0] - a[0], b[1] - a[1]) > np.hypot(c[0] - b[0], c[1] - b[1]):
        turn = turn[3:] + turn[:3]  # the top is a long side: start one corner earlier
    q = [p[i] for i in turn]
    return (q[0][0], q[0][1]), (q[1][0], q[1][1]), (q[2][0], q[2][1]), (q[3][0], q[3][1])


def quad_sides(q: Quad) -> tuple[float, float]:
    """Mean short and long side of a portrait quad."""
    a, b, c, d = (np.hypot(q[(i + 1) % 4][0] - q[i][0], q[(i + 1) % 4][1] - q[i][1])
                  for i in range(4))
    return float((a + c) / 2), float((b + d) / 2)


def white_balanced(img: Image) -> Image:
    """Scale each channel so its 97th percentile is the same (a grey-paper assumption)."""
    return balanced(img)[0]


def balanced(img: Image) -> tuple[Image, tuple[Image, Image, Image] | None]:
    """:func:`white_balanced`, and its three planes where it made them (the scaled ones:
    the finder's masks start from them, not from a second split)."""
    small = img[::4, ::4].reshape(-1, 3)
    top = channel_percentiles(small, 97)
    if top is None:
        top = np.percentile(small, 97, axis=0).astype(np.float32)
    gain = float(top.max()) / np.maximum(top, 1.0)
    if float(gain.max()) < 1.05:
        return img, None
    ramp = np.arange(256, dtype=np.float32)
    luts = [np.clip(ramp * g, 0, 255).astype(np.uint8) for g in gain]
    # at the finder's 640 px ``cv2.split`` is the cheaper split (not so at 1280 px,
    # :mod:`tablectl.vision.planes`): about a seventh of the instructions, the same planes
    b, g, r = (cv2.LUT(c, lut) for c, lut in zip(cv2.split(img), luts, strict=True))
    return cv2.merge([b, g, r]), (b, g, r)


def _masks(small: Image, split: tuple[Image, Image, Image] | None = None,
           ) -> tuple[list[Image], Image, Image, tuple[Image, Image, float]]:
    """The candidate masks of a (shrunk, balanced) frame (``split``: its planes, where made
    already), the paper mask and whiteness used to check that a candidate's border is
    paper, and the grey frame, its thickened edges and the least edge gradient (for
    :func:`split_quads`)."""
    b, g, r = cv2.split(small) if split is None else split
    lo = cv2.min(cv2.min(b, g), r)
    hi = cv2.max(cv2.max(b, g), r)
    white = cv2.subtract(lo, cv2.subtract(hi, lo))  # bright and unsaturated
    white = cv2.GaussianBlur(white, (5, 5), 0)
    otsu_t, otsu = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    med = median(grey)
    edges = cv2.Canny(grey, max(10.0, 0.5 * med), max(30.0, 1.2 * med))
    thick = cv2.dilate(edges, _EDGE_K)
    apart_edges = cv2.bitwise_not(thick)
    cut = cv2.bitwise_and(otsu, apart_edges)
    block = max(31, (min(small.shape[:2]) // 4) | 1)
    local = cv2.adaptiveThreshold(white, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                  cv2.THRESH_BINARY, block, -8)
    local = cv2.bitwise_and(local, apart_edges)
    filled = np.zeros_like(edges)
    cnts, _ = cv2.findContours(thick, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, cnts, -1, 255, -1)
    _, paper = cv2.threshold(white, max(otsu_t * 0.8, 60.0), 255, cv2.THRESH_BINARY)
    top = percentile(white[::4, ::4], 99.5)
    if top is None:
        top = float(np.percentile(white[::4, ::4], 99.5))
    apart = off_background(small)
    extra = [] if apart is None else [apart]
    # a cut at one level of ``white`` opened is ``white`` opened (a min, then a max over
    # the same square) cut at that level: one opening serves the four cuts of it
    smooth = cv2.morphologyEx(white, cv2.MORPH_OPEN, _EDGE_K)
    otsu_o, paper_o, *levels = (cv2.threshold(smooth, t, 255, cv2.THRESH_BINARY)[1]
                                for t in (otsu_t, max(otsu_t * 0.8, 60.0), top * 0.85,
                                          top * 0.72))
    cut_o, local_o, *extra_o = (cv2.morphologyEx(m, cv2.MORPH_OPEN, _EDGE_K)
                                for m in (cut, local, *extra))
    opened = [otsu_o, cut_o, local_o, paper_o, *levels, *extra_o]
    return [*opened, filled], paper, white, (grey, thick, max(10.0, 0.5 * med))


def _bridged(masks: list[Image]) -> list[Image]:
    """The two brightness-level masks closed over gaps of about 1/80 of the frame: a card
    whose white margin is broken by a cable or shadow lying across it, or by an index or
    picture touching its edge, is one piece again. Only searched when the other masks
    found no whole card (it costs a quarter of a frame's time)."""
    small = masks[0].shape
    k = max(3, round(min(small[:2]) / 80)) | 1
    bridge = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    return [cv2.morphologyEx(m, cv2.MORPH_CLOSE, bridge) for m in masks[_LEVELS]]


def _paper_border(paper: Image, white: Image, q: npt.NDArray[np.float32]) -> float:
    """Share of paper in the band just inside the quad's outline (a card's white margin;
    the middle may be a court picture).

    Paper is what the frame-wide cut calls paper; where that is too little (a card in the
    shade of a brighter frame, or half in shade), the band's pixels within 80% of its own
    median count, provided the band is pale and clearly brighter than the ring just
    outside the quad (a card standing out from its surroundings, not a patch of an evenly
    lit surface)."""
    x, y, w, h = cv2.boundingRect(q.astype(np.int32))
    pad = max(2, round(0.08 * min(w, h)))
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    x1, y1 = min(x + w + pad, paper.shape[1]), min(y + h + pad, paper.shape[0])
    if x1 - x0 <= 2 * pad or y1 - y0 <= 2 * pad:
        return 0.0
    shape = (y1 - y0, x1 - x0)
    local = q - np.array([x0, y0], np.float32)
    centre = local.mean(axis=0)
    body = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(body, np.round(local).astype(np.int32), 255)
    band = body.copy()
    cv2.fillConvexPoly(band, np.round(centre + (local - centre) * 0.88).astype(np.int32), 0)
    share = float(cv2.mean(paper[y0:y1, x0:x1], mask=band)[0]) / 255.0
    if share >= 0.6:
        return share
    region = white[y0:y1, x0:x1]
    inside = region[band > 0]
    if inside.size == 0:
        return share
    ref = median(inside)
    if ref < 60.0:
        return share
    ring = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(ring, np.round(centre + (local - centre) * 1.12).astype(np.int32), 255)
    outside = region[(ring > 0) & (body == 0)]
    around = median(outside) if outside.size else ref
    if around > 0.7 * ref:
        return share
    return max(share, float(np.mean(inside >= 0.8 * ref)))


def quad_bounds(q: Quad) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in q], [p[1] for p in q]
    return min(xs), min(ys), max(xs), max(ys)


def box_iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float],
            ) -> float:
    """Intersection over union of two ``(x0, y0, x1, y1)`` boxes.

    >>> box_iou((0, 0, 2, 2), (1, 0, 3, 2))
    0.3333333333333333
    """
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _overlaps(a: Box, boxes: list[Box], limit: float) -> bool:
    """Whether :func:`box_iou` of ``a`` with one of ``boxes`` is above ``limit`` (at least
    0): its float64 arithmetic inlined, boxes apart passed over (asked of every contour of
    every mask against every candidate so far: a numpy pass costs more than this loop)."""
    ax0, ay0, ax1, ay1 = a
    area_a = (ax1 - ax0) * (ay1 - ay0)
    for bx0, by0, bx1, by1 in boxes:
        if bx0 >= ax1 or ax0 >= bx1 or by0 >= ay1 or ay0 >= by1:
            continue  # no intersection: an IoU of 0
        inter = (max(0.0, min(ax1, bx1) - max(ax0, bx0))
                 * max(0.0, min(ay1, by1) - max(ay0, by0)))
        union = area_a + (bx1 - bx0) * (by1 - by0) - inter
        if union > 0 and inter / union > limit:
            return True
    return False


def quad_box(q: Quad) -> tuple[float, float, float, float]:
    """The axis-aligned bounding box ``(x0, y0, x1, y1)`` of a quad."""
    return quad_bounds(q)


def _fit_quad(cnt: npt.NDArray[np.int32], area: float,
              ) -> tuple[float, npt.NDArray[np.float32]] | None:
    """The 4-gon that best covers a contour, and how well (IoU with its hull, 0..1).

    The contour is first filled (an index or picture touching the card's edge opens its
    white margin, so the raw contour may run inside the card), closed and opened with a
    kernel of about a tenth of its size (carpet fluff, a finger, a touching card's corner
    come off); that is done on a coarse copy, which then selects the contour points kept.
    Candidates: polygon approximations of their hull at a few tolerances (perspective) and
    the minimum-area rectangle (rounded corners, worn edges).
    """
    x, y, w, h = cv2.boundingRect(cnt)
    k = 0.1 * math.sqrt(area)
    f = min(1.0, 5.0 / max(k, 1.0))
    pad = 6
    flat = cnt.reshape(-1, 2)
    at = ((flat - np.array([x, y])) * f + pad).round().astype(np.int32)  # drawn, then looked up
    patch: Image = np.zeros((round(h * f) + 2 * pad, round(w * f) + 2 * pad), np.uint8)
    cv2.drawContours(patch, [at], -1, 255, -1)
    kernel = _FIT_K
    patch = cv2.morphologyEx(patch, cv2.MORPH_CLOSE, kernel)
    holes, _ = cv2.findContours(patch, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(patch, holes, -1, 255, -1)
    patch = cv2.morphologyEx(patch, cv2.MORPH_OPEN, kernel)
    parts, _ = cv2.findContours(patch, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not parts:
        return None
    body = np.zeros(patch.shape, np.uint8)
    cv2.drawContours(body, [max(parts, key=cv2.contourArea)], -1, 1, -1)
    keep = cv2.dilate(body, kernel)
    sel = flat[keep[at[:, 1], at[:, 0]] > 0]  # ``at`` lies pad px or more inside the patch
    if len(sel) < 4:
        return None
    hull = cv2.convexHull(sel.astype(np.float32))
    hull_area = float(cv2.contourArea(hull))
    peri = cv2.arcLength(hull, True)
    quads = [np.asarray(cv2.boxPoints(cv2.minAreaRect(hull)), np.float32)]
    tried = {quads[0].tobytes()}
    for eps in (0.02, 0.035, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) != 4 or approx.tobytes() in tried:
            continue  # a quad met already scores as it did, which a tie does not beat
        if cv2.isContourConvex(approx):
            tried.add(approx.tobytes())
            quads.append(approx.reshape(4, 2).astype(np.float32))
    best: tuple[float, npt.NDArray[np.float32]] | None = None
    for q in quads:
        inter, _ = cv2.intersectConvexConvex(hull, q.reshape(-1, 1, 2))
        union = hull_area + float(cv2.contourArea(q)) - inter
        iou = inter / union if union > 0 else 0.0
        if best is None or iou > best[0]:
            best = (iou, q)
    return best


def mask_candidates(mask: Image, paper: Image, white: Image, min_width: float, *,
                out: list[tuple[float, Quad]], seen: list[Box]) -> None:
    """Add the card-like outer contours of ``mask`` to ``out``; a contour whose box is
    already a candidate (found in an earlier mask) is not fitted again."""
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    frame_area = mask.shape[0] * mask.shape[1]
    min_area = min_width * min_width * 1.15
    for raw in cnts:
        pts = np.asarray(raw, np.int32)
        x, y, w, h = cv2.boundingRect(pts)
        if w * h < min_area:  # its hull lies inside this box: too small as well
            continue
        box = (float(x), float(y), float(x + w), float(y + h))
        if _overlaps(box, seen, 0.9):  # asked first: no hull made for a card found already
            continue
        hull_area = float(cv2.contourArea(cv2.convexHull(pts)))
        if hull_area < min_area or hull_area > 0.9 * frame_area:
            continue
        fitted = _fit_quad(pts, hull_area)
        if fitted is None or fitted[0] < _FILL:
            continue
        fill, quad = fitted
        q = order_quad(quad)
        short, long_ = quad_sides(q)
        # a card running off the frame shows only part of itself: any length will do
        top = 4.0 if runs_off(q, mask.shape[1], mask.shape[0], 0.75) else ASPECT[1]
        if short < min_width or not ASPECT[0] <= long_ / short <= top:
            continue
        if not _square_enough(quad):
            continue
        if _paper_border(paper, white, quad) < 0.6:
            continue
        out.append((fill, q))
        seen.append(box)


def _square_enough(q: npt.NDArray[np.float32]) -> bool:
    """Every corner between 55 and 125 degrees: a card seen up to about 30 deg off axis
    (a sliver or a kite is not a card). The four corners' sides at once, in float32 as
    ``np.hypot`` and ``@`` give them corner by corner."""
    a = q[[3, 0, 1, 2]] - q  # to the corner before
    b = q[[1, 2, 3, 0]] - q  # to the corner after
    dots = (a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1]).tolist()
    for d, na, nb in zip(dots, np.hypot(a[:, 0], a[:, 1]).tolist(),
                         np.hypot(b[:, 0], b[:, 1]).tolist(), strict=True):
        if na < 1e-3 or nb < 1e-3 or abs(d / (na * nb)) > 0.574:  # |cos| of 55 deg
            return False
    return True


def _contains(outer: Quad, inner: Quad) -> bool:
    """At least 80% of ``inner`` lies inside ``outer`` (quads whose bounding boxes do not
    meet, most pairs of a frame's, are answered before any polygon is built)."""
    ox0, oy0, ox1, oy1 = quad_bounds(outer)
    ix0, iy0, ix1, iy1 = quad_bounds(inner)
    if ix0 >= ox1 or ox0 >= ix1 or iy0 >= oy1 or oy0 >= iy1:
        return False
    a = np.array(outer, np.float32).reshape(-1, 1, 2)
    b = np.array(inner, np.float32).reshape(-1, 1, 2)
    inter, _ = cv2.intersectConvexConvex(a, b)
    area_b = float(cv2.contourArea(b))
    return area_b > 0 and inter >= 0.8 * area_b


def select_quads(cands: list[tuple[float, Quad]], size: tuple[int, int],
            ) -> list[tuple[float, Quad]]:
    """Non-maximum suppression; then nested quads are sorted out.

    * A quad holding two smaller ones that lie apart, each running along its outline or
      outlined better than it, is two touching cards (or cards on a box) seen as one:
      dropped. Judged first, so a card is not lost with the two pieces of its picture.
    * A quad inside another that runs along its outline is a part of it (split by a shadow
      or a fold line): dropped; but a card-shaped quad inside one running off the frame is
      the card, taken with the table up to the frame's edge, and the outer one goes.
    * Otherwise of two nested quads the better outlined one stays: a card lying on a box, a
      bag or a sheet of paper found as a bigger quad, or a piece of a court picture inside
      its card; except that a card-shaped quad keeps a quad centred inside it (a court
      card's picture frame, the block of pips: :func:`_framed`) beside it; but a quad
      running off the frame (``size``: width, height) never pushes
      out a whole one inside it (it would not be read anyway).

    The last two apply only where the inner quad is at least 0.15 of the outer one.
    """
    contains = functools.cache(_contains)  # asked again and again of the same pairs
    kept: list[tuple[float, Quad]] = []
    boxes: list[Box] = []  # the kept quads' bounds, each taken once
    for score, q in sorted(cands, key=lambda c: -c[0]):
        box = quad_bounds(q)
        if all(box_iou(box, k) < 0.5 for k in boxes):
            kept.append((score, q))
            boxes.append(box)
    alive = []
    for score, q in kept:
        inner = [k for s, k in kept if k is not q and contains(q, k)
                 and (s > score or _along(k, q) >= 0.4)]
        if not _two_apart(inner):
            alive.append((score, q))
    cut = {id(q) for _, q in alive if runs_off(q, size[0], size[1], 0.75)}

    def card_in_cut(inner: Quad, outer: Quad) -> bool:
        # a whole card-shaped quad inside one running off the frame along two of its sides:
        # the card taken with the table up to the frame's edge, not a part of a card
        short, long_ = quad_sides(inner)
        return (id(outer) in cut and id(inner) not in cut
                and CARD_SHAPE[0] <= long_ / max(short, 1e-6) <= CARD_SHAPE[1])

    out = []
    for score, q in alive:
        area = _area(q)
        if any(contains(k, q) and area >= 0.15 * _area(k) and not contains(q, k)
               and ((_along(q, k) >= 0.4 and not card_in_cut(q, k))
                    or (s >= score and id(k) not in cut))
               for s, k in alive if k is not q):
            continue
        if any(contains(q, k) and _area(k) >= 0.15 * area and not contains(k, q)
               and (s > score or id(q) in cut)
               and (_along(k, q) < 0.4 or card_in_cut(k, q))
               and not _framed(k, q, id(q) in cut)
               for s, k in alive if k is not q):
            continue
        out.append((score, q))
    return out


def _framed(inner: Quad, outer: Quad, outer_cut: bool) -> bool:
    """``inner`` lies centred in a card-shaped ``outer`` that is wholly in the frame: a
    court card's picture inside its frame line, or the pips' block. Both stay; the reader
    keeps the card and drops what lies inside a card it accepted."""
    short, long_ = quad_sides(outer)
    if outer_cut or not CARD_SHAPE[0] <= long_ / max(short, 1e-6) <= CARD_SHAPE[1]:
        return False
    ci = np.mean(np.array(inner), axis=0)
    co = np.mean(np.array(outer), axis=0)
    return float(np.hypot(*(ci - co))) <= 0.15 * short


def _two_apart(quads: list[Quad]) -> bool:
    """Two of ``quads`` overlap by less than a quarter of the smaller one."""
    for i, a in enumerate(quads):
        pa = np.array(a, np.float32).reshape(-1, 1, 2)
        for b in quads[i + 1:]:
            pb = np.array(b, np.float32).reshape(-1, 1, 2)
            inter, _ = cv2.intersectConvexConvex(pa, pb)
            if inter < 0.25 * min(_area(a), _area(b)):
                return True
    return False


def _along(inner: Quad, outer: Quad) -> float:
    """Share of ``inner``'s outline that runs within a few pixels of ``outer``'s."""
    poly = np.array(outer, np.float32).reshape(-1, 1, 2)
    tol = max(2.0, 0.04 * float(np.sqrt(_area(outer))))
    near = total = 0
    for i in range(4):
        a = np.array(inner[i], np.float32)
        b = np.array(inner[(i + 1) % 4], np.float32)
        for t in np.linspace(0.0, 1.0, 12, endpoint=False):
            p = a + (b - a) * t
            total += 1
            near += abs(cv2.pointPolygonTest(poly, (float(p[0]), float(p[1])), True)) <= tol
    return near / total


def _area(q: Quad) -> float:
    return float(cv2.contourArea(np.array(q, np.float32)))


def runs_off(q: Quad, w: int, h: int, margin: float) -> bool:
    return any(x < margin or y < margin or x > w - 1 - margin or y > h - 1 - margin
               for x, y in q)


Shrunk = tuple[float, Image]
"""A frame shrunk to at most :data:`DETECT_MAX` (:func:`shrunk`): the scale, the image."""


def shrunk(frame: Image) -> Shrunk:
    """The scale, and ``frame`` shrunk by it (area interpolation; 1.0: ``frame`` itself)
    to at most :data:`DETECT_MAX`: the finder's and the free corners' image, made once."""
    h, w = frame.shape[:2]
    scale = min(1.0, DETECT_MAX / max(h, w))
    small = frame if scale == 1.0 else cv2.resize(frame, (round(w * scale), round(h * scale)),
                                                  interpolation=cv2.INTER_AREA)
    return scale, small


def locate_cards(frame: Image, min_width: float = 40.0, *,
                 shrunk_frame: Shrunk | None = None) -> list[Found]:
    """Every card-shaped paper quad in a BGR frame (see the module docstring).

    ``min_width`` is the smallest short side in frame pixels; ``shrunk_frame`` is the
    frame's :func:`shrunk` where it is made already (not changed here). Results are sorted
    top to bottom, then left to right.
    """
    h, w = frame.shape[:2]
    scale, small = shrunk(frame) if shrunk_frame is None else shrunk_frame
    small, split = balanced(small)
    masks, paper, white, lines = _masks(small, split)
    cands: list[tuple[float, Quad]] = []
    seen: list[Box] = []
    for m in masks:
        mask_candidates(m, paper, white, max(8.0, min_width * scale), out=cands, seen=seen)
    sh, sw = small.shape[:2]
    out: list[Found] = []
    kept = select_quads(cands, (sw, sh))
    if all(runs_off(q, sw, sh, 0.75) for _, q in kept):
        for m in _bridged(masks):
            mask_candidates(m, paper, white, max(8.0, min_width * scale), out=cands, seen=seen)
        kept = select_quads(cands, (sw, sh))
    kept = [(score, p) for score, q in kept
            for p in ([q] if runs_off(q, sw, sh, 0.75)
                      else split_quads(q, lines, paper, white, max(8.0, min_width * scale)))]
    for score, q in kept:
        full = q if scale == 1.0 else scaled_quad(q, 1.0 / scale)
        cut = runs_off(full, w, h, 0.75 / scale)
        inner = tightened(frame, full) if cut else None
        if inner is not None:  # a card inside the frame, taken with pale table up to its edge
            full = order_quad(inner)
            cut = runs_off(full, w, h, 0.75 / scale)
        out.append(Found(full, cut, score))
    out.sort(key=lambda f: (f.quad[0][1], f.quad[0][0]))
    return out


def split_quads(q: Quad, lines: tuple[Image, Image, float], paper: Image, white: Image,
                min_width: float, *, depth: int = 2) -> list[Quad]:
    """``q`` cut along the top card's edge where it is the outline of several overlapping
    cards (see :mod:`tablectl.vision.split`), each piece again up to ``depth`` times; a
    piece must be at least ``min_width`` wide with paper along its border, and where no
    piece is, ``q`` stays whole."""
    grey, edges, low = lines
    short, long_ = quad_sides(q)
    if depth == 2 and CARD_SHAPE[0] <= long_ / short <= CARD_SHAPE[1]:
        return [q]
    pts = np.array(q, np.float64)
    found = best_cut(grey, edges, pts, low) if depth > 0 else None
    if found is None or found[0] < COVER:
        return [q]
    _, a, b, i0, _ = found
    v = [pts[(i0 + k) % 4] for k in range(4)]
    out: list[Quad] = []
    for piece in ((a, v[1], v[2], b), (b, v[3], v[0], a)):
        arr = np.array(piece, np.float32)
        pq = order_quad(arr)
        short, _ = quad_sides(pq)
        if short < min_width or _paper_border(paper, white, arr) < 0.6:
            continue
        out.extend(split_quads(pq, lines, paper, white, min_width, depth=depth - 1))
    return out or [q]


def scaled_quad(q: Quad, k: float) -> Quad:
    a, b, c, d = ((x * k, y * k) for x, y in q)
    return (a, b, c, d)
