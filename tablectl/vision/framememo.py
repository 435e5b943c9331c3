"""Whole-frame work done once per frame read, however many quads ask for it.

A frame's card reads ask for the same whole-frame images again and again: every warp its
four-channel copy (:func:`~tablectl.vision.cardview.warp_source`), each quad
snapped to its edges (:mod:`tablectl.vision.snap`) wants the frame's blurred grey, about
0.6 ms on a 1280x720 frame, and a frame with cards not accepted snaps up to a dozen quads
(the outlines read and refused, the cards placed from free corners). :class:`FrameMemo`
keeps each such image for the frame being read; its value is the function's own. It also
keeps what is made per frame and key (:meth:`FrameMemo.keyed`): a card warped from a quad
is asked for again by the reads round a refused card (its pips, their columns, too few
pips: :mod:`tablectl.vision.outset`), each time the same warp.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

from tablectl.vision.model import Image

T = TypeVar("T")
Kept = tuple[dict[Callable[[Image], object], object], dict[tuple[str, Hashable], object]]
"""A memo's images for its frame, by function and by table and key."""


class FrameMemo:
    """``fn(frame)`` computed once per frame and function. The frame is known by identity:
    it must not be changed in place while it is being read; :meth:`clear` drops it."""

    def __init__(self) -> None:
        self._frame: Image | None = None
        self._done: dict[Callable[[Image], object], object] = {}
        self._keyed: dict[tuple[str, Hashable], object] = {}

    def of(self, frame: Image, fn: Callable[[Image], T]) -> T:
        """``fn(frame)``, computed the first time it is asked for this frame."""
        if frame is not self._frame:
            self._frame, self._done, self._keyed = frame, {}, {}
        if fn not in self._done:
            self._done[fn] = fn(frame)
        return self._done[fn]  # type: ignore[return-value]

    def keyed(self, frame: Image, table: str, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``, computed the first time ``key`` is asked for in ``table`` for this
        frame (``make`` must give the same value for the same frame, table and key)."""
        if frame is not self._frame:
            self._frame, self._done, self._keyed = frame, {}, {}
        if (table, key) not in self._keyed:
            self._keyed[(table, key)] = make()
        return self._keyed[(table, key)]  # type: ignore[return-value]

    @property
    def frame(self) -> Image | None:
        """The frame whose images are kept (``None`` after :meth:`clear`)."""
        return self._frame

    def handed_over(self) -> Kept:
        """What is kept for the frame, to be :meth:`take`-n by the memo of another reader of
        the same frame (the images are shared, not copied: none is changed once made)."""
        return dict(self._done), dict(self._keyed)

    def take(self, frame: Image, kept: Kept) -> None:
        """Keep ``kept`` (another memo's :meth:`handed_over` for ``frame``) for ``frame``."""
        self._frame, self._done, self._keyed = frame, dict(kept[0]), dict(kept[1])

    def clear(self) -> None:
        """Forget the frame and what was computed from it."""
        self._frame, self._done, self._keyed = None, {}, {}
