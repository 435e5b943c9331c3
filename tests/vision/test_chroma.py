"""A card held before a wall of its own brightness (``chroma.py``, ``chroma.colour_cards``)
and a faint index (``glyphs.grown_cut``).

A bluish-white card held in fingers before warm wallpaper as bright as itself: every
brightness mask merges the two (``locate_cards`` finds no card), the colour masks find the
card's outline and the card is read there; a wall with fingers and clothes but no card
gives no read. The hysteresis cut joins the pieces of a stroke broken at Otsu's cut and
leaves a sharp print alone.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera import FACE_H, FACE_W, random_style, render_face
from tablectl.domain.cards import Card
from tablectl.vision.chroma import colour_cards
from tablectl.vision.glyphs import grown_cut
from tablectl.vision.locate import box_iou, locate_cards, quad_box
from tablectl.vision.model import FaceStatus
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser

from .conftest import ENROLLED_SEED

_OUTLINE = np.float32([[250, 90], [410, 105], [395, 330], [235, 315]])


def _held(card: Card | None, seed: int) -> np.ndarray:
    """A 640x480 frame: warm wallpaper, two shirts, and ``card`` (tinted bluish, as a
    camera's white balance leaves it) held by two fingers and a thumb."""
    rng = np.random.default_rng(seed)
    img = np.empty((480, 640, 3), np.float32)
    img[:] = (205, 225, 240)  # beige wallpaper: as bright as the card
    img += rng.normal(0, 6, img.shape)
    img = cv2.GaussianBlur(img, (0, 0), 2)
    img[360:, :200] = (60, 50, 45)  # a dark shirt
    img[300:, 480:] = (120, 80, 30)  # a blue one
    if card is not None:
        face = render_face(card, random_style(ENROLLED_SEED)).astype(np.float32)
        face *= np.array([0.9, 0.86, 0.8], np.float32)
        src = np.float32([[0, 0], [FACE_W - 1, 0], [FACE_W - 1, FACE_H - 1], [0, FACE_H - 1]])
        m = cv2.getPerspectiveTransform(src, _OUTLINE)
        mask = np.zeros((FACE_H, FACE_W), np.float32)
        cv2.rectangle(mask, (0, 0), (FACE_W - 1, FACE_H - 1), 1.0, -1)
        shown = cv2.warpPerspective(mask, m, (640, 480))[..., None]
        img = img * (1 - shown) + cv2.warpPerspective(face, m, (640, 480)) * shown
    for centre, axes in (((240, 200), (26, 14)), ((238, 240), (26, 14)),
                         ((300, 330), (40, 22))):
        cv2.ellipse(img, centre, axes, 10, 0, 360, (120, 150, 205), -1)  # skin
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("code", ["2d", "7s", "Tc", "Kh"])
def test_a_card_before_a_wall_of_its_brightness_is_found_by_colour(
        board_profile: DeckProfile, code: str) -> None:
    card = Card.parse(code)
    img = _held(card, seed=len(code) + ord(code[0]))
    truth = quad_box(tuple((float(x), float(y)) for x, y in _OUTLINE))  # type: ignore[arg-type]
    assert not any(box_iou(quad_box(f.quad), truth) >= 0.8 for f in locate_cards(img))
    assert any(box_iou(quad_box(f.quad), truth) >= 0.8 for f in colour_cards(img, []))
    reads = Recogniser(board_profile).read_board(img)
    accepted = [r for r in reads if r.status is FaceStatus.ACCEPTED]
    assert [r.card for r in accepted] == [card], reads
    # read on its own outline, not placed from its index alone (the thumb covers a corner)
    assert accepted[0].quad is not None
    assert box_iou(quad_box(accepted[0].quad), truth) >= 0.8, accepted[0].quad


def test_a_wall_with_fingers_and_shirts_is_no_card(board_profile: DeckProfile) -> None:
    rec = Recogniser(board_profile)
    for seed in range(3):
        assert rec.read_board(_held(None, seed)) == []


def test_the_hysteresis_cut_mends_a_broken_stroke_only() -> None:
    ink = np.zeros((120, 80), np.uint8)
    cv2.line(ink, (20, 20), (20, 90), 200, 3)  # a stroke: strong at both ends,
    cv2.line(ink, (20, 45), (20, 65), 60, 3)  # faint in the middle
    cv2.circle(ink, (60, 100), 3, 50, -1)  # faint grain touching no strong ink
    grown = grown_cut(ink, 100, 40)
    assert grown is not None
    n, _ = cv2.connectedComponents(grown)
    assert n - 1 == 1  # the stroke whole; the grain left out
    assert grown[55, 20] == 255 and grown[100, 60] == 0
    sharp = np.zeros((120, 80), np.uint8)
    cv2.line(sharp, (20, 20), (20, 90), 200, 3)
    assert grown_cut(sharp, 100, 40) is None  # nothing to mend: the earlier cuts saw it
