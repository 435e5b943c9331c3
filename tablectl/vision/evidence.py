"""Two kinds of evidence before a card is accepted: its index, and the rest of its face.

A read whose index passes the glyph and deck gates (:mod:`tablectl.vision.recognise`) is
accepted only if

* its **face agrees** (:mod:`tablectl.vision.face`): the warped card's face, corners masked
  out, fits an enrolled face of the card read at least ``FACE_ACCEPT``, better than any
  enrolled card of another rank by the card's face gate (measured at enrolment, leave-one-
  out over the enrolled faces: ``FaceBook.gate``), and no enrolled card of the same rank
  and another suit clearly better; or
* no face can be compared (a card found by its index corner, overlapped or fanned, a card
  whose face was not enrolled, a shoe's index window) or the face is unclear (a quad a bit
  off, part of the card covered), and its index passes **the card's index-only gate**
  measured at enrolment (:mod:`tablectl.vision.margins`), which is stricter: its rank glyph
  must beat the best other rank by the card's margin and lie within that margin of the
  card's own enrolled glyph (never below :data:`INDEX_ONLY_RANK`), and its suit glyph must
  correlate :data:`INDEX_ONLY_GLYPHS`. A card whose nearest wrong card is far may so be
  accepted on a weaker rank score than one whose nearest wrong card is close; a card whose
  index comes too close to another card's cannot pass it at all.

A read of a suit the deck's enrolment photos could not tell from another by its glyph
(``DeckProfile.close_suits``, :func:`tablectl.vision.spread.close_suits`) needs its face to
fit the card read at least as well as the same rank of any other suit, and is never
accepted on its index alone.

A face that clearly fits a card of another rank (:data:`FACE_ACCEPT` and
:data:`FACE_MARGIN` the other way) refuses the read whatever the index says, except on a
blurred card whose pips decide (below).

**Pips** (:mod:`tablectl.vision.pips`) are the second kind of evidence for a number card
(2-10) on a card too blurred for its print and face to be checked
(:data:`~tablectl.vision.pips.PIPS_BLUR`, or the lower :data:`PIPS_BLUR_AGREED` where
the index names the card the pips read; a sharp card of another design has the same pips)
where the face does not settle it: their count and layout give the rank, their shape
against this deck's enrolled pips the suit (a club from a spade, where a blurred index
suit glyph cannot; so a close suit may be accepted on them). A read whose face is
unsure is accepted where its pips agree and its face fits the card (:data:`PIPS_FACE`).
An index read whose print misses every gate of the deck (``IndexRead.pips``: a blurred
hand-held photo, where blur changes stroke width from photo to photo) is accepted only
where its pips read as its rank and suit and its face fits; never on its index alone,
nor in the corner search.

A card of the deck that was never enrolled (a partial enrolment) has no face and no gate of
its own: it passes on its index alone only if no enrolled card of its rank has a rival too
close to tell apart by the index.

Profiles saved before faces and gates were measured (``DeckProfile.two_kinds`` false) are
judged on the index alone, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tablectl.domain.cards import Card
from tablectl.vision.face import FACE_ACCEPT, FaceBook
from tablectl.vision.model import Image
from tablectl.vision.pips import (
    LAYOUTS,
    PIP_MATCH,
    PIP_SUIT_MARGIN,
    PIPS_BLUR,
    PipsReader,
    pip_suit,
)
from tablectl.vision.profile import DeckProfile

FACE_MARGIN: Final = 0.05
"""How much better a face must fit a card of another rank than the card read to refuse
the read whatever the index says."""
INDEX_ONLY_GLYPHS: Final = 0.95
"""On its index alone a read's suit glyph must correlate at least this well with the
enrolled ones (the general gate asks 0.80 of a read whose face agrees): two suits of designs
never enrolled, accepted wrong before this, reached 0.90 and 0.92 (docs/camera.md §6)."""
PIPS_RANK: Final = 0.55
"""The least rank correlation of an index read whose print is not this deck's, for its
pips to decide it (:meth:`Evidence.pips_index`)."""
PIPS_SUIT: Final = 0.80
"""Likewise, the least suit correlation."""
PIPS_FACE: Final = FACE_ACCEPT
"""The least correlation of the face of a read its pips decide with the enrolled face of
the card read: the pips say which card, the face that it is laid out as this deck's (on a
blurred card its coarse cells cannot tell a 2 from a 3, so no margin over other ranks is
asked there)."""
PIPS_BLUR_AGREED: Final = 3.45
"""The least pip edge width (:attr:`~tablectl.vision.pips.Pips.edge`) at which a card's
pips may confirm the card its index reads (:meth:`Evidence.pips_agree`): below
:data:`~tablectl.vision.pips.PIPS_BLUR`, which still guards the pips naming a card by
themselves (:meth:`Evidence.pips_card`). Here two independent kinds of evidence name the
same card, the index its rank and suit glyphs, the pips their count, layout and shape, and
the face must fit it as well (:data:`PIPS_FACE`). Hand-held cards read right on their index
and refused under the blur gate alone measured 3.48-3.88 (docs/camera.md §6)."""
INDEX_ONLY_RANK: Final = 0.85
"""The least rank correlation an index-only read is accepted on, however far the card's
nearest wrong rank lies (its own floor is ``1 - margin``, :meth:`Evidence.index_margin`)."""


@dataclass(frozen=True, slots=True)
class Judgement:
    """The second look at an index read the index gates accepted.

    Attributes:
        accept: whether the read stays accepted.
        evidence: ``"index+face"``, ``"index+pips"`` (a blurred number card's pips),
            ``"index"`` (the index-only gate) or ``""`` (refused,
            or a profile without faces and gates).
        face: the face's margin, ``None`` when no face was compared.
    """

    accept: bool
    evidence: str
    face: float | None = None


class Evidence:
    """Judges accepted index reads against a profile's faces and index-only gates."""

    def __init__(self, profile: DeckProfile) -> None:
        self.profile = profile
        self.faces = (FaceBook(profile.face_cards, profile.face_vecs)
                      if profile.face_vecs is not None and profile.face_cards else None)
        # a card's pips found once however often they are asked (also by the reads round
        # a refused card, :meth:`~tablectl.vision.recognise.Recogniser._outset`)
        self.pips = PipsReader()

    def pips_may_decide(self, card: Card) -> bool:
        """Whether ``card``'s pips can be read and compared with this deck's enrolled pips
        (a number card, a profile with faces, gates and enrolled pips)."""
        return (card.rank in LAYOUTS and self.profile.two_kinds and self.faces is not None
                and self.profile.pip_vecs is not None)

    def pips_index(self, card: Card, glyphs: tuple[float, float],
                   margins: tuple[float, float], colour_ok: bool) -> bool:
        """Whether an index read of ``card`` short of the deck's print gates still names
        it clearly enough for its pips to decide it (``IndexRead.pips``): a number card of
        a deck with enrolled pips, each glyph (``glyphs``: rank and suit correlations)
        nearest the card read (``margins`` over the next class) at :data:`PIPS_RANK` and
        :data:`PIPS_SUIT`, in its suit's ink."""
        return (self.pips_may_decide(card) and glyphs[0] >= PIPS_RANK
                and glyphs[1] >= PIPS_SUIT and min(margins) > 0.0 and colour_ok)

    def pips_agree(self, card: Card, card_img: Image) -> bool | None:
        """Whether the pips of ``card_img`` read as ``card``: its rank's layout, and a shape
        that fits this deck's enrolled pips of its suit (:data:`PIP_MATCH`) better than any
        other suit's by :data:`PIP_SUIT_MARGIN`. ``None``: no layout matched (pips covered
        or cut, a court card), pips that fit no suit of this deck's clearly, or a card
        sharp enough (:data:`PIPS_BLUR_AGREED`, the index naming ``card`` as well) for its
        index's print and face to be checked (pips are the same on every standard design:
        on a sharp card they would let another design's card through); ``False``: another
        rank's layout or another suit's pips."""
        p = self.pips.read(card_img, card.rank, edge=True)
        if p.rank is None:
            return None
        if p.rank is not card.rank:
            return False
        if p.edge < PIPS_BLUR_AGREED:
            return None
        s = pip_suit(p.shapes, self.profile.pip_suits, self.profile.pip_vecs)
        if s.score < PIP_MATCH or s.margin < PIP_SUIT_MARGIN:
            return None  # not clearly any suit of this deck's
        return s.suit is card.suit

    def pips_card(self, card_img: Image, blur: float = PIPS_BLUR) -> Card | None:
        """The card a blurred number card's pips read by themselves (:meth:`pips_agree`'s
        gates: a layout, a pip edge of ``blur`` (:data:`~tablectl.vision.pips.PIPS_BLUR`
        unless the index agrees on the rank), a suit of this deck's clearly), or ``None``."""
        if self.profile.pip_vecs is None:
            return None
        p = self.pips.read(card_img, None, edge=True)
        if p.rank is None or p.edge < blur:
            return None
        s = pip_suit(p.shapes, self.profile.pip_suits, self.profile.pip_vecs)
        if s.suit is None or s.score < PIP_MATCH or s.margin < PIP_SUIT_MARGIN:
            return None
        card = Card(p.rank, s.suit)
        return card if self.pips_may_decide(card) else None

    def judge(self, card: Card, rank_margin: float, glyphs: tuple[float, float],
              card_img: Image | None, *, face_only: bool = False,
              pips: bool = False) -> Judgement:
        """Judge the index read ``card`` (``rank_margin``: its rank glyph's correlation with
        the rank read minus that with the best other rank; ``glyphs``: its rank and suit
        correlations) and, where there is one, the warped canonical card ``card_img`` it was
        read from. With ``face_only`` (an index whose print comes only near this deck's) the
        face must agree: the index-only gate is not tried."""
        if not self.profile.two_kinds:
            return Judgement(True, "")
        face: float | None = None
        if pips and (card_img is None or not self.pips_agree(card, card_img)):
            return Judgement(False, "")  # pips first: cheaper than the face, and needed
        if card_img is not None and self.faces is not None and self.faces.has(card):
            v = self.faces.judge(card, card_img)
            face = v.margin
            # a suit whose glyph this deck's photos could not tell from another's: the
            # face must not fit the same rank of another suit better (no slack)
            suit_told = (card.suit not in self.profile.close_suits
                         or v.suit_score <= v.score)
            if v.agrees and suit_told and not pips:
                return Judgement(True, "index+face", face)
            # the face does not settle it: the pips, where a number card's can be read (not
            # before: they cost about 1 ms a card)
            told = (True if pips else self.pips_agree(card, card_img)
                    if self.pips_may_decide(card) else None)
            rival = v.rival_score >= FACE_ACCEPT and v.margin <= -FACE_MARGIN
            # on a blurred card (``pips``) the face's coarse cells no longer tell one pip
            # more or less (a 2 from a 3); the pips count them: the face need only fit
            if told and v.score >= PIPS_FACE and (pips or not rival):
                return Judgement(True, "index+pips", face)
            if rival:
                return Judgement(False, "", face)  # the face is another rank's
        if pips:  # the index's print is not this deck's: only its pips decide
            return Judgement(False, "", face)
        margin = self.index_margin(card)
        if (not face_only and margin is not None and rank_margin >= margin
                and card.suit not in self.profile.close_suits
                and glyphs[0] >= max(INDEX_ONLY_RANK, 1.0 - margin)
                and glyphs[1] >= INDEX_ONLY_GLYPHS):
            return Judgement(True, "index", face)
        return Judgement(False, "", face)

    def index_margin(self, card: Card) -> float | None:
        """The margin ``card``'s index-only gate asks (``None``: never on the index alone).
        A read must beat the best other rank by it, and its rank glyph lie no farther than
        it from the card's enrolled one: half way to the nearest wrong rank (or the deck's
        own spread), so a card whose nearest wrong card is far is accepted on a weaker
        rank score than one whose nearest wrong card is close."""
        gate = self.profile.gates.get(card)
        if gate is None:  # a card never enrolled: the strictest gate of its rank's cards
            same_rank = [g for c, g in self.profile.gates.items() if c.rank is card.rank]
            if not same_rank or any(g.margin is None for g in same_rank):
                return None
            return max(g.margin or 0.0 for g in same_rank)
        return gate.margin

