"""A card whose outline runs into the frame's edge by one corner only.

:func:`~tablectl.vision.locate.locate_cards` marks a quad **cut** as soon as any corner
touches the frame's edge, and a cut card is reported ``OUT_OF_FRAME``, never read: part of
it is outside, so what is seen may be only a piece of it. A card lying a few pixels over the
edge with one corner is not such a piece: its outline's other three corners are inside, the
fitted quad puts the fourth just past the edge, and all of its index corners are in view.
:func:`one_corner_out` tells that case from a card cut along one side (two corners on the
edge: how much lies outside is unknown, the quad may be only the part seen), so the reader
can read it as a card (:meth:`~tablectl.vision.recognise.Recogniser.inspect_board`); it is
still ``OUT_OF_FRAME`` unless its index is accepted.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from tablectl.vision.corners import inside_share
from tablectl.vision.locate import CARD_SHAPE
from tablectl.vision.model import Quad

EDGE_MARGIN: Final = 1.5
"""A corner this close to the frame's edge (px), or past it, counts as on the edge."""
MOSTLY_IN: Final = 0.9
"""Share of a card's area that must lie inside the frame for it to be read although it runs
into the frame's edge (only a sliver outside): a card found by its outline with one corner
out, or found by its index corner and placed from it."""


def one_corner_out(q: Quad, width: int, height: int) -> bool:
    """Whether ``q`` is a whole card with exactly one corner on or past the frame's edge,
    card-shaped (long/short side within :data:`~tablectl.vision.locate.CARD_SHAPE`) and at
    least :data:`MOSTLY_IN` of it inside the ``width`` x ``height`` frame."""
    if width <= 0 or height <= 0:
        return False
    p = np.array(q, np.float64)
    if p.shape != (4, 2) or not np.isfinite(p).all():
        return False
    m = EDGE_MARGIN
    out = ((p[:, 0] < m) | (p[:, 1] < m) | (p[:, 0] > width - 1 - m)
           | (p[:, 1] > height - 1 - m))
    if int(out.sum()) != 1:
        return False
    one = (np.hypot(*(p[1] - p[0])) + np.hypot(*(p[3] - p[2]))) / 2
    two = (np.hypot(*(p[2] - p[1])) + np.hypot(*(p[0] - p[3]))) / 2
    short, long_ = min(one, two), max(one, two)
    if short <= 0 or not CARD_SHAPE[0] <= long_ / short <= CARD_SHAPE[1]:
        return False
    return inside_share(q, width, height) >= MOSTLY_IN
