"""Hands run twice in PHH: files as PokerKit 0.7.7 writes them replay to its stacks, and our
export reads back to the same stacks (tablectl/history/phh.py, "Run it twice")."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

from pokerkit import HandHistory

from tablectl.domain.games import BettingStructure, GameKind
from tablectl.history.phh import PhhHand, load, replay, to_phh
from tests.game.pokerkit_oracle import play_both, pokerkit_game
from tests.history.test_phh import PHH_RULES

POKERKIT_WROTE = """variant = 'NT'
ante_trimming_status = false
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ['d dh p1 2c3d', 'd dh p2 KhKd', 'd dh p3 AsAd', 'p3 cbr 100', 'p1 f', 'p2 cc',
 'p3 sm AsAd', 'p2 sm KhKd', 'd db 7h8s9d', 'd db Jc', 'd db 2s', 'd db Ks7c2h', 'd db Th',
 'd db 3s']
"""
"""PokerKit 0.7.7's ``HandHistory.from_game_state`` of a cash-game hand run twice (aces win
the first run, kings the second: stacks 99, 100, 101 there); it has no finishing stacks."""


def test_a_hand_run_twice_as_pokerkit_writes_it_replays(tmp_path: Path) -> None:
    path = tmp_path / "run-twice.phh"
    path.write_text(POKERKIT_WROTE)
    (phh,) = load(path)
    result = replay(phh, PHH_RULES)
    assert result.ok, result.error
    assert result.finishing_stacks == [99, 100, 101]
    assert result.hand is not None and result.hand.runs == 2


def test_pokerkit_histories_of_hands_run_more_than_once_replay_to_its_stacks() -> None:
    game, structure = GameKind.HOLDEM, BettingStructure.NO_LIMIT
    multi = 0
    for k in range(12):
        result = play_both(random.Random(f"phh-runs/{k}"), game, structure, edge=True,
                           runs=2 + k % 2)
        start = result.hand.start_args
        if result.known or result.hand.runs == 1 or start.rules.rake.percent:
            continue
        multi += 1
        pk_game = pokerkit_game(game, structure, start.stakes, cash=True)
        text = HandHistory.from_game_state(pk_game, result.pk).dumps()
        back = replay(PhhHand(f"pokerkit-{k}", _fields(text)), PHH_RULES)
        assert back.ok, (back.error, text)
        assert back.finishing_stacks == list(result.pk.stacks), text
        assert back.hand is not None and back.hand.runs == result.hand.runs
    assert multi >= 3


def test_our_export_of_a_hand_run_three_times_reads_back(tmp_path: Path) -> None:
    for k in range(8):
        result = play_both(random.Random(f"phh-export-runs/{k}"), GameKind.OMAHA_HI_LO,
                           BettingStructure.FIXED_LIMIT, edge=True, runs=3)
        hand = result.hand
        if hand.runs == 1:
            continue
        path = tmp_path / f"{k}.phh"
        path.write_text(to_phh(hand))
        (phh,) = load(path)
        back = replay(phh, hand.start_args.rules)
        assert back.ok and back.match, (back.error, path.read_text())
        assert back.hand is not None and back.hand.boards == hand.boards
        shows = [a for a in phh.fields["actions"] if " sm " in a]  # type: ignore[attr-defined]
        assert len(shows) == len({a.split()[0] for a in shows})   # once per hand, not per run
        assert "_tablectl_runs = 3" in path.read_text()
        return
    raise AssertionError("no hand ran three times")


def _fields(text: str) -> dict[str, object]:
    return tomllib.loads(text)


def test_double_board_hands_as_pokerkit_writes_them_and_as_we_do_read_back() -> None:
    game, structure = GameKind.HOLDEM, BettingStructure.NO_LIMIT
    checked = 0
    for k in range(12):
        result = play_both(random.Random(f"phh-double/{k}"), game, structure, edge=True,
                           boards=2)
        hand = result.hand
        start = hand.start_args
        if result.known or start.rules.rake.percent or not any(hand.boards[1:]):
            continue
        checked += 1
        pk_game = pokerkit_game(game, structure, start.stakes, boards=2)
        text = HandHistory.from_game_state(pk_game, result.pk).dumps()
        theirs = replay(PhhHand(f"pokerkit-{k}", _fields(text)), PHH_RULES)
        assert theirs.ok, (theirs.error, text)
        assert theirs.finishing_stacks == list(result.pk.stacks), text
        ours = replay(PhhHand(f"ours-{k}", _fields(to_phh(hand))), start.rules)
        assert ours.ok and ours.match, (ours.error, to_phh(hand))
        assert ours.hand is not None and ours.hand.boards == hand.boards
    assert checked >= 3
