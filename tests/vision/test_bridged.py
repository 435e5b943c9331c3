"""Which masks the finder's fallback closes over small gaps (:func:`locate._bridged`): the
two brightness-level cuts its docstring names, whether or not the frame has a background
mask (which :func:`locate._masks` puts after them, so that counting from the end of the
list would take the lower level and the background mask instead)."""

from __future__ import annotations

import cv2
import numpy as np

from hardware_sim.camera import random_style
from hardware_sim.camera_scene import SceneCamera
from tablectl.vision.locate import _EDGE_K, _bridged, _masks, balanced, shrunk
from tablectl.vision.model import Image


def _closed_levels(white: Image) -> list[Image]:
    """The whiteness opened, cut at 85% and 72% of its 99.5th percentile and closed with
    an ellipse of about 1/80 of the frame: the two bright levels, bridged, made here."""
    top = float(np.percentile(white[::4, ::4], 99.5))
    smooth = cv2.morphologyEx(white, cv2.MORPH_OPEN, _EDGE_K)
    k = max(3, round(min(white.shape[:2]) / 80)) | 1
    bridge = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    return [cv2.morphologyEx(cv2.threshold(smooth, top * f, 255, cv2.THRESH_BINARY)[1],
                             cv2.MORPH_CLOSE, bridge) for f in (0.85, 0.72)]


def test_bridged_closes_the_two_bright_levels_with_and_without_a_background_mask() -> None:
    """On harsh frames, one without a background mask (seven masks) and one with it
    (eight): ``_bridged`` gives the two bright levels closed, and nothing else."""
    cam = SceneCamera(11, random_style(21), strength=1.0)
    counts = set()
    for k in range(2):
        small = balanced(shrunk(cam.frame(cam.shuffled_deck()[:8], overlap=k == 1)[0])[1])[0]
        masks, _, white, _ = _masks(small)
        counts.add(len(masks))
        got = _bridged(masks)
        want = _closed_levels(white)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g, w)
    assert counts == {7, 8}  # both cases met: without and with the background mask
