"""Where a frame differs from an even background (the finder's mask for a card on a pale
table of nearly its own brightness, :mod:`tablectl.vision.locate`).

The background is the frame's border ring fitted with a smooth quadratic surface per
channel; a frame whose ring does not fit one (carpet, clutter, a hand) gives no mask.
"""

from __future__ import annotations

import functools
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.model import Image

BACKGROUND_RING: Final = 0.03
"""The frame's border ring (share of its short side) that gives the background colour."""
BACKGROUND_EVEN: Final = 8.0
"""A border ring whose colours stray from the fitted surface by at most this (median
absolute residual, the worst channel, grey levels) is one even background: a table, a
cloth."""


def off_background(small: Image) -> Image | None:
    """Where the frame differs from an even background: a card on a pale table of nearly
    its own brightness (a grey or beige table, where whiteness merges card and table)
    still differs from it in colour and level, and its pips and index lie inside it. The
    background is the frame's border ring fitted with a smooth quadratic surface per
    channel (a vignette or a light falling off across the table is still one background).
    ``None`` when the ring does not fit one (carpet, clutter, a hand): that mask would be
    noise."""
    h, w = small.shape[:2]
    q = small[::4, ::4].astype(np.float32)
    qh, qw = q.shape[:2]
    terms, ring, a = _surface(qh, qw)
    on_ring = q[ring]
    coef, *_ = np.linalg.lstsq(a, on_ring, rcond=None)
    resid = np.abs(on_ring - a @ coef)
    mad = float(np.median(resid, axis=0).max())
    if mad > BACKGROUND_EVEN:
        return None
    bg = np.clip(terms @ coef, 0, 255).astype(np.uint8)
    diff = cv2.absdiff(small, cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR))
    d0, d1, d2 = cv2.split(diff)  # at 640 px cheaper than ``planes`` (locate.balanced)
    dist = cv2.GaussianBlur(cv2.max(cv2.max(d0, d1), d2), (5, 5), 0)
    floor = 4.0 * mad + 12.0
    t, mask = cv2.threshold(dist, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    if floor > t:  # else Otsu's own cut is the one
        _, mask = cv2.threshold(dist, floor, 255, cv2.THRESH_BINARY)
    return mask


@functools.lru_cache(maxsize=8)
def _surface(qh: int, qw: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_],
                                        npt.NDArray[np.float32]]:
    """The quadratic surface's terms at each pixel of a ``qh`` x ``qw`` grid, its border
    ring (:data:`BACKGROUND_RING`) and the terms on the ring, made once per frame size
    (read-only)."""
    b = max(1, round(BACKGROUND_RING * min(qh, qw)))
    ys, xs = np.mgrid[0:qh, 0:qw].astype(np.float32)
    ys, xs = ys / qh - 0.5, xs / qw - 0.5
    terms = np.stack([np.ones_like(xs), xs, ys, xs * ys, xs * xs, ys * ys], axis=-1)
    ring = np.zeros((qh, qw), bool)
    ring[:b] = ring[-b:] = True
    ring[:, :b] = ring[:, -b:] = True
    on_ring = terms[ring]
    for arr in (terms, ring, on_ring):
        arr.flags.writeable = False
    return terms, ring, on_ring
