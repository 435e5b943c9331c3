"""The URLs a table config and the commands name: a serial device or bridge, a camera
(tablectl/config.py checks ``[[sources]] url`` with them), a broker (``mqtt.url``,
``web.secure_url``, every ``--broker``), a database (every ``--db``); and the same checks as
argparse ``type=`` callables, for the commands of every layer (tablectl/cli, tablectl/floor,
tablectl/tournament): a bad URL is a usage line naming the option (exit 2)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
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
    >>> check_camera_url("ftp://cam:s3cret@10.0.0.7/x")
    Traceback (most recent call last):
    ...
    ValueError: not a camera URL: 'ftp://cam:***@10.0.0.7/x' (expected ...)
    """
    if camera_index(url) is not None or url.startswith("/"):
        return url
    if urlsplit(url).scheme in ("rtsp", "http", "https", "file"):
        return url
    raise ValueError(
        f"not a camera URL: {hide_password(url)[:60]!r} (expected a device index "
        f"0..{MAX_CAMERA_INDEX}, a file path, or rtsp:// or http(s)://)"
    )


def hide_password(url: str) -> str:
    """``url`` with the password in its user info shown as ``***``, for logs and replies
    (a camera's ``rtsp://user:password@host/...``); anything else as it is.

    >>> hide_password("rtsp://admin:s3cret@10.0.0.7:554/live?x=a@b")
    'rtsp://admin:***@10.0.0.7:554/live?x=a@b'
    >>> hide_password("http://cam.local/mjpg"), hide_password("/dev/video0")
    ('http://cam.local/mjpg', '/dev/video0')
    """
    m = _AUTHORITY.match(url)
    if m is None:
        return url
    scheme, authority, rest = m.groups()
    userinfo, at, host = authority.rpartition("@")
    if not at or ":" not in userinfo:
        return url
    return f"{scheme}{userinfo.partition(':')[0]}:***@{host}{rest}"


_AUTHORITY: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)(.*)", re.DOTALL)


def check_broker_url(url: str, *, schemes: tuple[str, ...] = ("mqtt", "mqtts"),
                     port_required: bool = True) -> str:
    """Accept ``mqtt://host:port`` or ``mqtts://host:port`` (port 1..65535; nothing after it:
    no path, query or fragment, which no MQTT client reads); raise ValueError otherwise, in one
    line that names the URL and what was expected. With ``port_required=False`` a URL without
    a port is taken (the client's default).

    >>> check_broker_url("mqtt://127.0.0.1:1883")
    'mqtt://127.0.0.1:1883'
    >>> check_broker_url("mqtt://h:0")
    Traceback (most recent call last):
    ...
    ValueError: not a broker URL: 'mqtt://h:0' (port 0 is no port; expected mqtt://host:port or mqtts://host:port)
    """
    expected = " or ".join(f"{s}://host:port" for s in schemes)
    shown = repr(url) if len(url) <= 60 else f"{url[:60]!r}... ({len(url)} characters)"

    def refused(why: str = "") -> ValueError:
        return ValueError(f"not a broker URL: {shown} ({why + '; ' if why else ''}"
                          f"expected {expected})")

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:        # urlsplit's own words: "Invalid IPv6 URL", "Port out of..."
        raise refused(str(exc)[:60]) from None
    if parts.scheme not in schemes or not parts.hostname:
        raise refused()
    if port == 0:
        raise refused("port 0 is no port")
    if port is None and (port_required or parts.netloc.endswith(":")):
        raise refused("no port")
    if "@" in parts.netloc:
        raise refused("a user or password in the URL is not read: give a credentials file")
    if parts.path or parts.query or parts.fragment or "?" in url or "#" in url:
        raise refused("a path, query or fragment after the port is not read")
    return url


MAX_DB_URL: Final = 2048
"""The longest database URL taken: a connection string with a long password and options is a
few hundred characters; a longer one is a paste gone wrong."""


def check_db_url(url: str) -> str:
    """Accept ``postgresql://[user[:password]@]host[:port]/database[?options]`` (or
    ``postgres://``); raise ValueError otherwise, in one line that never shows the password
    and escapes what a terminal would act on (the URL once reached the terminal, escape
    sequences and all, inside the server's "database ... does not exist").

    >>> check_db_url("postgresql://floor:secret@db:5433/floor")
    'postgresql://floor:secret@db:5433/floor'
    >>> check_db_url("mysql://floor:secret@db/floor")
    Traceback (most recent call last):
    ...
    ValueError: not a database URL: 'mysql://floor:***@db/floor' (expected postgresql://user@host:port/database)
    """
    def refused(why: str = "") -> ValueError:
        return ValueError(f"not a database URL: {_db_shown(url)} ({why + '; ' if why else ''}"
                          "expected postgresql://user@host:port/database)")

    if len(url) > MAX_DB_URL:
        raise refused(f"{len(url)} characters, at most {MAX_DB_URL}")
    if not (url.isascii() and url.isprintable()):
        raise refused("control or non-ASCII characters: percent-encode them")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:        # urlsplit's own words: "Invalid IPv6 URL", "Port out of..."
        raise refused(str(exc)[:60]) from None
    if parts.scheme not in ("postgresql", "postgres"):
        raise refused()
    if port == 0 or (port is None and parts.netloc.endswith(":")):
        raise refused("no port")
    return url


def _db_shown(url: str) -> str:
    """``url`` as a refusal shows it: its password as ``***``, at most 60 characters, escaped."""
    head, at, tail = url.partition("@")
    if at:
        scheme, sep, login = head.partition("://")
        user, colon, _ = login.partition(":")
        head = f"{scheme}{sep}{user}:***" if colon else head
    shown = head + at + tail
    return ascii(shown[:60]) + ("..." if len(shown) > 60 else "")


def checked(check: Callable[[str], str], text: str) -> str:
    """``check(text)``, its ``ValueError`` turned into argparse's usage error (its reason the
    usage line's): the one way a config's own check serves as an option's ``type=``."""
    try:
        return check(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def db_url_option(text: str) -> str:
    """``--db`` of the floor and tournament commands (:func:`check_db_url`).

    >>> db_url_option("mysql://db/floor")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: not a database URL: 'mysql://db/floor' (expected postgresql://user@host:port/database)
    """
    return checked(check_db_url, text)


def service_broker_url_option(text: str) -> str:
    """``--broker`` of the floor and tournament services: ``mqtt://host[:port]`` or
    ``mqtts://host[:port]``, the port left out meaning the client's default
    (:func:`check_broker_url` with ``port_required=False``).

    >>> service_broker_url_option("mqtt://floor")
    'mqtt://floor'
    """
    return checked(lambda url: check_broker_url(url, port_required=False), text)


__all__ = ["MAX_CAMERA_INDEX", "MAX_DB_URL", "camera_index", "check_broker_url",
           "check_camera_url", "check_db_url", "check_serial_url", "checked", "db_url_option",
           "hide_password", "service_broker_url_option"]
