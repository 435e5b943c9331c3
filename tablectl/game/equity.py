"""Equity of every player in a hand of any variant we deal: exact where it can be, else
seeded Monte Carlo with its standard error. Sans-IO, no clock, deterministic for a seed.

Input: the variant, the known cards of each live player (hold'em and Omaha: hole cards; stud:
down and up cards dealt so far), the board and the dead cards (burns, folded and mucked cards
that were read). A player holding fewer cards than the variant deals (a stud player on fourth
street, a hole card not read yet) gets the missing ones at random from the unseen cards, as
the board does.

Output per player (:class:`PlayerEquity`), over every equally likely run-out:

* ``win``: the chance to take the whole pot alone (in a hi-lo game: to scoop, i.e. win the
  high half alone and the low half alone or with no low qualifying);
* ``tie``: the chance to get part of the pot but not all of it;
* ``equity``: the expected share of the pot (sums to 1 over the players);
* hi-lo only: ``high``, the expected share of the high half (sums to 1); ``low``, the expected
  share of the low half counted only where a low qualifies (the sum over the players plus
  :attr:`EquityResult.no_low` is 1); ``scoop`` (the same as ``win``);
* ``outs`` (board games on the turn, every hole card known): the river cards that give the
  player the whole pot alone;
* ``error``: for Monte Carlo, the standard error of ``equity`` (``None`` when exact).

**Exact or Monte Carlo.** Every run-out is enumerated when their number times the hand
evaluations each costs stays within ``exact_budget`` (default 4 M: hold'em nine-handed before
the flop is 2.5 M, Omaha six-handed on the flop 0.1 M, stud heads-up on fifth street 0.7 M
pairs of finishes) and, in board games, there are at most 300 000 boards to come (hold'em
heads-up before the flop has 1.7 M: it is sampled). Otherwise run-outs are sampled in batches
from a generator seeded with ``seed`` until the 95% half-width of every player's equity (1.96
standard errors) is at most ``precision`` (default half a percentage point), or
``max_samples`` are drawn.

Stud hands are independent between players (no shared board): each player's possible
finishes are valued once and the run-outs are the disjoint combinations of them. A stud deck
too short for seventh street deals one community card: given as the ``board`` of a stud game,
it counts in every hand.

>>> from tablectl.domain.cards import parse_cards
>>> from tablectl.domain.games import GameKind
>>> result = equity(GameKind.HOLDEM, [parse_cards("AsAh"), parse_cards("KsKh")],
...                 board=parse_cards("2c 7d 9h Qc"))
>>> result.exact, [round(p.equity, 4) for p in result.players]
(True, [0.9545, 0.0455])
>>> [str(c) for c in result.players[1].outs]
['Kc', 'Kd']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, combinations
from typing import Final

import numpy as np
import numpy.typing as npt

from tablectl.domain.cards import FULL_DECK, Card
from tablectl.domain.errors import TablectlError
from tablectl.domain.games import GameKind
from tablectl.game import fasteval as fe

__all__ = [
    "DEFAULT_PRECISION",
    "EXACT_BUDGET",
    "EquityError",
    "EquityResult",
    "PlayerEquity",
    "equity",
    "hand_size",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

EXACT_BUDGET: Final = 4_000_000
"""Enumerate exactly when run-outs x evaluations per run-out stay within this."""
MAX_BOARDS: Final = 300_000
"""... and, in board games, when there are at most this many boards to come."""
DEFAULT_PRECISION: Final = 0.005
"""Monte Carlo stops when 1.96 standard errors of every equity are at most this."""
MAX_SAMPLES: Final = 400_000
_BATCH: Final = 4096
_Z95: Final = 1.96


class EquityError(TablectlError, ValueError):
    """The position cannot be valued (bad cards, duplicates, wrong counts); nothing done."""


@dataclass(frozen=True, slots=True)
class PlayerEquity:
    """One player's figures (see the module docstring); shares are fractions 0..1."""

    win: float
    tie: float
    equity: float
    high: float | None = None
    low: float | None = None
    scoop: float | None = None
    error: float | None = None
    outs: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class EquityResult:
    """The figures of every player, in the order the hands were given.

    Attributes:
        variant: the game.
        players: one :class:`PlayerEquity` per hand.
        exact: True when every run-out was enumerated.
        runouts: the number of run-outs enumerated, or of samples drawn.
        no_low: hi-lo games: the chance that no low qualifies (else None).
        precision: Monte Carlo: the 95% half-width aimed at (else None).
    """

    variant: GameKind
    players: tuple[PlayerEquity, ...]
    exact: bool
    runouts: int
    no_low: float | None = None
    precision: float | None = None


def hand_size(variant: GameKind) -> int:
    """The number of cards a player is dealt: 2 (hold'em), 4 (Omaha), 7 (stud games)."""
    if variant.is_stud:
        return 7
    return 4 if variant in (GameKind.OMAHA, GameKind.OMAHA_HI_LO) else 2


def _check(variant: GameKind, hands: Sequence[Sequence[Card]], board: Sequence[Card],
           dead: Sequence[Card]) -> None:
    if not isinstance(variant, GameKind):
        raise EquityError(f"unknown variant: {variant!r}")
    if len(hands) < 2:
        raise EquityError(f"equity needs at least two hands, got {len(hands)}")
    if variant.is_stud and board and (len(board) > 1 or any(len(h) != 6 for h in hands)):
        raise EquityError(f"{variant} has no board: a stud hand lists its own up cards (a "
                          "deck too short for seventh street deals one community card, to "
                          "hands of 6)")
    size = hand_size(variant)
    for i, hand in enumerate(hands, 1):
        if len(hand) > size:
            raise EquityError(f"hand {i} has {len(hand)} cards; {variant} deals {size}")
    if len(board) > 5:
        raise EquityError(f"a board has at most 5 cards, got {len(board)}")
    seen: set[Card] = set()
    for card in chain(chain.from_iterable(hands), board, dead):
        if not isinstance(card, Card):
            raise EquityError(f"not a card: {card!r}")
        if card in seen:
            raise EquityError(f"card {card} is given twice")
        seen.add(card)
    missing = (sum(size - len(h) - len(board) for h in hands) if variant.is_stud
               else sum(size - len(h) for h in hands) + 5 - len(board))
    if missing > 52 - len(seen):
        raise EquityError(f"{missing} cards are still to come but only {52 - len(seen)} "
                          "are unseen")


def equity(variant: GameKind, hands: Sequence[Sequence[Card]], board: Sequence[Card] = (),
           dead: Sequence[Card] = (), *, seed: int = 0,
           precision: float = DEFAULT_PRECISION, exact_budget: int = EXACT_BUDGET,
           max_samples: int = MAX_SAMPLES) -> EquityResult:
    """Each player's equity; see the module docstring.

    Raises:
        EquityError: fewer than two hands, a hand with more cards than the variant deals, a
            board of more than 5 cards (stud: other than one community card to hands of 6), a
            card given twice, or more cards to come than are unseen.
    """
    _check(variant, hands, board, dead)
    if not precision > 0:
        raise EquityError(f"precision must be positive, got {precision}")
    known = {c.index for c in chain(chain.from_iterable(hands), board, dead)}
    if variant.is_stud:     # a community card (seventh street) is in every stud hand
        hands, board = [[*h, *board] for h in hands], ()
    position = _Position(
        variant=variant,
        holes=[np.array([c.index for c in h], np.int64) for h in hands],
        board=np.array([c.index for c in board], np.int64),
        unseen=np.array([i for i in range(52) if i not in known], np.int64),
    )
    exact = _exact(position, exact_budget)
    if exact is not None:
        return exact
    return _monte_carlo(position, np.random.default_rng(seed), precision, max_samples)


# ---------------------------------------------------------------------------------------------
# Positions and hand values over many run-outs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Position:
    variant: GameKind
    holes: list[IntArray]
    board: IntArray
    unseen: IntArray

    @property
    def omaha(self) -> bool:
        return self.variant in (GameKind.OMAHA, GameKind.OMAHA_HI_LO)

    def to_come(self) -> tuple[int, list[int]]:
        """Cards still to come: (board, per player)."""
        size = hand_size(self.variant)
        board = 0 if self.variant.is_stud else 5 - len(self.board)
        return board, [size - len(h) for h in self.holes]


@dataclass(frozen=True, slots=True)
class _Scores:
    """Per player x run-out: ``high`` bigger is better (razz: negated), ``low`` smaller is
    better with ``NO_LOW`` for none (hi-lo games only)."""

    high: npt.NDArray[np.int32]
    low: IntArray | None


def _board_scores(pos: _Position, boards: IntArray, holes: Sequence[IntArray]) -> _Scores:
    """Scores of hold'em / Omaha hands: ``boards`` N x 5, each hole 1 x h or N x h."""
    hi_lo = pos.variant.is_hi_lo
    highs: list[npt.NDArray[np.int16]] = []
    lows: list[IntArray] = []
    if pos.omaha:
        triples = fe.omaha_parts(boards, board=True)
        for hole in holes:
            pairs = fe.omaha_parts(hole, board=False)
            highs.append(fe.omaha_high(pairs, triples))
            if hi_lo:
                lows.append(fe.omaha_low8(pairs, triples))
    else:
        parts = fe.board_parts(boards)
        for hole in holes:
            highs.append(fe.holdem_high(parts, hole))
            if hi_lo:
                lows.append(fe.holdem_low8(parts, hole))
    n = len(boards)
    high = np.stack([np.broadcast_to(h, (n,)) for h in highs]).astype(np.int32)
    return _Scores(high, np.stack([np.broadcast_to(x, (n,)) for x in lows]) if hi_lo else None)


def _stud_values(variant: GameKind, cards: IntArray) -> tuple[npt.NDArray[np.int32],
                                                              IntArray | None]:
    """(high score, low value or None) of rows of 7 stud cards."""
    if variant is GameKind.RAZZ:
        return -fe.razz_values(cards).astype(np.int32), None
    high = fe.high_values(cards).astype(np.int32)
    if variant.is_hi_lo:
        return high, fe.low8_values(cards)
    return high, None


# ---------------------------------------------------------------------------------------------
# Pot shares
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Shares:
    """Per player x run-out: share of the pot, of the high half, of the low half."""

    pot: FloatArray
    high: FloatArray
    low: FloatArray | None
    has_low: npt.NDArray[np.bool_] | None


def _shares(scores: _Scores) -> _Shares:
    high = scores.high
    winners = high == high.max(axis=0)
    high_share = winners / winners.sum(axis=0)
    if scores.low is None:
        return _Shares(high_share, high_share, None, None)
    low = scores.low
    best = low.min(axis=0)
    has_low = best < fe.NO_LOW
    low_winners = (low == best) & has_low
    low_share = low_winners / np.maximum(low_winners.sum(axis=0), 1)
    pot = np.where(has_low, 0.5 * high_share + 0.5 * low_share, high_share)
    return _Shares(pot, high_share, low_share, has_low)


def _result(pos: _Position, shares: _Shares, *, exact: bool, n: int,
            error: FloatArray | None = None, precision: float | None = None,
            outs: list[tuple[Card, ...]] | None = None) -> EquityResult:
    """Means over the run-outs of ``shares`` (exact: all of them)."""
    pot = shares.pot
    win = (pot == 1.0).mean(axis=1)
    tie = ((pot > 0.0) & (pot < 1.0)).mean(axis=1)
    players = []
    for i in range(pot.shape[0]):
        hi_lo = shares.low is not None
        players.append(PlayerEquity(
            win=float(win[i]), tie=float(tie[i]), equity=float(pot[i].mean()),
            high=float(shares.high[i].mean()) if hi_lo else None,
            low=float(shares.low[i].mean()) if shares.low is not None else None,
            scoop=float(win[i]) if hi_lo else None,
            error=float(error[i]) if error is not None else None,
            outs=outs[i] if outs is not None else None))
    no_low = float(1.0 - shares.has_low.mean()) if shares.has_low is not None else None
    return EquityResult(pos.variant, tuple(players), exact, n, no_low, precision)


# ---------------------------------------------------------------------------------------------
# Exact enumeration
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _combos(n: int, k: int) -> npt.NDArray[np.int8]:
    """Every k-subset of range(n) as rows of int8 (cached: read-only)."""
    count = math.comb(n, k)
    flat = np.fromiter(chain.from_iterable(combinations(range(n), k)), np.int8,
                       count=count * k)
    rows = flat.reshape(count, k)
    rows.setflags(write=False)
    return rows


def _exact(pos: _Position, budget: int) -> EquityResult | None:
    board_to_come, per_player = pos.to_come()
    players = len(pos.holes)
    if pos.variant.is_stud:
        return _exact_stud(pos, per_player, budget)
    if any(per_player):
        return None
    runouts = math.comb(len(pos.unseen), board_to_come)
    if runouts > MAX_BOARDS or runouts * players * (60 if pos.omaha else 1) > budget:
        return None
    fills = pos.unseen[_combos(len(pos.unseen), board_to_come)]
    boards = np.concatenate([np.broadcast_to(pos.board, (runouts, len(pos.board))), fills],
                            axis=1)
    shares = _shares(_board_scores(pos, boards, [h[None, :] for h in pos.holes]))
    outs = None
    if board_to_come == 1:
        river = [FULL_DECK[i] for i in fills[:, 0]]
        outs = [tuple(c for c, alone in zip(river, row == 1.0, strict=True) if alone)
                for row in shares.pot]
    return _result(pos, shares, exact=True, n=runouts, outs=outs)


def _exact_stud(pos: _Position, per_player: list[int], budget: int) -> EquityResult | None:
    """Stud: value each player's finishes, then combine the disjoint ones."""
    unseen = pos.unseen
    sizes = [math.comb(len(unseen), k) for k in per_player]
    if math.prod(sizes) > budget or sum(per_player) > len(unseen):
        return None
    bit = np.int64(1) << unseen
    joint_mask = np.zeros(1, np.int64)
    joint_index: list[IntArray] = []
    values: list[tuple[npt.NDArray[np.int32], IntArray | None]] = []
    for hole, k in zip(pos.holes, per_player, strict=True):
        subsets = _combos(len(unseen), k)
        cards = np.concatenate([np.broadcast_to(hole, (len(subsets), len(hole))),
                                unseen[subsets]], axis=1)
        values.append(_stud_values(pos.variant, cards))
        masks = bit[subsets].sum(axis=1) if k else np.zeros(1, np.int64)
        a, b = np.nonzero((joint_mask[:, None] & masks[None, :]) == 0)
        joint_mask = joint_mask[a] | masks[b]
        joint_index = [idx[a] for idx in joint_index] + [b]
    high = np.stack([v[0][idx] for v, idx in zip(values, joint_index, strict=True)])
    low = None
    if pos.variant.is_hi_lo:
        low = np.stack([v[1][idx] for v, idx in zip(values, joint_index, strict=True)
                        if v[1] is not None])
    shares = _shares(_Scores(high, low))
    return _result(pos, shares, exact=True, n=len(joint_mask))


# ---------------------------------------------------------------------------------------------
# Monte Carlo
# ---------------------------------------------------------------------------------------------


def _sample_scores(pos: _Position, rng: np.random.Generator, n: int) -> _Scores:
    board_to_come, per_player = pos.to_come()
    k = board_to_come + sum(per_player)
    deals = rng.permuted(np.tile(pos.unseen, (n, 1)), axis=1)[:, :k]
    holes: list[IntArray] = []
    at = board_to_come
    for hole, m in zip(pos.holes, per_player, strict=True):
        holes.append(np.concatenate([np.broadcast_to(hole, (n, len(hole))),
                                     deals[:, at:at + m]], axis=1))
        at += m
    if not pos.variant.is_stud:
        boards = np.concatenate([np.broadcast_to(pos.board, (n, len(pos.board))),
                                 deals[:, :board_to_come]], axis=1)
        return _board_scores(pos, boards, holes)
    values = [_stud_values(pos.variant, h) for h in holes]
    high = np.stack([v[0] for v in values])
    lows = [v[1] for v in values if v[1] is not None]
    return _Scores(high, np.stack(lows) if lows else None)


def _monte_carlo(pos: _Position, rng: np.random.Generator, precision: float,
                 max_samples: int) -> EquityResult:
    chunks: list[_Shares] = []
    total = 0
    players = len(pos.holes)
    sums = np.zeros(players)
    squares = np.zeros(players)
    error = np.full(players, np.inf)
    while total < max_samples:
        n = min(_BATCH if total else 2 * _BATCH, max_samples - total)
        shares = _shares(_sample_scores(pos, rng, n))
        chunks.append(shares)
        total += n
        sums += shares.pot.sum(axis=1)
        squares += np.square(shares.pot).sum(axis=1)
        mean = sums / total
        variance = np.maximum(squares / total - np.square(mean), 0.0)
        error = np.sqrt(variance / max(total - 1, 1))
        if _Z95 * float(error.max()) <= precision:
            break
    joined = _Shares(
        np.concatenate([c.pot for c in chunks], axis=1),
        np.concatenate([c.high for c in chunks], axis=1),
        np.concatenate([c.low for c in chunks if c.low is not None], axis=1)
        if pos.variant.is_hi_lo else None,
        np.concatenate([c.has_low for c in chunks if c.has_low is not None])
        if pos.variant.is_hi_lo else None,
    )
    return _result(pos, joined, exact=False, n=total, error=error, precision=precision)
