"""Live odds, sans-IO: what to value in a table's secure snapshot, and the published figures.

:func:`request_from_snapshot` reads the secure snapshot (``secure/v1/tables/{t}/state``'s
``data``): the live players are the seats ``active`` or ``all_in`` holding cards; the cards
of folded seats and the burns are dead cards. It returns None when there is nothing to value:
no hand, fewer than two live players, a card dealt but not read, or hole cards still being
dealt (a live seat without its hold'em or Omaha hand, stud before third street is complete or
with a street dealt to some players only). :func:`compute` values a request
(:func:`tablectl.game.equity.equity`) and returns the ``data`` body published on
``secure/v1/tables/{t}/odds`` (docs/mqtt.md). In a hand run more than once the board valued
is the run's being dealt (the first not complete, else the last), and the cards of the other
runs' boards that it does not share are dead; ``run`` says which board it is. A double-board
hand is valued on both boards (each wins half the pot, so a player's share of the pot is the
mean of their two boards' equities: linearity of expectation), each with the other board's
own cards dead; each player's figures are the two boards' means, and ``boards`` gives each
board's equity.

>>> snap = {"hand": {"id": "h1", "number": 7}, "game": {"variant": "holdem"},
...         "street": "flop", "phase": "betting", "board": ["2c", "7d", "9h"], "burns": ["Kc"],
...         "seats": [
...             {"seat": 1, "name": "Ann", "status": "active",
...              "cards": [{"card": "As", "up": False}, {"card": "Ah", "up": False}]},
...             {"seat": 2, "name": "Bob", "status": "active",
...              "cards": [{"card": "Ks", "up": False}, {"card": "Kh", "up": False}]},
...             {"seat": 3, "name": "Cy", "status": "folded",
...              "cards": [{"card": "Ac", "up": False}, {"card": "Qd", "up": False}]}]}
>>> req = request_from_snapshot(snap)
>>> req.dead, [p.seat for p in req.players]
(('Ac', 'Qd', 'Kc'), [1, 2])
>>> body = compute(req)
>>> body["exact"], [round(p["equity"], 3) for p in body["players"]]
(True, [0.954, 0.046])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from tablectl.domain.cards import Card, CardParseError
from tablectl.domain.games import GameKind
from tablectl.game.equity import EquityError, EquityResult, equity, hand_size

__all__ = ["LIVE_STATUSES", "OddsPlayer", "OddsRequest", "compute", "request_from_snapshot",
           "result_json"]

LIVE_STATUSES: Final = frozenset({"active", "all_in"})
DIGITS: Final = 4
"""Figures are published as fractions rounded to this many decimals."""


@dataclass(frozen=True, slots=True)
class OddsPlayer:
    """A live player: seat, name and the known cards (text, as in the snapshot)."""

    seat: int
    name: str
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OddsRequest:
    """One position to value (picklable: it crosses to the worker process).

    ``hand`` is the snapshot's ``{"id", "number"}``; equal requests give equal figures.
    """

    variant: str
    hand_id: str
    hand_number: int
    street: str | None
    players: tuple[OddsPlayer, ...]
    board: tuple[str, ...]
    dead: tuple[str, ...]
    precision: float = 0.005
    seed: int = 0
    run: int = 0
    """Which run's board is valued; 0: the hand has one board (or two: double board)."""
    board_2: tuple[str, ...] | None = None
    """A double-board hand: board 2 (``board`` is board 1); both are valued."""


def _cards_of(seat: Mapping[str, object]) -> list[str | None]:
    cards = seat.get("cards")
    out: list[str | None] = []
    for entry in cards if isinstance(cards, list) else []:
        card = entry.get("card") if isinstance(entry, dict) else None
        out.append(card if isinstance(card, str) else None)
    return out


def request_from_snapshot(snapshot: Mapping[str, object], *,
                          precision: float = 0.005) -> OddsRequest | None:
    """The position of a secure snapshot, or None when there is nothing to value."""
    hand = snapshot.get("hand")
    game = snapshot.get("game")
    if not isinstance(hand, dict) or not isinstance(game, dict):
        return None
    try:
        variant = GameKind(str(game.get("variant")))
    except ValueError:
        return None
    seats = snapshot.get("seats")
    players: list[OddsPlayer] = []
    dead: list[str] = []
    for seat in seats if isinstance(seats, list) else []:
        if not isinstance(seat, dict):
            continue
        cards = _cards_of(seat)
        status = seat.get("status")
        if status == "folded":
            dead += [c for c in cards if c is not None]
        elif status in LIVE_STATUSES:
            if not cards or None in cards:
                return None                      # still being dealt, or a card not read yet
            if len(cards) < (3 if variant.is_stud else hand_size(variant)):
                return None                      # hole cards (stud: third street) being dealt
            number = seat.get("seat")
            players.append(OddsPlayer(number if isinstance(number, int) else 0,
                                      str(seat.get("name") or ""), tuple(c for c in cards
                                                                          if c is not None)))
    if len(players) < 2:
        return None
    if variant.is_stud and len({len(p.cards) for p in players}) > 1:
        return None                              # a street still being dealt
    burns = snapshot.get("burns")
    dead += [c for c in burns if isinstance(c, str)] if isinstance(burns, list) else []
    double = snapshot.get("double_board")
    boards = double.get("boards") if isinstance(double, dict) else None
    board_2: tuple[str, ...] | None = None
    if isinstance(boards, list) and len(boards) == 2 and all(
            isinstance(b, list) for b in boards):
        board = [c for c in boards[0] if isinstance(c, str)]
        board_2 = tuple(c for c in boards[1] if isinstance(c, str))
        run = 0
    else:
        board, others, run = valued_board(snapshot)
        dead += others
    number = hand.get("number")
    street = snapshot.get("street")
    return OddsRequest(
        variant=variant.value, hand_id=str(hand.get("id")),
        hand_number=number if isinstance(number, int) else 0,
        street=street if isinstance(street, str) else None,
        players=tuple(players), board=tuple(board), dead=tuple(dead), precision=precision,
        run=run, board_2=board_2)


def valued_board(snapshot: Mapping[str, object]) -> tuple[list[str], list[str], int]:
    """The board to value, the other boards' own cards (dead), and which board it is (0: the
    hand has one).

    >>> valued_board({"board": ["2c", "7d", "9h", "Kc", "4s"], "runs": {"count": 2,
    ...               "boards": [["2c", "7d", "9h", "Kc", "4s"], ["2c", "7d", "9h", "Ah"]]}})
    (['2c', '7d', '9h', 'Ah'], ['Kc', '4s'], 2)
    """
    several = snapshot.get("runs")
    raw = several.get("boards") if isinstance(several, dict) else None
    if not isinstance(raw, list) or not raw:
        board = snapshot.get("board")
        return [c for c in board if isinstance(c, str)] if isinstance(board, list) else [], \
            [], 0
    boards = [[c for c in b if isinstance(c, str)] if isinstance(b, list) else [] for b in raw]
    k = next((i for i, b in enumerate(boards) if len(b) < 5), len(boards) - 1)
    mine = set(boards[k])
    others = [c for i, b in enumerate(boards) if i != k for c in b if c not in mine]
    return boards[k], list(dict.fromkeys(others)), k + 1


def compute(request: OddsRequest) -> dict[str, object]:
    """The published ``data`` body of a request (see docs/mqtt.md, "Odds").

    A position the evaluator refuses (a card the snapshot shows twice, say) gives a body with
    ``error`` and no players rather than an exception: the worker must keep serving.
    """
    body: dict[str, object] = {
        "hand": {"id": request.hand_id, "number": request.hand_number},
        "variant": request.variant, "street": request.street,
        "board": list(request.board), "dead": list(request.dead),
        **({"run": request.run} if request.run else {}),
        **({"board_2": list(request.board_2)} if request.board_2 is not None else {})}
    try:
        if request.board_2 is None:
            return {**body, **result_json(_value(request), request.players)}
        one, two = request.board, request.board_2
        a, b = (_value(replace(request, board=mine, board_2=None, dead=(
            *request.dead, *(c for c in other if c not in mine))))
            for mine, other in ((one, two), (two, one)))
    except (EquityError, CardParseError, ValueError) as exc:
        return {**body, "error": str(exc), "players": []}
    return {**body, **_double_json(a, b, request.players)}


def _value(request: OddsRequest) -> EquityResult:
    """The equity of one board's position.

    Raises:
        EquityError, CardParseError, ValueError: the evaluator refuses the position.
    """
    variant = GameKind(request.variant)
    hands = [_parse(p.cards) for p in request.players]
    board = _parse(request.board)
    dead = _parse(request.dead)
    if variant.is_stud:
        # a stud deck too short for seventh street may deal burns and discards again: a
        # card back in play is no longer dead
        known = {*board, *(c for h in hands for c in h)}
        dead = [c for c in dead if c not in known]
    return equity(variant, hands, board, dead, seed=request.seed, precision=request.precision)


def _double_json(a: EquityResult, b: EquityResult,
                 players: Sequence[OddsPlayer]) -> dict[str, object]:
    """A double-board hand's figures: each board's, as published, and their means (see the
    module docstring)."""
    def mean(x: float | None, y: float | None) -> float | None:
        rx, ry = _round(x), _round(y)
        return None if rx is None or ry is None else _round((rx + ry) / 2)

    rows: list[dict[str, object]] = []
    for who, pa, pb in zip(players, a.players, b.players, strict=True):
        row: dict[str, object] = {"seat": who.seat, "name": who.name, "cards": list(who.cards)}
        for key in ("win", "tie", "equity", "high", "low", "scoop"):
            value = mean(getattr(pa, key), getattr(pb, key))
            if value is not None:
                row[key] = value
        ea, eb = _round(pa.error), _round(pb.error)
        if ea is not None and eb is not None:
            row["error"] = _round(math.hypot(ea, eb) / 2)
        row["boards"] = [_round(pa.equity), _round(pb.equity)]
        rows.append(row)
    return {"exact": a.exact and b.exact, "runouts": a.runouts + b.runouts,
            "precision": max((h.precision for h in (a, b) if h.precision is not None),
                             default=None),
            "no_low": mean(a.no_low, b.no_low), "players": rows}


def result_json(result: EquityResult,
                players: Sequence[OddsPlayer] | None = None) -> dict[str, object]:
    """The figures of a result as JSON: ``exact``, ``runouts``, ``precision``, ``no_low`` and
    one object per player (``seat``/``name``/``cards`` first when ``players`` are given)."""
    rows: list[dict[str, object]] = []
    for i, p in enumerate(result.players):
        row: dict[str, object] = {}
        if players is not None:
            row.update(seat=players[i].seat, name=players[i].name, cards=list(players[i].cards))
        row.update(win=_round(p.win), tie=_round(p.tie), equity=_round(p.equity))
        if p.high is not None:
            row.update(high=_round(p.high), low=_round(p.low), scoop=_round(p.scoop))
        if p.error is not None:
            row["error"] = _round(p.error)
        if p.outs is not None:
            row["outs"] = [str(c) for c in p.outs]
        rows.append(row)
    return {"exact": result.exact, "runouts": result.runouts, "precision": result.precision,
            "no_low": _round(result.no_low), "players": rows}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def _parse(cards: Sequence[str]) -> list[Card]:
    return [Card.parse(c) for c in cards]
