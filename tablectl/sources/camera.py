"""The camera card source for the daemon: OpenCV recognition turned into controller inputs.

:class:`tablectl.vision.source.CameraCardSource` decides one read per card (vote over frames,
deck guard, game-state check). This adapter makes each decision a :class:`CardRead` with the
card read from its face (no tag UID): ``accepted`` reads go to the hand like a shoe's,
``needs_confirmation`` reads go to the dealer as doubtful reads (the hand waits for
confirm_read / reject_read), ``no_card`` (a joker, the cut card, a card back) is only logged.

In shoe mode the reads carry no location (dealing order assigns them); in board mode each is
placed on the next board position of the hand (``board 1`` ... ``board 5``), counted again when
the board camera sees an empty board. When the frames stop (camera unplugged, stream down) the
source reports the device offline and reopens it with backoff.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Final, Self

from tablectl.clock import Clock
from tablectl.controller.inputs import CardRead, DeviceStatus, Location, LocationKind, ReadStatus
from tablectl.sources.base import SourceEvent
from tablectl.vision.model import FaceRead, FaceStatus, FrameSourceError
from tablectl.vision.source import CameraCardSource, FrameSource

_LOGGER = logging.getLogger(__name__)

BACKOFF: Final = (0.5, 1.0, 2.0, 5.0)

_STATUS: Final = {FaceStatus.ACCEPTED: ReadStatus.ACCEPTED,
                  FaceStatus.NEEDS_CONFIRMATION: ReadStatus.NEEDS_CONFIRMATION}


class CameraSource:
    """A camera as a :class:`~tablectl.sources.base.CardSource`.

    Args:
        name: the source's name (journal, displays).
        make_camera: builds a fresh :class:`CameraCardSource` (its frames opened anew) for
            every (re)connection; the daemon passes one over ``VideoCaptureFrames(url)``.
        clock: the injected clock (read times, backoff).
        mode: ``"shoe"`` or ``"board"``.
    """

    kind = "camera"

    def __init__(self, name: str, make_camera: Callable[[], CameraCardSource], *,
                 clock: Clock, mode: str = "shoe") -> None:
        self.name = name
        self._make = make_camera
        self._clock = clock
        self._mode = mode
        self._n = 0
        self._board = 0
        self._closed = False

    async def __aenter__(self) -> Self:
        self._closed = False
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._closed = True

    def to_input(self, read: FaceRead) -> CardRead | None:
        """The controller input for one decided read (None for ``no_card``)."""
        status = _STATUS.get(read.status)
        if read.card is None or status is None:
            _LOGGER.info("%s: no card (joker, cut card or card back)", self.name)
            return None
        self._n += 1
        location = None
        if self._mode == "board":
            self._board = self._board % 5 + 1
            location = Location(LocationKind.BOARD, index=self._board)
        return CardRead(source=self.name, uid=None, card=read.card, antenna=0,
                        read_id=f"{self.name}:{self._n}", at=self._clock.now(),
                        location=location, status=status,
                        confidence=min(1.0, max(0.0, float(read.confidence))))

    def new_hand(self) -> None:
        """The board was cleared: board positions count from 1 again."""
        self._board = 0

    async def events(self) -> AsyncIterator[SourceEvent]:
        """Reads, and the camera's online/offline changes, until the source closes."""
        attempt = 0
        while not self._closed:
            camera = self._make()
            try:
                async with camera:
                    yield DeviceStatus(self.name, True, self._clock.now(), kind=self.kind)
                    attempt = 0
                    async for read in camera.reads():
                        inp = self.to_input(read)
                        if inp is not None:
                            yield inp
            except FrameSourceError as exc:
                _LOGGER.warning("%s: camera unavailable: %s", self.name, exc)
            except Exception:  # a fault of the camera's code: the camera, not the table, stops
                _LOGGER.exception("%s: camera failed; it is opened again after the back-off",
                                  self.name)
            yield DeviceStatus(self.name, False, self._clock.now(), kind=self.kind)
            delay = BACKOFF[min(attempt, len(BACKOFF) - 1)]
            attempt += 1
            await self._clock.sleep(delay)


def camera_factory(url: str, profile_dir: str, *, mode: str, name: str,
                   clock: Clock) -> Callable[[], CameraCardSource]:
    """A factory of camera sources reading ``url`` (a device index, file, RTSP or HTTP MJPEG
    URL) against the enrolled deck profile in ``profile_dir``.

    Raises:
        tablectl.vision.model.ProfileError: the profile cannot be loaded or is not verified.
    """
    from pathlib import Path

    from tablectl.vision.profile import DeckProfile
    from tablectl.vision.recognise import Recogniser
    from tablectl.vision.source import VideoCaptureFrames

    recogniser = Recogniser(DeckProfile.load(Path(profile_dir)))
    board = mode == "board"

    def make() -> CameraCardSource:
        frames: FrameSource = VideoCaptureFrames(url, clock=clock)
        return CameraCardSource(frames, recogniser, mode="board" if board else "shoe",
                                name=name)

    return make
