"""PHH: the real-hand corpus replays and matches, written hands read back, the CLI."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.domain.games import RulesPreset
from tablectl.game import PRESETS
from tablectl.history.phh import NOT_DEALT, VARIANTS, PhhHand, load, replay, to_phh
from tests.game.pokerkit_oracle import VARIANTS as ENGINE_VARIANTS
from tests.game.pokerkit_oracle import play_both

CORPUS = Path(__file__).resolve().parents[1] / "data" / "phh"
"""The real hands the project was given (tests/data/phh/README.md: origin and MIT licence)."""
FILES = sorted(CORPUS.rglob("*.phh"))
PHH_RULES = PRESETS[RulesPreset.PHH]



@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CORPUS)) for p in FILES])
def test_every_corpus_hand_of_a_dealt_variant_replays_and_matches(path: Path) -> None:
    (phh,) = load(path)
    result = replay(phh, PHH_RULES)
    if phh.variant in NOT_DEALT:
        assert result.skipped and not result.ok
        return
    assert result.ok, result.error
    if "finishing_stacks" in phh.fields:
        assert result.match, (result.finishing_stacks, result.expected)
    else:
        assert result.match is None


def test_razz_85_needs_the_effective_stack_raise() -> None:
    # p2 raises "to 750000", all the opponent has; a full raise would be to 1 200 000
    (phh,) = load(CORPUS / "FR/wsop-2023-43-5/85.phh")
    assert replay(phh, PHH_RULES).match is True
    strict = replace(PHH_RULES, raise_capped_at_effective_stack=False)
    result = replay(phh, strict)
    assert not result.ok and "1200000" in (result.error or "")


def test_user_fields_are_ignored_and_decimal_amounts_are_scaled(tmp_path: Path) -> None:
    text = (CORPUS / "PO/historical/antonius-blom-2009.phh").read_text()
    path = tmp_path / "hand.phh"
    path.write_text(text + '\n_sponsor = "ignored"\n_odd = [1, 2]\n')
    (phh,) = load(path)
    assert not any(key.startswith("_") for key in phh.fields)
    result = replay(phh, PHH_RULES)
    assert result.ok, result.error
    assert result.finishing_stacks is not None
    assert sum(result.finishing_stacks) == pytest.approx(sum(phh.fields["starting_stacks"]))


def test_bad_hands_are_reported_not_raised(tmp_path: Path) -> None:
    bad = PhhHand("x.phh", {"variant": "FT", "antes": [0, 0], "blinds_or_straddles": [1, 2],
                            "small_bet": 2, "big_bet": 4, "starting_stacks": [100, 100],
                            "actions": ["d dh p1 AsKs", "d dh p2 AsQd"]})
    result = replay(bad, PHH_RULES)
    assert not result.ok and "already dealt" in (result.error or "")
    unknown = replay(PhhHand("y.phh", {"variant": "XYZ"}), PHH_RULES)
    assert unknown.skipped and "unknown variant" in (unknown.error or "")


@pytest.mark.parametrize(("game", "structure"), ENGINE_VARIANTS,
                         ids=[f"{g.value}-{s.value}" for g, s in ENGINE_VARIANTS])
def test_written_hands_read_back_to_the_same_stacks(game, structure, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    for k in range(4):
        result = play_both(random.Random(f"phh/{game}/{structure}/{k}"), game, structure)
        hand = result.hand
        if not hand.is_done:
            continue
        path = tmp_path / f"{k}.phh"
        path.write_text(to_phh(hand))
        (phh,) = load(path)
        assert VARIANTS[phh.variant] == (game, structure)
        back = replay(phh, hand.start_args.rules)
        assert back.ok and back.match, (back.error, path.read_text())


def test_cli_replay_json_lines_and_exit_codes(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["phh", "replay", "--json", "--allow-skip", str(CORPUS / "FT"),
                 str(CORPUS / "F2L3D")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 7 + 8
    assert {tuple(sorted(line)) for line in lines if not line.get("skipped")} == {
        ("error", "expected", "file", "finishing_stacks", "match", "ok", "variant")}
    assert all(line["match"] for line in lines if line["variant"] == "FT")
    text = (CORPUS / "FT/wsop-2023-43-5/34.phh").read_text()
    wrong = tmp_path / "wrong.phh"
    wrong.write_text(text.replace("finishing_stacks = [", "finishing_stacks = [1"))
    assert main(["phh", "replay", str(wrong)]) == 1
    assert "MISMATCH" in capsys.readouterr().out
    # a hand it could not replay is a failure of the run unless skipping is allowed
    assert main(["phh", "replay", str(CORPUS / "N2L1D")]) == 1      # only skipped hands
    assert main(["phh", "replay", "--allow-skip", str(CORPUS / "N2L1D")]) == 0
    unknown = tmp_path / "unknown.phh"
    unknown.write_text(text.replace("variant = 'FT'", "variant = 'XYZ'"))
    capsys.readouterr()
    assert main(["phh", "replay", str(unknown)]) == 1
    assert "skipped: unknown variant: 'XYZ'" in capsys.readouterr().out
    assert main(["phh", "replay", str(tmp_path / "missing.phh")]) == 2     # usage
    assert "no such file or folder" in capsys.readouterr().err


def test_replay_errors_name_the_phh_player(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    text = (CORPUS / "FT/wsop-2023-43-5/34.phh").read_text()
    out_of_turn = tmp_path / "out-of-turn.phh"
    out_of_turn.write_text(text.replace("'p3 f', 'p4 cbr 400000'", "'p4 cbr 400000'"))
    assert main(["phh", "replay", str(out_of_turn)]) == 1
    said = capsys.readouterr().out
    assert "FAILED: action 6 (p4 cbr 400000): p4 acted out of turn: p3 is to act" in said
    assert "seat " not in said, said
