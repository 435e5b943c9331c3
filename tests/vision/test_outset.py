"""A refused card read again from its quad widened about its centre, cut to its pip
columns or grown past its covered end (tablectl/vision/outset.py): the geometry, and when
the read is made and kept."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from tablectl.domain.cards import Card
from tablectl.vision.cardview import warp_card
from tablectl.vision.indexread import IndexRead
from tablectl.vision.model import FaceStatus, Image, Quad
from tablectl.vision.outset import (
    OUTSET,
    along,
    completed,
    inside,
    lowered,
    outset,
    read_covered,
    read_outset,
    trimmed,
)
from tablectl.vision.pips import LAYOUTS, few_pips, pip_rows

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


def test_along_moves_the_ends_and_lowered_grows_to_a_cards_shape() -> None:
    """The quad's top and bottom sides moved along its left and right sides (its top kept
    where only the bottom moves); grown to a card of 1.4 on its top side's width, or on
    its bottom side's where the upper end is the one covered."""
    (tl, tr, br, bl) = np.array(QUAD)
    q = np.array(along(QUAD, 0.0, 1.25))
    assert np.allclose(q[0], tl) and np.allclose(q[1], tr)
    assert np.allclose(q[2], tr + 1.25 * (br - tr)) and np.allclose(q[3], tl + 1.25 * (bl - tl))
    up = np.array(along(QUAD, -0.25, 1.0))
    assert np.allclose(up[0], tl - 0.25 * (bl - tl)) and np.allclose(up[2], br)
    assert along(QUAD, 0.0, 1.0) == QUAD
    square: Quad = ((0.0, 0.0), (200.0, 0.0), (200.0, 200.0), (0.0, 200.0))
    assert lowered(square, 1.4) == pytest.approx(1.4)
    narrow_foot: Quad = ((0.0, 0.0), (200.0, 0.0), (150.0, 200.0), (50.0, 200.0))
    assert lowered(narrow_foot, 1.4, down=False) < lowered(narrow_foot, 1.4)


CARD_TOP, CARD_HEIGHT = 60, 300
"""The drawn card's top and height in its frame (x 200 to 400: 1.5 as long as wide)."""


def _held_five() -> Image:
    """A 640 x 480 frame with a white five (round black pips at :data:`LAYOUTS`' places)
    200 px wide and 300 long."""
    frame = np.full((480, 640, 3), 60, np.uint8)
    cv2.rectangle(frame, (200, CARD_TOP), (399, CARD_TOP + CARD_HEIGHT - 1), (245, 245, 245), -1)
    for x, y in LAYOUTS[Card.parse("5h").rank]:
        cv2.circle(frame, (round(200 + 200 * x), round(CARD_TOP + CARD_HEIGHT * y)), 14,
                   (20, 20, 20), -1)
    return frame


def test_a_quad_stopping_above_the_lower_pips_is_grown_to_where_the_pips_rows_place_the_end(
        ) -> None:
    """A five's quad that stops at 0.75 of the card (its lower pips cut: three pips, no
    layout) is grown to a card of 1.4 (short of this card's 1.5), whose five pips read;
    their rows place the card's end, and the quad grown to it, the whole card, is read."""
    frame = _held_five()
    quad: Quad = ((200.0, 60.0), (399.0, 60.0), (399.0, 285.0), (200.0, 285.0))
    warped: list[Quad] = []

    def warp(q: Quad) -> Image:
        warped.append(q)
        return warp_card(frame, q)

    card = warp(quad)
    assert pip_rows(card) is None and (few_pips(card) or 1.0) < 0.5
    unsure = replace(UNSURE, pips=True)
    got, r = read_covered(quad, unsure, SIZE, warp=warp, few_pips=few_pips, rows=pip_rows,
                          read=lambda _img: SURE)
    assert r is SURE
    assert np.allclose(got, ((200, 60), (399, 60), (399, 360), (200, 360)), atol=3.0), got
    assert len(warped) == 4  # the quad twice, the first guess, the card read


class _Lowered:
    """Fakes for :func:`read_covered`: pips seen at ``seen`` (mean height), rows placing
    the grown quad's ends at ``rows``."""

    def __init__(self, seen: float | None, rows: tuple[float, float] | None,
                 read: IndexRead = SURE) -> None:
        self.seen, self.rows, self.answer = seen, rows, read
        self.read_quads: list[Quad] = []
        self._last: Quad = QUAD

    def warp(self, q: Quad) -> Image:
        self._last = q
        return np.zeros((4, 4, 3), np.uint8)

    def read(self, _img: Image) -> IndexRead:
        self.read_quads.append(self._last)
        return self.answer

    def run(self, r: IndexRead, quad: Quad = QUAD) -> tuple[Quad, IndexRead]:
        return read_covered(quad, r, SIZE, warp=self.warp, few_pips=lambda _i: self.seen,
                            rows=lambda _i: self.rows, read=self.read)


BLURRED = replace(UNSURE, pips=True)
"""A refused read whose index print is not the deck's: only its pips may decide it."""


def test_the_covered_end_is_the_one_away_from_the_pips_seen() -> None:
    """Pips seen in the quad's lower half: its upper end is grown (the card the other way
    up); the read made from the grown quad kept where it is accepted."""
    calls = _Lowered(0.7, (0.0, 1.0))
    quad, r = calls.run(BLURRED, ((100.0, 150.0), (300.0, 150.0), (300.0, 350.0),
                                  (100.0, 350.0)))
    assert r is SURE
    assert np.allclose(quad, ((100, 70), (300, 70), (300, 350), (100, 350)))


@pytest.mark.parametrize(("first", "seen", "rows"), [
    (UNSURE, 0.3, (0.0, 1.0)),  # an index print of the deck's: not a blurred card
    (SURE, 0.3, (0.0, 1.0)),  # accepted already
    (replace(SURE, status=FaceStatus.NO_CARD, pips=True), 0.3, (0.0, 1.0)),
    (BLURRED, None, (0.0, 1.0)),  # no pips seen, or pips that read as a layout already
    (BLURRED, 0.3, None),  # the grown quad's pips read as no layout either
    (BLURRED, 0.3, (0.0, 1.3)),  # the rows place the end far from a card's shape
])
def test_a_card_not_blurred_accepted_or_whose_pips_place_no_end_is_not_read_grown(
        first: IndexRead, seen: float | None, rows: tuple[float, float] | None) -> None:
    calls = _Lowered(seen, rows)
    assert calls.run(first) == (QUAD, first)
    assert calls.read_quads == []


def test_a_grown_quad_past_the_frame_or_refused_leaves_the_quad() -> None:
    low: Quad = ((100.0, 200.0), (300.0, 200.0), (300.0, 400.0), (100.0, 400.0))
    calls = _Lowered(0.3, (0.0, 1.0))
    assert calls.run(BLURRED, low) == (low, BLURRED)  # 1.4 of its width runs past 480
    assert calls.read_quads == []
    square: Quad = ((100.0, 50.0), (300.0, 50.0), (300.0, 250.0), (100.0, 250.0))
    calls = _Lowered(0.3, (0.0, 1.0), UNSURE)
    assert calls.run(BLURRED, square) == (square, BLURRED)
    assert [q[2] for q in calls.read_quads] == [(300.0, 330.0), (300.0, 362.0)]  # 1.4, 1.56
    calls = _Lowered(0.3, (0.0, 1.0), UNSURE)
    assert calls.run(BLURRED) == (QUAD, BLURRED)  # a card of 1.4 already: grown to 1.56 only
    assert len(calls.read_quads) == 1


def test_completed_sets_a_pulled_in_corner_where_the_other_three_place_it() -> None:
    """A quad whose lower left corner lies well inside the parallelogram of the other
    three: that corner set there first (the quad grown most); a quad near a parallelogram
    (a card seen a little slanted) is left alone."""
    pulled: Quad = ((200.0, 60.0), (400.0, 60.0), (400.0, 340.0), (250.0, 270.0))
    got = completed(pulled)
    assert got and got[0] == ((200.0, 60.0), (400.0, 60.0), (400.0, 340.0), (200.0, 340.0))
    assert completed(QUAD) == []
    slanted: Quad = ((200.0, 60.0), (400.0, 60.0), (390.0, 340.0), (210.0, 340.0))
    assert completed(slanted) == []  # 20 px of 180: under SKEW_LEAST


def test_a_two_whose_lower_corner_the_fingers_pulled_in_is_read_from_its_completed_quad(
        ) -> None:
    """A drawn two whose quad's lower left corner is pulled in over its lower pip (one
    pip seen: no layout); grown down, its pips read no card or not this one; its corner
    set where the other three place it, the whole card is read, and kept."""
    frame = np.full((480, 640, 3), 60, np.uint8)
    cv2.rectangle(frame, (200, 60), (399, 339), (245, 245, 245), -1)
    for x, y in LAYOUTS[Card.parse("2h").rank]:
        cv2.circle(frame, (round(200 + 200 * x), round(60 + 280 * y)), 14, (20, 20, 20), -1)
    pulled: Quad = ((200.0, 60.0), (399.0, 60.0), (399.0, 339.0), (230.0, 250.0))
    card = ((200.0, 60.0), (399.0, 60.0), (399.0, 339.0), (200.0, 339.0))
    last: list[Quad] = []

    def warp(q: Quad) -> Image:
        last.append(q)
        return warp_card(frame, q)

    def read(_img: Image) -> IndexRead:  # accepted only from the whole card
        return SURE if np.allclose(last[-1], card, atol=3.0) else BLURRED

    assert pip_rows(warp(pulled)) is None
    got, r = read_covered(pulled, BLURRED, SIZE, warp=warp, few_pips=few_pips, rows=pip_rows,
                          read=read)
    assert r is SURE and np.allclose(got, card, atol=3.0), got
