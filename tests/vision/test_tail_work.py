"""Work the tail frames leave out: the corner search's paper counted only round its glyphs
(:mod:`tablectl.vision.corners`, the same pairs), and a card placed from a free corner that
shows no index not snapped and read again (``Recogniser._read_placed``)."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np
import pytest

from tablectl.domain.cards import Card
from tablectl.vision import corners, recognise
from tablectl.vision.indexread import IndexRead
from tablectl.vision.model import FaceStatus, Image, Quad
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser

_TABLE = 30
_PAPER = 225


def _cluttered(seed: int) -> Image:
    """A frame of paper patches, coloured patches, shade and ink marks of many sizes."""
    rng = np.random.default_rng(seed)
    frame = np.full((240, 320, 3), (40, 80, 35), np.uint8)
    for _ in range(12):
        x, y = (int(v) for v in rng.integers(0, 280, 2))
        colour = tuple(int(c) for c in rng.integers(60, 256, 3))
        cv2.rectangle(frame, (x, y % 220), (x + int(rng.integers(20, 90)),
                                            y % 220 + int(rng.integers(20, 90))), colour, -1)
    for _ in range(60):
        x, y = (int(v) for v in rng.integers(0, 320, 2))
        cv2.circle(frame, (x, y % 240), int(rng.integers(2, 8)), (20, 20, 120), -1)
    shade = np.linspace(0.6, 1.0, 320)[None, :, None]
    return np.clip(frame * shade, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_paper_counted_in_the_glyphs_boxes_as_on_the_whole_frame(seed: int) -> None:
    """The paper of a box counted box by box, or from the whole frame's mask, is what the
    whole frame's paper mask (:func:`~tablectl.vision.corners.ink_and_paper`) holds
    there; the ink in one comparison is the ink under the cut where the level is lit."""
    frame = _cluttered(seed)
    ink, paper = corners.ink_and_paper(frame)
    levels = corners._Levels(frame)
    rng = np.random.default_rng(seed)
    x0 = rng.integers(0, 300, 40)
    y0 = rng.integers(0, 220, 40)
    x1 = np.minimum(x0 + rng.integers(1, 60, 40), 320)
    y1 = np.minimum(y0 + rng.integers(1, 60, 40), 240)
    want = [int(paper[b:d, a:c].sum()) for a, b, c, d in zip(x0, y0, x1, y1, strict=True)]
    assert levels.paper_counts(x0, y0, x1, y1).tolist() == want
    whole = (np.zeros(40, int), np.zeros(40, int), np.full(40, 320), np.full(40, 240))
    assert levels.paper_counts(*whole).tolist() == [int(paper.sum())] * 40
    cut = cv2.LUT(levels.level, corners._INK_LUT)
    under = (levels.dark <= cut) & (levels.level >= corners._PAPER_FLOOR)
    assert np.array_equal(ink > 0, under) and np.array_equal(levels.ink, ink)


Read = Callable[[Quad], tuple[Quad, IndexRead]]


def _placed_reader(rec: Recogniser, monkeypatch: pytest.MonkeyPatch, frame: Image) -> Read:
    """The ``read`` the recogniser hands :func:`with_free_corners` for ``frame``."""
    handed: list[Read] = []

    def free_corners(frame: Image, found: list[tuple[Quad, IndexRead]], read: Read,
                     small: object = None) -> list[tuple[Quad, IndexRead]]:
        handed.append(read)
        return found

    monkeypatch.setattr(recognise, "with_free_corners", free_corners)
    rec.inspect_board(frame)
    assert len(handed) == 1
    return handed[0]


@pytest.mark.parametrize("status, reads", [(FaceStatus.NO_CARD, 1),
                                            (FaceStatus.NEEDS_CONFIRMATION, 2)])
def test_a_placed_card_showing_no_index_is_not_snapped_and_read_again(
        board_profile: DeckProfile, monkeypatch: pytest.MonkeyPatch, status: FaceStatus,
        reads: int) -> None:
    """A card placed from a free corner a few px off a sheared card: read once where it
    shows no index at all; read unsure, it is snapped onto the card's edges and read
    there too, as before."""
    frame = np.full((300, 300, 3), _TABLE, np.uint8)
    card = np.array([[100, 60], [190, 58], [205, 200], [112, 204]], np.float64)
    cv2.fillConvexPoly(frame, np.round(card).astype(np.int32), (_PAPER,) * 3, cv2.LINE_AA)
    placed: Quad = ((106, 64), (196, 64), (196, 198), (106, 198))
    rec = Recogniser(board_profile)
    read = _placed_reader(rec, monkeypatch, frame)
    calls: list[Image] = []

    def read_card(card_img: Image) -> IndexRead:
        calls.append(card_img)
        return IndexRead(None if status is FaceStatus.NO_CARD else Card.parse("Js"),
                         status, 0.5)

    monkeypatch.setattr(rec, "read_card", read_card)
    q, r = read(placed)
    assert len(calls) == reads
    assert q == placed and r.status is status
