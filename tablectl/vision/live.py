"""Live enrolment at the table: the dealer shows each card to the camera, the console confirms.

:class:`LiveEnrolment` is the sans-IO procedure (no camera, no terminal inside):

1. **Enrol.** For each card in the stated order (all 52 by default) the console asks the dealer
   to show it; :meth:`LiveEnrolment.capture` takes the frames the camera saw while it was
   shown and reports whether an index was found; the console confirms (:meth:`confirm`) or
   asks to show it again (:meth:`retake`). Nothing is enrolled until the label is confirmed.
2. **Verify.** The dealer shows every card once more; each is read back against the new
   profile as if it were enabled (:meth:`check`).
3. **Result.** :meth:`result` returns the profile, enabled as :func:`~tablectl.vision.enrol.
   verify` decides (every card read back right; or none wrong and most right, the cards
   read back unsure held back), and the verification report.

The frames come from whatever the caller reads (``cv2.VideoCapture`` in the CLI).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from tablectl.domain.cards import FULL_DECK, Card
from tablectl.vision.enrol import Enroller, VerificationReport, verify
from tablectl.vision.model import EnrolmentError, Image, VisionError
from tablectl.vision.profile import DeckProfile
from tablectl.vision.source import Mode


class LivePhase(StrEnum):
    """Where the procedure is."""

    ENROL = "enrol"
    VERIFY = "verify"
    DONE = "done"


class LiveEnrolmentError(VisionError, ValueError):
    """A step out of order (confirming with nothing captured, checking before enrolment)."""


class LiveEnrolment:
    """See the module docstring.

    Args:
        deck_id: the deck's name.
        mode: ``"shoe"`` or ``"board"``.
        shoe_roi: the shoe's index window (shoe mode).
        order: the cards to enrol, in the order the dealer shows them.
    """

    def __init__(self, deck_id: str, mode: Mode = "shoe",
                 shoe_roi: tuple[int, int, int, int] | None = None,
                 order: Sequence[Card] = FULL_DECK) -> None:
        if len(set(order)) != len(order) or not order:
            raise LiveEnrolmentError("the order must name each card once")
        self.mode: Mode = mode
        self._enroller = Enroller(deck_id, mode, shoe_roi, deck=order)
        self._order = tuple(order)
        self._i = 0
        self._held: list[Image] = []
        self._profile: DeckProfile | None = None
        self._samples: list[tuple[str, Image, Card]] = []
        self.phase = LivePhase.ENROL

    @property
    def current(self) -> Card | None:
        """The card the dealer is asked to show now (None when done)."""
        return self._order[self._i] if self.phase is not LivePhase.DONE else None

    @property
    def progress(self) -> tuple[int, int]:
        """``(cards done in this phase, cards in the order)``."""
        return self._i, len(self._order)

    def capture(self, frames: Sequence[Image]) -> bool:
        """The frames seen while the current card was shown (enrol phase). Returns True if an
        index was found in at least one of them; the frames wait for :meth:`confirm`."""
        if self.phase is not LivePhase.ENROL:
            raise LiveEnrolmentError("capture is for the enrol phase")
        probe = Enroller("probe", self.mode, self._enroller.shoe_roi, augment=False)
        usable = []
        assert self.current is not None
        for frame in frames:
            try:
                probe.add(frame, self.current)
            except EnrolmentError:
                continue
            usable.append(frame)
        self._held = usable
        return bool(usable)

    def retake(self) -> None:
        """Forget what was captured for the current card; it will be shown again."""
        self._held = []

    def confirm(self) -> None:
        """The console confirms the label of the captured frames: enrol them, next card.

        Raises:
            LiveEnrolmentError: nothing usable was captured for the current card.
        """
        card = self.current
        if self.phase is not LivePhase.ENROL or card is None or not self._held:
            raise LiveEnrolmentError("nothing captured to confirm: show the card again")
        for n, frame in enumerate(self._held):
            self._enroller.add(frame, card, f"{card} #{n + 1}")
        self._held = []
        self._i += 1
        if self._i == len(self._order):
            self._profile = self._enroller.build()
            self._i = 0
            self.phase = LivePhase.VERIFY

    def check(self, frame: Image) -> None:
        """Verify phase: the current card shown once more (read back at the end)."""
        card = self.current
        if self.phase is not LivePhase.VERIFY or card is None:
            raise LiveEnrolmentError("check is for the verify phase")
        self._samples.append((f"{card} (verify)", frame, card))
        self._i += 1
        if self._i == len(self._order):
            self.phase = LivePhase.DONE

    def result(self) -> tuple[DeckProfile, VerificationReport]:
        """The profile (enabled only at 100% with zero wrong reads) and the report.

        Raises:
            LiveEnrolmentError: the verification pass is not complete.
        """
        if self.phase is not LivePhase.DONE or self._profile is None:
            raise LiveEnrolmentError("show every card for verification first")
        return verify(self._profile, self._samples, self.mode)


class CaptureReader:
    """Frames on demand from anything ``cv2.VideoCapture`` opens (a device index such as
    ``"0"``, a file, an image sequence pattern, an RTSP or HTTP MJPEG URL), for the console's
    live enrolment. Synchronous: the console waits for the dealer anyway.

    Raises:
        tablectl.vision.model.FrameSourceError: the capture cannot be opened.
    """

    def __init__(self, url: str) -> None:
        from tablectl.vision.source import open_capture

        # a network stream with the camera source's timeouts: a stalled one fails its read
        self._cap = open_capture(url)
        self.url = url

    def read(self, n: int) -> list[Image]:
        """The next ``n`` frames (fewer if the stream ended)."""
        out: list[Image] = []
        for _ in range(n):
            ok, frame = self._cap.read()
            if not ok or frame is None:
                break
            out.append(frame)
        return out

    def close(self) -> None:
        """Release the capture."""
        self._cap.release()
