"""The device URLs a table config names: a serial device or bridge, a camera
(tablectl/config.py checks ``[[sources]] url`` with them)."""

from __future__ import annotations

from typing import Final
from urllib.parse import urlsplit

MAX_CAMERA_INDEX: Final = 9999
"""The largest capture device index taken (``/dev/video9999``; a longer number is a slip)."""


def check_serial_url(url: str) -> str:
    """Accept a device path (``/dev/ttyACM0``, ``/dev/serial/by-id/...``, a pty symlink) or
    ``socket://host:port`` (a serial-to-TCP bridge); raise ValueError otherwise. (pyserial's
    other URL schemes expose no file descriptor, which the event-loop link needs.)

    >>> check_serial_url("socket://127.0.0.1:7001")
    'socket://127.0.0.1:7001'
    >>> check_serial_url("COM3x")
    Traceback (most recent call last):
    ...
    ValueError: not a serial URL: 'COM3x' (expected a device path such as /dev/ttyACM0, or socket://host:port)
    """
    if url.startswith("/"):
        return url
    parts = urlsplit(url)
    if parts.scheme == "socket":
        try:
            port = parts.port
        except ValueError:
            port = None
        if parts.hostname and port:
            return url
    raise ValueError(
        f"not a serial URL: {url!r} (expected a device path such as /dev/ttyACM0, "
        "or socket://host:port)"
    )


def camera_index(url: str) -> int | None:
    """The capture device index ``url`` names, or None when it is a path or URL: only ASCII
    digits name one (``str.isdigit`` also takes ``"²"``, which ``int`` refuses, and ``"٣"``).

    >>> camera_index("0"), camera_index("/dev/video0"), camera_index("٣")
    (0, None, None)
    >>> camera_index("10000")
    Traceback (most recent call last):
    ...
    ValueError: not a camera device index: '10000' (0..9999)
    """
    if not (url.isascii() and url.isdigit()):
        return None
    if len(url) > len(str(MAX_CAMERA_INDEX)):
        shown = url if len(url) <= 40 else f"{url[:40]}... ({len(url)} digits)"
        raise ValueError(f"not a camera device index: {shown!r} (0..{MAX_CAMERA_INDEX})")
    return int(url)


def check_camera_url(url: str) -> str:
    """Accept a capture device index (ASCII digits, ``0``..``9999``), a file path, or an
    rtsp/http(s) URL; raise ValueError otherwise.

    >>> check_camera_url("²")
    Traceback (most recent call last):
    ...
    ValueError: not a camera URL: '²' (expected a device index 0..9999, a file path, or rtsp:// or http(s)://)
    """
    if camera_index(url) is not None or url.startswith("/"):
        return url
    if urlsplit(url).scheme in ("rtsp", "http", "https", "file"):
        return url
    raise ValueError(
        f"not a camera URL: {url[:60]!r} (expected a device index 0..{MAX_CAMERA_INDEX}, a file "
        "path, or rtsp:// or http(s)://)"
    )


__all__ = ["MAX_CAMERA_INDEX", "camera_index", "check_camera_url", "check_serial_url"]
