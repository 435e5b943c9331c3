"""Cards seen by a free corner: a card of a fan or an overlapping row, placed from a corner
of the paper whose two edges are in view, sized like the cards accepted in the frame.

In a fan the cards merge into one pale shape and the outline finder
(:mod:`tablectl.vision.locate`) finds no quad for the cards under the top one; the corner
search (:mod:`tablectl.vision.corners`) reads their indices, but a 10-15 px index alone is
placed only as well as its few pixels tell. Yet every card of a fan shows one corner
with both of its edges: a convex corner of the pale shape, nearly square on the table.

The cards accepted in the same frame are images of card-shaped rectangles on the table, so
the perspective map of the nearest one (:func:`~tablectl.vision.corners.card_maps`) takes
the frame back to the table plane, in card widths. There a corner's two edges must meet at
nearly a right angle (:data:`SQUARE`); the card is the rectangle of one card width by
:data:`~tablectl.vision.grow.CARD_ASPECT` along them (either edge the short one, unless the
one in view is longer than a card's width), mapped back into the frame. Each is only a
hypothesis, read like a found outline: the gates decide.

That rectangle is only as good as the map: a card accepted from its index alone is
placed as an exact rectangle in the frame (:func:`~tablectl.vision.corners.card_quad`, no
perspective), and the cards placed from its map come out the wrong length where the
camera looks at a slant. But a card of a fan often shows its opposite corner as well (the
corner diagonally across, with its two edges running back along the first corner's): the
card is then drawn from the four edges themselves (:func:`_far_corner`), its perspective
the frame's own; the map only judges that its size is a card's. Those cards are read
first. And every card accepted here is held as the others are: the corners are placed
again with its map among theirs (:func:`with_free_corners`), the nearer card telling the
table's slant better.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.corners import card_maps
from tablectl.vision.grow import CARD_ASPECT
from tablectl.vision.indexread import IndexRead
from tablectl.vision.locate import DETECT_MAX, Shrunk, shrunk
from tablectl.vision.model import FaceStatus, Image, Quad
from tablectl.vision.outline import PART_OF_CARD, part_of_any

SQUARE: Final = (70.0, 110.0)
"""The angle (degrees, on the table) a corner's two edges must make to be a card's."""
EDGE: Final = 0.3
"""Each of the corner's two edges must be in view for at least this share of a card's
width."""
SIMPLIFY: Final = 0.04
"""The pale shape's outline is simplified to within this share of a card's width."""
LONGEST: Final = 1.15
"""An edge in view longer than this many card widths is the card's long side."""
WORK_MAX: Final = DETECT_MAX
"""The pale shapes are found in the frame shrunk to at most this size (longest side, px):
a card's corner needs no finer place, the reader snaps the card to its edges. The finder's
size, so the frame is shrunk once for both (:func:`~tablectl.vision.locate.shrunk`)."""
FAR_TURN: Final = 15.0
"""An opposite corner's edges run back along the corner's own within this many degrees."""
FAR_SIDES: Final = ((0.7, 1.35), (1.15, 1.75))
"""A card drawn from two opposite corners: its short side (card widths on the table, as
the nearest accepted card's map measures it) and its long side (short sides) must lie
within these (loose: that map may be a fifth off where it is a rectangle in the frame)."""
FREE_CARDS: Final = 12
"""Cards placed from free corners read in one frame, over every round (each read once,
and once more snapped to its edges where that is not accepted: about 1 ms a read)."""


def with_free_corners(frame: Image, found: list[tuple[Quad, IndexRead]],
                      read: Callable[[Quad], tuple[Quad, IndexRead]],
                      shrunk_frame: Shrunk | None = None) -> list[tuple[Quad, IndexRead]]:
    """``found`` (the frame's cards and their reads) with the cards placed from free
    corners (:func:`corner_cards`) whose ``read`` (the quad as read, and its read) is
    accepted and not of a card accepted in the frame already. A placed card lying half
    inside an accepted one (:data:`~tablectl.vision.outline.PART_OF_CARD`) is that card's
    corner, not read.

    Such a card is read as a found outline is, with the same gates: its face must agree,
    or, where the cards above it hide the face, its index must pass the card's own
    index-only gate (measured at enrolment; the gate for a card of which only the index
    shows). Unlike the corner search's glyph pairs, which a frame offers by the dozen and
    which must pass a stricter check of the deck's print, a placed card stands on a
    card-shaped corner of the paper, at most :data:`FREE_CARDS` read a frame. Once one is
    accepted, the corners are placed again with it held (a quad read once is not read
    again). ``shrunk_frame``: the frame's :func:`~tablectl.vision.locate.shrunk`, where
    the finder made it already."""
    held = [q for q, r in found if r.status is FaceStatus.ACCEPTED]
    cards = {r.card for q, r in found if r.status is FaceStatus.ACCEPTED}
    out = list(found)
    shapes = pale_shapes(frame, shrunk_frame) if held else None
    seen: set[Quad] = set()
    left, again = FREE_CARDS, True
    while again and left > 0:
        # a card accepted here tells the table's perspective near it better than the
        # farther cards did: the corners are placed again with it among the cards held
        again = False
        for placed in corner_cards(frame, held, FREE_CARDS, shapes):
            if left <= 0:
                break
            if placed in seen or part_of_any(placed, held, PART_OF_CARD):
                continue
            seen.add(placed)
            left -= 1
            q, r = read(placed)
            if r.status is FaceStatus.ACCEPTED and r.card not in cards:
                out.append((q, r))
                cards.add(r.card)
                held.append(q)
                again = True
                break
    return out


Shapes = tuple[float, list[npt.NDArray[np.int32]]]
"""The pale shapes of a frame (:func:`pale_shapes`)."""


def pale_shapes(frame: Image, shrunk_frame: Shrunk | None = None) -> Shapes:
    """The frame's pale shapes (Otsu's cut of the grey frame shrunk to at most
    :data:`WORK_MAX`; ``shrunk_frame``: that shrink, where the finder made it already):
    the scale they were found at, and their outlines at that scale."""
    scale, small = shrunk(frame) if shrunk_frame is None else shrunk_frame
    grey = small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    _, pale = cv2.threshold(cv2.GaussianBlur(grey, (5, 5), 0), 0, 255,
                            cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(pale, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return scale, [np.asarray(c, np.int32) for c in contours]


def corner_cards(frame: Image, accepted: Sequence[Quad], limit: int,
                 shapes: Shapes | None = None,
                 ) -> list[Quad]:
    """At most ``limit`` card quads (portrait, clockwise, the first side short) placed
    from the free corners of the frame's pale shapes (see the module docstring; ``shapes``:
    its :func:`pale_shapes`, where found already): first the cards drawn from two opposite
    corners, then those placed from one, the corners with the longest edges in view
    first. ``accepted``: the cards accepted in the frame (they give the table's
    perspective and the cards' size; none, no cards here). A corner lying inside an
    accepted card (grown by a tenth) is that card's."""
    if not accepted or limit <= 0:
        return []
    homs, backs, centres = card_maps(accepted)
    if not len(homs):
        return []
    scale, contours = pale_shapes(frame) if shapes is None else shapes
    taken = np.zeros((round(frame.shape[0] * scale), round(frame.shape[1] * scale)), np.uint8)
    for q in accepted:
        p = np.array(q, np.float64) * scale
        mid = p.mean(axis=0)
        cv2.fillConvexPoly(taken, np.round(mid + (p - mid) * 1.1).astype(np.int32), 255)
    width = scale * float(np.median([np.hypot(*np.subtract(q[1], q[0])) for q in accepted]))
    corners: list[tuple[float, int]] = []   # edges in view (px), corner
    polys: list[npt.NDArray[np.float64]] = []
    for c in contours:
        if cv2.contourArea(c) < 0.5 * width * width:
            continue
        poly = cv2.approxPolyDP(c, SIMPLIFY * width, True).reshape(-1, 2).astype(np.float64)
        orient = np.sign(_shoelace(poly))
        for i in range(len(poly)):
            v, a, b = poly[i], poly[i - 1], poly[(i + 1) % len(poly)]
            if taken[min(int(v[1]), taken.shape[0] - 1), min(int(v[0]), taken.shape[1] - 1)]:
                continue
            # convex on the outline: the turn at v goes the outline's own way round
            if np.sign(_cross(v - a, b - v)) != orient:
                continue
            la, lb = float(np.hypot(*(a - v))), float(np.hypot(*(b - v)))
            if min(la, lb) >= EDGE * width / 2:  # a loose bound before the table's
                corners.append((la + lb, len(polys) * 4096 + i))
        polys.append(poly / scale)
    corners.sort(key=lambda t: -t[0])
    drawn: list[Quad] = []   # cards drawn from two opposite corners
    out: list[Quad] = []     # cards placed from one corner
    pairs: set[frozenset[int]] = set()   # opposite corners drawn already
    keys = np.array([c for _, c in corners], np.int64)
    ends = [(polys[c // 4096], c % 4096) for c in keys]
    at = np.array([p[i] for p, i in ends]).reshape(-1, 2)
    # each corner's two edges, as unit vectors: which corners may be another's opposite
    ea = np.array([_unit(p[i - 1] - p[i]) for p, i in ends]).reshape(-1, 2)
    eb = np.array([_unit(p[(i + 1) % len(p)] - p[i]) for p, i in ends]).reshape(-1, 2)
    cos = float(np.cos(np.radians(FAR_TURN)))
    for m, key in enumerate(keys):
        poly, i = ends[m]
        v, a, b = poly[i], poly[i - 1], poly[(i + 1) % len(poly)]
        k = int(np.argmin(np.hypot(*(centres - v).T)))
        d = at - v
        back_along = (((ea @ -ea[m] > cos) & (eb @ -eb[m] > cos))
                      | ((eb @ -ea[m] > cos) & (ea @ -eb[m] > cos)))
        near = np.flatnonzero((keys // 4096 == key // 4096) & (keys != key) & back_along
                              & (d @ ea[m] > 0) & (d @ eb[m] > 0))
        far = _far_corner(v, a, b, [(int(keys[j]), *ends[j]) for j in near], backs[k])
        if far is not None and frozenset((int(key), far[0])) not in pairs:
            pairs.add(frozenset((int(key), far[0])))
            drawn.append(far[1])
        if len(out) < limit:
            out += _placed(v, a, b, homs[k], backs[k])
    return (drawn + out)[:limit]


def _cross(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def _shoelace(p: npt.NDArray[np.float64]) -> float:
    """The signed area of the polygon ``p``: positive where it runs clockwise in the
    frame (y down)."""
    return float(cv2.contourArea(p.astype(np.float32), oriented=True))


def _to(hom: npt.NDArray[np.float64], p: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    t = hom @ np.array([p[0], p[1], 1.0])
    return t[:2] / t[2] if abs(t[2]) > 1e-12 else np.array([np.nan, np.nan])


def _placed(v: npt.NDArray[np.float64], a: npt.NDArray[np.float64],
            b: npt.NDArray[np.float64], hom: npt.NDArray[np.float64],
            back: npt.NDArray[np.float64]) -> list[Quad]:
    """The cards with a corner at ``v`` whose edges run towards ``a`` and ``b`` (frame
    px), on the table of the perspective map ``hom`` (``back`` its inverse)."""
    tv, ta, tb = _to(back, v), _to(back, a), _to(back, b)
    ea, eb = ta - tv, tb - tv
    la, lb = float(np.hypot(*ea)), float(np.hypot(*eb))
    if not (np.isfinite(la) and np.isfinite(lb)) or min(la, lb) < EDGE:
        return []
    ua, ub = ea / la, eb / lb
    angle = float(np.degrees(np.arccos(np.clip(ua @ ub, -1.0, 1.0))))
    if not SQUARE[0] <= angle <= SQUARE[1]:
        return []
    # square the corner on the table: ub turned to be at right angles to ua
    ub = ub - (ub @ ua) * ua
    ub /= max(float(np.hypot(*ub)), 1e-9)
    out = []
    for wa, wb in ((1.0, CARD_ASPECT), (CARD_ASPECT, 1.0)):
        if la > LONGEST * wa or lb > LONGEST * wb:
            continue
        table = [tv, tv + wa * ua, tv + wa * ua + wb * ub, tv + wb * ub]
        p = np.array([_to(hom, t) for t in table])
        if not np.isfinite(p).all():
            continue
        short = [wa, wb, wa, wb]
        if _shoelace(p) < 0:
            p = p[::-1]  # clockwise in the frame (y down): the same sides, reversed
        # the first side a short one (a portrait card, its index corner first)
        first = int(np.argmin(short))
        q = np.roll(p, -first, axis=0)
        out.append(tuple((float(x), float(y)) for x, y in q))
    return out  # type: ignore[return-value]


def _unit(d: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return d / max(float(np.hypot(*d)), 1e-9)


def _meet(p: npt.NDArray[np.float64], d: npt.NDArray[np.float64],
          q: npt.NDArray[np.float64], e: npt.NDArray[np.float64]) -> npt.NDArray[np.float64] | None:
    """Where the line through ``p`` along ``d`` meets the one through ``q`` along ``e``."""
    m = np.array([d, -e]).T
    if abs(float(np.linalg.det(m))) < 1e-6:
        return None
    t = np.linalg.solve(m, q - p)
    out: npt.NDArray[np.float64] = p + float(t[0]) * d
    return out


def _far_corner(v: npt.NDArray[np.float64], a: npt.NDArray[np.float64],
                b: npt.NDArray[np.float64],
                others: Sequence[tuple[int, npt.NDArray[np.float64], int]],
                back: npt.NDArray[np.float64]) -> tuple[int, Quad] | None:
    """The card with a corner at ``v`` (edges towards ``a`` and ``b``) and its opposite
    corner at one of ``others`` (key, polygon, vertex) whose two edges run back along
    ``v``'s, drawn from the four edges: the perspective is the frame's own. ``back``: the
    nearest accepted card's map from the frame to the table, which judges the size."""
    ua, ub = _unit(a - v), _unit(b - v)
    cos = float(np.cos(np.radians(FAR_TURN)))
    best: tuple[float, int, Quad] | None = None
    tv = _to(back, v)
    for key, poly, j in others:
        w = poly[j]
        d = w - v
        if d @ ua <= 0 or d @ ub <= 0:
            continue
        wa, wb = _unit(poly[j - 1] - w), _unit(poly[(j + 1) % len(poly)] - w)
        if -(wb @ ua) > cos and -(wa @ ub) > cos:
            wa, wb = wb, wa
        if not (-(wa @ ua) > cos and -(wb @ ub) > cos):
            continue
        pa, pb = _meet(v, ua, w, wb), _meet(v, ub, w, wa)
        if pa is None or pb is None:
            continue
        la = float(np.hypot(*(_to(back, pa) - tv)))
        lb = float(np.hypot(*(_to(back, pb) - tv)))
        short, long = min(la, lb), max(la, lb)
        if not (np.isfinite(short) and FAR_SIDES[0][0] <= short <= FAR_SIDES[0][1]
                and FAR_SIDES[1][0] * short <= long <= FAR_SIDES[1][1] * short):
            continue
        p = np.array([v, pa, w, pb])
        if not cv2.isContourConvex(p.astype(np.float32)):
            continue
        if _shoelace(p) < 0:
            p = p[::-1]  # clockwise in the frame: side 0 (pb-w) still along v-pa
        first = 0 if la <= lb else 1   # the first side a short one
        q = np.roll(p, -first, axis=0)
        quad = tuple((float(x), float(y)) for x, y in q)
        score = float(np.hypot(*(_to(back, w) - tv)))   # the nearest: the card's own
        if best is None or score < best[0]:
            best = (score, key, quad)  # type: ignore[assignment]
    return None if best is None else (best[1], best[2])
