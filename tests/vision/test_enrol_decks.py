"""Enrolment of short decks and partial sets; ``camera recognise --explain``."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware_sim.camera import SHOE_ROI, SimCamera, random_style
from tablectl.cli import main
from tablectl.domain.cards import FULL_DECK, Card, Rank, Suit
from tablectl.vision.enrol import Enroller, parse_deck, verify
from tablectl.vision.model import EnrolmentError, FaceStatus, ProfileError
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser

from .conftest import ENROLLED_SEED


def test_parse_deck_names_the_usual_decks() -> None:
    assert parse_deck("full") == FULL_DECK
    short = parse_deck("6-A")
    assert len(short) == 36 and {c.rank for c in short} == {
        Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN,
        Rank.KING, Rank.ACE}
    assert parse_deck("10-a") == parse_deck("T-A")
    assert parse_deck("As Kd") == (Card.parse("As"), Card.parse("Kd"))
    for bad in ("A-9", "9-Z", "", "Xx"):
        with pytest.raises(EnrolmentError):
            parse_deck(bad)


def test_short_deck_enrols_exactly_its_cards_and_names_what_is_missing() -> None:
    cam = SimCamera(61, random_style(61), strength=0.3)
    deck = parse_deck("9-A")
    enroller = Enroller("short", "shoe", SHOE_ROI, deck=deck)
    assert enroller.remaining == deck
    with pytest.raises(EnrolmentError, match="not in this deck"):
        enroller.add(cam.shoe_frame(Card.parse("8s")), Card.parse("8s"))
    for card in deck:
        if card.rank is not Rank.KING and card.suit is not Suit.HEARTS:
            enroller.add(cam.shoe_frame(card), card)
    with pytest.raises(ProfileError) as err:
        enroller.build()
    text = str(err.value)
    assert "missing ranks: K" in text and "missing suits: h" in text
    assert "cards not shown: " in text and "Kh" in text and "2s" not in text
    for card in deck:
        if card.rank is Rank.KING or card.suit is Suit.HEARTS:
            enroller.add(cam.shoe_frame(card), card)
    assert enroller.remaining == ()
    profile = enroller.build()
    assert profile.deck == deck and not profile.unseen


def test_partial_enrolment_reads_unseen_cards_or_asks(tmp_path: Path) -> None:
    """All spades plus one card of each other suit: the 36 cards never shown are read from
    rank and suit glyphs learnt apart; never a wrong card accepted."""
    style = random_style(21)
    cam = SimCamera(7, style, strength=0.3)
    shown = [c for c in FULL_DECK if c.suit is Suit.SPADES] + [
        Card.parse(x) for x in ("Ah", "Kd", "Qc")]
    enroller = Enroller("partial", "shoe", SHOE_ROI)
    for card in shown:
        for _ in range(2):
            enroller.add(cam.shoe_frame(card), card)
    profile, report = verify(enroller.build(), [(str(c), cam.shoe_frame(c), c) for c in shown],
                             "shoe")
    assert report.passed
    profile.save(tmp_path / "p")
    profile = DeckProfile.load(tmp_path / "p")
    assert len(profile.unseen) == 36
    rec = Recogniser(profile)
    play = SimCamera(8, style, strength=1.0)
    reads = [(c, rec.read_shoe(play.shoe_frame(c))) for c in profile.unseen]
    right = sum(r.card == c for c, r in reads)
    accepted = [(c, r) for c, r in reads if r.status is FaceStatus.ACCEPTED]
    assert right >= 34, f"{right}/36 unseen cards read right"
    assert len(accepted) >= 8
    assert all(r.card == c for c, r in accepted)


def test_recognise_explain_draws_on_a_copy(tmp_path: Path, board_profile: DeckProfile,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The session's enrolled board deck (enrolling through the CLI is test_cli's job)."""
    profile = tmp_path / "profile"
    board_profile.save(profile)
    cam = SimCamera(42, random_style(ENROLLED_SEED), strength=0.8)
    board = tmp_path / "board.png"
    frame = cam.board_frame(cam.shuffled_deck()[:3], (120, 140))[0]
    cv2.imwrite(str(board), frame)
    capsys.readouterr()
    out = tmp_path / "explained"
    assert main(["camera", "recognise", "--profile", str(profile), "--json", "--explain",
                 str(out), str(board)]) == 0
    reads = json.loads(capsys.readouterr().out)
    assert len(reads) == 3 and all(set(r) == {"card", "confidence", "status", "quad"}
                                   for r in reads)
    drawn = cv2.imread(str(out / "board.explain.png"))
    assert drawn is not None and drawn.shape == frame.shape
    assert np.array_equal(cv2.imread(str(board)), frame), "the input image was changed"
    changed = np.any(drawn != frame, axis=2)
    for r in reads:
        x, y = (round(v) for v in r["quad"][0])
        assert changed[max(y - 3, 0):y + 4, max(x - 3, 0):x + 4].any(), "quad not drawn"
    not_dir = tmp_path / "file"
    not_dir.write_text("x")
    assert main(["camera", "recognise", "--profile", str(profile), "--explain",
                 str(not_dir), str(board)]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["camera", "recognise", "--profile", str(profile), "--explain",
                 str(not_dir / "sub"), str(board)]) == 2
    assert "--explain" in capsys.readouterr().err, "a clear error, not a traceback"


def test_cli_deck_option_refuses_a_bad_deck(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ex:
        main(["camera", "enrol", "--deck-id", "x", "--out", str(tmp_path / "p"), "--deck",
              "A-9", "x.png"])
    assert ex.value.code == 2
    assert "runs backwards" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()
