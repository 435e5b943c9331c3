"""What is not a card is never reported (``cardlike.py``): leaves, a box and a plate in a
board frame, whole or running off the frame's edge, give no read at all, while a card cut by
the frame's edge is still reported ``out_of_frame`` and a blank card-shaped quad is refused."""

from __future__ import annotations

import cv2
import numpy as np

from hardware_sim.camera import SimCamera, random_style
from tablectl.domain.cards import Card
from tablectl.vision.cardlike import card_like
from tablectl.vision.model import FaceStatus
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser

from .conftest import ENROLLED_SEED


def _table(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), (40, 70, 35), np.uint8)  # green felt
    noise = rng.normal(0, 4, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def _leaves(img: np.ndarray) -> None:
    for (x, y), ang in (((160, 140), 30), ((420, 300), -50), ((600, 420), 10)):
        cv2.ellipse(img, (x, y), (90, 40), ang, 0, 360, (60, 160, 90), -1)
        cv2.ellipse(img, (x, y), (90, 2), ang, 0, 360, (40, 110, 60), 2)  # the midrib


def _box(img: np.ndarray) -> None:
    cv2.rectangle(img, (380, 200), (700, 520), (70, 120, 170), -1)  # cardboard, off the edge
    cv2.putText(img, "FRAGILE", (400, 300), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (30, 30, 30), 3)


def _plate(img: np.ndarray, centre: tuple[int, int]) -> None:
    cv2.circle(img, centre, 150, (235, 235, 235), -1)
    cv2.circle(img, centre, 110, (215, 215, 215), 3)  # the rim


def test_leaves_a_box_and_a_plate_are_not_cards(board_profile: DeckProfile) -> None:
    rec = Recogniser(board_profile)
    frames = []
    img = _table(1)
    _leaves(img)
    frames.append(img)
    img = _table(2)
    _box(img)
    frames.append(img)
    for centre in ((320, 240), (600, 240), (320, 40)):  # whole, and running off the frame
        img = _table(3)
        _plate(img, centre)
        frames.append(img)
    for k, img in enumerate(frames):
        reads = rec.read_board(img)
        assert reads == [], (k, reads)


def test_a_card_cut_by_the_frame_is_still_reported(board_profile: DeckProfile) -> None:
    cam = SimCamera(77, random_style(ENROLLED_SEED), strength=0.3)
    frame, _ = cam.board_frame([Card.parse("Kh")], card_width=(150, 160))
    rec = Recogniser(board_profile)
    (whole,) = [r for r in rec.read_board(frame) if r.status is FaceStatus.ACCEPTED]
    assert whole.quad is not None
    xs = [p[0] for p in whole.quad]
    cut = frame[:, : round((min(xs) + max(xs)) / 2)].copy()
    reads = rec.read_board(cut)
    assert [r.status for r in reads] == [FaceStatus.OUT_OF_FRAME], reads
    assert card_like(frame, whole.quad)


def test_blank_paper_is_not_card_like() -> None:
    img = _table(4)
    quad = ((200.0, 100.0), (340.0, 100.0), (340.0, 300.0), (200.0, 300.0))
    cv2.rectangle(img, (200, 100), (340, 300), (240, 240, 240), -1)
    assert not card_like(img, quad)
    cv2.putText(img, "7", (210, 140), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 160), 3)
    assert card_like(img, quad)
