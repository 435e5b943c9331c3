"""A frozen camera feed: the same picture, to the last bit, for seconds on end.

A capture that has lost its camera does not always stop: an HDMI or SDI capture card whose
signal is gone, a USB driver that has lost the device or an IP camera's encoder stuck on
its last picture may go on handing out its last frame at the usual rate. The camera source
would then see the cards of that frame for ever and none that the dealer deals after it,
while reporting itself online.

A real camera's frames are never equal to the bit: the sensor's noise moves the low bits of
every pixel from one frame to the next (even a still scene; the frames the still-frame check
of :mod:`tablectl.vision.stillness` takes for still differ in many pixels). So a feed whose
frames have been bit-for-bit equal for :data:`FROZEN_SECONDS` is frozen. A *flat* picture is
the exception: a black frame (a lens cap, a shoe's unlit interior, a capture card's blank
screen) or a saturated one can be equal to the bit on a working camera, and shows no card
either way, so it never counts as frozen.

Sans-IO: :class:`FrozenFeed` is fed each frame and its time; the camera source
(:mod:`tablectl.vision.source`) ends the feed with a
:class:`~tablectl.vision.model.FrameSourceError` when it says frozen, which makes the
daemon's camera offline and opens it again after its back-off.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from tablectl.vision.model import Image

FROZEN_SECONDS: Final = 5.0
"""Seconds of bit-for-bit equal frames after which a feed is frozen (150 frames at 30 fps,
each of which a working sensor's noise would have changed)."""
FLAT_LEVEL: Final = 3.0
"""A picture whose sampled pixels spread by less than this (standard deviation, 8-bit
levels) is flat: black, blank or saturated; equal frames of it are not a frozen feed."""
_STEP: Final = 16
"""Every 16th row and column is compared first (1/256 of the pixels: 10,800 values of a
1280x720 colour frame; ``bench/camera.py`` prints the check's cost a live frame); only a frame
equal on those is compared whole."""


class FrozenFeed:
    """Says when a feed has shown the same picture for ``seconds``.

    Args:
        seconds: how long the same picture may last; ``None`` turns the check off.

    Raises:
        ValueError: ``seconds`` is not a positive finite number.
    """

    def __init__(self, seconds: float | None = FROZEN_SECONDS) -> None:
        if seconds is not None and not (np.isfinite(seconds) and seconds > 0):
            raise ValueError(f"seconds must be a positive number, got {seconds!r}")
        self._seconds = seconds
        self._sample: Image | None = None
        self._whole: Image | None = None
        self._since = 0.0
        self._flat = True

    @property
    def seconds(self) -> float | None:
        """The limit (``None``: never frozen)."""
        return self._seconds

    def reset(self) -> None:
        """Forget the frames seen (a feed opened anew)."""
        self._sample = self._whole = None

    def frozen_for(self, now: float) -> float:
        """Seconds the current picture has lasted at ``now`` (0 with none or a flat one)."""
        if self._whole is None or self._flat:
            return 0.0
        return max(0.0, now - self._since)

    def update(self, image: Image, now: float) -> bool:
        """Take the next frame, taken at ``now`` (seconds, monotonic): True when the feed
        is frozen (the same picture, not a flat one, for at least the limit).

        Copies are kept, never the caller's arrays: a capture that fills one buffer again
        and again must not compare a frame with itself."""
        if self._seconds is None:
            return False
        sample = image[::_STEP, ::_STEP]
        kept = self._sample
        if (kept is None or sample.shape != kept.shape or sample.dtype != kept.dtype
                or not np.array_equal(sample, kept)):
            # a new picture: the usual case, at the cost of the sample's copy
            self._sample, self._whole = sample.copy(), None
            return False
        whole = self._whole
        if (whole is None or image.shape != whole.shape or image.dtype != whole.dtype
                or not np.array_equal(image, whole) or not now >= self._since):
            # equal where sampled: the run of this whole picture starts here (or again, for
            # a picture that differs between the samples, or a clock that went back)
            self._whole, self._since = image.copy(), now
            self._flat = not float(np.std(sample)) >= FLAT_LEVEL
            return False
        return not self._flat and now - self._since >= self._seconds
