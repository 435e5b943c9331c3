"""The device URLs a table config names: a serial device or bridge, a camera
(tablectl/config.py checks ``[[sources]] url`` with them)."""

from __future__ import annotations

from urllib.parse import urlsplit


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


def check_camera_url(url: str) -> str:
    """Accept a capture device index (``0``), a file path, or an rtsp/http(s) URL."""
    if url.isdigit() or url.startswith("/"):
        return url
    if urlsplit(url).scheme in ("rtsp", "http", "https", "file"):
        return url
    raise ValueError(
        f"not a camera URL: {url!r} (expected a device index, a file path, or rtsp:// or "
        "http(s)://)"
    )


__all__ = ["check_camera_url", "check_serial_url"]
