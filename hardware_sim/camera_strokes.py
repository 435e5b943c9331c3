"""The stroke face of :mod:`hardware_sim.camera`'s deck designs: rank letters and digits
drawn with polylines and ellipses, so decks differ in letterforms and not only in the
outline fonts OpenCV has built in."""

from __future__ import annotations

from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.integer[Any] | np.floating[Any]]


# Stroke face: polylines in a unit box (x right, y down), ellipses as (cx, cy, rx, ry).
_STROKES: Final[dict[str, tuple[tuple[tuple[float, float], ...], ...]]] = {
    "A": (((0, 1), (0.5, 0), (1, 1)), ((0.22, 0.62), (0.78, 0.62))),
    "2": (((0, 0.25), (0.15, 0.05), (0.5, 0), (0.85, 0.05), (1, 0.25), (0.9, 0.45), (0, 1),
           (1, 1)),),
    "3": (((0, 0.03), (1, 0.03), (0.45, 0.42), (0.8, 0.48), (1, 0.7), (0.85, 0.95), (0.5, 1),
           (0.12, 0.95), (0, 0.85)),),
    "4": (((0.75, 1), (0.75, 0), (0, 0.68), (1, 0.68)),),
    "5": (((0.95, 0.02), (0.12, 0.02), (0.05, 0.45), (0.5, 0.38), (0.9, 0.5), (1, 0.72),
           (0.85, 0.95), (0.5, 1), (0.12, 0.95), (0, 0.85)),),
    "6": (((0.85, 0.05), (0.5, 0), (0.15, 0.15), (0, 0.5), (0, 0.75), (0.15, 0.95), (0.5, 1),
           (0.85, 0.95), (1, 0.75), (0.85, 0.5), (0.5, 0.44), (0.15, 0.5), (0, 0.68)),),
    "7": (((0, 0.02), (1, 0.02), (0.35, 1)),),
    "8": (),
    "9": (),
    "1": (((0.05, 0.22), (0.55, 0), (0.55, 1)),),
    "0": (),
    "J": (((0.9, 0), (0.9, 0.75), (0.75, 0.95), (0.45, 1), (0.15, 0.95), (0, 0.75)),),
    "Q": (((0.6, 0.7), (1, 1.08)),),
    "K": (((0, 0), (0, 1)), ((1, 0), (0, 0.62)), ((0.3, 0.42), (1, 1))),
    "O": (), "E": (((1, 0), (0, 0), (0, 1), (1, 1)), ((0, 0.5), (0.8, 0.5))),
    "R": (((0, 1), (0, 0), (0.7, 0), (1, 0.12), (1, 0.38), (0.7, 0.5), (0, 0.5)),
          ((0.5, 0.5), (1, 1))),
}
_ELLIPSES: Final[dict[str, tuple[tuple[float, float, float, float], ...]]] = {
    "8": ((0.5, 0.24, 0.38, 0.24), (0.5, 0.72, 0.48, 0.28)),
    "0": ((0.5, 0.5, 0.5, 0.5),), "Q": ((0.5, 0.5, 0.5, 0.5),), "O": ((0.5, 0.5, 0.5, 0.5),),
}


def stroke_char(canvas: Image, ch: str, x: float, top: float, *, h: float, w: float,
                thick: int) -> None:
    """Draw ``ch`` of the stroke face into the 0..255 mask ``canvas`` (coordinates in
    pixels, drawn with 4 bits of sub-pixel precision), its box ``w`` by ``h`` at
    ``(x, top)``, lines ``thick`` px wide."""
    if ch == "9":  # a 6 turned half round
        stroke_char(canvas, "6", x, top, h=h, w=w, thick=thick)
        box = canvas[round(top) - thick:round(top + h) + thick, round(x) - thick:round(x + w)
                     + thick]
        box[:] = box[::-1, ::-1].copy()
        return
    for line in _STROKES.get(ch, ()):
        pts = np.array([[x + px * w, top + py * h] for px, py in line]) * 16
        cv2.polylines(canvas, [np.round(pts).astype(np.int32)], False, 255, thick,
                      cv2.LINE_AA, 4)
    for cx, cy, rx, ry in _ELLIPSES.get(ch, ()):
        cv2.ellipse(canvas, (round((x + cx * w) * 16), round((top + cy * h) * 16)),
                    (round(rx * w * 16), round(ry * h * 16)), 0, 0, 360, 255, thick,
                    cv2.LINE_AA, 4)
