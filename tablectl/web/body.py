"""What a browser sends the web server, decoded before anything uses it.

* A request body is read only up to a small limit: a ``Content-Length`` above it is refused
  before a byte is read, and a body sent without one (chunked) is refused as soon as it
  passes the limit.
* A JSON body (``POST /api/cmd/{name}``: ``{"args": {...}}``) goes through the strict decoder
  (:mod:`tablectl.domain.strictjson`): no NaN or Infinity, integers a browser and the daemon's
  journal hold, bounded strings without control characters, bounded depth, no key twice,
  nothing beside ``args``. So ``{"args":{"amount":NaN}}`` is refused here and never reaches
  the daemon.
* The login form's fields are UTF-8, bounded and free of control characters.
* A session cookie or CSRF header that cannot be one of ours (too long, not printable ASCII)
  is treated as absent.

Every refusal is a :class:`BadRequest` saying what and why; the server answers it with 400
(413 for a body too large) and ``{"ok": false, "error": {"code": "bad_request", "what",
"reason"}}``.

>>> command_args(b'{"args": {"seat": 3, "kind": "call"}}')
{'seat': 3, 'kind': 'call'}
>>> command_args(b'{"args": {"amount": NaN}}')
Traceback (most recent call last):
...
tablectl.web.body.BadRequest: $.amount: NaN is not a number JSON allows
"""

from __future__ import annotations

from typing import Final
from urllib.parse import parse_qs

from starlette.requests import ClientDisconnect, Request

from tablectl.domain.jsonvalue import JsonValue
from tablectl.domain.strictjson import JsonLimits, StrictJsonError, check_text, decode_object

MAX_BODY: Final = 16 * 1024
"""Bytes of a command body (the largest console command is a few hundred)."""
MAX_FORM: Final = 4 * 1024
"""Bytes of the login form."""
API_LIMITS: Final = JsonLimits(max_bytes=MAX_BODY, max_depth=6, max_string=256, max_key=64,
                               max_items=64)
"""A console command's body: ``{"args": {...}}`` with a few short values."""
MAX_TOKEN: Final = 128
"""Characters of a session cookie or CSRF token that can be ours (ours are 43)."""


class BadRequest(ValueError):  # noqa: N818 (named after the HTTP answer it becomes)
    """A request refused for what it holds: ``what`` (a field, ``body``, a header) and
    ``reason``; ``status`` is the HTTP status to answer with."""

    def __init__(self, what: str, reason: str, status: int = 400) -> None:
        super().__init__(f"{what}: {reason}")
        self.what, self.reason, self.status = what, reason, status

    def to_json(self) -> dict[str, object]:
        """The answer's body."""
        return {"ok": False, "error": {"code": "bad_request", "what": self.what,
                                       "reason": str(self)}}


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, at most ``limit`` bytes, or :class:`BadRequest` (413) without
    reading more than ``limit`` of it.

    Raises:
        BadRequest: a ``Content-Length`` that is not a number or is above ``limit``, a body
            longer than ``limit``, or a client gone before the end.
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit() or len(declared) > 12:
            raise BadRequest("Content-Length", f"not a size: {declared[:24]!r}")
        if int(declared) > limit:
            raise BadRequest("body", f"{int(declared)} bytes is larger than {limit}", 413)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BadRequest("body", f"larger than {limit} bytes", 413)
            chunks.append(chunk)
    except ClientDisconnect:
        raise BadRequest("body", "the client went away before the end") from None
    return b"".join(chunks)


def command_args(body: bytes) -> dict[str, JsonValue]:
    """The ``args`` of a console command body (an empty body: no arguments).

    Raises:
        BadRequest: not strict JSON within :data:`API_LIMITS`, not an object, a field other
            than ``args``, or ``args`` not an object.
    """
    if not body.strip():
        return {}
    try:
        data = decode_object(body, API_LIMITS)
    except StrictJsonError as exc:
        raise BadRequest(exc.where, exc.reason) from None
    extra = sorted(set(data) - {"args"})
    if extra:
        raise BadRequest(f"$.{extra[0]}", "unknown field (a command body is {\"args\": {...}})")
    args = data.get("args", {})
    if not isinstance(args, dict):
        raise BadRequest("$.args", "must be a JSON object")
    return args


def login_form(body: bytes) -> tuple[str, str, str]:
    """``(user, password, next)`` of the login form (each may be empty).

    Raises:
        BadRequest: not UTF-8, more fields than the form has, or a field too long or with
            control characters.
    """
    try:
        text = body.decode("utf-8")
        form = parse_qs(text, max_num_fields=10, encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise BadRequest("form", f"not UTF-8 (byte {exc.start})") from None
    except ValueError as exc:
        raise BadRequest("form", str(exc)) from None
    out = []
    for key, longest in (("user", 64), ("password", 1024), ("next", 64)):
        value = form.get(key, [""])[0]
        try:
            out.append(check_text(value, max_len=longest, where=key, empty=True))
        except StrictJsonError as exc:
            raise BadRequest(exc.where, exc.reason) from None
    return out[0], out[1], out[2]


def token(value: str | None) -> str | None:
    """A cookie or header value that can be one of our tokens, else None.

    >>> token("abc-_123"), token("x" * 500), token("caf\\u00e9"), token(None)
    ('abc-_123', None, None, None)
    """
    if value is None or not 0 < len(value) <= MAX_TOKEN:
        return None
    return value if value.isascii() and value.isprintable() else None


__all__ = ["API_LIMITS", "MAX_BODY", "MAX_FORM", "MAX_TOKEN", "BadRequest", "command_args",
           "login_form", "read_body", "token"]
