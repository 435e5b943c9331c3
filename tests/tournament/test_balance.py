"""Balancing and breaking tables, worked by hand (tablectl/tournament/balance.py's rules)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.tournament.balance import BalanceRules, next_big_blind, plan
from tablectl.tournament.structure import BreakTable


def seats(table: int, count: int, first: int = 1) -> dict[int, str]:
    return {s: f"p{table}{s}" for s in range(first, first + count)}


def test_balanced_tables_stay() -> None:
    p = plan({1: seats(1, 9), 2: seats(2, 8), 3: seats(3, 8)}, BalanceRules(9))
    assert p.moves == () and p.broken == ()


def test_a_difference_of_two_moves_one_player_biggest_to_smallest() -> None:
    """9, 9 and 7 players: one player moves from table 2 (the highest number among the
    biggest) to table 3, into its lowest free seat (8)."""
    p = plan({1: seats(1, 9), 2: seats(2, 9), 3: seats(3, 7)}, BalanceRules(9))
    assert [(m.player, m.from_table, m.from_seat, m.to_table, m.to_seat, m.reason)
            for m in p.moves] == [("p29", 2, 9, 3, 8, "balance")]


def test_the_next_big_blind_moves_when_the_button_is_known() -> None:
    """Table 2's button on seat 4: seat 5 is small blind, 6 big blind now, 7 next hand's big
    blind: seat 7 moves."""
    p = plan({1: seats(1, 9), 2: seats(2, 9), 3: seats(3, 7)}, BalanceRules(9),
             buttons={2: 4})
    assert [(m.from_table, m.from_seat) for m in p.moves] == [(2, 7)]


def test_several_moves_until_within_one() -> None:
    """8 against 3 (six seats): 8-3 -> 7-4 -> 6-5 (two moves, the highest seats)."""
    tables = {1: seats(1, 3), 2: {s: f"q{s}" for s in range(1, 9)}}
    p = plan(tables, BalanceRules(10))
    assert [(m.player, m.to_table, m.to_seat) for m in p.moves] == [("q8", 1, 4), ("q7", 1, 5)]
    assert {t: len(s) for t, s in p.tables.items()} == {1: 5, 2: 6}


def test_the_highest_numbered_table_breaks_by_default() -> None:
    """17 players on three tables of nine fit two tables: table 3 breaks; its players go in
    its seat order, each to the table with the fewest players then."""
    tables = {1: seats(1, 6), 2: seats(2, 7), 3: seats(3, 4)}
    p = plan(tables, BalanceRules(9))
    assert p.broken == (3,)
    assert [(m.player, m.to_table, m.to_seat, m.reason) for m in p.moves] == [
        ("p31", 1, 7, "break"), ("p32", 1, 8, "break"), ("p33", 2, 8, "break"),
        ("p34", 1, 9, "break")]
    assert {t: len(s) for t, s in p.tables.items()} == {1: 9, 2: 8}


def test_the_table_with_the_fewest_players_breaks_when_the_room_says_so() -> None:
    tables = {1: seats(1, 3), 2: seats(2, 7), 3: seats(3, 7)}
    p = plan(tables, BalanceRules(9, break_table=BreakTable.FEWEST_PLAYERS))
    assert p.broken == (1,)
    assert [(m.player, m.to_table) for m in p.moves] == [("p11", 2), ("p12", 3), ("p13", 2)]
    # equal counts: the highest number breaks
    even = plan({1: seats(1, 3), 2: seats(2, 3)}, BalanceRules(9, BreakTable.FEWEST_PLAYERS))
    assert even.broken == (2,)


def test_down_to_the_final_table() -> None:
    tables = {1: seats(1, 3), 2: seats(2, 2), 3: seats(3, 2), 4: seats(4, 1)}
    p = plan(tables, BalanceRules(9))
    assert p.broken == (4, 3, 2) and list(p.tables) == [1] and len(p.tables[1]) == 8


def test_hand_for_hand_near_the_bubble() -> None:
    rules = BalanceRules(9, paid_places=9, hand_for_hand_at=10)
    ten = {1: seats(1, 5), 2: seats(2, 5)}
    assert plan(ten, rules).hand_for_hand
    eleven = {1: seats(1, 6), 2: seats(2, 5)}
    assert not plan(eleven, rules).hand_for_hand
    nine = {1: seats(1, 5), 2: seats(2, 4)}
    assert not plan(nine, rules).hand_for_hand          # in the money (and one table)
    assert not plan(ten, BalanceRules(9)).hand_for_hand  # no bubble set


def test_next_big_blind() -> None:
    assert next_big_blind({2: "a", 5: "b"}, button=5) == 5      # heads-up: the button
    assert next_big_blind({1: "a", 2: "b", 3: "c"}, button=1) == 1
    assert next_big_blind({1: "a", 2: "b", 3: "c", 9: "d"}, button=9) == 3


@settings(max_examples=300, deadline=None)
@given(counts=st.lists(st.integers(0, 9), min_size=1, max_size=8),
       size=st.integers(2, 10), fewest=st.booleans(), data=st.data())
def test_any_room_ends_balanced_with_the_fewest_tables(counts: list[int], size: int,
                                                       fewest: bool,
                                                       data: st.DataObject) -> None:
    """Whatever the seating: every player is still seated once, no table is over its seats,
    no two tables differ by two or more, and no table could be spared."""
    tables: dict[int, dict[int, str]] = {}
    for number, count in enumerate(counts, start=1):
        chosen = data.draw(st.sets(st.integers(1, size), min_size=min(count, size),
                                   max_size=min(count, size)))
        tables[number * 2] = {s: f"t{number}s{s}" for s in chosen}
    buttons = {t: data.draw(st.integers(1, size)) for t in tables if data.draw(st.booleans())}
    rule = BreakTable.FEWEST_PLAYERS if fewest else BreakTable.HIGHEST_NUMBER
    p = plan(tables, BalanceRules(size, rule), buttons)
    before = sorted(x for seats in tables.values() for x in seats.values())
    after = sorted(x for seats in p.tables.values() for x in seats.values())
    assert before == after
    sizes = [len(s) for s in p.tables.values()]
    assert all(n <= size for n in sizes) and max(sizes) - min(sizes) <= 1
    assert len(p.tables) == 1 or sum(sizes) > (len(p.tables) - 1) * size
    assert all(1 <= seat <= size for seats in p.tables.values() for seat in seats)
    assert set(p.broken).isdisjoint(p.tables) and set(p.tables) | set(p.broken) == set(tables)


def test_the_floor_breaks_a_table_of_its_choosing_first() -> None:
    """Table 1's shoe is broken: its players go first, each to the table with the fewest
    players then; the tables left are balanced as usual."""
    tables = {1: seats(1, 4), 2: seats(2, 5), 3: seats(3, 7)}
    p = plan(tables, BalanceRules(9), breaking=1)
    assert p.broken == (1,)
    assert [(m.player, m.to_table, m.to_seat, m.reason) for m in p.moves] == [
        ("p11", 2, 6, "break"), ("p12", 2, 7, "break"), ("p13", 2, 8, "break"),  # 7 and 7:
        ("p14", 3, 8, "break")]                                                  # the lower
    assert {t: len(s) for t, s in p.tables.items()} == {2: 8, 3: 8}
    # and what the rules would break anyway still breaks: 8 players fit one table
    few = plan({1: seats(1, 2), 2: seats(2, 3), 3: seats(3, 3)}, BalanceRules(9), breaking=2)
    assert few.broken == (2, 3) and list(few.tables) == [1]


@pytest.mark.parametrize(("tables", "breaking", "why"), [
    ({1: seats(1, 4), 2: seats(2, 4)}, 3, "table 3 has no players"),
    ({1: seats(1, 4), 2: {}}, 2, "table 2 has no players"),
    ({1: seats(1, 4)}, 1, "the last table"),
    ({1: seats(1, 9), 2: seats(2, 9), 3: seats(3, 1)}, 1, "no room for table 1's 9 players"),
])
def test_a_table_that_cannot_break_is_refused(tables: dict[int, dict[int, str]], breaking: int,
                                              why: str) -> None:
    with pytest.raises(ValueError, match=why):
        plan(tables, BalanceRules(9), breaking=breaking)
