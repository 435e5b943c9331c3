"""A refused card's quad widened about its centre, to read an index the outline cut off.

On a hand-held photo the card is blurred and its rounded corners fade into the hand or the
wall behind it; the outline found (and snapped onto the card's edges,
:mod:`tablectl.vision.snap`) may then lie a little inside the card, and the index, printed
close to the corner, falls partly outside the warped corner crop: the card is refused,
though its pips read as a card (:meth:`~tablectl.vision.evidence.Evidence.pips_card`).
:func:`read_outset` reads such a card once more from its quad widened by :data:`OUTSET`
about its centre. The widened quad is only a hypothesis: its read replaces the quad's
only where the full gate accepts it (docs/camera.md §6).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np

from tablectl.domain.cards import Card
from tablectl.vision.indexread import IndexRead
from tablectl.vision.model import FaceStatus, Image, Quad

OUTSET: Final = 1.06
"""How much wider the quad is read again: each corner moved away from the quad's centre
to this multiple of its distance (6%: a corner crop's index margin on a hand-held card,
docs/camera.md §6)."""


def outset(quad: Quad, factor: float = OUTSET) -> Quad:
    """``quad`` scaled by ``factor`` about the mean of its corners (corner order kept).

    >>> outset(((0.0, 0.0), (10.0, 0.0), (10.0, 20.0), (0.0, 20.0)), 1.1)
    ((-0.5, -1.0), (10.5, -1.0), (10.5, 21.0), (-0.5, 21.0))
    """
    pts = np.array(quad, np.float64)
    mid = pts.mean(axis=0)
    out = mid + factor * (pts - mid)
    return tuple((float(x), float(y)) for x, y in out)  # type: ignore[return-value]


def inside(quad: Quad, width: int, height: int) -> bool:
    """Every corner of ``quad`` lies within a ``width`` x ``height`` frame (px)."""
    return all(0.0 <= x <= width - 1 and 0.0 <= y <= height - 1 for x, y in quad)


def read_outset(quad: Quad, r: IndexRead, frame_size: tuple[int, int], *,
                warp: Callable[[Quad], Image],
                pips_card: Callable[[Image], Card | None],
                read: Callable[[Image], IndexRead]) -> tuple[Quad, IndexRead]:
    """``quad`` and its read ``r``; where ``r`` is refused (unsure, or no index read) and
    the pips of the card warped from ``quad`` read as a card (``pips_card``), the quad
    widened by :data:`OUTSET` and its read instead if that is accepted (``read`` applies
    the full gate). ``frame_size``: ``(width, height)``; a widened quad running
    out of the frame is not read. ``warp`` gives the canonical card of a quad."""
    if r.status not in (FaceStatus.NEEDS_CONFIRMATION, FaceStatus.NO_CARD):
        return quad, r
    wide = outset(quad)
    if not inside(wide, *frame_size) or pips_card(warp(quad)) is None:
        return quad, r
    rw = read(warp(wide))
    return (wide, rw) if rw.status is FaceStatus.ACCEPTED else (quad, r)
