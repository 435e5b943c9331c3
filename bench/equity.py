"""Live-odds speed: tablectl.game.equity against PokerKit's equity calculation and a
phevaluator (C) enumeration, on the positions the issue names; and the card-read latency of
bench/latency.py with odds on beside odds off.

Run from the repository root:

    .venv/bin/python bench/equity.py                          # defaults
    .venv/bin/python bench/equity.py --positions 3 --repeats 3 --latency-samples 0  # quick

Method: ``--positions`` seeded random positions per scenario, each valued ``--repeats`` times
(``time.perf_counter``, one thread, tables built and caches warm before timing, the repeats of
all scenarios interleaved round-robin so load from other processes falls on every scenario
alike); p50 and p99 over all timings of a scenario, and the p50 of the CPU time the call used
(``time.thread_time``: on a shared machine, what the call costs without the waits for a core).
Scenarios (targets from issue 16):

* hold'em, 9 players known, on the flop, exact (p99 <= 2 ms);
* hold'em, 9 players, before the flop: exact (<= 250 ms) and Monte Carlo to +-0.5 points at
  95% (<= 50 ms);
* Omaha (4 cards), 6 players, on the flop, exact (<= 10 ms); Omaha hi-lo the same (<= 2x);
* stud, razz and stud hi-lo heads-up on fifth street, exact;
* stud and razz 4 players on fifth street, Monte Carlo to +-0.5 points (<= 50 ms).

Baselines in the same run, on the first position of a scenario: a phevaluator enumeration of
every run-out (a Python loop over the boards, one ``evaluate_cards`` / ``evaluate_omaha_cards``
call per hand: what an equity calculator on phevaluator does; high hands only, it has no
lows), whose equities must equal ours; and PokerKit's ``calculate_equities`` (Monte Carlo only)
timed on ``--pokerkit-samples`` samples, its time per sample multiplied by the run-outs (or
samples) we used to give its time for the same work. Ratios are baseline / ours.

Card-read latency: ``bench/latency.py --odds both --samples N`` (a real daemon with and
without its odds worker), run as a child process; its p50 with odds on minus off must stay
within 0.2 ms. ``--latency-samples 0`` skips it. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any

import phevaluator
import pokerkit

from tablectl.domain.cards import FULL_DECK, Card
from tablectl.domain.games import GameKind
from tablectl.game import fasteval
from tablectl.game.equity import EquityResult, equity

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261201
G = GameKind


@dataclass(frozen=True)
class Scenario:
    name: str
    variant: GameKind
    players: int
    cards: int          # per player (stud: cards so far)
    board: int
    monte_carlo: bool   # force sampling
    target_ms: float
    target_of: str      # "p99" or "p50"


SCENARIOS = [
    Scenario("holdem_9way_flop", G.HOLDEM, 9, 2, 3, False, 2.0, "p99"),
    Scenario("holdem_9way_preflop", G.HOLDEM, 9, 2, 0, False, 250.0, "p50"),
    Scenario("holdem_9way_preflop_mc", G.HOLDEM, 9, 2, 0, True, 50.0, "p50"),
    Scenario("omaha_6way_flop", G.OMAHA, 6, 4, 3, False, 10.0, "p50"),
    Scenario("omaha_hi_lo_6way_flop", G.OMAHA_HI_LO, 6, 4, 3, False, 20.0, "p50"),
    Scenario("stud_hu_fifth", G.STUD, 2, 5, 0, False, 0.0, "p50"),
    Scenario("razz_hu_fifth", G.RAZZ, 2, 5, 0, False, 0.0, "p50"),
    Scenario("stud_hi_lo_hu_fifth", G.STUD_HI_LO, 2, 5, 0, False, 0.0, "p50"),
    Scenario("stud_4way_fifth_mc", G.STUD, 4, 5, 0, True, 50.0, "p50"),
    Scenario("razz_4way_fifth_mc", G.RAZZ, 4, 5, 0, True, 50.0, "p50"),
]

Position = tuple[list[list[Card]], list[Card]]


def positions(s: Scenario, count: int) -> list[Position]:
    rng = random.Random(f"{SEED}-{s.name}")
    out = []
    for _ in range(count):
        deck = rng.sample(FULL_DECK, s.players * s.cards + s.board)
        hands = [deck[i * s.cards:(i + 1) * s.cards] for i in range(s.players)]
        out.append((hands, deck[s.players * s.cards:]))
    return out


def ours(s: Scenario, pos: Position) -> EquityResult:
    hands, board = pos
    return equity(s.variant, hands, board, exact_budget=0 if s.monte_carlo else 4_000_000)


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# --- baselines ---------------------------------------------------------------------------------


def phevaluator_enumeration(s: Scenario, pos: Position) -> tuple[list[float], float, int]:
    """(equities, seconds, run-outs) of a plain enumeration with phevaluator per hand."""
    hands, board = pos
    ids = [[phevaluator.Card(str(c)).id_ for c in h] for h in hands]
    known = {c for h in hands for c in h} | set(board)
    unseen = [phevaluator.Card(str(c)).id_ for c in FULL_DECK if c not in known]
    fixed = [phevaluator.Card(str(c)).id_ for c in board]
    omaha = s.variant is G.OMAHA
    shares = [0.0] * len(hands)
    t0 = time.perf_counter()
    runs = 0
    evaluate7 = phevaluator.evaluate_cards
    evaluate9 = phevaluator.evaluate_omaha_cards
    for extra in combinations(unseen, 5 - len(board)):
        full = fixed + list(extra)
        if omaha:
            values = [evaluate9(*full, *h) for h in ids]
        else:
            values = [evaluate7(*full, *h) for h in ids]
        best = min(values)
        winners = [i for i, v in enumerate(values) if v == best]
        for i in winners:
            shares[i] += 1 / len(winners)
        runs += 1
    return [x / runs for x in shares], time.perf_counter() - t0, runs


def pokerkit_per_sample(s: Scenario, pos: Position, samples: int) -> float:
    """Seconds per sample of PokerKit's calculate_equities on this position."""
    hands, board = pos
    hand_types: tuple[Any, ...]
    if s.variant is G.RAZZ:
        hand_types = (pokerkit.RegularLowHand,)
    elif s.variant in (G.OMAHA,):
        hand_types = (pokerkit.OmahaHoldemHand,)
    elif s.variant is G.OMAHA_HI_LO:
        hand_types = (pokerkit.OmahaHoldemHand, pokerkit.OmahaEightOrBetterLowHand)
    elif s.variant is G.STUD_HI_LO:
        hand_types = (pokerkit.StandardHighHand, pokerkit.EightOrBetterLowHand)
    else:
        hand_types = (pokerkit.StandardHighHand,)
    ranges = [[list(pokerkit.Card.parse("".join(map(str, h))))] for h in hands]
    dealt = 7 if s.variant.is_stud else s.cards
    t0 = time.perf_counter()
    pokerkit.calculate_equities(ranges, list(pokerkit.Card.parse("".join(map(str, board)))),
                                dealt, 0 if s.variant.is_stud else 5, pokerkit.Deck.STANDARD,
                                hand_types, sample_count=samples)
    return (time.perf_counter() - t0) / samples


# --- the run -----------------------------------------------------------------------------------


def round_robin(runs: list[Callable[[], object]],
                repeats: int) -> tuple[list[list[float]], list[list[float]]]:
    """Wall and CPU (this thread's) milliseconds of every call, repeats interleaved."""
    times: list[list[float]] = [[] for _ in runs]
    cpu: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for run, out, used in zip(runs, times, cpu, strict=True):
            c0 = time.thread_time()
            t0 = time.perf_counter()
            run()
            out.append((time.perf_counter() - t0) * 1000)
            used.append((time.thread_time() - c0) * 1000)
    return times, cpu


def latency(samples: int) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "latency.py"), "--odds", "both",
                           "--samples", str(samples)], capture_output=True, text=True,
                          check=False, timeout=900)
    if proc.returncode != 0:
        raise SystemExit(f"bench/latency.py failed: {proc.stderr[-2000:]}")
    for line in proc.stdout.strip().splitlines()[:-1]:
        print(f"  latency: {line}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--positions", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--pokerkit-samples", type=int, default=200)
    parser.add_argument("--latency-samples", type=int, default=200)
    parser.add_argument("--only", default=None, help="comma-separated scenario names")
    args = parser.parse_args(argv)
    chosen = [s for s in SCENARIOS if args.only is None or s.name in args.only.split(",")]
    t0 = time.perf_counter()
    fasteval.warm()
    print(f"tables built in {time.perf_counter() - t0:.2f} s; {args.positions} positions x "
          f"{args.repeats} repeats per scenario", flush=True)
    work = [(s, p) for s in chosen for p in positions(s, args.positions)]
    results = {id(p): ours(s, p) for s, p in work}          # warm caches, keep the figures
    times, cpu = round_robin([partial(ours, s, p) for s, p in work], args.repeats)
    figures: dict[str, Any] = {"unit": "ms", "repeats": args.repeats,
                               "positions": args.positions}
    mismatch = 0.0
    for s in chosen:
        mine = [t for (sc, _), ts in zip(work, times, strict=True) if sc is s for t in ts]
        used = [t for (sc, _), ts in zip(work, cpu, strict=True) if sc is s for t in ts]
        first = next(p for sc, p in work if sc is s)
        result = results[id(first)]
        row: dict[str, Any] = {"p50": round(pct(mine, 0.5), 3), "p99": round(pct(mine, 0.99), 3),
                               "cpu_p50": round(pct(used, 0.5), 3),
                               "exact": result.exact, "runouts": result.runouts,
                               "target": s.target_ms or None}
        if s.target_ms:
            row["met"] = row[s.target_of] <= s.target_ms
        errors = [p.error for p in result.players if p.error is not None]
        if errors:
            row["half_width_95_points"] = round(196 * max(errors), 3)
        # the preflop loop takes seconds: only in a full run
        if not s.monte_carlo and s.variant in (G.HOLDEM, G.OMAHA) and \
                (s.board or args.repeats >= 3):
            theirs, seconds, _ = phevaluator_enumeration(s, first)
            mismatch = max(mismatch, *(abs(a - p.equity)
                                       for a, p in zip(theirs, result.players, strict=True)))
            row["phevaluator_ms"] = round(seconds * 1000, 2)
            row["phevaluator_over_ours"] = round(seconds * 1000 / row["p50"], 1)
        per_sample = pokerkit_per_sample(s, first, args.pokerkit_samples)
        row["pokerkit_ms_same_runouts"] = round(per_sample * result.runouts * 1000, 1)
        row["pokerkit_over_ours"] = round(row["pokerkit_ms_same_runouts"] / row["p50"], 1)
        figures[s.name] = row
        met = "" if "met" not in row else (" met" if row["met"] else " NOT met")
        print(f"{s.name:24} p50 {row['p50']:9.3f} ms  p99 {row['p99']:9.3f} ms  "
              f"(cpu p50 {row['cpu_p50']:8.3f})  "
              f"{'exact' if result.exact else 'MC'} {result.runouts:>8,}  target "
              f"{s.target_ms or '-'} ms ({s.target_of}){met}"
              + (f"  phevaluator x{row['phevaluator_over_ours']}"
                 if "phevaluator_over_ours" in row else "")
              + f"  pokerkit x{row['pokerkit_over_ours']:,}", flush=True)
    hilo, high = figures.get("omaha_hi_lo_6way_flop"), figures.get("omaha_6way_flop")
    if hilo and high:
        figures["omaha_hi_lo_over_high"] = round(hilo["p50"] / high["p50"], 2)
        print(f"Omaha hi-lo / Omaha high p50: {figures['omaha_hi_lo_over_high']}x (target <= 2)")
    figures["phevaluator_max_equity_difference"] = round(mismatch, 9)
    print(f"largest equity difference from the phevaluator enumeration: {mismatch:.2e}")
    if args.latency_samples > 0:
        lat = latency(args.latency_samples)
        figures["latency"] = lat
        growth = lat["odds_on"]["read_p50"] - lat["odds_off"]["read_p50"]
        figures["read_p50_growth_ms"] = round(growth, 3)
        print(f"card read p50 with odds on - off: {growth:+.3f} ms (target <= 0.2 ms)")
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
