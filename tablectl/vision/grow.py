"""A found quad that shows only part of a card, grown to the whole card.

A card crossed by a cable, half in shadow or with one end over the table's edge may be
found as a quad squarer than any card (long/short below :data:`~tablectl.vision.locate.
CARD_SHAPE`): its index corner may lie outside the quad, or be warped out of shape. The
card goes on past one of the quad's four sides; :func:`grown_quads` extends the quad past
each side in turn to a card's aspect (:data:`CARD_ASPECT`), keeping only those that stay
inside the frame and whose added part is paper along its outline, as pale as the quad's
own margin (:func:`added_paper`). Each is only a hypothesis: the reader keeps one only where
its index is accepted by the full gate.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from tablectl.vision.locate import CARD_SHAPE, order_quad
from tablectl.vision.model import Image, Quad

CARD_ASPECT: Final = 1.4
"""Long/short side ratio of a playing card (88 x 63 mm poker and 89 x 57 mm bridge cards
are 1.4 and 1.56; the narrower value grows least past what was seen)."""


BRIDGE_ASPECT: Final = 1.56
"""The narrower card's long/short side ratio (a bridge card, 89 x 57 mm): a held card's
part grown to :data:`CARD_ASPECT` may stop short of the index of a card this narrow."""


def _ratio(q: Quad) -> float:
    """Long/short side ratio of ``q`` (0 for a degenerate quad)."""
    p = np.array(q, np.float64)
    one = (np.hypot(*(p[1] - p[0])) + np.hypot(*(p[3] - p[2]))) / 2
    two = (np.hypot(*(p[2] - p[1])) + np.hypot(*(p[0] - p[3]))) / 2
    short, long_ = min(one, two), max(one, two)
    return float(long_ / short) if short > 0 else 0.0


def partial(q: Quad) -> bool:
    """``q`` is squarer than a whole card (see :data:`CARD_SHAPE`)."""
    return 0 < _ratio(q) < CARD_SHAPE[0]


def grown_parts(q: Quad, frame: Image, *, held: bool = False, no_index: bool = False,
                ) -> list[Quad]:
    """The grown quads to read, in order, for a quad ``q`` not accepted as it is: where it
    is :func:`partial`, its :func:`grown_quads`. A held card's colour quad (``held``: the
    hand over its end, :meth:`~tablectl.vision.recognise.Recogniser._with_colour`) is
    grown without asking the added part to be paper (the fingers over it are not), also
    where it is squarer than a card (:data:`CARD_ASPECT`) but not :func:`partial` and its
    read found no index (``no_index``: the card's upper half taken across, its index
    outside), and then again to :data:`BRIDGE_ASPECT`: a narrow card's part grown to
    1.4 leaves its index cut."""
    if not (partial(q) or (held and no_index and 0 < _ratio(q) < CARD_ASPECT)):
        return []
    out = grown_quads(q, frame, paper=not held)
    if held:
        out += grown_quads(q, frame, paper=False, aspect=BRIDGE_ASPECT)
    return out


SQUARISH: Final = 1.15
"""Long/short side ratio under which which way up a quad is can only be guessed: a card
seen from a low angle is foreshortened along the view, so its long side may look no
longer than its short one (the far row of cards on a table filmed from its side)."""


def squarish(q: Quad) -> bool:
    """``q`` is so near a square that it may be the card lying across (:data:`SQUARISH`)."""
    return 0 < _ratio(q) < SQUARISH


def turned(q: Quad) -> Quad:
    """``q`` a quarter turn on: the same outline, taken as a card lying across."""
    return (q[1], q[2], q[3], q[0])


_INSET: Final = 0.05
"""Where the margin is sampled: this share of the card's size inside its outline."""
_PALE: Final = 0.75
"""A sample is paper if its whiteness is at least this share of the quad's own margin's."""
_SHARE: Final = 0.7
"""Share of the added outline's samples that must be paper."""


def _whiteness(frame: Image, pts: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """Bright and unsaturated (darkest channel minus the spread) at ``pts`` (frame px)."""
    h, w = frame.shape[:2]
    ij = np.clip(np.round(pts).astype(np.int64), 0, [w - 1, h - 1])
    bgr = frame[ij[:, 1], ij[:, 0]].astype(np.float32).reshape(-1, 3)
    lo, hi = bgr.min(axis=1), bgr.max(axis=1)
    return np.asarray(lo - (hi - lo), np.float32)


def _margin(p: npt.NDArray[np.float64], sides: tuple[int, ...],
            n: int = 16) -> npt.NDArray[np.float64]:
    """Points along the given sides of quad ``p``, each moved :data:`_INSET` of the way
    toward the quad's centre."""
    c = p.mean(axis=0)
    t = np.linspace(0.05, 0.95, n)[:, None]
    out = [p[i] + (p[(i + 1) % 4] - p[i]) * t for i in sides]
    pts = np.concatenate(out)
    out_pts: npt.NDArray[np.float64] = pts + (c - pts) * (2 * _INSET)
    return out_pts


def added_paper(frame: Image, q: npt.NDArray[np.float64], g: npt.NDArray[np.float64],
                ) -> bool:
    """Whether the part of ``g`` (grown from ``q``; corners 0, 1 moved, 2, 3 kept) that ``q``
    did not cover is paper along its outline: its new side and the new stretches of the
    two sides meeting it, as pale as ``q``'s own margin."""
    ref = float(np.median(_whiteness(frame, _margin(q, (0, 1, 2, 3)))))
    if ref <= 0:
        return False
    added = np.array([g[0], g[1], q[1], q[0]])  # the strip between old and new side
    pts = _margin(added, (0,))
    c = g.mean(axis=0)
    for a, b in ((g[1], q[1]), (q[0], g[0])):
        t = np.linspace(0.1, 0.9, 8)[:, None]
        side = a + (b - a) * t
        pts = np.concatenate([pts, side + (c - side) * (2 * _INSET)])
    return float(np.mean(_whiteness(frame, pts) >= _PALE * ref)) >= _SHARE


def grown_quads(q: Quad, frame: Image, paper: bool = True,
                aspect: float = CARD_ASPECT) -> list[Quad]:
    """``q`` extended past each of its sides to a card's ``aspect``, the side's two corners
    moved outward along the sides meeting them; those running out of the frame, or (with
    ``paper``) whose added part is not paper (:func:`added_paper`), are left out."""
    height, width = frame.shape[:2]
    p = np.array(q, np.float64)
    out: list[Quad] = []
    for i in range(4):
        a, b = p[i], p[(i + 1) % 4]            # the side to move outward
        c, d = p[(i + 2) % 4], p[(i + 3) % 4]  # the side opposite (b-c and d-a run across)
        across = (np.hypot(*(a - b)) + np.hypot(*(c - d))) / 2
        along = (np.hypot(*(b - c)) + np.hypot(*(d - a))) / 2
        if along <= 0 or across <= 0:
            continue
        # the side becomes a short side (the card's long axis runs across it) ...
        t = aspect * across / along - 1.0
        if t <= 0.05:
            continue
        na, nb = a + (a - d) * t, b + (b - c) * t
        pts = np.array([na, nb, c, d], np.float32)
        if (pts[:, 0].min() < 1 or pts[:, 1].min() < 1 or pts[:, 0].max() > width - 2
                or pts[:, 1].max() > height - 2):
            continue
        if paper and not added_paper(frame, np.array([a, b, c, d]), pts.astype(np.float64)):
            continue
        out.append(order_quad(pts))
    return out
