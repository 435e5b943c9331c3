"""Work shared within one frame's read gives what the work done again gave: a card's pips
found once for every question asked of them (:class:`~tablectl.vision.pips.PipsReader`),
and whole-frame images made once per frame (:class:`~tablectl.vision.framememo.FrameMemo`,
the snap's blurred grey)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera import random_style, render_face
from hardware_sim.camera_scene import SceneCamera
from tablectl.domain.cards import Card, Rank
from tablectl.vision.cardview import CARD_H, CARD_W
from tablectl.vision.framememo import FrameMemo
from tablectl.vision.locate import locate_cards
from tablectl.vision.pips import Pips, PipsReader, read_pips
from tablectl.vision.snap import edge_grey, snapped

from . import decks
from .test_pips import _number_cards

needs_blackjack = pytest.mark.skipif(not decks.available(decks.BLACKJACK),
                                     reason=decks.skip_reason(decks.BLACKJACK))


def _card(code: str, seed: int, blur: float) -> np.ndarray:
    img = cv2.resize(render_face(Card.parse(code), random_style(seed)), (CARD_W, CARD_H),
                     interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(img, (0, 0), blur) if blur else img


def _same(a: Pips, b: Pips) -> bool:
    return (a.rank is b.rank and a.count == b.count and a.edge == b.edge
            and a.shapes.shape == b.shapes.shape and np.array_equal(a.shapes, b.shapes))


def test_pips_reader_answers_as_read_pips_whatever_is_asked_first() -> None:
    """Every question (any rank wanted or none, with the edge or without) in several orders,
    over cards read in turn and read again, gets :func:`read_pips`'s own answer: a reader
    that kept the last card's pips for the next card, or kept the shapes measured for one
    rank for another, fails here."""
    cards = [_card(c, i, b) for i, (c, b) in enumerate(
        (("7h", 0.0), ("7h", 2.0), ("5s", 1.5), ("Kd", 0.0), ("9c", 2.5)))]
    asks = [(None, True), (Rank.SEVEN, True), (Rank.FIVE, False), (None, False),
            (Rank.NINE, True), (Rank.SEVEN, False)]
    plain = [[read_pips(img, want, edge=edge) for want, edge in asks] for img in cards]
    assert all(len(row[0].shapes) and row[0].edge > 0 for row in plain)  # shapes measured
    _ask_in_turn(cards, asks, plain)


@needs_blackjack
def test_pips_reader_answers_as_read_pips_on_photos_whose_pips_read_their_rank() -> None:
    """As above on photographed number cards, sharp and blurred, whose pips read their
    own rank: the shapes measured for the rank wanted are the ones measured for none."""
    cards = [img for _, img in _number_cards()[::5]]
    cards += [cv2.GaussianBlur(img, (0, 0), 2.5) for img in cards]
    ranks = [read_pips(img).rank for img in cards]
    assert sum(r is not None for r in ranks) >= len(cards) - 1
    asks = [(ranks[0], True), (None, True), (ranks[-1], False), (Rank.TWO, True),
            (None, False), (ranks[0], False)]
    plain = [[read_pips(img, want, edge=edge) for want, edge in asks] for img in cards]
    assert any(len(row[0].shapes) for row in plain)
    _ask_in_turn(cards, asks, plain)


def _ask_in_turn(cards: list[np.ndarray], asks: list[tuple[Rank | None, bool]],
                 plain: list[list[Pips]]) -> None:
    reader = PipsReader()
    n = len(cards)
    for order in (asks, asks[::-1], asks[2:] + asks[:2]):
        for i in (*range(n), 1 % n, 0, n - 1):
            for want, edge in order:
                got = reader.read(cards[i], want, edge=edge)
                assert _same(got, plain[i][asks.index((want, edge))]), (i, want, edge)


def test_frame_memo_computes_once_per_frame_and_again_for_another() -> None:
    """One call per frame and function; another frame (even an equal copy) or a cleared
    memo computes again; the value is the function's."""
    calls: list[int] = []

    def total(img: np.ndarray) -> int:
        calls.append(1)
        return int(img.sum())

    a, b = np.full((4, 4), 2, np.uint8), np.full((4, 4), 3, np.uint8)
    memo = FrameMemo()
    assert memo.of(a, total) == 32 and memo.of(a, total) == 32 and len(calls) == 1
    assert memo.of(a, lambda img: img.shape) == (4, 4) and len(calls) == 1
    assert memo.of(b, total) == 48 and len(calls) == 2
    assert memo.of(a.copy(), total) == 32 and len(calls) == 3
    memo.clear()
    assert memo.of(a.copy(), total) == 32 and len(calls) == 4


def test_snap_with_the_frames_grey_made_once_is_the_snap() -> None:
    """Each found quad of a harsh frame (and each a few px off) snaps to the same quad
    with the frame's :func:`edge_grey` given as when it makes its own."""
    frame, _ = SceneCamera(3, random_style(21), strength=1.0).frame(
        [Card.parse(c) for c in ("As", "Td", "7h", "Qc", "2d", "9s")])
    grey = FrameMemo().of(frame, edge_grey)
    quads = [f.quad for f in locate_cards(frame)]
    assert quads
    moved = 0
    for q in quads:
        for dx, dy in ((0.0, 0.0), (4.0, -3.0)):
            shifted = tuple((x + dx, y + dy) for x, y in q)
            own = snapped(frame, shifted)  # type: ignore[arg-type]
            assert own == snapped(frame, shifted, grey)  # type: ignore[arg-type]
            moved += own is not None
    assert moved
