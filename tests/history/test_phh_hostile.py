"""A PHH file is someone else's file: every value in it is hostile until read.

One real hand of the corpus (fixed-limit hold'em, five players) is changed one field at a
time the way a careless exporter or an attacker would. Every change gives a failed replay
with one bounded line naming the field, never a traceback and never a hand replayed as if
the file were sound. Before these checks: a string among ``finishing_stacks`` raised
``ValueError``; stacks of 2^63 or 1e308 and a raise of 1e400 were played as amounts no table
holds; a stack of 1e-10 scaled every amount by 10^10 (1e-400: by 10^400); and a player
showing cards other than those the file dealt him was replayed ``ok``, and a fold with extra
words (``p3 f x y``) was played as a fold.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tablectl.domain.games import RulesPreset
from tablectl.game import PRESETS
from tablectl.history.phh import load, replay

from .test_phh import CORPUS

HAND = CORPUS / "FT/wsop-2023-43-5/34.phh"
PHH_RULES = PRESETS[RulesPreset.PHH]

Edit = Callable[[str], str]


def _sub(old: str, new: str) -> Edit:
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)
    return edit


CASES: list[tuple[str, Edit, str]] = [
    ("an empty file", lambda text: "", r"^not a PHH hand: no variant \(the file is empty\)$"),
    ("no variant", _sub("variant = 'FT'\n", ""), "^not a PHH hand: no variant$"),
    ("a stack of 2^63",
     _sub("starting_stacks = [3175000", "starting_stacks = [9223372036854775807"),
     "starting_stacks: 9223372036854775807 is beyond the largest amount"),
    ("a stack of 1e308", _sub("starting_stacks = [3175000", "starting_stacks = [1e308"),
     "is beyond the largest amount"),
    ("a stack of NaN", _sub("starting_stacks = [3175000", "starting_stacks = [nan"),
     "starting_stacks: not a finite amount: nan"),
    ("a stack of true", _sub("starting_stacks = [3175000", "starting_stacks = [true"),
     "starting_stacks: not an amount: True"),
    ("a stack as a table", _sub("starting_stacks = [3175000", "starting_stacks = [{a = 1}"),
     "starting_stacks: not an amount"),
    ("ten decimals", _sub("starting_stacks = [3175000", "starting_stacks = [0.0000000001"),
     "amounts with 10 decimals: at most 6"),
    ("a raise of 1e400", _sub("'p4 cbr 400000'", "'p4 cbr 1e400'"),
     r"action 7 \(p4 cbr 1e400\): '1e400' is beyond the largest amount"),
    ("a raise of 5000 digits", _sub("'p4 cbr 400000'", "'p4 cbr " + "9" * 5000 + "'"),
     r"action 7 \(p4 cbr 9+\.\.\.\): '9+\.\.\. is beyond"),
    ("finishing stacks as text", _sub("finishing_stacks = [", "finishing_stacks = ['a', "),
     "finishing_stacks: not amounts: \\['a'"),
    ("shows cards it was not dealt", _sub("'p2 sm Tc9s'", "'p2 sm AhAd'"),
     "p2 shows AhAd but was dealt Tc9s"),
    ("shows more cards than it holds", _sub("'p2 sm Tc9s'", "'p2 sm Tc9sAhAd'"),
     "p2 shows Tc9sAhAd but was dealt Tc9s"),
    ("a fold with extra words", _sub("'p3 f'", "'p3 f x y'"), r"cannot parse action 'p3 f x y'"),
    ("a raise with no amount", _sub("'p4 cbr 400000'", "'p4 cbr'"),
     r"cannot parse action 'p4 cbr'"),
    ("a call with an amount", _sub("'p2 cc', 'd db", "'p2 cc 5', 'd db"),
     r"cannot parse action 'p2 cc 5'"),
    ("a board dealt to a player", _sub("'d db Kc'", "'d db p1 Kc'"),
     r"cannot parse action 'd db p1 Kc'"),
    ("hole cards dealt to nobody", _sub("'d dh p3 6s5h'", "'d dh 6s5h'"),
     r"cannot parse action 'd dh 6s5h'"),
    # a player's index: ASCII digits only, at most 3 (int() refused 5000 digits with Python's
    # own int-conversion message, and "p٣" was taken as p3)
    ("a player of 5000 digits", _sub("'p3 f'", "'p" + "1" * 5000 + " f'"),
     r"^cannot parse action 'p1+\.\.\.$"),
    ("a dealt player of 5000 digits", _sub("'d dh p3 ", "'d dh p" + "3" * 5000 + " "),
     r"^action \d+ \(d dh p3+\.\.\.\): unsupported dealer action$"),
    ("a player in Arabic digits", _sub("'p3 f'", "'p\u0663 f'"),
     "^cannot parse action 'p\u0663 f'$"),
    ("an action of a megabyte", _sub("'p3 f'", "'p3 f\\u0001" + "x" * 1_000_000 + "'"),
     r"cannot parse action 'p3 f\S+x\.\.\.$"),
]


@pytest.mark.parametrize(("what", "edit", "said"), CASES, ids=[c[0] for c in CASES])
def test_a_hostile_value_fails_the_replay_with_one_bounded_line(
        tmp_path: Path, what: str, edit: Edit, said: str) -> None:
    path = tmp_path / "hand.phh"
    path.write_text(edit(HAND.read_text()))
    (phh,) = load(path)
    result = replay(phh, PHH_RULES)
    assert not result.ok and not result.skipped
    assert result.error is not None and re.search(said, result.error), result.error
    assert len(result.error) < 200


def test_the_sound_hand_still_replays_and_matches() -> None:
    (phh,) = load(HAND)
    result = replay(phh, PHH_RULES)
    assert result.ok and result.match is True, result.error

