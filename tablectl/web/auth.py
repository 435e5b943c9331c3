"""Page logins: the users file, password hashes and server-side sessions.

The users file is TOML, one table per login::

    [[users]]
    name = "dealer1"
    role = "dealer"            # dealer or floor: the console; broadcast: the overlay
    password = "scrypt$16384$8$1$<salt, base64>$<hash, base64>"

Hashes are made by :func:`hash_password` (``tablectl web --hash-password``); plain-text
passwords are refused. A session is a random token in an HttpOnly, SameSite=Strict cookie;
the session also carries a CSRF token that every state-changing request must echo in a header.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Final

from tablectl.clock import Clock
from tablectl.controller.table import PERMISSIONS, Role
from tablectl.domain.textfile import TextFileError, read_toml_file
from tablectl.web.errors import UsersFileError

SCRYPT_N: Final = 2**14
SCRYPT_R: Final = 8
SCRYPT_P: Final = 1
_HASH_RE: Final = re.compile(
    r"^scrypt\$(?P<n>[^$]+)\$(?P<r>[^$]+)\$(?P<p>[^$]+)\$(?P<salt>[A-Za-z0-9+/=]+)\$(?P<hash>[A-Za-z0-9+/=]+)\Z"
)
_NAME_RE: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


class LoginRole(StrEnum):
    """What a login may open: the console (dealer, floor) or the overlay (broadcast)."""

    DEALER = "dealer"
    FLOOR = "floor"
    BROADCAST = "broadcast"


CONSOLE_ROLES: Final = frozenset({LoginRole.DEALER, LoginRole.FLOOR})
"""Logins that open the dealer console."""

LOGIN_COMMANDS: Final[Mapping[LoginRole, frozenset[str]]] = MappingProxyType({
    LoginRole.DEALER: PERMISSIONS[Role.DEALER] | {"recall"},
    LoginRole.FLOOR: PERMISSIONS[Role.FLOOR] | {"recall"},
    LoginRole.BROADCAST: frozenset(),
})
"""The console commands each login may send: the daemon's own role table
(:data:`~tablectl.controller.table.PERMISSIONS`) for the role of the same name, and
``recall`` (answered for any role). A dealer login never adjusts a stack, whatever role the
web server's broker user has at the table."""


MAX_SCRYPT_MEMORY: Final = 64 * 1024 * 1024
"""The most memory one login's hash may take (scrypt takes 128 * n * r bytes; the default
parameters 16 MiB)."""
MAX_SCRYPT_WORK: Final = 8 * SCRYPT_N * SCRYPT_R * SCRYPT_P
"""The most work (n * r * p) one login's hash may take: 8 times the default (tens of ms), so a
users file cannot make each login hang the web server for seconds or minutes."""


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p,
                          maxmem=2 * MAX_SCRYPT_MEMORY, dklen=32)


def hash_password(password: str, *, n: int = SCRYPT_N) -> str:
    """Hash a password with scrypt and a random salt, in the users-file format.

    >>> h = hash_password("s3cret", n=2**10)
    >>> h.startswith("scrypt$1024$8$1$"), verify_password("s3cret", h), verify_password("x", h)
    (True, True, False)
    """
    if not password:
        raise ValueError("empty password")
    salt = secrets.token_bytes(16)
    digest = _scrypt(password, salt, n, SCRYPT_R, SCRYPT_P)
    b64 = base64.b64encode
    return f"scrypt${n}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


@dataclass(frozen=True, slots=True)
class _Hash:
    """A decoded users-file hash: scrypt's parameters, the salt and the digest."""

    n: int
    r: int
    p: int
    salt: bytes
    digest: bytes


_HASH_HINT: Final = "make one with tablectl web --hash-password"


def _check_hash(encoded: str) -> _Hash:
    """Decode ``encoded`` with parameters a login can afford.

    >>> try:
    ...     _check_hash("scrypt$1073741824$8$1$AAAA$AAAA")
    ... except ValueError as exc:
    ...     print(str(exc).split(" (")[0])
    scrypt parameters n=1073741824, r=8, p=1 need 1048576 MiB per login, more than 64 MiB

    Raises:
        ValueError: not an scrypt hash, parameters that are not whole numbers, invalid or
            beyond :data:`MAX_SCRYPT_MEMORY` and :data:`MAX_SCRYPT_WORK`, or a salt or
            digest that is not base64.
    """
    match = _HASH_RE.match(encoded)
    if match is None:
        raise ValueError(f"password is not an scrypt hash ({_HASH_HINT})")
    words = {k: match[k] for k in ("n", "r", "p")}
    shown = ", ".join(f"{k}={v[:12]}{'...' if len(v) > 12 else ''}" for k, v in words.items())
    if not all(v.isascii() and v.isdigit() for v in words.values()):
        raise ValueError(f"scrypt parameters {shown}: not whole numbers ({_HASH_HINT})")
    if any(len(v) > 12 for v in words.values()):
        raise ValueError(f"scrypt parameters {shown}: far more than a login can afford "
                         f"({_HASH_HINT})")
    n, r, p = (int(v) for v in words.values())
    if n < 2 or n & (n - 1) or r < 1 or p < 1:
        raise ValueError(f"scrypt parameters {shown}: n must be a power of 2 from 2, r and p "
                         f"at least 1 ({_HASH_HINT})")
    if 128 * n * r > MAX_SCRYPT_MEMORY:
        raise ValueError(f"scrypt parameters {shown} need {128 * n * r // 2**20} MiB per "
                         f"login, more than {MAX_SCRYPT_MEMORY // 2**20} MiB ({_HASH_HINT})")
    if n * r * p > MAX_SCRYPT_WORK:
        raise ValueError(f"scrypt parameters {shown} take {n * r * p / (SCRYPT_N * SCRYPT_R):g} "
                         f"times the default work per login, more than "
                         f"{MAX_SCRYPT_WORK // (SCRYPT_N * SCRYPT_R)} ({_HASH_HINT})")
    try:
        salt = base64.b64decode(match["salt"], validate=True)
        digest = base64.b64decode(match["hash"], validate=True)
    except ValueError:
        raise ValueError(f"password hash: the salt or the hash is not base64 ({_HASH_HINT})"
                         ) from None
    return _Hash(n, r, p, salt, digest)


def verify_password(password: str, encoded: str) -> bool:
    """True when ``password`` matches the hash ``encoded`` (constant-time comparison); False
    for a hash :func:`_check_hash` refuses."""
    try:
        decoded = _check_hash(encoded)
    except ValueError:
        return False
    got = _scrypt(password, decoded.salt, decoded.n, decoded.r, decoded.p)
    return hmac.compare_digest(got, decoded.digest)


@dataclass(frozen=True, slots=True)
class User:
    """A page login."""

    name: str
    role: LoginRole
    password_hash: str


_DUMMY_HASH: Final = (
    "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
)


class Users:
    """The page logins, by name.

    Args:
        users: the logins; names must be distinct.
    """

    def __init__(self, users: Mapping[str, User]) -> None:
        self._users = dict(users)

    def __len__(self) -> int:
        return len(self._users)

    @classmethod
    def load(cls, path: Path) -> Users:
        """Read a users file.

        Raises:
            UsersFileError: unreadable, not TOML, or any entry invalid (all are named).
        """
        try:
            data = read_toml_file(path)
        except TextFileError as exc:
            raise UsersFileError(str(path), exc.said("users file")) from None
        return cls.parse(data, source=str(path))

    @classmethod
    def parse(cls, data: Mapping[str, object], *, source: str = "<users>") -> Users:
        """Validate already-parsed users data (see the module docstring for the layout).

        Raises:
            UsersFileError: every problem, one per line, each with its entry index.
        """
        problems: list[str] = []
        users: dict[str, User] = {}
        extra = sorted(set(data) - {"users"})
        if extra:
            problems.append(f"unknown key(s): {', '.join(extra)}")
        entries = data.get("users", [])
        if not isinstance(entries, list):
            entries = []
            problems.append("users: must be an array of tables ([[users]])")
        for i, entry in enumerate(entries):
            where = f"users[{i}]"
            if not isinstance(entry, dict):
                problems.append(f"{where}: must be a table")
                continue
            name, role, password = entry.get("name"), entry.get("role"), entry.get("password")
            unknown = sorted(set(entry) - {"name", "role", "password"})
            if unknown:
                problems.append(f"{where}: unknown key(s): {', '.join(unknown)}")
            if not isinstance(name, str) or not _NAME_RE.match(name):
                problems.append(f"{where}.name: not a login name: {name!r}")
                continue
            if name in users:
                problems.append(f"{where}.name: {name!r} appears twice")
            if role not in tuple(LoginRole):
                problems.append(f"{where}.role: {role!r} is not dealer, floor or broadcast")
                continue
            if not isinstance(password, str):
                problems.append(f"{where}.password: required")
                continue
            try:
                _check_hash(password)
            except ValueError as exc:
                problems.append(f"{where}.password: {exc}")
                continue
            users[name] = User(name, LoginRole(str(role)), password)
        if problems:
            raise UsersFileError(source, "; ".join(problems))
        return cls(users)

    def authenticate(self, name: str, password: str) -> User | None:
        """The user when the name and password match, else None (CPU-bound: ~50 ms)."""
        user = self._users.get(name)
        ok = verify_password(password, user.password_hash if user else _DUMMY_HASH)
        return user if user is not None and ok else None


@dataclass(frozen=True, slots=True)
class Session:
    """A logged-in browser: ``token`` is its cookie, ``csrf`` the header it must echo."""

    token: str
    user: str
    role: LoginRole
    csrf: str
    expires: float


class SessionStore:
    """Server-side sessions in memory (a restart logs everyone out).

    Args:
        clock: monotonic time for expiry.
        ttl: seconds a session lives after login.
    """

    def __init__(self, clock: Clock, *, ttl: float = 12 * 3600) -> None:
        self._clock = clock
        self._ttl = ttl
        self._sessions: dict[str, Session] = {}

    def create(self, user: User) -> Session:
        """Open a session for ``user``."""
        now = self._clock.monotonic()
        self._sessions = {t: s for t, s in self._sessions.items() if s.expires > now}
        session = Session(secrets.token_urlsafe(32), user.name, user.role,
                          secrets.token_urlsafe(32), now + self._ttl)
        self._sessions[session.token] = session
        return session

    def get(self, token: str | None) -> Session | None:
        """The live session of a cookie value, or None."""
        if not token:
            return None
        session = self._sessions.get(token)
        if session is None:
            return None
        if session.expires <= self._clock.monotonic():
            del self._sessions[token]
            return None
        return session

    def drop(self, token: str) -> None:
        """End a session (logout)."""
        self._sessions.pop(token, None)


class LoginThrottle:
    """Slows password guessing: after ``limit`` failed logins for one name within ``window``
    seconds, that name is refused without checking the password for ``lockout`` seconds.

    >>> from tablectl.clock import ManualClock
    >>> clock = ManualClock()
    >>> throttle = LoginThrottle(clock, limit=2, window=60, lockout=30)
    >>> throttle.failed("dealer1"); throttle.failed("dealer1"); throttle.blocked("dealer1")
    True
    >>> clock.advance(30); throttle.blocked("dealer1")
    False
    """

    def __init__(self, clock: Clock, *, limit: int = 5, window: float = 300.0,
                 lockout: float = 60.0) -> None:
        self._clock = clock
        self._limit = limit
        self._window = window
        self._lockout = lockout
        self._failures: dict[str, list[float]] = {}
        self._until: dict[str, float] = {}

    def blocked(self, name: str) -> bool:
        """True while ``name`` is locked out."""
        until = self._until.get(name)
        if until is None:
            return False
        if self._clock.monotonic() >= until:
            del self._until[name]
            return False
        return True

    def failed(self, name: str) -> None:
        """Count a failed login for ``name``."""
        now = self._clock.monotonic()
        recent = [t for t in self._failures.get(name, []) if now - t < self._window]
        recent.append(now)
        if len(recent) >= self._limit:
            self._until[name] = now + self._lockout
            recent = []
        self._failures[name] = recent
        if len(self._failures) > 10_000:  # bound memory against a flood of made-up names
            self._failures = {name: recent}

    def succeeded(self, name: str) -> None:
        """Forget ``name``'s failures."""
        self._failures.pop(name, None)
