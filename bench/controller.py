"""Hand controller cost per input against the bare rules engine, and replay from the journal.

Method: for each variant, a seeded random dealer (built on the engine) records the inputs of
``--hands`` whole hands dealt from the shoe (card reads and dealer commands, four seats). Then,
per run, these timings of the same hands:

* ``engine``: the bare :class:`tablectl.game.Hand` fed the same cards and decisions (baseline);
* ``controller``: :meth:`HandController.handle` for every input, each call timed on its own
  (reads resolved through the deck, commands authorised and checked, events folded): the
  controller's share of the critical path from a card read to its event. After each call,
  untimed there, ``public_changed`` / ``secure_changed`` are read and, when one is set, both
  snapshots taken, as the daemon does once the input's events are published (the read-only
  ``*_snapshot_view`` accessors where the controller has them, else the copying
  ``*_snapshot``). Also split by kind: ``read`` (card reads) and ``action`` (action
  commands), mean and ``_p50`` (the median call); the other inputs are start_hand, next_hand
  and adjust_stack;
* ``with_snapshots``: the same ``handle()`` calls plus those flag and snapshot reads:
  everything the controller costs the daemon per input;
* ``unread``: ``handle()`` for every input with every outcome kept and no flag read until the
  end (with lazy snapshots, each call then settles the last outcome first);
* ``replay``: every input decoded from its journal JSON, then handled, outcomes dropped
  (crash recovery).

Figures are medians over ``--runs`` runs, in microseconds per input; the last line printed is
one JSON object with every figure.

``--baseline REV`` times the ``tablectl`` of git revision ``REV`` (extracted with
``git archive`` into a temporary directory) against the working tree's, each run in a child
process, the two alternating run by run so that both see the same machine; it prints both
sets of medians and the ratios now / baseline (below 1: faster now). The bench script itself is
the working tree's for both, so it uses only what both controllers offer.

Usage: ``.venv/bin/python bench/controller.py [--hands 40] [--runs 5] [--baseline REV]``
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tablectl.controller import (
    CardRead,
    Command,
    ControllerInput,
    HandController,
    SeatState,
    TableSetup,
    TableState,
    input_from_json,
    input_to_json,
)
from tablectl.domain.cards import FULL_DECK
from tablectl.domain.deck import Deck
from tablectl.domain.games import BettingStructure, GameKind
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    Burn,
    CardIn,
    DealBoard,
    DealDown,
    DealHole,
    DealUp,
    Hand,
    HandInput,
    HandStart,
    SeatSetup,
    Showdown,
    ShowIn,
    Stakes,
)

ROOT = Path(__file__).resolve().parents[1]
DECKS = ROOT / "config" / "decks"
FL, NL, PL = (BettingStructure.FIXED_LIMIT, BettingStructure.NO_LIMIT,
              BettingStructure.POT_LIMIT)
VARIANTS = [(GameKind.HOLDEM, NL), (GameKind.OMAHA_HI_LO, FL), (GameKind.OMAHA, PL),
            (GameKind.STUD, FL), (GameKind.RAZZ, FL)]
CARD_STEPS = (DealHole, DealUp, DealDown, Burn, DealBoard)
RATIOS = ("controller", "read", "read_p50", "action", "action_p50", "with_snapshots", "unread",
          "replay")


def stakes(game: GameKind, structure: BettingStructure) -> Stakes:
    if game.is_stud:
        return Stakes(ante=10, bring_in=20, small_bet=50, big_bet=100)
    if structure is FL:
        return Stakes(small_blind=25, big_blind=50, small_bet=50, big_bet=100)
    return Stakes(small_blind=50, big_blind=100)


def record(setup: TableSetup, hands: int, rng: random.Random) -> tuple[
        list[ControllerInput], list[tuple[HandStart, list[HandInput]]]]:
    """Inputs of ``hands`` hands for the controller, and the same hands for the engine."""
    deck = setup.deck
    at = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)
    inputs: list[ControllerInput] = []
    engine: list[tuple[HandStart, list[HandInput]]] = []
    seats = [SeatSetup(n, 100_000, f"P{n}") for n in (1, 3, 5, 8)]
    n = 0
    order = [s.seat for s in seats]
    button = order[0]

    def cmd(name: str, **args: object) -> None:
        nonlocal n, at
        n += 1
        at += timedelta(seconds=1)
        inputs.append(Command(name=name, user="dealer", id=f"c{n}", at=at,
                              args=args))  # type: ignore[arg-type]

    for h in range(hands):
        cmd("start_hand")
        start = HandStart(setup.game, setup.structure, setup.rule_set, setup.stakes,
                          tuple(seats), 0 if setup.game.is_stud else button,
                          f"{setup.table}-{h + 1:06d}")
        hand = Hand(start)
        cards = list(FULL_DECK)
        rng.shuffle(cards)
        fed: list[HandInput] = []
        while True:
            exp = hand.expected()
            inp: HandInput
            if isinstance(exp, CARD_STEPS):
                card = cards.pop()
                n += 1
                at += timedelta(seconds=1)
                inputs.append(CardRead(source="shoe", uid=deck.uid_for(card), antenna=0,
                                       read_id=f"r{n}", at=at))
                inp = CardIn(card)
            elif isinstance(exp, Act):
                legal = exp.legal
                kind = rng.choice(sorted(legal.kinds - {ActionKind.FOLD}
                                         or legal.kinds, key=lambda k: k.value))
                amount = legal.min_to if kind is legal.bet_kind else None
                cmd("action", seat=exp.seat, kind=kind.value, amount=amount)
                inp = ActionIn(exp.seat, kind, amount)
            elif isinstance(exp, Showdown):
                cmd("action", seat=exp.seat, kind="show")
                inp = ShowIn(exp.seat)
            else:
                break
            hand.apply(inp)
            fed.append(inp)
        engine.append((start, fed))
        cmd("next_hand")
        button = order[(order.index(button) + 1) % len(order)]
        # every hand starts from the same stacks, as the engine baseline's do
        for seat, stack in hand.final_stacks.items():
            cmd("adjust_stack", seat=seat, amount=100_000 - stack, reason="bench")
    return inputs, engine


def kind_of(inp: ControllerInput) -> str:
    """``read`` (a card read), ``action`` (an action command) or ``other`` (other commands)."""
    if isinstance(inp, CardRead):
        return "read"
    return "action" if isinstance(inp, Command) and inp.name == "action" else "other"


def snapshot_reader(ctl: HandController) -> Callable[[], object]:
    """What the daemon does after publishing an input's events: read the outcome's flags,
    then take both snapshots to serialise (the read-only accessors where the controller has
    them, fresh copies on a controller that has none: the baseline of ``--baseline``)."""
    public = getattr(ctl, "public_snapshot_view", ctl.public_snapshot)
    secure = getattr(ctl, "secure_snapshot_view", ctl.secure_snapshot)
    return lambda: (public(), secure())


def one_run(setups: list[tuple[str, TableSetup, list[ControllerInput],
                               list[tuple[HandStart, list[HandInput]]]]],
            initial: TableState) -> dict[str, dict[str, float]]:
    """One timing of every variant: figures in microseconds per input."""
    out: dict[str, dict[str, float]] = {}
    clock = time.perf_counter
    for name, setup, inputs, engine in setups:
        row: dict[str, float] = {}
        engine_inputs = sum(len(fed) for _, fed in engine)
        t0 = clock()
        for start, fed in engine:
            hand = Hand(start)
            for hinp in fed:
                hand.apply(hinp)
        row["engine"] = (clock() - t0) / engine_inputs * 1e6
        # as the daemon applies an input: handle() (timed alone: the critical path from a
        # read to its event), then, after the events are out, the flags and the snapshots
        ctl = HandController(setup, initial)
        take = snapshot_reader(ctl)
        take()  # the daemon publishes the snapshot it starts with
        kinds = [kind_of(i) for i in inputs]
        spent: list[float] = []
        after: list[float] = []
        outcomes = []
        for inp in inputs:
            t0 = clock()
            outcome = ctl.handle(inp)
            t1 = clock()
            if outcome.public_changed or outcome.secure_changed:
                take()
            after.append(clock() - t1)
            spent.append(t1 - t0)
            outcomes.append(outcome)
        refused = [o.reply for o in outcomes if o.reply is not None and not o.reply.ok]
        assert not refused, refused[:3]
        row["controller"] = sum(spent) / len(inputs) * 1e6
        for kind in ("read", "action"):
            mine = [t for t, k in zip(spent, kinds, strict=True) if k == kind]
            row[kind] = sum(mine) / len(mine) * 1e6
            row[f"{kind}_p50"] = statistics.median(mine) * 1e6
        row["with_snapshots"] = (sum(spent) + sum(after)) / len(inputs) * 1e6
        # handle() with every outcome kept and no flag read until the end: with lazy
        # snapshots each handle() then settles the last outcome first (builds its snapshots)
        ctl = HandController(setup, initial)
        kept = []
        t0 = clock()
        for inp in inputs:
            kept.append(ctl.handle(inp))
        row["unread"] = (clock() - t0) / len(inputs) * 1e6
        assert sum(o.public_changed for o in kept) == sum(o.public_changed for o in outcomes)
        # replay: decoded from the journal's JSON, outcomes dropped (crash recovery)
        journal = [json.dumps(input_to_json(i)) for i in inputs]
        ctl = HandController(setup, initial)
        t0 = clock()
        for text in journal:
            ctl.handle(input_from_json(json.loads(text)))
        row["replay"] = (clock() - t0) / len(inputs) * 1e6
        out[name] = row
    return out


def prepare(hands: int) -> tuple[list[tuple[str, TableSetup, list[ControllerInput],
                                            list[tuple[HandStart, list[HandInput]]]]],
                                 TableState]:
    """The recorded hands of every variant, and the table they start from."""
    decks = {p.stem: Deck.load(p) for p in DECKS.glob("*.csv")}
    initial = TableState.initial([SeatState(n, f"P{n}", 100_000) for n in (1, 3, 5, 8)], 1)
    setups = []
    for game, structure in VARIANTS:
        setup = TableSetup(table="t01", game=game, structure=structure,
                           stakes=stakes(game, structure), deck_id="demo-red", decks=decks,
                           roles={"dealer": "floor"}, max_command_age=1e9)
        inputs, engine = record(setup, hands, random.Random(f"bench-{game}"))
        setups.append((f"{game.value}/{structure.value}", setup, inputs, engine))
    return setups, initial


def medians(runs: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Per variant and figure, the median over runs."""
    return {name: {fig: round(statistics.median(r[name][fig] for r in runs), 1)
                   for fig in runs[0][name]} for name in runs[0]}


def child_run(tree: Path, hands: int) -> dict[str, dict[str, float]]:
    """One run in a child process importing ``tablectl`` from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, __file__, "--one-run", "--hands", str(hands)],
                          env=env, check=True, capture_output=True, text=True)
    lines = done.stdout.splitlines()
    imported = Path(lines[0].removeprefix("tablectl: ")).resolve()
    if not imported.is_relative_to(tree.resolve()):
        raise SystemExit(f"the child imported {imported}, not the tree {tree}")
    figures: dict[str, dict[str, float]] = json.loads(lines[-1])
    return figures


def print_rows(label: str, figures: dict[str, dict[str, float]], runs: int) -> None:
    for name, row in figures.items():
        print(f"{label}{name:24s} engine {row['engine']:6.1f}  handle {row['controller']:6.1f} "
              f"(read {row['read']:6.1f} p50 {row['read_p50']:6.1f}, action "
              f"{row['action']:6.1f} p50 {row['action_p50']:6.1f})  with snapshots "
              f"{row['with_snapshots']:6.1f}  unread {row['unread']:6.1f}  replay "
              f"{row['replay']:6.1f} us/input  "
              f"(x{row['controller_over_engine']} engine, {row['inputs_per_hand']} "
              f"inputs/hand, median of {runs} runs)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", metavar="REV",
                        help="also time tablectl as of git revision REV, alternating runs")
    parser.add_argument("--one-run", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_run:  # a child of --baseline: one run of the tablectl on PYTHONPATH
        import tablectl
        print(f"tablectl: {Path(tablectl.__file__).parent.parent}")
        setups, initial = prepare(args.hands)
        print(json.dumps(one_run(setups, initial)))
        return
    setups, initial = prepare(args.hands)
    per_hand = {name: round(len(inputs) / args.hands, 1) for name, _, inputs, _ in setups}

    def finish(figures: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        for name, row in figures.items():
            row["controller_over_engine"] = round(row["controller"] / row["engine"], 1)
            row["inputs_per_hand"] = per_hand[name]
        return figures

    if args.baseline is None:
        figures = finish(medians([one_run(setups, initial) for _ in range(args.runs)]))
        print_rows("", figures, args.runs)
        print(json.dumps(figures))
        return
    with tempfile.TemporaryDirectory(prefix="bench-controller-") as tmp:
        old = Path(tmp)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.baseline, "tablectl"],
                                 check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(old, filter="data")
        before: list[dict[str, dict[str, float]]] = []
        after: list[dict[str, dict[str, float]]] = []
        for _ in range(args.runs):
            before.append(child_run(old, args.hands))
            after.append(child_run(ROOT, args.hands))
    result: dict[str, object] = {"baseline": args.baseline}
    was, now = finish(medians(before)), finish(medians(after))
    print_rows(f"{args.baseline[:10]:10s} ", was, args.runs)
    print_rows(f"{'now':10s} ", now, args.runs)
    ratios = {name: {fig: round(now[name][fig] / was[name][fig], 2)
                     for fig in RATIOS} for name in now}
    for name, row in ratios.items():
        print(f"now/{args.baseline[:10]} {name:24s} " + "  ".join(
            f"{fig} x{value}" for fig, value in row.items()), flush=True)
    result.update(before=was, now=now, now_over_baseline=ratios)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
