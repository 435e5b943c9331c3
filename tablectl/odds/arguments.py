"""The arguments of ``tablectl equity``, apart from the command itself so that building the
``tablectl`` parser does not load the evaluator (NumPy): every command, ``tablectl run``
included, builds the whole parser."""

from __future__ import annotations

import argparse

from tablectl.domain.games import GameKind
from tablectl.domain.numbers import whole


def add_arguments(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The command's arguments on ``p`` (returned, for chaining)."""
    p.add_argument("--variant", required=True, choices=[g.value for g in GameKind])
    p.add_argument("--board", default="", metavar="CARDS", help="board cards, e.g. '2c 7d 9h'")
    p.add_argument("--dead", default="", metavar="CARDS",
                   help="cards out of play (burns, folded and mucked cards)")
    p.add_argument("--seed", type=whole(0, 2**63 - 1), default=0,
                   help="Monte Carlo seed (default 0)")
    p.add_argument("--precision", type=float, default=0.5, metavar="POINTS",
                   help="Monte Carlo: 95%% half-width in percentage points (default 0.5)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("hands", nargs="+", metavar="HAND", help="each player's known cards")
    return p
