"""Read one card: an index crop, a warped card's two index corners, and its face.

Classification is normalised correlation against every exemplar; per class the best
exemplar counts (:mod:`tablectl.vision.classify`). A read is **accepted** only if rank and
suit both correlate at least ``accept``, beat the best other class by ``margin``, the ink
colour fits the suit, the index layout and the whole index patch match what was enrolled
for that card (this is what refuses a look-alike deck that was never enrolled), and the
profile is verified and does not hold the card back; an accepted index is then judged on
the face (:mod:`tablectl.vision.evidence`). A clear index that fails any of these is
**needs_confirmation**; no index at all, or glyphs that match nothing enrolled
(``no_card`` threshold) is **no_card**. The boards' finding and reading of many cards is
:class:`~tablectl.vision.recognise.Recogniser`'s, which is a :class:`CardReader`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Final

from tablectl.domain.cards import Card, Suit
from tablectl.vision.cardview import (
    CORNER,
    CORNER_WIDE,
    corner_crop,
)
from tablectl.vision.classify import Classifier
from tablectl.vision.evidence import PIPS_BLUR_AGREED, Evidence
from tablectl.vision.frame import as_bgr8
from tablectl.vision.glyphs import IndexGlyphs, index_candidates
from tablectl.vision.indexread import IndexRead, better, read_rank
from tablectl.vision.model import FaceRead, FaceStatus, Image
from tablectl.vision.profile import DeckProfile
from tablectl.vision.profile_check import check_widths

_NONE: Final = IndexRead(None, FaceStatus.NO_CARD, 0.0)


_BLACK: Final = frozenset({Suit.CLUBS, Suit.SPADES})
"""The suits printed in black ink (hearts and diamonds in red)."""


class CardReader:
    """Reads one card's index and face against one deck profile. Not thread-safe; cheap
    to construct.

    Args:
        profile: the enrolled deck. If it is not verified, nothing is ever accepted; nor
            is a card it holds back (``DeckProfile.held_back``).
    """

    def __init__(self, profile: DeckProfile) -> None:
        check_widths(profile.vectors(), profile.deck_id)
        self.profile = profile
        self._t = profile.thresholds
        self._held_back = frozenset(profile.held_back)
        self._evidence = Evidence(profile)
        self._classifier = Classifier(profile, self._evidence)
        self.spend: Callable[[], None] | None = None
        """Called before every index read (:meth:`_read_index`) and before each other
        step of about its cost (:meth:`_pace`), where set: a live camera's further looks
        (:mod:`tablectl.vision.liveboard`) are paced by it."""

    # --- one index crop -------------------------------------------------------------------

    def read_index(self, crop: Image) -> IndexRead:
        """Read one upright index crop (BGR). No face is seen here: a read whose print
        only comes near this deck's (``face_only``) is not accepted."""
        r = self._read_index(crop)[0]
        if r.face_only:
            return replace(r, status=FaceStatus.NEEDS_CONFIRMATION)
        return r

    def _read_index(self, crop: Image, faint: bool = True, *, grown: bool = False,
                    named: list[tuple[IndexRead, IndexGlyphs]] | None = None,
                    ) -> tuple[IndexRead, bool]:
        """:meth:`read_index`, and whether Otsu's own cut found an index-like pair (the
        fainter cuts are tried only when it gives no sure read, and ``faint`` is set; the
        hysteresis cut last, with ``grown``: a card's own corners, not the corner search's
        many looks nor the shoe, where it would cost a frame more than it finds). Every
        glyph pair read there is added to ``named`` with its read, where given: the best
        read is not always the one a blurred card's pips name."""
        self._pace()
        best = _NONE
        first: bool | None = None
        for level, found in enumerate(index_candidates(crop, grown=grown)):
            if level and not faint:
                break
            first = bool(found) if first is None else first
            for g in found:
                r = self._classifier.classify(g)
                if named is not None:
                    named.append((r, g))
                if better(r, best):
                    best = r
            if best.status is FaceStatus.ACCEPTED and not best.face_only:
                break
        return best, bool(first)

    def _pace(self, reads: int = 1) -> None:
        """A step of about ``reads`` index reads' work is next (:attr:`spend`)."""
        if self.spend is not None:
            for _ in range(reads):
                self.spend()

    # --- rigs -----------------------------------------------------------------------------

    def shoe_crop(self, frame: Image) -> Image:
        """The index window of a shoe frame (the profile's ``shoe_roi``, else the frame)."""
        roi = self.profile.shoe_roi
        if roi is None:
            return frame
        return frame[roi[1]:roi[1] + roi[3], roi[0]:roi[0] + roi[2]]

    def inspect_shoe(self, frame: Image) -> IndexRead:
        """The full verdict on a shoe frame's index window (no face is seen: an accepted
        index must pass the card's index-only gate)."""
        return self.read_shoe_window(self.shoe_crop(frame))

    def read_shoe_window(self, window: Image) -> IndexRead:
        """:meth:`inspect_shoe` on a window already cut (:meth:`shoe_crop`)."""
        bgr = as_bgr8(window)
        if bgr is None:
            return _NONE
        return self.second_look(self._read_index(bgr)[0], None)

    def read_shoe(self, frame: Image, frame_time: float = 0.0) -> FaceRead:
        """Read the index window of one shoe frame."""
        r = self.inspect_shoe(frame)
        return FaceRead(r.card, r.confidence, r.status, None, frame_time)

    def second_look(self, r: IndexRead, card_img: Image | None) -> IndexRead:
        """An index read the index gates accepted, judged again on the card's face
        (``card_img``, the warped canonical card, where there is one) or else on the card's
        index-only gate (:mod:`tablectl.vision.evidence`); other reads unchanged."""
        if r.status is not FaceStatus.ACCEPTED or r.card is None:
            return r
        j = self._evidence.judge(r.card, r.rank_margin, (r.rank_score, r.suit_score),
                                 card_img, face_only=r.face_only, pips=r.pips)
        status = FaceStatus.ACCEPTED if j.accept else FaceStatus.NEEDS_CONFIRMATION
        return replace(r, status=status, face=j.face, evidence=j.evidence)

    def read_card(self, card_img: Image) -> IndexRead:
        """Read a warped canonical card: the top-left index, and the bottom-right one unless
        the first was accepted (the card may lie either way up); the better read wins. If
        neither corner shows an index at Otsu's cut, wider corners are tried (jumbo
        indices). An accepted index is then judged on the face (:meth:`second_look`); of
        a blurred card whose two corners read as two cards (``pips``), each."""
        best, other = _NONE, _NONE
        named: list[tuple[IndexRead, IndexGlyphs]] = []
        for corner in (CORNER, CORNER_WIDE):
            a, seen_a = self._read_index(corner_crop(card_img, corner), grown=True,
                                         named=named)
            if a.status is FaceStatus.ACCEPTED and not a.face_only:
                return self.second_look(a, card_img)
            b, seen_b = self._read_index(corner_crop(card_img, corner, turned=True),
                                         grown=True, named=named)
            best, other = sorted((best, a, b), key=read_rank)[:0:-1]
            if seen_a or seen_b:
                break  # an index was found at this size; a wider crop only adds clutter
        self._pace()  # the face and the pips judged next
        r = self.second_look(best, card_img)
        judged = [best.card] if best.status is FaceStatus.ACCEPTED else []
        if r.status is not FaceStatus.ACCEPTED and best.pips and other.pips:
            r = self.second_look(other, card_img)  # the corner that reads as its pips do
            judged.append(other.card)
        if r.status is not FaceStatus.ACCEPTED:
            r = self._named_by_pips(card_img, named, tuple(judged), r)
        return r

    def _named_by_pips(self, card_img: Image, named: list[tuple[IndexRead, IndexGlyphs]],
                       judged: tuple[Card | None, ...], refused: IndexRead) -> IndexRead:
        """Where a blurred card's best index reads were refused, a read of the card its
        pips read by themselves from the glyph pairs and cuts of its corners (``named``):
        one that names that card clearly enough for the pips to decide it, else one whose
        glyphs score that card within :data:`~tablectl.vision.classify.PIPS_BEHIND` of
        their best (the index does not contradict it), judged as any such read (pips
        agreeing, face fitting); else ``refused``. Only where a corner gave a read the
        pips may decide (a blurred print: the pips cost about 1 ms). Pips under
        :data:`~tablectl.vision.pips.PIPS_BLUR` name the card only where ``refused`` reads
        their rank and a suit of their ink (a blurred club read for a spade, S5-012,
        docs/camera.md §6), at :data:`~tablectl.vision.evidence.PIPS_BLUR_AGREED`: the
        index and the pips agree on the rank, the pips tell the suit."""
        if not any(r.pips for r, _ in named):
            return refused
        card = self._evidence.pips_card(card_img)
        if card is None and refused.card is not None:
            near = self._evidence.pips_card(card_img, PIPS_BLUR_AGREED)
            if (near is not None and near.rank is refused.card.rank
                    and (near.suit in _BLACK) == (refused.card.suit in _BLACK)):
                card = near
        if card is None or card in judged:  # judged already: its pips or face refused it
            return refused
        mine = [r for r, _ in named if r.pips and r.card == card
                and r.status is FaceStatus.ACCEPTED]
        if not mine:
            mine = [n for n in (self._classifier.behind(g, card) for _, g in named)
                    if n is not None]
        if not mine:
            return refused
        r = self.second_look(max(mine, key=read_rank), card_img)
        return r if r.status is FaceStatus.ACCEPTED else refused
