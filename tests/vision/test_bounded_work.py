"""Work a frame's reader leaves out: a part of a card already accepted is not read again in
other shapes; and the finder's cheaper box overlaps are the plain ones."""

from __future__ import annotations

import numpy as np
import pytest

from tablectl.vision import recognise
from tablectl.vision.indexread import IndexRead
from tablectl.vision.locate import _ious, box_iou
from tablectl.vision.model import FaceStatus, Quad
from tablectl.vision.outline import PART_OF_CARD, part_of_any
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser


def test_box_overlaps_in_one_pass_are_box_iou_bit_for_bit() -> None:
    """The finder asks each contour's box against every candidate so far in one numpy pass:
    the same float64 arithmetic as :func:`box_iou`, so the same numbers, touching and
    empty boxes included."""
    rng = np.random.default_rng(3)
    boxes = [tuple(float(v) for v in (x, y, x + w, y + h))
             for x, y, w, h in rng.integers(0, 60, (200, 4))]
    boxes += [(0.0, 0.0, 0.0, 0.0), (5.0, 5.0, 5.0, 9.0), (0.0, 0.0, 10.0, 10.0)]
    for a in boxes[:40] + boxes[-3:]:
        got = _ious(a, boxes)
        assert got.tolist() == [box_iou(a, b) for b in boxes]


def test_a_part_of_a_card_accepted_in_the_frame_is_not_read_in_other_shapes(
        board_profile: DeckProfile, monkeypatch: pytest.MonkeyPatch) -> None:
    """A squarish quad lying inside a card accepted in the same frame (its index box, read
    as no card) is not read a quarter turn on nor grown: it is part of that card. Lying
    elsewhere, it is."""
    rec = Recogniser(board_profile)
    reads: list[object] = []
    monkeypatch.setattr(Recogniser, "read_card",
                        lambda self, img: reads.append(img) or recognise._NONE)
    frame = np.full((400, 400, 3), 200, np.uint8)
    card: Quad = ((100.0, 100.0), (200.0, 100.0), (200.0, 240.0), (100.0, 240.0))
    box: Quad = ((110.0, 110.0), (150.0, 110.0), (150.0, 150.0), (110.0, 150.0))
    assert part_of_any(box, [card], PART_OF_CARD)
    first = IndexRead(None, FaceStatus.NO_CARD, 0.0)
    rec._read_found(frame, box, first, [card])
    assert reads == []
    elsewhere: Quad = ((300.0, 300.0), (340.0, 300.0), (340.0, 340.0), (300.0, 340.0))
    assert not part_of_any(elsewhere, [card], PART_OF_CARD)
    rec._read_found(frame, elsewhere, first, [card])
    assert len(reads) >= 1  # read a quarter turn on (and grown where paper allows)
