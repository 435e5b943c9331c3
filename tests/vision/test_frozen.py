"""A frozen camera feed (the same picture, to the bit, for seconds) is a camera offline; a
still scene, a dark or blank picture and a capture that fills one buffer again are not."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from hardware_sim.camera import SimCamera
from tablectl.clock import ManualClock
from tablectl.controller.inputs import DeviceStatus
from tablectl.sources.camera import CameraSource
from tablectl.vision.decide import DeckGuard, VotePolicy
from tablectl.vision.frozen import FLAT_LEVEL, FROZEN_SECONDS, FrozenFeed
from tablectl.vision.model import FaceRead, FrameSourceError, Image
from tablectl.vision.recognise import Recogniser
from tablectl.vision.source import CameraCardSource, MemoryFrames

from .conftest import EnrolledDeck, events_until_reads

FPS = 32.0


def _scene(seed: int = 1) -> Image:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)


def _first_frozen(feed: FrozenFeed, frames: list[Image], fps: float = FPS) -> int | None:
    """Index of the first frame the feed calls frozen, or None."""
    for i, image in enumerate(frames):
        if feed.update(image, i / fps):
            return i
    return None


def test_the_same_picture_is_frozen_after_the_limit_and_not_before() -> None:
    scene = _scene()
    feed = FrozenFeed()
    # the run starts at the second frame (the first equal to the one before it)
    first = _first_frozen(feed, [scene.copy() for _ in range(400)])
    assert first == 1 + math.ceil(FROZEN_SECONDS * FPS)
    assert feed.frozen_for(first / FPS) >= FROZEN_SECONDS


def test_a_still_scene_through_a_real_sensor_is_never_frozen() -> None:
    """The sensor's noise moves the low bits: even one level on a few pixels is a new
    picture (here sigma 1, which leaves most pixels as they were)."""
    scene = _scene()
    rng = np.random.default_rng(2)
    frames = [np.clip(scene + rng.normal(0, 1, scene.shape), 0, 255).astype(np.uint8)
              for _ in range(int(2 * FROZEN_SECONDS * FPS))]
    assert _first_frozen(FrozenFeed(), frames) is None


def test_one_pixel_between_the_samples_starts_the_run_again() -> None:
    scene = _scene()
    frames = [scene.copy() for _ in range(400)]
    changed = 100
    for f in frames[changed:]:
        f[1, 1, 0] ^= 1       # off the sampled rows and columns
    first = _first_frozen(FrozenFeed(), frames)
    assert first == changed + math.ceil(FROZEN_SECONDS * FPS)


@pytest.mark.parametrize("level", [0, 254, 40])
def test_a_flat_picture_is_never_frozen(level: int) -> None:
    """A lens cap, an unlit shoe, a blank capture screen: equal frames on a working camera."""
    flat = np.full((120, 160, 3), level, np.uint8)
    flat[::2, :, 1] += 1      # a faint pattern, still well under the flat level
    assert float(np.std(flat[::16, ::16])) < FLAT_LEVEL
    assert _first_frozen(FrozenFeed(), [flat.copy() for _ in range(400)]) is None


def test_a_capture_that_fills_one_buffer_again_compares_pictures_not_the_buffer() -> None:
    feed = FrozenFeed()
    buffer = _scene()
    rng = np.random.default_rng(3)
    for i in range(400):       # new pictures into the same array, as a capture may do
        buffer[:] = _scene(int(rng.integers(1 << 30)))
        assert not feed.update(buffer, i / FPS)
    # and the same array left as it is: frozen
    assert any(feed.update(buffer, (400 + i) / FPS) for i in range(400))


def test_a_clock_that_goes_back_or_another_size_starts_the_run_again() -> None:
    scene = _scene()
    feed = FrozenFeed()
    for i in range(100):
        assert not feed.update(scene, i / FPS)
    assert not feed.update(scene, 0.0)                  # the clock went back
    assert not feed.update(scene, FROZEN_SECONDS - 0.1)
    assert feed.update(scene, FROZEN_SECONDS + 0.1)
    small = np.ascontiguousarray(scene[:60])
    assert not feed.update(small, 100.0)                # another size: a new picture
    assert not feed.update(small, 100.0 + FROZEN_SECONDS - 0.1)
    feed.reset()
    assert not feed.update(small, 200.0)


def test_the_check_can_be_turned_off_and_refuses_a_bad_limit() -> None:
    scene = _scene()
    assert _first_frozen(FrozenFeed(None), [scene] * 400) is None
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="positive"):
            FrozenFeed(bad)


# ---- the camera source and the daemon's camera ----------------------------------------------

def _shoe_frames(shoe_deck: EnrolledDeck) -> tuple[list[Image], Image]:
    cam = SimCamera(44, shoe_deck.style, strength=0.5)
    frames, _ = cam.shoe_sequence(cam.shuffled_deck()[:2], frames_per_card=5, gap=3)
    return frames, cam.shoe_frame(cam.shuffled_deck()[5])


def _source(shoe_deck: EnrolledDeck, images: list[Image],
            frozen_after: float | None = FROZEN_SECONDS) -> CameraCardSource:
    return CameraCardSource(MemoryFrames(images, fps=FPS), Recogniser(shoe_deck.profile),
                            mode="shoe", policy=VotePolicy(min_frames=2, max_frames=3),
                            guard=DeckGuard(warmup=0), frozen_after=frozen_after)


async def _reads(src: CameraCardSource) -> list[FaceRead]:
    out: list[FaceRead] = []
    async with src:
        async for r in src.reads():
            out.append(r)
    return out


def test_a_frozen_feed_ends_the_reads_with_a_frame_source_error(
        shoe_deck: EnrolledDeck) -> None:
    frames, stuck = _shoe_frames(shoe_deck)
    held = [stuck] * int(FROZEN_SECONDS * FPS + 10)
    with pytest.raises(FrameSourceError, match="frozen"):
        asyncio.run(_reads(_source(shoe_deck, frames + held)))
    # the same frames with the check off: read to the end, the stuck card once
    reads = asyncio.run(_reads(_source(shoe_deck, frames + held, frozen_after=None)))
    assert len(reads) == 3


def test_a_frozen_camera_is_offline_and_opened_again_the_table_goes_on(
        shoe_deck: EnrolledDeck) -> None:
    frames, stuck = _shoe_frames(shoe_deck)
    clock = ManualClock()
    made: list[int] = []

    def make() -> CameraCardSource:
        made.append(1)
        held = [stuck] * int(FROZEN_SECONDS * FPS + 10)
        return _source(shoe_deck, held if len(made) == 1 else frames)

    events = asyncio.run(events_until_reads(CameraSource("cam", make, clock=clock), clock, 2))
    assert [e.online for e in events if isinstance(e, DeviceStatus)][:3] == [True, False, True]
    assert len(made) == 2
