"""Percentiles and medians of uint8 images read off their grey-level counts.

``np.percentile`` and ``np.median`` sort (partition) every pixel and carry a deep Python
call stack; on the small images of one read they cost more than the OpenCV work around
them. A uint8 image has only 256 levels: one histogram gives every order statistic. The
values returned are numpy's own, bit for bit: the median of an even count is the mean of
the two middle values (as numpy takes it), and a percentile whose two neighbouring values
differ (numpy interpolates between them) is left to numpy (``None`` here), which happens
rarely on photos (the neighbours of a high percentile are nearly always the same level).
"""

from __future__ import annotations

import math
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.model import Image

_EXACT_COUNTS: Final = 2**24
"""Below this many pixels float32 counts are whole numbers (the counts of ``calcHist``)."""


def _cumulative(img: Image, channel: int = 0) -> npt.NDArray[np.float32] | npt.NDArray[np.intp]:
    """How many pixels of ``img`` (uint8; ``channel`` of a 3-channel one) lie at or below
    each of the 256 levels. Below :data:`_EXACT_COUNTS` pixels numpy's ``bincount``
    counts them (whole numbers, as the float32 ones of OpenCV's ``calcHist`` are there,
    in a sixth of its time on the small images of one read); above, ``calcHist``'s float32
    counts as before (and of any other type)."""
    if img.dtype == np.uint8 and img.size < _EXACT_COUNTS:
        pix = img if img.ndim < 3 else img[..., channel]
        counts: npt.NDArray[np.intp] = np.bincount(pix.ravel(), minlength=256).cumsum()
        return counts
    hist = cv2.calcHist([np.ascontiguousarray(img)], [channel], None, [256], [0, 256])
    out: npt.NDArray[np.float32] = np.cumsum(hist.ravel())
    return out


def _at(below: npt.NDArray[np.float32] | npt.NDArray[np.intp], ranks: list[int]) -> list[int]:
    """The levels at the given 0-based ranks of the sorted pixels."""
    at: list[int] = below.searchsorted(ranks, side="right").tolist()
    return at


def _neighbours(n: int, q: float) -> list[int]:
    """The ranks numpy's ``"linear"`` percentile interpolates between (its own formula)."""
    at = (n - 1) * (q / 100)
    if at >= n - 1:
        return [n - 1, n - 1]
    lo = max(0, math.floor(at))
    return [lo, lo + 1]


def percentile(img: Image, q: float) -> float | None:
    """``float(np.percentile(img, q))`` of a uint8 image, or ``None`` where numpy would
    interpolate between two different levels (the caller asks numpy then)."""
    n = img.size
    if n == 0:
        return None
    a, b = _at(_cumulative(img), _neighbours(n, q))
    return float(a) if a == b else None


def channel_percentiles(pix: Image, q: float) -> npt.NDArray[np.float32] | None:
    """``np.percentile(pix, q, axis=0).astype(np.float32)`` of uint8 pixels ``(n, 3)``, or
    ``None`` as :func:`percentile`."""
    n = pix.shape[0]
    if n == 0:
        return None
    img = np.ascontiguousarray(pix).reshape(n, 1, 3)
    ranks = _neighbours(n, q)
    out = np.empty(3, np.float32)
    for c in range(3):
        a, b = _at(_cumulative(img, c), ranks)
        if a != b:
            return None
        out[c] = a
    return out


def median(img: Image) -> float:
    """``float(np.median(img))`` of a non-empty uint8 image."""
    n = img.size
    mid = n // 2
    if n % 2:
        return float(_at(_cumulative(img), [mid])[0])
    a, b = _at(_cumulative(img), [mid - 1, mid])
    return (a + b) / 2
