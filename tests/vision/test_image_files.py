"""Image files an operator names (``camera enrol``, ``camera recognise``) are hostile until
read: a folder, an empty or a text file, a file of 100 MB, and a PNG of a few bytes whose
header declares ten billion pixels. Each is refused in one line naming the file; none ends a
command with a traceback, and the tiny PNG is refused before anything is decoded (before,
OpenCV's own assertion ended the command, and a 425 kB PNG of 20000x20000 decoded into
2.4 GB before the reader looked at it).
"""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.vision import MAX_IMAGE_PIXELS
from tablectl.vision.frame import ImageFileError, read_image


def png_header(width: int, height: int, rows: int = 1) -> bytes:
    """A grey PNG declaring ``width`` x ``height`` pixels that holds ``rows`` rows of them (a
    few bytes: what it declares, little more)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"\0" * ((width + 1) * rows))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + (chunk(b"IDAT", pixels) if rows else b"") + chunk(b"IEND", b""))


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(("make", "said"), [
    (lambda d: d, "is a folder, not an image file"),
    (lambda d: d / "gone.png", "no such file"),
    (lambda d: _write(d / "empty.png", b""), "cannot read as an image"),
    (lambda d: _write(d / "notes.jpg", b"not a picture\n" * 10), "cannot read as an image"),
    (lambda d: _write(d / "cut.png", png_header(64, 64, rows=0)), "cannot read as an image"),
], ids=["folder", "missing", "empty", "text", "header only"])
def test_a_file_that_is_no_image_is_refused_in_a_line(
        tmp_path: Path, make: object, said: str) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(ImageFileError) as caught:
        read_image(path)
    assert str(caught.value) == said


def test_a_file_past_the_size_limit_is_not_read(tmp_path: Path) -> None:
    big = tmp_path / "big.jpg"
    with big.open("wb") as fh:      # sparse: no disk used
        fh.truncate(100 * 1024 * 1024)
    with pytest.raises(ImageFileError, match="at most 64 MiB"):
        read_image(big)


def test_a_tiny_png_declaring_billions_of_pixels_is_refused(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    bomb = _write(tmp_path / "As.png", png_header(100_000, 100_000))
    with pytest.raises(ImageFileError, match="too large an image"):
        read_image(bomb)
    out = tmp_path / "profile"
    assert main(["camera", "enrol", "--deck-id", "x", "--out", str(out), str(bomb)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"camera enrol: {bomb}: more than {MAX_IMAGE_PIXELS:,} pixels: too large an image")
    assert not out.exists()


def test_the_pixel_limit_holds_before_decoding_in_a_fresh_process(tmp_path: Path) -> None:
    """Past this package's limit and under OpenCV's own (2^30): refused from the header by
    the limit this package sets before OpenCV loads, not after decoding 200 MB."""
    side = 10_000     # 100 million pixels
    bomb = _write(tmp_path / "Kd.png", png_header(side, side))
    done = subprocess.run([sys.executable, "-m", "tablectl", "camera", "enrol", "--deck-id",
                           "x", "--out", str(tmp_path / "p"), str(bomb)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().endswith("more than 64,000,000 pixels: too large an image")
