"""Pip evidence (tablectl/vision/pips.py, evidence.py) on real pixels: the flattened crops
of ``blackjack_webcam`` (sharp), and the same blurred as the hand-held photos are; skipped,
with the reason, where the corpus is absent."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablectl.domain.cards import Card, Rank
from tablectl.vision.cardview import CARD_H, CARD_W, warp_card, whole_frame_quad
from tablectl.vision.chroma import colour_cards
from tablectl.vision.enrol import Enroller, parse_deck
from tablectl.vision.evidence import Evidence
from tablectl.vision.locate import locate_cards, quad_sides
from tablectl.vision.model import FaceRead, FaceStatus
from tablectl.vision.pips import (
    LAYOUTS,
    PIPS_BLUR,
    enrolled_pips,
    few_pips,
    pip_rows,
    pip_suit,
    read_pips,
)
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


needs_handheld = pytest.mark.skipif(not decks.available(decks.HANDHELD),
                                    reason=decks.skip_reason(decks.HANDHELD))


def _best(rec: Recogniser, name: str) -> FaceRead | None:
    return corpus.best_read(rec, corpus.load(decks.HANDHELD / name)[0])


def _assert_accepted(rec: Recogniser, name: str, card: str) -> None:
    """The hand-held photo ``name``'s best read is ``card``, accepted."""
    read = _best(rec, name)
    assert read is not None and read.card == Card.parse(card), read
    assert read.status is FaceStatus.ACCEPTED


@pytest.mark.timeout(300)
@needs_handheld
def test_blurred_handheld_card_is_accepted_on_index_and_pips(
        handheld_reader: Recogniser) -> None:
    """A hand-held five of clubs whose index print misses every gate of the deck (blur)
    is accepted on its index and its pips; refused before pips were read."""
    read = _best(handheld_reader, "cards-[C5]-021.jpg")
    assert read is not None and read.card == Card.parse("5c")
    assert read.status is FaceStatus.ACCEPTED


@pytest.mark.timeout(300)
@needs_handheld
@pytest.mark.parametrize(("name", "card"), [
    ("cards-[C2]-012.jpg", "2c"),  # best read 3s; another glyph pair names the 2c
    ("cards-[S3]-024.jpg", "3s"),  # best read 3c; another cut names the 3s
    ("cards-[S3]-021.jpg", "3s"),  # every pair reads 3c, the spade 0.008 behind
    ("cards-[D6]-012.jpg", "6d"),  # every pair reads 5d, the six 0.011 behind
    ("cards-[C6]-002.jpg", "6c"),  # read 6c, the enrolled face was a cut card's
    ("cards-[C6]-021.jpg", "6c"),  # best read 5c, and the same
    ("cards-[S6]-012.jpg", "6s"),  # best read 6c; a 6s never judged was taken as judged
])
def test_handheld_card_whose_index_reads_another_is_accepted_as_its_pips_read(
        handheld_reader: Recogniser, name: str, card: str) -> None:
    """A blurred hand-held card whose best index read names another card (its 10-px rank
    read as another rank, or its suit as the other of its colour), refused before, is
    accepted as the card its pips read, where a glyph pair of its index names that card
    or scores it within ``PIPS_BEHIND`` of its best, and its face fits."""
    _assert_accepted(handheld_reader, name, card)


@pytest.mark.timeout(300)
@needs_handheld
def test_pips_name_no_card_of_a_sharp_print_and_a_card_without_pips_stays_refused(
        handheld_reader: Recogniser) -> None:
    """The pips read a card by themselves only on a blurred card: none of the sharp
    number cards of another design (``blackjack_webcam``'s crops) gets one, so the reads
    the pips pick cannot let another design's card through; and a hand-held card read as
    another card whose pips in its quad match no layout (a 2s read as 4s) is never
    accepted as that card (it is accepted as the 2s it is only from its quad grown to
    where its pips place its end, :func:`~tablectl.vision.outset.read_covered`)."""
    ev = Evidence(handheld_reader.profile)
    if decks.available(decks.BLACKJACK):
        assert all(ev.pips_card(img) is None for _, img in _number_cards())
    read = _best(handheld_reader, "cards-[S2]-021.jpg")
    assert (read is None or read.status is not FaceStatus.ACCEPTED
            or read.card == Card.parse("2s")), read


@pytest.mark.timeout(300)
@needs_handheld
def test_enrolment_takes_the_card_found_whose_pips_read_its_rank() -> None:
    """The 6c's enrolment photo: the first card found with an index is the card cut at
    its top (four pips; its face refused every later photo of the 6c); the colour
    finder's card of the same photo reads as a six, and that one is enrolled."""
    img, _ = corpus.load(decks.HANDHELD / "cards-[C6]-001.jpg")
    enroller = Enroller("test", "board", deck=parse_deck("2-6"))
    card = Card.parse("6c")
    first = enroller._crops(img, "6c")[2]
    chosen = enroller._crops(img, "6c", card)[2]
    assert first is not None and chosen is not None
    assert read_pips(first).rank is not Rank.SIX
    assert read_pips(chosen).rank is Rank.SIX



@pytest.mark.timeout(300)
@needs_handheld
@pytest.mark.parametrize(("name", "card"), [
    ("cards-[D2]-002.jpg", "2d"),  # the found quad read 4d unsure
    ("cards-[D3]-003.jpg", "3d"),  # the found quad showed no index; the frame read 4s
    ("cards-[H3]-023.jpg", "3h"),  # the colour quad read 3h unsure
    ("cards-[D5]-022.jpg", "5d"),  # the colour quad read 3d unsure
    ("cards-[S5]-013.jpg", "5s"),  # the found quad read 3c unsure
])
def test_handheld_card_snapped_onto_its_edges_is_accepted_on_its_pips(
        handheld_reader: Recogniser, name: str, card: str) -> None:
    """A blurred hand-held card whose found quad lies a few pixels off its edges, refused
    there, is read right on its snapped quad (:mod:`tablectl.vision.snap`) on its index
    and pips with its face fitting: that read now replaces the found quad's (before, only
    a snapped read its face settled did, and these were refused)."""
    _assert_accepted(handheld_reader, name, card)


@pytest.mark.timeout(300)
@needs_handheld
@pytest.mark.parametrize(("name", "card"), [
    ("cards-[S3]-023.jpg", "3s"),  # a strip by the thumb joined the card's colour square
    ("cards-[S5]-022.jpg", "5s"),  # the hand hides the card's lower end from the mask
    ("cards-[C5]-002.jpg", "5c"),  # the card's corner on the frame's top edge
])
def test_handheld_card_found_by_colour_whole_is_accepted(
        handheld_reader: Recogniser, name: str, card: str) -> None:
    """A hand-held card no brightness mask finds, whose colour square was cut short or
    misshapen (a piece of paper beside it squared into it; its lower end in the hand,
    squarer than a card) or left out (a corner on the frame's edge), was read only as the
    whole frame and refused; now its colour square is kept apart, grown past the hand
    (:mod:`tablectl.vision.chroma`, :func:`~tablectl.vision.grow.grown_quads`) or read
    with its corner out, and it is accepted right."""
    _assert_accepted(handheld_reader, name, card)


@needs_handheld
def test_a_strip_of_paper_by_the_thumb_leaves_the_cards_colour_square_alone() -> None:
    """The 3s held before the wall (``S3-023``): a strip of paper between the thumb and
    the card is squared off beside the card's own piece; it no longer joins it, and the
    colour finder gives the card's outline, card-shaped (before: one outline of both,
    fitted as a quad squarer than a card, and no colour card at all)."""
    img, _ = corpus.load(decks.HANDHELD / "cards-[S3]-023.jpg")
    found = colour_cards(img, [f.quad for f in locate_cards(img)])
    assert len(found) == 1
    short, long_ = quad_sides(found[0].quad)
    assert 1.4 <= long_ / short <= 1.6


@pytest.mark.timeout(300)
@needs_handheld
@pytest.mark.parametrize(("name", "card"), [
    ("cards-[S2]-002.jpg", "2s"),  # read 4d unsure on its outline
    ("cards-[S3]-002.jpg", "3s"),  # read 4s unsure
    ("cards-[S6]-021.jpg", "6s"),  # read 6c unsure
])
def test_handheld_card_whose_outline_cuts_its_index_is_read_from_a_wider_quad(
        handheld_reader: Recogniser, name: str, card: str) -> None:
    """A blurred hand-held card whose outline lies a little inside the card, so that its
    index falls partly out of the corner crop, was refused (read as another card, unsure)
    though its pips read as a card; read again from its quad widened
    (:mod:`tablectl.vision.outset`), it is accepted right on the same gates."""
    _assert_accepted(handheld_reader, name, card)


@pytest.mark.timeout(300)
@needs_handheld
@pytest.mark.parametrize(("name", "card"), [
    ("cards-[D4]-011.jpg", "4d"),  # read 4d unsure: the pips' blur gate
    ("cards-[H4]-002.jpg", "4h"),  # likewise
    ("cards-[D5]-002.jpg", "5d"),  # likewise
    ("cards-[S4]-013.jpg", "4s"),  # read 4c unsure; a glyph pair names the 4s
])
def test_handheld_card_whose_index_and_pips_agree_passes_the_relaxed_blur_gate(
        handheld_reader: Recogniser, name: str, card: str) -> None:
    """A hand-held card a little less blurred than the pips' gate asks
    (:data:`~tablectl.vision.pips.PIPS_BLUR`), whose index reads the card its pips read,
    was refused; the pips confirming the index's own card need only
    :data:`~tablectl.vision.evidence.PIPS_BLUR_AGREED`, and it is accepted right."""
    _assert_accepted(handheld_reader, name, card)


def _drawn(points: list[tuple[float, float]]) -> np.ndarray:
    """A white canonical card with a round black pip at each of ``points`` (fractions)."""
    img = np.full((CARD_H, CARD_W, 3), 255, np.uint8)
    for x, y in points:
        cv2.circle(img, (round(x * CARD_W), round(y * CARD_H)), 10, (0, 0, 0), -1)
    return img


def test_a_two_column_layout_reads_with_its_pips_moved_together_and_one_column_never() -> None:
    """A six whose columns lie at 0.41 and 0.76 of the card's width (as hand-held H6-003's,
    its quad taking in the fingers beside it: the left column 0.11 off its place) reads as
    a six, its pips moved together; moved more than ``SHIFT`` it reads as nothing; one
    column of a four (two pips at the side) never reads as a two."""
    rows = (0.2, 0.5, 0.8)
    assert read_pips(_drawn([(x, y - 0.03) for x in (0.41, 0.76) for y in rows])).rank \
        is Rank.SIX
    assert read_pips(_drawn([(x, y) for x in (0.45, 0.80) for y in rows])).rank is None
    assert read_pips(_drawn([(0.30, 0.2), (0.30, 0.8)])).rank is None
    assert read_pips(_drawn([(0.42, 0.2), (0.42, 0.8)])).rank is Rank.TWO  # in PLACE


@pytest.mark.timeout(300)
@needs_handheld
@pytest.mark.parametrize(("name", "card"), [
    ("cards-[H6]-003.jpg", "6h"),  # quad takes in the fingers: pips 0.11 off their place
    ("cards-[S5]-012.jpg", "5s"),  # read 5c; pips 5s at a pip edge of 3.86
    ("cards-[S3]-013.jpg", "3s"),  # read 3c; pips 3s at 3.81
    ("cards-[D6]-002.jpg", "6d"),  # read 3d; the quad cut to the card its pips place
])
def test_handheld_card_refused_on_its_pips_place_or_ink_is_accepted(
        handheld_reader: Recogniser, name: str, card: str) -> None:
    """A hand-held six whose quad is wider than the card on one side (its pips read as a
    six moved together), two blurred spades whose index reads the club of the rank their
    pips read (under ``PIPS_BLUR``, over ``PIPS_BLUR_AGREED``), and a six whose quad takes
    in the fingers (its index read as a 3d; read again from the quad cut to the card its
    pip columns place, :func:`~tablectl.vision.outset.trimmed`) were refused; each is
    accepted right."""
    _assert_accepted(handheld_reader, name, card)


def test_pip_rows_place_the_cards_ends_either_way_up() -> None:
    """A seven (its layout not the same turned) drawn on 0.9 of the card's height: its
    rows place the card's ends at 0 and 0.9; drawn turned, at 0.1 and 1; a six's top
    two rows alone (its lower row cut) read as no layout, their mean height given."""
    seven = LAYOUTS[Rank.SEVEN]
    rows = pip_rows(_drawn([(x, 0.9 * y) for x, y in seven]))
    assert rows is not None and np.allclose(rows, (0.0, 0.9), atol=0.01), rows
    rows = pip_rows(_drawn([(1.0 - x, 1.0 - 0.9 * y) for x, y in seven]))
    assert rows is not None and np.allclose(rows, (0.1, 1.0), atol=0.01), rows
    top = _drawn([(x, y) for x, y in LAYOUTS[Rank.SIX] if y < 0.7])
    assert pip_rows(top) is None
    assert few_pips(top) == pytest.approx(0.35, abs=0.01)
    assert few_pips(_drawn(list(LAYOUTS[Rank.SIX]))) is None  # a layout: none too few


@pytest.mark.timeout(300)
@needs_handheld
@pytest.mark.parametrize(("name", "card"), [
    ("cards-[H5]-022.jpg", "5h"),  # the hand over the lower end: 3 of 5 pips in the quad
    ("cards-[S2]-021.jpg", "2s"),  # read 4s; the quad stops above the lower pip
    ("cards-[H2]-002.jpg", "2h"),  # the quad's lower left corner pulled in by the fingers
])
def test_handheld_card_whose_lower_end_the_hand_covers_is_read_from_its_quad_grown(
        handheld_reader: Recogniser, name: str, card: str) -> None:
    """A blurred hand-held card whose quad stops short of its lower end (the hand over
    it), its pips too few for any layout, was refused; read again from its quad grown to
    a card's shape and then to where its pips' rows place the end, or with the corner
    the fingers pulled in set where the other three place it
    (:func:`~tablectl.vision.outset.read_covered`), it is accepted right."""
    _assert_accepted(handheld_reader, name, card)


@pytest.mark.timeout(300)
@needs_handheld
def test_pips_under_the_blur_gate_do_not_overrule_an_index_of_another_rank(
        handheld_reader: Recogniser) -> None:
    """A five of hearts whose index reads 6c and whose pips read 5h at a pip edge of 3.48
    (under ``PIPS_BLUR``): the index names another rank, so the pips alone do not decide
    it and it stays refused."""
    read = _best(handheld_reader, "cards-[H5]-003.jpg")
    assert read is None or read.status is not FaceStatus.ACCEPTED, read
