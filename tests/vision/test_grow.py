"""A quad that shows only part of a card is grown to the whole card past the side where
the card goes on, and only there; a quad near a square is read either way across
(tablectl/vision/grow.py)."""

from __future__ import annotations

import cv2
import numpy as np

from hardware_sim.camera import random_style, render_face
from tablectl.domain.cards import Card
from tablectl.vision.cardview import warp_card
from tablectl.vision.grow import grown_quads, partial, squarish
from tablectl.vision.locate import box_iou, locate_cards, quad_box
from tablectl.vision.model import FaceStatus, Image, Quad
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser

from .conftest import ENROLLED_SEED

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


def test_a_card_foreshortened_past_square_is_read_a_quarter_turn_on(
        board_profile: DeckProfile) -> None:
    """A card far from a low camera looks shorter than it is wide: its outline, taken
    the wrong way up, warps the card on its side; read a quarter turn on, it is read."""
    card = Card.parse("Kh")
    face = render_face(card, random_style(ENROLLED_SEED))
    squat = cv2.resize(face, (200, 180), interpolation=cv2.INTER_AREA)  # 250x350 seen low
    frame = np.full((480, 640, 3), (35, 60, 30), np.uint8)
    frame[150:330, 220:420] = squat
    rec = Recogniser(board_profile)
    found = locate_cards(frame)
    assert len(found) == 1 and squarish(found[0].quad)
    as_found = rec.read_card(warp_card(frame, found[0].quad))
    assert as_found.status is not FaceStatus.ACCEPTED  # on its side
    reads = rec.read_board(frame)
    assert [(r.card, r.status) for r in reads] == [(card, FaceStatus.ACCEPTED)]
