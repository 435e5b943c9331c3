"""One outline around overlapping cards is cut along the top card's edge
(tablectl/vision/split.py); a single card, court frame line and all, is never cut."""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from hardware_sim.camera import random_style, render_face
from tablectl.domain.cards import Card
from tablectl.vision.locate import box_iou, locate_cards, quad_box
from tablectl.vision.model import Image

STYLE = random_style(3)
BOXES = ((100, 80, 350, 430), (230, 80, 480, 430))
"""Two faces fanned sideways: the lower one shows a strip of its left side (together they
are about as wide as high, not a card's shape)."""


def _table() -> Image:
    rng = np.random.default_rng(7)
    base = np.full((560, 760, 3), (40, 70, 110), np.uint8)
    noise = rng.integers(-12, 12, base.shape[:2], dtype=np.int16)
    out: Image = np.clip(base + noise[..., None], 0, 255).astype(np.uint8)
    return out


def _lay(img: Image, card: str, box: tuple[int, int, int, int]) -> None:
    x0, y0, x1, y1 = box
    img[y0:y1, x0:x1] = render_face(Card.parse(card), STYLE)
    img[y0:y1, x0:x0 + 2] = (150, 150, 150)  # the thin shade along a card's edge


def test_a_fan_of_two_cards_is_cut_into_what_shows_of_each() -> None:
    img = _table()
    for card, box in zip(("Kh", "Qs"), BOXES, strict=True):
        _lay(img, card, box)
    visible = [(b[0], b[1], n[0], b[3]) for b, n in itertools.pairwise(BOXES)]
    visible.append(BOXES[-1])
    found = [quad_box(f.quad) for f in locate_cards(img) if not f.cut]
    for v in visible:
        assert max(box_iou(v, q) for q in found) >= 0.7, (v, found)
    assert len(found) == 2


def test_a_single_court_card_is_not_cut() -> None:
    img = _table()
    _lay(img, "Kh", BOXES[0])
    x0, y0, x1, y1 = BOXES[0]
    cv2.rectangle(img, (x0 + 40, y0 + 25), (x1 - 40, y1 - 25), (30, 30, 160), 2)  # frame line
    found = locate_cards(img)
    assert len(found) == 1
    assert box_iou(quad_box(found[0].quad), BOXES[0]) >= 0.9
