"""Seeded random hands through the engine, for ``tablectl demo`` (until the daemon exists).

Everything here is deterministic for a given seed: the deck order, the seats and every
decision come from one ``random.Random``. The module plays and summarises;
:mod:`tablectl.cli.demo` prints.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Final

from tablectl.domain.cards import FULL_DECK
from tablectl.domain.games import ALLOWED_STRUCTURES, BettingStructure, GameKind
from tablectl.game import (
    Act,
    ActionIn,
    ActionKind,
    ActionTaken,
    CardIn,
    Hand,
    MuckIn,
    RuleSet,
    SeatSetup,
    Showdown,
    ShowdownHand,
    ShowIn,
    Stakes,
)
from tablectl.game.rotation import HandPlayed, Rotation, RotationPosition, button_moved, horse
from tablectl.history.phh import VARIANTS


@dataclass(frozen=True, slots=True)
class DemoHand:
    """One played hand and its summary in words."""

    number: int
    hand: Hand
    actions: tuple[str, ...]
    board: str
    winners: tuple[str, ...]
    button: int | None = None
    """The button's seat (None in stud)."""


def parse_variant(text: str) -> tuple[GameKind, BettingStructure]:
    """``FO/8`` (a PHH code), ``omaha-hi-lo`` or ``holdem:no-limit``.

    Raises:
        ValueError: not a variant tablectl deals.
    """
    if text in VARIANTS:
        return VARIANTS[text]
    game_text, _, structure_text = text.partition(":")
    try:
        game = GameKind(game_text)
        structure = (BettingStructure(structure_text) if structure_text
                     else BettingStructure.FIXED_LIMIT)
    except ValueError:
        raise ValueError(f"unknown variant {text!r} (use a PHH code such as FO/8, or "
                         f"game[:structure], e.g. holdem:no-limit)") from None
    if structure not in ALLOWED_STRUCTURES[game]:
        raise ValueError(f"{game.value} is not dealt {structure.value}")
    return game, structure


UNITS_PER_CURRENCY: Final = 100
"""The demo table counts in cents, as the live demo's table does (its config's default)."""


def demo_stakes(game: GameKind, structure: BettingStructure, rules: RuleSet) -> Stakes:
    """Small stakes for the demo table, in cents: $1/$2 blinds, $2/$4 limits, stud a $1 ante,
    $2 bring-in and $4/$8 bets."""
    unit = UNITS_PER_CURRENCY
    if game.is_stud:
        return Stakes(ante=unit, bring_in=2 * unit, small_bet=4 * unit, big_bet=8 * unit)
    if structure is BettingStructure.FIXED_LIMIT:
        return Stakes.from_limits(2 * unit, 4 * unit, rules)
    return Stakes(small_blind=unit, big_blind=2 * unit)


def _choose(rng: random.Random, exp: Act) -> ActionIn:
    legal = exp.legal
    roll = rng.random()
    if ActionKind.BRING_IN in legal.kinds:
        return ActionIn(exp.seat, ActionKind.BRING_IN)
    if legal.bet_kind is not None and roll < 0.2:
        amount = legal.min_to if rng.random() < 0.7 else legal.max_to
        return ActionIn(exp.seat, legal.bet_kind, amount)
    if ActionKind.FOLD in legal.kinds and roll < 0.35:
        return ActionIn(exp.seat, ActionKind.FOLD)
    kind = ActionKind.CALL if ActionKind.CALL in legal.kinds else ActionKind.CHECK
    return ActionIn(exp.seat, kind)


def play_demo(game: GameKind, structure: BettingStructure, rules: RuleSet, *, hands: int,
              seed: int, seats: int = 6, stack: int = 200 * UNITS_PER_CURRENCY,
              money: Callable[[int], str] = str) -> Iterator[DemoHand]:
    """Play ``hands`` random hands; the button moves one seat each hand, stacks carry over
    (a busted seat is rebought to ``stack``). ``money`` writes an amount (in cents) for the
    summaries."""
    rng = random.Random(seed)
    stacks = dict.fromkeys(range(1, seats + 1), stack)
    stakes = demo_stakes(game, structure, rules)
    for number in range(1, hands + 1):
        button = (number - 1) % seats + 1
        setup = [SeatSetup(s, stacks[s] or stack, f"Player {s}") for s in sorted(stacks)]
        hand = Hand.start(game=game, structure=structure, rules=rules, stakes=stakes,
                          seats=setup, button=button, hand_id=f"demo-{seed}-{number}")
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        while not hand.is_done:
            exp = hand.expected()
            if isinstance(exp, Act):
                hand.apply(_choose(rng, exp))
            elif isinstance(exp, Showdown):
                hand.apply(ShowIn(exp.seat) if rng.random() < 0.9 else MuckIn(exp.seat))
            else:
                hand.apply(CardIn(deck.pop()))
        stacks.update(hand.final_stacks)
        yield summarise(number, hand, money)


def demo_rotation(rules: RuleSet, *, stud_hands: int = 2) -> Rotation:
    """H.O.R.S.E. at the demo's stakes ($2/$4 limits; stud $1 ante, $2 bring-in, $4/$8):
    ``stud_hands`` hands each stud game, so a short demo sees every game."""
    unit = UNITS_PER_CURRENCY
    flop = Stakes.from_limits(2 * unit, 4 * unit, rules)
    stud = demo_stakes(GameKind.STUD, BettingStructure.FIXED_LIMIT, rules)
    return Rotation(tuple(replace(g, stakes=stud if g.game.is_stud else flop)
                          for g in horse(flop, stud_hands=stud_hands).games), name="horse")


def play_rotation(rotation: Rotation, rules: RuleSet, *, hands: int, seed: int,
                  seats: int = 6, stack: int = 200 * UNITS_PER_CURRENCY,
                  money: Callable[[int], str] = str) -> Iterator[DemoHand]:
    """Play ``hands`` random hands of ``rotation`` (not dealer's choice): each hand its game,
    the button moving one seat a hand in button games and frozen through stud games (as the
    controller deals a rotation); stacks carry over, a busted seat rebuys to ``stack``."""
    rng = random.Random(seed)
    stacks = dict.fromkeys(range(1, seats + 1), stack)
    pos, button = RotationPosition.first(rotation), 1
    for number in range(1, hands + 1):
        game = pos.game(rotation)
        setup = [SeatSetup(s, stacks[s] or stack, f"Player {s}") for s in sorted(stacks)]
        hand = Hand.start(game=game.game, structure=game.structure, rules=rules,
                          stakes=game.stakes, seats=setup,
                          button=0 if game.game.is_stud else button,
                          hand_id=f"demo-{seed}-{number}")
        _deal(hand, rng)
        stacks.update(hand.final_stacks)
        old = button
        if not game.game.is_stud:
            button = button % seats + 1
        moved = 0 if game.game.is_stud else button_moved(old, button, seats)
        pos = pos.after(rotation, HandPlayed(moved), max_seats=seats)
        yield replace(summarise(number, hand, money),
                      button=None if game.game.is_stud else old)


def _deal(hand: Hand, rng: random.Random) -> None:
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    while not hand.is_done:
        exp = hand.expected()
        if isinstance(exp, Act):
            hand.apply(_choose(rng, exp))
        elif isinstance(exp, Showdown):
            hand.apply(ShowIn(exp.seat) if rng.random() < 0.9 else MuckIn(exp.seat))
        else:
            hand.apply(CardIn(deck.pop()))


def summarise(number: int, hand: Hand, money: Callable[[int], str] = str) -> DemoHand:
    """The actions, the board and the winners of a finished hand, in words (amounts as
    ``money`` writes them)."""
    actions = []
    for event in hand.events:
        if isinstance(event, ActionTaken):
            amount = f" {money(event.to)}" if event.kind in (
                ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE) else ""
            actions.append(f"seat {event.seat} {event.kind.value}{amount}")
    shown = {e.seat: e for e in hand.events if isinstance(e, ShowdownHand)}
    winners = []
    for result in hand.results:
        for award in result.awards:
            label = "main pot" if result.pot_index == 0 else f"side pot {result.pot_index}"
            half = "" if award.half.value == "whole" else f" ({award.half.value})"
            hand_text = shown[award.seat].high if award.seat in shown else None
            description = award.description or hand_text or ""
            winners.append(f"seat {award.seat} wins {money(award.amount)} from the {label}{half}: "
                           f"{description}")
    board = " ".join("??" if c is None else str(c) for c in hand.board)
    return DemoHand(number, hand, tuple(actions), board, tuple(winners))
