"""Work shared within one frame's read gives what the work done again gave: a card's pips
found once for every question asked of them (:class:`~tablectl.vision.pips.PipsReader`),
and whole-frame images made once per frame (:class:`~tablectl.vision.framememo.FrameMemo`,
the snap's blurred grey, the frame shrunk for the finder and the free corners); and the
finder's cheap reject of quads apart answers as the polygons do."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera import SimCamera, random_style, render_face
from hardware_sim.camera_scene import SceneCamera
from tablectl.domain.cards import Card, Rank
from tablectl.vision.cardview import CARD_H, CARD_W
from tablectl.vision.corners import paper_left
from tablectl.vision.framememo import FrameMemo
from tablectl.vision.freecorner import pale_shapes
from tablectl.vision.locate import DETECT_MAX, _contains, locate_cards, order_quad, shrunk
from tablectl.vision.model import FaceStatus, Quad
from tablectl.vision.pips import Pips, PipsReader, read_pips
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser
from tablectl.vision.snap import edge_grey, snapped

from . import decks
from .conftest import ENROLLED_SEED
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


def _harsh_frame(seed: int = 21) -> tuple[np.ndarray, list[Card]]:
    cards = [Card.parse(c) for c in ("As", "Td", "7h", "Qc", "2d", "9s")]
    cam = SceneCamera(3, random_style(seed), strength=1.0)
    return cam.frame(cards)[0], cards


def test_the_frame_shrunk_once_finds_what_each_shrink_of_its_own_found() -> None:
    """The finder, the free corners' pale shapes and the corner search's check for paper
    left given the frame's :func:`shrunk` find exactly what each finds shrinking the frame
    itself (a 1280x720 frame is shrunk; a frame already small is passed on, not copied)."""
    frame, _ = _harsh_frame()
    small = shrunk(frame)
    assert small[0] < 1.0 and max(small[1].shape[:2]) == DETECT_MAX
    found = locate_cards(frame)
    assert found and locate_cards(frame, shrunk_frame=small) == found
    own, given = pale_shapes(frame), pale_shapes(frame, small)
    assert own[0] == given[0] and len(own[1]) == len(given[1]) > 0
    assert all(np.array_equal(a, b) for a, b in zip(own[1], given[1], strict=True))
    little = np.zeros((480, 640, 3), np.uint8)
    assert shrunk(little)[0] == 1.0 and shrunk(little)[1] is little
    # the corner search's check for paper left beside the cards read: the same answers
    none, one, every = (np.zeros(frame.shape[:2], np.uint8) for _ in range(3))
    for i, f in enumerate(found):
        for s in (one, every) if i == 0 else (every,):
            cv2.fillConvexPoly(s, np.round(np.array(f.quad)).astype(np.int32), 255)
    skips = [none, one, every, np.full(frame.shape[:2], 255, np.uint8)]
    answers = [paper_left(frame, s) for s in skips]
    assert answers == [paper_left(frame, s, small[1]) for s in skips]
    assert answers[0] and not answers[-1]


def test_a_frame_read_is_shrunk_once(board_profile: DeckProfile,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a 1280 px wide frame whose cards are accepted (so the free corners look for
    pale shapes and the corner search for paper left) shrinks the whole frame once, and
    reads it as before (three shrinks of the same frame, with the same sizes)."""
    cam = SimCamera(7, random_style(ENROLLED_SEED), strength=0.4)
    frame = cam.board_frame([Card.parse(c) for c in ("Kh", "4c", "9d")], (110, 130))[0]
    frame = cv2.resize(frame, (1280, 960), interpolation=cv2.INTER_LINEAR)
    rec = Recogniser(board_profile)
    reads = rec.inspect_board(frame)
    assert sum(r.status is FaceStatus.ACCEPTED for _, r in reads) >= 2
    whole: list[tuple[int, ...]] = []
    resize = cv2.resize

    def counted(src: np.ndarray, *args: object, **kw: object) -> np.ndarray:
        if src.shape == frame.shape:
            whole.append(src.shape)
        return resize(src, *args, **kw)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(cv2, "resize", counted)
    assert rec.inspect_board(frame) == reads
    assert len(whole) == 1


def test_quads_apart_are_not_contained_and_the_rest_as_their_polygons_say() -> None:
    """The bounding-box reject of :func:`_contains` answers as the polygons do: over quads
    apart, touching, overlapping and nested (random convex quads), the same answer as
    intersecting the polygons every time."""
    def by_polygons(outer: Quad, inner: Quad) -> bool:
        a = np.array(outer, np.float32).reshape(-1, 1, 2)
        b = np.array(inner, np.float32).reshape(-1, 1, 2)
        inter, _ = cv2.intersectConvexConvex(a, b)
        area_b = float(cv2.contourArea(b))
        return area_b > 0 and inter >= 0.8 * area_b

    rng = np.random.default_rng(5)
    quads: list[Quad] = []
    for cx, cy, w, h, t in rng.uniform((0, 0, 5, 5, 0), (200, 200, 80, 80, 3.2), (60, 5)):
        c, s = np.cos(t), np.sin(t)
        pts = [(cx + c * x - s * y, cy + s * x + c * y)
               for x, y in ((-w, -h), (w, -h), (w, h), (-w, h))]
        quads.append(order_quad(np.array(pts, np.float32)))
    quads += [((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)),
              ((10.0, 0.0), (20.0, 0.0), (20.0, 10.0), (10.0, 10.0)),
              ((1.0, 1.0), (9.0, 1.0), (9.0, 9.0), (1.0, 9.0))]
    answers = [(_contains(a, b), by_polygons(a, b)) for a in quads for b in quads]
    assert all(got == want for got, want in answers)
    assert 0 < sum(want for _, want in answers) < len(answers)
    assert not _contains(quads[-3], quads[-2]) and _contains(quads[-3], quads[-1])
