"""A card with one corner past the frame's edge is read (tablectl/vision/edge.py); one cut
along a side is ``OUT_OF_FRAME``; odd quads and odd frames are refused without raising."""

from __future__ import annotations

import math

import numpy as np

from hardware_sim.camera import FACE_H, FACE_W, random_style, render_face
from tablectl.domain.cards import Card
from tablectl.vision.edge import one_corner_out
from tablectl.vision.model import FaceStatus, Quad
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser

from .conftest import ENROLLED_SEED
from .test_corners import _place

W, H = 960, 720


def _card_quad(cx: float, cy: float, angle: float, width: float = 200.0) -> Quad:
    hw, hh = width / 2, width * 1.4 / 2
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    pts = [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)]
    a, b, cc, d = ((cx + x * c - y * s, cy + x * s + y * c) for x, y in pts)
    return a, b, cc, d


def test_one_corner_out_tells_a_corner_over_the_edge_from_a_side_cut() -> None:
    inside = _card_quad(480, 360, 30)
    assert not one_corner_out(inside, W, H)  # no corner on the edge: not cut at all
    # turned 30 degrees, pushed down until its lowest corner runs 8 px past the bottom
    lowest = max(y for _, y in inside)
    poke = _card_quad(480, 360 + (H - 1 - lowest) + 8, 30)
    assert one_corner_out(poke, W, H)
    # upright, its bottom side along the edge: two corners out, how much is outside unknown
    assert not one_corner_out(_card_quad(480, H - 140 + 20, 0), W, H)
    # one corner far out: much of the card outside
    assert not one_corner_out(_card_quad(480, 360 + (H - 1 - lowest) + 120, 30), W, H)
    # not card-shaped (a square), degenerate, not finite, an empty frame
    sq: Quad = ((100.0, 500.0), (300.0, 500.0), (300.0, 725.0), (100.0, 700.0))
    assert not one_corner_out(sq, W, H)
    flat: Quad = ((0.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0))
    assert not one_corner_out(flat, W, H)
    nan: Quad = ((math.nan, 1.0), (2.0, 3.0), (4.0, 5.0), (6.0, 7.0))
    assert not one_corner_out(nan, W, H)
    assert not one_corner_out(poke, 0, 0)


def test_a_card_with_one_corner_over_the_edge_is_read(board_profile: DeckProfile) -> None:
    """On felt, a card turned so that only one corner runs past the frame's bottom edge is
    read by its outline and accepted; the same card cut along its side is not accepted."""
    style = random_style(ENROLLED_SEED)
    rec = Recogniser(board_profile)
    card = Card.parse("8c")
    width = 200.0
    half_diag = math.hypot(width, width * FACE_H / FACE_W) / 2
    for angle, dy, read in ((25, 10, True), (0, 60, False)):
        canvas = np.empty((H, W, 3), np.uint8)
        canvas[:] = (35, 80, 30)
        if angle:
            # the lowest corner of a card turned ``angle`` lies below its centre by:
            theta = math.atan2(FACE_H, FACE_W)
            low = half_diag * math.sin(theta + math.radians(angle))
            cy = H - low + dy
        else:
            cy = H - width * FACE_H / FACE_W / 2 + dy
        _place(canvas, render_face(card, style), (480, cy), angle, width)
        reads = rec.read_board(canvas)
        accepted = [r.card for r in reads if r.status is FaceStatus.ACCEPTED]
        assert accepted == ([card] if read else []), reads


def test_odd_frames_give_no_card_and_never_raise(board_profile: DeckProfile) -> None:
    rec = Recogniser(board_profile)
    odd = [np.zeros((0, 0, 3), np.uint8), np.zeros((1, 1, 3), np.uint8),
           np.zeros((1, 700, 3), np.uint8), np.full((15, 15, 3), 255, np.uint8),
           np.zeros((480, 640, 3), np.uint8), np.full((480, 640, 3), 255, np.uint8),
           np.full((2000, 3000, 3), 255, np.uint8)]
    for img in odd:
        for whole in (False, True):
            assert rec.read_board(img, whole_frame=whole) == [], img.shape
