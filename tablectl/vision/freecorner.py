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
WORK_MAX: Final = 640
"""The pale shapes are found in the frame shrunk to at most this size (longest side, px):
a card's corner needs no finer place, the reader snaps the card to its edges."""
FREE_CARDS: Final = 12
"""Cards placed from free corners read in one frame (each read once, and once more
snapped to its edges where that is not accepted: about 1 ms a read)."""


def with_free_corners(frame: Image, found: list[tuple[Quad, IndexRead]],
                      read: Callable[[Quad], tuple[Quad, IndexRead]],
                      ) -> list[tuple[Quad, IndexRead]]:
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
    card-shaped corner of the paper, at most :data:`FREE_CARDS` a frame."""
    held = [q for q, r in found if r.status is FaceStatus.ACCEPTED]
    cards = {r.card for q, r in found if r.status is FaceStatus.ACCEPTED}
    out = list(found)
    for placed in corner_cards(frame, held, FREE_CARDS):
        if part_of_any(placed, held, PART_OF_CARD):
            continue
        q, r = read(placed)
        if r.status is FaceStatus.ACCEPTED and r.card not in cards:
            out.append((q, r))
            cards.add(r.card)
            held.append(q)
    return out


def corner_cards(frame: Image, accepted: Sequence[Quad], limit: int) -> list[Quad]:
    """At most ``limit`` card quads (portrait, clockwise, the first side short) placed
    from the free corners of the frame's pale shapes (see the module docstring), the
    corners with the longest edges in view first. ``accepted``: the cards accepted in the
    frame (they give the table's perspective and the cards' size; none, no cards here).
    A corner lying inside an accepted card (grown by a tenth) is that card's."""
    if not accepted or limit <= 0:
        return []
    homs, backs, centres = card_maps(accepted)
    if not len(homs):
        return []
    h, w = frame.shape[:2]
    scale = min(1.0, WORK_MAX / max(h, w))
    small = frame if scale == 1.0 else cv2.resize(
        frame, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    grey = small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    _, pale = cv2.threshold(cv2.GaussianBlur(grey, (5, 5), 0), 0, 255,
                            cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    taken = np.zeros_like(pale)
    for q in accepted:
        p = np.array(q, np.float64) * scale
        mid = p.mean(axis=0)
        cv2.fillConvexPoly(taken, np.round(mid + (p - mid) * 1.1).astype(np.int32), 255)
    width = scale * float(np.median([np.hypot(*np.subtract(q[1], q[0])) for q in accepted]))
    contours, _ = cv2.findContours(pale, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
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
    out: list[Quad] = []
    for _, key in corners:
        poly, i = polys[key // 4096], key % 4096
        v, a, b = poly[i], poly[i - 1], poly[(i + 1) % len(poly)]
        k = int(np.argmin(np.hypot(*(centres - v).T)))
        out += _placed(v, a, b, homs[k], backs[k])
        if len(out) >= limit:
            break
    return out[:limit]


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
