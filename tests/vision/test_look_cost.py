"""A look's and a card read's cheaper work (docs/camera.md §6, "Cost: a look's small work")
gives what the work it replaced gave: the glyph pair's masks made once against each glyph's
own, the classes ranked in Python against numpy's stable ``argsort``, the allowed suits on
Python floats, the pips' edge width in the pips' box against the whole card's, Grana's
labels against the default's; and the work kept for a frame (a quad's warp, a card's pips)
is what making it again gives, made once."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from hardware_sim.camera import random_style, render_face
from hardware_sim.camera_scene import SceneCamera
from tablectl.domain.cards import Card
from tablectl.vision import glyphs
from tablectl.vision.cardview import (
    CARD_H,
    CARD_W,
    CORNER,
    CORNER_WIDE,
    corner_crops,
    warp_card,
    warp_source,
)
from tablectl.vision.classify import Classifier
from tablectl.vision.evidence import Evidence
from tablectl.vision.framememo import FrameMemo
from tablectl.vision.glyphs import (
    _DILATE_K,
    INDEX_BOX,
    RANK_BOX,
    SUIT_BOX,
    IndexGlyphs,
    _chroma_in,
    _Comp,
    _union,
    fit_glyph,
    index_candidates,
)
from tablectl.vision.locate import locate_cards
from tablectl.vision.model import Image
from tablectl.vision.pips import (
    READER_KEEPS,
    PipsReader,
    _found,
    _measured,
    few_pips,
    pip_columns,
    pip_rows,
    read_pips,
)
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser
from tablectl.vision.scores import Groups, top2

from .conftest import ENROLLED_SEED

Vec = npt.NDArray[np.float32]
T = TypeVar("T")


def _card(code: str, seed: int, blur: float = 0.0) -> np.ndarray:
    img = cv2.resize(render_face(Card.parse(code), random_style(seed)), (CARD_W, CARD_H),
                     interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(img, (0, 0), blur) if blur else img


def _crops() -> list[np.ndarray]:
    """Index crops of rendered cards, sharp and blurred, both corners at both sizes."""
    out: list[np.ndarray] = []
    for i, code in enumerate(("Kh", "Td", "7c", "As", "2s", "Qd", "9h", "4c")):
        for blur in (0.0, 1.6):
            card = _card(code, i, blur)
            for corner in (CORNER, CORNER_WIDE):
                out.extend(corner_crops(card, corner))
    return out


# --- the forms replaced, as they were -------------------------------------------------------


def _glyph_old(ink: Vec, labels: npt.NDArray[np.int32], comps: list[_Comp],
               size: tuple[int, int]) -> Vec:
    x, y, w, h = _union(comps)
    lab = labels[y:y + h, x:x + w]
    mask = lab == comps[0].label
    for c in comps[1:]:
        mask |= lab == c.label
    grown = cv2.dilate(mask.view(np.uint8), _DILATE_K)
    return fit_glyph(ink[y:y + h, x:x + w] * grown, size)


def _chroma_old(colour: np.ndarray, ink: Vec, labels: npt.NDArray[np.int32],
                comps: list[_Comp], box: tuple[int, int, int, int]) -> Vec:
    x, y, w, h = box
    y0, y1 = max(0, y - 3), min(colour.shape[0], y + h + 3)
    x0, x1 = max(0, x - 3), min(colour.shape[1], x + w + 3)
    lab, ink_r, pix = labels[y0:y1, x0:x1], ink[y0:y1, x0:x1], colour[y0:y1, x0:x1]
    mask = lab == comps[0].label  # the old mask, one comparison per glyph
    for c in comps[1:]:
        mask |= lab == c.label
    return _chroma_in(pix, ink_r, mask)


def _top2_old(vecs: Vec, ids: npt.NDArray[np.intp], starts: npt.NDArray[np.intp], v: Vec,
              allowed: npt.NDArray[np.bool_] | None) -> tuple[int, float, float, float]:
    scores = vecs @ v
    best = np.maximum.reduceat(scores, starts)
    classes = ids[starts]
    if allowed is not None:
        keep = allowed[classes]
        best, kept = best[keep], np.flatnonzero(keep)
    else:
        kept = np.arange(len(starts))
    top = np.argsort(-best, kind="stable")[:2]

    def winner(i: int) -> int:
        k = int(kept[i])
        a = int(starts[k])
        b = int(starts[k + 1]) if k + 1 < len(starts) else len(scores)
        return a + int(np.argmax(scores[a:b]))

    s1, k1, c1 = float(best[top[0]]), winner(int(top[0])), int(classes[kept[top[0]]])
    if len(top) < 2:
        return c1, s1, 2.0, 2.0
    s2, k2 = float(best[top[1]]), winner(int(top[1]))
    gap = max(1.0 - float(vecs[k1] @ vecs[k2]), 1e-3)
    return c1, s1, s1 - s2, (s1 - s2) / gap


def _edge_old(ink: Vec, labels: npt.NDArray[np.int32],
              pips: list[tuple[int, int, float, float]]) -> float:
    if not pips:
        return 0.0
    mask = np.isin(labels, [i for i, _, _, _ in pips]).astype(np.uint8)
    k = np.ones((5, 5), np.uint8)
    rim = cv2.dilate(mask, k).astype(bool) & ~cv2.erode(mask, k).astype(bool)
    gx = cv2.Sobel(ink, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(ink, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    slope = float(np.percentile(np.hypot(gx, gy)[rim], 90))
    full = float(np.percentile(ink[mask.astype(bool)], 75))
    return full / max(slope, 1e-3)


# --- the tests --------------------------------------------------------------------------------


def test_a_glyph_pairs_masks_made_once_give_each_glyph_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every glyph pair described in the index crops of rendered cards (sharp and blurred,
    every cut) has the rank, suit and index glyphs and the ink colour that each glyph's own
    mask grown in its own box gave, bit for bit: a mask grown in the wider box and cut
    wrong, or a union grown other than as the two, fails here."""
    seen: list[tuple[IndexGlyphs, IndexGlyphs]] = []
    describe = glyphs._describe

    def both(colour: np.ndarray, ink: Vec, labels: npt.NDArray[np.int32],
             rank: list[_Comp], suit: _Comp) -> IndexGlyphs:
        got = describe(colour, ink, labels, rank, suit)
        box = _union([*rank, suit])
        want = IndexGlyphs(rank=_glyph_old(ink, labels, rank, RANK_BOX),
                           suit=_glyph_old(ink, labels, [suit], SUIT_BOX),
                           index=_glyph_old(ink, labels, [*rank, suit], INDEX_BOX),
                           layout=got.layout,
                           chroma=_chroma_old(colour, ink, labels, [*rank, suit], box),
                           box=box, axis=got.axis)
        seen.append((got, want))
        return got

    monkeypatch.setattr(glyphs, "_describe", both)
    for crop in _crops():
        for _ in index_candidates(crop, grown=True):
            pass
    assert len(seen) >= 40
    for got, want in seen:
        for name in ("rank", "suit", "index", "chroma"):
            assert np.array_equal(getattr(got, name), getattr(want, name)), name
        assert got.box == want.box


def test_classes_ranked_in_python_as_a_stable_argsort_does() -> None:
    """``top2`` (``scores.Groups``) against the numpy form it replaced, on exemplars whose
    classes tie exactly (the earlier class wins, as a stable ``argsort`` keeps it) and on
    random ones, every class allowed or some: the same class, scores and separation."""
    rng = np.random.default_rng(3)
    for trial in range(300):
        ids = np.repeat(np.arange(7), rng.integers(1, 4, 7))
        starts = np.flatnonzero(np.r_[True, np.diff(ids) != 0])
        vecs = rng.normal(size=(len(ids), 8)).astype(np.float32)
        if trial % 3 == 0:  # classes tying: the same exemplar in several classes
            for k in rng.choice(len(starts), 3, replace=False)[1:]:
                vecs[starts[k]] = vecs[starts[0]]
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        v = vecs[0] if trial % 3 == 0 else rng.normal(size=8).astype(np.float32)
        allowed = None if trial % 2 else rng.random(7) < 0.6
        if allowed is not None and not allowed.any():
            allowed[int(ids[0])] = True
        assert top2(vecs, ids, starts, v, allowed) == _top2_old(vecs, ids, starts, v, allowed)
    ids = np.array([0, 0, 1])
    starts = np.array([0, 2])
    groups = Groups.of(np.eye(3, dtype=np.float32), ids, starts)
    assert groups.ids == (0, 1) and groups.rows == ((0, 2), (2, 3))


def test_allowed_suits_on_python_floats_are_the_numpy_ones(board_profile: DeckProfile) -> None:
    """The suits an ink colour allows, worked out on Python floats, are the float32
    distances' (``np.linalg.norm``, ``argmin``) own, on colours round every suit's and
    between them."""
    profile = board_profile
    cls = Classifier(profile, Evidence(profile))
    chroma = np.array([profile.suit_chroma[s] for s in profile.suit_chroma], np.float32)
    same = np.linalg.norm(cls._chroma[:, None] - cls._chroma[None, :], axis=2) < 0.15
    gap = float(np.linalg.norm(cls._chroma[:, None] - cls._chroma[None, :], axis=2)[~same]
                .min())
    rng = np.random.default_rng(5)
    asked = [*chroma, *(rng.normal(size=(400, 2)) * 0.4 + chroma.mean(axis=0))]
    ambiguous = 0
    for near in asked:
        c = np.asarray(near, np.float32)
        d = np.linalg.norm(cls._chroma - c[None, :], axis=1)
        best = int(np.argmin(d))
        others = d[~same[best]]
        want = (np.ones(4, bool) if others.size and float(others.min()) - float(d[best])
                < 0.3 * gap else same[best])
        ambiguous += bool(want.all())
        assert np.array_equal(cls.allowed_suits(c), want)
    assert 0 < ambiguous < len(asked)


def test_the_pips_edge_in_their_box_is_the_whole_cards() -> None:
    """The pips' edge width measured in their box is the one measured over the whole
    card, sharp and blurred, either way up, with pips near the card's edge (a card
    warped from a quad a few px too small)."""
    measured = 0
    for i, code in enumerate(("2h", "3s", "5d", "7c", "8h", "9s", "Td", "4c", "6h")):
        for blur in (0.0, 1.2, 2.5):
            card = _card(code, i, blur)
            tight = cv2.resize(card[18:-18, 14:-14], (CARD_W, CARD_H))
            for img in (card, np.ascontiguousarray(card[::-1, ::-1]), tight):
                f = _found(img)
                if f.keep is None:
                    continue
                pips = [(int(k) + 1, int(f.area[k]), float(f.cx[k]), float(f.cy[k]))
                        for k in f.keep]
                want = _edge_old(f.ink, np.asarray(f.labels, np.int32), pips)
                assert _measured(f, None, True).edge == want
                measured += 1
    assert measured >= 20


def test_grana_labels_the_default_way() -> None:
    """Grana's connected components (now used for the pips, the grown cut, the faint rank
    and the card-like check) number, bound and centre every component as the default
    algorithm does, on the ink cuts of rendered cards."""
    for i, code in enumerate(("5h", "Ks", "Td", "2c")):
        card = _card(code, i, 1.0)
        grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
        for cut in (90, 150, 200):
            binary = cv2.threshold(grey, cut, 255, cv2.THRESH_BINARY_INV)[1]
            a = cv2.connectedComponentsWithStats(binary, connectivity=8)
            b = cv2.connectedComponentsWithStatsWithAlgorithm(binary, 8, cv2.CV_32S,
                                                              cv2.CCL_GRANA)
            assert a[0] == b[0] > 2
            for x, y in zip(a[1:], b[1:], strict=True):
                assert np.array_equal(x, y)


def test_the_pips_reader_keeps_several_cards_and_answers_as_the_functions() -> None:
    """Columns, rows, too few pips and the pips read of more cards than the reader keeps,
    asked in turn and again, are the module's functions' answers; a card kept is not
    searched again (its found pips are the same object)."""
    cards = [_card(c, i, b) for i, (c, b) in enumerate(
        (("5h", 0.0), ("6s", 1.5), ("4d", 0.0), ("9c", 2.0), ("Kh", 0.0), ("7s", 1.0)))]
    cards.append(np.ascontiguousarray(cards[0][:CARD_H // 2]))  # its lower pips cut off
    assert len(cards) > READER_KEEPS
    want = [(pip_columns(c), pip_rows(c), few_pips(c), read_pips(c, None, edge=True))
            for c in cards]
    assert any(w[0] is not None for w in want) and any(w[2] is not None for w in want)
    reader = PipsReader()
    for order in (range(len(cards)), (0, 0, 1, 0, 5, 6, 0, 6, 2, 6)):
        for i in order:
            cols, rows, few, p = want[i]
            assert reader.columns(cards[i]) == cols
            assert reader.rows(cards[i]) == rows
            assert reader.few(cards[i]) == few
            got = reader.read(cards[i], None, edge=True)
            assert got.rank is p.rank and got.edge == p.edge
            assert np.array_equal(got.shapes, p.shapes)
    found = reader._of(cards[2])[0]
    assert reader._of(cards[2])[0] is found
    assert reader._of(cards[2].copy())[0] is not found  # known by identity


def test_frame_memo_keeps_what_is_made_per_key_for_its_frame() -> None:
    """A value made per frame and key is made once for that frame, again for another
    frame or after ``clear``; keys of different tables do not meet."""
    calls: list[str] = []

    def make(tag: str) -> str:
        calls.append(tag)
        return tag

    a, b = np.zeros((4, 4), np.uint8), np.ones((4, 4), np.uint8)
    memo = FrameMemo()
    assert memo.keyed(a, "t", 1, lambda: make("a1")) == "a1"
    assert memo.keyed(a, "t", 1, lambda: make("x")) == "a1"
    assert memo.keyed(a, "u", 1, lambda: make("u1")) == "u1"
    assert memo.keyed(a, "t", 2, lambda: make("a2")) == "a2"
    assert calls == ["a1", "u1", "a2"]
    assert memo.keyed(b, "t", 1, lambda: make("b1")) == "b1"
    assert memo.keyed(a, "t", 1, lambda: make("a1 again")) == "a1 again"
    memo.clear()
    assert memo.keyed(a, "t", 1, lambda: make("after")) == "after"
    assert calls == ["a1", "u1", "a2", "b1", "a1 again", "after"]


def test_a_quads_card_is_warped_once_while_its_frame_is_read(board_profile: DeckProfile) -> None:
    """While a frame is read, a quad's card is warped once (the same image asked again,
    for the quad as tuples or numpy floats), and it is the card :func:`warp_card` gives;
    a frame not being read is warped each time."""
    frame, _ = SceneCamera(3, random_style(ENROLLED_SEED), strength=1.0).frame(
        [Card.parse(c) for c in ("As", "Td", "7h")])
    rec = Recogniser(board_profile)
    quads = [f.quad for f in locate_cards(frame)]
    assert quads
    rec._memo.of(frame, warp_source)  # as inspect_board starts a frame
    for q in quads:
        card = rec._warp(frame, q)
        assert np.array_equal(card, warp_card(frame, q))
        again = tuple((np.float64(x), np.float64(y)) for x, y in q)
        assert rec._warp(frame, again) is card  # type: ignore[arg-type]
    other = frame.copy()
    assert rec._warp(other, quads[0]) is not rec._warp(other, quads[0])
    rec._memo.clear()
    assert rec._warp(frame, quads[0]) is not rec._warp(frame, quads[0])


class _MakesAgain(FrameMemo):
    """A memo that keeps nothing made per key (each warp made again)."""

    def keyed(self, frame: Image, table: str, key: Hashable, make: Callable[[], T]) -> T:
        return make()


def test_a_card_read_is_the_same_with_its_warps_kept(board_profile: DeckProfile) -> None:
    """A harsh frame read with the warps kept per frame gives what it gives with each warp
    made again (the reads round a refused card warp its quad again)."""
    cam = SceneCamera(3, random_style(ENROLLED_SEED), strength=1.0)
    rec = Recogniser(board_profile)
    for _ in range(3):
        frame, _ = cam.frame(cam.shuffled_deck()[:8])
        kept = rec.inspect_board(frame)
        fresh = Recogniser(board_profile)
        fresh._memo = _MakesAgain()
        assert repr(fresh.inspect_board(frame)) == repr(kept)


def test_one_class_has_no_runner_up() -> None:
    """Exemplars of one class give it with no runner-up (margin and separation 2), as
    ``top2`` did."""
    vecs = np.eye(3, dtype=np.float32)
    ids = np.array([4, 4, 4])
    starts = np.array([0])
    got = top2(vecs, ids, starts, vecs[1], None)
    assert got == _top2_old(vecs, ids, starts, vecs[1], None) == (4, 1.0, 2.0, 2.0)
