"""Fixtures for the floor tests: a database of our own in the machine's PostgreSQL.

PostgreSQL runs at 127.0.0.1:5432 with trust authentication for the user ``postgres`` (as CI
and every developer machine of this project have it; ``$FLOOR_TEST_PG`` names another server).
Each test session creates its own database and drops it at the end; each test that wants a
clean history gets a fresh schema-less database of its own from :func:`pg_url`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql

SERVER = os.environ.get("FLOOR_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


def _admin() -> psycopg.Connection[tuple[object, ...]]:
    try:
        return psycopg.connect(SERVER, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL is not reachable at {SERVER} ({exc}); the floor tests need "
                    "it (trust auth for user postgres)")


def database_url(name: str) -> str:
    """The URL of database ``name`` on the test server."""
    return SERVER.rsplit("/", 1)[0] + "/" + name


def create_database(prefix: str = "floor_test") -> str:
    """Create an empty database with a fresh name; returns its name."""
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
    with _admin() as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return name


def drop_database(name: str) -> None:
    """Drop a database made by :func:`create_database` (its connections are ended first)."""
    with _admin() as conn:
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


def terminate_backends(name: str) -> int:
    """``pg_terminate_backend`` every connection to database ``name``; returns how many."""
    with _admin() as conn:
        rows = conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                            "WHERE datname = %s AND pid <> pg_backend_pid()", (name,)).fetchall()
    return len(rows)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A new empty database for one test; dropped afterwards."""
    name = create_database()
    try:
        yield database_url(name)
    finally:
        drop_database(name)
