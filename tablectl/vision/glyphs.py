"""Corner-index segmentation: from an index crop to normalised rank and suit glyphs.

Steps, each chosen to survive real cameras rather than the renderer:

1. Scale the crop to :data:`CANON_H` rows; take the darkest channel per pixel, so red, black,
   blue and green ink are all dark on paper.
2. Flat-field: divide by a morphological closing (the local paper brightness), which removes
   vignetting, gradients and most glare; ``ink = 1 - grey / paper``.
3. Otsu on the ink image (with a floor, so a blank crop gives no glyphs), connected
   components; drop specks, components touching the crop border (card edge, table, pips cut
   by the crop) and oversized ones.
4. Pair: a rank is a component merged with its side-by-side neighbours of similar height
   (so ``10`` is one rank, never just its ``0``); the suit is the nearest component below it
   in the same column, and nothing index-sized may follow right under the suit (a word
   written downwards, like a joker's ``JOKER``, is not an index), nor may the suit-sized
   shape repeat many times over the crop (a card back's pattern). The first few
   components nearest the crop's top-left corner are tried as ranks (a big pip beside a
   small index may reach higher than the rank); the classifier keeps the best pairing.
5. Each glyph (ink values, masked to its components) is fitted, aspect preserved, into a fixed
   box, slightly blurred, made zero-mean and unit-norm: correlation is then one dot product.
   The whole index (rank + suit together) is normalised the same way, and a layout vector
   (suit size, gap, offset and rank aspect relative to rank height) and the ink colour
   relative to the paper are measured for the deck checks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.model import Image

Vec = npt.NDArray[np.float32]

CANON_H: Final = 120
RANK_BOX: Final = (24, 32)
SUIT_BOX: Final = (24, 24)
INDEX_BOX: Final = (32, 48)
LAYOUT_LEN: Final = 6
"""Entries of :attr:`IndexGlyphs.layout`."""
_CLOSE_K: Final = cv2.getStructuringElement(cv2.MORPH_RECT, (45, 45))
_DILATE_K: Final = np.ones((3, 3), np.uint8)
_PAPER_FLOOR: Final = 80.0
_PATTERN: Final = 12
FAINT_LEVELS: Final = (0.6,)
"""Lower ink cuts tried after Otsu's, as fractions of it (see :func:`index_candidates`)."""
WEAK: Final = 0.4
"""The weak cut of the last look, as a fraction of Otsu's (see :func:`grown_cut`)."""


@dataclass(frozen=True, slots=True)
class IndexGlyphs:
    """One candidate rank/suit pair found in an index crop.

    Attributes:
        rank: normalised rank glyph (``RANK_BOX`` flattened, zero mean, unit norm).
        suit: normalised suit glyph.
        index: normalised rank+suit patch.
        layout: suit height, suit width, gap, horizontal offset, rank width, all divided by
            the rank height; then the rank's ink fill (stroke weight).
        chroma: ink colour relative to paper, ``(r - g, b - g)`` of the ratio ink/paper;
            about ``(0, 0)`` for black ink, ``(0.6, 0)`` for red.
        box: the index's bounding box ``(x, y, w, h)`` in canonical crop pixels.
        axis: the rank's and the suit's box centres ``(rx, ry, sx, sy)``, same pixels.
    """

    rank: Vec
    suit: Vec
    index: Vec
    layout: Vec
    chroma: Vec
    box: tuple[int, int, int, int]
    axis: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class _Comp:
    label: int
    x: int
    y: int
    w: int
    h: int
    area: int

    @property
    def bottom(self) -> int:
        return self.y + self.h

    @property
    def right(self) -> int:
        return self.x + self.w


def _union(comps: list[_Comp]) -> tuple[int, int, int, int]:
    first = comps[0]
    x0, y0, x1, y1 = first.x, first.y, first.x + first.w, first.y + first.h
    for c in comps[1:]:
        x0, y0 = min(x0, c.x), min(y0, c.y)
        x1, y1 = max(x1, c.x + c.w), max(y1, c.y + c.h)
    return x0, y0, x1 - x0, y1 - y0


def fit_glyph(patch: npt.NDArray[np.float32], size: tuple[int, int]) -> Vec:
    bw, bh = size
    h, w = patch.shape
    s = min(bw / w, bh / h)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    small = np.asarray(cv2.resize(patch, (nw, nh), interpolation=interp), np.float32)
    ox, oy = (bw - nw) // 2, (bh - nh) // 2
    # centred on a zero canvas in one call; the mean taken off and the norm divided in
    # place (the same float32 values as a new array each step, with ``np.linalg.norm``)
    canvas = cv2.copyMakeBorder(small, oy, bh - nh - oy, ox, bw - nw - ox,
                                cv2.BORDER_CONSTANT, value=0)
    v: Vec = np.asarray(cv2.GaussianBlur(canvas, (0, 0), 0.8), np.float32).ravel()
    v -= np.float32(float(np.add.reduce(v)) / v.size)  # ``v.mean()``, without its overhead
    n = float(np.sqrt(v.dot(v)))
    if n > 1e-6:
        np.divide(v, n, out=v)
    return v


def ink_image(crop: Image) -> tuple[Image, npt.NDArray[np.float32]]:
    """Scale ``crop`` (BGR) to :data:`CANON_H` rows; returns it and its flat-fielded ink map
    (0 paper .. 1 full ink)."""
    h, w = crop.shape[:2]
    if h != CANON_H:
        s = CANON_H / h
        crop = cv2.resize(crop, (max(8, round(w * s)), CANON_H),
                          interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    if crop.ndim == 3:
        b, g, r = cv2.split(crop)
        grey = cv2.min(cv2.min(b, g), r)
    else:
        grey = crop
    paper = cv2.morphologyEx(grey, cv2.MORPH_CLOSE, _CLOSE_K).astype(np.float32)
    # Ink is darkening relative to the local paper; the floor keeps sensor noise on dark or
    # saturated-colour areas (empty slot, cut card) from looking like ink.
    ink = paper - grey
    np.divide(ink, np.maximum(paper, _PAPER_FLOOR), out=ink)
    # ``np.clip(ink, 0, 1)`` without its wrapper's cost: the same values (ink holds no NaN
    # and no -0.0: a difference of whole numbers divided by a positive one)
    np.maximum(ink, 0.0, out=ink)
    return crop, np.minimum(ink, 1.0, out=ink)


def find_index(crop: Image, max_pairs: int = 3) -> list[IndexGlyphs]:
    """Candidate rank/suit pairs in an index crop (BGR, index upright), best-placed first.

    Returns an empty list when the crop holds nothing index-like (blank paper, a card back's
    pattern, an empty shoe slot).
    """
    return next(index_candidates(crop, max_pairs), [])


def find_grown_index(crop: Image, max_pairs: int = 3) -> list[IndexGlyphs]:
    """:func:`find_index` at the hysteresis cut of :func:`grown_cut` (no pairs where that
    cut changes no glyph): enrolment's look at a faint index, as recognition's last."""
    if crop.ndim != 3 or crop.shape[0] < 16 or crop.shape[1] < 8:
        return []
    colour, ink = ink_image(crop)
    ink8 = (ink * 255).astype(np.uint8)
    if int(np.maximum.reduce(ink8, axis=None)) < 70:  # ``ink8.max()``
        return []
    otsu, _ = cv2.threshold(ink8, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    first = max(otsu, 55.0)
    grown = grown_cut(ink8, first, first * WEAK)
    return [] if grown is None else _pairs(colour, ink, ink8, first, max_pairs, binary=grown)


def index_candidates(crop: Image, max_pairs: int = 3, *, grown: bool = False,
                     ) -> Iterator[list[IndexGlyphs]]:
    """:func:`find_index`'s candidates at the ink threshold Otsu gives, then at each of
    :data:`FAINT_LEVELS` of it: on a small or blurred card thin strokes (a red ``9`` or
    ``Q``) carry much less ink than the big pip beside them, so the first cut loses part of
    the rank; last, with ``grown`` and where it changes a glyph, the hysteresis cut of
    :func:`grown_cut`. A caller stops as soon as it is satisfied; nothing is computed
    twice."""
    if crop.ndim != 3 or crop.shape[0] < 16 or crop.shape[1] < 8:
        return
    colour, ink = ink_image(crop)
    ink8 = (ink * 255).astype(np.uint8)
    if int(np.maximum.reduce(ink8, axis=None)) < 70:  # ``ink8.max()``
        return
    otsu, _ = cv2.threshold(ink8, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    first = max(otsu, 55.0)
    for level in (1.0, *FAINT_LEVELS):
        yield _pairs(colour, ink, ink8, first * level, max_pairs)
    if grown:
        mended = grown_cut(ink8, first, first * WEAK)
        if mended is not None:
            yield _pairs(colour, ink, ink8, first, max_pairs, binary=mended)


def grown_cut(ink8: Image, strong: float, weak: float) -> Image | None:
    """The last look at a faint index: ink past ``weak`` joined to ink past ``strong``
    (a hysteresis cut). On a small, blurred print the thin strokes of a ``2`` or a ``4``
    carry so little ink that every single cut breaks the rank into pieces, or keeps only
    one; grown from its strong pieces through the weak ink around them the glyph is
    whole again, while weak ink touching no strong ink (paper grain, a shadow) stays out.
    ``None`` where this changes no glyph (no weak piece joins two strong ones or grows one
    by a third in height): the earlier cuts saw the same shapes."""
    _, hi = cv2.threshold(ink8, strong, 255, cv2.THRESH_BINARY)
    _, lo = cv2.threshold(ink8, weak, 255, cv2.THRESH_BINARY)
    # Grana's algorithm, as in :func:`_pairs` (the default's labels, in less time)
    n_hi, lab_hi, st_hi, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        hi, 8, cv2.CV_32S, cv2.CCL_GRANA)
    n_lo, lab_lo, st_lo, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        lo, 8, cv2.CV_32S, cv2.CCL_GRANA)
    if n_hi < 2:
        return None
    # each strong piece lies inside one weak one: which (one pass over the strong ink)
    owner = np.zeros(n_hi, np.int64)
    on = hi > 0
    owner[lab_hi[on]] = lab_lo[on]
    pieces = np.bincount(owner[1:], minlength=n_lo)
    tallest = np.zeros(n_lo, np.int64)
    np.maximum.at(tallest, owner[1:], st_hi[1:, cv2.CC_STAT_HEIGHT])
    seeded = pieces > 0
    seeded[0] = False
    changed = seeded & ((pieces >= 2) | (st_lo[:, cv2.CC_STAT_HEIGHT] > 1.33 * tallest))
    if not changed.any():
        return None
    out: Image = np.where(seeded[lab_lo], 255, 0).astype(np.uint8)
    return out


def _pairs(colour: Image, ink: npt.NDArray[np.float32], ink8: Image, cut_at: float,
           max_pairs: int, *, binary: Image | None = None) -> list[IndexGlyphs]:
    """The rank/suit pairs of the ink map cut at ``cut_at`` (0..255), or of ``binary``
    (the ink map already cut)."""
    if binary is None:
        _, binary = cv2.threshold(ink8, cut_at, 255, cv2.THRESH_BINARY)
    # Bridge 1-2 px breaks in thin strokes (low resolution, worn print) so a glyph stays one
    # component; the rank/suit gap is wider than that.
    binary = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, _DILATE_K)
    binary = _without_lines(binary)
    n, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        binary, 8, cv2.CV_32S, cv2.CCL_GRANA)
    hh, ww = binary.shape
    min_area = max(10, int(0.0015 * hh * ww))
    comps: list[_Comp] = []
    cut: list[_Comp] = []  # glyph-sized but cut by the crop's edge
    for i, (x, y, w, h, area) in enumerate(stats[1:n, :5].tolist(), start=1):
        if area < min_area or w > 0.9 * ww:
            continue
        if x == 0 or y == 0 or x + w >= ww or y + h >= hh:
            cut.append(_Comp(i, x, y, w, h, area))
        elif 0.06 * hh <= h <= 0.6 * hh:
            comps.append(_Comp(i, x, y, w, h, area))
    # The index sits in the card's corner: rank candidates are tried nearest the crop's
    # top-left first, so a big pip beside a small index (whose top may lie higher than the
    # rank's) is not taken for the rank.
    comps.sort(key=lambda c: c.x + c.y)
    out: list[IndexGlyphs] = []
    used_starts: set[int] = set()
    for start in comps[: max_pairs + 1]:
        if start.label in used_starts:
            continue
        group = [start]
        in_group = {start.label}
        grown = True
        while grown:
            grown = False
            gx, gy, gw, gh = _union(group)
            for c in comps:
                if c.label in in_group:
                    continue
                overlap = min(gy + gh, c.bottom) - max(gy, c.y)
                gap = max(c.x - (gx + gw), gx - c.right)
                if (overlap >= 0.6 * min(gh, c.h) and gap <= 0.35 * gh
                        and 0.6 <= c.h / gh <= 1.6):
                    group.append(c)
                    in_group.add(c.label)
                    grown = True
        used_starts.update(c.label for c in group)
        rx, ry, rw, rh = _union(group)
        if rh < 0.1 * hh:
            continue
        suit: _Comp | None = None
        for c in comps:
            if c.label in in_group or c.y < ry + 0.6 * rh or c.y - (ry + rh) > 0.9 * rh:
                continue
            cx = c.x + c.w / 2
            if not rx - 0.3 * rh <= cx <= rx + rw + 0.3 * rh:
                continue
            if c.h < 0.3 * rh or c.h > 1.5 * rh:
                continue
            if suit is None or c.y < suit.y:
                suit = c
        if suit is None or _stacked_below([*comps, *cut], group, suit, rh):
            continue
        if _repeated(comps, suit) >= _PATTERN:
            continue  # a pattern (card back), not an index
        out.append(_describe(colour, ink, np.asarray(labels, np.int32), group, suit))
    return out


def _without_lines(binary: Image) -> Image:
    """``binary`` with long straight lines parallel to the card's edges taken out: the thin
    frame around a court card's picture, which a small suit touches once the card is warped
    small, merging the two into one shape that runs off the crop (no index found)."""
    hh, ww = binary.shape
    # Each line is an opening (an erosion, then a dilation by the same line), and most
    # crops hold no line at all: where the erosion leaves nothing, so does the opening.
    found = []
    for line in (_line((max(3, int(0.45 * hh)), 1)), _line((1, max(3, int(0.6 * ww))))):
        core = cv2.erode(binary, line)
        if cv2.countNonZero(core):
            found.append(cv2.dilate(core, line))
    if not found:
        return binary
    lines = cv2.dilate(found[0] if len(found) == 1 else cv2.bitwise_or(*found), _DILATE_K)
    if not cv2.countNonZero(lines):
        return binary
    return cv2.bitwise_and(binary, cv2.bitwise_not(lines))


_LINES: dict[tuple[int, int], Image] = {}
_LINES_KEPT: Final = 64
"""The most line kernels :func:`_line` keeps (a crop of an odd width makes its own)."""


def _line(shape: tuple[int, int]) -> Image:
    """A line kernel of ``shape`` (rows, columns) for :func:`_without_lines`, made once
    per shape (a crop's size sets it; the crops of one card size share them)."""
    k = _LINES.get(shape)
    if k is None:
        k = np.ones(shape, np.uint8)
        if len(_LINES) < _LINES_KEPT:
            _LINES[shape] = k
    return k


def _stacked_below(comps: list[_Comp], rank: list[_Comp], suit: _Comp, rh: int) -> bool:
    """True if another glyph sits right under the suit in the suit's column: a word written
    downwards (a joker's ``JOKER``), not a rank/suit index."""
    scx = suit.x + suit.w / 2
    for c in comps:
        if c is suit or c in rank:
            continue
        cx = c.x + c.w / 2
        if (suit.bottom - 0.2 * rh <= c.y <= suit.bottom + 0.6 * rh
                and abs(cx - scx) <= 0.35 * rh and c.w >= 0.3 * rh):
            return True
    return False


def _repeated(comps: list[_Comp], like: _Comp) -> int:
    """How many components have about the size of ``like``."""
    return sum(1 for c in comps
               if 0.67 <= c.h / like.h <= 1.5 and 0.67 <= c.w / max(like.w, 1) <= 1.5)


def _describe(colour: Image, ink: npt.NDArray[np.float32], labels: npt.NDArray[np.int32],
              rank: list[_Comp], suit: _Comp) -> IndexGlyphs:
    rx, ry, rw, rh = _union(rank)
    both = [*rank, suit]
    ix, iy, iw, ih = _union(both)
    layout = np.array([
        suit.h / rh,
        suit.w / rh,
        (suit.y - (ry + rh)) / rh,
        ((suit.x + suit.w / 2) - (rx + rw / 2)) / rh,
        rw / rh,
        sum(c.area for c in rank) / float(rw * rh),
    ], np.float32)
    # The rank's and the suit's masks made once, in the index's box grown by the colour's
    # margin, for the three glyphs and the colour: a glyph's mask grown in that box, then
    # cut to its own box, is the mask grown in its own box (none of the glyph's pixels lies
    # outside it), and the index's grown mask is the union of the two grown ones
    # (docs/camera.md §6, "Cost: a look's small work").
    pad = _CHROMA_PAD
    y0, y1 = max(0, iy - pad), min(ink.shape[0], iy + ih + pad)
    x0, x1 = max(0, ix - pad), min(ink.shape[1], ix + iw + pad)
    lab = labels[y0:y1, x0:x1]
    rank_mask = lab == rank[0].label
    for c in rank[1:]:
        rank_mask |= lab == c.label
    suit_mask = lab == suit.label
    rank_grown = cv2.dilate(rank_mask.view(np.uint8), _DILATE_K)
    suit_grown = cv2.dilate(suit_mask.view(np.uint8), _DILATE_K)
    ink_box = ink[y0:y1, x0:x1]

    def glyph(grown: Image, box: tuple[int, int, int, int], size: tuple[int, int]) -> Vec:
        x, y, w, h = box
        part = (slice(y - y0, y - y0 + h), slice(x - x0, x - x0 + w))
        return fit_glyph(ink_box[part] * grown[part], size)

    mask = rank_mask | suit_mask
    return IndexGlyphs(
        rank=glyph(rank_grown, (rx, ry, rw, rh), RANK_BOX),
        suit=glyph(suit_grown, (suit.x, suit.y, suit.w, suit.h), SUIT_BOX),
        index=glyph(cv2.bitwise_or(rank_grown, suit_grown), (ix, iy, iw, ih), INDEX_BOX),
        layout=layout,
        chroma=_chroma_in(colour[y0:y1, x0:x1], ink_box, mask) if colour.ndim == 3
        else np.zeros(2, np.float32),
        box=(ix, iy, iw, ih),
        axis=(rx + rw / 2, ry + rh / 2, suit.x + suit.w / 2, suit.y + suit.h / 2),
    )


_CHROMA_PAD: Final = 3
"""Pixels round the index's box in which its ink colour is measured against the paper."""


def _chroma_in(pix: Image, ink_r: npt.NDArray[np.float32],
               mask: npt.NDArray[np.bool_]) -> Vec:
    """The ink colour relative to the paper (:attr:`IndexGlyphs.chroma`) in a box of the
    crop: ``pix`` its BGR pixels, ``ink_r`` its ink, ``mask`` the index's glyphs there."""
    m8 = mask.view(np.uint8)
    if not cv2.countNonZero(m8):
        return np.zeros(2, np.float32)
    strong = mask & (ink_r >= 0.6 * float(cv2.minMaxLoc(ink_r, m8)[1]))
    paper = ink_r < 0.08
    n_paper = cv2.countNonZero(paper.view(np.uint8))
    if not n_paper:
        return np.zeros(2, np.float32)
    ink_bgr = _mean_bgr(pix, strong)
    paper_bgr = np.maximum(_mean_bgr(pix, paper, n_paper), 1.0)
    b, g, r = ink_bgr / paper_bgr
    return np.array([r - g, b - g], np.float32)


_EXACT_SUMS: Final = 2**24 // 255
"""Up to this many uint8 values sum to a whole number below 2**24, which float32 holds."""


def _mean_bgr(pix: Image, where: npt.NDArray[np.bool_], n: int | None = None) -> Vec:
    """The mean colour of ``pix`` (uint8 BGR) where ``where`` is set, in float32 as numpy's
    ``pix[where].astype(np.float32).mean(axis=0)`` gives it (the sums of up to
    :data:`_EXACT_SUMS` uint8 values are whole numbers that float32 holds exactly, so they
    are taken from OpenCV's masked mean and divided as numpy does), at a tenth of its
    cost. ``n``: how many of ``where`` are set, where the caller counted them."""
    m8 = where.view(np.uint8)
    if n is None:
        n = cv2.countNonZero(m8)
    if n > _EXACT_SUMS:  # a crop far wider than an index's: numpy's own rounding
        plain: Vec = pix[where].astype(np.float32).mean(axis=0)
        return plain
    sums = np.rint(np.array(cv2.mean(pix, mask=m8)[:3]) * n).astype(np.float32)
    out: Vec = sums / np.float32(n)
    return out
