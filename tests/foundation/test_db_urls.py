"""Database URLs (``floor ... --db``, ``tournament ... --db`` and ``$TABLECTL_TOURNAMENT_DB``)
are checked before anything connects (``tablectl.config_urls.check_db_url``).

Before: only the scheme was looked at. ``$TABLECTL_TOURNAMENT_DB=mysql://...`` ended
``tablectl tournament`` in argparse's ``ArgumentTypeError`` traceback (the variable is read
past argparse); a database name holding an escape sequence reached the terminal as it was,
inside the server's "database ... does not exist"; a port past 65535 was a "database
unavailable" (exit 1, as if the server were down) rather than a usage error.
"""

from __future__ import annotations

import pytest

from tablectl.cli import main

PG = "postgresql://floor:s3cret@127.0.0.1:5432"
CASES = {
    "another scheme": ("mysql://floor:s3cret@127.0.0.1/x", "'mysql://floor:***@127.0.0.1/x'"),
    "escape sequence": (f"{PG}/a\x1b[2J", "a\\x1b[2J"),
    "right-to-left mark": (f"{PG}/\u202ex", "\\u202ex"),
    "port out of range": ("postgresql://floor:s3cret@127.0.0.1:99999/x", "Port out of range"),
    "no port after colon": ("postgresql://127.0.0.1:/x", "no port"),
    "broken IPv6": ("postgresql://[::1/x", "Invalid IPv6 URL"),
    "a megabyte": (f"{PG}/" + "x" * 1_000_000, f"{len(PG) + 1_000_001} characters, at most 2048"),
}


@pytest.mark.parametrize(("url", "said"), CASES.values(), ids=CASES.keys())
def test_a_bad_db_url_is_a_usage_error_that_hides_the_password(
        url: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["floor", "hands", "--db", url])
    assert ended.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "argument --db: not a database URL: " in err and said in err, err[:300]
    assert "s3cret" not in err and "\x1b" not in err and "\u202e" not in err
    assert len(err) < 300


@pytest.mark.parametrize(("url", "said"), CASES.values(), ids=CASES.keys())
def test_a_bad_tournament_db_from_the_environment_is_one_line_not_a_traceback(
        url: str, said: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLECTL_TOURNAMENT_DB", url)
    assert main(["tournament", "start", "t1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tablectl tournament: $TABLECTL_TOURNAMENT_DB: not a database URL: ")
    assert said in err and "s3cret" not in err and "\x1b" not in err, err[:300]
    assert len(err.splitlines()) == 1 and len(err) < 300


def test_a_good_db_url_goes_through() -> None:
    from tablectl.config_urls import check_db_url

    for url in (f"{PG}/floor", "postgres://db/floor?sslmode=require&connect_timeout=5",
                "postgresql://[::1]:5433/x", "postgresql:///floor?host=/run/postgresql"):
        assert check_db_url(url) == url
