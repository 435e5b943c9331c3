"""A card told from a background of its own brightness by its colour.

Held up in a room, a card often stands before a wall as bright and as pale as itself
(beige wallpaper, a white-washed wall): every brightness mask of
:mod:`tablectl.vision.locate` merges the card with the wall. Their colours still differ:
card paper is nearly grey, the wall, skin and wood are warm. The mask here is the
frame's **bright** pixels (lightness above its Otsu cut) that lie on the **grey side of
the frame's chroma cut**: the blue-yellow axis of CIE Lab (``b*``, 128 is grey) is cut
by Otsu, and of its two sides the one that holds grey is the paper's (both, where the
cut is within :data:`SPLIT` of grey). Where that side gives no card, its grey half cut
again by its own ``b*`` is searched (a sheet of paper beside the card shares its side),
then the far side of the cut (a card left bluish by the camera before a bluish wall):
:func:`chroma_masks`. A side that splits off too little of the frame gives no mask.

Computed on the unbalanced frame (white balance would make a warm wall grey and the
card blue) and at half the search size (a card's outline needs no more).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.edge import one_corner_out
from tablectl.vision.locate import (
    DETECT_MAX,
    Found,
    box_iou,
    mask_candidates,
    quad_bounds,
    quad_sides,
    runs_off,
    scaled_quad,
    select_quads,
    white_balanced,
)
from tablectl.vision.model import Image, Quad

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


def chroma_masks(small: Image) -> Iterator[list[tuple[Image, Image]]]:
    """The frame's bright pixels on each side of its blue-yellow cut (see the module
    docstring), each the size of ``small`` (BGR, unbalanced): ``(squared, paper)``, the
    pieces squared off (:func:`squared`) and the mask itself. Given in three rounds, each
    made only when asked for (the caller stops at the first round that gives a card):

    1. the paper's side (both, for a cut within :data:`SPLIT` of grey);
    2. the grey half of that side cut again by its own ``b*`` (:func:`_resplit`: a sheet
       of paper or a pale sleeve beside the card lies on the same side and merges with
       it);
    3. the far side of a cut :data:`SPLIT` or farther from grey: a card the camera's white
       balance left bluish before a bluish wall, or warm before a warm one, lies there.

    A side of the cut holding under :data:`SIDE` of the frame gives no mask (a half of a
    side cut again, under :data:`SMALLEST`)."""
    if small.ndim != 3:
        return
    h, w = small.shape[:2]
    half = cv2.resize(small, (max(8, w // 2), max(8, h // 2)), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(half, cv2.COLOR_BGR2Lab)
    light, _, yb = cv2.split(lab)
    yb = cv2.GaussianBlur(yb, (3, 3), 0)
    t, warm = cv2.threshold(yb, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    _, bright = cv2.threshold(light, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    k = max(3, min(half.shape[:2]) // OPEN) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    cool = cv2.bitwise_not(warm)

    def masks(sides: list[Image], least: float) -> list[tuple[Image, Image]]:
        out = []
        for side in sides:
            share = float(np.count_nonzero(side)) / side.size
            if not least <= share <= 1.0 - SIDE:
                continue
            mask = cv2.morphologyEx(cv2.bitwise_and(side, bright), cv2.MORPH_OPEN, kernel)
            out.append((cv2.resize(squared(mask), (w, h), interpolation=cv2.INTER_NEAREST),
                        cv2.resize(mask, (w, h), interpolation=cv2.INTER_NEAREST)))
        return out

    near = [cool] if t >= GREY + SPLIT else [warm] if t <= GREY - SPLIT else [cool, warm]
    near = [side for side in near
            if SIDE <= float(np.count_nonzero(side)) / side.size <= 1.0 - SIDE]
    yield masks(near, SIDE)
    yield masks([part for side in near for part in _resplit(yb, side)], SMALLEST)
    yield masks([warm] if t >= GREY + SPLIT else [cool] if t <= GREY - SPLIT else [], SIDE)


RESPLIT: Final = 3
"""A side of the chroma cut is cut again by its own ``b*`` only where its Otsu cut leaves
at least this much (``b*`` levels) between the two halves' medians: paper beside paper
of another tint, not one sheet's noise."""


def _resplit(yb: Image, side: Image) -> list[Image]:
    """The grey half of ``side`` (a side of the chroma cut of ``yb``, the ``b*`` plane)
    cut by Otsu on its own ``b*``: a card and a sheet of paper (or a pale sleeve) beside
    it both lie on the paper's side of the frame's cut, and one mask holds both as one
    piece; their tints still differ, and as at the frame's cut the half that holds grey
    is the card's. None where the two halves differ by under :data:`RESPLIT`."""
    values = yb[side > 0]
    if values.size < 16:
        return []
    t, _ = cv2.threshold(values.reshape(1, -1), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    lo, hi = values[values <= t], values[values > t]
    if lo.size == 0 or hi.size == 0 or float(np.median(hi)) - float(np.median(lo)) < RESPLIT:
        return []
    _, above = cv2.threshold(yb, t, 255, cv2.THRESH_BINARY)
    return [cv2.bitwise_and(side, cv2.bitwise_not(above) if t >= GREY else above)]


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
    apart = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))
    for c in sorted(cnts, key=cv2.contourArea, reverse=True):
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
        piece = np.zeros_like(mask)
        cv2.fillConvexPoly(piece, quad, 255)
        # a larger piece squared already keeps its outline: a smaller one beside it (a
        # strip of paper between a thumb and the card) is cut back clear of it
        cv2.bitwise_or(out, cv2.bitwise_and(piece, cv2.bitwise_not(cv2.dilate(out, apart))),
                       dst=out)
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


COLOUR_SHAPE: Final = (1.2, 2.0)
"""Long/short side ratio of a colour quad (a card is 1.4; the ratio of a round plate or a
square box squared off is near 1)."""
PART_SHAPE: Final = 1.0
"""The least long/short side ratio of a colour quad taken as part of a card (``parts``
of :func:`colour_cards`): a card held up with one end in the hand shows the colour mask
its other end only, squarer than a card; grown to a whole card it must be read."""
SAME_QUAD: Final = 0.8
"""A quad of :func:`colour_cards` whose box overlaps a known quad's this much (IoU) is
that card again."""


def colour_cards(frame: Image, known: Sequence[Quad], min_width: float = 40.0,
                 parts: bool = False) -> list[Found]:
    """The cards the colour masks find (:func:`chroma_masks`: a card before a wall of its
    own brightness, which every brightness mask merges with it) that are not among
    ``known`` (the quads :func:`~tablectl.vision.locate.locate_cards` gave), wholly inside
    the frame (a piece of a colour mask running off it is mostly background: a wall, a
    sleeve).
    Searched only where those show no card (recognition: none accepted; enrolment: none
    shows an index), as the colour masks cost about 2.5 ms a frame. A piece of a colour
    mask is squared off, so its outline fits by construction: it is scored by how much of
    its quad the mask covers instead. The rounds of :func:`chroma_masks` are searched in
    turn, up to the first that gives a card. With ``parts``, quads squarer than a card
    (:data:`PART_SHAPE`) are given as well, for the reader to grow, and a whole card
    with one corner on the frame's edge (:func:`~tablectl.vision.edge.one_corner_out`:
    a card held up to the camera's edge), as ``cut``."""
    h, w = frame.shape[:2]
    if frame.ndim != 3 or min(h, w) < 16:
        return []
    scale = min(1.0, DETECT_MAX / max(h, w))
    raw = frame if scale == 1.0 else cv2.resize(frame, (round(w * scale), round(h * scale)),
                                                interpolation=cv2.INTER_AREA)
    b, g, r = cv2.split(white_balanced(raw))
    lo = cv2.min(cv2.min(b, g), r)
    white = cv2.subtract(lo, cv2.subtract(cv2.max(cv2.max(b, g), r), lo))
    boxes = [quad_bounds(q) for q in known]
    for masks in chroma_masks(raw):
        cands: list[tuple[float, Quad]] = []
        for side, side_paper in masks:
            found: list[tuple[float, Quad]] = []
            mask_candidates(side, side_paper, white, max(8.0, min_width * scale), out=found,
                            seen=[])
            cands.extend((min(score, _cover(side_paper, q)), q) for score, q in found)
        out = _kept(cands, raw.shape[:2], (w, h), scale, boxes, parts=parts)
        if out:
            return out
    return []


def _kept(cands: list[tuple[float, Quad]], small: tuple[int, ...], size: tuple[int, int],
          scale: float, boxes: Sequence[tuple[float, float, float, float]], *, parts: bool,
          ) -> list[Found]:
    """The candidates of one round of :func:`colour_cards` it gives (``small``: the
    searched frame's height and width; ``size``: the frame's width and height; ``boxes``:
    the known cards' boxes), top to bottom."""
    sh, sw = small[:2]
    w, h = size
    out = []
    for score, q in select_quads(cands, (sw, sh)):
        full = q if scale == 1.0 else scaled_quad(q, 1.0 / scale)
        short, long_ = quad_sides(full)
        off = runs_off(full, w, h, 0.75 / scale)
        if ((not off or (parts and one_corner_out(full, w, h)))
                and (PART_SHAPE if parts else COLOUR_SHAPE[0]) <= long_ / max(short, 1e-6)
                <= COLOUR_SHAPE[1]
                and all(box_iou(quad_bounds(full), k) < SAME_QUAD for k in boxes)):
            out.append(Found(full, off, score))
    out.sort(key=lambda f: (f.quad[0][1], f.quad[0][0]))
    return out


def _cover(mask: Image, q: Quad) -> float:
    """Share of ``q`` that ``mask`` (holes filled: pips, an index) covers: the score of a
    quad squared off a colour mask (:mod:`tablectl.vision.chroma`), whose own outline fits
    it perfectly by construction."""
    pts = np.array(q, np.float32)
    x, y, w, h = cv2.boundingRect(pts.astype(np.int32))
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, mask.shape[1]), min(y + h, mask.shape[0])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return 0.0
    region = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cnts, _ = cv2.findContours(np.ascontiguousarray(mask[y0:y1, x0:x1]), cv2.RETR_EXTERNAL,
                               cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(region, cnts, -1, 255, -1)
    body = np.zeros_like(region)
    cv2.fillConvexPoly(body, np.round(pts - [x0, y0]).astype(np.int32), 255)
    n = cv2.countNonZero(body)
    return float(cv2.countNonZero(cv2.bitwise_and(region, body))) / n if n else 0.0
