"""Unit tests of the camera pipeline's parts, each against independently known answers."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware_sim.camera import SHOE_ROI, SimCamera, random_style, render_face
from tablectl.domain.cards import FULL_DECK, Card, Rank
from tablectl.vision.decide import CardVote, DeckGuard, PresenceTrigger, VotePolicy
from tablectl.vision.enrol import (
    Enroller,
    label_from_name,
    labels_from_csv,
    verify,
)
from tablectl.vision.glyphs import find_index
from tablectl.vision.locate import order_quad
from tablectl.vision.model import EnrolmentError, FaceStatus, ProfileError
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser
from tablectl.vision.scores import behind, top2

from .conftest import EnrolledDeck

# --- the ten ------------------------------------------------------------------------------


def test_ten_is_one_rank_glyph_read_as_t(shoe_deck: EnrolledDeck) -> None:
    """``10`` is two connected components; it must be merged into one rank (wider than
    tall, unlike the lone ``0`` a largest-contour rule would keep) and read as ``T``."""
    cam = SimCamera(11, shoe_deck.style, strength=0.3)
    x, y, w, h = SHOE_ROI
    ten = Card.parse("10h")
    crop = cam.shoe_frame(ten)[y:y + h, x:x + w]
    pairs = find_index(crop)
    assert pairs
    rank_width_over_height = pairs[0].layout[4]
    assert rank_width_over_height > 1.0
    read = Recogniser(shoe_deck.profile).read_index(crop)
    assert read.card == ten
    assert str(read.card) == "Th"


@pytest.mark.parametrize(("name", "code"), [("10h.png", "Th"), ("As.jpg", "As"),
                                            ("td_2.png", "Td"), ("Kc-left.jpeg", "Kc")])
def test_labels_from_file_names(name: str, code: str) -> None:
    assert str(label_from_name(Path(name))) == code


@pytest.mark.parametrize("name", ["joker.png", "1h.png", "Ax.png", "10.png", "Asx.png"])
def test_bad_file_names_are_refused(name: str) -> None:
    with pytest.raises(EnrolmentError):
        label_from_name(Path(name))


def test_labels_from_csv(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("file,card\nimg1.png,10d\nimg2.png, Qs\n")
    assert {k: str(v) for k, v in labels_from_csv(path).items()} == {"img1.png": "Td",
                                                                    "img2.png": "Qs"}
    path.write_text("img1.png,11d\n")
    with pytest.raises(EnrolmentError, match="line 1"):
        labels_from_csv(path)


# --- geometry -----------------------------------------------------------------------------


@pytest.mark.parametrize("angle", [0, 17, 90, 135, 180, 260])
def test_order_quad_gives_portrait_clockwise(angle: float) -> None:
    w, h = 100.0, 140.0
    rect = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    pts = (rect @ rot.T + (300, 200)).astype(np.float32)
    q = np.array(order_quad(pts[::-1].copy()))
    sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
    assert sides[0] == pytest.approx(w, abs=1e-3)  # first side is a short one
    assert sides[1] == pytest.approx(h, abs=1e-3)
    (ax, ay), (bx, by) = q[1] - q[0], q[2] - q[1]
    assert ax * by - ay * bx > 0  # clockwise on screen (y down)


# --- decisions ----------------------------------------------------------------------------


@dataclass(frozen=True)
class V:
    card: Card | None
    status: FaceStatus
    confidence: float = 0.95
    deck_match: bool | None = True


AS, KD = Card.parse("As"), Card.parse("Kd")
ACC, NC, NONE = FaceStatus.ACCEPTED, FaceStatus.NEEDS_CONFIRMATION, FaceStatus.NO_CARD


def _vote(*verdicts: V, policy: VotePolicy | None = None) -> tuple[Card | None, FaceStatus]:
    vote = CardVote(policy or VotePolicy(min_frames=3))
    for i, v in enumerate(verdicts):
        vote.add(v, float(i))
    d = vote.decide().read
    return d.card, d.status


def test_vote_accepts_three_agreeing_frames() -> None:
    assert _vote(V(AS, ACC), V(AS, ACC), V(AS, ACC)) == (AS, ACC)


def test_vote_needs_enough_accepted_frames() -> None:
    assert _vote(V(AS, ACC), V(AS, ACC), V(AS, NC)) == (AS, NC)


def test_vote_refuses_any_conflicting_accepted_frame() -> None:
    assert _vote(V(AS, ACC), V(AS, ACC), V(AS, ACC), V(AS, ACC), V(KD, ACC)) == (AS, NC)


def test_vote_mostly_no_card_is_no_card() -> None:
    assert _vote(V(None, NONE), V(None, NONE), V(AS, NC)) == (None, NONE)


def test_vote_policy_is_validated() -> None:
    with pytest.raises(ValueError):
        VotePolicy(min_frames=4, max_frames=3)
    with pytest.raises(ValueError):
        VotePolicy(min_share=0.5)


def test_deck_guard_needs_warmup_and_punishes_mismatch() -> None:
    guard = DeckGuard(warmup=3, penalty=4, cap=5)
    assert [guard.observe(True) for _ in range(3)] == [False, False, True]
    assert guard.observe(None)  # unsure glyphs say nothing about the deck
    assert not guard.observe(False)  # 3 - 4 = -1
    assert [guard.observe(True) for _ in range(4)] == [False, False, False, True]  # 0 1 2 3
    guard.reset()
    assert not guard.trusted


def test_presence_trigger_hysteresis() -> None:
    empty = np.full((40, 40, 3), 30, np.uint8)
    card = np.full((40, 40, 3), 200, np.uint8)
    half = np.full((40, 40, 3), 30 + 40, np.uint8)  # change 40: between leave and enter
    trig = PresenceTrigger(enter=45, leave=35)
    assert [trig.update(f) for f in (empty, half, card, half, empty)] == [
        False, False, True, True, False]


# --- enrolment, verification, profiles ----------------------------------------------------


def test_unverified_profile_never_accepts(shoe_deck: EnrolledDeck) -> None:
    rec = Recogniser(shoe_deck.profile.with_verification(False, "test"))
    cam = SimCamera(12, shoe_deck.style, strength=0.5)
    reads = [rec.read_shoe(cam.shoe_frame(c)) for c in (AS, KD, Card.parse("Th"))]
    assert [r.status for r in reads] == [NC, NC, NC]
    assert [r.card for r in reads] == [AS, KD, Card.parse("Th")]


def test_verification_with_another_deck_does_not_enable(shoe_deck: EnrolledDeck) -> None:
    other = SimCamera(13, random_style(9001), strength=0.3)
    samples = [(str(c), other.shoe_frame(c), c)
               for c in (AS, KD, Card.parse("7c"), Card.parse("2h"))]
    profile, report = verify(shoe_deck.profile, samples, "shoe")
    assert not report.passed
    assert not profile.verified
    assert report.correct < report.total


def test_a_card_read_back_unsure_is_held_back_the_rest_enabled(shoe_deck: EnrolledDeck,
                                                                 tmp_path: Path) -> None:
    """One verification photo shows no card (a bad photo of the As): the profile is enabled
    for the other 51 cards, the As is never accepted, and that survives a save; the report
    names it and does not call the pass passed."""
    cam = SimCamera(14, shoe_deck.style, strength=0.3)
    samples = [(str(c), cam.shoe_frame(None if c == AS else c), c) for c in FULL_DECK]
    profile, report = verify(shoe_deck.profile.with_verification(False, "new"), samples,
                             "shoe")
    assert not report.passed and report.enabled
    assert (report.correct, report.wrong, report.unsure) == (51, 0, 1)
    assert profile.verified and profile.held_back == (AS,)
    assert "enabled except As" in report.summary()
    profile.save(tmp_path)
    rec = Recogniser(DeckProfile.load(tmp_path))
    assert rec.read_shoe(cam.shoe_frame(AS)).status is NC
    assert rec.read_shoe(cam.shoe_frame(AS)).card == AS
    assert rec.read_shoe(cam.shoe_frame(KD)).status is FaceStatus.ACCEPTED


def test_a_wrong_read_back_or_too_many_unsure_disable_the_profile(
        shoe_deck: EnrolledDeck) -> None:
    """A verification read accepted as another card (the photo shows the Kd, labelled As)
    disables the profile; so do unsure reads of more than a tenth of the cards."""
    cam = SimCamera(15, shoe_deck.style, strength=0.3)
    swapped = [(str(c), cam.shoe_frame(KD if c == AS else c), c) for c in FULL_DECK]
    profile, report = verify(shoe_deck.profile, swapped, "shoe")
    assert report.wrong == 1 and not report.enabled and not profile.verified
    assert not profile.held_back and "NOT enabled" in report.summary()
    blanks = [(str(c), cam.shoe_frame(None if i % 8 == 0 else c), c)
              for i, c in enumerate(FULL_DECK)]
    profile, report = verify(shoe_deck.profile, blanks, "shoe")
    assert report.wrong == 0 and report.unsure == 7
    assert not report.enabled and not profile.verified


def test_profile_round_trip(shoe_deck: EnrolledDeck, tmp_path: Path) -> None:
    shoe_deck.profile.save(tmp_path)
    loaded = DeckProfile.load(tmp_path)
    assert loaded.deck_id == shoe_deck.profile.deck_id
    assert loaded.cards == shoe_deck.profile.cards
    assert loaded.verified and loaded.shoe_roi == SHOE_ROI
    assert np.array_equal(loaded.rank_vecs, shoe_deck.profile.rank_vecs)
    assert loaded.thresholds == shoe_deck.profile.thresholds


def test_damaged_profiles_are_refused(shoe_deck: EnrolledDeck, tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"missing profile\.json"):
        DeckProfile.load(tmp_path)
    shoe_deck.profile.save(tmp_path)
    meta = json.loads((tmp_path / "profile.json").read_text())
    meta["format"] = 99
    (tmp_path / "profile.json").write_text(json.dumps(meta))
    with pytest.raises(ProfileError, match="unsupported profile format"):
        DeckProfile.load(tmp_path)


def test_enrolment_must_cover_every_rank_and_suit() -> None:
    cam = SimCamera(14, random_style(3), strength=0.3)
    enroller = Enroller("d", "shoe", SHOE_ROI, augment=False)
    for card in (AS, KD):
        enroller.add(cam.shoe_frame(card), card)
    assert len(enroller.remaining) == 50 and AS not in enroller.remaining
    with pytest.raises(ProfileError, match="missing ranks: 2 3"):
        enroller.build()


def test_enrolment_of_a_blank_frame_fails_and_adds_nothing() -> None:
    cam = SimCamera(15, random_style(3), strength=0.3)
    enroller = Enroller("d", "shoe", SHOE_ROI)
    with pytest.raises(EnrolmentError, match="no card index"):
        enroller.add(cam.shoe_frame(None), AS)
    assert enroller.cards == frozenset()


def test_minimum_enrolment_reads_other_suits(shoe_deck: EnrolledDeck) -> None:
    """13 ranks of one suit plus one card of each other suit (docs/camera.md §2's partial set)
    still reads the rest of the deck right (not necessarily accepted)."""
    cam = SimCamera(16, shoe_deck.style, strength=0.3)
    enroller = Enroller("min", "shoe", SHOE_ROI)
    shown = [Card(r, AS.suit) for r in Rank] + [Card.parse(c) for c in ("2c", "2d", "2h")]
    for card in shown:
        enroller.add(cam.shoe_frame(card), card)
    rec = Recogniser(enroller.build().with_verification(True, "test"))
    others = [Card.parse(c) for c in ("Kh", "7c", "Td", "Qh", "9c", "Ad")]
    reads = [rec.read_shoe(cam.shoe_frame(c)) for c in others]
    assert [r.card for r in reads] == others


def test_face_renderer_draws_index_in_both_corners() -> None:
    face = render_face(AS, random_style(5))
    grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    tl, br = grey[:100, :80], grey[-100:, -80:]
    assert (tl < 128).sum() > 200
    assert abs(int((tl < 128).sum()) - int((br < 128).sum())) < 0.1 * (tl < 128).sum()


def test_source_and_decisions_do_not_load_opencv() -> None:
    """The daemon can import the camera source's module without paying for OpenCV."""
    code = ("import sys, tablectl.vision, tablectl.vision.source, tablectl.vision.decide, "
            "tablectl.vision.profile, tablectl.vision.model; print('cv2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_jumbo_index_is_read_through_the_wider_corner() -> None:
    """An index taller than the usual corner crop (jumbo-index decks) is still enrolled and
    read: the suit would otherwise be cut by the crop's edge and dropped."""
    style = replace(random_style(5), rank_h=72, suit_h=52, suit_gap=8, name="jumbo")
    cam = SimCamera(17, style, strength=0.4)
    enroller = Enroller("jumbo", "board")
    for card in FULL_DECK:
        enroller.add(cam.board_frame([card], (130, 150))[0], card)
    rec = Recogniser(enroller.build().with_verification(True, "test"))
    deal = cam.shuffled_deck()[:4]
    frame, _ = cam.board_frame(deal, (120, 140))
    reads = rec.read_board(frame)
    assert sorted(str(r.card) for r in reads) == sorted(str(c) for c in deal)


def test_a_print_short_of_the_decks_is_never_accepted_without_a_face(
        shoe_deck: EnrolledDeck) -> None:
    """A clear index whose whole print matches the enrolled one a little less closely than
    the deck's gate asks (``face_only``) is accepted only where a face agrees: never in the
    shoe's window, which sees no face; a print further off is simply unsure."""
    cam = SimCamera(12, shoe_deck.style, strength=0.3)
    x, y, w, h = SHOE_ROI
    card = Card.parse("7d")
    frame = cam.shoe_frame(card)
    sure = Recogniser(shoe_deck.profile).read_index(frame[y:y + h, x:x + w])
    assert sure.status is FaceStatus.ACCEPTED and sure.card == card and not sure.face_only
    t = shoe_deck.profile.thresholds
    near = Recogniser(replace(shoe_deck.profile, thresholds=replace(
        t, index=sure.index_score + 0.01)))
    read = near.read_index(frame[y:y + h, x:x + w])
    assert read.face_only and read.card == card
    assert read.status is FaceStatus.NEEDS_CONFIRMATION
    assert near.inspect_shoe(frame).status is FaceStatus.NEEDS_CONFIRMATION
    # (without the per-card gates the deck's two frames per card measured, which a print
    # this far off may pass: tablectl/vision/spread.py; the deck's gate alone here)
    far = Recogniser(replace(shoe_deck.profile, print_gates={}, thresholds=replace(
        t, index=sure.index_score + 0.1)))
    assert not far.read_index(frame[y:y + h, x:x + w]).face_only


def test_top2_finds_each_class_best_exemplar_and_the_runner_up() -> None:
    """``scores.top2`` against a plain loop over the classes, on random exemplars: the best
    class, its score, its margin over the runner-up class and the separation along the
    line between the two winning exemplars; classes not allowed are left out."""
    rng = np.random.default_rng(7)
    for trial in range(200):
        ids = np.repeat(np.arange(6), rng.integers(1, 4, 6))
        starts = np.flatnonzero(np.r_[True, np.diff(ids) != 0])
        vecs = rng.normal(size=(len(ids), 8)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        v = rng.normal(size=8).astype(np.float32)
        allowed = None if trial % 2 else np.array([True, False, True, True, False, True])
        scores = vecs @ v
        best = sorted(((float(scores[ids == c].max()), c) for c in range(6)
                       if allowed is None or allowed[c]), reverse=True)
        (s1, c1), (s2, c2) = best[:2]
        k1 = int(np.flatnonzero(ids == c1)[np.argmax(scores[ids == c1])])
        k2 = int(np.flatnonzero(ids == c2)[np.argmax(scores[ids == c2])])
        gap = max(1.0 - float(vecs[k1] @ vecs[k2]), 1e-3)
        got = top2(vecs, ids, starts, v, allowed)
        assert got[0] == c1
        assert np.allclose(got[1:], (s1, s1 - s2, (s1 - s2) / gap), atol=1e-6)
        assert top2(vecs, ids, starts, v, allowed, scores=scores) == got


def test_behind_scores_one_class_against_the_best_other() -> None:
    """``scores.behind`` against a plain loop: the class's best exemplar's score and how
    far the best other class lies ahead of it (negative: it wins); a class with no
    exemplar, or not allowed, gives ``None``."""
    rng = np.random.default_rng(11)
    for trial in range(200):
        ids = np.repeat(np.array([0, 1, 2, 4, 5]), rng.integers(1, 4, 5))
        starts = np.flatnonzero(np.r_[True, np.diff(ids) != 0])
        scores = rng.uniform(-1, 1, len(ids)).astype(np.float32)
        allowed = None if trial % 2 else np.array([True, True, False, True, True, True])
        for want in range(6):
            got = behind(scores, ids, starts, want, allowed)
            if want == 3 or (allowed is not None and not allowed[want]):
                assert got is None
                continue
            others = [float(scores[ids == c].max()) for c in set(ids.tolist()) - {want}
                      if allowed is None or allowed[c]]
            mine = float(scores[ids == want].max())
            assert got is not None
            assert np.allclose(got, (mine, max(others) - mine), atol=1e-6)

