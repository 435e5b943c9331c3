"""Whole hands of every variant, dealt by a seeded random dealer from the shoe or the table
antennas: the controller's hand equals the engine fed the same cards and decisions, the public
side never shows a hidden hole card, and the secure side shows every one."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.controller import HandController, Phase
from tablectl.domain.games import BettingStructure, GameKind, RulesPreset
from tablectl.game import PRESETS, HandFaceUp, Showdown, ShowdownHand

from .helpers import VARIANTS, Dealer, Driver, fresh, initial_state, make_setup

SEEDS = range(4)


def stacks_for(rng: random.Random, game: GameKind) -> tuple[int, ...]:
    n = rng.randint(2, 8 if game.is_stud else 9)
    return tuple(rng.choice([150, 600, 2000, 5000]) for _ in range(n))


def hidden_cards(dealer: Dealer) -> set[str]:
    """Face-down cards of seats the engine has not shown at showdown or turned face up for an
    all-in (quoted, as in JSON)."""
    mirror = dealer.mirror
    assert mirror is not None
    shown = {ev.seat for ev in mirror.events if isinstance(ev, ShowdownHand | HandFaceUp)}
    return {f'"{c.card}"' for s in mirror.view().seats if s.seat not in shown
            for c in s.cards if not c.face_up and c.card is not None}


@pytest.mark.parametrize(("game", "structure"), VARIANTS, ids=str)
@pytest.mark.parametrize("table", [False, True], ids=["shoe", "table"])
def test_random_hands_match_the_engine(game: GameKind, structure: BettingStructure,
                                       table: bool) -> None:
    for seed in SEEDS:
        rng = random.Random(f"{game}-{structure}-{table}-{seed}")
        d = fresh(game, structure, stacks=stacks_for(rng, game), button=1)
        start = sum(s.stack for s in d.ctl.checkpoint().seats)
        dealer = Dealer(d, rng, table=table)
        dealer.start()
        dealer.play()
        mirror = dealer.mirror
        assert mirror is not None and mirror.is_done
        assert d.ctl.phase is Phase.SETTLED
        ended = [o.hand_ended for o in d.outcomes if o.hand_ended is not None]
        assert len(ended) == 1
        summary = ended[0].summary
        assert summary["stacks"] == [{"seat": s, "stack": n}
                                     for s, n in sorted(mirror.final_stacks.items())]
        won = [(a.seat, a.amount) for r in mirror.results for a in r.awards]
        assert [(r["seat"], r["amount"]) for r in summary["results"]] == won  # type: ignore[index, union-attr]
        assert sum(mirror.final_stacks.values()) + mirror.rake == start
        snap = d.ctl.public_snapshot()
        assert [s["stack"] for s in snap["seats"] if s["status"] != "empty"] == [  # type: ignore[index, union-attr]
            mirror.final_stacks[s.seat] for s in d.ctl.checkpoint().seats]
        # the secure feed carried every hole card exactly as dealt
        last: dict[int, list[str | None]] = {}
        for out in d.outcomes:
            for ev in out.secure_events:
                last[ev.data["seat"]] = ev.data["cards"]  # type: ignore[index, assignment]
        assert last == {s.seat: [str(c.card) for c in s.cards] for s in mirror.view().seats
                        if s.cards}


@settings(max_examples=45, deadline=None)
@given(seed=st.integers(0, 2**32), variant=st.sampled_from(VARIANTS), table=st.booleans(),
       players=st.integers(2, 8))
def test_public_side_never_shows_a_hidden_hole_card(seed: int, variant: tuple[GameKind,
                                                                             BettingStructure],
                                                    table: bool, players: int) -> None:
    game, structure = variant
    rng = random.Random(seed)
    stacks = tuple(rng.choice([150, 600, 2000, 5000]) for _ in range(players))
    d = fresh(game, structure, stacks=stacks)
    dealer = Dealer(d, rng, table=table)
    dealer.start()
    while True:
        mark = len(d.outcomes)
        more = dealer.step()
        hidden = hidden_cards(dealer)
        public = json.dumps([[e.to_json() for e in o.events] for o in d.outcomes[mark:]])
        public += json.dumps(d.ctl.public_snapshot())
        leaked = sorted(c for c in hidden if c in public)
        assert not leaked, f"hidden hole cards in public: {leaked}"
        secure = json.dumps(d.ctl.secure_snapshot())
        assert all(c in secure for c in hidden), "the secure snapshot shows every card"
        if not more:
            break
    view = dealer.mirror.view()  # type: ignore[union-attr]
    for seat in (s for s in view.seats if s.folded):  # a folded hand stays hidden
        snap_seat = d.ctl.public_snapshot()["seats"][seat.seat - 1]
        assert all(c["card"] is None or c["up"] for c in snap_seat["cards"])  # type: ignore[index, union-attr]


def test_stud_up_cards_are_public_when_dealt() -> None:
    rng = random.Random(7)
    d = fresh(GameKind.STUD, BettingStructure.FIXED_LIMIT, stacks=(1000, 1000, 1000))
    dealer = Dealer(d, rng)
    dealer.start()
    for _ in range(9):  # two down cards and one up card each
        dealer.step()
    ups = [ev.data for o in d.outcomes for ev in o.events if ev.type == "cards_dealt"]
    assert [len(u["up"]) for u in ups] == [0] * 6 + [1] * 3  # type: ignore[arg-type]
    view = dealer.mirror.view()  # type: ignore[union-attr]
    for seat in view.seats:
        public = d.ctl.public_snapshot()["seats"][seat.seat - 1]["cards"]  # type: ignore[index]
        assert public == [{"card": None, "up": False}, {"card": None, "up": False},
                          {"card": str(seat.cards[2].card), "up": True}]


def test_a_mucked_hand_is_never_shown() -> None:
    rules = replace(PRESETS[RulesPreset.CASINO], showdown_by_input=True)
    d = Driver(HandController(make_setup(rules=rules), initial_state((1000, 1000), button=1)))
    assert d.cmd("start_hand").reply.ok  # type: ignore[union-attr]
    # heads-up, button 1 is the small blind: cards go 2, 1, 2, 1, then burn, flop, ...
    for card in ["As", "2c", "Ah", "3d"]:
        d.read(card)
    assert d.act(1, "call").reply.ok  # type: ignore[union-attr]
    assert d.act(2, "check").reply.ok  # type: ignore[union-attr]
    for street in (["4h", "Kc", "Qd", "9s"], ["5h", "8c"], ["6h", "7d"]):
        for card in street:
            d.read(card)
        assert d.act(2, "check").reply.ok  # type: ignore[union-attr]
        assert d.act(1, "check").reply.ok  # type: ignore[union-attr]
    exp = d.ctl.expected()
    assert isinstance(exp, Showdown)
    first, second = exp.seat, 3 - exp.seat
    assert d.cmd("action", seat=first, kind="show").reply.ok  # type: ignore[union-attr]
    assert d.cmd("action", seat=second, kind="muck").reply.ok  # type: ignore[union-attr]
    assert d.ctl.phase is Phase.SETTLED
    public = json.dumps(d.ctl.public_snapshot()) + json.dumps(
        [e.to_json() for o in d.outcomes for e in o.events])
    mucked = {1: ["2c", "3d"], 2: ["As", "Ah"]}[second]
    shown = {1: ["2c", "3d"], 2: ["As", "Ah"]}[first]
    assert not any(f'"{c}"' in public for c in mucked)
    assert all(f'"{c}"' in public for c in shown)
