"""Live enrolment at the table: the dealer shows each card, the console confirms, a second
showing verifies; the profile is enabled only at 100% with no wrong read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hardware_sim.camera import SHOE_ROI, SimCamera, write_image_sequence
from tablectl.domain.cards import FULL_DECK
from tablectl.vision.live import LiveEnrolment, LiveEnrolmentError, LivePhase
from tablectl.vision.profile import DeckProfile

from .conftest import EnrolledDeck


def test_steps_out_of_order_are_refused_and_change_nothing(shoe_deck: EnrolledDeck) -> None:
    cam = SimCamera(51, shoe_deck.style, strength=0.3)
    live = LiveEnrolment("d", "shoe", SHOE_ROI)
    with pytest.raises(LiveEnrolmentError):
        live.confirm()                                   # nothing captured yet
    with pytest.raises(LiveEnrolmentError):
        live.check(cam.shoe_frame(FULL_DECK[0]))         # not in the verify phase
    assert not live.capture([cam.shoe_frame(None)])      # an empty shoe: no index
    with pytest.raises(LiveEnrolmentError):
        live.confirm()
    assert live.capture([cam.shoe_frame(FULL_DECK[0])])
    live.retake()
    with pytest.raises(LiveEnrolmentError):
        live.confirm()
    assert live.current == FULL_DECK[0] and live.progress == (0, 52)
    with pytest.raises(LiveEnrolmentError):
        live.result()


def test_live_enrolment_through_the_cli(shoe_deck: EnrolledDeck, tmp_path: Path) -> None:
    cam = SimCamera(53, shoe_deck.style, strength=0.3)
    frames = [cam.shoe_frame(None)]                      # the dealer was not ready yet
    frames += [cam.shoe_frame(card) for card in FULL_DECK]        # enrolment
    frames += [cam.shoe_frame(card) for card in FULL_DECK]        # verification
    url = write_image_sequence(frames, tmp_path / "cam")
    # Enter on an empty shoe (no index: asked again), then Enter + confirm per card, then
    # Enter per card for the verification pass
    answers = [""] + ["", ""] * 52 + [""] * 52
    out = subprocess.run(
        [sys.executable, "-m", "tablectl", "camera", "enrol", "--live", url, "--mode", "shoe",
         "--roi", ",".join(map(str, SHOE_ROI)), "--deck-id", "live", "--frames", "1",
         "--out", str(tmp_path / "profile")],
        input="\n".join(answers) + "\n", capture_output=True, text=True, timeout=180,
        check=False)
    assert "no card index found: show 2c again" in out.stdout, out.stdout[-1500:]
    assert out.returncode == 0, (out.stdout[-1500:], out.stderr[-1500:])
    assert "52/52 read back correctly, 0 wrong" in out.stdout
    profile = DeckProfile.load(tmp_path / "profile")
    assert profile.verified and profile.deck_id == "live"


def test_live_enrolment_phases(shoe_deck: EnrolledDeck) -> None:
    cam = SimCamera(55, shoe_deck.style, strength=0.3)
    live = LiveEnrolment("d", "shoe", SHOE_ROI)
    for card in FULL_DECK:
        assert live.current == card
        assert live.capture([cam.shoe_frame(card)])
        live.confirm()
    assert live.phase is LivePhase.VERIFY
    for card in FULL_DECK:
        live.check(cam.shoe_frame(FULL_DECK[0] if card == FULL_DECK[5] else card))
    profile, report = live.result()
    assert report.wrong + report.unsure >= 1            # one card shown wrongly in verification
    assert not report.passed and not profile.verified
