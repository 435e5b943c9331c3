"""Work a frame's reader leaves out: a part of a card already accepted is not read again in
other shapes; and the finder's cheaper box overlaps are the plain ones."""

from __future__ import annotations

import numpy as np
import pytest

from tablectl.vision import cardreader
from tablectl.vision.indexread import IndexRead
from tablectl.vision.locate import _overlaps, box_iou
from tablectl.vision.model import FaceStatus, Quad
from tablectl.vision.outline import PART_OF_CARD, part_of_any
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser


def test_box_overlaps_inlined_are_box_iou_bit_for_bit() -> None:
    """The finder asks each contour's box against every candidate so far in one inlined
    loop that passes over boxes apart: the same float64 arithmetic as :func:`box_iou`, so
    the same answer at every limit, touching, empty and identical boxes included."""
    rng = np.random.default_rng(3)
    boxes = [tuple(float(v) for v in (x, y, x + w, y + h))
             for x, y, w, h in rng.integers(0, 60, (200, 4))]
    boxes += [(0.0, 0.0, 0.0, 0.0), (5.0, 5.0, 5.0, 9.0), (0.0, 0.0, 10.0, 10.0)]
    ious = [box_iou(a, b) for a in boxes[:40] + boxes[-3:] for b in boxes]
    limits = [0.0, 0.5, 0.9, 1.0, *sorted(set(ious))[::25]]
    hits = 0
    for a in boxes[:40] + boxes[-3:]:
        for limit in limits:
            want = any(box_iou(a, b) > limit for b in boxes)
            hits += want
            assert _overlaps(a, boxes, limit) == want, (a, limit)
            assert not _overlaps(a, [], limit)
    assert 0 < hits < 43 * len(limits)  # both answers are asked for


def test_a_part_of_a_card_accepted_in_the_frame_is_not_read_in_other_shapes(
        board_profile: DeckProfile, monkeypatch: pytest.MonkeyPatch) -> None:
    """A squarish quad read as no card is read a quarter turn on (and grown) unless it lies
    inside a card accepted in the same frame (its index box: part of that card) or, with
    cards accepted, is not light paper with print on it (a patch of table between them).
    Paper with a mark on it elsewhere is still read again, and so is the patch of table
    where no card was accepted (the frame's bright end may then be a wall, not paper)."""
    rec = Recogniser(board_profile)
    reads: list[object] = []
    monkeypatch.setattr(Recogniser, "read_card",
                        lambda self, img: reads.append(img) or cardreader._NONE)
    frame = np.full((400, 400, 3), 110, np.uint8)  # a darker table
    frame[100:241, 100:201] = 235  # an accepted card
    frame[300:341, 300:341] = 235  # a piece of paper with a mark on it
    frame[315:323, 318:324] = 30
    card: Quad = ((100.0, 100.0), (200.0, 100.0), (200.0, 240.0), (100.0, 240.0))
    box: Quad = ((110.0, 110.0), (150.0, 110.0), (150.0, 150.0), (110.0, 150.0))
    table: Quad = ((240.0, 40.0), (280.0, 40.0), (280.0, 80.0), (240.0, 80.0))
    paper: Quad = ((300.0, 300.0), (340.0, 300.0), (340.0, 340.0), (300.0, 340.0))
    assert part_of_any(box, [card], PART_OF_CARD)
    first = IndexRead(None, FaceStatus.NO_CARD, 0.0)

    def further(quad: Quad, cards: list[Quad]) -> int:
        reads.clear()
        rec._read_found(frame, quad, first, cards)
        return len(reads)

    assert further(box, [card]) == 0
    assert further(table, [card]) == 0
    assert further(paper, [card]) >= 1  # a quarter turn on (and grown where paper allows)
    assert further(table, []) >= 1
