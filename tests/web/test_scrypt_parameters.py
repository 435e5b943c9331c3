"""A users file's scrypt parameters are refused at load when a login could not afford them.
Before, any power of two loaded: ``scrypt$1099511627776$8$1$...`` was taken and each login
then ended in OpenSSL's "memory limit exceeded" ValueError inside the request handler; a
5000-digit n was refused with Python's own int-conversion message; a salt that is not base64
loaded and failed every login with binascii's error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.web.auth import Users, hash_password, verify_password
from tablectl.web.errors import UsersFileError

SALT = "AAAAAAAAAAAAAAAAAAAAAA=="
HASH = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

REFUSED = {
    "huge n": (f"scrypt$1073741824$8$1${SALT}${HASH}",
               "scrypt parameters n=1073741824, r=8, p=1 need 1048576 MiB per login, more "
               "than 64 MiB"),
    "13 digits": (f"scrypt$1099511627776$8$1${SALT}${HASH}",
                  "n=109951162777..., r=8, p=1: far more than a login can afford"),
    "memory through r": (f"scrypt$16384$1024$1${SALT}${HASH}",
                         "need 2048 MiB per login, more than 64 MiB"),
    "work through p": (f"scrypt$16384$8$1000${SALT}${HASH}",
                       "take 1000 times the default work per login, more than 8"),
    "5000 digits": (f"scrypt${'1' * 5000}$8$1${SALT}${HASH}",
                    "n=111111111111..., r=8, p=1: far more than a login can afford"),
    "not a number": (f"scrypt$1e3$8$1${SALT}${HASH}", "n=1e3, r=8, p=1: not whole numbers"),
    "arabic digit": (f"scrypt$16384$٨$1${SALT}${HASH}", "r=٨, p=1: not whole numbers"),
    "not a power of two": (f"scrypt$1000$8$1${SALT}${HASH}", "n must be a power of 2"),
    "p zero": (f"scrypt$16384$8$0${SALT}${HASH}", "r and p at least 1"),
    "salt not base64": (f"scrypt$16384$8$1$A${HASH}", "the salt or the hash is not base64"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_absurd_parameters_are_refused_at_load(case: str) -> None:
    encoded, expected = REFUSED[case]
    with pytest.raises(UsersFileError) as info:
        Users.parse({"users": [{"name": "a", "role": "dealer", "password": encoded}]})
    message = str(info.value)
    assert "users[0].password: " in message and expected in message
    assert "tablectl web --hash-password" in message
    assert "\n" not in message and len(message) < 300
    assert not verify_password("x", encoded)     # and a login is refused, not an exception


def test_the_default_hash_and_its_neighbours_load() -> None:
    users = Users.parse({"users": [
        {"name": "a", "role": "dealer", "password": hash_password("pw")},
        {"name": "b", "role": "floor", "password": hash_password("pw", n=2**10)},
        {"name": "c", "role": "floor", "password": f"scrypt$65536$8$1${SALT}${HASH}"},
    ]})
    assert users.authenticate("a", "pw") is not None
    assert users.authenticate("a", "no") is None


def test_config_check_names_the_absurd_hash(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[2]
    text = (root / "config" / "casino-holdem.toml").read_text()
    text = text.replace('"decks/', f'"{root}/config/decks/').replace(
        'path = "/var/lib/tablectl/t01.sqlite"', f'path = "{tmp_path}/t01.sqlite"')
    (tmp_path / "users.toml").write_text(
        f'[[users]]\nname = "d"\nrole = "dealer"\npassword = "{REFUSED["huge n"][0]}"\n')
    (tmp_path / "t.toml").write_text(text + '\n[web]\nusers = "users.toml"\n')
    assert main(["config", "check", str(tmp_path / "t.toml")]) == 2
    err = capsys.readouterr().err
    assert "error: web.users: tablectl web would not start: " in err
    assert "need 1048576 MiB per login" in err
