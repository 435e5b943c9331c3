"""Harsher board frames: what real table photos show and the felt renderer lacked.

The real photographs in ``shared/corpus/cards`` (phone and webcam pictures of cards on
carpets, rugs, wooden tables, cloth and paper) showed the renderer of
:mod:`hardware_sim.camera` to be too kind: dark uniform felt, cards within 25 deg of
upright, no vignetting, clean optics. :class:`SceneCamera` renders frames of any size
(1280x720 by default, a table camera's) with:

* real-looking backgrounds: wood grain, carpet speckle, woven cloth, patterned felt, and
  pale paper, the hardest (a white card on white paper barely has an edge);
* cards at any rotation (0-360 deg) and tilted up to about 30 deg (perspective), optionally
  overlapping (a card partly under another);
* a strong vignette, a warm or cool colour cast, motion blur along a random direction, and
  phone-style JPEG (quality 50-85), on top of :func:`hardware_sim.camera.degrade`.

Ground truth is one :class:`~hardware_sim.camera.BoardTruth` per card (for an overlapped
card, its whole outline, including the hidden part).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import cv2
import numpy as np

from hardware_sim.camera import (
    _MASK,
    FACE_H,
    FACE_W,
    BoardTruth,
    DeckStyle,
    Face,
    Image,
    degrade,
    random_style,
    render_face,
)
from tablectl.domain.cards import FULL_DECK, Card

TABLE_FRAME: Final = (1280, 720)
BACKGROUNDS: Final = ("wood", "carpet", "cloth", "felt", "paper")


def background(kind: str, size: tuple[int, int], rng: np.random.Generator) -> Image:
    """A table surface of ``kind`` (one of :data:`BACKGROUNDS`), ``size`` = (w, h)."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array(rng.choice([(40, 70, 120), (60, 100, 150), (25, 45, 80)]),
                        np.float32)
        ang = rng.uniform(-0.3, 0.3)
        u = xx * math.sin(ang) + yy * math.cos(ang)
        warp = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 25) * 60
        grain = np.sin((u + warp) / rng.uniform(3, 8)) * 0.5 + 0.5
        fine = rng.normal(0, 0.06, (h, w)).astype(np.float32)
        shade = (0.75 + 0.35 * grain + fine)[..., None]
        img = base * shade
    elif kind == "carpet":
        base = np.array(rng.choice([(120, 150, 170), (90, 110, 130), (60, 60, 70)]),
                        np.float32)
        speck = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.2)
        img = base * (1 + 0.35 * speck)[..., None]
    elif kind == "cloth":
        base = np.array(rng.choice([(90, 60, 40), (50, 50, 120), (70, 90, 60)]), np.float32)
        period = rng.uniform(4, 9)
        weave = (np.sin(xx / period) * np.sin(yy / period)) * 0.15
        folds = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 40) * 8
        img = base * (1 + weave + folds)[..., None]
    elif kind == "felt":
        base = np.array(rng.choice([(40, 90, 20), (90, 50, 20), (30, 30, 110)]), np.float32)
        tex = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 2) * 0.08
        img = base * (1 + tex)[..., None]
        for _ in range(int(rng.integers(0, 3))):  # printed betting lines
            cv2.ellipse(img, (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                        (int(rng.uniform(100, 500)), int(rng.uniform(60, 300))), 0, 0, 360,
                        (200, 200, 200), int(rng.integers(2, 6)))
    elif kind == "paper":
        tone = rng.uniform(175, 215)
        img = np.full((h, w, 3), tone, np.float32) * np.array([0.97, 1.0, 1.02], np.float32)
        img += rng.normal(0, 3, (h, w, 3)).astype(np.float32)
        for _ in range(int(rng.integers(8, 25))):  # lines of print
            y = int(rng.uniform(0, h))
            x0 = int(rng.uniform(0, w * 0.7))
            cv2.line(img, (x0, y), (x0 + int(rng.uniform(80, 400)), y), (70, 70, 70), 2)
    else:
        raise ValueError(f"unknown background {kind!r}; one of {', '.join(BACKGROUNDS)}")
    out: Image = np.clip(img, 0, 255).astype(np.uint8)
    return out


def _pose(rng: np.random.Generator, cx: float, cy: float, width: float,
          tilt: float) -> list[tuple[float, float]]:
    """Corners of a card at any rotation, tilted by up to ``tilt`` deg (perspective)."""
    height = width * FACE_H / FACE_W
    ang = rng.uniform(0, 2 * math.pi)
    ca, sa = math.cos(ang), math.sin(ang)
    t = math.radians(rng.uniform(0, tilt))
    squash = math.cos(t)  # the far edge shorter, the card foreshortened
    far = 1 - 0.5 * (1 - squash)
    corners = []
    for ux, uy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        dx = ux * width / 2 * (far if uy < 0 else 1.0)
        dy = uy * height / 2 * squash
        corners.append((cx + dx * ca - dy * sa, cy + dx * sa + dy * ca))
    return corners


def _vignette(img: Image, rng: np.random.Generator, strength: float) -> Image:
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
    fall = 1 - min(0.8, rng.uniform(0.3, 0.6) * strength) * np.clip(r2 / 2, 0, 1)
    cast = 1 + rng.uniform(-0.12, 0.12, 3).astype(np.float32) * strength
    out: Image = np.clip(img.astype(np.float32) * fall[..., None] * cast, 0, 255).astype(
        np.uint8)
    return out


def _motion(img: Image, rng: np.random.Generator, strength: float) -> Image:
    length = round(rng.uniform(0, 7) * strength)
    if length < 2:
        return img
    kern = np.zeros((length, length), np.float32)
    kern[length // 2, :] = 1.0 / length
    rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180),
                                  1.0)
    kern = np.asarray(cv2.warpAffine(kern, rot, (length, length)), np.float32)
    kern /= max(float(kern.sum()), 1e-6)
    return np.asarray(cv2.filter2D(img, -1, kern))


def _phone_jpeg(img: Image, rng: np.random.Generator) -> Image:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(50, 85))])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if out is None:
        raise RuntimeError("JPEG round trip failed")
    return out


def render_table(faces: Sequence[Face], style: DeckStyle, rng: np.random.Generator, *,
                 strength: float = 1.0, size: tuple[int, int] = TABLE_FRAME,
                 card_width: tuple[float, float] = (120, 170), kind: str | None = None,
                 tilt: float = 30.0, overlap: bool = False,
                 ) -> tuple[Image, list[BoardTruth]]:
    """A harsh table frame with ``faces`` (at most 8) on a real-looking surface.

    Cards are placed in a grid of cells (so they do not overlap unless ``overlap``, which
    lays every second card partly over the card before it: its centre 0.45-0.75 card widths
    from that card's, in any direction), at any rotation, tilted up to ``tilt`` deg.
    ``kind`` picks the background (random if ``None``).
    """
    if len(faces) > 8:
        raise ValueError("at most 8 cards on a table frame")
    w, h = size
    frame = background(kind or str(rng.choice(BACKGROUNDS)), size, rng).astype(np.float32)
    n = max(len(faces), 1)
    cols = min(n, 4)
    rows = math.ceil(n / cols)
    cells = rng.permutation(cols * rows)[:n]
    truths: list[BoardTruth] = []
    src = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float32)
    for i, (face, cell) in enumerate(zip(faces, cells, strict=False)):
        cw, ch = w / cols, h / rows
        width = min(rng.uniform(*card_width), 0.62 * min(cw, ch))
        cx = (int(cell) % cols + 0.5) * cw + rng.uniform(-0.08, 0.08) * cw
        cy = (int(cell) // cols + 0.5) * ch + rng.uniform(-0.08, 0.08) * ch
        if overlap and i % 2 == 1 and truths:
            px, py = np.mean(truths[-1].quad, axis=0)
            ang = rng.uniform(0, 2 * math.pi)
            dist = rng.uniform(0.45, 0.75) * width
            # kept a half diagonal (0.86 widths) inside the frame, with a little to spare
            cx = float(np.clip(px + dist * math.cos(ang), 0.9 * width, w - 0.9 * width))
            cy = float(np.clip(py + dist * math.sin(ang), 0.9 * width, h - 0.9 * width))
        corners = _pose(rng, cx, cy, width, tilt)
        m = cv2.getPerspectiveTransform(src, np.array(corners, np.float32))
        warped = cv2.warpPerspective(render_face(face, style), m, size, flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(_MASK, m, size, flags=cv2.INTER_LINEAR)
        shadow = cv2.GaussianBlur(mask, (0, 0), 4).astype(np.float32)[..., None] / 255.0
        frame *= 1 - 0.35 * np.roll(shadow, (4, 3), axis=(0, 1))
        a = (mask.astype(np.float32) / 255.0)[..., None]
        frame = frame * (1 - a) + warped.astype(np.float32) * a
        truths.append(BoardTruth(face, tuple(corners)))
    img: Image = np.clip(frame, 0, 255).astype(np.uint8)
    img = _vignette(img, rng, strength)
    img = _motion(img, rng, strength)
    img = degrade(img, rng, strength * 0.6)
    return _phone_jpeg(img, rng), truths


class SceneCamera:
    """A seeded camera over a real-looking table (see the module docstring).

    Args:
        seed: everything follows from it.
        style: the deck design; :func:`~hardware_sim.camera.random_style` of the seed if
            omitted.
        strength: degradation strength (0.5 mild, 1.0 moderate, 1.5 harsh).
    """

    def __init__(self, seed: int, style: DeckStyle | None = None,
                 strength: float = 1.0) -> None:
        self.style = style or random_style(seed)
        self.strength = strength
        self._rng = np.random.default_rng(seed)

    def frame(self, faces: Sequence[Face], *, size: tuple[int, int] = TABLE_FRAME,
              card_width: tuple[float, float] = (120, 170), kind: str | None = None,
              tilt: float = 30.0, overlap: bool = False) -> tuple[Image, list[BoardTruth]]:
        """One frame; see :func:`render_table`."""
        return render_table(faces, self.style, self._rng, strength=self.strength, size=size,
                            card_width=card_width, kind=kind, tilt=tilt, overlap=overlap)

    def shuffled_deck(self) -> list[Card]:
        """The 52 cards in a seeded order."""
        order = self._rng.permutation(len(FULL_DECK))
        return [FULL_DECK[int(i)] for i in order]
