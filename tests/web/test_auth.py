"""Users file, password hashes and sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.clock import ManualClock
from tablectl.web.auth import LoginRole, SessionStore, User, Users, hash_password, verify_password
from tablectl.web.errors import UsersFileError
from tests.web.conftest import PASSWORDS, users_toml


def test_users_file_authenticates_by_hash(tmp_path: Path) -> None:
    path = tmp_path / "users.toml"
    path.write_text(users_toml())
    users = Users.load(path)
    dealer = users.authenticate("dealer1", PASSWORDS["dealer1"])
    assert dealer is not None and dealer.role is LoginRole.DEALER
    assert users.authenticate("dealer1", PASSWORDS["camera"]) is None
    assert users.authenticate("nobody", PASSWORDS["camera"]) is None
    assert PASSWORDS["dealer1"] not in path.read_text()


def test_hashes_are_salted() -> None:
    assert hash_password("same", n=2**10) != hash_password("same", n=2**10)
    assert not verify_password("x", "not-a-hash")


@pytest.mark.parametrize(("text", "problem"), [
    ('[[users]]\nname = "a"\nrole = "dealer"\npassword = "plain"\n', "not an scrypt hash"),
    ('[[users]]\nname = "a"\nrole = "boss"\npassword = "x"\n', "not dealer, floor or broadcast"),
    ('[[users]]\nname = "a b"\nrole = "dealer"\npassword = "x"\n', "not a login name"),
    ("users = 3\n", "array of tables"),
    ("[[users]\n", "not valid TOML"),
])
def test_bad_users_files_are_refused_with_a_reason(tmp_path: Path, text: str,
                                                   problem: str) -> None:
    path = tmp_path / "users.toml"
    path.write_text(text)
    with pytest.raises(UsersFileError, match=problem):
        Users.load(path)


def test_duplicate_names_are_refused() -> None:
    entry = {"name": "a", "role": "dealer", "password": hash_password("p", n=2**10)}
    with pytest.raises(UsersFileError, match="appears twice"):
        Users.parse({"users": [entry, entry]})


def test_sessions_expire_on_the_injected_clock() -> None:
    clock = ManualClock()
    store = SessionStore(clock, ttl=60)
    session = store.create(User("a", LoginRole.DEALER, ""))
    assert store.get(session.token) == session
    assert session.csrf != session.token
    clock.advance(59)
    assert store.get(session.token) is not None
    clock.advance(1)
    assert store.get(session.token) is None
    assert store.get(None) is None
    other = store.create(User("b", LoginRole.BROADCAST, ""))
    store.drop(other.token)
    assert store.get(other.token) is None
