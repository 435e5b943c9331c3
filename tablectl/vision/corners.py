"""Finding cards by their index corner, where no outline of the card is found.

The outline search (:mod:`tablectl.vision.locate`) needs a card's edge against the table.
It loses a card lying on paper, a pale box or a white cloth (no edge to see), a card under
a cable, and the cards of a fan whose outlines merge into one shape. What a person reads in
all of these is the index corner: a rank glyph with the suit glyph right under it, on paper.
This module finds such glyph pairs anywhere in a frame, at any rotation, and hands each to
the reader as an upright index crop; only reads the full gate accepts are kept (a pair of
marks on a box or a newspaper is never reported).

1. Ink: the frame's darkest channel (red, black, blue and green ink are all dark on paper)
   thresholded against its local mean (:data:`_BLOCK` px windows), so vignettes and shade
   do not matter; connected components of glyph size are the candidates.
2. Paper: each candidate must lie on paper -- around it, most pixels are bright and grey
   (:func:`ink_and_paper`).
3. Pairs: a component with another one of suit size at about one rank height's distance in
   any direction is a possible index: the direction from the first to the second is "down"
   on the card. Both orders are tried (which one is the rank is not known yet).
4. Crop: the frame around the pair is resampled into an upright crop of the shape and
   scale the reader's index corner crops have (:func:`upright_crop`), and the card's outline
   is estimated from where the index sits on a standard card (:func:`card_quad`); both
   can be cut as the index lies on the table (:func:`table_view`, from the outlines of the
   cards already read), where a camera at a slant shortens it along its line of sight.

Pure functions over arrays; the reader (:class:`~tablectl.vision.recognise.Recogniser`)
decides which pairs to read and what to keep.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.faint import faint_ranks
from tablectl.vision.glyphs import IndexGlyphs, find_index
from tablectl.vision.grow import CARD_ASPECT
from tablectl.vision.model import Image, Quad
from tablectl.vision.planes import planes

WORK_MAX: Final = 1280
"""Frames are searched at most this large (longest side, px)."""
CROP_H: Final = 120
"""Rows of an upright index crop (the reader's canonical crop height)."""
_CROP_SPAN: Final = (2.7, 3.6)
"""An upright crop's width and height, in units of the rank-to-suit centre distance: a
corner crop of a standard card holds its index at about this scale."""
_INK: Final = 0.35
"""A pixel is ink where it is at least this much darker than the paper around it."""
_PAPER_FLOOR: Final = 70
_PAPER_NEAR: Final = 0.75
_GREY: Final = 0.5
"""How much a pixel's colour spread (brightest minus darkest channel) counts against its
greyness: paper in shade or under a coloured lamp is tinted, not colourful."""
"""A pixel is paper where its greyness is at least this share of the local paper level."""
_MIN_GLYPH: Final = 7
"""Smallest glyph (longest side of its box, px at working scale) worth reading."""
_PAPER_SHARE: Final = 0.35
_MAX_GLYPHS: Final = 800
_SUIT_RATIO: Final = (0.74, 0.12)
"""Suit glyph size over rank glyph size (longest box sides) on real cards: typical, spread."""
_GAP: Final = (1.02, 0.15)
"""Rank-to-suit centre distance over the rank's size on real cards: typical, spread."""
INDEX_ON_CARD: Final = (0.042, 0.051, 0.19)
"""Where a standard card's index sits: its top-left corner's offset from the card's corner
(fractions of the card's width and height) and its height (fraction of the card's height);
measured on real Bicycle-style cards and the simulator's decks."""
SAME_INDEX: Final = 0.8
"""Glyph correlation at which two index corners are taken for the same card's."""


View = tuple[float, float, float, float]
"""How the table's plane is seen about a point of the frame: a 2x2 matrix (row-major, of
determinant 1) taking directions on the table to frame directions. A camera looking at the
table at a slant shortens everything along its line of sight."""
FLAT: Final[View] = (1.0, 0.0, 0.0, 1.0)
"""The table seen square on (or nothing known of the view)."""


@dataclass(frozen=True, slots=True)
class GlyphPair:
    """Two glyph-sized marks on paper that may be a rank (``top``) over its suit.

    Attributes:
        top: centre of the glyph taken for the rank (frame px).
        bottom: centre of the glyph taken for the suit.
        view: how the table is seen there (:func:`table_view`); the upright crop and the
            card placed from the index undo it.
    """

    top: tuple[float, float]
    bottom: tuple[float, float]
    view: View = FLAT
    faint: bool = False

    @property
    def down(self) -> npt.NDArray[np.float64]:
        """Unit vector pointing down the card's face (from rank to suit)."""
        d = np.subtract(self.bottom, self.top)
        return np.asarray(d / max(float(np.hypot(*d)), 1e-6), np.float64)

    @property
    def distance(self) -> float:
        return float(np.hypot(*np.subtract(self.bottom, self.top)))


def _scaled_lut(k: float) -> Image:
    """A lookup table multiplying a uint8 image by ``k`` (a LUT is several times faster
    than ``cv2.multiply`` by a scalar)."""
    lut: Image = np.clip(np.round(np.arange(256) * k), 0, 255).astype(np.uint8)
    return lut


_INK_LUT: Final = _scaled_lut(1.0 - _INK)
_GREY_LUT: Final = _scaled_lut(_GREY)
_NEAR_LUT: Final = _scaled_lut(_PAPER_NEAR)
_INK_UNDER: Final = np.where(np.arange(256) >= _PAPER_FLOOR, _INK_LUT.astype(np.int64) + 1,
                             0).astype(np.uint8)
"""Per paper level, the darkest channel's value ink lies under: one above the ink cut
(:data:`_INK_LUT`) where the level is paper (at least :data:`_PAPER_FLOOR`), else 0."""


def ink_and_paper(small: Image) -> tuple[Image, Image]:
    """Two masks of a BGR frame: ink (255) where its darkest channel is well below the
    paper around it, and paper (1) where a pixel is at that paper level and unsaturated.

    The paper level is a morphological closing of the darkest channel: ink strokes and
    solid suits narrower than the kernel are filled in, a dark table beside a card is not
    (so the table never counts as ink next to an index printed close to the card's edge).
    Both are judged against it, not against the frame: a card in shade is still paper."""
    levels = _Levels(small)
    h, w = levels.dark.shape
    return levels.ink, cv2.threshold(levels.paper(0, 0, w, h), 127, 1, cv2.THRESH_BINARY)[1]


class _Levels:
    """A frame's darkest channel, its paper level and its ink (:func:`ink_and_paper`);
    the paper mask made only where asked (:meth:`paper`): :func:`glyph_pairs` wants it
    in the boxes round its glyphs, mostly a few hundredths of a frame."""

    def __init__(self, small: Image) -> None:
        self.planes = planes(small)
        b, g, r = self.planes
        self.dark = dark = cv2.min(cv2.min(b, g), r)
        # the paper level varies slowly: found at half size, where it costs a quarter
        h, w = dark.shape
        half = cv2.resize(dark, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        k = max(15, min(half.shape[:2]) // 10) | 1
        self.level = level = cv2.resize(
            cv2.morphologyEx(half, cv2.MORPH_CLOSE,
                             cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))),
            (w, h), interpolation=cv2.INTER_LINEAR)
        # ink where dark <= (1 - _INK) * level, and the paper is not itself dark: one
        # comparison, dark < _INK_UNDER[level] (0 where the level is under the floor)
        self.ink = cv2.compare(dark, cv2.LUT(level, _INK_UNDER), cv2.CMP_LT)

    def paper(self, x0: int, y0: int, x1: int, y1: int) -> Image:
        """Paper (255) in the box ``[x0, x1) x [y0, y1)`` (not empty): grey (the darkest
        channel minus the colour's spread) near the level, the level itself lit."""
        box = (slice(y0, y1), slice(x0, x1))
        dark = self.dark[box]
        b, g, r = (p[box] for p in self.planes)
        hi = cv2.max(cv2.max(b, g), r)
        white = cv2.subtract(dark, cv2.LUT(cv2.subtract(hi, dark), _GREY_LUT))
        near = cv2.compare(white, cv2.LUT(self.level[box], _NEAR_LUT), cv2.CMP_GE)
        lit = cv2.compare(self.level[box], np.array([_PAPER_FLOOR]), cv2.CMP_GE)
        out: Image = cv2.bitwise_and(near, lit)
        return out

    def paper_counts(self, x0: npt.NDArray[np.int_], y0: npt.NDArray[np.int_],
                     x1: npt.NDArray[np.int_], y1: npt.NDArray[np.int_],
                     ) -> npt.NDArray[np.int64]:
        """Pixels of paper in each box ``[x0, x1) x [y0, y1)``: box by box where the
        boxes cover little of the frame (the usual case), else from the whole frame's
        paper mask summed once (a frame of print); the same counts either way."""
        h, w = self.dark.shape
        area = (x1 - x0) * (y1 - y0)
        if int(area.sum()) > _BOXES_WHOLE * h * w:
            integral = cv2.integral(cv2.threshold(self.paper(0, 0, w, h), 127, 1,
                                                  cv2.THRESH_BINARY)[1])
            out = (integral[y1, x1] - integral[y0, x1] - integral[y1, x0]
                   + integral[y0, x0])
            return np.asarray(out, np.int64)
        return np.array([cv2.countNonZero(self.paper(a, b, c, d)) if n > 0 else 0
                         for a, b, c, d, n in zip(x0.tolist(), y0.tolist(), x1.tolist(),
                                                  y1.tolist(), area.tolist(), strict=True)],
                        np.int64)


_BOXES_WHOLE: Final = 0.25
"""Where the glyphs' boxes add up to more than this share of the frame, their paper is
counted from the whole frame's mask (:meth:`_Levels.paper_counts`)."""


PAPER_LEFT: Final = 16
"""Pixels of paper at half size (:func:`paper_left`) below which no index can lie outside
the cards read: an index is two glyphs of at least :data:`_MIN_GLYPH` px with a third of
the box around each paper, about 80 px of paper at working scale, 20 at half."""
_SPECK: Final = np.ones((3, 3), np.uint8)


def paper_left(frame: Image, skip: Image, shrunk: Image | None = None,
               off_table: Image | None = None) -> bool:
    """Whether paper lies in ``frame`` (BGR) outside ``skip`` (non-zero where cards were
    read): paper as :func:`ink_and_paper` finds it, judged on the frame at half size
    (about a quarter of what :func:`glyph_pairs` costs a 1280x720 frame), specks under
    three pixels across left out (cloth and wood show them). Without such paper no glyph
    pair can be found there: :func:`glyph_pairs` takes only glyphs with paper round them.

    ``shrunk``: the frame shrunk with area interpolation where that is made already (the
    finder's, :func:`~tablectl.vision.locate.shrunk`); used where it is the half size (a
    1280 px wide frame), so that frame is not shrunk again. ``off_table``: where the frame
    differs from its even table (:func:`~tablectl.vision.background.off_background`, any
    size); paper is then counted only there (a pale table is paper itself, and no card
    lies on it unseen where the frame is the table's own colour)."""
    h, w = frame.shape[:2]
    size = (max(1, w // 2), max(1, h // 2))
    half = (shrunk if shrunk is not None and shrunk.shape[1::-1] == size
            else cv2.resize(frame, size, interpolation=cv2.INTER_AREA))
    b, g, r = cv2.split(half)
    dark = cv2.min(cv2.min(b, g), r)
    hi = cv2.max(cv2.max(b, g), r)
    k = max(15, min(dark.shape[:2]) // 10) | 1
    level = cv2.morphologyEx(dark, cv2.MORPH_CLOSE,
                             cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    white = cv2.subtract(dark, cv2.LUT(cv2.subtract(hi, dark), _GREY_LUT))
    paper = cv2.bitwise_and(cv2.compare(white, cv2.LUT(level, _NEAR_LUT), cv2.CMP_GE),
                            cv2.compare(level, np.array([_PAPER_FLOOR]), cv2.CMP_GE))
    sk = cv2.resize(skip, (paper.shape[1], paper.shape[0]), interpolation=cv2.INTER_NEAREST)
    if off_table is not None:
        off = cv2.resize(off_table, (paper.shape[1], paper.shape[0]),
                         interpolation=cv2.INTER_NEAREST)
        paper = cv2.bitwise_and(paper, off)
    left = cv2.erode(cv2.bitwise_and(paper, cv2.bitwise_not(sk)), _SPECK)
    return cv2.countNonZero(left) >= PAPER_LEFT


def glyph_pairs(frame: Image, skip: Image | None = None, limit: int = 16,
                span: float | None = None) -> list[GlyphPair]:
    """Possible rank-over-suit pairs in a BGR frame, the most index-like first (suit size
    and distance from the rank near what real indices show, few marks crowding round).

    ``skip`` is a mask of the frame (same size, non-zero where cards were already read):
    glyphs whose centre falls there are left out. At most ``limit`` pairs are returned.
    """
    h, w = frame.shape[:2]
    scale = min(1.0, WORK_MAX / max(h, w))
    small = frame if scale == 1.0 else cv2.resize(
        frame, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    levels = _Levels(small)
    ink = levels.ink
    # Grana's algorithm: about 3x faster than the default on one core
    n, _, stats, cents = cv2.connectedComponentsWithStatsWithAlgorithm(
        ink, 8, cv2.CV_32S, cv2.CCL_GRANA)
    if n <= 1:
        return []
    st = stats[1:]
    ce = cents[1:]
    bx, by, bw, bh, area = (st[:, i] for i in range(5))
    side = np.maximum(bw, bh)
    max_side = min(small.shape[:2]) / 6
    keep = ((side >= _MIN_GLYPH) & (side <= max_side) & (np.minimum(bw, bh) * 5 >= side)
            & (area >= 0.12 * bw * bh))
    if skip is not None:
        sk = skip if scale == 1.0 else cv2.resize(skip, (small.shape[1], small.shape[0]),
                                                  interpolation=cv2.INTER_NEAREST)
        cx = np.clip(ce[:, 0].round().astype(int), 0, small.shape[1] - 1)
        cy = np.clip(ce[:, 1].round().astype(int), 0, small.shape[0] - 1)
        keep &= sk[cy, cx] == 0
    idx = np.flatnonzero(keep)
    if idx.size < 2:
        return []
    # paper all round: the share of paper in the glyph's box grown by most of its size
    sh, sw = small.shape[:2]
    pad = 0.6 * side[idx]
    x0 = np.clip(bx[idx] - pad, 0, sw).astype(int)
    y0 = np.clip(by[idx] - pad, 0, sh).astype(int)
    x1 = np.clip(bx[idx] + bw[idx] + pad, 0, sw).astype(int)
    y1 = np.clip(by[idx] + bh[idx] + pad, 0, sh).astype(int)
    tot = levels.paper_counts(x0, y0, x1, y1)
    share = tot / np.maximum((x1 - x0) * (y1 - y0), 1)
    on_paper = share >= _PAPER_SHARE
    idx, share = idx[on_paper], share[on_paper]
    if idx.size > _MAX_GLYPHS:  # a page of print: its most paper-surrounded marks
        best = np.argsort(-share, kind="stable")[:_MAX_GLYPHS]
        idx, share = idx[best], share[best]
    if idx.size < 2:
        return []
    pts = ce[idx]
    sides = side[idx].astype(np.float64)
    d = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
    s = sides[:, None]
    ratio = sides[None, :] / s
    near = (d >= 0.7 * s) & (d <= 1.5 * s) & (ratio >= 0.45) & (ratio <= 1.15)
    # text, not an index: many glyphs crowd round the first one
    crowd = np.count_nonzero((d < s) & (ratio >= 0.35), axis=1) - 1
    near &= (crowd <= 3)[:, None]
    ii, jj = np.nonzero(near)
    if ii.size == 0:
        return []
    score = -(np.abs(ratio[ii, jj] - _SUIT_RATIO[0]) / _SUIT_RATIO[1]
              + np.abs(d[ii, jj] / sides[ii] - _GAP[0]) / _GAP[1] + 0.5 * crowd[ii])
    order = np.argsort(-score, kind="stable")[:limit]
    out: list[GlyphPair] = []

    def at(p: npt.NDArray[np.float64]) -> tuple[float, float]:
        return float(p[0]) / scale, float(p[1]) / scale

    for i, j in zip(ii[order].tolist(), jj[order].tolist(), strict=True):
        # a glyph beside it of its size, across the rank-suit line: the other digit of
        # a 10, and the rank's centre lies between the two
        across = pts - pts[i]
        along = (pts[j] - pts[i]) / max(float(d[i, j]), 1e-6)
        side_by_side = ((d[i] <= 0.9 * sides[i]) & (ratio[i] >= 0.6) & (ratio[i] <= 1.6)
                        & (np.abs(across @ along) <= 0.35 * d[i]))
        side_by_side[[i, j]] = False
        if side_by_side.any():
            k = int(np.flatnonzero(side_by_side)[np.argmin(d[i][side_by_side])])
            out.append(GlyphPair(at((pts[i] + pts[k]) / 2), at(pts[j])))
        out.append(GlyphPair(at(pts[i]), at(pts[j])))
    out = out[:limit]
    if span is None and order.size:  # the likeliest pairs' own distance
        span = float(np.median(d[ii[order[:8]], jj[order[:8]]])) / scale
    if span is not None:
        paired = np.zeros(idx.size, bool)
        paired[ii] = True
        paired[jj] = True
        out += [GlyphPair(at(t), at(b), faint=True) for t, b in faint_ranks(
            small, pts[~paired], sides[~paired], span * scale)]
    return out


PAIR_SCALE: Final = (0.6, 1.8)
"""A glyph pair whose rank-suit distance lies within these shares of the distance the
frame's cards make likely (:func:`by_scale`) is read first."""
RANK_SUIT: Final = 0.52
"""Rank-to-suit centre distance as a share of the index's height (measured on the read
indices of the development decks' scenes: 0.104 and 0.102 of the card's height against
indices 0.20 and 0.19 of it)."""


def by_scale(pairs: list[GlyphPair], spans: list[float]) -> list[GlyphPair]:
    """``pairs`` with those of the likely index size first (else in their own order): the
    cards of one table are one size, so the cards already read tell how far apart a rank
    and its suit lie (``spans``: that distance as each card read shows it, frame px: its
    length times the deck's index height times :data:`RANK_SUIT`, or an index pair read).
    Big pips two by two look like an index twice the size and crowd out the real ones in
    a frame full of number cards. With nothing read yet, ``pairs`` unchanged."""
    if not spans:
        return pairs
    expected = float(np.median(spans))
    lo, hi = PAIR_SCALE
    return sorted(pairs, key=lambda p: not lo <= p.distance / expected <= hi)


def _axes(pair: GlyphPair) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64],
                                    npt.NDArray[np.float64], float, int]:
    """The crop's frame geometry: centre, down and right vectors (unit vectors on the
    table, seen through ``pair.view``), frame px per crop px along them, crop width."""
    if pair.view == FLAT:
        u = pair.down
        v = np.array([u[1], -u[0]])  # right on the card's face (image y runs down)
        dist = pair.distance
    else:  # the pair as it lies on the table, then seen again through the view
        a = np.array(pair.view, np.float64).reshape(2, 2)
        d = np.linalg.solve(a, np.subtract(pair.bottom, pair.top))
        dist = max(float(np.hypot(*d)), 1e-6)
        ut = d / dist
        u, v = a @ ut, a @ np.array([ut[1], -ut[0]])
    span_w, span_h = _CROP_SPAN
    k = span_h * dist / CROP_H
    cw = round(CROP_H * span_w / span_h)
    mid = (np.asarray(pair.top) + np.asarray(pair.bottom)) / 2
    # the index sits in the crop's upper left: its centre about 0.4 of the crop down and
    # 0.28 across, as in a corner crop of a standard card
    centre = mid + u * (0.10 * span_h * dist) + v * (0.113 * span_w * dist)
    return centre, u, v, k, cw


def upright_crop(frame: Image, pair: GlyphPair) -> Image:
    """The frame around ``pair`` resampled upright (rank above suit) into a crop of
    :data:`CROP_H` rows, the shape of the reader's index corner crop. ``frame`` is BGR or
    its :func:`~tablectl.vision.cardview.warp_source` (the crop is BGR either way)."""
    centre, u, v, k, cw = _axes(pair)
    ox = centre - k * (cw / 2 * v + CROP_H / 2 * u)
    m = np.array([[k * v[0], k * u[0], ox[0]], [k * v[1], k * u[1], ox[1]]], np.float64)
    out: Image = cv2.warpAffine(frame, m, (cw, CROP_H),
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    if out.ndim == 3 and out.shape[2] == 4:
        return np.asarray(cv2.cvtColor(out, cv2.COLOR_BGRA2BGR))
    return out


def realigned(pair: GlyphPair, axis: tuple[float, float, float, float]) -> GlyphPair:
    """The pair through the rank's and suit's centres as read in ``pair``'s upright crop
    (``axis``: ``rx, ry, sx, sy`` in crop px): the first guess may have joined a suit to
    one digit of a ``10``, or be a few degrees off."""
    centre, u, v, k, cw = _axes(pair)
    origin = centre - k * (cw / 2 * v + CROP_H / 2 * u)
    rx, ry, sx, sy = axis
    top = origin + k * (rx * v + ry * u)
    bottom = origin + k * (sx * v + sy * u)
    return GlyphPair((float(top[0]), float(top[1])), (float(bottom[0]), float(bottom[1])),
                     pair.view)


def card_quad(pair: GlyphPair, box: tuple[int, int, int, int], tilt: float = 0.0,
              place: tuple[float, float, float] = INDEX_ON_CARD) -> Quad:
    """The card's outline estimated from its index: ``box`` is the index's ``(x, y, w, h)``
    in the upright crop of ``pair``, ``tilt`` how far the card's down axis leans from the
    crop's towards its right (radians), ``place`` where the index sits on the deck's cards
    (see :data:`INDEX_ON_CARD`). Portrait, clockwise from the index corner, in frame px."""
    centre, u, v, k, cw = _axes(pair)
    origin = centre - k * (cw / 2 * v + CROP_H / 2 * u)
    bx, by, _, bh = box
    top_left = origin + k * (bx * v + by * u)
    down = np.sin(tilt) * v + np.cos(tilt) * u
    right = np.cos(tilt) * v - np.sin(tilt) * u
    ox, oy, frac = place
    card_h = k * bh / frac
    card_w = card_h / CARD_ASPECT
    c0 = top_left - ox * card_w * right - oy * card_h * down
    c1 = c0 + card_w * right
    c2 = c1 + card_h * down
    c3 = c0 + card_h * down
    return ((float(c0[0]), float(c0[1])), (float(c1[0]), float(c1[1])),
            (float(c2[0]), float(c2[1])), (float(c3[0]), float(c3[1])))


VIEW_STRETCH: Final = 1.1
"""A view that stretches directions on the table less than this (its larger singular value
over its smaller) is as good as :data:`FLAT`: the crop cut through it differs by under 5%
along each axis, well inside the index layout's gate (0.15 of the rank's height); the
rendered tables of the bench, tilted up to 30 degrees, give 1.01-1.03, the webcam over the
blackjack table 1.15-1.5."""


def stretch(view: View) -> float:
    """How much ``view`` stretches one direction on the table against another."""
    s = np.linalg.svd(np.array(view, np.float64).reshape(2, 2), compute_uv=False)
    return float(s[0] / max(float(s[1]), 1e-9))


CardMaps = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]
"""The perspective maps of a frame's accepted cards (:func:`card_maps`): each card's map
from a card-shaped rectangle to its outline, its inverse, and the outline's centre."""


def card_maps(quads: Sequence[Quad]) -> CardMaps:
    """The perspective map of each outline in ``quads`` (each a card of
    :data:`~tablectl.vision.grow.CARD_ASPECT` whose first side is its top edge, as the
    card was read): the image of a card-shaped rectangle on the table. Made once a frame;
    :func:`view_at` evaluates them wherever a pair lies."""
    src = np.array([[0, 0], [1, 0], [1, CARD_ASPECT], [0, CARD_ASPECT]], np.float32)
    homs, backs, centres = [], [], []
    for q in quads:
        p = np.array(q, np.float32)
        hom = cv2.getPerspectiveTransform(src, p)
        if abs(float(np.linalg.det(hom))) < 1e-12:
            continue
        homs.append(hom)
        backs.append(np.linalg.inv(hom))
        centres.append(p.mean(axis=0))
    if not homs:
        return np.zeros((0, 3, 3)), np.zeros((0, 3, 3)), np.zeros((0, 2))
    return np.array(homs), np.array(backs), np.array(centres, np.float64)


def view_at(maps: CardMaps, at: tuple[float, float]) -> View:
    """How the table is seen at the frame point ``at``: each card's map (``maps``) taken
    there (its derivative), its metric (``J J^T``: the card's own turn on the table drops
    out) scaled to determinant 1, the metrics averaged, nearer cards counting more (the far
    row of a table is shortened more than the near one), and the symmetric square root
    taken. :data:`FLAT` where no card tells, or the view stretches less than
    :data:`VIEW_STRETCH`."""
    homs, backs, centres = maps
    if not len(homs):
        return FLAT
    t = backs @ np.array([at[0], at[1], 1.0])
    ok = np.abs(t[:, 2]) > 1e-12
    x = t[:, 0] / np.where(ok, t[:, 2], 1.0)
    y = t[:, 1] / np.where(ok, t[:, 2], 1.0)
    h = homs
    w = h[:, 2, 0] * x + h[:, 2, 1] * y + h[:, 2, 2]
    ok &= np.abs(w) > 1e-12
    w = np.where(ok, w, 1.0)
    u = (h[:, 0, 0] * x + h[:, 0, 1] * y + h[:, 0, 2]) / w
    v = (h[:, 1, 0] * x + h[:, 1, 1] * y + h[:, 1, 2]) / w
    jac = np.stack([np.stack([h[:, 0, 0] - u * h[:, 2, 0], h[:, 0, 1] - u * h[:, 2, 1]], -1),
                    np.stack([h[:, 1, 0] - v * h[:, 2, 0], h[:, 1, 1] - v * h[:, 2, 1]], -1)],
                   1) / w[:, None, None]
    det = np.abs(np.linalg.det(jac))
    ok &= det > 1e-12
    if not ok.any():
        return FLAT
    jac, det = jac[ok], det[ok]
    jac = jac / np.sqrt(det)[:, None, None]
    size = np.sqrt(det * CARD_ASPECT)
    far = np.hypot(*(centres[ok] - np.array(at)).T)
    m = np.average(jac @ jac.transpose(0, 2, 1), axis=0, weights=1.0 / (far + size) ** 2)
    ev, vecs = np.linalg.eigh(m)
    root = vecs @ np.diag(np.sqrt(np.maximum(ev, 1e-9))) @ vecs.T
    root /= np.sqrt(float(np.linalg.det(root)))
    view = (float(root[0, 0]), float(root[0, 1]), float(root[1, 0]), float(root[1, 1]))
    return view if stretch(view) >= VIEW_STRETCH else FLAT


def table_view(quads: Sequence[Quad], at: tuple[float, float]) -> View:
    """How the table is seen at ``at``, from the outlines ``quads`` of cards accepted in
    the frame (:func:`card_maps`, :func:`view_at`): each outline is the image of a
    card-shaped rectangle on the table, so the perspective map from one to the other tells
    how directions on the table are stretched at any point of the frame."""
    return view_at(card_maps(quads), at)


PLACE_SCALES: Final = (1.0, 0.95, 1.05)
"""A card placed from its index is as uncertain as the index's size: a glyph 15-20 px tall
measured a pixel off puts the card's far corner 5-10% of its length away. The face of a
card found by its index corner is compared at these scales of the placed card's width and
height (:func:`placements`)."""


def placements(q: Quad) -> Iterator[Quad]:
    """``q`` (a card placed by :func:`card_quad`) itself first, then scaled along its width
    and height about its index corner by each pair of :data:`PLACE_SCALES`."""
    p = np.array(q, np.float64)
    right, down = p[1] - p[0], p[3] - p[0]
    for sx in PLACE_SCALES:
        for sy in PLACE_SCALES:
            c1, c3 = p[0] + sx * right, p[0] + sy * down
            c2 = c1 + sy * down
            yield (q[0], (float(c1[0]), float(c1[1])), (float(c2[0]), float(c2[1])),
                   (float(c3[0]), float(c3[1])))


def inside_share(q: Quad, width: int, height: int) -> float:
    """Share of quad ``q``'s area that lies inside a ``width`` x ``height`` frame."""
    poly = np.array(q, np.float32).reshape(-1, 1, 2)
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]],
                     np.float32).reshape(-1, 1, 2)
    area = float(cv2.contourArea(poly))
    if area <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(poly, frame)
    return float(inter) / area


def matching_corners(frame: Image, limit: int = 24) -> list[Image]:
    """The two index corners of the one card in ``frame``, as upright crops, found with no
    outline (for enrolment, where nothing is known of the deck yet): two glyph pairs whose
    indices show the same rank and suit glyphs (correlation at least :data:`SAME_INDEX`), turned
    half a turn from each other and a card's length apart. Empty if no two corners agree.
    """
    seen: list[tuple[GlyphPair, Image, IndexGlyphs]] = []
    for pair in glyph_pairs(frame, limit=limit):
        crop = upright_crop(frame, pair)
        found = find_index(crop, max_pairs=1)
        if found:
            seen.append((pair, crop, found[0]))
    best: tuple[float, Image, Image] | None = None
    for i, (pa, ca, ga) in enumerate(seen):
        for pb, cb, gb in seen[i + 1:]:
            if float(pa.down @ pb.down) > -0.8:
                continue  # a card's two corners face opposite ways
            apart = float(np.hypot(*np.subtract(pa.top, pb.top)))
            if apart < 3.0 * max(pa.distance, pb.distance):
                continue
            same = min(float(ga.rank @ gb.rank), float(ga.suit @ gb.suit))
            if same >= SAME_INDEX and (best is None or same > best[0]):
                best = (same, ca, cb)
    return [] if best is None else [best[1], best[2]]
