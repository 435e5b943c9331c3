"""A config that parses but cannot work: ``config check`` names each problem (errors exit 2,
warnings are printed as warnings) and ``tablectl run`` ends with one line and exit 2, never a
traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.clock import ManualClock
from tablectl.doctor import Status, check_journal
from tablectl.journal import SqliteJournal

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "config" / "casino-holdem.toml"


def variant(tmp_path: Path, *edits: tuple[str, str], append: str = "") -> Path:
    text = EXAMPLE.read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    text = text.replace('"decks/', f'"{ROOT}/config/decks/')
    text = text.replace('path = "/var/lib/tablectl/t01.sqlite"',
                        f'path = "{tmp_path}/journal/t01.sqlite"')
    out = tmp_path / "table.toml"
    out.write_text(text + append)
    return out


def check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["config", "check", str(path)])
    got = capsys.readouterr()
    return code, got.out, got.err


def test_the_variant_itself_checks_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = check(variant(tmp_path), capsys)
    assert (code, err) == (0, "")
    assert "ok" in out and "2 sources" in out


@pytest.mark.parametrize(("edits", "expected"), [
    ([("# credentials = ", "credentials = ")],
     "error: mqtt.credentials: secrets/controller-t01.toml does not exist: create it"),
    ([("roles = { dealer-t01", "# roles = { dealer-t01")],
     "error: access.roles: no roles: every command over MQTT is refused not_authorised"),
    ([("small_blind = 100", "small_blind = 300")],
     "game.stakes: the small blind (300) is larger than the big blind (200)"),
])
def test_an_unworkable_config_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          edits: list[tuple[str, str]], expected: str) -> None:
    code, out, err = check(variant(tmp_path, *edits), capsys)
    assert code == 2
    assert expected in err.replace(str(tmp_path) + "/", "")
    assert "ok" not in out and "Traceback" not in err


@pytest.mark.parametrize(("text", "expected"), [
    ('user = "controller-t01"\n', "username: credentials need a username (and a password)"),
    ("username = \n", "credentials: not valid TOML: "),
])
def test_a_credentials_file_the_table_would_refuse_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "controller-t01.toml").write_text(text)
    code, out, err = check(variant(tmp_path, ("# credentials = ", "credentials = ")), capsys)
    assert code == 2 and "ok" not in out
    assert "error: mqtt.credentials: secrets/controller-t01.toml: " + expected in err.replace(
        str(tmp_path) + "/", "")
    assert 'write it as TOML with username = "..."' in err


def test_web_without_users_is_a_warning(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = check(variant(tmp_path, append="\n[web]\nport = 8080\n"), capsys)
    assert code == 0
    assert "warning: web.users: not set: the table display works, but nobody can log in" in err
    # and the console's broker user (console-t01) has no role in the example's roles
    assert "warning: access.roles: the dealer console sends commands as 'console-t01'" in err
    assert "ok" in out and "2 warnings)" in out


def test_a_users_file_the_web_server_would_refuse_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A plain-text password: ``tablectl web`` refuses to start, so config check says so."""
    (tmp_path / "users.toml").write_text(
        '[[users]]\nname = "dealer1"\nrole = "dealer"\npassword = "felt"\n')
    code, out, err = check(variant(tmp_path, append='\n[web]\nusers = "users.toml"\n'),
                           capsys)
    assert code == 2 and "ok" not in out
    assert ("error: web.users: tablectl web would not start: users.toml: users[0].password: "
            "password is not an scrypt hash (make one with tablectl web --hash-password)"
            in err.replace(str(tmp_path) + "/", ""))


def test_a_journal_under_a_file_is_an_error(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plain").write_text("")
    path = variant(tmp_path, ('path = "/var/lib/tablectl/t01.sqlite"',
                              f'path = "{tmp_path}/plain/db/t01.sqlite"'))
    code, _, err = check(path, capsys)
    assert code == 2
    assert f"error: journal.path: cannot create the folder {tmp_path}/plain/db: " \
           f"{tmp_path}/plain is a file" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_journal_folder_nobody_may_create_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    path = variant(tmp_path, ('path = "/var/lib/tablectl/t01.sqlite"',
                              f'path = "{locked}/tablectl/t01.sqlite"'))
    code, _, err = check(path, capsys)
    assert code == 2
    assert f"cannot create {locked}/tablectl (no write permission in {locked})" in err


@pytest.mark.parametrize(("journal", "problem"), [
    ("/proc/nope/journal.sqlite", "cannot create the folder /proc/nope: No such file or directory"),
    ("/proc/journal.sqlite", "cannot write in the folder /proc: No such file or directory"),
])
def test_a_journal_folder_the_os_refuses_is_an_error_even_for_root(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], journal: str, problem: str) -> None:
    """os.access says yes to root for /proc; creating a file or a folder there fails."""
    path = variant(tmp_path, ('path = "/var/lib/tablectl/t01.sqlite"', f'path = "{journal}"'))
    code, _, err = check(path, capsys)
    assert code == 2
    assert f"error: journal.path: {problem}" in err
    # tablectl doctor's check tries the same way
    writable = check_journal(Path(journal))[0]
    assert writable.name == "journal directory writable" and writable.status is Status.FAIL


@pytest.mark.parametrize("journal", ["plain/db/t01.sqlite", "folder"])
def test_run_with_an_impossible_journal_says_so_in_one_line(tmp_path: Path,
                                                            journal: str) -> None:
    (tmp_path / "plain").write_text("")
    (tmp_path / "folder").mkdir()
    out = subprocess.run([sys.executable, "-m", "tablectl", "run", "--config",
                          str(variant(tmp_path)), "--journal", str(tmp_path / journal)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    lines = [line for line in out.stderr.splitlines() if "tablectl run:" in line]
    assert len(lines) == 1 and "journal.path:" in lines[0], out.stderr


def test_run_on_a_journal_another_run_writes_says_so_in_one_line(tmp_path: Path) -> None:
    journal = tmp_path / "busy.sqlite"
    with SqliteJournal.open(journal, ManualClock()):      # the table's running daemon
        out = subprocess.run([sys.executable, "-m", "tablectl", "run", "--config",
                              str(variant(tmp_path)), "--journal", str(journal)],
                             capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    lines = [line for line in out.stderr.splitlines() if "tablectl run:" in line]
    assert len(lines) == 1, out.stderr
    assert "in use by another process" in lines[0] and "stop it first" in lines[0]
