"""On an even pale table every card accepted leaves nothing to search: the table is paper
by colour, so :func:`~tablectl.vision.corners.paper_left` counts only paper that differs
from the table (``off_table``), and ``Recogniser._all_read`` then skips the corner search
and the free corners (half the bench's 1280x720 frames are pale tables; 16 of 20 then read
no further than their outlines, with the same reads on 70 synthetic frames and 689 real
photos)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera import random_style
from hardware_sim.camera_scene import SceneCamera
from tablectl.vision import recognise
from tablectl.vision.background import off_background
from tablectl.vision.corners import paper_left
from tablectl.vision.locate import shrunk
from tablectl.vision.merge import accepted_mask
from tablectl.vision.model import FaceStatus, Image
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser

from .conftest import ENROLLED_SEED

BEIGE = (176, 196, 212)          # BGR: a pale felt, paper by colour
CARD = (246, 248, 250)


def _table(cards: int) -> tuple[Image, Image]:
    """A 1280x720 beige table with ``cards`` white cards drawn on it (a little noise and a
    light falling off to one side), and the mask of the first card only, grown a little,
    as the accepted cards' mask is."""
    rng = np.random.default_rng(5)
    frame = np.empty((720, 1280, 3), np.float32)
    frame[:] = BEIGE
    frame *= np.linspace(0.92, 1.0, 1280, dtype=np.float32)[None, :, None]
    frame += rng.normal(0, 2.0, frame.shape).astype(np.float32)
    img = np.clip(frame, 0, 255).astype(np.uint8)
    skip = np.zeros((720, 1280), np.uint8)
    for i in range(cards):
        x = 200 + 500 * i
        cv2.rectangle(img, (x, 250), (x + 180, 500), CARD, -1)
        cv2.putText(img, "7", (x + 10, 290), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 20, 20), 3)
        if i == 0:
            cv2.rectangle(skip, (x - 10, 240), (x + 190, 510), 255, -1)
    return img, skip


def test_a_pale_table_is_paper_but_not_paper_off_the_table() -> None:
    img, skip = _table(1)
    small = shrunk(img)[1]
    off = off_background(small)
    assert off is not None                     # one even table
    assert paper_left(img, skip, small)         # by colour alone the table is paper
    assert not paper_left(img, skip, small, off)


def test_a_card_not_yet_read_on_a_pale_table_is_still_paper_left() -> None:
    img, skip = _table(2)                      # the second card is outside the mask
    small = shrunk(img)[1]
    off = off_background(small)
    assert off is not None
    assert paper_left(img, skip, small, off)


@pytest.fixture(scope="module")
def harsh_frames() -> list[Image]:
    """The bench's harsh 1280x720 tables (bench/camera.py: seed 3, the enrolled design),
    8 cards each."""
    cam = SceneCamera(3, random_style(ENROLLED_SEED), strength=1.0)
    return [cam.frame(cam.shuffled_deck()[:8])[0] for _ in range(6)]


def test_every_card_accepted_on_a_pale_table_is_not_searched_further(
        board_profile: DeckProfile, harsh_frames: list[Image],
        monkeypatch: pytest.MonkeyPatch) -> None:
    rec = Recogniser(board_profile)
    calls: list[int] = []
    real = recognise.glyph_pairs
    monkeypatch.setattr(recognise, "glyph_pairs",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    skipped = 0
    for frame in harsh_frames:
        calls.clear()
        reads = rec.inspect_board(frame)
        all_accepted = len(reads) == 8 and all(
            r.status is FaceStatus.ACCEPTED for _, r in reads)
        # paper by colour beside the cards: the table (main searched such a frame)
        table_is_paper = paper_left(frame, accepted_mask(frame.shape, reads))
        if all_accepted and table_is_paper:
            assert not calls, "the corner search looked for glyph pairs on the table"
            skipped += 1
    # the second of the bench's first six frames: all eight accepted on a pale table
    assert skipped >= 1, skipped
