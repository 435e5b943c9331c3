"""Two kinds of evidence: enrolled faces (``face.py``), enrolment's leave-one-out margins
(``margins.py``) and their judgement of index reads (``evidence.py``), and the profile
keeping them (older profiles still loading)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from hardware_sim.camera import SimCamera, random_style
from tablectl.domain.cards import Card
from tablectl.vision.cardview import CARD_H, CARD_W
from tablectl.vision.enrol import Enroller, parse_deck
from tablectl.vision.evidence import Evidence
from tablectl.vision.face import FaceBook, face_vector
from tablectl.vision.margins import IndexGate, closest_pairs, measure
from tablectl.vision.profile import DeckProfile

from .conftest import ENROLLED_SEED


def _unit(v: np.ndarray) -> np.ndarray:
    v = v - v.mean()
    return (v / np.linalg.norm(v)).astype(np.float32)


def _card(pips: list[tuple[float, float]], court: bool = False) -> np.ndarray:
    """A plain canonical card: white paper, dark pips at fractions of the card."""
    img = np.full((CARD_H, CARD_W, 3), 235, np.uint8)
    for x, y in pips:
        cv2.circle(img, (round(x * CARD_W), round(y * CARD_H)), 14, (20, 20, 20), -1)
    if court:
        cv2.rectangle(img, (55, 75), (145, 205), (40, 40, 160), 6)
        cv2.line(img, (55, 75), (145, 205), (40, 40, 160), 6)
    return img


NINE = [(0.3, 0.3), (0.7, 0.3), (0.3, 0.45), (0.7, 0.45), (0.5, 0.5), (0.3, 0.6),
        (0.7, 0.6), (0.3, 0.72), (0.7, 0.72)]
TEN = [*NINE[:4], (0.5, 0.37), *NINE[5:], (0.5, 0.63)]


def test_face_tells_a_nine_from_a_ten_and_reads_either_way_up() -> None:
    nine, ten = Card.parse("9h"), Card.parse("Th")
    book = FaceBook([nine, ten], np.stack([face_vector(_card(NINE)), face_vector(_card(TEN))]))
    v = book.judge(nine, _card(NINE)[::-1, ::-1].copy())
    assert v.score > 0.95 and v.rival == ten and v.margin > 0.05
    v = book.judge(ten, _card(NINE))  # the index said ten; the face says nine
    assert v.rival == nine and v.margin < -0.05
    assert not book.has(Card.parse("9s"))


def test_leave_one_out_marks_look_alike_ranks_as_needing_the_face() -> None:
    rng = np.random.default_rng(3)
    j, q, a = (_unit(rng.normal(size=64)) for _ in range(3))
    q_like_j = _unit(j + 0.05 * q)  # the deck's Q glyph is nearly its J
    cards = [Card.parse(c) for c in ("Js", "Jh", "Qs", "Qh", "As", "Ah")]
    vecs = np.stack([_unit(j + 0.01 * rng.normal(size=64)), _unit(j + 0.01 * rng.normal(size=64)),
                     _unit(q_like_j + 0.01 * rng.normal(size=64)),
                     _unit(q_like_j + 0.01 * rng.normal(size=64)),
                     _unit(a + 0.01 * rng.normal(size=64)), _unit(a + 0.01 * rng.normal(size=64))])
    m = measure(cards, vecs, [1, 2, 3, 4, 5, 6], [False] * 6)
    js, qs, ace = m.gates[cards[0]], m.gates[cards[2]], m.gates[cards[4]]
    assert js.rival == Card.parse("Qs") and js.margin is None and qs.margin is None
    assert ace.margin is not None and ace.margin >= 0.15
    pairs = closest_pairs(m.gates, 2)
    assert {pairs[0][0].rank, pairs[0][1].rival.rank if pairs[0][1].rival else None} == {
        Card.parse("Js").rank, Card.parse("Qs").rank}


def _profile_with(gates: dict[Card, IndexGate], faces: bool) -> DeckProfile:
    cards = tuple(gates)
    rng = np.random.default_rng(1)
    n = len(cards)
    vec = np.stack([_unit(rng.normal(size=16)) for _ in range(n)])
    face_cards = cards if faces else ()
    return DeckProfile("t", cards, vec, vec, vec, np.zeros((n, 6), np.float32),
                       {c.suit: (0.0, 0.0) for c in cards}, gates=gates,
                       face_cards=face_cards,
                       face_vecs=np.stack([face_vector(_card(NINE)), face_vector(_card(TEN))])
                       if faces else None)


def test_a_read_needs_the_face_or_the_stricter_index_gate() -> None:
    nine, ten = Card.parse("9h"), Card.parse("Th")
    gates = {nine: IndexGate(ten, 0.7, 0.15), ten: IndexGate(nine, 0.99, None)}
    ev = Evidence(_profile_with(gates, faces=True))
    assert ev.judge(nine, 0.02, (0.85, 0.85), _card(NINE)).evidence == "index+face"
    refused = ev.judge(ten, 0.9, (0.99, 0.99), _card(NINE))  # the index: ten; the face: nine
    assert not refused.accept and refused.face is not None and refused.face < 0
    only = ev.judge(nine, 0.2, (0.99, 0.99), None)  # no face seen: the index-only gate
    assert only.accept and only.evidence == "index"
    assert not ev.judge(nine, 0.2, (0.99, 0.9), None).accept  # suit not close enough alone
    # the nine's nearest wrong rank is far (margin 0.15): a rank glyph within 0.15 of its
    # own is enough, one farther is not
    assert ev.judge(nine, 0.2, (0.86, 0.99), None).accept
    assert not ev.judge(nine, 0.2, (0.84, 0.99), None).accept
    assert not ev.judge(nine, 0.1, (0.99, 0.99), None).accept
    assert not ev.judge(ten, 0.9, (0.99, 0.99), None).accept  # too close to the nine by its index


def test_a_print_only_near_the_decks_needs_the_face() -> None:
    """An index whose print comes only near the deck's (``face_only``: a small or blurred
    read of a deck enrolled from sharp photos) is accepted when its face agrees, never on
    its index alone however clear the glyphs."""
    nine, ten = Card.parse("9h"), Card.parse("Th")
    gates = {nine: IndexGate(ten, 0.7, 0.15), ten: IndexGate(nine, 0.7, 0.15)}
    ev = Evidence(_profile_with(gates, faces=True))
    assert ev.judge(nine, 0.3, (0.99, 0.99), _card(NINE), face_only=True).evidence == "index+face"
    assert ev.judge(nine, 0.3, (0.99, 0.99), None).accept  # index-only, with a full print
    assert not ev.judge(nine, 0.3, (0.99, 0.99), None, face_only=True).accept
    assert not ev.judge(ten, 0.3, (0.99, 0.99), _card(NINE), face_only=True).accept


def test_profile_keeps_faces_and_gates_and_older_profiles_load(tmp_path: Path) -> None:
    nine, ten = Card.parse("9h"), Card.parse("Th")
    p = _profile_with({nine: IndexGate(ten, 0.7, 0.15), ten: IndexGate(nine, 0.99, None)},
                      faces=True)
    p.save(tmp_path / "p")
    back = DeckProfile.load(tmp_path / "p")
    assert back.gates == p.gates and back.face_cards == p.face_cards and back.two_kinds
    assert back.face_vecs is not None and p.face_vecs is not None
    assert np.allclose(back.face_vecs, p.face_vecs)
    # a profile saved before faces and gates: no keys for them
    meta = json.loads((tmp_path / "p" / "profile.json").read_text())
    del meta["gates"], meta["noise"]
    (tmp_path / "p" / "profile.json").write_text(json.dumps(meta))
    with np.load(tmp_path / "p" / "glyphs.npz") as data:
        arrays = {k: data[k] for k in ("cards", "rank", "suit", "index", "layout")}
    np.savez_compressed(tmp_path / "p" / "glyphs.npz", allow_pickle=False, **arrays)
    old = DeckProfile.load(tmp_path / "p")
    assert not old.two_kinds and old.face_vecs is None
    assert Evidence(old).judge(ten, 0.0, (0.8, 0.8), None).accept  # the index alone, as before


def test_enrolled_board_deck_keeps_a_face_and_a_gate_per_card() -> None:
    cam = SimCamera(ENROLLED_SEED, random_style(ENROLLED_SEED), strength=0.3)
    deck = parse_deck("9s Ts Js Qs 9h Th Jh Qh")
    enroller = Enroller("faces", "board", deck=deck)
    for card in deck:
        enroller.add(cam.board_frame([card], card_width=(120, 130))[0], card)
    built = enroller.build()
    assert set(built.face_cards) == set(deck) and built.two_kinds
    assert set(built.gates) == set(deck)


def test_face_gates_are_measured_leave_one_out_on_the_enrolled_faces() -> None:
    """Each card's face gate comes from how close its nearest other rank's enrolled face
    lies: a nine and a ten get a gate, two ranks with the same face get none (the face
    cannot tell them apart, so it never accepts them), and the closest pair comes first."""
    nine, ten, jack, queen = (Card.parse(c) for c in ("9h", "Th", "Jh", "Qh"))
    court = face_vector(_card([], court=True))
    book = FaceBook([nine, ten, jack, queen],
                    np.stack([face_vector(_card(NINE)), face_vector(_card(TEN)), court, court]))
    g = book.gate(nine)
    assert g is not None and 0.03 <= g <= 0.08
    assert book.gate(jack) is None and book.gate(queen) is None
    assert {book.closest(1)[0][0], book.closest(1)[0][1]} == {jack, queen}
    v = book.judge(jack, _card([], court=True))
    assert v.score > 0.95 and not v.agrees  # as good a queen as a jack
    assert book.judge(nine, _card(NINE)).agrees
    assert not book.judge(ten, _card(NINE)).agrees


def test_face_of_another_suit_of_the_same_rank_disagrees() -> None:
    """The face checks the suit too, where other suits of the rank were enrolled: a nine of
    hearts whose face fits the enrolled nine of spades clearly better is not agreed with."""
    nine_h, nine_s, ten_h = (Card.parse(c) for c in ("9h", "9s", "Th"))
    hearts = _card(NINE)
    spades = _card(NINE)
    for x, y in NINE:  # the spade pips carry a stem
        cv2.rectangle(spades, (round(x * CARD_W) - 10, round(y * CARD_H) - 16),
                      (round(x * CARD_W) + 10, round(y * CARD_H) + 28), (20, 20, 20), -1)
    faces = [face_vector(hearts), face_vector(spades), face_vector(_card(TEN))]
    book = FaceBook([nine_h, nine_s, ten_h], np.stack(faces))
    assert book.judge(nine_s, spades).agrees
    v = book.judge(nine_h, spades)
    assert v.suit_rival == nine_s and v.suit_score > v.score and not v.agrees
