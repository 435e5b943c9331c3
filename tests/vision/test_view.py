"""How the table is seen (:func:`tablectl.vision.corners.table_view`) and the upright index
crop cut as the index lies on the table: a camera at a slant shortens a card's index along
its line of sight, and a crop cut square in the frame reads it squat."""

from __future__ import annotations

import math

import cv2
import numpy as np

from tablectl.vision.corners import FLAT, GlyphPair, realigned, table_view, upright_crop
from tablectl.vision.grow import CARD_ASPECT
from tablectl.vision.model import Quad

SHORT = 0.75
"""The frame's height per table height in these tests (a camera at about 40 degrees)."""


def _seen(w: float, turn: float, at: tuple[float, float]) -> Quad:
    """A card ``w`` wide lying turned by ``turn`` radians on the table, centred at ``at``,
    as the camera sees it (table heights shortened by :data:`SHORT`), clockwise from its
    top-left corner."""
    h = w * CARD_ASPECT
    c, s = math.cos(turn), math.sin(turn)
    pts = []
    for x, y in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)):
        tx, ty = c * x - s * y, s * x + c * y
        pts.append((at[0] + tx, at[1] + SHORT * ty))
    return pts[0], pts[1], pts[2], pts[3]


def test_the_view_is_what_the_card_outlines_say_whichever_way_they_lie() -> None:
    want = np.diag([1 / math.sqrt(SHORT), math.sqrt(SHORT)])
    for turn in (0.0, 0.5, -1.2, math.pi / 2):
        got = np.array(table_view([_seen(100, turn, (300, 200))], (120, 340))).reshape(2, 2)
        assert np.allclose(got, want, atol=0.01), (turn, got)
    both = table_view([_seen(100, 0.3, (300, 200)), _seen(90, -0.7, (600, 300))], (0, 0))
    assert np.allclose(np.array(both).reshape(2, 2), want, atol=0.01)
    assert table_view([], (0, 0)) == FLAT
    square_on = table_view([((0, 0), (100, 0), (100, 140), (0, 140))], (50, 50))
    assert np.allclose(square_on, FLAT, atol=1e-6)


def _blob_shape(crop: np.ndarray) -> float:
    """Width over height of the biggest dark mark of an upright crop."""
    ink = (cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) < 128).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink)
    big = max(range(1, n), key=lambda i: stats[i, cv2.CC_STAT_AREA])
    return float(stats[big, cv2.CC_STAT_WIDTH] / stats[big, cv2.CC_STAT_HEIGHT])


def test_an_index_seen_at_a_slant_is_cut_upright_as_it_lies_on_the_table() -> None:
    """A round rank mark over a suit dot, both squashed by the slant: the crop cut square
    in the frame shows the mark squat (1/0.75 as wide as tall), the crop cut through the
    view shows it round; read again along its own axis, the pair keeps its view."""
    frame = np.full((400, 400, 3), 255, np.uint8)
    top, bottom = (200.0, 180.0), (200.0, 180.0 + 48 * SHORT)
    cv2.ellipse(frame, (200, 180), (20, 15), 0, 0, 360, (0, 0, 0), -1)  # 15 = 20 * SHORT
    cv2.circle(frame, (200, round(bottom[1])), 5, (0, 0, 0), -1)
    flat = GlyphPair(top, bottom)
    view = table_view([_seen(100, 0.2, (100, 100))], top)
    seen = GlyphPair(top, bottom, view)
    assert abs(_blob_shape(upright_crop(frame, flat)) - 1 / SHORT) < 0.06
    assert abs(_blob_shape(upright_crop(frame, seen)) - 1.0) < 0.06
    again = realigned(seen, (30.0, 40.0, 30.0, 70.0))
    assert again.view == view
