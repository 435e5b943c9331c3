"""Enrolment from several photos per card (tablectl/vision/spread.py), on made-up vectors:
which later photos' glyphs are kept, the print gates measured from a card's own photos,
the suits too close to tell, and how a profile keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from tablectl.domain.cards import Suit, parse_cards
from tablectl.vision.model import ProfileError
from tablectl.vision.profile import DeckProfile, Exemplar
from tablectl.vision.spread import Captures, PrintGate, close_suits, kept, print_gates

DIM = 24


def _unit(v: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    v = v - v.mean()
    return (v / np.linalg.norm(v)).astype(np.float32)


def _deck(photos: int, rng: np.random.Generator, blur: float = 0.05,
          ) -> tuple[list[Exemplar], dict[str, npt.NDArray[np.float64]]]:
    """Four cards (two ranks, two suits), ``photos`` photos each: every photo a copy of the
    card's design with ``blur`` noise and one layout, one capture per photo."""
    base = {k: rng.normal(size=DIM) for k in ("9", "T", "s", "h")}
    out = []
    capture = 0
    photo = 0
    for card in parse_cards("9s 9h Ts Th"):
        r, s = base[card.rank.value], base[card.suit.value]
        for _ in range(photos):
            photo += 1
            capture += 1
            noise = rng.normal(size=(3, DIM)) * blur
            out.append(Exemplar(card, _unit(r + noise[0]), _unit(s + noise[1]),
                                _unit(np.r_[r, s] + np.r_[noise[0], noise[2]]),
                                np.full(5, 0.5, np.float32) + rng.normal(size=5).astype(
                                    np.float32) * 0.01,
                                np.zeros(2, np.float32), capture, False, photo))
    return out, base


def _captures(ex: list[Exemplar]) -> Captures:
    return Captures([e.card for e in ex], photos=[e.photo for e in ex],
                    captures=[e.capture for e in ex], derived=[e.derived for e in ex],
                    **{k: np.stack([getattr(e, k) for e in ex]) for k in
                       ("rank", "suit", "index", "layout")})


def test_one_photo_per_card_keeps_everything_and_measures_no_spread() -> None:
    ex, _ = _deck(1, np.random.default_rng(1))
    c = _captures(ex)
    keep = kept(c)
    assert keep.all()
    assert print_gates(c, keep, 0.10, 0.93) == {}


def test_only_each_cards_first_photo_becomes_glyph_exemplars() -> None:
    """A later photo measures the spread but is not matched against (made exemplars,
    later glyphs let wrong cards through on two decks, docs/camera.md §6)."""
    ex, _ = _deck(3, np.random.default_rng(2))
    keep = kept(_captures(ex))
    first = {}
    for e in ex:
        first.setdefault(e.card, e.photo)
    assert keep.tolist() == [e.photo == first[e.card] for e in ex]
    assert keep.sum() == 4


def test_print_gates_come_from_the_cards_own_photos_but_never_let_its_rival_through() -> None:
    rng = np.random.default_rng(3)
    ex, _ = _deck(3, rng, blur=0.35)   # photos far apart: the deck's gates would refuse them
    c = _captures(ex)
    keep = kept(c)
    gates = print_gates(c, keep, 0.10, 0.93)
    assert set(gates) == set(parse_cards("9s 9h Ts Th"))
    for card, g in gates.items():
        assert g.photos == 3
        assert g.index <= 0.93 and g.layout >= 0.10   # never stricter than the deck's
        mine = np.array([e.card == card for e in ex])
        rival = float((c.index[mine & keep] @ c.index[~mine & keep].T).max())
        assert g.index >= (1 + rival) / 2 - 1e-6   # the nearest other card still fails
    assert any(g.index < 0.93 for g in gates.values())   # and the spread loosened some


def test_suits_a_blurred_deck_cannot_tell_apart_are_named() -> None:
    rng = np.random.default_rng(4)
    ex, base = _deck(2, rng)
    assert close_suits(_captures(ex), np.ones(len(ex), bool)) == frozenset()
    # hearts drawn almost as spades: their glyphs lie closer than the deck's own noise
    near = [Exemplar(e.card, e.rank, _unit(base["s"] + 0.02 * rng.normal(size=DIM))
                     if e.card.suit is Suit.HEARTS else e.suit, e.index, e.layout,
                     e.chroma, e.capture, False, e.photo) for e in ex]
    assert close_suits(_captures(near), np.ones(len(near), bool)) == frozenset({"h", "s"})


def test_a_profile_keeps_its_print_gates_and_close_suits(tmp_path: Path) -> None:
    ex, _ = _deck(3, np.random.default_rng(5), blur=0.35)
    prof = DeckProfile.from_exemplars("d", ex, deck=parse_cards("9s 9h Ts Th"))
    assert prof.print_gates
    prof.save(tmp_path)
    back = DeckProfile.load(tmp_path)
    assert back.print_gates == prof.print_gates
    assert back.close_suits == prof.close_suits
    meta = json.loads((tmp_path / "profile.json").read_text())
    first = next(iter(meta["print_gates"]))
    meta["print_gates"][first]["index"] = "low"
    (tmp_path / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(ProfileError, match="print gate"):
        DeckProfile.load(tmp_path)


def test_a_print_gate_round_trips() -> None:
    g = PrintGate(0.21, 0.88, 2)
    assert PrintGate.from_json(g.as_json()) == g
    with pytest.raises(ValueError, match="photos"):
        PrintGate.from_json({"layout": 0.2, "index": 0.9, "photos": 0})
