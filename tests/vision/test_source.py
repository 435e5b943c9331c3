"""The camera card source end to end: SimCamera frames served through real cv2.VideoCapture
(an image sequence and a Motion-JPEG AVI), read by CameraCardSource."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from hardware_sim.camera import (
    SimCamera,
    random_style,
    write_image_sequence,
    write_mjpeg_avi,
)
from hardware_sim.camera_mjpeg import MjpegServer
from tablectl.clock import ManualClock
from tablectl.domain.cards import Card
from tablectl.vision.decide import DeckGuard, VotePolicy
from tablectl.vision.enrol import Enroller, verify
from tablectl.vision.margins import IndexGate
from tablectl.vision.model import FaceRead, FaceStatus, FrameSourceError
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser
from tablectl.vision.source import (
    CameraCardSource,
    FrameSource,
    MemoryFrames,
    VideoCaptureFrames,
    probe_stream,
)
from tests.conftest import free_port

from .conftest import ENROLLED_SEED, EnrolledDeck


async def _collect(src: CameraCardSource) -> list[FaceRead]:
    async with src:
        return [r async for r in src.reads()]


def _shoe_source(frames: FrameSource, profile: DeckProfile) -> CameraCardSource:
    return CameraCardSource(frames, Recogniser(profile), mode="shoe",
                            guard=DeckGuard(warmup=0))


@pytest.mark.parametrize("container", ["png-sequence", "mjpeg-avi"])
def test_shoe_video_through_videocapture(shoe_deck: EnrolledDeck, tmp_path: Path,
                                         container: str) -> None:
    cam = SimCamera(31, shoe_deck.style, strength=0.8)
    deal = cam.shuffled_deck()[:8]
    frames, truth = cam.shoe_sequence(deal, frames_per_card=5, gap=3)
    if container == "png-sequence":
        url = write_image_sequence(frames, tmp_path / "seq")
    else:
        url = write_mjpeg_avi(frames, tmp_path / "shoe.avi")
    clock = ManualClock()
    reads = asyncio.run(_collect(_shoe_source(VideoCaptureFrames(url, clock), shoe_deck.profile)))
    assert [r.card for r in reads] == [seg.face for seg in truth]
    assert all(r.status is FaceStatus.ACCEPTED for r in reads)
    assert all(r.frames == 5 for r in reads)


def test_shoe_stream_over_http_mjpeg(shoe_deck: EnrolledDeck) -> None:
    """An IP-camera style MJPEG stream on loopback, opened by cv2.VideoCapture (FFmpeg)."""
    cam = SimCamera(36, shoe_deck.style, strength=0.8)
    deal = cam.shuffled_deck()[:4]
    frames, truth = cam.shoe_sequence(deal, frames_per_card=5, gap=3)
    with MjpegServer(frames) as server:
        reads = asyncio.run(_collect(_shoe_source(VideoCaptureFrames(server.url, ManualClock()),
                                                  shoe_deck.profile)))
    assert [r.card for r in reads] == [seg.face for seg in truth]
    assert all(r.status is FaceStatus.ACCEPTED for r in reads)


def test_a_stream_gone_quiet_ends_instead_of_waiting_for_ever(shoe_deck: EnrolledDeck) -> None:
    """An IP camera that keeps its connection open and sends nothing more: its read times
    out and the stream ends (the daemon's camera goes offline and is opened again). Before,
    OpenCV's own 30 s applied; the bound here is a third of that, so the test fails
    without the stream's own timeout."""
    cam = SimCamera(38, shoe_deck.style, strength=0.5)
    deal = cam.shuffled_deck()[:2]
    frames, truth = cam.shoe_sequence(deal, frames_per_card=5, gap=3)

    async def go(url: str) -> list[FaceRead]:
        async with asyncio.timeout(10):
            return await _collect(_shoe_source(
                VideoCaptureFrames(url, ManualClock(), read_timeout=1.0), shoe_deck.profile))

    with MjpegServer(frames, stall=True) as server:
        reads = asyncio.run(go(server.url))
    assert [r.card for r in reads] == [seg.face for seg in truth]


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_a_stream_timeout_must_be_a_positive_number(bad: float) -> None:
    with pytest.raises(ValueError, match="read_timeout"):
        VideoCaptureFrames("rtsp://camera.local/stream", read_timeout=bad)
    with pytest.raises(ValueError, match="open_timeout"):
        VideoCaptureFrames("rtsp://camera.local/stream", open_timeout=bad)


def test_back_to_back_cards_without_an_empty_frame(shoe_deck: EnrolledDeck) -> None:
    """The presence trigger cannot see a gap that is not there; a confident read of another
    card still starts a new decision."""
    cam = SimCamera(37, shoe_deck.style, strength=0.5)
    deal = cam.shuffled_deck()[:4]
    frames, truth = cam.shoe_sequence(deal, frames_per_card=4, gap=0)
    empty = cam.shoe_frame(None)  # the trigger's reference: the slot is empty at start
    src = CameraCardSource(MemoryFrames([empty, *frames]), Recogniser(shoe_deck.profile),
                           mode="shoe", policy=VotePolicy(min_frames=2, max_frames=3),
                           guard=DeckGuard(warmup=0))
    reads = asyncio.run(_collect(src))
    assert [r.card for r in reads] == deal
    assert [r.status for r in reads] == [FaceStatus.ACCEPTED] * 4
    assert len(truth) == 4


def test_the_shoe_asks_each_cards_index_only_gate(shoe_deck: EnrolledDeck) -> None:
    """A card enrolment found too close to another to tell by its index alone (its gate's
    margin None) is never accepted from the shoe, which sees no face; the others are."""
    cam = SimCamera(38, shoe_deck.style, strength=0.5)
    deal = cam.shuffled_deck()[:3]
    assert shoe_deck.profile.two_kinds and deal[1] in shoe_deck.profile.gates
    gate = shoe_deck.profile.gates[deal[1]]
    strict = replace(shoe_deck.profile, gates={
        **shoe_deck.profile.gates, deal[1]: IndexGate(gate.rival, gate.closeness, None)})
    frames, _ = cam.shoe_sequence(deal, frames_per_card=4, gap=3)
    reads = asyncio.run(_collect(_shoe_source(MemoryFrames(frames), strict)))
    assert [r.card for r in reads] == deal
    assert [r.status for r in reads] == [FaceStatus.ACCEPTED, FaceStatus.NEEDS_CONFIRMATION,
                                         FaceStatus.ACCEPTED]


def test_unopenable_capture_is_a_clear_error(tmp_path: Path) -> None:
    async def enter() -> None:
        async with VideoCaptureFrames(str(tmp_path / "missing.avi")):
            pass

    with pytest.raises(FrameSourceError, match=r"missing\.avi"):
        asyncio.run(enter())


def test_same_card_twice_in_a_hand_goes_to_the_dealer(shoe_deck: EnrolledDeck) -> None:
    cam = SimCamera(32, shoe_deck.style, strength=0.5)
    ace, king = Card.parse("As"), Card.parse("Kd")
    frames, _ = cam.shoe_sequence([ace, king, ace], frames_per_card=4, gap=2)

    async def run() -> tuple[list[FaceRead], list[FaceRead]]:
        src = _shoe_source(MemoryFrames(frames + frames), shoe_deck.profile)
        first: list[FaceRead] = []
        second: list[FaceRead] = []
        async with src:
            async for r in src.reads():
                (first if len(first) < 3 else second).append(r)
                if len(first) == 3 and not second:
                    src.new_hand()
        return first, second

    first, second = asyncio.run(run())
    assert [(r.card, r.status) for r in first] == [
        (ace, FaceStatus.ACCEPTED), (king, FaceStatus.ACCEPTED),
        (ace, FaceStatus.NEEDS_CONFIRMATION)]
    assert [r.status for r in second] == [FaceStatus.ACCEPTED, FaceStatus.ACCEPTED,
                                          FaceStatus.NEEDS_CONFIRMATION]


def test_guard_warmup_delays_the_first_auto_accepts(shoe_deck: EnrolledDeck) -> None:
    cam = SimCamera(33, shoe_deck.style, strength=0.5)
    deal = cam.shuffled_deck()[:5]
    frames, _ = cam.shoe_sequence(deal, frames_per_card=4, gap=2)
    src = CameraCardSource(MemoryFrames(frames), Recogniser(shoe_deck.profile), mode="shoe",
                           guard=DeckGuard(warmup=3))
    reads = asyncio.run(_collect(src))
    assert [r.card for r in reads] == deal
    assert [r.status for r in reads] == [FaceStatus.NEEDS_CONFIRMATION] * 2 + [
        FaceStatus.ACCEPTED] * 3


def test_board_video_one_read_per_card(tmp_path: Path) -> None:
    style = random_style(ENROLLED_SEED)
    enrol_cam = SimCamera(34, style, strength=0.4)
    enroller = Enroller("board", "board")
    deal = enrol_cam.shuffled_deck()[:5]
    for card in deal:
        enroller.add(enrol_cam.board_frame([card], card_width=(120, 140))[0], card)
    samples = [(str(c), enrol_cam.board_frame([c], card_width=(120, 140))[0], c)
               for c in deal]
    # A partial enrolment cannot build a profile (every rank and suit is required), so
    # enrol the rest of the deck too, once each.
    for card in enrol_cam.shuffled_deck():
        if card not in deal:
            enroller.add(enrol_cam.board_frame([card], card_width=(120, 140))[0], card)
    profile, report = verify(enroller.build(), samples, "board")
    assert report.passed, report.failures
    cam = SimCamera(35, style, strength=0.8)
    frames, truth = cam.board_sequence(deal, frames=8, card_width=(120, 140))
    url = write_mjpeg_avi(frames, tmp_path / "board.avi")
    src = CameraCardSource(VideoCaptureFrames(url, ManualClock()), Recogniser(profile),
                           mode="board", policy=VotePolicy(min_frames=3, max_frames=5),
                           guard=DeckGuard(warmup=0))
    reads = asyncio.run(_collect(src))
    assert sorted(str(r.card) for r in reads) == sorted(str(c) for c in deal)
    assert all(r.status is FaceStatus.ACCEPTED and r.frames == 5 for r in reads)
    assert all(r.quad is not None for r in reads)
    assert len(truth) == len(deal)


def test_frames_of_any_format_are_read_and_frames_without_a_picture_skipped(
        shoe_deck: EnrolledDeck) -> None:
    """A camera in a 16-bit, BGRA or float mode is read as 8-bit BGR; a frame with no picture
    (no pixels, five channels, not numbers) is skipped and counted. Before, each of these
    raised out of the reader and ended the camera."""
    import numpy as np

    cam = SimCamera(39, shoe_deck.style, strength=0.5)
    deal = cam.shuffled_deck()[:3]
    frames, _ = cam.shoe_sequence(deal, frames_per_card=5, gap=3)
    kinds = [lambda f: f.astype(np.uint16) * 257,
             lambda f: np.dstack([f, np.full(f.shape[:2], 255, np.uint8)]),
             lambda f: f.astype(np.float32) / 255.0]
    odd = [kinds[i % 3](f) for i, f in enumerate(frames)]
    junk = [np.zeros((0, 0, 3), np.uint8), np.zeros((20, 20, 5), np.uint8),
            np.zeros((8, 8), object)]
    src = _shoe_source(MemoryFrames([*junk, *odd]), shoe_deck.profile)
    reads = asyncio.run(_collect(src))
    assert [r.card for r in reads] == deal
    assert all(r.status is FaceStatus.ACCEPTED for r in reads)
    assert src.bad_frames == len(junk)


class _FailsOnce(Recogniser):
    """The real recogniser, whose read of the ``n``-th frame raises (a reader bug met on
    some frame's pixels)."""

    def __init__(self, profile: DeckProfile, n: int) -> None:
        super().__init__(profile)
        self.calls, self.n = 0, n

    def read_shoe_window(self, window):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.calls == self.n:
            raise ValueError("a fault on these pixels")
        return super().read_shoe_window(window)


def test_a_read_that_fails_costs_one_frame_not_the_camera(
        shoe_deck: EnrolledDeck, caplog: pytest.LogCaptureFixture) -> None:
    cam = SimCamera(40, shoe_deck.style, strength=0.5)
    deal = cam.shuffled_deck()[:3]
    frames, _ = cam.shoe_sequence(deal, frames_per_card=6, gap=3)
    src = CameraCardSource(MemoryFrames(frames), _FailsOnce(shoe_deck.profile, 2),
                           mode="shoe", guard=DeckGuard(warmup=0))
    reads = asyncio.run(_collect(src))
    assert [r.card for r in reads] == deal
    assert src.bad_frames == 1
    assert "a fault on these pixels" in caplog.text


def test_a_network_camera_is_probed_with_one_frame_and_its_password_never_shown(
        tmp_path: Path) -> None:
    """What `tablectl doctor` asks of a network camera: it opens and sends a frame within the
    camera source's timeouts; a camera that opens and sends nothing, or is not there, fails
    with a message that shows the URL without its password."""
    from tablectl.doctor import Status, check_camera_stream

    frame = np.random.default_rng(39).integers(0, 256, (120, 160, 3), dtype=np.uint8)
    with MjpegServer([frame]) as server:
        assert probe_stream(server.url) == (frame.shape[1], frame.shape[0])
        good = server.url.replace("http://", "http://tech:s3cret@")
        check = check_camera_stream("board", good)
        assert check.status is Status.OK
        assert "s3cret" not in check.detail and "tech:***@" in check.detail
    # a server that answers and never sends a frame
    with (MjpegServer([], stall=True) as server,
          pytest.raises(FrameSourceError, match=r"cannot open|sent no frame")):
        probe_stream(server.url, open_timeout=2.0, read_timeout=1.0)
    gone = f"http://tech:s3cret@127.0.0.1:{free_port()}/stream.mjpg"
    with pytest.raises(FrameSourceError, match="cannot open") as err:
        probe_stream(gone)
    assert "s3cret" not in str(err.value) and err.value.url == gone
    check = check_camera_stream("board", gone)
    assert check.status is Status.FAIL and "s3cret" not in check.detail


@pytest.mark.parametrize("url", ["http://127.0.0.1:1/a\x00b", "http://127.0.0.1:1/\u202ex",
                                 "rtsp://127.0.0.1:1/" + "a" * 1_000_000])
def test_a_hostile_camera_url_is_refused_in_one_short_ascii_line(url: str) -> None:
    with pytest.raises(FrameSourceError, match="cannot open") as err:
        probe_stream(url, open_timeout=2.0, read_timeout=1.0)
    text = str(err.value)
    assert text.isascii() and text.isprintable() and len(text) < 250, text[:300]
    assert err.value.url == url


def test_a_stream_timeout_past_what_opencv_takes_is_clamped_not_a_crash() -> None:
    # OpenCV takes int32 milliseconds; 2**64 seconds once ended in cv2.error
    with pytest.raises(FrameSourceError, match="cannot open"):
        probe_stream(f"http://127.0.0.1:{free_port()}/x", open_timeout=2.0**64,
                     read_timeout=1e300)
