"""Pip evidence for number cards: how many pips the card's face shows and where.

A number card's index is 10-20 px on a poor photo and blur takes its strokes; its pips
are three to four times larger and survive. The count and layout of the pips of a warped
canonical card (``cardview.CARD_W`` x ``CARD_H``) tell its rank (2-10: two pips on the
centre line, three, four at the corners, five with the centre, six in two columns of
three, ...), and their shape, compared with the deck's own enrolled suit glyphs, its suit.
No enrolled photo's sharpness enters: the layouts are the same on every standard deck, and
a pip is large enough to compare with a suit glyph at the glyph's own size.

Only numpy and OpenCV; no state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.domain.cards import Card, Rank, Suit
from tablectl.vision.glyphs import SUIT_BOX, fit_glyph
from tablectl.vision.model import Image

Vec = npt.NDArray[np.float32]

_SIDE: Final = 0.30
_MID: Final = 0.5
LAYOUTS: Final[dict[Rank, tuple[tuple[float, float], ...]]] = {
    Rank.TWO: ((_MID, 0.2), (_MID, 0.8)),
    Rank.THREE: ((_MID, 0.2), (_MID, 0.5), (_MID, 0.8)),
    Rank.FOUR: ((_SIDE, 0.2), (1 - _SIDE, 0.2), (_SIDE, 0.8), (1 - _SIDE, 0.8)),
    Rank.FIVE: ((_SIDE, 0.2), (1 - _SIDE, 0.2), (_MID, 0.5), (_SIDE, 0.8), (1 - _SIDE, 0.8)),
    Rank.SIX: ((_SIDE, 0.2), (1 - _SIDE, 0.2), (_SIDE, 0.5), (1 - _SIDE, 0.5), (_SIDE, 0.8),
               (1 - _SIDE, 0.8)),
    Rank.SEVEN: ((_SIDE, 0.2), (1 - _SIDE, 0.2), (_MID, 0.35), (_SIDE, 0.5), (1 - _SIDE, 0.5),
                 (_SIDE, 0.8), (1 - _SIDE, 0.8)),
    Rank.EIGHT: ((_SIDE, 0.2), (1 - _SIDE, 0.2), (_MID, 0.35), (_SIDE, 0.5), (1 - _SIDE, 0.5),
                 (_MID, 0.65), (_SIDE, 0.8), (1 - _SIDE, 0.8)),
    Rank.NINE: ((_SIDE, 0.2), (1 - _SIDE, 0.2), (_SIDE, 0.4), (1 - _SIDE, 0.4), (_MID, 0.5),
                (_SIDE, 0.6), (1 - _SIDE, 0.6), (_SIDE, 0.8), (1 - _SIDE, 0.8)),
    Rank.TEN: ((_SIDE, 0.2), (1 - _SIDE, 0.2), (_MID, 0.3), (_SIDE, 0.4), (1 - _SIDE, 0.4),
               (_SIDE, 0.6), (1 - _SIDE, 0.6), (_MID, 0.7), (_SIDE, 0.8), (1 - _SIDE, 0.8)),
}
"""Where a standard deck's pips lie on the card (fractions of its width and height)."""
PLACE: Final = (0.10, 0.09)
"""How far (fraction of the card's width, height) a pip may lie from its layout's place."""
INDEX_ZONE: Final = (0.20, 0.27)
"""Each corner's index (fraction of width, height): its glyphs are not pips."""
PIP_SIZE: Final = (0.45, 1.8)
"""A pip's ink area against the median of the card's pip-sized marks."""
PIP_LEAST: Final = 0.003
"""The least pip area, as a share of the card's (a 200x280 card: 170 px, a 13x13 mark)."""
PIP_MOST: Final = 0.06
PIP_MATCH: Final = 0.95
"""The least mean correlation of a card's pips with the deck's enrolled pips of its suit."""
PIPS_BLUR: Final = 3.9
"""The least pip edge width (:attr:`Pips.edge`) at which a card's index is taken as too
blurred for its print to be checked against the enrolled one (its strokes are about as
wide): only then may the pips decide a read whose print is not this deck's. The number
cards of other designs (``many_designs``, sharp scans and photos) measure 1.7-3.85,
blurred hand-held photos 3.5-7.4, nine in ten above 4.0 (docs/camera.md §6)."""
SHIFT: Final = (0.10, 0.05)
"""How far (fraction of the card's width, height) the pips of a two-column layout (4-10)
may lie off the card's centre, all together, and still read as it (:func:`_layout`): a
quad that takes in a finger or the table beside a held card's side puts them off by that
much (hand-held H6-003, docs/camera.md §6). A one-column layout (2, 3) is never moved: one
column of a 4 would read as a 2."""
PIP_SUIT_MARGIN: Final = 0.015
"""How much better the pips must fit their suit's enrolled pips than any other suit's."""


@dataclass(frozen=True, slots=True)
class Pips:
    """What a card's pips say.

    Attributes:
        rank: the number card whose layout the pips match (``None``: no layout matches).
        count: how many pips were found.
        shapes: each pip's normalised glyph (``SUIT_BOX``), turned upright.
    """

    rank: Rank | None
    count: int
    shapes: npt.NDArray[np.float32]
    edge: float = 0.0
    """How wide the pips' edges are (canonical card px from paper to full ink): a sharp
    print about 2, a blurred photo or a card warped up from a few px wider."""


_CLOSE_K: Final = cv2.getStructuringElement(cv2.MORPH_RECT, (31, 31))
"""Wider than a pip on the half-size card, so the closing is the paper under it."""


def _ink(card: Image) -> npt.NDArray[np.float32]:
    """Ink relative to the local paper (a shadow or a gradient across the card is paper),
    the paper taken at half size (a quarter of the work)."""
    h, w = card.shape[:2]
    if card.ndim == 3:
        b, g, r = cv2.split(card)
        grey = cv2.min(cv2.min(b, g), r)
    else:
        grey = card
    half = cv2.resize(grey, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    paper = cv2.resize(cv2.morphologyEx(half, cv2.MORPH_CLOSE, _CLOSE_K), (w, h),
                       interpolation=cv2.INTER_LINEAR)
    ink = 1.0 - grey.astype(np.float32) / np.maximum(paper, 40).astype(np.float32)
    out: npt.NDArray[np.float32] = np.maximum(ink, 0.0, out=ink)
    return out


def _matches(points: list[tuple[float, float]], layout: tuple[tuple[float, float], ...]) -> bool:
    if len(points) != len(layout):
        return False
    left = list(layout)
    for px, py in sorted(points, key=lambda p: (p[1], p[0])):
        near = [(abs(px - lx) / PLACE[0] + abs(py - ly) / PLACE[1], i)
                for i, (lx, ly) in enumerate(left)
                if abs(px - lx) <= PLACE[0] and abs(py - ly) <= PLACE[1]]
        if not near:
            return False
        left.pop(min(near)[1])
    return True


def _layout(points: list[tuple[float, float]]) -> Rank | None:
    """The rank whose layout ``points`` match (fractions of the card), where they lie in
    place or, for a two-column layout, all moved together by at most :data:`SHIFT`."""
    for r, lay in LAYOUTS.items():
        if _matches(points, lay):
            return r
    for r, lay in LAYOUTS.items():
        if len(points) != len(lay) or all(lx == _MID for lx, _ in lay):
            continue
        dx = float(np.mean([p[0] for p in points]) - np.mean([q[0] for q in lay]))
        dy = float(np.mean([p[1] for p in points]) - np.mean([q[1] for q in lay]))
        if (abs(dx) <= SHIFT[0] and abs(dy) <= SHIFT[1]
                and _matches([(px - dx, py - dy) for px, py in points], lay)):
            return r
    return None


def pip_columns(card: Image) -> tuple[float, float] | None:
    """The mean x (fraction of the card's width) of a two-column layout's left and right
    pips, where the card's pips read as one (4-6), else ``None``."""
    return _columns(_found(card))


def _columns(f: _Found) -> tuple[float, float] | None:
    """:func:`pip_columns` of the card whose pips are ``f``."""
    if f.keep is None or f.rank not in (Rank.FOUR, Rank.FIVE, Rank.SIX):
        return None
    xs = sorted(float(f.cx[i]) for i in f.keep)
    k = 2 if f.rank is not Rank.SIX else 3
    return float(np.mean(xs[:k])), float(np.mean(xs[-k:]))


def pip_rows(card: Image) -> tuple[float, float] | None:
    """Where the card's top and bottom lie (fractions of ``card``'s height, top down) as
    its pips' rows place them, where they read as a layout, else ``None``: each pip's
    height against its layout place's (:data:`LAYOUTS`, the pips moved together as
    :func:`_layout` allows) fitted by a line, whose values at 0 and 1 are the card's ends
    (a quad that stops short of the card's lower end, or runs past it, docs/camera.md §6)."""
    return _rows(_found(card))


def _rows(f: _Found) -> tuple[float, float] | None:
    """:func:`pip_rows` of the card whose pips are ``f``."""
    if f.keep is None or f.rank is None:
        return None
    points = [(float(f.cx[i]), float(f.cy[i])) for i in f.keep]
    turn = _layout(points) is None  # read as the card lying the other way up
    if turn:
        points = [(1.0 - px, 1.0 - py) for px, py in points]
    places = _placed(points, LAYOUTS[f.rank])
    slope, offset = np.polyfit([ly for _, ly in places], [py for _, py in points], 1)
    top, bottom = float(offset), float(offset + slope)
    return (1.0 - bottom, 1.0 - top) if turn else (top, bottom)


def few_pips(card: Image) -> float | None:
    """The mean height (fraction of ``card``'s) of the card's pips where some are seen
    but too few, or too far from their places, for any layout (a hand over the card's
    end, or a quad stopping above its lower pips); ``None`` where none are seen or they
    read as a layout."""
    return _few(_found(card))


def _few(f: _Found) -> float | None:
    """:func:`few_pips` of the card whose pips are ``f``."""
    if f.keep is None or f.rank is not None:
        return None
    return float(np.mean(f.cy[f.keep]))


def _placed(points: list[tuple[float, float]],
            layout: tuple[tuple[float, float], ...]) -> list[tuple[float, float]]:
    """The layout place each of ``points`` (which :func:`_layout` reads as ``layout``)
    is taken for, in the order of ``points``: in place, or all moved together."""
    dx = dy = 0.0
    if not _matches(points, layout):
        dx = float(np.mean([p[0] for p in points]) - np.mean([q[0] for q in layout]))
        dy = float(np.mean([p[1] for p in points]) - np.mean([q[1] for q in layout]))
    left = list(layout)
    out: dict[int, tuple[float, float]] = {}
    for k in sorted(range(len(points)), key=lambda k: (points[k][1], points[k][0])):
        px, py = points[k][0] - dx, points[k][1] - dy
        near = [(abs(px - lx) / PLACE[0] + abs(py - ly) / PLACE[1], i)
                for i, (lx, ly) in enumerate(left)]
        inside = [(d, i) for d, i in near
                  if abs(px - left[i][0]) <= PLACE[0] and abs(py - left[i][1]) <= PLACE[1]]
        out[k] = left.pop(min(inside or near)[1])  # as :func:`_matches` takes them
    return [out[k] for k in range(len(points))]


def read_pips(card: Image, want: Rank | None = None, *, edge: bool = False) -> Pips:
    """The pips of a warped canonical card (BGR or grey). With ``want``, the pips' shapes
    are measured only where they read as that rank (else none: cheaper); with ``edge``,
    their edge width as well."""
    return _measured(_found(card), want, edge)


READER_KEEPS: Final = 4
"""Card images whose pips a :class:`PipsReader` keeps (the last ones asked about)."""


class PipsReader:
    """:func:`read_pips` (and :func:`pip_columns`, :func:`pip_rows`, :func:`few_pips`) of
    the last :data:`READER_KEEPS` card images asked about, their ink and components found
    once: a blurred card's one warp is asked for its pips up to three times in one read
    (the pips of the index read, of the other corner's read, and by themselves), and a
    refused card's quad again by the reads round it (:mod:`tablectl.vision.outset`: its
    pips, their columns, too few pips), with other cards read in between; each answer
    the same as the module's function gives. An image is known by identity: it must not
    be changed in place while it is kept."""

    def __init__(self) -> None:
        self._kept: list[tuple[Image, _Found, dict[bool, Pips]]] = []

    def _of(self, card: Image) -> tuple[_Found, dict[bool, Pips]]:
        """``card``'s pips found, and its measured pips by ``edge``, kept or made now."""
        for i, (seen, found, full) in enumerate(self._kept):
            if seen is card:
                if i:
                    self._kept.insert(0, self._kept.pop(i))
                return found, full
        found, full = _found(card), {}
        self._kept.insert(0, (card, found, full))
        del self._kept[READER_KEEPS:]
        return found, full

    def read(self, card: Image, want: Rank | None = None, *, edge: bool = False) -> Pips:
        """:func:`read_pips` of ``card``."""
        found, full = self._of(card)
        if found.rank is not want and want is not None:
            return _measured(found, want, edge)  # no shapes measured: nothing to keep
        if edge not in full:
            full[edge] = _measured(found, None, edge)
        return full[edge]

    def columns(self, card: Image) -> tuple[float, float] | None:
        """:func:`pip_columns` of ``card``."""
        return _columns(self._of(card)[0])

    def rows(self, card: Image) -> tuple[float, float] | None:
        """:func:`pip_rows` of ``card``."""
        return _rows(self._of(card)[0])

    def few(self, card: Image) -> float | None:
        """:func:`few_pips` of ``card``."""
        return _few(self._of(card)[0])


@dataclass(frozen=True, slots=True)
class _Found:
    """A card's pips found (:func:`_found`), before their shapes are measured."""

    w: int
    h: int
    ink: npt.NDArray[np.float32]
    labels: Image
    stats: Image
    cx: npt.NDArray[np.float64]
    cy: npt.NDArray[np.float64]
    area: Image
    keep: npt.NDArray[np.intp] | None
    rank: Rank | None


def _found(card: Image) -> _Found:
    """The ink, components and pips of a warped canonical card, and the rank their
    layout reads (``keep`` ``None``: no component is pip-like)."""
    h, w = card.shape[:2]
    ink = _ink(card)
    ink8 = cv2.convertScaleAbs(ink, alpha=255.0)
    cut, binary = cv2.threshold(ink8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if cut < 40:
        binary = cv2.threshold(ink8, 39, 255, cv2.THRESH_BINARY)[1]
    # Grana's algorithm, as glyphs._pairs: the same labels as the default (both label
    # 2x2 blocks in raster order), half the time on one core
    _, labels, stats, cent = cv2.connectedComponentsWithStatsWithAlgorithm(
        binary, 8, cv2.CV_32S, cv2.CCL_GRANA)
    area_card = float(w * h)
    x, y, bw, bh, area = (stats[1:, k] for k in range(5))
    cx, cy = cent[1:, 0] / w, cent[1:, 1] / h
    zx, zy = INDEX_ZONE
    ok = ((x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)  # not the edge, a finger, table
          & (area >= PIP_LEAST * area_card) & (area <= PIP_MOST * area_card)
          & ~((np.minimum(cx, 1 - cx) < zx) & (np.minimum(cy, 1 - cy) < zy))  # an index
          & (bw >= 0.5 * bh) & (bw <= 1.6 * np.maximum(bh, 1)))
    if not ok.any():
        return _Found(w, h, ink, labels, stats, cx, cy, area, None, None)
    typical = float(np.median(area[ok]))
    lo, hi = PIP_SIZE
    keep = np.flatnonzero(ok & (area >= lo * typical) & (area <= hi * typical))
    points = [(float(cx[i]), float(cy[i])) for i in keep]
    turned = [(1.0 - px, 1.0 - py) for px, py in points]  # a card lying the other way up
    rank = _layout(points) or _layout(turned)
    return _Found(w, h, ink, labels, stats, cx, cy, area, keep, rank)


def _measured(f: _Found, want: Rank | None, edge: bool) -> Pips:
    """:func:`read_pips` of the card whose pips are ``f``."""
    none = np.zeros((0, SUIT_BOX[0] * SUIT_BOX[1]), np.float32)
    if f.keep is None:
        return Pips(None, 0, none)
    keep, rank, stats, labels, ink = f.keep, f.rank, f.stats, f.labels, f.ink
    if want is not None and rank is not want:
        return Pips(rank, len(keep), none)
    pips = [(int(i) + 1, int(f.area[i]), float(f.cx[i]), float(f.cy[i])) for i in keep]
    shapes = []
    for i, _, _, py in pips:
        px0, py0, pw, ph = (int(v) for v in stats[i, :4])
        patch = ink[py0:py0 + ph, px0:px0 + pw] * (labels[py0:py0 + ph, px0:px0 + pw] == i)
        if py > 0.5 + 0.5 * PLACE[1]:
            patch = patch[::-1, ::-1]  # the lower half's pips stand on their heads
        elif abs(py - 0.5) <= 0.5 * PLACE[1]:
            continue  # a centre pip may stand either way
        shapes.append(fit_glyph(np.ascontiguousarray(patch, np.float32), SUIT_BOX))
    out = np.stack(shapes).astype(np.float32) if shapes else none
    width = _edge(ink, np.asarray(labels, np.int32), stats, pips) if edge else 0.0
    return Pips(rank, len(pips), out, width)


def _edge(ink: npt.NDArray[np.float32], labels: npt.NDArray[np.int32], stats: Image,
          pips: list[tuple[int, int, float, float]]) -> float:
    """The width of the pips' edges: their ink over the steepest slope across their rims.

    Measured in the pips' box grown by :data:`_EDGE_PAD` (the card's edge where it is
    nearer): the rim lies within two pixels of a pip and its slope's 3x3 kernel one
    pixel further, so each value is the whole card's, in the same order, at a fraction of
    the whole card's work (docs/camera.md §6, "Cost: a look's small work")."""
    if not pips:
        return 0.0
    ids = [i for i, _, _, _ in pips]
    box = stats[ids, :4]
    h, w = labels.shape
    x0 = max(0, int(box[:, 0].min()) - _EDGE_PAD)
    y0 = max(0, int(box[:, 1].min()) - _EDGE_PAD)
    x1 = min(w, int((box[:, 0] + box[:, 2]).max()) + _EDGE_PAD)
    y1 = min(h, int((box[:, 1] + box[:, 3]).max()) + _EDGE_PAD)
    lab, ink = labels[y0:y1, x0:x1], ink[y0:y1, x0:x1]
    on = lab == ids[0]
    for i in ids[1:]:
        on |= lab == i
    mask = on.view(np.uint8)
    k = np.ones((5, 5), np.uint8)
    rim = cv2.dilate(mask, k).astype(bool) & ~cv2.erode(mask, k).astype(bool)
    gx = cv2.Sobel(ink, cv2.CV_32F, 1, 0, ksize=3)[rim] / 8.0
    gy = cv2.Sobel(ink, cv2.CV_32F, 0, 1, ksize=3)[rim] / 8.0
    slope = float(np.percentile(np.hypot(gx, gy), 90))
    full = float(np.percentile(ink[on], 75))
    return full / max(slope, 1e-3)


_EDGE_PAD: Final = 3
"""Pixels round the pips' box in which :func:`_edge` measures them."""
def enrolled_pips(card: Card, card_img: Image) -> list[Vec]:
    """The pip glyphs an enrolment photo of ``card`` gives: its pips' shapes where they
    read as its own rank (a photo whose pips are cut or covered gives none)."""
    if card.rank not in LAYOUTS:
        return []
    p = read_pips(card_img, card.rank)
    return list(p.shapes) if p.rank is card.rank else []


@dataclass(frozen=True, slots=True)
class PipSuit:
    """Which suit a card's pips look like, against the deck's enrolled pips.

    Attributes:
        suit: the suit whose enrolled pips the read's pips fit best (``None``: no pips).
        score: the mean over the read's pips of the best correlation with that suit's.
        margin: ``score`` minus the next suit's.
    """

    suit: Suit | None
    score: float
    margin: float


def pip_suit(shapes: npt.NDArray[np.float32], suits: tuple[Suit, ...],
             vecs: npt.NDArray[np.float32] | None) -> PipSuit:
    """The suit ``shapes`` (:attr:`Pips.shapes`) fit best among enrolled pips ``vecs``
    labelled ``suits``."""
    if vecs is None or not len(shapes) or not suits:
        return PipSuit(None, 0.0, 0.0)
    sims = vecs @ shapes.T
    labels = np.array([s.value for s in suits])
    per = sorted(((float(sims[labels == s.value].max(axis=0).mean()), s)
                  for s in Suit if (labels == s.value).any()), key=lambda t: -t[0])
    second = per[1][0] if len(per) > 1 else -1.0
    return PipSuit(per[0][1], per[0][0], per[0][0] - second)
