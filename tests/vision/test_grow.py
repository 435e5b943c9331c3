"""A quad that shows only part of a card is grown to the whole card past the side where
the card goes on, and only there (tablectl/vision/grow.py)."""

from __future__ import annotations

import numpy as np

from hardware_sim.camera import random_style, render_face
from tablectl.domain.cards import Card
from tablectl.vision.grow import grown_quads, partial
from tablectl.vision.locate import box_iou, quad_box
from tablectl.vision.model import Image, Quad

CARD = (100, 80, 350, 430)
"""A 250 x 350 card (aspect 1.4)."""
LOWER: Quad = ((100.0, 430.0), (100.0, 200.0), (350.0, 200.0), (350.0, 430.0))
"""What was found of it: the part below a cable across it (squarer than a card)."""


def _table(with_card: bool) -> Image:
    rng = np.random.default_rng(5)
    base = np.full((560, 760, 3), (40, 70, 110), np.uint8)
    noise = rng.integers(-12, 12, base.shape[:2], dtype=np.int16)
    img: Image = np.clip(base + noise[..., None], 0, 255).astype(np.uint8)
    x0, y0, x1, y1 = CARD
    if with_card:
        img[y0:y1, x0:x1] = render_face(Card.parse("Kh"), random_style(3))
    else:  # only the part that was found is paper
        img[200:y1, x0:x1] = render_face(Card.parse("Kh"), random_style(3))[120:]
    img[185:200, 60:400] = (20, 20, 20)  # the cable
    return img


def test_a_partial_quad_grows_past_the_side_where_the_card_goes_on() -> None:
    assert partial(LOWER)
    grown = [quad_box(g) for g in grown_quads(LOWER, _table(with_card=True))]
    assert len(grown) == 1, grown
    assert box_iou(grown[0], CARD) >= 0.9, grown


def test_nothing_grows_over_the_table() -> None:
    assert grown_quads(LOWER, _table(with_card=False)) == []


def test_a_whole_card_is_not_partial() -> None:
    x0, y0, x1, y1 = (float(v) for v in CARD)
    assert not partial(((x0, y1), (x0, y0), (x1, y0), (x1, y1)))
