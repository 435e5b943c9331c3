"""Settling a finished hand: rake, who wins each pot, hi/lo halves and odd chips.

Every pot is settled on its own: only the players eligible for it compete, a hi-lo pot is
split only if one of *its* eligible players has a qualifying low (PokerKit 0.7.7 splits every
pot as soon as anybody has a low; see ``docs/rules.md``), and the odd unit of a split goes to
the high half.

A hand run more than once (``RuleSet.run_it``) is settled run by run: after the rake, each
contested pot is split into equal parts, one per run (odd chips [run_it.odd_chip]), and each
part is awarded on its run's board as a whole pot would be (hi-lo per run).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Final, Protocol

from tablectl.domain.cards import Card
from tablectl.domain.games import GameKind
from tablectl.game.evaluate import (
    HighHand,
    LowHand,
    best_high,
    best_low8,
    best_omaha_high,
    best_omaha_low8,
    best_razz,
)
from tablectl.game.model import (
    Award,
    Half,
    HandEvent,
    PotAwarded,
    PotResult,
    RakeTaken,
    ShowdownHand,
)
from tablectl.game.pots import build_pots, split
from tablectl.game.rules import OddChip, RakeScope, RuleSet, RunOddChip


class _Contender(Protocol):
    seat: int
    committed: int
    folded: bool
    mucked: bool
    cards: list[Card | None]


Evaluated = tuple[HighHand | LowHand, LowHand | None]


def evaluate_hand(game: GameKind, hole: Sequence[Card], board: Sequence[Card]) -> Evaluated:
    """The hand that competes for the whole/high part and the 8-or-better low (or None).

    For razz the first item is the razz low (smaller key is better). Stud's community card
    is part of ``board``.
    """
    if game in (GameKind.OMAHA, GameKind.OMAHA_HI_LO):
        high: HighHand | LowHand = best_omaha_high(hole, board)
        low = best_omaha_low8(hole, board) if game is GameKind.OMAHA_HI_LO else None
        return high, low
    cards = [*hole, *board]
    if game is GameKind.RAZZ:
        return best_razz(cards), None
    high = best_high(cards)
    low = best_low8(cards) if game.is_hi_lo else None
    return high, low


def _omaha(hole: Sequence[Card], board: Sequence[Card]) -> Evaluated:
    return best_omaha_high(hole, board), None


def _omaha8(hole: Sequence[Card], board: Sequence[Card]) -> Evaluated:
    return best_omaha_high(hole, board), best_omaha_low8(hole, board)


def _holdem(hole: Sequence[Card], board: Sequence[Card]) -> Evaluated:
    return best_high([*hole, *board]), None


def _holdem8(hole: Sequence[Card], board: Sequence[Card]) -> Evaluated:
    cards = [*hole, *board]
    return best_high(cards), best_low8(cards)


def _razz(hole: Sequence[Card], board: Sequence[Card]) -> Evaluated:
    return best_razz([*hole, *board]), None


_EVALUATORS: Final[Mapping[GameKind, Callable[[Sequence[Card], Sequence[Card]], Evaluated]]] = {
    GameKind.HOLDEM: _holdem, GameKind.HOLDEM_HI_LO: _holdem8, GameKind.OMAHA: _omaha,
    GameKind.OMAHA_HI_LO: _omaha8, GameKind.STUD: _holdem, GameKind.STUD_HI_LO: _holdem8,
    GameKind.RAZZ: _razz,
}
"""Per game: the whole/high hand and the 8-or-better low (stud's community card is board)."""


def _strength(hand: HighHand | LowHand) -> int:
    """Bigger is better for both kinds."""
    return -hand.key if isinstance(hand, LowHand) else hand.key


def _top_card_key(hand: HighHand | LowHand, low: bool) -> tuple[int, int]:
    return max(((c.rank.low_value if low else c.rank.high_value), c.suit.order)
               for c in hand.cards)


def run_parts(amount: int, runs: int, rule: RunOddChip, unit: int) -> list[int]:
    """A pot's parts, one per run (in multiples of ``unit``; odd ones as ``rule`` says).

    >>> run_parts(101, 2, RunOddChip.ONE_EACH, 1)
    [51, 50]
    >>> run_parts(8, 3, RunOddChip.ONE_EACH, 1), run_parts(8, 3, RunOddChip.FIRST_RUN, 1)
    ([3, 3, 2], [4, 2, 2])
    """
    if rule is RunOddChip.FIRST_RUN:
        base = amount // runs // unit * unit
        return [amount - base * (runs - 1)] + [base] * (runs - 1)
    return split(amount, runs, unit=unit)


def settle(*, game: GameKind, rules: RuleSet, players: Sequence[_Contender],
           boards: Sequence[Sequence[Card | None]], dead: int = 0, showdown: bool,
           first_round: bool, mucks: Sequence[int] = ()) -> tuple[
               tuple[PotResult, ...], list[HandEvent], int]:
    """Rake and award every pot.

    Args:
        game: decides the evaluation and the odd-chip rule family.
        rules: odd chips, split unit and rake.
        players: in position order (first left of the button / dealer); ``committed`` is what
            each put in this hand (uncalled bets already returned).
        boards: every run's board cards, run 1 first (one board unless the hand is run more
            than once; stud: the community card, if any).
        dead: dead money for the main pot (a big-blind ante).
        showdown: False when everybody else folded (no cards are evaluated).
        first_round: the hand ended in its first betting round (no flop, no drop).
        mucks: indices into ``players`` of the mucked hands, in the order they mucked.

    Returns:
        The pot results, the events (showdown hands, rake, awards) and the total rake.

    A pot is built from what the hands not folded put in, mucked ones included, so a muck
    never moves chips into a pot its player could not have won. A mucked hand gives up its
    claim against the hands still in; in a pot whose every eligible hand mucked (a side pot
    whose players both mucked against an all-in hand that showed, say) nobody was left to
    give it up to when the last of them mucked, so that hand keeps it, as the last hand in
    keeps the pot when everybody else mucks.
    """
    pots = _contested(build_pots([p.committed for p in players],
                                 [not p.folded for p in players], dead=dead), players, mucks)
    events: list[HandEvent] = []
    runs = len(boards)
    runs_evaluated: list[dict[int, Evaluated]] = [{} for _ in boards]
    if showdown:
        evaluate = _EVALUATORS[game]
        for r, board in enumerate(boards):
            known_board = board if None not in board else [c for c in board if c is not None]
            evaluated = runs_evaluated[r]
            for i, p in enumerate(players):
                if not p.folded and not p.mucked:
                    cards = p.cards
                    hole = cards if None not in cards else [c for c in cards if c is not None]
                    evaluated[i] = high, low = evaluate(hole,  # type: ignore[arg-type]
                                                        known_board)  # type: ignore[arg-type]
                    events.append(ShowdownHand(p.seat, high.cards, high.description,
                                               low.description if low else None,
                                               r + 1 if runs > 1 else 0))
    if showdown and rules.merge_equal_pots:
        pots = _merge_equal_pots(pots, runs_evaluated)
    rake = rules.rake
    no_drop = (first_round and rake.no_flop_no_drop) or not rake.percent
    odd_rule = rules.stud_odd_chip if game.is_stud else rules.odd_chip
    unit = rules.split_unit
    raked_total = 0
    results: list[PotResult] = []
    share_out = partial(_award, odd_rule=odd_rule, unit=unit, players=players)
    razz = game is GameKind.RAZZ
    for pot_index, (amount, eligible) in enumerate(pots):
        taken = 0 if no_drop else rake.take(
            amount, raked_total if rake.scope is RakeScope.PER_HAND else 0)
        raked_total += taken
        if taken:
            events.append(RakeTaken(pot_index, taken))
        net = amount - taken
        awards: list[Award] = []
        if not showdown or len(eligible) == 1:
            winner = eligible[0]
            awards.append(Award(players[winner].seat, net, Half.WHOLE,
                                "uncontested" if not showdown else "uncalled"))
        else:
            parts = run_parts(net, runs, rules.run_it.odd_chip, unit) if runs > 1 else [net]
            for r, part in enumerate(parts):
                evaluated = runs_evaluated[r]
                run = r + 1 if runs > 1 else 0
                highs = [(i, evaluated[i][0]) for i in eligible]
                lows = [(i, low) for i in eligible if (low := evaluated[i][1]) is not None]
                if lows:
                    low_share = part // (2 * unit) * unit
                    awards += share_out(part - low_share, highs, Half.HIGH, low=False, run=run)
                    awards += share_out(low_share, lows, Half.LOW, low=True, run=run)
                else:
                    awards += share_out(part, highs, Half.WHOLE, low=razz, run=run)
        for award in awards:
            events.append(PotAwarded(pot_index, award.seat, award.amount, award.half,
                                     award.description, award.run))
        results.append(PotResult(pot_index, amount, taken,
                                 tuple(players[i].seat for i in eligible), tuple(awards)))
    return tuple(results), events, raked_total


def _award(amount: int, hands: Sequence[tuple[int, HighHand | LowHand]], half: Half, *,
           odd_rule: OddChip, unit: int, players: Sequence[_Contender],
           low: bool, run: int = 0) -> list[Award]:
    if amount == 0:
        return []
    best = max(_strength(h) for _, h in hands)
    winners = [(i, h) for i, h in hands if _strength(h) == best]  # position order
    if odd_rule is OddChip.HIGH_CARD_BY_SUIT:
        def order_key(item: tuple[int, HighHand | LowHand]) -> tuple[int, int, int]:
            k = _top_card_key(item[1], low)
            return (-k[0], -k[1], item[0])
        winners.sort(key=order_key)
    shares = split(amount, len(winners), unit=unit)
    if odd_rule is OddChip.FIRST_WINNER_ALL:
        base = amount // len(winners)
        shares = [base] * len(winners)
        shares[0] += amount - base * len(winners)
    return [Award(players[i].seat, share, half, h.description, run)
            for (i, h), share in zip(winners, shares, strict=True) if share]


def _contested(pots: list[tuple[int, tuple[int, ...]]], players: Sequence[_Contender],
               mucks: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
    """Each pot with the hands that contest it: its eligible hands not mucked, else the one of
    them that mucked last (a mucked hand missing from ``mucks`` counts as mucked first)."""
    order = {i: k for k, i in enumerate(mucks)}
    contested: list[tuple[int, tuple[int, ...]]] = []
    for amount, eligible in pots:
        shown = tuple(i for i in eligible if not players[i].mucked)
        if not shown and eligible:
            shown = (max(eligible, key=lambda i: order.get(i, -1)),)
        contested.append((amount, shown))
    return contested


def _merge_equal_pots(pots: list[tuple[int, tuple[int, ...]]],
                      runs_evaluated: Sequence[dict[int, Evaluated]]
                      ) -> list[tuple[int, tuple[int, ...]]]:
    """Drop hands that win no part of any pot on any run, then merge pots with the same
    contenders."""
    winners: set[int] = set()
    for _, eligible in pots:
        if len(eligible) == 1:
            winners.add(eligible[0])
            continue
        for evaluated in runs_evaluated:
            best = max(_strength(evaluated[i][0]) for i in eligible)
            winners.update(i for i in eligible if _strength(evaluated[i][0]) == best)
            lows = [low.key for i in eligible if (low := evaluated[i][1]) is not None]
            if lows:
                winners.update(i for i in eligible if (low := evaluated[i][1]) is not None
                               and low.key == min(lows))
    merged: list[tuple[int, tuple[int, ...]]] = []
    for amount, eligible in pots:
        alive = tuple(i for i in eligible if i in winners)
        if merged and tuple(i for i in merged[-1][1] if i in winners) == alive:
            merged[-1] = (merged[-1][0] + amount, merged[-1][1])
        else:
            merged.append((amount, eligible))
    return merged
