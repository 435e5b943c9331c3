"""An MJPEG-over-HTTP camera on loopback, serving SimCamera frames like an IP camera does.

Each GET receives the frames once as ``multipart/x-mixed-replace`` JPEG parts, then the
connection closes (the stream ends). ``cv2.VideoCapture(server.url)`` opens it through
FFmpeg, so the camera source's network path is exercised with real sockets.

>>> import numpy as np
>>> with MjpegServer([np.zeros((8, 8, 3), np.uint8)]) as server:
...     server.url.startswith("http://127.0.0.1:")
True
"""

from __future__ import annotations

import http.server
import socketserver
import threading
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.integer[Any] | np.floating[Any]]
_BOUNDARY = b"frame"


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    parts: list[bytes]
    stall: threading.Event | None


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type",
                         f"multipart/x-mixed-replace; boundary={_BOUNDARY.decode()}")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        try:
            for part in self.server.parts:
                self.wfile.write(b"--" + _BOUNDARY + b"\r\nContent-Type: image/jpeg\r\n"
                                 + b"Content-Length: %d\r\n\r\n" % len(part) + part + b"\r\n")
            if self.server.stall is not None:
                # a camera gone quiet: the connection stays open, nothing more comes
                self.wfile.flush()
                self.server.stall.wait()
                return
            self.wfile.write(b"--" + _BOUNDARY + b"--\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: object) -> None:
        return None


class MjpegServer:
    """Serve ``frames`` as an MJPEG stream on ``127.0.0.1`` (a free port); a context manager.

    Args:
        frames: BGR frames, JPEG-encoded once at ``quality``.
        quality: JPEG quality 1..100.
        stall: after the frames, keep each connection open and send nothing more (an IP
            camera gone quiet) instead of ending the stream.
    """

    def __init__(self, frames: Sequence[Image], quality: int = 90, *,
                 stall: bool = False) -> None:
        parts: list[bytes] = []
        for frame in frames:
            ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
            if not ok:
                raise ValueError("cannot JPEG-encode a frame")
            parts.append(buf.tobytes())
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.parts = parts
        self._server.stall = threading.Event() if stall else None
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="sim-mjpeg")

    @property
    def url(self) -> str:
        """The stream's URL, e.g. ``http://127.0.0.1:41234/stream.mjpg``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/stream.mjpg"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._server.stall is not None:
            self._server.stall.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
