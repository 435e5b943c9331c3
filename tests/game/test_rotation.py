"""Rotations (tablectl/game/rotation.py): hand counts, orbits when players sit out or leave,
dealer's choice, every (phase, event) pair applied or refused, and hand-worked examples."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.domain.games import BettingStructure, GameKind
from tablectl.game.rotation import (
    TRANSITIONS,
    GameChosen,
    HandPlayed,
    Rotation,
    RotationError,
    RotationEvent,
    RotationGame,
    RotationPhase,
    RotationPosition,
    button_moved,
    horse,
)
from tablectl.game.rules import Stakes

LIMITS = Stakes(small_blind=100, big_blind=200, small_bet=200, big_bet=400, ante=50,
                bring_in=50)
FL = BettingStructure.FIXED_LIMIT


def _next_button(button: int, live: list[int]) -> int:
    after = [s for s in sorted(live) if s > button]
    return after[0] if after else min(live)


def test_horse_is_five_limit_games_in_order_with_their_stakes() -> None:
    r = horse(LIMITS, stud_hands=8)
    assert [(g.game, g.structure, g.hands) for g in r.games] == [
        (GameKind.HOLDEM, FL, 0), (GameKind.OMAHA_HI_LO, FL, 0), (GameKind.RAZZ, FL, 8),
        (GameKind.STUD, FL, 8), (GameKind.STUD_HI_LO, FL, 8)]
    holdem, razz = r.games[0].stakes, r.games[2].stakes
    assert (holdem.big_blind, holdem.ante, holdem.bring_in) == (200, 0, 0)
    assert (razz.big_blind, razz.ante, razz.bring_in, razz.big_bet) == (0, 50, 50, 400)


def test_worked_example_a_whole_horse_round_at_six_seats() -> None:
    # seats 1-6 of 10; hold'em from button 1: buttons 1..6 (6 hands), then Omaha hi-lo from
    # button 1 again (6 hands), then razz, stud, stud hi-lo 3 hands each, button frozen on 1
    r = horse(LIMITS, stud_hands=3)
    live = [1, 2, 3, 4, 5, 6]
    pos, button = RotationPosition.first(r), 1
    dealt: list[tuple[str, int | None]] = []
    for _ in range(6 + 6 + 3 * 3 + 1):
        game = pos.game(r)
        dealt.append((game.game.value, None if game.game.is_stud else button))
        new = button if game.game.is_stud else _next_button(button, live)
        moved = 0 if game.game.is_stud else button_moved(button, new, 10)
        button = new
        pos = pos.after(r, HandPlayed(moved), max_seats=10)
    assert dealt == ([("holdem", b) for b in range(1, 7)]
                     + [("omaha-hi-lo", b) for b in range(1, 7)]
                     + [("razz", None)] * 3 + [("stud", None)] * 3 + [("stud-hi-lo", None)] * 3
                     + [("holdem", 1)])


def test_an_orbit_is_shorter_when_a_player_leaves() -> None:
    r = Rotation((RotationGame(GameKind.HOLDEM, FL, Stakes(small_blind=1, big_blind=2,
                                                           small_bet=2, big_bet=4)),
                  RotationGame(GameKind.RAZZ, FL, Stakes(ante=1, bring_in=1, small_bet=2,
                                                         big_bet=4), hands=2)))
    live = [1, 2, 3, 4, 5, 6]
    pos, button, hands = RotationPosition.first(r), 1, 0
    while pos.index == 0:
        hands += 1
        if hands == 1:
            live.remove(3)     # seat 3 leaves after the first hand
        new = _next_button(button, live)
        pos = pos.after(r, HandPlayed(button_moved(button, new, 10)), max_seats=10)
        button = new
    assert hands == 5      # buttons 1, 2, 4, 5, 6


def test_an_orbit_ends_when_the_button_passes_an_empty_starting_seat() -> None:
    r = Rotation((RotationGame(GameKind.HOLDEM, BettingStructure.NO_LIMIT,
                               Stakes(small_blind=1, big_blind=2)),))
    pos = RotationPosition.first(r)
    # button 1 (then seat 1 leaves): 1 -> 2 -> 3 -> 2 (wraps past seat 1): three hands
    for moved in (1, 1):
        pos = pos.after(r, HandPlayed(moved), max_seats=4)
        assert pos.played > 0
    pos = pos.after(r, HandPlayed(button_moved(3, 2, 4)), max_seats=4)
    assert (pos.index, pos.played, pos.travelled) == (0, 0, 0)     # the game began again


def test_hands_left_counts_the_live_seats_the_button_still_reaches() -> None:
    r = horse(LIMITS)
    pos = RotationPosition.first(r)
    live = [1, 2, 4, 7]
    assert pos.hands_left(r, 1, live, max_seats=10) == 4
    pos = pos.after(r, HandPlayed(1), max_seats=10)         # button 1 -> 2
    assert pos.hands_left(r, 2, live, max_seats=10) == 3
    assert pos.hands_left(r, 2, [*live, 9], max_seats=10) == 4   # a player sits down ahead
    assert pos.hands_left(r, 2, [1, 2], max_seats=10) == 1      # the others left
    stud = RotationPosition(index=3, played=5)
    assert stud.hands_left(r, 1, live, max_seats=10) == 3


@given(seats=st.sets(st.integers(1, 10), min_size=2, max_size=10),
       start=st.integers(0, 9), hands=st.integers(1, 12))
def test_an_orbit_with_fixed_seats_lasts_one_hand_per_player(seats: set[int], start: int,
                                                            hands: int) -> None:
    live = sorted(seats)
    button = live[start % len(live)]
    r = Rotation((RotationGame(GameKind.OMAHA, BettingStructure.POT_LIMIT,
                               Stakes(small_blind=1, big_blind=2)),
                  RotationGame(GameKind.STUD, FL, Stakes(ante=1, bring_in=1, small_bet=2,
                                                         big_bet=4), hands=hands)))
    pos, first = RotationPosition.first(r), button
    for i in range(len(live)):
        assert pos.index == 0
        assert pos.hands_left(r, button, live, max_seats=10) == len(live) - i
        new = _next_button(button, live)
        pos = pos.after(r, HandPlayed(button_moved(button, new, 10)), max_seats=10)
        button = new
    assert (pos.index, button) == (1, first)    # back where it began, the stud game next
    for i in range(hands):
        assert pos.index == 1 and pos.hands_left(r, button, live, max_seats=10) == hands - i
        pos = pos.after(r, HandPlayed(0), max_seats=10)     # the button is frozen
    assert pos == RotationPosition(0)


@given(seats=st.lists(st.sets(st.integers(1, 10), min_size=2, max_size=10), min_size=1,
                      max_size=30))
def test_an_orbit_ends_exactly_when_the_button_reaches_or_passes_its_start(
        seats: list[set[int]]) -> None:
    # players come and go between hands: the game ends on the first move that brings the
    # button back to (or past) the seat it began on, never before
    r = Rotation((RotationGame(GameKind.HOLDEM, BettingStructure.NO_LIMIT,
                               Stakes(small_blind=1, big_blind=2)),
                  RotationGame(GameKind.RAZZ, FL, Stakes(ante=1, bring_in=1, small_bet=2,
                                                         big_bet=4), hands=1)))
    pos, button = RotationPosition.first(r), min(seats[0])
    start, travelled = button, 0
    for live in seats:
        new = _next_button(button, sorted(live))
        moved = button_moved(button, new, 10)
        travelled += moved
        pos = pos.after(r, HandPlayed(moved), max_seats=10)
        button = new
        if travelled >= 10:
            assert pos.index == 1
            return
        assert pos.index == 0 and pos.travelled == travelled
        assert (button - start) % 10 == travelled % 10


def _dealers_choice() -> Rotation:
    return Rotation(horse(LIMITS, stud_hands=2).games, dealers_choice=True)


def test_dealers_choice_waits_for_the_dealer_before_every_game() -> None:
    r = _dealers_choice()
    pos = RotationPosition.first(r)
    assert pos.phase is RotationPhase.CHOOSING and pos.next_game(r) is None
    with pytest.raises(RotationError, match="choose_game"):
        pos.after(r, HandPlayed(1), max_seats=10)
    pos = pos.after(r, GameChosen(3), max_seats=10)           # seven card stud, 2 hands
    assert (pos.phase, pos.game(r).game) == (RotationPhase.PLAYING, GameKind.STUD)
    with pytest.raises(RotationError, match="not over"):
        pos.after(r, GameChosen(0), max_seats=10)
    pos = pos.after(r, HandPlayed(0), max_seats=10).after(r, HandPlayed(0), max_seats=10)
    assert pos.phase is RotationPhase.CHOOSING
    with pytest.raises(RotationError, match="no game 5"):
        pos.after(r, GameChosen(5), max_seats=10)


def test_a_fixed_rotation_refuses_a_choice() -> None:
    r = horse(LIMITS)
    with pytest.raises(RotationError, match="not dealer's choice"):
        RotationPosition.first(r).after(r, GameChosen(1), max_seats=10)


@pytest.mark.parametrize(("game", "structure", "hands", "words"), [
    (GameKind.STUD, BettingStructure.NO_LIMIT, 8, "not dealt no-limit"),
    (GameKind.RAZZ, FL, 0, "needs a number of hands"),
    (GameKind.HOLDEM, FL, -1, "must not be negative"),
])
def test_games_that_cannot_be_dealt_are_refused(game: GameKind, structure: BettingStructure,
                                                hands: int, words: str) -> None:
    with pytest.raises(RotationError, match=words):
        RotationGame(game, structure, LIMITS, hands)
    with pytest.raises(RotationError, match="at least one game"):
        Rotation(())


EVENTS: list[RotationEvent] = [HandPlayed(0), HandPlayed(1), HandPlayed(10), GameChosen(0),
                               GameChosen(4), GameChosen(9)]


@given(choice=st.booleans(), phase=st.sampled_from(RotationPhase), index=st.integers(0, 4),
       played=st.integers(0, 9), travelled=st.integers(0, 12), event=st.sampled_from(EVENTS))
def test_every_phase_and_event_is_applied_or_refused_cleanly(
        choice: bool, phase: RotationPhase, index: int, played: int, travelled: int,
        event: RotationEvent) -> None:
    r = Rotation(horse(LIMITS, stud_hands=3).games, dealers_choice=choice)
    pos = RotationPosition(index, played, travelled, phase)
    try:
        new = pos.after(r, event, max_seats=10)
    except RotationError:
        assert not any(key[:2] == (phase, type(event)) and key[3] == choice
                       for key in TRANSITIONS) or isinstance(event, GameChosen)
        return
    new.check(r)
    assert (phase, type(event)) in {key[:2] for key in TRANSITIONS}
    if new.index != pos.index or new.phase is not pos.phase:
        assert (new.played, new.travelled) == (0, 0)      # a new game starts from nothing
    else:
        assert new.played == pos.played + 1
