"""Frames as the reader takes them: 8-bit BGR, whatever a camera or a file hands over.

OpenCV's capture gives 8-bit BGR from most cameras, but not from all: a V4L2 device in a
grey or 16-bit mode, a stream with an alpha channel, a frame decoded by other code as floats.
Every stage of the reader assumes 8-bit BGR; fed anything else it raised deep inside OpenCV
or numpy. :func:`as_bgr8` turns what can be read into 8-bit BGR and says ``None`` for what
cannot (no pixels, more than four channels, not numbers), so that no frame ends a read.
:func:`read_image` reads an image file an operator names, refusing what is not one in a line.

>>> import numpy as np
>>> as_bgr8(np.zeros((4, 6), np.uint16)).shape, as_bgr8(np.zeros((4, 6), np.uint16)).dtype
((4, 6, 3), dtype('uint8'))
>>> as_bgr8(np.zeros((4, 6, 5), np.uint8)) is None
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import cv2
import numpy as np

from tablectl.vision import MAX_IMAGE_PIXELS
from tablectl.vision.model import Image

MAX_IMAGE_BYTES: Final = 64 * 1024 * 1024
"""The largest image file read (a phone's photo is a few MB)."""


class ImageFileError(ValueError):
    """A file that is not an image this reader takes; the message says why, in a line."""


def read_image(path: Path) -> Image:
    """The colour image in the file ``path``, as 8-bit BGR.

    Raises:
        ImageFileError: no such file, a folder, larger than :data:`MAX_IMAGE_BYTES` or
            :data:`MAX_IMAGE_PIXELS`, or not an image OpenCV decodes.
    """
    if path.is_dir():
        raise ImageFileError("is a folder, not an image file")
    if not path.is_file():   # before OpenCV, which would also print a warning of its own
        raise ImageFileError("no such file")
    size = path.stat().st_size
    if size > MAX_IMAGE_BYTES:
        raise ImageFileError(f"{size} bytes: an image file may have at most "
                             f"{MAX_IMAGE_BYTES // (1024 * 1024)} MiB")
    try:
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    except cv2.error as exc:    # the pixel limit is an assertion inside the decoder
        if "MAX_IMAGE_PIXELS" in str(exc):
            raise ImageFileError(f"more than {MAX_IMAGE_PIXELS:,} pixels: too large an "
                                 "image") from None
        raise ImageFileError("cannot read as an image") from None
    if img is None:
        raise ImageFileError("cannot read as an image")
    if img.shape[0] * img.shape[1] > MAX_IMAGE_PIXELS:   # OpenCV loaded before this package
        raise ImageFileError(f"{img.shape[1]}x{img.shape[0]} pixels: at most "
                             f"{MAX_IMAGE_PIXELS:,}")
    return np.asarray(img)


def as_bgr8(image: object) -> Image | None:
    """``image`` as 8-bit BGR (the same array when it already is), or ``None`` when it holds
    no picture: not an array of numbers, no pixels, or a channel count that is not 1, 3 or 4.

    16-bit images keep their top 8 bits; floats are taken as 0..1 when none exceeds 1, else as
    0..255 (NaN as 0); other integers and booleans are clipped to 0..255 (``True`` is 255).
    """
    if not isinstance(image, np.ndarray) or image.size == 0:
        return None
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (3, 4)):
        return None
    if image.dtype != np.uint8:
        image = _to_uint8(image)
        if image is None:
            return None
    if image.ndim == 2:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    if image.shape[2] == 4:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGRA2BGR))
    return image


def _to_uint8(image: np.ndarray) -> np.ndarray | None:
    kind = image.dtype.kind
    if kind == "b":
        return np.where(image, np.uint8(255), np.uint8(0))
    if image.dtype == np.uint16:
        return (image >> 8).astype(np.uint8)
    if kind in "iu":
        return np.asarray(np.clip(image, 0, 255), np.uint8)
    if kind == "f":
        f = np.nan_to_num(image.astype(np.float32), nan=0.0, posinf=255.0, neginf=0.0)
        if float(f.max()) <= 1.0:
            f = f * 255.0
        return np.clip(f, 0.0, 255.0).astype(np.uint8)
    return None
