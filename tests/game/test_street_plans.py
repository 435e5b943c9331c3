"""The street plans are data (tablectl/game/streets.py) and the hand deals exactly what they say;
the engine's caches (tablectl/game/memo.py) are bounded and never change a result."""

from __future__ import annotations

from dataclasses import replace

from tablectl.domain.cards import FULL_DECK
from tablectl.domain.games import ALLOWED_STRUCTURES, BettingStructure, GameKind
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    CardIn,
    Expectation,
    Hand,
    Showdown,
    ShowIn,
    Street,
    memo,
)
from tablectl.game.streets import PLANS, Opener, street_queue
from tests.game.helpers import start

BUTTON_GAMES = [g for g in GameKind if not g.is_stud]
STUD_GAMES = [g for g in GameKind if g.is_stud]


def test_every_game_has_a_plan_of_its_family() -> None:
    assert set(PLANS) == set(GameKind)
    for game in BUTTON_GAMES:
        plan = PLANS[game]
        assert plan.blinds
        assert [r.street for r in plan.rounds] == [Street.PREFLOP, Street.FLOP, Street.TURN,
                                                  Street.RIVER]
        assert [r.opener for r in plan.rounds] == [Opener.BLINDS] + [Opener.BUTTON] * 3
    for game in STUD_GAMES:
        plan = PLANS[game]
        assert not plan.blinds
        assert [r.street for r in plan.rounds] == [Street.THIRD, Street.FOURTH, Street.FIFTH,
                                                  Street.SIXTH, Street.SEVENTH]
        assert [r.opener for r in plan.rounds] == [Opener.BRING_IN] + [Opener.BEST_SHOWING] * 4
    assert PLANS[GameKind.RAZZ].low and not PLANS[GameKind.STUD].low
    assert PLANS[GameKind.STUD_HI_LO].bring_in_by_rule


def test_cards_per_seat_board_burns_and_bet_sizes() -> None:
    hole = {GameKind.HOLDEM: 2, GameKind.HOLDEM_HI_LO: 2, GameKind.OMAHA: 4,
            GameKind.OMAHA_HI_LO: 4, GameKind.STUD: 7, GameKind.STUD_HI_LO: 7,
            GameKind.RAZZ: 7}
    for game, plan in PLANS.items():
        rounds = plan.rounds
        assert sum(r.hole + r.down + r.up for r in rounds) == hole[game]
        assert sum(r.board for r in rounds) == (0 if game.is_stud else 5)
        assert [r.burn for r in rounds] == [False] + [True] * (len(rounds) - 1)
        assert [r.big_bet for r in rounds] == [False, False] + [True] * (len(rounds) - 2)
        assert [r.short_stub for r in rounds] == [False] * (len(rounds) - 1) + [game.is_stud]
    third = PLANS[GameKind.STUD].rounds[0]
    assert (third.down, third.up) == (2, 1)
    assert PLANS[GameKind.STUD].rounds[-1].down == 1


def _play_to_the_end(hand: Hand) -> list[tuple[Street, Expectation]]:
    """Check or call every decision, show every hand; the card expectations met, in order."""
    seen: list[tuple[Street, Expectation]] = []
    deck = list(FULL_DECK)
    while not hand.is_done:
        exp = hand.expected()
        if isinstance(exp, Act):
            kinds = exp.legal.kinds
            kind = next(k for k in (ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL)
                        if k in kinds)
            hand.apply(ActionIn(exp.seat, kind))
        elif isinstance(exp, Showdown):
            hand.apply(ShowIn(exp.seat, None))
        else:
            street = hand.street
            assert street is not None
            seen.append((street, exp))
            hand.apply(CardIn(deck.pop()))
    return seen


def test_the_hand_deals_what_its_plan_says() -> None:
    for game in GameKind:
        for burns in (True, False):
            structure = sorted(ALLOWED_STRUCTURES[game])[0]
            hand = start(game, structure, stacks=(100, 100, 100, 100))
            if not burns:
                args = hand.start_args
                hand = Hand(replace(args, rules=replace(args.rules, burns=False)))
            order = hand.position_seats
            seen = _play_to_the_end(hand)
            planned: list[tuple[Street, Expectation]] = []
            board = 0
            for rnd in PLANS[game].rounds:
                planned += [(rnd.street, e) for e in street_queue(
                    rnd, seats=order, burning=burns, board_dealt=board)]
                board += rnd.board
            assert seen == planned, (game, burns)


def test_a_full_memo_is_cleared_and_results_do_not_change() -> None:
    table: memo.Memo[int, int] = memo.Memo()
    for k in range(memo.LIMIT):
        table.remember(k, k)
    assert len(table) == memo.LIMIT
    table.remember(-1, -1)
    assert dict(table) == {-1: -1}

    hand = start(GameKind.HOLDEM, BettingStructure.NO_LIMIT)
    _play_to_the_end(hand)
    memo.clear()
    assert not (memo.CARD_KEYS or memo.VALUES or memo.ACTS or memo.HOLE_QUEUES)
    again = Hand.replay(hand.start_args, hand.inputs)
    assert again.view() == hand.view()
    assert again.events == hand.events
