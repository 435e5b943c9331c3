"""The field: entries, seats, eliminations and places, worked by hand."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.tournament.errors import TournamentError
from tablectl.tournament.field import EntryStatus, Field, entry_open


def field_of(*names: str, seats: int = 9) -> Field:
    f = Field(seats_per_table=seats)
    for name in names:
        f = f.register(name, 10000)
    return f


def places(f: Field) -> list[tuple[int | None, str]]:
    return [(p.place, p.player) for p in f.ranking()]


def test_new_players_are_seated_by_the_house_rule() -> None:
    f = field_of("a", "b", "c", seats=2)
    # table 1 fills (seats 1, 2); then table 2 opens
    assert f.seating() == {1: {1: "a", 2: "b"}, 2: {1: "c"}}
    f = f.register("d", 10000)
    assert f.seating()[2] == {1: "c", 2: "d"}
    f = f.bust("a", hand="h1", start_chips=500)
    # the table with the fewest players gets the next one, in its lowest free seat
    assert f.free_seat() == (1, 1)
    f = f.register("e", 10000, table=5, seat=2)                  # a seat the director gives
    assert f.tables == (1, 2, 5) and f.seating()[5] == {2: "e"}


def test_a_bust_frees_the_seat_and_the_last_busts_rank_best() -> None:
    f = field_of("a", "b", "c", "d", "e")
    f = f.bust("e", hand="h1", start_chips=4000)
    f = f.bust("d", hand="h2", start_chips=9000)
    assert places(f) == [(None, "a"), (None, "b"), (None, "c"), (4, "d"), (5, "e")]
    gone = f.current("e")
    assert gone is not None and gone.status is EntryStatus.ELIMINATED and gone.seat is None
    assert 5 not in f.seating()[1]
    f = f.bust("c", hand="h3", start_chips=15000).bust("b", hand="h4", start_chips=1)
    assert places(f) == [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")]


def test_two_out_in_one_hand_rank_by_chips_at_its_start() -> None:
    """Five left; c (12,000 at the start of the hand) and d (7,000) both bust in hand h9:
    c is 4th, d 5th, whichever the dealer reported first."""
    for first, second in (("c", "d"), ("d", "c")):
        f = field_of("a", "b", "c", "d", "e")
        chips = {"c": 12000, "d": 7000}
        f = f.bust(first, hand="h9", start_chips=chips[first])
        f = f.bust(second, hand="h9", start_chips=chips[second])
        assert places(f)[3:] == [(4, "c"), (5, "d")]


def test_equal_chips_at_the_start_tie_for_the_better_place() -> None:
    """Six left; three bust in one hand, two of them with 5,000 at its start, one with
    8,000: 4th for the 8,000, both 5,000s are 5th, nobody is 6th."""
    f = field_of("a", "b", "c", "d", "e", "f")
    f = f.bust("d", hand="t2#7", start_chips=5000)
    f = f.bust("e", hand="t2#7", start_chips=8000)
    f = f.bust("f", hand="t2#7", start_chips=5000)
    assert places(f)[3:] == [(4, "e"), (5, "d"), (5, "f")]
    f = f.bust("c", hand="t1#50", start_chips=30000)
    assert places(f)[2:] == [(3, "c"), (4, "e"), (5, "d"), (5, "f")]


def test_a_reentry_replaces_the_busted_entry() -> None:
    f = field_of("a", "b", "c")
    f = f.bust("c", hand="h1", start_chips=100)
    assert places(f)[-1] == (3, "c")
    f = f.reenter("c", 10000, max_entries=2)
    assert places(f) == [(None, "a"), (None, "b"), (None, "c")]
    again = f.current("c")
    assert again is not None and again.number == 2 and len(f.entries) == 4
    assert f.chips_in_play == 40000 and f.average_stack == 13333
    with pytest.raises(TournamentError, match="still playing"):
        f.reenter("c", 10000, max_entries=3)
    f = f.bust("c", hand="h2", start_chips=100)
    with pytest.raises(TournamentError, match="has used all 2 entries"):
        f.reenter("c", 10000, max_entries=2)


@pytest.mark.parametrize(("act", "why"), [
    (lambda f: f.register("a", 1), "a is already registered"),
    (lambda f: f.register("  ", 1), "a player name is 1 to 64 printable characters"),
    (lambda f: f.register("x\x1b[2J", 1), "printable"),
    (lambda f: f.register("x", 1, table=1), "give both a table and a seat"),
    (lambda f: f.register("x", 1, table=1, seat=1), "table 1 seat 1 is taken by a"),
    (lambda f: f.register("x", 1, table=1, seat=10), "seats are 1 to 9"),
    (lambda f: f.register("x", 1, table=0, seat=1), "table numbers are 1 to 999"),
    (lambda f: f.reenter("zed", 1, 2), "zed is not registered"),
    (lambda f: f.bust("zed", hand="h", start_chips=1), "zed is not registered"),
    (lambda f: f.bust("a", hand="h", start_chips=0), "chips at the start of the hand"),
    (lambda f: f.bust("a", hand="", start_chips=5), "a hand is named"),
    (lambda f: f.bust("a", hand="t1\x00#4", start_chips=5), "a hand is named"),
    (lambda f: f.bust("a", hand="h", start_chips=5).bust("a", hand="h", start_chips=5),
     "a is not playing"),
    (lambda f: f.bust("a", hand="h", start_chips=5).bust("b", hand="h", start_chips=5),
     "b is the last player in"),
    (lambda f: f.move("a", 1, 2), "table 1 seat 2 is taken by b"),
    (lambda f: f.close_table(1), "table 1 still has players in seats 1, 2"),
    (lambda f: f.close_table(7), "table 7 is not open"),
])
def test_refusals(act: object, why: str) -> None:
    f = field_of("a", "b")
    with pytest.raises(TournamentError, match=why.replace("[", r"\[")):
        act(f)  # type: ignore[operator]


def test_a_move_and_a_closed_table() -> None:
    f = field_of("a", "b", "c", seats=2)
    f = f.bust("b", hand="h", start_chips=9)
    f = f.move("c", 1, 2)
    assert f.seating() == {1: {1: "a", 2: "c"}, 2: {}}
    f = f.close_table(2)
    assert f.tables == (1,)


def test_json_round_trip() -> None:
    f = field_of("a", "b", "c").bust("b", hand="h", start_chips=9).reenter("b", 10000, 2)
    assert Field.from_json(f.to_json()) == f


def test_registration_windows() -> None:
    assert entry_open(0, None) and entry_open(6, 6) and not entry_open(6, 7)
    assert not entry_open(0, 1)


@settings(max_examples=300, deadline=None)
@given(ops=st.lists(st.tuples(st.sampled_from(["register", "bust", "reenter"]),
                              st.integers(0, 7), st.integers(1, 4), st.integers(0, 3)),
                    max_size=40))
def test_places_are_consistent_whatever_happens(ops: list[tuple[str, int, int, int]]) -> None:
    """Any sequence of registrations, busts (some in shared hands, some with equal chips)
    and re-entries: each player appears once; the players in have no place (or 1st when
    alone); the places of the others start right below them, never go up again later in
    the list, and skip exactly as many as tied before them."""
    f = Field(seats_per_table=4)
    for op, who, chips, hand in ops:
        name = f"p{who}"
        try:
            if op == "register":
                f = f.register(name, 100)
            elif op == "bust":
                f = f.bust(name, hand=f"h{hand}", start_chips=chips * 1000)
            else:
                f = f.reenter(name, 100, max_entries=3)
        except TournamentError:
            continue
    ranking = f.ranking()
    assert sorted(p.player for p in ranking) == sorted({e.player for e in f.entries})
    alive = [p for p in ranking if p.place is None or p.start_chips is None]
    assert len(alive) == len(f.playing)
    assert all(p.place == (1 if len(alive) == 1 else None) for p in alive)
    gone = [p for p in ranking if p.start_chips is not None]
    expected = len(alive) + 1
    for i, p in enumerate(gone):
        assert p.place is not None
        if i and p.place == gone[i - 1].place:
            assert p.hand == gone[i - 1].hand and p.start_chips == gone[i - 1].start_chips
        else:
            assert p.place == expected
        expected = len(alive) + i + 2
