"""A faint rank beside its suit (tablectl.vision.faint): found by the window's own cut,
told from an edge's shadow line crossing the window."""

from __future__ import annotations

import cv2
import numpy as np

from tablectl.vision.faint import faint_ranks


def _paper() -> np.ndarray:
    img = np.full((120, 160, 3), 225, np.uint8)
    return img


def _suit(img: np.ndarray) -> None:
    cv2.circle(img, (80, 72), 5, (60, 60, 200), -1)  # red suit, 45% under the paper


def test_a_faint_red_rank_above_its_suit_is_found() -> None:
    img = _paper()
    _suit(img)
    # a "7" 20% under the paper: the frame's 35% cut leaves it out
    cv2.line(img, (74, 52), (86, 52), (180, 180, 235), 2)
    cv2.line(img, (86, 52), (78, 64), (180, 180, 235), 2)
    pts = np.array([[80.0, 72.0]])
    found = faint_ranks(img, pts, np.array([11.0]), 14.0)
    assert len(found) == 1
    rank, suit = found[0]
    assert abs(rank[0] - 80) < 4 and abs(rank[1] - 58) < 4
    assert tuple(suit) == (80.0, 72.0)


def test_a_shadow_line_is_no_rank() -> None:
    img = _paper()
    _suit(img)
    # a card edge's shadow as faint as the rank, at a rank's distance: a rank-sized piece
    # of a thin straight line, then the line crossing the whole window
    cv2.line(img, (72, 58), (88, 58), (180, 180, 180), 1)
    assert faint_ranks(img, np.array([[80.0, 72.0]]), np.array([11.0]), 14.0) == []
    cv2.line(img, (0, 58), (159, 58), (180, 180, 180), 2)
    assert faint_ranks(img, np.array([[80.0, 72.0]]), np.array([11.0]), 14.0) == []


def test_nothing_beside_the_suit_gives_no_pair() -> None:
    img = _paper()
    _suit(img)
    assert faint_ranks(img, np.array([[80.0, 72.0]]), np.array([11.0]), 14.0) == []
