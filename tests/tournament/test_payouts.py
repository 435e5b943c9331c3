"""Payouts (tablectl/tournament/payouts.py) and ``tablectl tournament results``: the payout
table as data in the structure, refused when it cannot be right; amounts worked by hand
(rounding, ties, re-entries); the results stored in PostgreSQL when the tournament finishes
and printed by the command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablectl.domain.errors import ConfigError
from tablectl.tournament.field import Field
from tablectl.tournament.payouts import Result, place_amounts, prize_pool, results
from tablectl.tournament.pg import PgTournamentStore
from tablectl.tournament.structure import Structure
from tests.tournament.conftest import SMALL
from tests.tournament.test_cli import Run

LEVEL = "[[level]]\nsmall_blind = 5\nbig_blind = 10\nminutes = 10\n"


def structure(top: str) -> Structure:
    return Structure.parse("starting_stack = 1000\n" + top + "\n" + LEVEL, "t.toml")


def test_a_payout_table_is_data_in_the_structure() -> None:
    s = structure('prize_per_entry = 50\ncurrency = "EUR"\npayouts = [50, 30, 12.5, 7.5]')
    assert (s.paid_places, s.hand_for_hand_at, s.payouts) == (4, 5, (5000, 3000, 1250, 750))
    assert Structure.from_json(s.to_json()) == s
    assert structure("").payouts == () and structure("").currency == "USD"


@pytest.mark.parametrize(("top", "where", "says"), [
    ("prize_per_entry = 10\npayouts = [50, 30]", "payouts", "add up to 80%"),
    ("prize_per_entry = 10\npayouts = [40, 60]", "payouts[1]", "paid more than place 1"),
    ("prize_per_entry = 10\npayouts = [33.333, 33.333, 33.334]", "payouts[0]", "two decimals"),
    ("prize_per_entry = 10\npayouts = [110, -10]", "payouts[0]", "above 0"),
    ("prize_per_entry = 10\npayouts = [nan]", "payouts[0]", "above 0"),
    ("prize_per_entry = 10\npayouts = [true]", "payouts[0]", "above 0"),
    ("prize_per_entry = 10\npayouts = 100", "payouts", "list of percentages"),
    ("payouts = [100]", "prize_per_entry", "is required with payouts"),
    ("prize_per_entry = -5", "prize_per_entry", "whole amount"),
    ("prize_per_entry = 10\npaid_places = 3\npayouts = [60, 40]", "payouts", "paid_places"),
    ('currency = "euro"', "currency", "currency code"),
])
def test_a_payout_table_that_cannot_be_right_is_refused(top: str, where: str,
                                                        says: str) -> None:
    with pytest.raises(ConfigError) as err:
        structure(top)
    assert any(w == where and says in m for w, m in err.value.problems), err.value.problems


def test_amounts_add_up_to_the_pool_and_ties_share() -> None:
    s = structure("prize_per_entry = 10\npayouts = [50, 30, 20]")
    f = Field()
    for name in ("ann", "bob", "cy", "dee", "eve", "fay", "gus"):
        f = f.register(name, 1000)
    # 7 entries: a pool of 70.00; 1/3 cent splits go to 1st
    assert prize_pool(s, f) == 7000
    assert place_amounts(s, 7000) == [3500, 2100, 1400]
    odd = structure("prize_per_entry = 1\npayouts = [33.34, 33.33, 33.33]")
    assert sum(place_amounts(odd, 700)) == 700 and place_amounts(odd, 700) == [234, 233, 233]
    for name in ("gus", "fay", "eve"):
        f = f.bust(name, hand=f"h-{name}", start_chips=100)
    # dee and cy out in one hand with equal chips: tied 3rd, sharing 3rd and 4th (14.00 + 0)
    f = f.bust("dee", hand="h9", start_chips=500).bust("cy", hand="h9", start_chips=500)
    got = [(r.place, r.player, r.amount) for r in results(s, f)]
    assert got[:2] == [(None, "ann", None), (None, "bob", None)]     # two still in
    assert got[2:4] == [(3, "dee", 700), (3, "cy", 700)]
    assert got[4:] == [(5, "eve", 0), (6, "fay", 0), (7, "gus", 0)]
    f = f.bust("bob", hand="h10", start_chips=2000)
    assert [(r.place, r.player, r.amount) for r in results(s, f)][:2] == [
        (1, "ann", 3500), (2, "bob", 2100)]


def test_results_are_stored_when_it_finishes_and_printed(
        pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "paid.toml"
    path.write_text(SMALL.replace("paid_places = 3\n", 'paid_places = 3\nprize_per_entry = 100\n'
                                  'currency = "EUR"\npayouts = [50, 30, 20]\n'))
    db = ["--db", pg_url]

    def ok(*args: str) -> str:
        out = Run(["tournament", *args], capsys)
        assert out.returncode == 0, out.stderr
        return out.stdout

    ok("create", "p1", *db, "--structure", str(path))
    for name in ("Ann Lee", "Bob", "Cy", "Dee"):
        ok("register", "p1", name, *db)
    ok("start", "p1", *db)
    ok("bust", "p1", "Dee", *db, "--start-chips", "500", "--hand", "t1#3")
    text = ok("results", "p1", *db)
    assert "provisional" in text and "prize pool 400.00 EUR, 3 places paid" in text
    assert "    - Ann Lee  still playing" in text and "   4. Dee" in text
    ok("bust", "p1", "Cy", *db, "--start-chips", "800", "--hand", "t1#9")
    ok("bust", "p1", "Bob", *db, "--start-chips", "300", "--hand", "t1#9")
    body = json.loads(ok("results", "p1", *db, "--json"))
    assert body["final"] is True and body["prize_pool_cents"] == 40000
    assert [(r["place"], r["player"], r["amount_cents"]) for r in body["results"]] == [
        (1, "Ann Lee", 20000), (2, "Cy", 12000), (3, "Bob", 8000), (4, "Dee", 0)]
    text = ok("results", "p1", *db)
    assert "p1: final results" in text and "   1. Ann Lee  200.00 EUR" in text
    store = PgTournamentStore(pg_url)
    try:
        assert store.stored_results("p1") == [
            Result(1, "Ann Lee", 1, 20000), Result(2, "Cy", 1, 12000),
            Result(3, "Bob", 1, 8000), Result(4, "Dee", 1, 0)]
    finally:
        store.close()
    assert Run(["tournament", "results", "nope", *db], capsys).returncode == 2
