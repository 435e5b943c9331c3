"""Board frames from a live camera, each read with a bounded amount of work.

One frame read to its end (:meth:`~tablectl.vision.recognise.Recogniser.inspect_board`)
costs what its cards ask for: a frame whose every card is accepted at its first read costs
the finder and one read per card, but one with a card read unsure (glare across its index,
a fan) goes on to read that outline again, to search the frame for index corners and to
place cards from free corners, three to ten times as much (docs/camera.md §6). A camera
delivers a frame every 33 ms; a reader that takes 150 ms on one falls behind the table
for every card on it, not only the unsure one.

:class:`LiveBoard` reads each frame's first pass (the cards found, each outline read once:
:meth:`~tablectl.vision.recognise.Recogniser.first_pass`) and reports it at once. Where
that does not settle the frame, the further looks of that frame
(:meth:`~tablectl.vision.recognise.Recogniser.further_looks`) are made over the frames
that follow, each frame's share of them bounded (:data:`FRAME_READS`), for as long as the scene
stays the same (the same outlines at the same places, no card read as another). Their
result, the very result the whole read of that frame gives, is reported on the frame they
finish, and the next looks start from that frame. In between, each frame reports its
first reads and the last looks' cards, those that are no news marked so
(:class:`LiveRead`, :func:`between_looks`): a vote over frames counts each look once, does
not decide on an unsure first read the looks may yet read, and a card the looks read
right is not outvoted by the unsure first reads of the frames between looks. A new scene
drops the looks under way.

A frame that still shows what the frame its cards were found on did, up to the sensor's
noise (:mod:`tablectl.vision.stillness`), is not searched again: its first pass reads the
cards where they lay. Once :data:`STILL_READS` still frames in a row have read alike, the
still frames after them are not read at all (a vote over frames has its frames; their
cards are reported again as no news) and give their whole share to the further looks
under way, until a frame changes.

The further looks run in a thread of their own (:class:`_Paced`), on a second recogniser of
the same profile, but never beside the frame loop: each waits while the other works, so a
frame's cost is its first pass plus its share of the looks, on one core, and what is read
does not depend on timing (the looks stop at a count of reads, not at a clock).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

from tablectl.vision.firstpass import FirstPass, quad_centre
from tablectl.vision.indexread import IndexRead, read_rank
from tablectl.vision.locate import Found
from tablectl.vision.model import FaceStatus, Image, Quad
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser
from tablectl.vision.stillness import Stillness

_LOGGER = logging.getLogger(__name__)

FRAME_READS: Final = 16
"""Index reads (:attr:`~tablectl.vision.recognise.Recogniser.spend`) a frame may make, its
first pass's and its share of the further looks together; the looks get at least
:data:`LEAST_LOOKS` however many the first pass made. An index read with what goes with
it costs about 2.5 ms on the bench's 1280x720 frames; the first pass of a frame with 8
cards makes 8 to 20 (``bench/camera.py``, "live")."""
STILL_READS: Final = 6
"""Still frames read in a row whose first passes read alike (the same cards and verdicts,
settled or not), after which the next still frames are not read: they report those reads
again as no news (:class:`LiveRead`) and give their whole share of work to the further
looks, if any are under way, until a frame changes. Six is the vote's ``max_frames``
(:class:`~tablectl.vision.decide.VotePolicy`): a vote over frames has decided by then on the
cards its first reads accept, and a seventh read of the same still pixels tells it nothing
(the camera source passes its own policy's)."""
LEAST_LOOKS: Final = 1
"""Index reads the further looks make on every frame of their scene but the first."""

Reads = list[tuple[Quad, IndexRead]]


class _Cancelled(BaseException):
    """Ends the further looks of a scene no longer in view (a ``BaseException``: nothing
    in the recogniser may take it for a fault of its own)."""


class _Paced:
    """The further looks of one frame, run in a thread that works only while the frame
    loop waits in :meth:`step`, ``reads`` index reads at a time (the recogniser's
    :attr:`~tablectl.vision.recognise.Recogniser.spend`)."""

    def __init__(self, rec: Recogniser, fp: FirstPass) -> None:
        self._cv = threading.Condition()
        self._left = 0
        self._turn = False  # the looks may work (the frame loop waits)
        self._cancel = False
        self.done = False
        self.result: Reads | None = None
        self.error: Exception | None = None
        self.reads = 0
        """Index reads made so far."""
        rec.spend = self._spend
        self._thread = threading.Thread(target=self._work, args=(rec, fp), daemon=True,
                                        name="tablectl-further-looks")
        self._thread.start()

    def _work(self, rec: Recogniser, fp: FirstPass) -> None:
        try:
            with self._cv:
                while not self._turn and not self._cancel:
                    self._cv.wait()
            if self._cancel:
                raise _Cancelled
            self.result = rec.further_looks(fp)
        except _Cancelled:
            pass
        except Exception as exc:  # a fault of the looks costs their result, not the camera
            self.error = exc
        finally:
            rec.spend = None
            with self._cv:
                self.done, self._turn = True, False
                self._cv.notify_all()

    def _spend(self) -> None:
        with self._cv:
            if self._left <= 0:
                self._turn = False
                self._cv.notify_all()
                while not self._turn and not self._cancel:
                    self._cv.wait()
            if self._cancel:
                raise _Cancelled
            self._left -= 1
            self.reads += 1

    def step(self, reads: int) -> None:
        """Let the looks make up to ``reads`` index reads and the work up to the next;
        return when they wait for more or are done."""
        with self._cv:
            if self.done:
                return
            self._left, self._turn = reads, True
            self._cv.notify_all()
            while self._turn and not self.done:
                self._cv.wait()

    def cancel(self) -> None:
        """End the looks (at their next read) and wait for their thread to end."""
        with self._cv:
            self._cancel = True
            self._cv.notify_all()
            while not self.done:
                self._cv.wait()
        self._thread.join()


@dataclass(frozen=True, slots=True)
class LiveRead:
    """One card of a live frame: its quad and verdict, and whether the verdict is news
    (``fresh``: read on this frame, or the further looks just made); one that is not is
    a card only the last further looks of this scene found, reported again so that it is
    still seen: a vote over frames must not count it again (:mod:`tablectl.vision.source`)."""

    quad: Quad
    read: IndexRead
    fresh: bool = True


@dataclass(slots=True)
class _Held:
    """The scene in view whose further looks are under way."""

    seen: FirstPass
    """The scene's latest frame (to tell the next frame's scene by)."""
    looks: _Paced
    last: Reads | None = None
    """What the scene's last finished looks reported."""


class LiveBoard:
    """Board frames of one camera read in turn, each with bounded work (module docstring).

    Args:
        profile: the enrolled deck (one recogniser of it reads every frame's first pass,
            a second one makes the further looks).
        frame_reads: index reads a frame may make (:data:`FRAME_READS`).
        stillness: tells a frame that still shows what the frame its cards were found on
            did (a :class:`~tablectl.vision.stillness.Stillness` by default).
        still_reads: still frames read alike in a row, after which a still frame is not
            read (:data:`STILL_READS`; at least 1).
    """

    def __init__(self, profile: DeckProfile, frame_reads: int = FRAME_READS,
                 stillness: Stillness | None = None,
                 still_reads: int = STILL_READS) -> None:
        if frame_reads < 1:
            raise ValueError(f"frame_reads must be at least 1, got {frame_reads}")
        if still_reads < 1:
            raise ValueError(f"still_reads must be at least 1, got {still_reads}")
        self._still_reads = still_reads
        self._last: FirstPass | None = None
        """The last frame's first pass."""
        self._alike = 0
        """Frames in a row, still since their cards were found, whose first passes read
        alike (:meth:`_note`)."""
        self._rec = Recogniser(profile)
        self._rec.spend = self._count
        self._looker = Recogniser(profile)
        self._frame_reads = frame_reads
        self._held: _Held | None = None
        self._stillness = Stillness() if stillness is None else stillness
        self._located: tuple[Found, ...] | None = None
        """The outlines found on the frame :attr:`_stillness` keeps."""
        self._lock = threading.Lock()  # a close from another thread waits for the read
        self.faults = 0
        """Further looks that failed (logged); their scene reports its first reads."""
        self.looks_done = 0
        """Further looks finished (their result reported)."""
        self.first_reads = 0
        """Index reads (and steps of their cost) the last frame's first pass made."""
        self.looks_reads = 0
        """Those the further looks made on the last frame."""
        self.unread = False
        """Whether the last frame was not read (:data:`STILL_READS`)."""
        self.found_again = False
        """Whether the last frame's cards were found afresh (else it still showed what the
        frame they were found on did, and they were read where they lay on it)."""

    def _count(self) -> None:
        self.first_reads += 1

    @property
    def looking(self) -> bool:
        """Whether further looks are under way for the scene in view."""
        return self._held is not None

    def read(self, frame: Image) -> list[LiveRead]:
        """Every card found on ``frame`` with its verdict (:meth:`_read`)."""
        with self._lock:
            return self._read(frame)

    def _read(self, frame: Image) -> list[LiveRead]:
        """Every card found on ``frame`` with its verdict. Where the first pass settles
        the frame: what :meth:`~tablectl.vision.recognise.Recogniser.inspect_board`
        reports of it. Else, on the frame where the further looks of the scene finish:
        what ``inspect_board`` reports of the frame they were made on (the next looks then
        start from this frame); on the others: the frame's first reads and the last
        looks' cards, some marked as no news (:func:`between_looks`)."""
        self.first_reads = self.looks_reads = 0
        located = self._located if self._stillness.holds(frame) else None
        self.found_again = located is None
        self.unread = located is not None and self._alike >= self._still_reads
        if self.unread:
            return self._unread()
        fp = self._rec.first_pass(frame, located)
        if fp is None:
            self._stillness.forget()
            self._located, self._last, self._alike = None, None, 0
            return []
        self._located = fp.located
        self._note(fp, still=located is not None)
        held = self._held
        if held is not None and not same_scene(held.seen, fp):
            self._drop()
            held = None
        if fp.settled is not None:
            return [LiveRead(q, r) for q, r in fp.settled]  # a held scene waits
        if held is None:  # a new scene: its first pass is this frame's work
            self._held = _Held(fp, _Paced(self._looker, fp))
            return between_looks(list(fp.reported), None)
        held.seen = fp
        return self._look(held, max(LEAST_LOOKS, self._frame_reads - self.first_reads))

    def _look(self, held: _Held, reads: int, *, news: bool = True) -> list[LiveRead]:
        """The scene's further looks go on for ``reads`` index reads; on the frame they
        end, their result (the next looks start from the scene's latest first pass), else
        :func:`between_looks` (none of it news where the frame was not read)."""
        fp = held.seen
        before = held.looks.reads
        held.looks.step(reads)
        self.looks_reads = held.looks.reads - before
        if held.looks.done:
            held.last = self._ended(held.looks, fp)
            self.looks_done += 1
            held.looks = _Paced(self._looker, fp)  # the next looks: this frame's
            return [LiveRead(q, r) for q, r in held.last]
        out = between_looks(list(fp.reported), held.last)
        return out if news else [LiveRead(r.quad, r.read, fresh=False) for r in out]

    def _unread(self) -> list[LiveRead]:
        """A still frame not read (:data:`STILL_READS`): the last first pass's cards
        again, no news; where that left the further looks work, they make the frame's
        whole share (:data:`FRAME_READS`)."""
        last, held = self._last, self._held
        assert last is not None  # frames alike were read
        if last.settled is not None or held is None:
            return [LiveRead(q, r, fresh=False) for q, r in (last.settled or last.reported)]
        return self._look(held, self._frame_reads, news=False)

    def _note(self, fp: FirstPass, *, still: bool) -> None:
        """Count the frames in a row, still since their cards were found, whose first
        passes read alike (the same cards and verdicts, settled or not alike)."""
        alike = (still and self._last is not None
                 and _alike_key(self._last) == _alike_key(fp))
        self._last = fp
        self._alike = self._alike + 1 if alike else 1

    def _ended(self, looks: _Paced, fp: FirstPass) -> Reads:
        if looks.error is not None:
            self.faults += 1
            _LOGGER.warning("further looks failed (%d so far); the frame reports its first "
                            "reads", self.faults, exc_info=looks.error)
        return looks.result if looks.result is not None else list(fp.reported)

    def _drop(self) -> None:
        if self._held is not None:
            self._held.looks.cancel()
            self._held = None

    def close(self) -> None:
        """End the further looks under way (their thread ends); a read under way in
        another thread ends first."""
        with self._lock:
            self._drop()


def between_looks(first: Reads, last: Reads | None) -> list[LiveRead]:
    """A frame's cards while the further looks of its scene go on: its first reads
    (``first``) and what the scene's last finished looks reported (``last``; ``None``
    before the first of them ends).

    Before the first looks end: the first reads, those not accepted no news (the looks
    may yet read them: a vote must not decide on them first). After: the cards as the
    looks found them (the looks may have split an outline of two cards, or placed a card
    from its index corner); at the place of each, this frame's first read where it is
    accepted, or where the looks read no better there (news), else the looks' read (no
    news); a first read accepted where the looks found nothing, as it is; the
    other first reads (outlines the looks read otherwise) left out."""
    if last is None:
        return [LiveRead(q, r, fresh=r.status is FaceStatus.ACCEPTED) for q, r in first]
    out: list[LiveRead] = []
    used: set[int] = set()
    for lq, lr in last:
        at = [i for i, (q, _) in enumerate(first) if i not in used and same_place(q, lq)]
        if at:
            i = min(at, key=lambda k: _distance(first[k][0], lq))
            used.add(i)
            q, r = first[i]
            if r.status is FaceStatus.ACCEPTED or read_rank(lr) <= read_rank(r):
                out.append(LiveRead(q, r))
                continue
        out.append(LiveRead(lq, lr, fresh=False))
    out += [LiveRead(q, r) for i, (q, r) in enumerate(first)
            if i not in used and r.status is FaceStatus.ACCEPTED]
    return out


def _alike_key(fp: FirstPass) -> tuple[bool, list[tuple[object, FaceStatus]]]:
    """What two first passes of still frames must share to read alike: settled or not,
    and the cards and verdicts they report."""
    return fp.settled is not None, [(r.card, r.status) for _, r in fp.reported]


def same_place(a: Quad, b: Quad) -> bool:
    """Whether two outlines of two frames may be one card's: either's middle lies inside
    the other (a camera's noise moves an outline's edges by a shadow's width; an outline of
    two cards lying over each other holds the middle of each)."""
    return _inside(quad_centre(a), b) or _inside(quad_centre(b), a)


def same_scene(a: FirstPass, b: FirstPass) -> bool:
    """Whether two frames' first passes show one scene: the middle of every card either
    accepts lies inside an outline of the other, and inside none the other accepts as
    another card. Reads not accepted are left out: a camera's noise makes a card's index
    box or a shadow an outline of its own in one frame and not the next, and the same
    card's outline a little larger or smaller (its shadow in it or not). A card put down
    unsure does not start a scene: the looks under way end, and the next, from a newer
    frame, find it."""
    for x, y in ((a, b), (b, a)):
        for q, r in x.reported:
            if r.status is not FaceStatus.ACCEPTED:
                continue
            mid = quad_centre(q)
            if not any(_inside(mid, f.quad) for f in y.located):
                return False
            if any(o.status is FaceStatus.ACCEPTED and o.card != r.card and _inside(mid, oq)
                   for oq, o in y.reported):
                return False
    return True


def _distance(a: Quad, b: Quad) -> float:
    (ax, ay), (bx, by) = quad_centre(a), quad_centre(b)
    return float(np.hypot(ax - bx, ay - by))


def _inside(p: tuple[float, float], q: Quad) -> bool:
    return cv2.pointPolygonTest(np.array(q, np.float32).reshape(-1, 1, 2), p, False) >= 0
