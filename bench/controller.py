"""Hand controller cost per input against the bare rules engine, and replay from the journal.

Method: for each variant, a seeded random dealer (built on the engine) records the inputs of
``--hands`` whole hands dealt from the shoe (card reads and dealer commands, four seats). Then,
per run, three timings of the same hands:

* ``engine``: the bare :class:`tablectl.game.Hand` fed the same cards and decisions (baseline);
* ``controller``: :meth:`HandController.handle` for every input (reads resolved through the
  deck, commands authorised and checked, events folded, both snapshots rebuilt and compared);
* ``replay``: every input decoded from its journal JSON, then handled (crash recovery).

Figures are medians over ``--runs`` runs, in microseconds per input; the last line printed is
one JSON object with every figure.

Usage: ``.venv/bin/python bench/controller.py [--hands 40] [--runs 5]``
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
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

DECKS = Path(__file__).resolve().parents[1] / "config" / "decks"
FL, NL, PL = (BettingStructure.FIXED_LIMIT, BettingStructure.NO_LIMIT,
              BettingStructure.POT_LIMIT)
VARIANTS = [(GameKind.HOLDEM, NL), (GameKind.OMAHA_HI_LO, FL), (GameKind.OMAHA, PL),
            (GameKind.STUD, FL), (GameKind.RAZZ, FL)]
CARD_STEPS = (DealHole, DealUp, DealDown, Burn, DealBoard)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    decks = {p.stem: Deck.load(p) for p in DECKS.glob("*.csv")}
    figures: dict[str, dict[str, float]] = {}
    for game, structure in VARIANTS:
        setup = TableSetup(table="t01", game=game, structure=structure,
                           stakes=stakes(game, structure), deck_id="demo-red", decks=decks,
                           roles={"dealer": "floor"}, max_command_age=1e9)
        initial = TableState.initial([SeatState(n, f"P{n}", 100_000) for n in (1, 3, 5, 8)],
                                     1)
        inputs, engine = record(setup, args.hands, random.Random(f"bench-{game}"))
        journal = [json.dumps(input_to_json(i)) for i in inputs]
        engine_inputs = sum(len(fed) for _, fed in engine)
        timings: dict[str, list[float]] = {"engine": [], "controller": [], "replay": []}
        for _ in range(args.runs):
            t0 = time.perf_counter()
            for start, fed in engine:
                hand = Hand(start)
                for inp in fed:
                    hand.apply(inp)
            timings["engine"].append((time.perf_counter() - t0) / engine_inputs * 1e6)
            ctl = HandController(setup, initial)
            t0 = time.perf_counter()
            outcomes = [ctl.handle(inp) for inp in inputs]
            timings["controller"].append((time.perf_counter() - t0) / len(inputs) * 1e6)
            refused = [o.reply for o in outcomes if o.reply is not None and not o.reply.ok]
            assert not refused, refused[:3]
            ctl = HandController(setup, initial)
            t0 = time.perf_counter()
            for text in journal:
                ctl.handle(input_from_json(json.loads(text)))
            timings["replay"].append((time.perf_counter() - t0) / len(inputs) * 1e6)
        row = {k: round(statistics.median(v), 1) for k, v in timings.items()}
        row["controller_over_engine"] = round(row["controller"] / row["engine"], 1)
        row["inputs_per_hand"] = round(len(inputs) / args.hands, 1)
        figures[f"{game.value}/{structure.value}"] = row
        print(f"{game.value:12s} {structure.value:12s} engine {row['engine']:7.1f} us/input  "
              f"controller {row['controller']:7.1f} us/input  replay {row['replay']:7.1f} "
              f"us/input  (x{row['controller_over_engine']}, {row['inputs_per_hand']} "
              f"inputs/hand, median of {args.runs} runs)", flush=True)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
