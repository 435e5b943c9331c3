"""What the recogniser saw, drawn on a copy of a frame (``tablectl camera recognise --explain``).

For a technician setting up a camera: every card found (its quad, coloured by status), the
two index windows read on it, and the read with its confidence; in shoe mode the index
window and its read. Colours (BGR): green
accepted, orange needs_confirmation, grey no_card, magenta out_of_frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.cardview import CARD_H, CARD_W, CORNER
from tablectl.vision.indexread import IndexRead
from tablectl.vision.model import FaceStatus, Image, Quad

COLOURS: Final = {
    FaceStatus.ACCEPTED: (40, 200, 40),
    FaceStatus.NEEDS_CONFIRMATION: (0, 150, 255),
    FaceStatus.NO_CARD: (160, 160, 160),
    FaceStatus.OUT_OF_FRAME: (255, 0, 255),
}


def index_windows(quad: Quad) -> list[list[tuple[float, float]]]:
    """The two index crops of a card (top-left and bottom-right) as frame polygons."""
    src = np.array([[0, 0], [CARD_W - 1, 0], [CARD_W - 1, CARD_H - 1], [0, CARD_H - 1]],
                   np.float32)
    back = cv2.getPerspectiveTransform(src, np.array(quad, np.float32))
    cw, ch = CARD_W * CORNER[0], CARD_H * CORNER[1]
    boxes = [[(0, 0), (cw, 0), (cw, ch), (0, ch)],
             [(CARD_W - cw, CARD_H - ch), (CARD_W, CARD_H - ch), (CARD_W, CARD_H),
              (CARD_W - cw, CARD_H)]]
    out = []
    for box in boxes:
        pts = cv2.perspectiveTransform(np.array([box], np.float32), back)[0]
        out.append([(float(x), float(y)) for x, y in pts])
    return out


def draw(frame: Image, found: Sequence[tuple[Quad, IndexRead]]) -> Image:
    """A copy of ``frame`` with every found card drawn on it."""
    out = frame.copy()
    thick = max(1, round(max(frame.shape[:2]) / 400))
    for quad, read in found:
        colour = COLOURS[read.status]
        pts = np.round(np.array(quad)).astype(np.int32)
        cv2.polylines(out, [pts], True, colour, thick + 1, cv2.LINE_AA)
        cv2.circle(out, (int(pts[0][0]), int(pts[0][1])), thick + 3, colour, -1)
        if read.status is not FaceStatus.OUT_OF_FRAME:
            for win in index_windows(quad):
                w = np.round(np.array(win)).astype(np.int32)
                cv2.polylines(out, [w], True, (255, 200, 0), thick, cv2.LINE_AA)
        _label(out, pts, read, thick)
    return out


def draw_shoe(frame: Image, roi: tuple[int, int, int, int] | None, read: IndexRead) -> Image:
    """A copy of a shoe frame with its index window (``roi``; ``None``: the whole frame)
    drawn in the read's colour, and the read with its confidence."""
    out = frame.copy()
    h, w = frame.shape[:2]
    x, y, rw, rh = roi if roi is not None else (0, 0, w, h)
    thick = max(1, round(max(h, w) / 400))
    pts = np.array([[x, y], [x + rw - 1, y], [x + rw - 1, y + rh - 1], [x, y + rh - 1]],
                   np.int32)
    cv2.polylines(out, [pts], True, COLOURS[read.status], thick, cv2.LINE_AA)
    _label(out, pts, read, thick)
    return out


def _label(out: Image, pts: npt.NDArray[np.int32], read: IndexRead, thick: int) -> None:
    """The read and its confidence above the shape ``pts``, on a black box."""
    colour = COLOURS[read.status]
    scale = max(0.4, max(out.shape[:2]) / 1200)
    label = (f"{read.card or '--'} {read.confidence:.2f}"
             if read.status is not FaceStatus.OUT_OF_FRAME else "out of frame")
    x = int(pts[:, 0].min())
    y = max(int(pts[:, 1].min()) - 6, 14)
    (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    cv2.rectangle(out, (x, y - th - 4), (x + tw + 4, y + 4), (0, 0, 0), -1)
    cv2.putText(out, label, (x + 2, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick,
                cv2.LINE_AA)
