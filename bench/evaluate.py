"""Hand-evaluator throughput: tablectl.game.evaluate against phevaluator (C) and PokerKit.

Run from the repository root:

    .venv/bin/python bench/evaluate.py                 # defaults: 5 repeats
    .venv/bin/python bench/evaluate.py --repeats 3 --scale 0.2   # quicker

Method: seeded random deals are drawn once and converted to each library's own card type
*before* any timer starts, so only the evaluation calls are timed (``time.perf_counter``,
one thread). Every measurement runs ``--repeats`` times on the same inputs, the repeats
interleaved round-robin across all measurements (so load from other processes on a shared
machine falls on ours and the baselines alike); the median and the best rate are printed.
Before timing, the orderings of our keys and the baselines are cross-checked on the timed
inputs (every pair of hands must be ordered alike), so the figures compare evaluators that
agree.

What is timed, per evaluation:

* 7-card high (hold'em / stud): our ``high_key`` (integer only) and ``best_high`` (with the
  five cards and the description) vs ``phevaluator.evaluate_cards`` on 7 integer ids.
  Our six- and seven-card rank patterns are memoised on first use; the first pass over the
  inputs (an empty memo) is reported separately as ``cold``.
* Omaha high (4 hole + 5 board): ``omaha_high_key`` and ``best_omaha_high`` vs
  ``phevaluator.evaluate_omaha_cards`` and PokerKit's ``OmahaHoldemHand.from_game``.
* Omaha 8-or-better low: ``omaha_low8_key`` and ``best_omaha_low8`` vs PokerKit's
  ``OmahaEightOrBetterLowHand.from_game`` (phevaluator has no low evaluator).

PokerKit is slow (about a thousand Omaha evaluations per second), so it gets fewer inputs;
rates are per second either way. The last line of output is one JSON object with the medians.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

import phevaluator
import pokerkit

from tablectl.domain.cards import FULL_DECK, Card
from tablectl.game.evaluate import (
    best_high,
    best_omaha_high,
    best_omaha_low8,
    high_key,
    omaha_high_key,
    omaha_low8_key,
)

SEED = 20261129


def _round_robin(
    runs: Sequence[tuple[Callable[[], object], int]], repeats: int
) -> list[tuple[float, float]]:
    """(median, best) rate of each run; repeats interleave so a busy moment hits them all."""
    rates: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for (run, n), out in zip(runs, rates, strict=True):
            t0 = time.perf_counter()
            run()
            out.append(n / (time.perf_counter() - t0))
    return [(statistics.median(r), max(r)) for r in rates]


def _same_order(ours: Sequence[int], theirs: Sequence[Any], *, theirs_lower_better: bool) -> int:
    """Number of disagreements when every pair of hands is ordered (0 = identical order)."""
    groups: dict[int, set[Any]] = {}
    for k, v in zip(ours, theirs, strict=True):
        groups.setdefault(k, set()).add(v)
    bad = sum(len(vs) - 1 for vs in groups.values())
    ordered = [next(iter(groups[k])) for k in sorted(groups)]
    for worse, better in pairwise(ordered):
        ok = better < worse if theirs_lower_better else better > worse
        bad += not ok
    return bad


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply input counts")
    args = parser.parse_args(argv)
    repeats: int = args.repeats
    n7 = int(100_000 * args.scale)
    n9 = int(30_000 * args.scale)
    n_pk = max(200, int(2_000 * args.scale))

    rng = random.Random(SEED)
    deals7 = [rng.sample(FULL_DECK, 7) for _ in range(n7)]
    deals9 = [rng.sample(FULL_DECK, 9) for _ in range(n9)]
    omaha = [(d[:4], d[4:]) for d in deals9]
    ph7 = [[phevaluator.Card(str(c)).id_ for c in d] for d in deals7]
    ph9 = [[phevaluator.Card(str(c)).id_ for c in d[4:] + d[:4]] for d in deals9]
    pk9 = [
        (tuple(pokerkit.Card.parse("".join(map(str, d[:4])))),
         tuple(pokerkit.Card.parse("".join(map(str, d[4:])))))
        for d in deals9[:n_pk]
    ]  # fmt: skip
    print(
        f"python {platform.python_version()} ({platform.machine()}), "
        f"pokerkit {pokerkit.__name__}, {repeats} repeats; inputs: {n7} x 7 cards, "
        f"{n9} x Omaha (PokerKit: {n_pk})",
        flush=True,
    )

    # Cold first pass: the six/seven-card memo is empty.
    t0 = time.perf_counter()
    keys7 = [high_key(d) for d in deals7]
    cold7 = n7 / (time.perf_counter() - t0)

    # Cross-checks on the timed inputs.
    check7 = _same_order(
        keys7, [phevaluator.evaluate_cards(*d) for d in ph7], theirs_lower_better=True
    )
    keys9 = [omaha_high_key(h, b) for h, b in omaha]
    check9 = _same_order(
        keys9, [phevaluator.evaluate_omaha_cards(*d) for d in ph9], theirs_lower_better=True
    )
    low_pairs = [
        (k, v)
        for (h, b), pk in zip(omaha[:n_pk], pk9, strict=False)
        if (k := omaha_low8_key(h, b)) is not None and (v := _pokerkit_low(*pk)) is not None
    ]
    low_none_mismatch = sum(
        (omaha_low8_key(h, b) is None) != (_pokerkit_low(*pk) is None)
        for (h, b), pk in zip(omaha[:n_pk], pk9, strict=False)
    )
    check_low = low_none_mismatch + _same_order(
        [-k for k, _ in low_pairs], [v for _, v in low_pairs], theirs_lower_better=False
    )
    print(
        f"cross-check disagreements: 7-card vs phevaluator {check7}, Omaha high vs "
        f"phevaluator {check9}, Omaha low vs PokerKit {check_low}",
        flush=True,
    )

    def loop(fn: Callable[[Sequence[Card]], object], data: list[list[Card]]) -> Callable[[], None]:
        def run() -> None:
            for d in data:
                fn(d)

        return run

    def loop2(
        fn: Callable[[Sequence[Card], Sequence[Card]], object],
        data: list[tuple[list[Card], list[Card]]],
    ) -> Callable[[], None]:
        def run() -> None:
            for h, b in data:
                fn(h, b)

        return run

    def ph_run(fn: Callable[..., int], data: list[list[int]]) -> Callable[[], None]:
        def run() -> None:
            for d in data:
                fn(*d)

        return run

    def pk_run(fn: Callable[[Any, Any], object], data: list[Any]) -> Callable[[], None]:
        def run() -> None:
            for h, b in data:
                try:  # noqa: SIM105 - contextlib.suppress would slow the baseline's loop
                    fn(h, b)
                except ValueError:  # no qualifying low
                    pass

        return run

    table: list[tuple[str, str, Callable[[], None], int]] = [
        ("seven_card_high", "ours_key", loop(high_key, deals7), n7),
        ("seven_card_high", "ours_best_high", loop(best_high, deals7), n7),
        ("seven_card_high", "phevaluator", ph_run(phevaluator.evaluate_cards, ph7), n7),
        ("omaha_high", "ours_key", loop2(omaha_high_key, omaha), n9),
        ("omaha_high", "ours_best", loop2(best_omaha_high, omaha), n9),
        ("omaha_high", "phevaluator", ph_run(phevaluator.evaluate_omaha_cards, ph9), n9),
        ("omaha_high", "pokerkit", pk_run(pokerkit.OmahaHoldemHand.from_game, pk9), n_pk),
        ("omaha_low8", "ours_key", loop2(omaha_low8_key, omaha), n9),
        ("omaha_low8", "ours_best", loop2(best_omaha_low8, omaha), n9),
        (
            "omaha_low8",
            "pokerkit",
            pk_run(pokerkit.OmahaEightOrBetterLowHand.from_game, pk9),
            n_pk,
        ),
    ]
    figures: dict[str, Any] = {
        "repeats": repeats,
        "unit": "evaluations per second (median of repeats)",
        "seven_card_high": {"ours_key_cold": round(cold7)},
        "omaha_high": {},
        "omaha_low8": {},
    }
    print(f"{'seven_card_high':16} {'ours_key_cold':16} {cold7:>12,.0f}  (first pass, single)")
    results = _round_robin([(run, n) for _, _, run, n in table], repeats)
    for (group, label, _, n), (median, best) in zip(table, results, strict=True):
        figures[group][label] = round(median)
        print(f"{group:16} {label:16} {median:>12,.0f}  (best {best:,.0f}, {n} inputs)", flush=True)
    for group in ("seven_card_high", "omaha_high"):
        g = figures[group]
        g["phevaluator_over_ours_key"] = round(g["phevaluator"] / g["ours_key"], 1)
    for group in ("omaha_high", "omaha_low8"):
        g = figures[group]
        g["ours_best_over_pokerkit"] = round(g["ours_best"] / g["pokerkit"], 1)
    figures["cross_check_disagreements"] = check7 + check9 + check_low
    print(json.dumps(figures, sort_keys=True))
    return 0


def _pokerkit_low(hole: Any, board: Any) -> Any:
    try:
        return pokerkit.OmahaEightOrBetterLowHand.from_game(hole, board)
    except ValueError:
        return None


if __name__ == "__main__":
    raise SystemExit(main())
