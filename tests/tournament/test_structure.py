"""The structure file: what it accepts, and every refusal in the director's words."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.domain.errors import ConfigError
from tablectl.tournament.structure import AnteKind, BreakTable, Structure
from tests.tournament.conftest import SMALL

CONFIG = Path(__file__).resolve().parents[2] / "config" / "tournament" / "structure.toml"


def problems(text: str) -> list[str]:
    with pytest.raises(ConfigError) as err:
        Structure.parse(text, "s.toml")
    assert err.value.source == "s.toml"
    return [f"{where}: {msg}" for where, msg in err.value.problems]


LEVEL = "[[level]]\nsmall_blind = {}\nbig_blind = {}\nante = {}\nminutes = 10\n"


def levels(*blinds: tuple[int, int, int]) -> str:
    return "starting_stack = 10000\n" + "".join(LEVEL.format(*b) for b in blinds)


def test_small_structure_reads_as_written(small: Structure) -> None:
    assert [p.label for p in small.periods] == [
        "level 1 50/100", "level 2 100/200 (big-blind ante 200)", "break 5 min (chip-up 25)",
        "level 3 200/400 (ante 400)"]
    assert [p.seconds for p in small.periods] == [600, 600, 300, 600]
    assert small.levels[2].ante_kind is AnteKind.ANTE
    assert small.levels[1].ante_kind is AnteKind.BIG_BLIND       # the default
    assert (small.late_registration_until_level, small.max_entries, small.paid_places,
            small.hand_for_hand_at) == (2, 2, 3, 4)
    assert small.break_table is BreakTable.HIGHEST_NUMBER


def test_the_shipped_default_structure_is_valid() -> None:
    s = Structure.load(CONFIG)
    assert len(s.levels) == 20 and s.starting_stack == 20000
    assert [b.after_level for b in s.breaks] == [4, 8, 12]
    assert s.chips == (100, 500, 1000, 5000, 25000) and s.breaks[1].chip_up == (100,)


def test_json_round_trip_is_exact(small: Structure) -> None:
    assert Structure.from_json(small.to_json()) == small


def test_levels_must_rise() -> None:
    found = problems(levels((100, 200, 0), (100, 200, 0), (50, 400, 0)))
    assert found == [
        "level 2: levels must rise: 100/200 is not above level 1's 100/200",
        "level 3: levels must rise: 50/400 is not above level 2's 100/200"]
    # an ante alone may make the level rise
    Structure.parse(levels((100, 200, 0), (100, 200, 200)))


def test_each_bad_value_is_one_clear_line() -> None:
    text = """
starting_stack = 50
seats_per_table = 13
max_entries = 3
late_registration_until_level = 9
brake_table = "x"
[[level]]
small_blind = 200
big_blind = 100
minutes = 0
[[level]]
small_blind = -5
big_blind = 1.5
seconds = 30
[[break]]
after_level = 2
minutes = 10
"""
    found = problems(text)
    assert "level 1: the small blind (200) is above the big blind (100)" in found
    assert "level 1.minutes: must be positive (1 s to 24 h), not 0" in found
    assert any(p.startswith("level 2.small_blind: must be a positive whole number") for p in found)
    assert any(p.startswith("level 2.big_blind: must be a positive whole number") for p in found)
    assert any(p.startswith("brake_table: unknown key") for p in found)
    assert any(p.startswith("seats_per_table: must be 2 to 12") for p in found)
    assert any(p.startswith("late_registration_until_level: must be a level") for p in found)
    assert any(p.startswith("max_entries: is 3 but reentry_until_level is not set")
               for p in found)


@pytest.mark.parametrize(("text", "expected"), [
    ("starting_stack = 100\n", "level: at least one level is required ([[level]])"),
    (levels((100, 200, 0)).replace("minutes = 10", "minutes = 10\nseconds = 5"),
     "level 1: give its length as minutes = N or seconds = N (one of them)"),
    (levels((100, 200, 0), (200, 400, 0)) + "[[break]]\nafter_level = 2\nminutes = 5\n",
     "break 1.after_level: 2 is not a level followed by another (levels 1 to 1)"),
    (levels((100, 200, 0), (200, 400, 0), (300, 600, 0))
     + "[[break]]\nafter_level = 1\nminutes = 5\n[[break]]\nafter_level = 1\nminutes = 5\n",
     "break 2.after_level: there is already a break after level 1"),
    (levels((100, 200, 0), (200, 400, 0)) + "[[break]]\nafter_level = 1\nminutes = 5\n"
     "chip_up = [\"25\"]\n", "break 1.chip_up: must be a list of chip values, e.g. [25], "
     "not ['25']"),
    (levels((100, 20000, 0)), "starting_stack: 10000 does not cover the first big blind "
                              "(20000)"),
    ("paid_places = 9\nhand_for_hand_at = 9\n" + levels((100, 200, 0)),
     "hand_for_hand_at: must be more than paid_places (9) players, or 0 for no "
     "hand-for-hand, not 9"),
    (levels((100, 200, 0)).replace("minutes = 10", "minutes = 0.3333"),
     "level 1.minutes: must come to whole seconds, not 0.3333"),
    ("starting_stack = 10000\nlevel = 3\n", "level: must be an array of tables ([[level]])"),
    (levels((100, 200, 0)) + "paid_places = 9\n",
     "level 1.paid_places: unknown key; known keys: ante, ante_kind, big_blind, minutes, "
     "seconds, small_blind (paid_places goes before the first [[level]] or [[break]])"),
    ("= nope", None),
])
def test_refusals(text: str, expected: str | None) -> None:
    found = problems(text)
    if expected is None:
        assert found[0].startswith(": not valid TOML")
    else:
        assert expected in found, found


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        Structure.load(tmp_path / "nope.toml")
    assert "cannot read" in err.value.render() and "\n" not in err.value.render()
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe name")
    with pytest.raises(ConfigError):
        Structure.load(bad)


_values = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**13),
                    st.floats(allow_nan=True), st.text(max_size=5),
                    st.lists(st.integers(-5, 50), max_size=3))
_level = st.dictionaries(st.sampled_from(["small_blind", "big_blind", "ante", "ante_kind",
                                          "minutes", "seconds", "oops"]), _values)


@settings(max_examples=300, deadline=None)
@given(top=st.dictionaries(st.sampled_from(["starting_stack", "seats_per_table", "max_entries",
                                            "late_registration_until_level", "paid_places",
                                            "reentry_until_level", "hand_for_hand_at",
                                            "break_table", "name", "chips"]), _values),
       raw_levels=st.lists(_level, max_size=4),
       raw_breaks=st.lists(st.dictionaries(st.sampled_from(["after_level", "minutes",
                                                            "chip_up"]), _values), max_size=2))
def test_any_body_is_a_structure_or_a_config_error(top: dict[str, object],
                                                   raw_levels: list[dict[str, object]],
                                                   raw_breaks: list[dict[str, object]]) -> None:
    body = {**top, "level": [{k: v for k, v in lv.items() if v is not None}
                             for lv in raw_levels],
            "break": [{k: v for k, v in b.items() if v is not None} for b in raw_breaks]}
    body = {k: v for k, v in body.items() if v is not None}
    try:
        s = Structure.from_json(body)
    except ConfigError as exc:
        assert exc.problems and all(msg for _, msg in exc.problems)
        return
    assert s.levels and all(p.seconds > 0 for p in s.periods)
    assert Structure.from_json(s.to_json()) == s


def test_small_is_what_the_other_tests_assume() -> None:
    assert "minutes = 10" in SMALL


def test_one_mistake_is_one_line() -> None:
    """A wrong value is reported once, not again by every rule that depends on it."""
    assert problems("reentry_until_level = 9\nmax_entries = 2\n" + levels((100, 200, 0))) == [
        "reentry_until_level: must be a level of the structure (1 to 1) or 0 for none, not 9"]
    assert problems("starting_stack = 100\nlevel = [1, 2]\n") == [
        "level: must be an array of tables ([[level]])"]
    assert problems("late_registration_until_level = 2\n"
                    + levels((100, 200, 0), (200, 100, 0))) == [
        "level 2: the small blind (200) is above the big blind (100)"]


def test_the_chips_in_play_pay_every_level() -> None:
    """With the chip set given: 25s raced off after level 2 cannot pay level 3's 175 ante;
    a chip-up of a chip not in play is named."""
    text = ("chips = [25, 100, 500]\n" + levels((25, 50, 0), (50, 100, 0), (100, 200, 175))
            + "[[break]]\nafter_level = 2\nminutes = 5\nchip_up = [25, 1000]\n")
    assert problems(text) == [
        "break after level 2.chip_up: 1000 is not a chip in play (25, 100, 500)",
        "level 3: the ante (175) cannot be paid with the chips in play (the smallest is 100)"]
    fine = text.replace("175", "200").replace(", 1000]", "]")
    assert Structure.parse(fine).chips == (25, 100, 500)
    assert problems("chips = [0]\n" + levels((25, 50, 0))) == [
        "chips: must be a list of chip values, e.g. [25, 100, 500], not [0]"]
