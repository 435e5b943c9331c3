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


def test_the_engine_only_demo_without_hands_plays_its_default(
        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: `tablectl demo --engine-only` (as the README shows it) ended in a TypeError.
    assert main(["demo", "--engine-only", "--variant", "horse", "--plain"]) == 0
    assert "5 hands of horse" in capsys.readouterr().out
