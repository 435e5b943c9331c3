"""SimCamera: a seeded renderer of realistic card-camera frames, with ground truth.

Card faces are drawn here with OpenCV primitives only (Hershey fonts for ranks, polygons and
circles for suits; no downloaded assets). A :class:`DeckStyle` fixes one printed design: font,
stroke, index size and layout, suit shape proportions, ink colours (two- or four-colour) and
paper tint. Two rigs are rendered:

* **shoe** -- a small camera inside the shoe looking at the corner index as the card slides
  out: a ``SHOE_FRAME`` sized frame, the index inside the fixed :data:`SHOE_ROI`, dark
  shoe interior when no card is there.
* **board** -- an overhead 640x480 camera over felt with up to 8 cards at random poses.

Degradations scale with a ``strength`` (0.5 mild, 1.0 moderate, 1.5 harsh): rotation,
scale, shift, perspective, Gaussian or motion blur, sensor noise, gain, colour cast,
illumination gradient, glare blob and JPEG compression.

Frames are served to the production camera source through OpenCV itself: write them as an
image sequence (``frame_%05d.png``) or an MJPEG AVI, both of which ``cv2.VideoCapture``
opens. Everything is deterministic for a given seed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from hardware_sim.camera_strokes import stroke_char
from tablectl.domain.cards import FULL_DECK, Card, Rank, Suit

Image = npt.NDArray[np.integer[Any] | np.floating[Any]]

FACE_W: Final = 250
FACE_H: Final = 350
SHOE_FRAME: Final = (160, 176)
"""Shoe camera frame size (width, height) in pixels."""
SHOE_ROI: Final = (24, 16, 104, 144)
"""Where the shoe camera sees the index: (x, y, width, height) in the shoe frame."""
BOARD_FRAME: Final = (640, 480)

_FACES: Final = ("sans", "italic", "uni", "stroke")
"""Typefaces: OpenCV's built-in outline fonts (``cv2.FontFace``) and a stroke face drawn
here with polylines, so decks differ in letterforms and not only in size and weight."""
_RED_SUITS: Final = (Suit.HEARTS, Suit.DIAMONDS)


class Special(StrEnum):
    """Things that pass the camera and are not a playing card."""

    JOKER = "joker"
    CUT_CARD = "cut_card"
    BACK = "back"
    BLANK = "blank"


Face = Card | Special


@dataclass(frozen=True, slots=True)
class DeckStyle:
    """One printed deck design (all lengths in face pixels on a 250x350 face)."""

    name: str
    face: str
    weight: int
    rank_h: int
    stretch: float
    ten_squeeze: float
    index_x: int
    index_y: int
    suit_h: int
    suit_gap: int
    diamond_w: float
    lobe: float
    paper: tuple[int, int, int]
    inks: dict[Suit, tuple[int, int, int]] = field(hash=False)
    back: tuple[int, int, int] = (140, 40, 30)

    @property
    def four_colour(self) -> bool:
        """True if diamonds and hearts are printed in different inks."""
        return self.inks[Suit.DIAMONDS] != self.inks[Suit.HEARTS]


def random_style(seed: int, *, four_colour: bool = False, name: str | None = None) -> DeckStyle:
    """A deck design drawn from ``seed`` (same seed, same design)."""
    rng = np.random.default_rng(seed)
    red = (int(rng.integers(10, 60)), int(rng.integers(10, 50)), int(rng.integers(170, 230)))
    black = (int(rng.integers(10, 40)),) * 3
    inks = {Suit.SPADES: black, Suit.CLUBS: black, Suit.HEARTS: red, Suit.DIAMONDS: red}
    if four_colour:
        inks[Suit.DIAMONDS] = (int(rng.integers(150, 200)), int(rng.integers(60, 100)), 20)
        inks[Suit.CLUBS] = (30, int(rng.integers(110, 150)), 20)
    tint = rng.integers(0, 18, size=3)
    paper = (int(245 - tint[0]), int(245 - tint[1]), int(250 - tint[2] // 2))
    rank_h = int(rng.integers(34, 46))
    face = _FACES[int(rng.integers(len(_FACES)))]
    return DeckStyle(
        name=name or f"style{seed}",
        face=face,
        weight=int(rng.integers(3, 10)) * 100,
        rank_h=rank_h,
        stretch=float(rng.uniform(0.75, 1.25)),
        ten_squeeze=float(rng.uniform(0.6, 0.9)),
        index_x=int(rng.integers(12, 20)),
        index_y=int(rng.integers(12, 20)),
        suit_h=int(rank_h * rng.uniform(0.6, 0.85)),
        suit_gap=int(rng.integers(5, 11)),
        diamond_w=float(rng.uniform(0.6, 0.85)),
        lobe=float(rng.uniform(0.26, 0.32)),
        paper=paper,
        inks=inks,
        back=(int(rng.integers(60, 200)), int(rng.integers(20, 80)), int(rng.integers(20, 200))),
    )


# --- drawing ------------------------------------------------------------------------------

def _heart(img: Image, cx: float, top: float, h: float, w: float, *, lobe: float,
           colour: tuple[int, int, int], flip: bool = False) -> None:
    """A heart (or, flipped, the body of a spade) filling a ``w`` x ``h`` box."""
    r = w * lobe
    sgn = -1.0 if flip else 1.0
    base = top if not flip else top + h
    cy = base + sgn * r
    pts = np.array([
        [cx - 2 * r + 0.3, cy + sgn * r * 0.3],
        [cx + 2 * r - 0.3, cy + sgn * r * 0.3],
        [cx, base + sgn * h],
    ])
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)
    for dx in (-r, r):
        cv2.circle(img, (round((cx + dx) * 16), round(cy * 16)), round(r * 1.02 * 16),
                   colour, -1, cv2.LINE_AA, 4)


def draw_suit(img: Image, suit: Suit, cx: float, top: float, h: float, *, style: DeckStyle,
              colour: tuple[int, int, int]) -> None:
    """Draw a suit symbol of height ``h`` centred on ``cx`` with its top at ``top``."""
    w = h * 0.9
    if suit is Suit.DIAMONDS:
        dw = h * style.diamond_w / 2
        pts = np.array([[cx, top], [cx + dw, top + h / 2], [cx, top + h], [cx - dw, top + h / 2]])
        cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)
    elif suit is Suit.HEARTS:
        _heart(img, cx, top, h, w, lobe=style.lobe, colour=colour)
    elif suit is Suit.SPADES:
        _heart(img, cx, top, h * 0.8, w, lobe=style.lobe, colour=colour, flip=True)
        stem = np.array([[cx, top + h * 0.55], [cx + w * 0.2, top + h], [cx - w * 0.2, top + h]])
        cv2.fillPoly(img, [np.round(stem * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)
    else:
        r = w * 0.24
        for ox, oy in ((0.0, r), (-r * 1.15, r * 2.4), (r * 1.15, r * 2.4)):
            cv2.circle(img, (round((cx + ox) * 16), round((top + oy) * 16)), round(r * 16),
                       colour, -1, cv2.LINE_AA, 4)
        stem = np.array([[cx, top + r * 1.5], [cx + w * 0.18, top + h], [cx - w * 0.18, top + h]])
        cv2.fillPoly(img, [np.round(stem * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)


@lru_cache(maxsize=512)
def _label_mask(text: str, face: str, weight: int, height: int, squeeze: float) -> Image:
    """A tight 0..255 mask of ``text`` in a typeface, ``height`` px tall, width scaled by
    ``squeeze``."""
    big = 96
    canvas = np.zeros((big * 2, big * (len(text) + 1)), np.uint8)
    if face == "stroke":
        thick = max(2, round(big * weight / 3000))
        x = float(thick)
        for ch in text:
            w = big * (0.3 if ch == "1" else 0.62)
            stroke_char(canvas, ch, x + thick, big * 0.4, h=big, w=w, thick=thick)
            x += w + big * 0.2
    else:
        cv2.putText(canvas, text, (big // 4, round(big * 1.5)), 255, cv2.FontFace(face),
                    round(big * 1.35), weight)
    ys, xs = np.nonzero(canvas)
    if ys.size == 0:
        raise ValueError(f"nothing drawn for {text!r} in {face}")
    tight = canvas[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    scale = height / tight.shape[0]
    new_w = max(1, round(tight.shape[1] * scale * squeeze))
    return np.asarray(cv2.resize(tight, (new_w, height), interpolation=cv2.INTER_AREA),
                      np.uint8)


def _blend(img: Image, mask: Image, x: float, top: float, colour: tuple[int, int, int]) -> None:
    x0, y0 = max(0, round(x)), max(0, round(top))
    region = img[y0:y0 + mask.shape[0], x0:x0 + mask.shape[1]]
    alpha = (mask[: region.shape[0], : region.shape[1]].astype(np.float32) / 255.0)[..., None]
    region[:] = (region * (1 - alpha) + np.array(colour, np.float32) * alpha).astype(np.uint8)


def _text(img: Image, text: str, x: float, top: float, *, h: float, style: DeckStyle,
          colour: tuple[int, int, int], squeeze: float = 1.0) -> float:
    """Draw ``text`` ``h`` px tall with its top-left at ``(x, top)``; returns its width."""
    mask = _label_mask(text, style.face, style.weight, round(h), round(squeeze, 3))
    _blend(img, mask, x, top, colour)
    return float(mask.shape[1])


def index_centre(style: DeckStyle) -> float:
    """x of the index column's centre on the face: wide enough for a condensed ``10``."""
    ten = _label_mask("10", style.face, style.weight, style.rank_h,
                      round(style.stretch * style.ten_squeeze, 3))
    return float(style.index_x + ten.shape[1] / 2 + 1)


def _draw_index(img: Image, card: Card, style: DeckStyle) -> None:
    colour = style.inks[card.suit]
    label = "10" if card.rank is Rank.TEN else card.rank.value
    squeeze = style.stretch * (style.ten_squeeze if card.rank is Rank.TEN else 1.0)
    mask = _label_mask(label, style.face, style.weight, style.rank_h, round(squeeze, 3))
    centre = index_centre(style)
    _blend(img, mask, centre - mask.shape[1] / 2, style.index_y, colour)
    suit_top = style.index_y + style.rank_h + style.suit_gap
    draw_suit(img, card.suit, centre, suit_top, style.suit_h, style=style, colour=colour)


def _draw_centre(img: Image, card: Card, style: DeckStyle) -> None:
    colour = style.inks[card.suit]
    # Pips keep clear of the index column (as printed decks do).
    need = round(2 * index_centre(style) - style.index_x) + 24
    x0 = min(max(85, need), 105)
    y0 = 80 if need <= x0 else style.index_y + style.rank_h + style.suit_gap + style.suit_h + 12
    x1, y1 = FACE_W - x0, FACE_H - y0
    if card.rank in (Rank.JACK, Rank.QUEEN, Rank.KING):
        cv2.rectangle(img, (x0 - 8, y0 - 10), (x1 + 8, y1 + 10), colour, 2)
        _text(img, card.rank.value, FACE_W / 2 - 20, FACE_H / 2 - 30, h=60, style=style,
              colour=colour)
        cv2.circle(img, (FACE_W // 2, y0 + 30), 18, (40, 160, 210), -1)
        cv2.rectangle(img, (x0 + 10, y1 - 50), (x1 - 10, y1 - 20), (150, 60, 30), -1)
        return
    n = 1 if card.rank is Rank.ACE else card.rank.high_value
    size = 70.0 if n == 1 else (30.0 if x1 - x0 >= 60 else 22.0)
    cols = 1 if n <= 3 else 2
    rows = math.ceil(n / cols)
    for i in range(n):
        cx = FACE_W / 2 if cols == 1 or (n % 2 == 1 and i == n - 1) else (
            x0 if i % 2 == 0 else x1)
        r = i // cols if cols > 1 else i
        cy = FACE_H / 2 if rows == 1 else y0 + (y1 - y0 - size) * r / max(rows - 1, 1)
        top = cy - size / 2 if rows == 1 else cy
        draw_suit(img, card.suit, cx, top, size, style=style, colour=colour)


def render_face(face: Face, style: DeckStyle) -> Image:
    """A flat 250x350 BGR card face (no degradation), index at top-left and bottom-right."""
    img = np.empty((FACE_H, FACE_W, 3), np.uint8)
    img[:] = style.paper
    if isinstance(face, Card):
        _draw_index(img, face, style)
        rot = np.ascontiguousarray(img[::-1, ::-1])
        _draw_index(rot, face, style)
        img = np.ascontiguousarray(rot[::-1, ::-1])
        _draw_centre(img, face, style)
    elif face is Special.JOKER:
        ink = style.inks[Suit.SPADES]
        for k, ch in enumerate("JOKER"):
            _text(img, ch, style.index_x + 4, style.index_y + k * 26, h=20, style=style,
                  colour=ink)
        cv2.circle(img, (FACE_W // 2, FACE_H // 2), 60, style.inks[Suit.HEARTS], 4)
        cv2.circle(img, (FACE_W // 2 - 20, FACE_H // 2 - 15), 8, ink, -1)
        cv2.circle(img, (FACE_W // 2 + 20, FACE_H // 2 - 15), 8, ink, -1)
        cv2.ellipse(img, (FACE_W // 2, FACE_H // 2 + 15), (30, 15), 0, 0, 180, ink, 4)
    elif face is Special.CUT_CARD:
        img[:] = (30, 200, 230)
    elif face is Special.BACK:
        img[:] = style.paper
        cv2.rectangle(img, (12, 12), (FACE_W - 12, FACE_H - 12), style.back, -1)
        light = tuple(min(255, c + 90) for c in style.back)
        for d in range(-FACE_H, FACE_W + FACE_H, 14):
            cv2.line(img, (d, 12), (d + FACE_H, 12 + FACE_H), light, 2)
            cv2.line(img, (d, 12 + FACE_H), (d + FACE_H, 12), light, 2)
        img[:12] = style.paper
        img[-12:] = style.paper
        img[:, :12] = style.paper
        img[:, -12:] = style.paper
    return img


def _face_mask() -> Image:
    mask = np.zeros((FACE_H, FACE_W), np.uint8)
    r = 14
    cv2.rectangle(mask, (r, 0), (FACE_W - 1 - r, FACE_H - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (FACE_W - 1, FACE_H - 1 - r), 255, -1)
    for cx, cy in ((r, r), (FACE_W - 1 - r, r), (r, FACE_H - 1 - r),
                   (FACE_W - 1 - r, FACE_H - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


_MASK: Final = _face_mask()


# --- degradation --------------------------------------------------------------------------

def degrade(img: Image, rng: np.random.Generator, strength: float) -> Image:
    """Camera and lighting degradations on a BGR frame, scaled by ``strength``."""
    s = strength
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    # Uneven light: a linear gradient in a random direction, plus a global gain.
    ang = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ramp = ((xx - w / 2) * math.cos(ang) + (yy - h / 2) * math.sin(ang)) / max(w, h)
    gain = rng.uniform(1 - 0.25 * s, 1 + 0.1 * s)
    light = gain * (1 + 0.5 * s * ramp)
    out *= light[..., None]
    out *= (1 + rng.uniform(-0.1 * s, 0.1 * s, size=3)).astype(np.float32)
    if rng.random() < 0.35 * s:
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        sigma = rng.uniform(0.06, 0.16) * min(w, h)
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2))
        out += (rng.uniform(40, 110) * s * blob)[..., None]
    if rng.random() < 0.5:
        k = rng.uniform(0.2, 1.0) * s
        if k > 0.25:
            out = np.asarray(cv2.GaussianBlur(out, (0, 0), k), np.float32)
    else:
        length = round(rng.uniform(1, 4) * s)
        if length >= 2:
            kern = np.zeros((length, length), np.float32)
            kern[length // 2, :] = 1.0 / length
            rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2),
                                          rng.uniform(0, 180), 1.0)
            kern = np.asarray(cv2.warpAffine(kern, rot, (length, length)), np.float32)
            kern /= max(float(kern.sum()), 1e-6)
            out = np.asarray(cv2.filter2D(out, -1, kern), np.float32)
    out += rng.normal(0, 5 * s, size=out.shape).astype(np.float32)
    frame = np.clip(out, 0, 255).astype(np.uint8)
    quality = int(rng.uniform(95 - 40 * min(s, 1.4), 96))
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if decoded is None:
        raise RuntimeError("JPEG round trip failed")
    return decoded


# --- rigs ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class BoardTruth:
    """Ground truth for one card on a board frame: what it is and its corners (x, y) in
    frame pixels, clockwise from the face's top-left."""

    face: Face
    quad: tuple[tuple[float, float], ...]


def _shoe_background(rng: np.random.Generator) -> Image:
    w, h = SHOE_FRAME
    base = rng.uniform(15, 45)
    bg = np.full((h, w, 3), base, np.float32)
    bg += rng.normal(0, 3, size=bg.shape).astype(np.float32)
    return np.clip(bg, 0, 255).astype(np.uint8)


def render_shoe(face: Face | None, style: DeckStyle, rng: np.random.Generator,
                strength: float, slide: float = 0.0) -> Image:
    """One shoe-camera frame: the card's top-left index inside :data:`SHOE_ROI`.

    ``face=None`` renders the empty slot. ``slide`` (pixels) moves the card along the
    slot, as it does between frames while the dealer draws it.
    """
    frame = _shoe_background(rng)
    if face is not None:
        s = strength
        img = render_face(face, style)
        # Scale so the rank glyph is about 36 px tall (+-15% * s), +-8 deg * s, shifted.
        k = 36 / style.rank_h * (1 + rng.uniform(-0.15, 0.15) * s)
        ang = rng.uniform(-8, 8) * s
        rx, ry, rw, rh = SHOE_ROI
        ix = index_centre(style)
        iy = style.index_y + (style.rank_h + style.suit_gap + style.suit_h) / 2
        target = (rx + rw / 2 + rng.uniform(-6, 6) * s + slide,
                  ry + rh / 2 + rng.uniform(-6, 6) * s)
        m = cv2.getRotationMatrix2D((ix, iy), ang, k)
        m[0, 2] += target[0] - ix
        m[1, 2] += target[1] - iy
        size = SHOE_FRAME
        warped = cv2.warpAffine(img, m, size, flags=cv2.INTER_LINEAR)
        mask = cv2.warpAffine(_MASK, m, size, flags=cv2.INTER_LINEAR)
        a = (mask.astype(np.float32) / 255.0)[..., None]
        frame = (frame * (1 - a) + warped * a).astype(np.uint8)
    return degrade(frame, rng, strength)


def _felt(rng: np.random.Generator) -> Image:
    w, h = BOARD_FRAME
    colours = ((40, 90, 20), (90, 50, 20), (30, 30, 110), (45, 45, 45))
    c = np.array(colours[int(rng.integers(len(colours)))], np.float32)
    bg = np.ones((h, w, 3), np.float32) * c * rng.uniform(0.7, 1.2)
    tex = cv2.GaussianBlur(rng.normal(0, 10, size=(h, w)).astype(np.float32), (0, 0), 2)
    bg += tex[..., None]
    felt: Image = np.clip(bg, 0, 255).astype(np.uint8)
    return felt


def render_board(faces: Sequence[Face], style: DeckStyle, rng: np.random.Generator,
                 strength: float, card_width: tuple[float, float] = (110, 130),
                 ) -> tuple[Image, list[BoardTruth]]:
    """A 640x480 overhead frame with ``faces`` (at most 8) laid without overlap.

    Cards get a random width in ``card_width`` pixels, rotation within +-25 deg (a third of
    them turned 180 deg), slight perspective. Returns the frame and one truth per card.
    """
    clean, truths = compose_board(faces, style, rng, strength, card_width)
    return degrade(clean, rng, strength), truths


def compose_board(faces: Sequence[Face], style: DeckStyle, rng: np.random.Generator,
                  strength: float, card_width: tuple[float, float] = (110, 130),
                  ) -> tuple[Image, list[BoardTruth]]:
    """Like :func:`render_board` but before the camera's degradations."""
    if len(faces) > 8:
        raise ValueError("at most 8 cards on a board frame")
    fw, fh = BOARD_FRAME
    frame = _felt(rng)
    occupied = np.zeros((fh, fw), np.uint8)
    truths: list[BoardTruth] = []
    n = max(len(faces), 1)
    cols = min(n, 4)
    rows = math.ceil(n / cols)
    cells = rng.permutation(cols * rows)[:n]
    for face, cell in zip(faces, cells, strict=False):
        cell_x = (int(cell) % cols + 0.5) * fw / cols
        cell_y = (int(cell) // cols + 0.5) * fh / rows
        for attempt in range(200):
            spread = 1.0 - attempt / 200
            width = rng.uniform(*card_width)
            height = width * FACE_H / FACE_W
            cx = cell_x + rng.uniform(-0.5, 0.5) * spread * (fw / cols - width) * 0.5
            cy = cell_y + rng.uniform(-0.5, 0.5) * spread * max(fh / rows - height, 0) * 0.5
            ang = math.radians(rng.uniform(-25, 25) * spread
                               + (180 if rng.random() < 0.33 else 0))
            ca, sa = math.cos(ang), math.sin(ang)
            corners = []
            jitter = 0.03 * strength * width
            for ux, uy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                dx, dy = ux * width / 2, uy * height / 2
                corners.append((cx + dx * ca - dy * sa + rng.uniform(-jitter, jitter),
                                cy + dx * sa + dy * ca + rng.uniform(-jitter, jitter)))
            poly = np.round(np.array(corners)).astype(np.int32)
            if poly.min() < 2 or poly[:, 0].max() >= fw - 2 or poly[:, 1].max() >= fh - 2:
                continue
            cand = np.zeros_like(occupied)
            cv2.fillConvexPoly(cand, poly, 255)
            if not np.any(cand & occupied):
                break
        else:
            raise ValueError("cannot place that many cards without overlap at this size")
        occupied |= np.asarray(cv2.dilate(cand, np.ones((9, 9), np.uint8)), np.uint8)
        src = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float32)
        dst = np.array(corners, np.float32)
        m = cv2.getPerspectiveTransform(src, dst)
        warped = cv2.warpPerspective(render_face(face, style), m, BOARD_FRAME,
                                     flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(_MASK, m, BOARD_FRAME, flags=cv2.INTER_LINEAR)
        a = (mask.astype(np.float32) / 255.0)[..., None]
        frame = (frame * (1 - a) + warped * a).astype(np.uint8)
        truths.append(BoardTruth(face, tuple(corners)))
    return frame, truths


# --- the camera ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ShoeSegment:
    """Ground truth for one card's pass under the shoe camera: frames ``[start, stop)``."""

    face: Face
    start: int
    stop: int


class SimCamera:
    """A seeded simulated camera producing frames and their ground truth.

    Args:
        seed: everything (deck order, poses, degradations) follows from it.
        style: the deck design; :func:`random_style` of the seed if omitted.
        strength: degradation strength (0.5 mild, 1.0 moderate, 1.5 harsh).
    """

    def __init__(self, seed: int, style: DeckStyle | None = None, strength: float = 1.0) -> None:
        self.seed = seed
        self.style = style or random_style(seed)
        self.strength = strength
        self._rng = np.random.default_rng(seed)

    def shoe_frame(self, face: Face | None, slide: float = 0.0) -> Image:
        """One shoe frame of ``face`` (``None``: empty slot)."""
        return render_shoe(face, self.style, self._rng, self.strength, slide)

    def shoe_sequence(self, faces: Sequence[Face], frames_per_card: int = 5,
                      gap: int = 2) -> tuple[list[Image], list[ShoeSegment]]:
        """Frames of ``faces`` drawn one after another from the shoe, ``gap`` empty frames
        before each; the card slides a few pixels per frame."""
        frames: list[Image] = []
        truth: list[ShoeSegment] = []
        for face in faces:
            frames.extend(self.shoe_frame(None) for _ in range(gap))
            start = len(frames)
            for i in range(frames_per_card):
                slide = (i - (frames_per_card - 1) / 2) * 1.5
                frames.append(self.shoe_frame(face, slide))
            truth.append(ShoeSegment(face, start, len(frames)))
        frames.extend(self.shoe_frame(None) for _ in range(gap))
        return frames, truth

    def board_frame(self, faces: Sequence[Face],
                    card_width: tuple[float, float] = (110, 130)) -> tuple[Image, list[BoardTruth]]:
        """One overhead frame with ``faces`` on felt."""
        return render_board(faces, self.style, self._rng, self.strength, card_width)

    def board_sequence(self, faces: Sequence[Face], frames: int,
                       card_width: tuple[float, float] = (110, 130),
                       ) -> tuple[list[Image], list[BoardTruth]]:
        """``frames`` overhead frames of one still layout (fresh noise, light and blur in
        each, as a real video of a board has)."""
        clean, truths = compose_board(faces, self.style, self._rng, self.strength, card_width)
        return [degrade(clean, self._rng, self.strength) for _ in range(frames)], truths

    def shuffled_deck(self) -> list[Card]:
        """The 52 cards in a seeded order."""
        order = self._rng.permutation(len(FULL_DECK))
        return [FULL_DECK[int(i)] for i in order]


def write_image_sequence(frames: Sequence[Image], directory: Path) -> str:
    """Write ``frames`` as ``frame_00000.png``...; returns the pattern that
    ``cv2.VideoCapture`` opens (``DIR/frame_%05d.png``)."""
    directory.mkdir(parents=True, exist_ok=True)
    for i, frame in enumerate(frames):
        if not cv2.imwrite(str(directory / f"frame_{i:05d}.png"), frame):
            raise OSError(f"cannot write frame {i} to {directory}")
    return str(directory / "frame_%05d.png")


def write_mjpeg_avi(frames: Sequence[Image], path: Path, fps: float = 30.0) -> str:
    """Write ``frames`` as a Motion-JPEG AVI file that ``cv2.VideoCapture`` opens."""
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (w, h))
    if not writer.isOpened():
        raise OSError(f"cannot open a video writer for {path}")
    try:
        for frame in frames:
            writer.write(frame)
    finally:
        writer.release()
    return str(path)


def face_name(face: Face) -> str:
    """``As``-style code for a card, or the special's name."""
    return str(face)


def write_truth(truth: Sequence[ShoeSegment], path: Path) -> None:
    """Ground truth as JSON lines: ``{"face", "start", "stop"}``."""
    path.write_text("".join(json.dumps({"face": face_name(t.face), "start": t.start,
                                        "stop": t.stop}) + "\n" for t in truth))
