"""What a failed connection to the floor's PostgreSQL means, in words a card-room manager can
act on: a server that is not there yet (wait for it), or a database that is not set up for
the floor (it does not exist, or the server refuses the login: waiting does not help), with
the command that creates it.

>>> where("postgresql://floor:secret@db:5433/floor")
'db:5433/floor'
>>> createdb_command("postgresql://floor:secret@db/floor")
'createdb -h db -U postgres -O floor floor'
>>> print(setup_problem("postgresql://floor@db/floor",
...                     'connection failed: ... FATAL: database "floor" does not exist'))
... # doctest: +NORMALIZE_WHITESPACE
database floor does not exist on db:5432: create it (as a PostgreSQL superuser) with:
createdb -h db -U postgres -O floor floor (docs/floor.md, "Setting up the database")
"""

from __future__ import annotations

import re
import shlex
from typing import Final
from urllib.parse import unquote, urlsplit

_MISSING: Final = re.compile(r'database "([^"]{1,100})" does not exist')
_LOGIN: Final = re.compile(r'role "[^"]{1,100}" does not exist|password authentication failed'
                           r"|no pg_hba\.conf entry|peer authentication failed")
_DOC: Final = 'docs/floor.md, "Setting up the database"'


def _parts(url: str) -> tuple[str, int | None, str, str]:
    """``(host, port, user, database)`` of a ``postgresql://`` URL (empty when not given)."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return (parts.hostname or "", port, unquote(parts.username or ""),
            unquote(parts.path.lstrip("/")))


def where(url: str) -> str:
    """``host:port/database`` of ``url``, never its password."""
    host, port, _, database = _parts(url)
    return f"{host or 'localhost'}:{port or 5432}/{database}"


def createdb_command(url: str) -> str:
    """The ``createdb`` command line that creates the database of ``url``, owned by its user,
    run as the server's superuser ``postgres``."""
    host, port, user, database = _parts(url)
    words = ["createdb"]
    if host:
        words += ["-h", host]
    if port:
        words += ["-p", str(port)]
    words += ["-U", "postgres"]
    if user:
        words += ["-O", user]
    words.append(database or "floor")
    return " ".join(shlex.quote(w) for w in words)


def setup_problem(url: str, error: str) -> str | None:
    """What to do when connecting to ``url`` failed with ``error`` (the driver's message)
    because the database is not set up; None when the server may just not be there yet."""
    host, port, _, _ = _parts(url)
    server = f"{host or 'localhost'}:{port or 5432}"
    if (found := _MISSING.search(error)) is not None:
        return (f"database {found.group(1)} does not exist on {server}: create it (as a "
                f"PostgreSQL superuser) with: {createdb_command(url)} ({_DOC})")
    if (found := _LOGIN.search(error)) is not None:
        return (f"the server at {server} refuses the login ({found.group(0)}): create the "
                f"user or give it access ({_DOC})")
    return None


__all__ = ["createdb_command", "setup_problem", "where"]
