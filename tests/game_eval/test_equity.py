"""Equity (tablectl.game.equity) against an independent exact enumeration with PokerKit's
hand evaluators, on seeded random positions of every variant; and the figures that must hold.

The oracle here enumerates every run-out in plain Python and values each hand with PokerKit
0.7.7 (``StandardHighHand``, ``OmahaHoldemHand``, ``EightOrBetterLowHand``,
``OmahaEightOrBetterLowHand``, ``RegularLowHand`` for razz); it shares nothing with the code
under test but the rule that a pot's halves are split evenly between tied hands.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import cache
from itertools import combinations, permutations
from typing import Any

import pokerkit
import pytest

from tablectl.domain.cards import FULL_DECK, Card, parse_cards
from tablectl.domain.games import GameKind
from tablectl.game.equity import EquityError, EquityResult, equity

SEED = 20261201
G = GameKind


def _text(cards: Sequence[Card]) -> str:
    return "".join(map(str, cards))


def _hand_of(variant: GameKind, low: bool) -> Callable[[str, str], Any]:
    """PokerKit's evaluator: (hole, board) -> hand (greater is stronger) or None (no low)."""
    omaha = variant in (G.OMAHA, G.OMAHA_HI_LO)
    if variant is G.RAZZ:
        kind: Any = pokerkit.RegularLowHand
    elif low:
        kind = pokerkit.OmahaEightOrBetterLowHand if omaha else pokerkit.EightOrBetterLowHand
    else:
        kind = pokerkit.OmahaHoldemHand if omaha else pokerkit.StandardHighHand

    @cache
    def value(hole: str, board: str) -> Any:
        try:
            return kind.from_game(hole, board)
        except ValueError:
            return None
    return value


def _pot_shares(highs: list[Any],
                lows: list[Any] | None) -> tuple[list[float], list[float], list[float] | None]:
    """(pot, high half, low half or None where no low qualifies) shares of one run-out."""
    best = max(highs)
    winners = [h == best for h in highs]
    high = [w / sum(winners) for w in winners]
    if lows is None or all(x is None for x in lows):
        return high, high, None
    best_low = max(x for x in lows if x is not None)
    low_winners = [x is not None and x == best_low for x in lows]
    low = [w / sum(low_winners) for w in low_winners]
    return [0.5 * h + 0.5 * w for h, w in zip(high, low, strict=True)], high, low


def _oracle(variant: GameKind, hands: list[list[Card]], board: list[Card],
            dead: list[Card]) -> tuple[list[tuple[float, ...]], float]:
    """(win, tie, equity, high, low) of each player over every run-out, by brute force, and
    the chance that no low qualifies (0 in a game without a low half)."""
    seen = {*board, *dead, *(c for h in hands for c in h)}
    unseen = [c for c in FULL_DECK if c not in seen]
    high_of = _hand_of(variant, low=False)
    low_of = _hand_of(variant, low=True) if variant.is_hi_lo else None
    totals = [[0.0] * 5 for _ in hands]
    runs = no_low = 0
    if variant.is_stud:
        need = [7 - len(h) for h in hands]
        # ordered draws: each player takes their cards in turn (uniform like the real deal)
        runouts: Any = (
            [list(p[sum(need[:i]):sum(need[:i + 1])]) for i in range(len(hands))]
            for p in permutations(unseen, sum(need)))
        boards: Any = None
    else:
        runouts = None
        boards = (list(r) for r in combinations(unseen, 5 - len(board)))
    for item in (runouts if runouts is not None else boards):
        if variant.is_stud:
            # a player's hand is the same whatever order its cards came in: one key for it
            full = ["".join(sorted(map(str, h + extra)))
                    for h, extra in zip(hands, item, strict=True)]
            highs = [high_of(f, "") for f in full]
            lows = [low_of(f, "") for f in full] if low_of else None
        else:
            b = _text(board + item)
            highs = [high_of(_text(h), b) for h in hands]
            lows = [low_of(_text(h), b) for h in hands] if low_of else None
        pot, high, low = _pot_shares(highs, lows)
        no_low += low is None
        for i, (total, share) in enumerate(zip(totals, pot, strict=True)):
            total[0] += share == 1.0
            total[1] += 0.0 < share < 1.0
            total[2] += share
            total[3] += high[i]
            total[4] += low[i] if low is not None else 0.0
        runs += 1
    return [tuple(x / runs for x in total) for total in totals], no_low / runs


def _random_position(rng: random.Random, variant: GameKind, players: int,
                     board_cards: int, stud_cards: int, dead: int) -> tuple[Any, ...]:
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    size = stud_cards if variant.is_stud else (4 if variant in (G.OMAHA, G.OMAHA_HI_LO) else 2)
    hands = [deck[i * size:(i + 1) * size] for i in range(players)]
    rest = deck[players * size:]
    board = [] if variant.is_stud else rest[:board_cards]
    dead_cards = rest[board_cards:board_cards + dead]
    return hands, board, dead_cards


# (variant, players, board cards, stud cards each, dead cards, positions)
POSITIONS = [
    (G.HOLDEM, 4, 4, 0, 3, 3),
    (G.HOLDEM, 2, 3, 0, 0, 1),
    (G.HOLDEM_HI_LO, 3, 4, 0, 2, 3),
    (G.OMAHA, 3, 4, 0, 2, 3),
    (G.OMAHA_HI_LO, 3, 4, 0, 1, 3),
    (G.STUD, 2, 0, 6, 4, 2),
    (G.STUD, 3, 0, 7, 0, 1),
    (G.STUD_HI_LO, 2, 0, 6, 3, 2),
    (G.RAZZ, 2, 0, 6, 5, 2),
]


@pytest.mark.parametrize(("variant", "players", "board", "stud", "dead", "count"), POSITIONS,
                         ids=[f"{p[0]}-{p[1]}way" for p in POSITIONS])
def test_equity_equals_an_independent_enumeration(variant: GameKind, players: int, board: int,
                                                  stud: int, dead: int, count: int) -> None:
    rng = random.Random(f"{SEED}-{variant}-{players}-{board}")
    for _ in range(count):
        hands, board_cards, dead_cards = _random_position(rng, variant, players, board, stud,
                                                          dead)
        result = equity(variant, hands, board_cards, dead_cards)
        assert result.exact
        expected, no_low = _oracle(variant, hands, board_cards, dead_cards)
        for player, (win, tie, share, high, low) in zip(result.players, expected, strict=True):
            assert player.win == pytest.approx(win, abs=1e-9)
            assert player.tie == pytest.approx(tie, abs=1e-9)
            assert player.equity == pytest.approx(share, abs=1e-9)
            if variant.is_hi_lo:     # the high and low halves apart, and scoops
                assert player.high == pytest.approx(high, abs=1e-9)
                assert player.low == pytest.approx(low, abs=1e-9)
                assert player.scoop == player.win
            else:
                assert player.high is None and player.low is None
        if variant.is_hi_lo:
            assert result.no_low == pytest.approx(no_low, abs=1e-9)
        else:
            assert result.no_low is None
        assert sum(p.equity for p in result.players) == pytest.approx(1.0)


def _shares_sum_to_one(result: EquityResult) -> None:
    assert sum(p.equity for p in result.players) == pytest.approx(1.0)
    assert sum(p.high or 0.0 for p in result.players) == pytest.approx(1.0)
    assert result.no_low is not None
    assert sum(p.low or 0.0 for p in result.players) + result.no_low == pytest.approx(1.0)
    for p in result.players:
        assert p.scoop == p.win
        # a share of the pot is half the high share plus half the low share, or the whole
        # high share where no low qualifies: it lies between the two halves' shares
        assert p.equity <= max(p.high or 0, (p.low or 0) + 1e-12) + 0.5 + 1e-9


@pytest.mark.parametrize("variant", [G.HOLDEM_HI_LO, G.OMAHA_HI_LO, G.STUD_HI_LO])
def test_hi_lo_shares_sum_to_one(variant: GameKind) -> None:
    rng = random.Random(f"{SEED}-hilo-{variant}")
    for _ in range(3):
        stud = 5 if variant.is_stud else 0
        hands, board, dead = _random_position(rng, variant, 2 if stud else 3, 3, stud, 2)
        result = equity(variant, hands, board, dead)
        _shares_sum_to_one(result)
    # and by Monte Carlo: 4 players on the flop is past a small exact budget
    hands, board, dead = _random_position(rng, variant, 3, 3, 3 if variant.is_stud else 0, 0)
    sampled = equity(variant, hands, board, dead, exact_budget=0, seed=7)
    assert not sampled.exact
    _shares_sum_to_one(sampled)


def test_aces_against_kings_before_the_flop() -> None:
    result = equity(G.HOLDEM, [parse_cards("AcAd"), parse_cards("KhKs")])
    aces = result.players[0]
    # 1 712 304 boards are past the default budget for two players: sampled to +-0.5 points
    assert not result.exact
    assert aces.error is not None and 1.96 * aces.error <= 0.005
    assert 0.81 <= aces.equity <= 0.83
    assert aces.win + aces.tie <= aces.equity + aces.tie and aces.tie < 0.01


def test_dead_cards_remove_outs() -> None:
    hands = [parse_cards("AsKs"), parse_cards("QhQd")]
    board = parse_cards("2s 7s 9c 3h")
    live = equity(G.HOLDEM, hands, board)
    # 44 rivers: the nine spades and the three aces and three kings win for AK
    assert live.players[0].equity == pytest.approx(15 / 44)
    assert len(live.players[0].outs or ()) == 15
    dead = parse_cards("4s 5s Ac")
    fewer = equity(G.HOLDEM, hands, board, dead)
    assert fewer.players[0].equity == pytest.approx(12 / 41)
    assert not set(dead) & set(fewer.players[0].outs or ())
    assert {str(c) for c in fewer.players[1].outs or ()} == \
        {str(c) for c in FULL_DECK if c not in {*hands[0], *hands[1], *board, *dead}} - \
        {str(c) for c in fewer.players[0].outs or ()}
    all_dead = [c for c in FULL_DECK if c in (live.players[0].outs or ())]
    assert equity(G.HOLDEM, hands, board, all_dead).players[0].equity == 0.0


def test_outs_equal_the_oracle_on_the_turn() -> None:
    rng = random.Random(f"{SEED}-outs")
    for variant in (G.HOLDEM, G.OMAHA):
        hands, board, dead = _random_position(rng, variant, 3, 4, 0, 0)
        result = equity(variant, hands, board, dead)
        high_of = _hand_of(variant, low=False)
        seen = {*board, *(c for h in hands for c in h)}
        for i, player in enumerate(result.players):
            want = set()
            for river in (c for c in FULL_DECK if c not in seen):
                values = [high_of(_text(h), _text([*board, river])) for h in hands]
                if all(values[i] > v for j, v in enumerate(values) if j != i):
                    want.add(river)
            assert set(player.outs or ()) == want


def test_monte_carlo_is_seeded_reports_its_error_and_agrees_with_exact() -> None:
    rng = random.Random(f"{SEED}-mc")
    hands, board, dead = _random_position(rng, G.HOLDEM, 4, 3, 0, 0)
    exact = equity(G.HOLDEM, hands, board, dead)
    a = equity(G.HOLDEM, hands, board, dead, exact_budget=0, seed=3, precision=0.01)
    b = equity(G.HOLDEM, hands, board, dead, exact_budget=0, seed=3, precision=0.01)
    c = equity(G.HOLDEM, hands, board, dead, exact_budget=0, seed=4, precision=0.01)
    assert exact.exact and not a.exact
    assert a == b and a != c
    assert a.precision == 0.01
    for mine, truth in zip(a.players, exact.players, strict=True):
        assert mine.error is not None and 1.96 * mine.error <= 0.01
        assert abs(mine.equity - truth.equity) <= 4 * mine.error + 1e-9
    assert all(p.error is None for p in exact.players)


def test_stud_with_cards_to_come_for_several_players_samples() -> None:
    rng = random.Random(f"{SEED}-stud")
    hands, _, dead = _random_position(rng, G.RAZZ, 4, 0, 3, 4)
    result = equity(G.RAZZ, hands, (), dead, seed=1)
    assert not result.exact and result.runouts >= 8192
    assert sum(p.equity for p in result.players) == pytest.approx(1.0)
    assert all(p.error is not None and 1.96 * p.error <= 0.005 for p in result.players)


@pytest.mark.parametrize(("variant", "hands", "board", "dead", "message"), [
    (G.HOLDEM, ["AsKs"], "", "", "at least two hands"),
    (G.HOLDEM, ["AsKsQs", "2c2d"], "", "", "hand 1 has 3 cards"),
    (G.HOLDEM, ["AsKs", "AsQd"], "", "", "card As is given twice"),
    (G.HOLDEM, ["AsKs", "2c2d"], "Kd Qd Jd Td 9d 8d", "", "at most 5"),
    (G.HOLDEM, ["AsKs", "2c2d"], "Kd", "Kd", "card Kd is given twice"),
    (G.STUD, ["AsKsQs", "2c2d2h"], "Kd", "", "has no board"),
    # eight stud players would need 56 cards
    (G.STUD, [_text(FULL_DECK[i * 3:(i + 1) * 3]) for i in range(8)], "", "",
     "32 cards are still to come but only 28 are unseen"),
])
def test_bad_positions_are_refused(variant: GameKind, hands: list[str], board: str, dead: str,
                                   message: str) -> None:
    with pytest.raises(EquityError, match=message):
        equity(variant, [parse_cards(h) for h in hands], parse_cards(board), parse_cards(dead))


def test_a_stud_community_card_counts_in_every_hand() -> None:
    # eight players to seventh street: 48 cards dealt, one community card for everybody
    deck = list(FULL_DECK)
    random.Random(f"{SEED}-community").shuffle(deck)
    hands = [deck[i * 6:(i + 1) * 6] for i in range(8)]
    community = deck[48:49]
    result = equity(G.RAZZ, hands, community)
    assert result.exact and result.runouts == 1
    low_of = _hand_of(G.RAZZ, low=False)
    values = [low_of(_text([*h, *community]), "") for h in hands]
    shares = _pot_shares(values, None)[0]
    assert [p.equity for p in result.players] == pytest.approx(shares)
    # heads-up with cards to come it is no stud position: refused
    with pytest.raises(EquityError, match="has no board"):
        equity(G.RAZZ, [h[:5] for h in hands[:2]], community)
