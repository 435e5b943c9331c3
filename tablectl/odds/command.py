"""``tablectl equity``: the equity of given hands from the command line.

::

    tablectl equity --variant holdem AsAh KsKh
    tablectl equity --variant omaha-hi-lo --board "2c 7d 9h" --dead "Kc" As2sKdQd 3c4cJhJd --json

Each HAND is a player's known cards written together or with spaces (``AsAh``, ``"As Ah"``):
hold'em exactly 2, Omaha exactly 4, stud games 3 to 7 (down and up cards so far, every player
the same number). ``--json`` prints one JSON object: ``variant``, ``board``, ``dead``,
``exact``, ``runouts``, ``precision``, ``no_low`` and ``hands``, one object per HAND with
``hand``, ``win``, ``tie``, ``equity`` (fractions), ``high``/``low``/``scoop`` for hi-lo games,
``error`` (the standard error) for Monte Carlo and ``outs`` on the turn. Without it, a table.

Bad cards, a card given twice, a wrong number of cards: one line on stderr, exit 2. This
module builds the text; :mod:`tablectl.cli` prints it.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

from tablectl.domain.cards import Card, CardParseError, parse_cards
from tablectl.domain.games import GameKind
from tablectl.game.equity import EquityError, EquityResult, equity, hand_size
from tablectl.odds.arguments import add_arguments
from tablectl.odds.position import result_json

__all__ = ["Output", "add_arguments", "run"]


@dataclass(frozen=True, slots=True)
class Output:
    """What the command prints (stdout, stderr) and its exit code."""

    code: int
    out: str = ""
    err: str = ""


def _cards(text: str, what: str) -> list[Card]:
    try:
        return list(parse_cards(text))
    except CardParseError as exc:
        raise EquityError(f"{what}: {exc}") from None


def run(args: argparse.Namespace) -> Output:
    """Value the position in ``args``."""
    variant = GameKind(args.variant)
    try:
        hands = [_cards(h, f"hand {i}") for i, h in enumerate(args.hands, 1)]
        board = _cards(args.board, "--board")
        dead = _cards(args.dead, "--dead")
        _check_sizes(variant, hands, board)
        if not 0 < args.precision <= 50:
            raise EquityError(f"--precision must be above 0 and at most 50 points, got "
                              f"{args.precision}")
        result = equity(variant, hands, board, dead, seed=args.seed,
                        precision=args.precision / 100)
    except EquityError as exc:
        return Output(2, err=f"tablectl equity: {exc}")
    figures = result_json(result)
    rows = figures.pop("players")
    assert isinstance(rows, list)
    rows = [{"hand": "".join(map(str, hand)), **row}
            for hand, row in zip(hands, rows, strict=True)]
    doc = {"variant": variant.value, "board": [str(c) for c in board],
           "dead": [str(c) for c in dead], **figures, "hands": rows}
    if args.json:
        return Output(0, out=json.dumps(doc))
    return Output(0, out=_table(result, doc))


def _check_sizes(variant: GameKind, hands: list[list[Card]], board: list[Card]) -> None:
    size = hand_size(variant)
    for i, hand in enumerate(hands, 1):
        if variant.is_stud:
            if not 3 <= len(hand) <= 7:
                raise EquityError(f"hand {i} has {len(hand)} cards; a {variant} hand has "
                                  "3 to 7")
        elif len(hand) != size:
            raise EquityError(f"hand {i} has {len(hand)} cards; {variant} deals {size}")
    if variant.is_stud and len({len(h) for h in hands}) > 1:
        raise EquityError("every stud hand must have the same number of cards")
    if not variant.is_stud and len(board) not in (0, 3, 4, 5):
        raise EquityError(f"a board has 0, 3, 4 or 5 cards, got {len(board)}")


def _table(result: EquityResult, doc: dict[str, object]) -> str:
    hi_lo = result.variant.is_hi_lo
    head = f"{'hand':<16} {'win':>7} {'tie':>7} {'equity':>7}"
    if hi_lo:
        head += f" {'high':>7} {'low':>7} {'scoop':>7}"
    lines = [head]
    rows = doc["hands"]
    assert isinstance(rows, list)
    for row, p in zip(rows, result.players, strict=True):
        line = f"{row['hand']:<16} {p.win:>7.2%} {p.tie:>7.2%} {p.equity:>7.2%}"
        if hi_lo:
            line += f" {p.high or 0:>7.2%} {p.low or 0:>7.2%} {p.scoop or 0:>7.2%}"
        if p.error is not None:
            line += f"  +-{1.96 * p.error:.2%}"
        if p.outs is not None:
            line += f"  outs {len(p.outs)}: {' '.join(map(str, p.outs))}"
        lines.append(line)
    how = (f"exact, {result.runouts:,} run-outs" if result.exact else
           f"Monte Carlo, {result.runouts:,} samples (95% half-width shown)")
    if result.no_low is not None:
        how += f"; no low {result.no_low:.2%}"
    lines.append(how)
    return "\n".join(lines)
