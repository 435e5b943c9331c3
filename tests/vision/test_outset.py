"""A refused card read again from its quad widened about its centre
(tablectl/vision/outset.py): the geometry, and when the wider read is made and kept."""

from __future__ import annotations

import numpy as np
import pytest

from tablectl.domain.cards import Card
from tablectl.vision.indexread import IndexRead
from tablectl.vision.model import FaceStatus, Image, Quad
from tablectl.vision.outset import OUTSET, inside, outset, read_outset, trimmed

QUAD: Quad = ((100.0, 50.0), (300.0, 60.0), (290.0, 340.0), (90.0, 330.0))
"""A card-shaped quad, a little turned, well inside a 640 x 480 frame."""
SIZE = (640, 480)
TWO_D = Card.parse("2d")
UNSURE = IndexRead(Card.parse("4s"), FaceStatus.NEEDS_CONFIRMATION, 0.4)
SURE = IndexRead(TWO_D, FaceStatus.ACCEPTED, 0.9)


def _sides(q: Quad) -> list[float]:
    p = np.array(q)
    return [float(np.hypot(*(p[(i + 1) % 4] - p[i]))) for i in range(4)]


def test_outset_widens_every_side_about_the_centre_and_keeps_the_corner_order() -> None:
    wide = outset(QUAD)
    assert np.allclose(np.mean(wide, axis=0), np.mean(QUAD, axis=0))
    assert np.allclose(np.array(_sides(wide)) / _sides(QUAD), OUTSET)
    for (x, y), (wx, wy) in zip(QUAD, wide, strict=True):  # each corner moved outwards
        cx, cy = np.mean(QUAD, axis=0)
        assert np.hypot(wx - cx, wy - cy) > np.hypot(x - cx, y - cy)
    assert outset(QUAD, 1.0) == QUAD


def test_inside_asks_every_corner_in_the_frame() -> None:
    assert inside(QUAD, *SIZE)
    assert not inside(((-1.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)), *SIZE)
    assert not inside(((0.0, 0.0), (640.0, 0.0), (639.0, 10.0), (0.0, 10.0)), *SIZE)


def test_trimmed_cuts_the_quad_to_the_card_its_pip_columns_place() -> None:
    """Columns at 0.44 and 0.76 (spaced 0.32: a card 0.8 of the quad wide, its left side
    at 0.2): the left side moved in, the right kept; columns in place leave it alone."""
    q = trimmed(QUAD, (0.44, 0.76))
    assert q is not None
    (tl, tr, br, bl), (qtl, qtr, qbr, qbl) = np.array(QUAD), np.array(q)
    assert np.allclose(qtl, tl + 0.2 * (tr - tl)) and np.allclose(qbl, bl + 0.2 * (br - bl))
    assert np.allclose(qtr, tr) and np.allclose(qbr, br)
    assert trimmed(QUAD, (0.30, 0.70)) is None and trimmed(QUAD, (0.31, 0.71)) is None
    assert trimmed(QUAD, None) is None


class _Calls:
    """Fakes for the reader's warp, pips and read, counting the reads made."""

    def __init__(self, pips: Card | None, wide: IndexRead) -> None:
        self.pips, self.wide, self.reads = pips, wide, 0
        self.warped: list[Quad] = []

    def warp(self, q: Quad) -> Image:
        self.warped.append(q)
        return np.zeros((4, 4, 3), np.uint8)

    def pips_card(self, _img: Image) -> Card | None:
        return self.pips

    def read(self, _img: Image) -> IndexRead:
        self.reads += 1
        return self.wide

    def run(self, r: IndexRead, quad: Quad = QUAD) -> tuple[Quad, IndexRead]:
        return read_outset(quad, r, SIZE, warp=self.warp, pips_card=self.pips_card,
                           read=self.read)


@pytest.mark.parametrize("first", [
    UNSURE, IndexRead(None, FaceStatus.NO_CARD, 0.0)])
def test_a_refused_card_whose_pips_name_a_card_takes_the_wider_read_accepted(
        first: IndexRead) -> None:
    calls = _Calls(TWO_D, SURE)
    quad, r = calls.run(first)
    assert r is SURE and quad == outset(QUAD)
    assert calls.warped == [QUAD, outset(QUAD)] and calls.reads == 1


def test_the_wider_read_refused_leaves_the_quad_and_its_read() -> None:
    calls = _Calls(TWO_D, UNSURE)
    assert calls.run(UNSURE) == (QUAD, UNSURE)
    assert calls.reads == 1


@pytest.mark.parametrize("first", [
    SURE, IndexRead(None, FaceStatus.OUT_OF_FRAME, 0.0)])
def test_an_accepted_or_cut_card_is_not_read_again(first: IndexRead) -> None:
    calls = _Calls(TWO_D, SURE)
    assert calls.run(first) == (QUAD, first)
    assert calls.warped == [] and calls.reads == 0


def test_no_pips_read_or_a_wider_quad_past_the_frame_is_not_read_again() -> None:
    calls = _Calls(None, SURE)
    assert calls.run(UNSURE) == (QUAD, UNSURE)
    assert calls.reads == 0
    edge: Quad = ((2.0, 2.0), (200.0, 2.0), (200.0, 280.0), (2.0, 280.0))
    calls = _Calls(TWO_D, SURE)
    assert calls.run(UNSURE, edge) == (edge, UNSURE)
    assert calls.reads == 0
