"""A faint rank beside a suit mark: the corner search's second, local ink cut.

A red rank can be printed lighter than its suit (16-24% under the paper where the suit is
45% under it), so the frame's ink cut finds the suit alone and no rank-over-suit pair. Where
the frame's cards tell the index's size, a suit-sized mark with nothing paired to it is
looked at again in a small window round it, cut at that window's own contrast; a mark of a
rank's size at a rank's distance from it, wholly inside the window (an edge or a shadow
line crosses it) and not long and thin, is offered as the rank of a pair. Such a pair is
only a candidate: it is read and gated like any other.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.model import Image

FAINT_WINDOWS: Final = 4
"""Suit marks looked at again in one frame (a window each, well under a millisecond)."""
_SUIT_OF_SPAN: Final = (0.5, 1.0)
"""A suit mark's size (longest box side) as a share of the rank-to-suit distance on real
indices: the suit is about 0.74 of the rank, the distance about 1.02 of it."""
_RANK_OF_SPAN: Final = (0.65, 1.35)
"""A rank's size as a share of the rank-to-suit distance (about 1 on real indices)."""
_CUTS: Final = (0.2, 0.15, 0.1)
"""The local ink cuts, tried in turn until one holds a rank: this much under the window's
paper (its bright 90th percentile). A faint rank is 16-24% under the paper; at a shallow
cut it joins its suit."""
_THIN: Final = 4.0
"""A mark this many times longer than wide (its turned box) is a line, not a rank."""


def faint_ranks(small: Image, pts: npt.NDArray[np.float64], sides: npt.NDArray[np.float64],
                span: float) -> list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """(rank centre, suit centre) pairs for the unpaired marks at ``pts`` (sizes
    ``sides``) of a working-scale BGR frame, where the rank-to-suit distance is ``span``."""
    fit = (sides >= _SUIT_OF_SPAN[0] * span) & (sides <= _SUIT_OF_SPAN[1] * span)
    order = np.flatnonzero(fit)
    # the likeliest suits first: nearest the typical share
    order = order[np.argsort(np.abs(sides[order] / span - 0.73), kind="stable")]
    h, w = small.shape[:2]
    out: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []
    r = int(np.ceil(2.0 * span))
    for k in order[:FAINT_WINDOWS].tolist():
        cx, cy = pts[k]
        x0, y0 = max(int(cx) - r, 0), max(int(cy) - r, 0)
        x1, y1 = min(int(cx) + r + 1, w), min(int(cy) + r + 1, h)
        if x1 - x0 < r or y1 - y0 < r:
            continue
        b, g, rr = cv2.split(small[y0:y1, x0:x1])   # a crop: split is the cheaper here
        dark = cv2.min(cv2.min(b, g), rr)
        paper = float(np.percentile(dark, 90))
        for cut in _CUTS:
            best = _rank_at(dark, paper, cut, pts[k], origin=(x0, y0), span=span)
            if best is not None:
                out.append((best, pts[k].copy()))
                break
    return out


def _rank_at(dark: Image, paper: float, cut: float, suit_at: npt.NDArray[np.float64], *,
             origin: tuple[int, int], span: float) -> npt.NDArray[np.float64] | None:
    """The centre (frame px) of the likeliest rank mark of ``dark`` (a window's darkest
    channel, its corner at ``origin``) cut at ``cut`` under ``paper``, or None."""
    x0, y0 = origin
    ink = (dark <= (1.0 - cut) * paper).astype(np.uint8)
    # Grana's algorithm, as glyphs._pairs: the default's labels, in less time
    n, lab, st, ce = cv2.connectedComponentsWithStatsWithAlgorithm(ink, 8, cv2.CV_32S,
                                                                   cv2.CCL_GRANA)
    suit = lab[int(suit_at[1]) - y0, int(suit_at[0]) - x0]
    best: tuple[float, npt.NDArray[np.float64]] | None = None
    for c in range(1, n):
        if c == suit:
            continue
        bx, by, bw, bh, area = st[c]
        side = max(bw, bh)
        if not _RANK_OF_SPAN[0] * span <= side <= _RANK_OF_SPAN[1] * span:
            continue
        if bx == 0 or by == 0 or bx + bw >= dark.shape[1] or by + bh >= dark.shape[0]:
            continue  # crosses the window: an edge or a shadow line
        centre = ce[c] + (x0, y0)
        d = float(np.hypot(*(centre - suit_at)))
        if not 0.75 * span <= d <= 1.3 * span:
            continue
        ys, xs = np.nonzero(lab == c)
        (_, _), (rw, rh), _ = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
        if max(rw, rh) > _THIN * max(min(rw, rh), 1.0) or area < 0.12 * bw * bh:
            continue
        miss = abs(d / span - 1.0) + abs(side / span - 1.0)
        if best is None or miss < best[0]:
            best = (miss, centre)
    return None if best is None else best[1]
