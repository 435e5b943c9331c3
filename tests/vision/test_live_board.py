"""A live camera's board frames, each read with bounded work (tablectl/vision/liveboard.py).

Frames from the harsh table renderer with the session's enrolled deck: frames 0 and 2 of
the scene camera below are settled by their first reads; 1 and 3 lay cards over each other,
where the corner search finds cards the first reads do not.
"""

from __future__ import annotations

import asyncio
import logging
import threading

import numpy as np
import pytest

from hardware_sim.camera import random_style
from hardware_sim.camera_scene import SceneCamera
from tablectl.domain.cards import Card
from tablectl.vision.decide import DeckGuard, VotePolicy
from tablectl.vision.firstpass import FirstPass, quad_centre
from tablectl.vision.indexread import IndexRead
from tablectl.vision.liveboard import (
    FRAME_READS,
    LiveBoard,
    LiveRead,
    between_looks,
    same_place,
    same_scene,
)
from tablectl.vision.locate import Found
from tablectl.vision.model import FaceRead, FaceStatus, Image, Quad
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser
from tablectl.vision.source import CameraCardSource, MemoryFrames
from tablectl.vision.stillness import Stillness
from tests.vision.conftest import ENROLLED_SEED

Reads = list[tuple[Quad, IndexRead]]


@pytest.fixture(scope="module")
def frames() -> list[Image]:
    cam = SceneCamera(11, random_style(ENROLLED_SEED), strength=1.0)
    return [cam.frame(cam.shuffled_deck()[:6], overlap=i % 2 == 1)[0] for i in range(4)]


def _pairs(reads: list[LiveRead]) -> Reads:
    return [(r.quad, r.read) for r in reads]


def _looked(lb: LiveBoard, frame: Image, most: int = 200) -> tuple[list[list[LiveRead]], int]:
    """Read ``frame`` until its further looks end: every frame's reads, and how many
    frames that took."""
    done = lb.looks_done
    out = []
    for n in range(1, most + 1):
        out.append(lb.read(frame))
        if lb.looks_done > done:
            return out, n
    raise AssertionError(f"the further looks did not end in {most} frames")


def _every_frame_read(profile: DeckProfile, **kw: int) -> LiveBoard:
    """A LiveBoard that finds and reads every frame afresh (none taken for still): these
    tests read one frame again and again to follow the further looks frame by frame."""
    return LiveBoard(profile, stillness=Stillness(noise_levels=-1.0), **kw)


def _looks_threads() -> int:
    return sum(t.name == "tablectl-further-looks" for t in threading.enumerate())


def test_a_settled_frame_reports_what_the_whole_read_does(
        board_profile: DeckProfile, frames: list[Image]) -> None:
    rec = Recogniser(board_profile)
    lb = LiveBoard(board_profile)
    for f in (frames[0], frames[2]):
        assert rec.first_pass(f) is not None and rec.first_pass(f).settled is not None
        got = lb.read(f)
        assert _pairs(got) == rec.inspect_board(f)
        assert all(r.fresh for r in got)
        assert sum(r.read.status is FaceStatus.ACCEPTED for r in got) >= 5
    assert lb.looks_done == 0 and lb.looks_reads == 0


def test_the_further_looks_end_in_what_the_whole_read_reports(
        board_profile: DeckProfile, frames: list[Image]) -> None:
    rec = Recogniser(board_profile)
    lb = LiveBoard(board_profile)
    try:
        for f in (frames[1], frames[3]):
            whole = rec.inspect_board(f)
            fp = rec.first_pass(f)
            assert fp is not None and fp.settled is None
            first = list(fp.reported)
            reads, n = _looked(lb, f)
            assert n >= 2  # the scene's first frame only starts them
            assert _pairs(reads[-1]) == whole
            assert all(r.fresh for r in reads[-1])
            # before: the frame's own first reads, the unsure ones no news yet
            assert _pairs(reads[0]) == first
            assert [r.fresh for r in reads[0]] == [
                r.status is FaceStatus.ACCEPTED for _, r in first]
            # the looks found cards the first reads did not
            assert ({r.card for _, r in whole if r.status is FaceStatus.ACCEPTED}
                    - {r.card for _, r in first if r.status is FaceStatus.ACCEPTED})
    finally:
        lb.close()


def test_between_looks_the_cards_are_the_looks_and_news_only_what_is_new(
        board_profile: DeckProfile, frames: list[Image]) -> None:
    rec = Recogniser(board_profile)
    lb = _every_frame_read(board_profile)
    try:
        f = frames[1]
        reads, _ = _looked(lb, f)
        looked = _pairs(reads[-1])
        first = list(rec.first_pass(f).reported)
        after = lb.read(f)  # the next looks under way
        assert [(r.quad, r.read) for r in after] == [(r.quad, r.read) for r in
                                                    between_looks(first, looked)]
        # the same frame again: every card where the looks put it; news only where the
        # first read is accepted or the looks read no better
        assert [quad_centre(r.quad) for r in after] == [quad_centre(q) for q, _ in looked]
        for r, (_, lr) in zip(after, looked, strict=True):
            assert r.fresh == ((r.quad, r.read) in first)
            if not r.fresh:
                assert r.read == lr and lr.card is not None
        assert any(not r.fresh for r in after) and any(r.fresh for r in after)
    finally:
        lb.close()


def _quad(x: float, y: float, w: float = 100, h: float = 140) -> Quad:
    return ((x, y), (x + w, y), (x + w, y + h), (x, y + h))


def _r(card: str | None, status: FaceStatus, confidence: float = 0.9) -> IndexRead:
    return IndexRead(None if card is None else Card.parse(card), status, confidence)


def test_between_looks_rules() -> None:
    acc, unsure, none = FaceStatus.ACCEPTED, FaceStatus.NEEDS_CONFIRMATION, FaceStatus.NO_CARD
    two = _quad(100, 100, 180, 200)  # an outline of two cards over each other
    first = [(_quad(0, 0), _r("As", acc)), (two, _r("Kd", unsure, 0.6)),
             (_quad(500, 0), _r(None, none, 0.0)), (_quad(700, 0), _r("2c", unsure, 0.5)),
             (_quad(900, 0), _r("3h", acc))]
    # before any looks end: the first reads; news only where accepted
    got = between_looks(first, None)
    assert [(g.quad, g.read) for g in got] == first
    assert [g.fresh for g in got] == [True, False, False, False, True]
    kd, qs = _quad(104, 96), _quad(170, 150)
    last = [(_quad(2, 1), _r("As", acc)), (kd, _r("Kd", acc)), (qs, _r("Qs", acc)),
            (_quad(501, 1), _r("5c", unsure, 0.7)), (_quad(701, 0), _r("2c", unsure, 0.4))]
    got = between_looks(first, last)
    assert [(g.quad, g.read, g.fresh) for g in got] == [
        (_quad(0, 0), first[0][1], True),  # accepted in this frame: news
        (kd, last[1][1], False),  # the looks split the outline: their reads, no news
        (qs, last[2][1], False),
        (_quad(501, 1), last[3][1], False),  # the looks named a card, the first read none
        (_quad(700, 0), first[3][1], True),  # the looks read no better: this frame's read
        (_quad(900, 0), first[4][1], True)]  # accepted where the looks found nothing
    assert same_place(_quad(0, 0), _quad(5, 5)) and same_place(two, kd)
    assert not same_place(_quad(0, 0), _quad(500, 0))


def test_each_frame_makes_a_bounded_share_of_the_looks(
        board_profile: DeckProfile, frames: list[Image]) -> None:
    """With no room left in a frame, the looks make their least share on each frame."""
    rec = Recogniser(board_profile)
    lb = _every_frame_read(board_profile, frame_reads=1)
    shares = []
    try:
        lb.read(frames[3])
        assert lb.looks_reads == 0  # a new scene: its first pass is the frame's work
        done = lb.looks_done
        while lb.looks_done == done:
            out = lb.read(frames[3])
            shares.append(lb.looks_reads)
            assert lb.first_reads >= 6  # a read, or more, of each card outline
        assert _pairs(out) == rec.inspect_board(frames[3])  # the same result, later
        assert max(shares[:-1]) == 1 and len(shares) > 20
    finally:
        lb.close()


def test_a_new_scene_drops_the_looks_of_the_last(
        board_profile: DeckProfile, frames: list[Image]) -> None:
    rec = Recogniser(board_profile)
    lb = LiveBoard(board_profile, frame_reads=1)
    before = _looks_threads()
    try:
        lb.read(frames[1])
        lb.read(frames[1])
        assert _looks_threads() == before + 1
        got = lb.read(frames[3])  # another scene: its first reads, the old looks ended
        assert _pairs(got) == list(rec.first_pass(frames[3]).reported)
        assert _looks_threads() == before + 1
        assert lb.looks_done == 0
        # a settled frame of another scene ends them too, and starts none
        assert _pairs(lb.read(frames[0])) == rec.inspect_board(frames[0])
        assert _looks_threads() == before
    finally:
        lb.close()
    assert _looks_threads() == before


def test_a_fault_in_the_further_looks_costs_their_result_not_the_camera(
        board_profile: DeckProfile, frames: list[Image], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    rec = Recogniser(board_profile)
    lb = LiveBoard(board_profile)

    def broken(self: Recogniser, fp: object) -> Reads:
        raise RuntimeError("a fault in the looks")

    monkeypatch.setattr(Recogniser, "further_looks", broken)
    try:
        with caplog.at_level(logging.WARNING, "tablectl.vision.liveboard"):
            reads, _ = _looked(lb, frames[1])
        assert lb.faults == 1
        assert "further looks failed" in caplog.text
        assert _pairs(reads[-1]) == list(rec.first_pass(frames[1]).reported)
        monkeypatch.undo()
        reads, _ = _looked(lb, frames[3])  # the next scene is looked at as usual
        assert _pairs(reads[-1]) == rec.inspect_board(frames[3])
    finally:
        lb.close()


def test_no_picture_is_no_card_and_keeps_the_scene(
        board_profile: DeckProfile, frames: list[Image]) -> None:
    lb = LiveBoard(board_profile)
    try:
        lb.read(frames[1])
        assert lb.read(frames[1][:4, :4]) == []
        reads, _ = _looked(lb, frames[1])
        assert _pairs(reads[-1]) == Recogniser(board_profile).inspect_board(frames[1])
    finally:
        lb.close()


def test_at_least_one_read_a_frame(board_profile: DeckProfile) -> None:
    with pytest.raises(ValueError, match="frame_reads must be at least 1, got 0"):
        LiveBoard(board_profile, frame_reads=0)
    with pytest.raises(ValueError, match="frame_reads must be at least 1, got -3"):
        CameraCardSource(MemoryFrames([]), Recogniser(board_profile), mode="board",
                         frame_reads=-3)


@pytest.mark.parametrize("frame_reads", [None, 64])
def test_the_board_source_votes_a_card_only_the_looks_find_once_per_look(
        board_profile: DeckProfile, frames: list[Image], frame_reads: int | None) -> None:
    """A camera held on one scene of cards lying over each other: a card only the further
    looks find is decided on three looks' reads, at the frame the third ends, not three
    frames after the first (its reads between are the same look's, shown again)."""
    rec = Recogniser(board_profile)
    f = frames[1]
    n = 90
    # the source's LiveBoard stops reading a still frame after its vote's max_frames
    lb = LiveBoard(board_profile, FRAME_READS if frame_reads is None else frame_reads,
                   still_reads=3)
    ends = []
    try:
        for i in range(n):
            done = lb.looks_done
            lb.read(f)
            if lb.looks_done > done:
                ends.append(i)
    finally:
        lb.close()
    assert len(ends) >= 3 and ends[0] >= 1
    first = {r.card for _, r in list(rec.first_pass(f).reported)
             if r.status is FaceStatus.ACCEPTED}
    only = {r.card for _, r in rec.inspect_board(f) if r.status is FaceStatus.ACCEPTED} - first
    fps = 30.0
    src = CameraCardSource(MemoryFrames([f] * n, fps=fps), Recogniser(board_profile),
                           mode="board", policy=VotePolicy(min_frames=3, max_frames=3),
                           guard=DeckGuard(warmup=0), frame_reads=frame_reads)

    async def collect() -> list[FaceRead]:
        async with src:
            return [r async for r in src.reads()]

    reads = asyncio.run(collect())
    decided = {r.card: r for r in reads if r.card in only}
    assert set(decided) == only
    for r in decided.values():
        assert r.status is FaceStatus.ACCEPTED and r.frames == 3
        assert r.frame_time == pytest.approx(ends[2] / fps)


def _pass(*cards: tuple[Quad, IndexRead], extra: tuple[Quad, ...] = ()) -> FirstPass:
    """A first pass whose outlines are ``cards``' quads and ``extra`` (read as nothing)."""
    located = tuple(Found(q, False, 1.0) for q, _ in cards) + tuple(
        Found(q, False, 1.0) for q in extra)
    first = tuple((f, (f.quad, r)) for f, (_, r) in zip(located, cards, strict=False))
    empty = np.zeros((4, 4, 3), np.uint8)
    return FirstPass(empty, located, first, None, tuple(cards), ({}, {}))


def test_a_scene_is_told_by_its_accepted_cards() -> None:
    acc, unsure = FaceStatus.ACCEPTED, FaceStatus.NEEDS_CONFIRMATION
    a = _pass((_quad(0, 0), _r("As", acc)), (_quad(300, 0), _r("Kd", unsure)))
    # the same cards, outlines moved by a shadow's width, a speck of table found as well,
    # the unsure card read as another card, or not at all
    assert same_scene(a, _pass((_quad(3, -2, 104, 143), _r("As", acc)),
                               (_quad(300, 0), _r("Kh", unsure)), extra=(_quad(600, 0, 20, 20),)))
    assert same_scene(a, _pass((_quad(0, 0), _r("As", acc))))
    assert same_scene(a, _pass((_quad(0, 0), _r("As", unsure)), (_quad(300, 0), _r("Kd", acc))))
    # a card taken away, put down, or another card where one lay: another scene
    assert not same_scene(a, _pass((_quad(300, 0), _r("Kd", unsure))))
    assert not same_scene(a, _pass((_quad(0, 0), _r("As", acc)), (_quad(600, 0), _r("2c", acc))))
    assert not same_scene(a, _pass((_quad(0, 0), _r("Ah", acc)), (_quad(300, 0), _r("Kd", unsure))))
    # an unsure read where a card was accepted keeps the scene only while an outline is there
    assert not same_scene(a, _pass((_quad(300, 0), _r("Kd", unsure)), extra=(_quad(900, 0),)))
