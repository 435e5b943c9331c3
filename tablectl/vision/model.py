"""Values shared by the camera pipeline: read status, one card read, errors, thresholds.

This module does not import OpenCV, so the daemon can name these types without loading cv2.

>>> read = FaceRead(None, 0.0, FaceStatus.NO_CARD)
>>> read.as_json()
{'card': None, 'confidence': 0.0, 'status': 'no_card', 'quad': None}
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from tablectl.config_urls import hide_password
from tablectl.domain.cards import Card
from tablectl.domain.errors import TablectlError
from tablectl.domain.strictjson import brief

Image: TypeAlias = npt.NDArray[np.integer[Any] | np.floating[Any]]
"""A BGR frame or crop as OpenCV hands it over (uint8 in practice)."""
Point: TypeAlias = tuple[float, float]
Quad: TypeAlias = tuple[Point, Point, Point, Point]
"""A card's corners in frame pixels, clockwise from the face's top-left (index) corner."""


class VisionError(TablectlError):
    """Root of the camera pipeline's errors."""


class ProfileError(VisionError, ValueError):
    """A deck profile that cannot be read or used (missing file, bad content, wrong version).

    Attributes:
        path: the profile directory or file concerned, if any.
    """

    def __init__(self, message: str, path: str | None = None) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class EnrolmentError(VisionError, ValueError):
    """An enrolment input that cannot be used (no card index found, bad label).

    Attributes:
        item: the image name or label concerned, if any.
    """

    def __init__(self, message: str, item: str | None = None) -> None:
        self.item = item
        super().__init__(f"{item}: {message}" if item else message)


class NoIndexError(EnrolmentError):
    """An enrolment frame in which no card index was found (the photo, not the input, is
    at fault: another photo of the card will do)."""


class FrameSourceError(VisionError, OSError):
    """A camera, file or stream that cannot be opened.

    Attributes:
        url: what was opened (its message shows it with any password as ``***``).
    """

    def __init__(self, message: str, url: str) -> None:
        self.url = url
        # the message is logged and shown: a camera URL's password never is, nor its
        # control characters or more than a line of it
        super().__init__(f"{brief(hide_password(url), 160)}: {message}")


class FaceStatus(StrEnum):
    """What the table may do with a read."""

    ACCEPTED = "accepted"
    """Confident: the controller may use the card without asking."""
    NEEDS_CONFIRMATION = "needs_confirmation"
    """Something index-like was seen but not surely: the dealer confirms (``card`` is a hint)."""
    NO_CARD = "no_card"
    """No card face: empty view, card back, joker, cut card, blank."""
    OUT_OF_FRAME = "out_of_frame"
    """A card runs into the frame's edge (partly outside the view): found, not read."""


@dataclass(frozen=True, slots=True)
class FaceRead:
    """One reading of one card (from one frame, or decided over several).

    Attributes:
        card: the best guess, or ``None``; only trust it when ``status`` is ``ACCEPTED``.
        confidence: 0..1, the weaker of the rank and suit glyph correlations.
        status: see :class:`FaceStatus`.
        quad: where the card is in the frame (board mode), else ``None``.
        frame_time: monotonic seconds of the (last) frame, from the injected clock.
        frames: how many frames the read is based on.
    """

    card: Card | None
    confidence: float
    status: FaceStatus
    quad: Quad | None = None
    frame_time: float = 0.0
    frames: int = 1

    def as_json(self) -> dict[str, object]:
        """The ``recognise --json`` shape: card code (``T`` for ten), confidence, status, quad."""
        return {
            "card": None if self.card is None else str(self.card),
            "confidence": round(self.confidence, 3),
            "status": self.status.value,
            "quad": None if self.quad is None else [[round(x, 1), round(y, 1)]
                                                    for x, y in self.quad],
        }


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The decision gate (correlations are zero-mean normalised, -1..1).

    Attributes:
        accept: both rank and suit correlation must reach this to accept.
        margin: best minus best-of-another-class must reach this, for rank and suit.
        separation: the margin divided by how different the two winning exemplars are
            (``1 - e1.e2``): where the glyph lies on the line between them, 1 exactly the
            winner, 0 halfway. Scale-free, so look-alike glyphs (club/spade) get a fair test.
        layout: largest accepted distance between the seen index layout (suit size, gap,
            offset, rank aspect, relative to rank height) and the enrolled one.
        index: the whole index patch must correlate this well with an enrolled index of the
            same card (checks that it is this deck's print, not a look-alike deck).
        no_card: below this (rank or suit) the view holds no card index at all.
    """

    accept: float = 0.80
    margin: float = 0.005
    separation: float = 0.4
    layout: float = 0.10
    index: float = 0.93
    no_card: float = 0.45

    def as_dict(self) -> dict[str, float]:
        """For the profile file."""
        return {"accept": self.accept, "margin": self.margin, "separation": self.separation,
                "layout": self.layout,
                "index": self.index, "no_card": self.no_card}
