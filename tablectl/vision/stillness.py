"""Whether a camera's frame still shows what an earlier frame showed, up to sensor noise.

A camera over a table sends the same scene for seconds at a time: cards lie still between
the dealer's moves. Finding the cards again on every such frame (the finder is most of a
first pass's cost on a textured table: docs/camera.md §6) finds the same outlines. A
:class:`Stillness` keeps a small picture of the frame the finder last ran on (the mean of
every :data:`CELL` x :data:`CELL` block, per channel) and says whether a later frame's
picture differs from it anywhere by more than :data:`NOISE_LEVELS`; if not, the outlines
found on that frame still hold (:mod:`tablectl.vision.liveboard`). The cards on such a frame
are still read on it: only where they lie is taken over.

Every change is measured against the frame the finder ran on, never against the frame
before: a slow drift (light fading, a card pushed a pixel a frame) adds up and is seen.
A card moved by a pixel changes the cells along its edges by about its contrast with the
table over :data:`CELL` (a white card on green felt: 20 levels and more); a hand, a chip or
another card in view changes far more. A change smaller than that (a card moved less than a
pixel, on a table nearly its colour) moves its outline by less than the finder's own noise.

>>> import numpy as np
>>> still = Stillness()
>>> frame = np.full((64, 64, 3), 90, np.uint8)
>>> still.holds(frame)        # nothing kept yet: this frame is kept
False
>>> still.holds(frame + 2)    # noise
True
>>> frame[8:16, 8:16] = 200   # a change: kept in its place
>>> still.holds(frame), still.holds(frame)
(False, True)
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.model import Image

CELL: Final = 8
"""Frame pixels per side of a cell of the small picture."""
NOISE_LEVELS: Final = 6.0
"""The largest change of a cell's mean (grey levels, any channel) taken for noise. A
sensor's noise of sigma 2 levels per pixel moves an 8x8 cell's mean by 0.25 levels (sigma),
so the largest over a 1280x720 frame's 43,200 cell channels stays under 2; a dim camera's
sigma 6 stays under 5."""


def small_picture(frame: Image) -> npt.NDArray[np.uint8]:
    """The mean of every :data:`CELL` x :data:`CELL` block of ``frame`` (the part past
    the last whole cell is left out)."""
    h, w = frame.shape[:2]
    rows, cols = h // CELL, w // CELL
    if rows == 0 or cols == 0:
        return np.zeros((0, 0), np.uint8)
    inner = frame[:rows * CELL, :cols * CELL]
    return np.asarray(cv2.resize(inner, (cols, rows), interpolation=cv2.INTER_AREA))


class Stillness:
    """The small picture of the frame the finder last ran on (module docstring).

    Args:
        noise_levels: :data:`NOISE_LEVELS`; below 0, no frame holds (every frame's cards
            are found afresh: what ``bench/camera.py`` compares with).
    """

    def __init__(self, noise_levels: float = NOISE_LEVELS) -> None:
        self._noise = noise_levels
        self._kept: npt.NDArray[np.uint8] | None = None

    def holds(self, frame: Image) -> bool:
        """Whether ``frame`` shows what the kept frame did: the same size and kind of
        picture (NaN in it never compares equal: not still) and no cell
        changed by more than the noise. If not, ``frame`` is kept in its place (the finder
        is to run on it)."""
        try:
            now = small_picture(frame)
        except (cv2.error, ValueError, TypeError):  # no picture OpenCV can shrink
            self._kept = None
            return False
        kept = self._kept
        if (kept is not None and now.size and now.shape == kept.shape
                and now.dtype == kept.dtype
                and cv2.absdiff(now, kept).max() <= self._noise):
            return True
        self._kept = now
        return False

    def forget(self) -> None:
        """Nothing kept: the next frame is found afresh."""
        self._kept = None
