"""The camera card source: frames in, decided card reads out (async).

Frames come from a :class:`FrameSource`: :class:`VideoCaptureFrames` opens anything
``cv2.VideoCapture`` opens (a device index such as ``"0"``, a video file, an image sequence
pattern ``dir/frame_%05d.png``, an RTSP or HTTP MJPEG URL); :class:`MemoryFrames` replays
frames held in memory (tests, demos, replays).

:class:`CameraCardSource` runs the recogniser on each frame (in a worker thread, so the event
loop stays free), votes over the frames while a card is visible, applies the deck guard and
the game-state check (a card already read this hand cannot appear again: it goes to the
dealer), and yields one :class:`FaceRead` per card.

* shoe mode: a card is "visible" while the presence trigger fires in the index window;
* board mode: cards are tracked by position across frames; each is decided after
  ``max_frames`` frames or when it disappears. Each frame's work is bounded: the further
  looks of a frame whose first reads leave something unread are spread over the frames
  that follow (:mod:`tablectl.vision.liveboard`).

OpenCV is imported only when a :class:`VideoCaptureFrames` is opened or the recogniser
runs, so importing this module is cheap.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Final, Literal, Protocol, Self, TypeVar

from tablectl.clock import Clock, SystemClock
from tablectl.config_urls import camera_index
from tablectl.domain.cards import Card
from tablectl.vision.decide import CardVote, Decision, DeckGuard, PresenceTrigger, VotePolicy
from tablectl.vision.frozen import FROZEN_SECONDS, FrozenFeed
from tablectl.vision.model import FaceRead, FaceStatus, FrameSourceError, Image

if TYPE_CHECKING:
    from tablectl.vision.recognise import Recogniser

Mode = Literal["shoe", "board"]
_T = TypeVar("_T")
_LOGGER = logging.getLogger(__name__)
BAD_FRAME_LOG_EVERY: Final = 1000
"""A skipped frame is logged the first time, then once every this many (a camera at 30
frames a second stuck in a bad mode would otherwise fill the log)."""
STREAM_READ_TIMEOUT: Final = 5.0
"""Seconds a network stream (RTSP, HTTP MJPEG) may send nothing before its read fails and
the stream ends (a camera offline, opened again): OpenCV's own default is 30."""
STREAM_OPEN_TIMEOUT: Final = 10.0
"""Seconds opening a network stream may take (OpenCV's own default is 30)."""
_MAX_MS: Final = 2**31 - 1


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame and the monotonic time it was taken (from the injected clock)."""

    time: float
    image: Image


class FrameSource(Protocol):
    """Frames from a camera, a file or memory; an async context manager."""

    async def __aenter__(self) -> Self: ...
    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None: ...
    def frames(self) -> AsyncIterator[Frame]:
        """Frames in order; ends when the stream ends or the source is closed."""
        ...


class MemoryFrames:
    """Frames held in memory, replayed in order.

    Args:
        images: BGR frames.
        fps: frame times are ``start + i / fps`` (no waiting: tests never sleep).
        start: time of the first frame.
    """

    def __init__(self, images: Sequence[Image], fps: float = 30.0, start: float = 0.0) -> None:
        self._images = list(images)
        self._fps = fps
        self._start = start

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        return None

    async def frames(self) -> AsyncIterator[Frame]:
        """The frames, each with its nominal time."""
        for i, img in enumerate(self._images):
            yield Frame(self._start + i / self._fps, img)
            await asyncio.sleep(0)


class VideoCaptureFrames:
    """Frames from ``cv2.VideoCapture``: device index (``"0"``), file, image sequence
    pattern, RTSP or HTTP MJPEG URL.

    Args:
        url: what to open; an all-digit string is a device index.
        clock: frame times come from ``clock.monotonic()`` when each frame is read.
        settings: ``cv2.CAP_PROP_*`` values to set after opening (fixed exposure, size...).
        read_timeout: a network stream (``scheme://...``) that sends no frame for this long
            ends, as if unplugged (:data:`STREAM_READ_TIMEOUT`).
        open_timeout: opening a network stream gives up after this long.

    Raises:
        FrameSourceError: on entering, if the capture cannot be opened.
    """

    def __init__(self, url: str, clock: Clock | None = None,
                 settings: dict[int, float] | None = None,
                 read_timeout: float = STREAM_READ_TIMEOUT,
                 open_timeout: float = STREAM_OPEN_TIMEOUT) -> None:
        for what, value in (("read_timeout", read_timeout), ("open_timeout", open_timeout)):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{what} must be a positive number of seconds, got {value!r}")
        self.url = url
        self._timeouts = (open_timeout, read_timeout)
        self._clock = clock or SystemClock()
        self._settings = dict(settings or {})
        self._cap: _Capture | None = None

    async def __aenter__(self) -> Self:
        cap = await asyncio.to_thread(open_capture, self.url, *self._timeouts)
        for prop, value in self._settings.items():
            cap.set(prop, value)
        self._cap = cap
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            await asyncio.to_thread(cap.release)

    async def frames(self) -> AsyncIterator[Frame]:
        """Frames until the stream ends (files) or the source is closed."""
        while self._cap is not None:
            ok, img = await asyncio.to_thread(self._cap.read)
            if not ok or img is None:
                return
            yield Frame(self._clock.monotonic(), img)


def open_capture(url: str, open_timeout: float = STREAM_OPEN_TIMEOUT,
                 read_timeout: float = STREAM_READ_TIMEOUT) -> _Capture:
    """``cv2.VideoCapture`` of ``url`` (an all-digit string is a device index), opened; a
    network stream's (``scheme://...``) with its open and read timeouts in seconds (the
    FFmpeg backend's interrupt callback applies them; files and devices have none).

    Raises:
        FrameSourceError: it cannot be opened.
    """
    import cv2

    index = camera_index(url)
    try:
        if index is not None:
            cap: _Capture = cv2.VideoCapture(index)
        elif "://" in url:
            # OpenCV takes int32 milliseconds: a longer wait is no wait at all for a table
            open_ms, read_ms = (min(_MAX_MS, max(1, round(t * 1000)))
                                for t in (open_timeout, read_timeout))
            cap = cv2.VideoCapture(url, cv2.CAP_ANY, [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, open_ms,
                                                      cv2.CAP_PROP_READ_TIMEOUT_MSEC, read_ms])
        else:
            cap = cv2.VideoCapture(url)
    except (cv2.error, ValueError, OverflowError) as exc:
        raise FrameSourceError(f"cannot open video capture: {exc}", url) from exc
    if not cap.isOpened():
        cap.release()
        raise FrameSourceError("cannot open video capture", url)
    return cap


def probe_stream(url: str, open_timeout: float = STREAM_OPEN_TIMEOUT,
                 read_timeout: float = STREAM_READ_TIMEOUT) -> tuple[int, int]:
    """Open ``url`` and read one frame, as the camera source would: its (width, height).

    Raises:
        FrameSourceError: it cannot be opened, or gives no frame within ``read_timeout``
            (a network stream; a file or device ends or fails in its own time).
    """
    cap = open_capture(url, open_timeout, read_timeout)
    try:
        ok, frame = cap.read()
    finally:
        cap.release()
    if not ok or frame is None or getattr(frame, "ndim", 0) < 2:
        raise FrameSourceError("opened, but sent no frame", url)
    return int(frame.shape[1]), int(frame.shape[0])


class _Capture(Protocol):
    def read(self) -> tuple[bool, Image | None]: ...
    def release(self) -> None: ...
    def isOpened(self) -> bool: ...  # noqa: N802 (OpenCV's name)
    def set(self, prop: int, value: float) -> bool: ...


@dataclass(slots=True)
class _Track:
    centre: tuple[float, float]
    size: float
    vote: CardVote
    missing: int = 0
    decided: bool = False


@dataclass(slots=True)
class _State:
    guard: DeckGuard
    seen: set[Card] = field(default_factory=set)


class CameraCardSource:
    """Decided card reads from a camera (see the module docstring).

    Args:
        frames: where frames come from (entered and closed by this source).
        recogniser: reads frames against the enrolled deck profile.
        mode: ``"shoe"`` or ``"board"``.
        policy: the vote over frames.
        guard: the deck guard (a fresh one by default).
        trigger: shoe-mode presence trigger (a default one if omitted).
        name: the source's name in events and logs.
        frame_reads: board mode: index reads a frame may make
            (:data:`~tablectl.vision.liveboard.FRAME_READS` if omitted): fewer keep every
            frame cheaper, more let the further looks of a hard card end sooner.
        frozen_after: seconds of bit-for-bit equal frames (not flat ones) after which the
            feed is frozen and :meth:`reads` raises :class:`FrameSourceError`
            (:mod:`tablectl.vision.frozen`); ``None`` never.

    Raises:
        ValueError: ``frame_reads`` below 1, ``frozen_after`` not a positive number.
    """

    def __init__(self, frames: FrameSource, recogniser: Recogniser, *, mode: Mode = "shoe",
                 policy: VotePolicy | None = None, guard: DeckGuard | None = None,
                 trigger: PresenceTrigger | None = None, name: str = "camera",
                 frame_reads: int | None = None,
                 frozen_after: float | None = FROZEN_SECONDS) -> None:
        if frame_reads is not None and frame_reads < 1:
            raise ValueError(f"frame_reads must be at least 1, got {frame_reads}")
        self.name = name
        self._frame_reads = frame_reads
        self.mode: Mode = mode
        self.policy = policy or VotePolicy()
        self._frames = frames
        self._rec = recogniser
        self._trigger = trigger or PresenceTrigger()
        self._state = _State(guard or DeckGuard())
        self._frozen = FrozenFeed(frozen_after)
        self.bad_frames = 0
        """Frames skipped: no picture in them, or their read failed (see the log)."""

    @property
    def guard(self) -> DeckGuard:
        """The deck guard (its score is worth showing on the console)."""
        return self._state.guard

    def new_hand(self) -> None:
        """Forget the cards read so far (a new hand starts; the deck is the same)."""
        self._state.seen.clear()

    async def __aenter__(self) -> Self:
        await self._frames.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self._frames.__aexit__(exc_type, exc, tb)

    async def _guarded(self, read: Callable[[Image], _T], image: Image) -> _T | None:
        """``read(image)`` in a worker thread; ``None`` if it raised. A fault of the reader
        on one frame's pixels costs that frame, not the camera (logged, counted in
        :attr:`bad_frames`); the next frame is read as usual."""
        try:
            return await asyncio.to_thread(read, image)
        except Exception as exc:  # any fault of one frame's read
            self._bad_frame(f"its read failed: {type(exc).__name__}: {exc}", exc)
            return None

    def _bad_frame(self, why: str, exc: BaseException | None = None) -> None:
        self.bad_frames += 1
        if self.bad_frames == 1 or self.bad_frames % BAD_FRAME_LOG_EVERY == 0:
            _LOGGER.warning("%s: frame skipped (%d so far): %s", self.name, self.bad_frames,
                            why, exc_info=exc)

    def _picture(self, frame: Frame) -> Image | None:
        """The frame's picture as 8-bit BGR, or None (a bad frame, counted).

        Raises:
            FrameSourceError: the feed is frozen: the same picture for ``frozen_after``.
        """
        from tablectl.vision.frame import as_bgr8

        image = as_bgr8(frame.image)
        if image is None:
            self._bad_frame("no picture in it")
            return None
        if self._frozen.update(image, frame.time):
            raise FrameSourceError(f"the same picture, to the bit, for "
                                   f"{self._frozen.frozen_for(frame.time):.1f} s: the feed is "
                                   f"frozen", self.name)
        return image

    def _finish(self, decision: Decision) -> FaceRead:
        """Apply the deck guard and the game-state check to a voted decision."""
        read = decision.read
        st = self._state
        if read.card is None:
            return read
        trusted = st.guard.observe(decision.deck_match)
        status = read.status
        if status is FaceStatus.ACCEPTED and (not trusted or read.card in st.seen):
            status = FaceStatus.NEEDS_CONFIRMATION
        if status is FaceStatus.ACCEPTED:
            st.seen.add(read.card)
        return FaceRead(read.card, read.confidence, status, read.quad, read.frame_time,
                        read.frames)

    async def reads(self) -> AsyncIterator[FaceRead]:
        """One decided read per card, until the frames end."""
        if self.mode == "shoe":
            async for r in self._shoe():
                yield r
        else:
            async for r in self._board():
                yield r

    async def _shoe(self) -> AsyncIterator[FaceRead]:
        # One vote per presence of a card. The trigger can miss the gap between two cards
        # drawn quickly (or under changing light), so a confident read of a different card
        # also ends the current vote and starts the next.
        vote: CardVote | None = None
        decided: Card | None = None
        done = False
        async for frame in self._frames.frames():
            image = self._picture(frame)
            if image is None:
                continue
            window = self._rec.shoe_crop(image)
            if not self._trigger.update(window):
                if vote is not None and not done:
                    yield self._finish(vote.decide())
                vote, done = None, False
                continue
            # no face in a shoe's window: an accepted index must pass the card's index-only
            # gate, as enrolment measured it (tablectl/vision/evidence.py)
            verdict = await self._guarded(self._rec.read_shoe_window, window)
            if verdict is None:
                continue
            new_card = (verdict.card if verdict.status is FaceStatus.ACCEPTED else None)
            if vote is None:
                vote, done = CardVote(self.policy), False
            elif done:
                if new_card is None or new_card == decided:
                    continue
                vote, done = CardVote(self.policy), False
            elif new_card is not None and vote.accepted_card() not in (None, new_card):
                yield self._finish(vote.decide())
                vote = CardVote(self.policy)
            vote.add(verdict, frame.time)
            if vote.full:
                read = self._finish(vote.decide())
                decided, done = read.card, True
                yield read
        if vote is not None and not done:
            yield self._finish(vote.decide())

    async def _board(self) -> AsyncIterator[FaceRead]:
        tracks: list[_Track] = []
        from tablectl.vision.liveboard import FRAME_READS, LiveBoard

        reads = FRAME_READS if self._frame_reads is None else self._frame_reads
        # each frame's work bounded; a still, settled board read no longer than a vote needs
        live = LiveBoard(self._rec.profile, reads, still_reads=self.policy.max_frames)
        try:
            async for frame in self._frames.frames():
                image = self._picture(frame)
                if image is None:
                    continue
                found = await self._guarded(live.read, image)
                if found is None:
                    continue
                matched: set[int] = set()
                for card in found:
                    quad = card.quad
                    cx = sum(p[0] for p in quad) / 4
                    cy = sum(p[1] for p in quad) / 4
                    size = math.dist(quad[0], quad[1])
                    best = _nearest(tracks, cx, cy, matched)
                    if best is None:
                        tracks.append(_Track((cx, cy), size, CardVote(self.policy)))
                        best = len(tracks) - 1
                    matched.add(best)
                    t = tracks[best]
                    t.centre, t.size, t.missing = (cx, cy), size, 0
                    # a card reported again from the same look is still seen, but votes once
                    if not t.decided and card.fresh:
                        t.vote.add(card.read, frame.time, quad)
                        if t.vote.full:
                            t.decided = True
                            yield self._finish(t.vote.decide())
                keep: list[_Track] = []
                for i, t in enumerate(tracks):
                    if i not in matched:
                        t.missing += 1
                    if t.missing > 2:
                        if not t.decided and len(t.vote):
                            yield self._finish(t.vote.decide())
                        continue
                    keep.append(t)
                tracks = keep
        finally:
            live.close()
        for t in tracks:
            if not t.decided and len(t.vote):  # a track that only ever was no news: none
                yield self._finish(t.vote.decide())


def _nearest(tracks: list[_Track], cx: float, cy: float, taken: set[int]) -> int | None:
    best, best_d = None, math.inf
    for i, t in enumerate(tracks):
        if i in taken:
            continue
        d = math.hypot(t.centre[0] - cx, t.centre[1] - cy)
        if d < 0.3 * t.size and d < best_d:
            best, best_d = i, d
    return best
