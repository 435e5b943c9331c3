"""Counts read as English in the command lines' summaries: "1 hand", "2 hands"."""

from __future__ import annotations

import pytest

from tablectl.cli import main


@pytest.mark.parametrize(("hands", "said"), [(1, "1 hand of "), (2, "2 hands of ")])
def test_the_engine_demo_counts_its_hands(hands: int, said: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--engine-only", "--hands", str(hands), "--seed", "1"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith(said), last
