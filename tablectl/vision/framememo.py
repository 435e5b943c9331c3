"""Whole-frame work done once per frame read, however many quads ask for it.

A frame's card reads ask for the same whole-frame images again and again: every warp its
four-channel copy (:func:`~tablectl.vision.cardview.warp_source`), each quad
snapped to its edges (:mod:`tablectl.vision.snap`) wants the frame's blurred grey, about
0.6 ms on a 1280x720 frame, and a frame with cards not accepted snaps up to a dozen quads
(the outlines read and refused, the cards placed from free corners). :class:`FrameMemo`
keeps each such image for the frame being read; its value is the function's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tablectl.vision.model import Image

T = TypeVar("T")


class FrameMemo:
    """``fn(frame)`` computed once per frame and function. The frame is known by identity:
    it must not be changed in place while it is being read; :meth:`clear` drops it."""

    def __init__(self) -> None:
        self._frame: Image | None = None
        self._done: dict[Callable[[Image], object], object] = {}

    def of(self, frame: Image, fn: Callable[[Image], T]) -> T:
        """``fn(frame)``, computed the first time it is asked for this frame."""
        if frame is not self._frame:
            self._frame, self._done = frame, {}
        if fn not in self._done:
            self._done[fn] = fn(frame)
        return self._done[fn]  # type: ignore[return-value]

    @property
    def frame(self) -> Image | None:
        """The frame whose images are kept (``None`` after :meth:`clear`)."""
        return self._frame

    def handed_over(self) -> dict[Callable[[Image], object], object]:
        """What is kept for the frame, to be :meth:`take`-n by the memo of another reader of
        the same frame (the images are shared, not copied: none is changed once made)."""
        return dict(self._done)

    def take(self, frame: Image, done: dict[Callable[[Image], object], object]) -> None:
        """Keep ``done`` (another memo's :meth:`handed_over` for ``frame``) for ``frame``."""
        self._frame, self._done = frame, dict(done)

    def clear(self) -> None:
        """Forget the frame and what was computed from it."""
        self._frame, self._done = None, {}
