"""Work the corner search leaves out (:mod:`tablectl.vision.corners`, ``_all_read``):
a frame whose every outline was accepted and that shows no paper beside those cards is not
searched (no index can lie there: the search takes only glyphs with paper round them)."""

from __future__ import annotations

import numpy as np
import pytest

from tablectl.domain.cards import Card
from tablectl.vision import recognise
from tablectl.vision.corners import paper_left
from tablectl.vision.indexread import IndexRead
from tablectl.vision.model import FaceStatus, Quad
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser

_CARD: Quad = ((100.0, 100.0), (200.0, 100.0), (200.0, 240.0), (100.0, 240.0))
_WIDE: Quad = ((300.0, 300.0), (560.0, 300.0), (560.0, 400.0), (300.0, 400.0))
_ACCEPTED = IndexRead(Card.parse("7s"), FaceStatus.ACCEPTED, 0.99)
_REFUSED = IndexRead(Card.parse("Td"), FaceStatus.NEEDS_CONFIRMATION, 0.9)


def _table() -> np.ndarray:
    """A dark green felt with one white card on it (at :data:`_CARD`)."""
    frame = np.zeros((480, 640, 3), np.uint8)
    frame[:] = (40, 80, 35)
    frame[100:241, 100:201] = 235
    return frame


def test_paper_left_beside_the_cards_read() -> None:
    """Paper outside the cards read is seen at half size; a speck of two pixels is not."""
    frame = _table()
    skip = np.zeros(frame.shape[:2], np.uint8)
    skip[90:251, 90:211] = 255
    assert not paper_left(frame, skip)
    frame[400:402, 500:502] = 235
    assert not paper_left(frame, skip)
    frame[350:390, 400:430] = 235   # a piece of paper
    assert paper_left(frame, skip)
    assert paper_left(_table(), np.zeros_like(skip))  # the card itself, where not skipped


def test_no_corner_search_where_every_outline_is_read_and_no_paper_is_left(
        board_profile: DeckProfile) -> None:
    """Every outline accepted and nothing but table beside the cards: nothing is left for
    the corner search or the free corners (``Recogniser._all_read``, which ``_inspect``
    asks before either). Paper beside them, or an outline not accepted, and they run."""
    rec = Recogniser(board_profile)
    frame = _table()
    assert rec._all_read(frame, [(_CARD, _ACCEPTED)])
    assert not rec._all_read(frame, [(_CARD, _ACCEPTED), (_WIDE, _REFUSED)])
    assert not rec._all_read(frame, [])
    frame[350:390, 400:430] = 235
    assert not rec._all_read(frame, [(_CARD, _ACCEPTED)])


def test_a_frame_with_nothing_left_is_not_searched(
        board_profile: DeckProfile, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``_all_read`` says nothing is left, ``inspect_board`` looks for no glyph pair
    and places no card from a free corner; where it is not, both run."""
    rec = Recogniser(board_profile)
    searched: list[str] = []

    def glyph_pairs(*args: object, **kwargs: object) -> list[object]:
        searched.append("corners")
        return []

    def with_free_corners(frame: object, found: list[object], *args: object) -> list[object]:
        searched.append("free")
        return found

    monkeypatch.setattr(recognise, "glyph_pairs", glyph_pairs)
    monkeypatch.setattr(recognise, "with_free_corners", with_free_corners)
    monkeypatch.setattr(Recogniser, "_all_read", lambda self, frame, found: True)
    rec.inspect_board(_table())
    assert searched == []
    monkeypatch.setattr(Recogniser, "_all_read", lambda self, frame, found: False)
    rec.inspect_board(_table())
    assert searched == ["corners", "free"]
