"""Pip evidence (tablectl/vision/pips.py, evidence.py) on real pixels: the flattened crops
of ``blackjack_webcam`` (sharp), and the same blurred as the hand-held photos are; skipped,
with the reason, where the corpus is absent."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablectl.domain.cards import Card, Rank
from tablectl.vision.cardview import warp_card, whole_frame_quad
from tablectl.vision.model import FaceStatus
from tablectl.vision.pips import LAYOUTS, PIPS_BLUR, enrolled_pips, pip_suit, read_pips
from tablectl.vision.recognise import Recogniser

from . import corpus, decks

needs_blackjack = pytest.mark.skipif(not decks.available(decks.BLACKJACK),
                                     reason=decks.skip_reason(decks.BLACKJACK))


def _number_cards() -> list[tuple[Card, np.ndarray]]:
    out = []
    for path, card in decks.blackjack_webcam().enrol:
        if card.rank in LAYOUTS:
            img, _ = corpus.load(path)
            out.append((card, warp_card(img, whole_frame_quad(img))))
    return out


@needs_blackjack
def test_pips_read_every_number_card_sharp_and_blurred() -> None:
    """2-10 of all four suits read by their pips, either way up, and still when blurred
    far past what the 10-px index of a hand-held photo survives; a sharp print's pips
    have narrow edges (its index's print is checked), a blurred one's wide."""
    cards = _number_cards()
    assert len(cards) == 36
    for card, img in cards:
        for look in (img, img[::-1, ::-1], cv2.GaussianBlur(img, (0, 0), 2.5)):
            p = read_pips(np.ascontiguousarray(look), edge=True)
            assert p.rank is card.rank, (card, p.count)
        assert read_pips(img, edge=True).edge < PIPS_BLUR
        assert read_pips(cv2.GaussianBlur(img, (0, 0), 2.5), edge=True).edge >= PIPS_BLUR


@needs_blackjack
def test_pip_shapes_tell_the_suit_against_the_decks_own_pips() -> None:
    """Pips enrolled from one photo of each card tell the suit of a blurred photo of
    another card (a club from a spade, where the blurred index suit glyphs cannot)."""
    cards = _number_cards()
    enrol = [(c, img) for c, img in cards if c.rank is Rank.FIVE]
    pips = [(c.suit, v) for c, img in enrol for v in enrolled_pips(c, img)]
    suits, vecs = tuple(s for s, _ in pips), np.stack([v for _, v in pips])
    for card, img in cards:
        if card.rank is Rank.FIVE:
            continue
        p = read_pips(cv2.GaussianBlur(img, (0, 0), 2.0))
        assert pip_suit(p.shapes, suits, vecs).suit is card.suit, card
    assert read_pips(cv2.resize(cards[0][1], (200, 280)) * 0 + 255).rank is None  # blank


@pytest.mark.timeout(300)
@pytest.mark.skipif(not decks.available(decks.HANDHELD),
                    reason=decks.skip_reason(decks.HANDHELD))
def test_blurred_handheld_card_is_accepted_on_index_and_pips() -> None:
    """A hand-held five of clubs whose index print misses every gate of the deck (blur)
    is accepted on its index and its pips; refused before pips were read."""
    enrolled = decks.enrol(decks.handheld_low(retake=True))
    rec = Recogniser(enrolled.profile.with_verification(True, "test"))
    read = corpus.best_read(rec, corpus.load(decks.HANDHELD / "cards-[C5]-021.jpg")[0])
    assert read is not None and read.card == Card.parse("5c")
    assert read.status is FaceStatus.ACCEPTED
