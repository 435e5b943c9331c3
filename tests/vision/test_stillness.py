"""A frame that still shows what the frame its cards were found on did
(tablectl/vision/stillness.py), and a live camera's reads of such frames
(tablectl/vision/liveboard.py): noise holds, any change of the cards does not.

Frames from the harsh table renderer with the session's enrolled deck; two renderers of
one seed lay the same cards at the same places, so a card can be swapped for another at
exactly its place (the smallest change a dealer can make to a card lying on the table).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import cv2
import numpy as np
import pytest

from hardware_sim.camera import BoardTruth, random_style
from hardware_sim.camera_scene import SceneCamera
from tablectl.domain.cards import Card
from tablectl.vision.decide import DeckGuard, VotePolicy
from tablectl.vision.indexread import IndexRead
from tablectl.vision.liveboard import STILL_READS, LiveBoard, LiveRead
from tablectl.vision.model import FaceRead, FaceStatus, Image, Quad
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser
from tablectl.vision.source import CameraCardSource, MemoryFrames
from tablectl.vision.stillness import NOISE_LEVELS, Stillness, small_picture
from tests.vision.conftest import ENROLLED_SEED


def _scene(faces: list[Card], seed: int = 11) -> tuple[Image, list[BoardTruth]]:
    cam = SceneCamera(seed, random_style(ENROLLED_SEED), strength=1.0)
    cam.shuffled_deck()
    frame, truth = cam.frame(faces)
    return frame, list(truth)


@pytest.fixture(scope="module")
def deck() -> list[Card]:
    cam = SceneCamera(11, random_style(ENROLLED_SEED), strength=1.0)
    return cam.shuffled_deck()


def _noisy(frame: Image, rng: np.random.Generator, sigma: float) -> Image:
    noise = rng.normal(0, sigma, frame.shape).astype(np.int16)
    return np.asarray(cv2.add(frame, noise, dtype=cv2.CV_8U))


def _accepted(reads: list[tuple[Quad, IndexRead]]) -> list[Card | None]:
    return sorted((r.card for _, r in reads if r.status is FaceStatus.ACCEPTED), key=str)


@pytest.mark.parametrize("sigma", [2.0, 6.0])
def test_a_cameras_noise_is_still(deck: list[Card], sigma: float) -> None:
    frame, _ = _scene(deck[:6])
    rng = np.random.default_rng(3)
    still = Stillness()
    assert not still.holds(_noisy(frame, rng, sigma))  # nothing kept: this one is kept
    assert all(still.holds(_noisy(frame, rng, sigma)) for _ in range(30))


def test_a_card_swapped_at_its_very_place_is_not_still(deck: list[Card]) -> None:
    frame, truth = _scene(deck[:6])
    for other in deck[6:12]:
        swapped, truth2 = _scene([other, *deck[1:6]])
        assert [t.quad for t in truth2] == [t.quad for t in truth]
        still = Stillness()
        still.holds(frame)
        assert not still.holds(swapped), other


def test_a_card_moved_one_pixel_is_not_still(deck: list[Card]) -> None:
    frame, truth = _scene(deck[:6])
    for t in truth:
        xs = [p[0] for p in t.quad]
        ys = [p[1] for p in t.quad]
        x0, x1 = max(int(min(xs)) - 4, 0), min(int(max(xs)) + 5, frame.shape[1])
        y0, y1 = max(int(min(ys)) - 4, 0), min(int(max(ys)) + 5, frame.shape[0])
        moved = frame.copy()
        moved[y0:y1, x0 + 1:x1] = frame[y0:y1, x0:x1 - 1]   # the card and its edge, 1 px right
        still = Stillness()
        still.holds(frame)
        assert not still.holds(moved)


def test_a_slow_drift_is_measured_from_the_frame_kept_not_the_last(
        deck: list[Card]) -> None:
    frame, _ = _scene(deck[:6])
    still = Stillness()
    still.holds(frame)
    seen = []
    for step in range(1, 12):
        drifted = np.asarray(cv2.add(frame, np.full_like(frame, step)))  # a level a frame
        seen.append(still.holds(drifted))
    k = int(NOISE_LEVELS)
    assert seen[:k] == [True] * k      # each frame a level from the last, none too far yet
    assert not seen[k]                  # 7 levels from the kept frame: found afresh
    assert all(seen[k + 1:k + 1 + k])   # measured from the frame kept in its place


@pytest.mark.parametrize("make", [
    lambda f: f[:, :-8],                          # another size
    lambda f: cv2.cvtColor(f, cv2.COLOR_BGR2GRAY),  # another kind of picture
    lambda f: np.zeros((4, 4, 3), np.uint8),       # smaller than a cell
    lambda f: f.astype(np.float32),                # another depth
    lambda f: np.full(f.shape, np.nan, np.float32),  # no numbers
])
def test_another_picture_is_not_still(deck: list[Card],
                                      make: Callable[[Image], Image]) -> None:
    frame, _ = _scene(deck[:6])
    still = Stillness()
    still.holds(frame)
    assert not still.holds(make(frame))
    assert small_picture(np.zeros((4, 4, 3), np.uint8)).size == 0


def test_no_picture_is_never_still_and_ends_nothing(board_profile: DeckProfile,
                                                    deck: list[Card]) -> None:
    nan = np.full((64, 64, 3), np.nan, np.float32)
    still = Stillness()
    assert not still.holds(nan) and not still.holds(nan)   # NaN equals nothing
    assert not still.holds(np.zeros((64, 64, 3), bool))    # no picture OpenCV shrinks
    frame, _ = _scene(deck[:6])
    lb = LiveBoard(board_profile)
    try:
        for junk in (nan, np.zeros((64, 64, 3), bool), np.zeros((0, 0, 3), np.uint8)):
            assert lb.read(junk) == []
        assert lb.read(frame) and lb.found_again
    finally:
        lb.close()


def test_below_zero_nothing_is_still(deck: list[Card]) -> None:
    frame, _ = _scene(deck[:6])
    still = Stillness(noise_levels=-1.0)
    assert not any(still.holds(frame) for _ in range(3))


def test_live_reads_of_a_still_scene_read_every_frame_where_the_cards_lay(
        board_profile: DeckProfile, deck: list[Card]) -> None:
    """The finder runs on the scene's first frame only; every frame's cards are read on it
    (each frame's own read: what reading it whole accepts), and a card swapped at its very
    place is found afresh and read as the new card."""
    rec = Recogniser(board_profile)
    frame, _ = _scene(deck[:6])
    rng = np.random.default_rng(5)
    lb = LiveBoard(board_profile)
    try:
        afresh = []
        for _ in range(6):
            f = _noisy(frame, rng, 2.0)
            got = lb.read(f)
            afresh.append(lb.found_again)
            whole = rec.inspect_board(f)
            assert _accepted([(r.quad, r.read) for r in got]) == _accepted(whole)
            assert len(_accepted(whole)) >= 5
        assert afresh == [True] + [False] * 5
        swapped, _ = _scene([deck[20], *deck[1:6]])
        got = lb.read(_noisy(swapped, rng, 2.0))
        assert lb.found_again
        cards = _accepted([(r.quad, r.read) for r in got])
        assert deck[20] in cards and deck[0] not in cards
    finally:
        lb.close()


def test_a_still_settled_board_is_read_only_as_long_as_a_vote_needs(
        board_profile: DeckProfile, deck: list[Card]) -> None:
    """Six frames alike are read (the first found afresh); the still frames after them are
    not read at all and report the same cards as no news; any change (a card swapped at its
    very place) is read again, and its frames count from one."""
    frame, _ = _scene(deck[:6])
    rng = np.random.default_rng(9)
    lb = LiveBoard(board_profile, still_reads=STILL_READS)
    try:
        got = [lb.read(_noisy(frame, rng, 2.0)) for _ in range(STILL_READS + 4)]
        unread = [g for g in got if not any(r.fresh for r in g)]
        assert len(unread) == 4 and lb.unread and not lb.found_again
        assert all(r.fresh for g in got[:STILL_READS] for r in g)
        cards = _accepted([(r.quad, r.read) for r in got[STILL_READS - 1]])
        assert len(cards) >= 5
        for g in unread:
            assert _accepted([(r.quad, r.read) for r in g]) == cards
            assert [(r.quad, r.read) for r in g] == [(r.quad, r.read)
                                                    for r in got[STILL_READS - 1]]
        swapped, _ = _scene([deck[20], *deck[1:6]])
        after = [lb.read(_noisy(swapped, rng, 2.0)) for _ in range(3)]
        assert all(r.fresh for g in after for r in g) and not lb.unread
        assert deck[20] in _accepted([(r.quad, r.read) for r in after[-1]])
    finally:
        lb.close()


def test_a_still_board_through_the_camera_source_decides_each_card_once(
        board_profile: DeckProfile, deck: list[Card]) -> None:
    """A board camera held on one settled scene for 40 frames: each card is decided once,
    accepted, on the vote's six frames (the frames not read keep its track alive and add
    nothing)."""
    frame, _ = _scene(deck[:6])
    rng = np.random.default_rng(4)
    frames = [_noisy(frame, rng, 2.0) for _ in range(40)]
    whole = _accepted(Recogniser(board_profile).inspect_board(frames[0]))
    src = CameraCardSource(MemoryFrames(frames, fps=30.0), Recogniser(board_profile),
                           mode="board", policy=VotePolicy(min_frames=3, max_frames=6),
                           guard=DeckGuard(warmup=0))

    async def collect() -> list[FaceRead]:
        async with src:
            return [r async for r in src.reads()]

    reads = asyncio.run(collect())
    assert sorted((r.card for r in reads), key=str) == whole
    assert all(r.status is FaceStatus.ACCEPTED and r.frames == 6 for r in reads)


def test_still_reads_below_one_is_refused(board_profile: DeckProfile) -> None:
    with pytest.raises(ValueError, match="still_reads"):
        LiveBoard(board_profile, still_reads=0)


def test_a_still_scene_with_looks_under_way_gives_them_the_frames_not_read(
        board_profile: DeckProfile) -> None:
    """Cards lying over each other, held still: after the frames read alike, a frame is not
    read (no first pass) and the further looks make its whole share, so they end in fewer
    frames than where every frame is read; their result is still the whole read's, and what
    the frames between report is no news."""
    cam = SceneCamera(11, random_style(ENROLLED_SEED), strength=1.0)
    cam.shuffled_deck()
    cam.frame(cam.shuffled_deck()[:6])
    frame = cam.frame(cam.shuffled_deck()[:6], overlap=True)[0]
    rec = Recogniser(board_profile)
    assert rec.first_pass(frame).settled is None  # type: ignore[union-attr]
    whole = rec.inspect_board(frame)

    work: list[tuple[bool, int, int]] = []  # per frame: not read, first pass's, looks'

    def until_looked(lb: LiveBoard) -> tuple[int, list[LiveRead], list[list[LiveRead]]]:
        got = []
        work.clear()
        for n in range(1, 400):
            got.append(lb.read(frame))
            work.append((lb.unread, lb.first_reads, lb.looks_reads))
            if lb.looks_done:
                return n, got[-1], got
        raise AssertionError("the looks did not end")

    still = LiveBoard(board_profile, frame_reads=4)
    every = LiveBoard(board_profile, frame_reads=4, stillness=Stillness(noise_levels=-1.0))
    try:
        n_still, last, seen = until_looked(still)
        still_work = list(work)
        n_every, last_every, _ = until_looked(every)
    finally:
        still.close()
        every.close()
    assert [(r.quad, r.read) for r in last] == whole == [(r.quad, r.read)
                                                          for r in last_every]
    assert n_still > STILL_READS and n_still < n_every
    unread = seen[STILL_READS:-1]
    assert unread and all(not r.fresh for g in unread for r in g)
    assert [w[0] for w in still_work] == [False] * STILL_READS + [True] * (n_still
                                                                         - STILL_READS)
    assert all(first == 0 and 1 <= looks <= 4 for _, first, looks in still_work[STILL_READS:])
    assert all(looks == 4 for _, _, looks in still_work[STILL_READS:-1])  # the whole share
    assert all(first >= 6 for _, first, _ in still_work[:STILL_READS])
