"""A card read's cheaper glue (docs/camera.md §6) gives what the forms it replaced gave: the
five shifted face views normed at once against row by row, the face's rivals picked from
each rank's positions against the loop over every enrolled card, and the order statistics
of a small uint8 image from numpy's counts against OpenCV's histogram."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from hardware_sim.camera import random_style, render_face
from tablectl.domain.cards import FULL_DECK, Card
from tablectl.vision import levels
from tablectl.vision.cardview import CARD_H, CARD_W
from tablectl.vision.face import _SHIFTED, FaceBook, FaceVerdict, face_cells, face_views
from tablectl.vision.profile import DeckProfile

Vec = npt.NDArray[np.float32]


def _cards() -> list[np.ndarray]:
    """Rendered cards, sharp and blurred, and a blank and a black one (no face at all)."""
    out: list[np.ndarray] = []
    for i, code in enumerate(("Kh", "Td", "7c", "As", "2s", "Qd")):
        card = cv2.resize(render_face(Card.parse(code), random_style(i)), (CARD_W, CARD_H),
                          interpolation=cv2.INTER_AREA)
        out += [card, cv2.GaussianBlur(card, (0, 0), 2.0)]
    out += [np.full((CARD_H, CARD_W, 3), 255, np.uint8), np.zeros((CARD_H, CARD_W, 3), np.uint8)]
    return out


def _views_old(card: np.ndarray) -> Vec:
    cells = face_cells(card).ravel()
    views = np.empty(_SHIFTED.shape, np.float32)
    for row, picked in zip(views, cells[_SHIFTED], strict=True):
        mean = np.float32(float(np.add.reduce(picked)) / picked.size)
        v = picked - mean
        n = float(np.sqrt(v.dot(v)))
        row[:] = v / n if n > 1e-6 else 0.0
    return np.concatenate([views, views[:, ::-1]]).astype(np.float32)


def test_the_face_views_normed_at_once_are_the_row_by_row_ones() -> None:
    for card in _cards():
        new, old = face_views(card), _views_old(card)
        assert new.dtype == old.dtype and new.shape == old.shape
        assert new.tobytes() == old.tobytes()


def _judge_old(book: FaceBook, card: Card, card_img: np.ndarray) -> FaceVerdict:
    scores = (book.vecs @ face_views(card_img).T).max(axis=1)
    values: list[float] = np.maximum(
        np.maximum.reduceat(scores[book._by_card], book._card_starts),
        np.float32(-1.0)).tolist()
    own = float(values[book._index[card]]) if card in book._index else -1.0
    rival: Card | None = None
    rival_score = -1.0
    suit_rival: Card | None = None
    suit_score = -1.0
    for c, b in zip(book._by_index, values, strict=True):
        if c.rank is not card.rank and b > rival_score:
            rival, rival_score = c, b
        elif c.rank is card.rank and c != card and b > suit_score:
            suit_rival, suit_score = c, b
    return FaceVerdict(card, own, rival, rival_score, book.gate(card), suit_rival, suit_score)


def test_the_faces_rivals_are_the_loops(board_profile: DeckProfile) -> None:
    assert board_profile.face_vecs is not None
    book = FaceBook(board_profile.face_cards, board_profile.face_vecs)
    for i, img in enumerate(_cards()):
        for card in (*FULL_DECK[i::7], Card.parse("Kh")):
            assert book.judge(card, img) == _judge_old(book, card, img)


@pytest.mark.parametrize("seed", range(40))
def test_the_first_best_is_the_loops_choice_with_ties_and_floors(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cards = list(FULL_DECK[:12])
    book = FaceBook(cards, np.eye(12, 8, dtype=np.float32))
    best = rng.choice([-1.0, -0.5, 0.0, -0.0, 0.3, 0.3, 0.9], size=12).tolist()
    at = tuple(sorted(rng.choice(12, size=int(rng.integers(0, 13)), replace=False).tolist()))
    want: Card | None = None
    score = -1.0
    for i in at:
        if best[i] > score:
            want, score = book._by_index[i], best[i]
    got = book._first_best(at, best)
    assert got[0] == want and got[1] == score and str(got[1]) == str(score)


def _cumulative_old(img: np.ndarray, channel: int = 0) -> npt.NDArray[np.float32]:
    hist = cv2.calcHist([np.ascontiguousarray(img)], [channel], None, [256], [0, 256])
    out: npt.NDArray[np.float32] = np.cumsum(hist.ravel())
    return out


def test_order_statistics_counted_by_numpy_are_the_histograms() -> None:
    rng = np.random.default_rng(3)
    grey = cv2.cvtColor(_cards()[0], cv2.COLOR_BGR2GRAY)
    images = [grey, grey[::5, ::5], grey[40:51, 30:37], np.full((3, 1), 7, np.uint8),
              rng.integers(0, 256, (57, 41), dtype=np.uint8)]
    for img in images:
        new, old = levels._cumulative(img), _cumulative_old(img)
        assert new.tolist() == old.tolist()
        for q in (1, 25, 50, 90, 99, 100):
            p = levels.percentile(img, q)
            assert p is None or p == float(np.percentile(img, q))
        assert levels.median(img) == float(np.median(img))
    pix = _cards()[2].reshape(-1, 1, 3)
    for c in range(3):
        assert levels._cumulative(pix, c).tolist() == _cumulative_old(pix, c).tolist()
