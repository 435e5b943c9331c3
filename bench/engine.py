#!/usr/bin/env python3
"""Speed of the rules engine against PokerKit, and of showdown evaluation against phevaluator.

    .venv/bin/python bench/engine.py [--hands N] [--repeats R] [--evals M]

1. Complete fixed-limit Omaha hi-lo hands, 6-handed (stacks 200, blinds 1/2, bets 2/4): N
   seeded hands are scripted first (random legal actions: fold 15 % facing a bet, bet or raise
   25 %, else check/call), then the *same* hands -- same cards, burns and actions -- are played
   through our engine (``Hand.start`` + ``apply`` of every input, showdown included) and through
   PokerKit 0.7.7 (a real fixed-limit Omaha hi-lo built from its mixins, explicit dealing,
   bookkeeping automated), twice: as shipped, and with the memo of its hand evaluations that
   the differential oracle installs (``tests/game/pokerkit_oracle.py``, ``_memoised``; a
   fresh memo each run, so a run does not reuse the evaluations of the one before). Both must
   end with the same stacks. Target: ours >= 50x PokerKit as shipped; the memoised ratio is
   the oracle's cost in the differential test.
2. Run it twice (docs/rules.md): N seeded no-limit hold'em hands, 3-handed, every player
   all-in before the flop, each played run once and run twice (the same hole cards and first
   board; the second run's cards after them). A hand run twice deals and evaluates a second
   board: its per-hand cost against the same hand run once, the baseline of the same run
   (target <= 1.5x).
3. Bomb pots and double boards (docs/rules.md): N seeded no-limit hold'em hands, 3-handed,
   every player checking or calling to the showdown, each dealt plain (the baseline of the
   same run), as a bomb pot (antes, no pre-flop betting) and on a double board (each street's
   cards to both boards, each pot split per board) from the same deck: the per-hand cost of
   each against the plain hand (target <= 1.5x).
4. Showdown evaluations: M random Omaha hands (4 hole + 5 board cards): our
   ``best_omaha_high`` (best five and description, what a showdown uses), our key-only
   ``omaha_high_key``, and phevaluator's ``evaluate_omaha_cards`` (C).

Inputs are built before each timer starts; times are CPU time of this process
(``time.process_time``), so other jobs on a shared machine do not skew one side of a ratio;
every figure is the median of R runs; the ratios of sections 2 and 3 are the median ratio of
5R pairs, each a run of the baseline then a run of the format (a burst of load slows both). The
last line of output is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import phevaluator
from pokerkit import State
from pokerkit.lookups import Lookup

from tablectl.domain.cards import FULL_DECK, Card
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.game import (
    PRESETS,
    Act,
    ActionIn,
    ActionKind,
    Burn,
    CardIn,
    DealBoard,
    Hand,
    HandInput,
    HandStart,
    RunItTwice,
    RunsIn,
    SeatSetup,
    Stakes,
)
from tablectl.game.evaluate import best_omaha_high, omaha_high_key

# PokerKit's evaluation methods as shipped, taken before the oracle's import replaces them by
# memoised ones (tests/game/pokerkit_oracle.py; it is imported in _oracle, after this line).
SHIPPED: Final = {(Lookup, "_get_key"): Lookup._get_key, (State, "get_hand"): State.get_hand,
                  (State, "get_up_hand"): State.get_up_hand}

SEED = 20261129
RULES = replace(PRESETS[RulesPreset.PHH], raise_capped_at_effective_stack=False)
STAKES = Stakes(small_blind=1, big_blind=2, small_bet=2, big_bet=4)
SEATS = tuple(SeatSetup(i, 200) for i in range(1, 7))


def script_hands(count: int, rng: random.Random) -> list[tuple[HandStart, tuple[HandInput, ...],
                                                           list[tuple[str, Any]]]]:
    """Seeded hands as (start, our inputs, the same hand as PokerKit calls)."""
    out = []
    for _ in range(count):
        hand = Hand.start(game=GameKind.OMAHA_HI_LO, structure=BettingStructure.FIXED_LIMIT,
                          rules=RULES, stakes=STAKES, seats=SEATS, button=6)
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        calls: list[tuple[str, Any]] = []
        while not hand.is_done:
            exp = hand.expected()
            if isinstance(exp, Act):
                legal = exp.legal
                roll = rng.random()
                if ActionKind.CALL in legal.kinds and roll < 0.15:
                    action = ActionIn(exp.seat, ActionKind.FOLD)
                    calls.append(("fold", None))
                elif legal.bet_kind is not None and roll < 0.40:
                    action = ActionIn(exp.seat, legal.bet_kind, legal.min_to)
                    calls.append(("complete_bet_or_raise_to", legal.min_to))
                else:
                    kind = ActionKind.CALL if ActionKind.CALL in legal.kinds else ActionKind.CHECK
                    action = ActionIn(exp.seat, kind)
                    calls.append(("check_or_call", None))
                hand.apply(action)
            else:
                card = deck.pop()
                name = ("burn_card" if isinstance(exp, Burn) else
                        "deal_board" if isinstance(exp, DealBoard) else "deal_hole")
                calls.append((name, str(card)))
                hand.apply(CardIn(card))
        out.append((hand.start_args, hand.inputs, calls))
    return out


def script_all_ins(count: int, rng: random.Random) -> tuple[list[tuple[HandStart, tuple[
        HandInput, ...]]], list[tuple[HandStart, tuple[HandInput, ...]]]]:
    """The same all-in hands run once and run twice, as (start, inputs)."""
    rules = replace(RULES, run_it=RunItTwice(max_runs=2))
    once, twice = [], []
    for _ in range(count):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        pair = []
        for runs in (1, 2):
            hand = Hand.start(game=GameKind.HOLDEM, structure=BettingStructure.NO_LIMIT,
                              rules=rules, stakes=Stakes(small_blind=1, big_blind=2),
                              seats=SEATS[:3], button=3)
            cards = iter(deck)
            while not hand.is_done:
                exp = hand.expected()
                if runs > 1 and hand.runs == 1 and hand.can(RunsIn(runs)):
                    hand.apply(RunsIn(runs))
                elif isinstance(exp, Act):
                    legal = exp.legal
                    hand.apply(ActionIn(exp.seat, ActionKind.RAISE, legal.max_to)
                               if legal.bet_kind is ActionKind.RAISE
                               and ActionKind.CALL in legal.kinds and legal.call_amount < 3
                               else ActionIn(exp.seat, ActionKind.CALL))
                else:
                    hand.apply(CardIn(next(cards)))
            pair.append((hand.start_args, hand.inputs))
        once.append(pair[0])
        twice.append(pair[1])
    return once, twice


FORMATS: Final = ("plain", "bomb", "double")
PAIRS_PER_REPEAT: Final = 5
"""Sections 2 and 3 time a format and its baseline in alternating pairs, 5 per repeat."""


def script_formats(count: int, rng: random.Random) -> dict[str, list[tuple[HandStart, tuple[
        HandInput, ...]]]]:
    """The same no-limit hold'em hands (3-handed, every player checking or calling to the
    showdown, the same deck) dealt plain, as a bomb pot of 10 each (no blinds, no pre-flop
    betting) and on a double board, as (start, inputs) by format."""
    out: dict[str, list[tuple[HandStart, tuple[HandInput, ...]]]] = {f: [] for f in FORMATS}
    for _ in range(count):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        for fmt in FORMATS:
            hand = Hand.start(game=GameKind.HOLDEM, structure=BettingStructure.NO_LIMIT,
                              rules=RULES, stakes=Stakes(small_blind=1, big_blind=2),
                              seats=SEATS[:3], button=3, bomb=10 if fmt == "bomb" else 0,
                              boards=2 if fmt == "double" else 1)
            cards = iter(deck)
            while not hand.is_done:
                exp = hand.expected()
                if isinstance(exp, Act):
                    kind = (ActionKind.CALL if ActionKind.CALL in exp.legal.kinds
                            else ActionKind.CHECK)
                    hand.apply(ActionIn(exp.seat, kind))
                else:
                    hand.apply(CardIn(next(cards)))
            out[fmt].append((hand.start_args, hand.inputs))
    return out


def replay_all(hands: list[tuple[HandStart, tuple[HandInput, ...]]]) -> int:
    done = 0
    for start, inputs in hands:
        hand = Hand(start)
        for inp in inputs:
            hand.apply(inp)
        done += hand.is_done
    return done


def run_ours(hands: list[tuple[HandStart, tuple[HandInput, ...], Any]]) -> list[list[int]]:
    results = []
    for start, inputs, _ in hands:
        hand = Hand(start)
        apply = hand.apply
        for inp in inputs:
            apply(inp)
        stacks = hand.final_stacks
        results.append([stacks[s.seat] for s in SEATS])
    return results


def _oracle() -> ModuleType:
    import importlib

    return importlib.import_module("tests.game.pokerkit_oracle")


@contextmanager
def pokerkit_evaluation(memo: bool) -> Iterator[None]:
    """PokerKit with its evaluation methods as shipped, or memoised as the oracle memoises
    them (a new, empty memo); the oracle's own methods are put back afterwards."""
    oracle = _oracle()
    before = {key: getattr(*key) for key in SHIPPED}
    for (owner, name), shipped in SHIPPED.items():
        method = shipped
        if memo:
            method = (oracle._memoised_key(shipped) if name == "_get_key"
                      else oracle._memoised(shipped, up=name == "get_up_hand"))
        setattr(owner, name, method)
    try:
        yield
    finally:
        for (owner, name), method in before.items():
            setattr(owner, name, method)


def run_pokerkit(hands: list[tuple[HandStart, tuple[HandInput, ...],
                                   list[tuple[str, Any]]]], *, memo: bool) -> list[list[int]]:
    oracle = _oracle()
    with pokerkit_evaluation(memo):
        return _play_pokerkit(oracle, hands)


def _play_pokerkit(oracle: ModuleType, hands: list[tuple[HandStart, tuple[HandInput, ...],
                                                         list[tuple[str, Any]]]]
                   ) -> list[list[int]]:
    game = oracle.TrueFixedLimitOmahaHiLo(oracle.AUTO, True, 0, (1, 2), 2, 4)
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _, _, calls in hands:
            state = game([200] * 6, 6)
            for name, arg in calls:
                method = getattr(state, name)
                if arg is None:
                    method()
                else:
                    method(arg)
            results.append(list(state.stacks))
    return results


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    times = []
    value: object = None
    for _ in range(repeats):
        t0 = time.process_time()
        value = fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), value


def paired(base: Callable[[], object], other: Callable[[], object], pairs: int
           ) -> tuple[float, float, float]:
    """Median CPU times of ``base`` and ``other`` timed alternately, ``pairs`` times each,
    and the median of their ratios pair by pair: a burst of load on a shared machine then
    slows both sides of a ratio, not one block of runs."""
    times: list[tuple[float, float]] = []
    for _ in range(pairs):
        t0 = time.process_time()
        base()
        t1 = time.process_time()
        other()
        times.append((t1 - t0, time.process_time() - t1))
    return (statistics.median(a for a, _ in times), statistics.median(b for _, b in times),
            statistics.median(b / a for a, b in times))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--evals", type=int, default=20000)
    args = parser.parse_args()
    rng = random.Random(SEED)
    hands = script_hands(args.hands, rng)
    inputs = sum(len(h[1]) for h in hands) / len(hands)
    print(f"{len(hands)} scripted fixed-limit Omaha hi-lo hands, 6-handed, "
          f"{inputs:.1f} inputs per hand; median of {args.repeats} runs")
    ours_s, ours_stacks = timed(lambda: run_ours(hands), args.repeats)
    pk_s, pk_stacks = timed(lambda: run_pokerkit(hands, memo=False), args.repeats)
    memo_s, memo_stacks = timed(lambda: run_pokerkit(hands, memo=True), args.repeats)
    same = sum(a == b == c for a, b, c in zip(ours_stacks, pk_stacks, memo_stacks,  # type: ignore[call-overload]
                                              strict=True))
    ours_rate, pk_rate, memo_rate = (len(hands) / ours_s, len(hands) / pk_s,
                                     len(hands) / memo_s)
    print(f"  tablectl engine              : {ours_rate:10.0f} hands/s")
    print(f"  PokerKit 0.7.7 as shipped    : {pk_rate:10.1f} hands/s")
    print(f"  PokerKit 0.7.7, oracle's memo: {memo_rate:10.1f} hands/s")
    print(f"  ratio to PokerKit as shipped : {ours_rate / pk_rate:10.1f}x (target >= 50x)")
    print(f"  ratio to the memoised oracle : {ours_rate / memo_rate:10.1f}x "
          f"(the memo makes PokerKit {memo_rate / pk_rate:.1f}x faster)")
    print(f"  same final stacks (all three) in {same}/{len(hands)} hands")

    once, twice = script_all_ins(args.hands, rng)
    assert all(len(t[1]) > len(o[1]) for o, t in zip(once, twice, strict=True))
    pairs = PAIRS_PER_REPEAT * args.repeats
    once_s, twice_s, twice_x = paired(lambda: replay_all(once), lambda: replay_all(twice),
                                      pairs)
    print(f"{len(once)} no-limit hold'em hands all-in before the flop, 3-handed; "
          f"median of {pairs} alternating pairs")
    print(f"  run once        : {len(once) / once_s:10.0f} hands/s (baseline)")
    print(f"  run twice       : {len(twice) / twice_s:10.0f} hands/s; "
          f"{twice_x:.2f}x the cost of a hand run once (target <= 1.5x)")

    formats = script_formats(args.hands, rng)
    fmt_s: dict[str, float] = {}
    fmt_x: dict[str, float] = {}
    for fmt in FORMATS[1:]:
        fmt_s["plain"], fmt_s[fmt], fmt_x[fmt] = paired(
            lambda: replay_all(formats["plain"]), lambda f=fmt: replay_all(formats[f]), pairs)
    print(f"{args.hands} no-limit hold'em hands checked or called to the showdown, 3-handed; "
          f"median of {pairs} alternating pairs each")
    print(f"  plain           : {args.hands / fmt_s['plain']:10.0f} hands/s (baseline)")
    for fmt, words in (("bomb", "bomb pot"), ("double", "double board")):
        print(f"  {words:<16}: {args.hands / fmt_s[fmt]:10.0f} hands/s; "
              f"{fmt_x[fmt]:.2f}x the cost of a plain hand (target <= 1.5x)")

    samples = []
    for _ in range(args.evals):
        cards = rng.sample(FULL_DECK, 9)
        samples.append((tuple(cards[:4]), tuple(cards[4:])))
    ids = [tuple(c.index for c in board + hole) for hole, board in samples]
    check = rng.sample(range(len(samples)), min(2000, len(samples)))
    for i, j in zip(check[::2], check[1::2], strict=True):
        ours = (omaha_high_key(*samples[i]) > omaha_high_key(*samples[j])) - (
            omaha_high_key(*samples[i]) < omaha_high_key(*samples[j]))
        theirs = (phevaluator.evaluate_omaha_cards(*ids[j]) > phevaluator.evaluate_omaha_cards(
            *ids[i])) - (phevaluator.evaluate_omaha_cards(*ids[j])
                         < phevaluator.evaluate_omaha_cards(*ids[i]))
        assert ours == theirs, (samples[i], samples[j])
    full_s, _ = timed(lambda: [best_omaha_high(h, b) for h, b in samples], args.repeats)
    key_s, _ = timed(lambda: [omaha_high_key(h, b) for h, b in samples], args.repeats)
    ph_s, _ = timed(lambda: [phevaluator.evaluate_omaha_cards(*x) for x in ids], args.repeats)
    n = len(samples)
    print(f"{n} Omaha high showdown evaluations (orderings agree with phevaluator on "
          f"{len(check) // 2} pairs)")
    print(f"  best_omaha_high (hand + words) : {n / full_s:10.0f} /s")
    print(f"  omaha_high_key (key only)      : {n / key_s:10.0f} /s")
    print(f"  phevaluator (C)                : {n / ph_s:10.0f} /s")
    print(f"  ratio best_omaha_high / phevaluator: {ph_s / full_s:.3f}")
    print(json.dumps({
        "hands": len(hands), "engine_hands_per_s": round(ours_rate, 1),
        "pokerkit_hands_per_s": round(pk_rate, 2),
        "pokerkit_memo_hands_per_s": round(memo_rate, 2),
        "engine_vs_pokerkit_shipped": round(ours_rate / pk_rate, 1),
        "engine_vs_pokerkit_memo": round(ours_rate / memo_rate, 1),
        "memo_speedup": round(memo_rate / pk_rate, 1), "same_stacks": same,
        "run_once_hands_per_s": round(len(once) / once_s, 1),
        "run_twice_hands_per_s": round(len(twice) / twice_s, 1),
        "run_twice_cost_vs_once": round(twice_x, 2),
        "plain_hands_per_s": round(args.hands / fmt_s["plain"], 1),
        "bomb_pot_cost_vs_plain": round(fmt_x["bomb"], 2),
        "double_board_cost_vs_plain": round(fmt_x["double"], 2),
        "evals": n, "eval_per_s": round(n / full_s), "eval_key_per_s": round(n / key_s),
        "phevaluator_per_s": round(n / ph_s), "eval_vs_phevaluator": round(ph_s / full_s, 3),
    }))
    return 0


if __name__ == "__main__":
    _ = Card  # re-exported type used in annotations of the scripts
    sys.exit(main())
