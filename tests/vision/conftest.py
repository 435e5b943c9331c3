"""Shared fixtures: one enrolled synthetic deck per session (seeded), OpenCV on one thread.

Enrolment mirrors the table procedure: the dealer shows every card twice to the rig under
mild conditions (fixed lighting), the console confirms the labels, then a separate
verification pass reads each card once more and must be 100% right.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import cv2
import pytest

from hardware_sim.camera import SHOE_ROI, DeckStyle, SimCamera, random_style
from tablectl.clock import ManualClock
from tablectl.controller.inputs import CardRead
from tablectl.domain.cards import FULL_DECK
from tablectl.sources.camera import CameraSource
from tablectl.vision.enrol import Enroller, VerificationReport, verify
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser
from tests.vision import decks

cv2.setNumThreads(1)

ENROLLED_SEED = 21
"""The deck design the tests enrol (a seeded random style)."""


@dataclass(frozen=True)
class EnrolledDeck:
    style: DeckStyle
    profile: DeckProfile
    report: VerificationReport


def enrol_shoe_deck(style: DeckStyle, seed: int) -> EnrolledDeck:
    """Enrol ``style`` through the shoe rig (2 frames per card, mild) and verify it."""
    cam = SimCamera(seed, style, strength=0.3)
    enroller = Enroller(style.name, "shoe", SHOE_ROI)
    for card in FULL_DECK:
        for _ in range(2):
            enroller.add(cam.shoe_frame(card), card)
    samples = [(str(c), cam.shoe_frame(c), c) for c in FULL_DECK]
    profile, report = verify(enroller.build(), samples, "shoe")
    return EnrolledDeck(style, profile, report)


@pytest.fixture(scope="session")
def shoe_deck() -> EnrolledDeck:
    """The enrolled, verified shoe deck."""
    return enrol_shoe_deck(random_style(ENROLLED_SEED), seed=1000 + ENROLLED_SEED)


@pytest.fixture(scope="session")
def board_profile() -> DeckProfile:
    """The enrolled deck through the board rig: one overhead frame per card (mild), then a
    verification frame per card."""
    style = random_style(ENROLLED_SEED)
    cam = SimCamera(3100, style, strength=0.4)
    enroller = Enroller(style.name, "board")
    for card in FULL_DECK:
        enroller.add(cam.board_frame([card], card_width=(110, 130))[0], card)
    samples = [(str(c), cam.board_frame([c], card_width=(110, 130))[0], c) for c in FULL_DECK]
    profile, report = verify(enroller.build(), samples, "board")
    assert report.passed, report.failures
    return profile


@pytest.fixture(scope="session")
def handheld_reader() -> Recogniser:
    """``handheld_low`` enrolled with retaken photos (the bench's protocol), read as if
    enabled: one enrolment per test process, shared by the hand-held tests of every module
    (the tests that take it are marked to skip where the photos are absent)."""
    enrolled = decks.enrol(decks.handheld_low(retake=True))
    return Recogniser(enrolled.profile.with_verification(True, "test"))


async def events_until_reads(src: CameraSource, clock: ManualClock, reads: int) -> list[object]:
    """``src``'s events until it has yielded ``reads`` card reads, moving the manual clock
    on while an event is awaited (the back-off between a camera's openings sleeps on it)."""
    out: list[object] = []
    async with src:
        gen = src.events()
        async with asyncio.timeout(60):
            while sum(isinstance(e, CardRead) for e in out) < reads:
                nxt = asyncio.ensure_future(anext(gen))
                while not nxt.done():
                    await asyncio.sleep(0.01)
                    clock.advance(1.0)
                out.append(nxt.result())
        await gen.aclose()
    return out
