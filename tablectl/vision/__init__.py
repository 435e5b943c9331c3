"""OpenCV card recognition; the only tablectl package that imports cv2 (lazily).

Importing this package loads nothing heavy; OpenCV is loaded by the modules that need it:

* :mod:`~tablectl.vision.model` -- ``FaceRead``, ``FaceStatus``, ``Thresholds``, errors (no cv2)
* :mod:`~tablectl.vision.profile` -- ``DeckProfile`` save/load (numpy only), its files checked
  by :mod:`~tablectl.vision.profile_check` before use
* :mod:`~tablectl.vision.frame` -- any frame a camera hands over as 8-bit BGR, or none
* :mod:`~tablectl.vision.glyphs` -- index segmentation and glyph normalisation
* :mod:`~tablectl.vision.recognise` -- ``Recogniser`` (shoe window, board frames)
* :mod:`~tablectl.vision.cardview` -- the canonical card picture: warp, index corners, a
  photo that is the card itself
* :mod:`~tablectl.vision.locate` -- finding cards by their outline (with
  :mod:`~tablectl.vision.split`, :mod:`~tablectl.vision.grow` and
  :mod:`~tablectl.vision.tighten`)
* :mod:`~tablectl.vision.chroma` -- a card before a wall of its own brightness, found by
  its colour
* :mod:`~tablectl.vision.corners` -- finding cards by their index corner
* :mod:`~tablectl.vision.levels`, :mod:`~tablectl.vision.planes` -- order statistics and
  colour planes of whole frames, the cheaper way (numpy's and OpenCV's own values)
* :mod:`~tablectl.vision.finder` -- the one finder of a single-card photo's card, shared by
  enrolment and recognition
* :mod:`~tablectl.vision.cardlike` -- whether a quad that is not read is a card at all
* :mod:`~tablectl.vision.face` -- the enrolled faces a read is compared with, each card's
  face gate (leave-one-out)
* :mod:`~tablectl.vision.margins` -- enrolment's leave-one-out margins, each card's
  index-only gate (numpy only)
* :mod:`~tablectl.vision.evidence` -- two kinds of evidence before a card is accepted
* :mod:`~tablectl.vision.enrol` -- ``Enroller``, ``verify``, ``enrol_images``
* :mod:`~tablectl.vision.decide` -- vote, deck guard, presence trigger (sans-IO, no cv2)
* :mod:`~tablectl.vision.source` -- ``CameraCardSource``, ``VideoCaptureFrames``,
  ``MemoryFrames`` (cv2 only once a capture is opened or a frame is read)

See docs/camera.md.
"""

import os as _os

MAX_IMAGE_PIXELS = 64_000_000
"""The most pixels an image file may have (a 48-megapixel phone photo has 48 million): a
1 MB PNG can declare 1.2 billion, which OpenCV would decode into 3.6 GB. Set here, before
any module of this package imports cv2, which reads it once when it loads; an operator's own
``OPENCV_IO_MAX_IMAGE_PIXELS`` is kept."""

_os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_IMAGE_PIXELS))
