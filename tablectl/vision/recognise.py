"""Recognise cards in frames against an enrolled :class:`DeckProfile`.

Two rigs:

* **shoe** -- the profile's fixed index window (``shoe_roi``) is read as one index crop;
* **board** -- cards are found as bright convex quadrilaterals of playing-card aspect
  (Otsu on the blurred grey frame, with a Canny-edge fallback), warped to a canonical
  portrait card, and both index corners are read (the card may lie either way up).

Reading one card (its index, its face, the gates) is
:class:`~tablectl.vision.cardreader.CardReader`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial as bind
from typing import Final

import numpy as np

from tablectl.vision.background import off_background
from tablectl.vision.cardlike import card_like
from tablectl.vision.cardreader import CardReader
from tablectl.vision.cardview import (
    is_card_crop,
    warp_card,
    warp_source,
    whole_frame_quad,
)
from tablectl.vision.chroma import colour_cards
from tablectl.vision.corners import (
    FLAT,
    INDEX_ON_CARD,
    RANK_SUIT,
    CardMaps,
    GlyphPair,
    by_scale,
    card_maps,
    card_quad,
    glyph_pairs,
    inside_share,
    paper_left,
    placements,
    realigned,
    upright_crop,
    view_at,
)
from tablectl.vision.edge import one_corner_out
from tablectl.vision.firstpass import FirstPass
from tablectl.vision.frame import as_bgr8
from tablectl.vision.framememo import FrameMemo
from tablectl.vision.freecorner import with_free_corners
from tablectl.vision.grow import grown_parts, partial, squarish, turned
from tablectl.vision.indexread import IndexRead, corner_grade, read_rank
from tablectl.vision.locate import Found, locate_cards, shrunk
from tablectl.vision.merge import CUT, accepted_mask, merge_corner_card
from tablectl.vision.model import FaceRead, FaceStatus, Image, Quad
from tablectl.vision.outline import (
    COVERED,
    PART_OF_CARD,
    covered,
    long_side,
    part_of_any,
    parts_of,
)
from tablectl.vision.outset import read_covered, read_outset
from tablectl.vision.profile import DeckProfile
from tablectl.vision.snap import edge_grey, read_snapped

CORNER_READS: Final = 16
"""Index reads the corner search may make in one frame (about 0.5 ms each): the most
index-like glyph pairs come first, so the budget bounds a cluttered frame's cost."""
CORNER_PAIRS: Final = 48
"""Glyph pairs the corner search considers when cards already read in the frame tell the
index's likely size (:func:`~tablectl.vision.corners.by_scale`): those of that size are
read first, within the same :data:`CORNER_READS`."""
FAINT_READS: Final = 8
"""Index reads a frame may spend on the pairs of a faint rank beside its suit
(:func:`~tablectl.vision.faint.faint_ranks`, at most four), their second looks through
the view included, beside :data:`CORNER_READS` and :data:`VIEW_READS`."""
VIEW_READS: Final = 8
"""Index reads a frame may spend on second looks through the table's view
(:meth:`Recogniser._viewed`), beside :data:`CORNER_READS` (which fans use up)."""
_SMALLEST: Final = 16
"""A board frame with a side shorter than this (px) is not searched."""


class Recogniser(CardReader):
    """Reads card indices against one deck profile: one card (:class:`CardReader`) and
    boards of cards. Not thread-safe; cheap to construct.

    Args:
        profile: the enrolled deck. If it is not verified, nothing is ever accepted; nor
            is a card it holds back (``DeckProfile.held_back``).
    """

    def __init__(self, profile: DeckProfile) -> None:
        super().__init__(profile)
        # the frame being read and its whole-frame images, made once (:meth:`_source_of`,
        # :meth:`_edge_grey`)
        self._memo = FrameMemo()

    # --- boards ---------------------------------------------------------------------------

    def inspect_board(self, frame: Image, whole_frame: bool = False,
                      ) -> list[tuple[Quad, IndexRead]]:
        """Every card found on a board frame with the full verdict on it; a card that runs
        into the frame's edge is ``OUT_OF_FRAME`` and not read. A quad that is not read or
        shows no index is reported only if it is card-like (light paper with print on it,
        :mod:`tablectl.vision.cardlike`): a leaf, a box or a plate is not a card.

        With ``whole_frame``, a frame that is a card's own crop (:func:`is_card_crop`), or
        where no card shows an index, is read as one tightly cropped card (photos and scans
        of single cards); nothing is added if that shows no index either.
        """
        bgr = as_bgr8(frame)   # a grey, 16-bit, float or BGRA frame read as 8-bit BGR
        if bgr is None or min(bgr.shape[:2]) < _SMALLEST:
            return []  # an empty or tiny frame, or no picture, holds no readable card
        self._memo.of(bgr, warp_source)
        try:
            return self._inspect(bgr, whole_frame)
        finally:
            self._memo.clear()

    def _source_of(self, frame: Image) -> Image:
        """What to warp ``frame``'s cards and index crops from: its :func:`warp_source`,
        made once by :meth:`inspect_board` for the frame it reads, else ``frame``."""
        return self._memo.of(frame, warp_source) if frame is self._memo.frame else frame

    def _edge_grey(self, frame: Image) -> Image:
        return self._memo.of(frame, edge_grey)  # the same for every quad snapped

    def _warp(self, frame: Image, quad: Quad) -> Image:
        if frame is not self._memo.frame:  # made once per quad of the frame being read
            return warp_card(frame, quad)
        return self._memo.keyed(frame, "warp", tuple((float(x), float(y)) for x, y in quad),
                                lambda: warp_card(self._source_of(frame), quad))

    def _inspect(self, frame: Image, whole_frame: bool) -> list[tuple[Quad, IndexRead]]:
        """:meth:`inspect_board` of an 8-bit BGR frame."""
        small = self._memo.of(frame, shrunk)  # the finder's and the free corners' shrink
        located = locate_cards(frame, shrunk_frame=small)
        if whole_frame and is_card_crop(frame, [f.quad for f in located]):
            q = whole_frame_quad(frame)
            r = self.read_card(self._warp(frame, q))
            if r.card is not None:
                return [(q, r)]
        first = self._first_reads(frame, located)
        found = self._further(frame, located, first)
        if whole_frame and all(r.card is None for _, r in found):
            q = whole_frame_quad(frame)
            r = self.read_card(self._warp(frame, q))
            if r.card is not None:
                found = [(q, r)]
        return self._reported(frame, found)

    def first_pass(self, frame: Image, located: Sequence[Found] | None = None,
                   ) -> FirstPass | None:
        """The part of :meth:`inspect_board` every frame needs: the cards found and each
        outline read once, and whether that settles the frame (every card accepted and
        nothing left to look for: :meth:`_all_read`), when the further looks
        (:meth:`further_looks`) would change nothing. ``None`` for a frame with no
        readable picture. A live camera's board reads (:mod:`tablectl.vision.liveboard`)
        make the further looks of an unsettled frame over the frames that follow, and
        pass the outlines of an earlier frame as ``located`` where the frame still shows
        what that one did (:mod:`tablectl.vision.stillness`): the finder is not run, the
        cards are read on this frame where they lay on that one."""
        bgr = as_bgr8(frame)
        if bgr is None or min(bgr.shape[:2]) < _SMALLEST:
            return None
        self._memo.of(bgr, warp_source)
        try:
            if located is None:
                located = locate_cards(bgr, shrunk_frame=self._memo.of(bgr, shrunk))
            first = self._first_reads(bgr, located)
            found = [qr for _, qr in first]
            # settled: no outline left to read again (each accepted, cut, or not a card:
            # :meth:`_read_found` would return it as it is), no colour cards to look for
            # (some card accepted), nothing for the corner search and the free corners
            reported = tuple(self._reported(bgr, found))
            cards = [q for q, r in found if r.status is FaceStatus.ACCEPTED]
            settled = (reported if cards and all(
                f.cut or r.status is FaceStatus.ACCEPTED or self._not_a_card(bgr, q, r, cards)
                for f, (q, r) in first) and self._all_read(bgr, found) else None)
            return FirstPass(bgr, tuple(located), tuple(first), settled, reported,
                             self._memo.handed_over())
        finally:
            self._memo.clear()

    def further_looks(self, fp: FirstPass) -> list[tuple[Quad, IndexRead]]:
        """The rest of :meth:`inspect_board` for the frame of ``fp``: what it reports of
        that frame (the same reads, made in the same order)."""
        if fp.settled is not None:
            return list(fp.settled)
        self._memo.take(fp.frame, fp.memo)
        try:
            return self._reported(fp.frame, self._further(fp.frame, list(fp.located),
                                                          list(fp.first)))
        finally:
            self._memo.clear()

    def _first_reads(self, frame: Image, located: Sequence[Found],
                     ) -> list[tuple[Found, tuple[Quad, IndexRead]]]:
        """Every outline read once (a cut one only where it is card-like): what lies
        inside a card accepted there is that card's part, not worth its further looks
        (:meth:`_read_found`)."""
        return [(f, self._read_cut(frame, f.quad) if f.cut
                 else (f.quad, self.read_card(self._warp(frame, f.quad))))
                for f in located if not f.cut or card_like(frame, f.quad)]

    def _further(self, frame: Image, located: Sequence[Found],
                 first: Sequence[tuple[Found, tuple[Quad, IndexRead]]],
                 ) -> list[tuple[Quad, IndexRead]]:
        """The looks past the first reads: the outlines not accepted read again, the
        colour cards, the corner search and the free corners."""
        cards = [q for _, (q, r) in first if r.status is FaceStatus.ACCEPTED]
        found = [qr if f.cut else self._read_found(frame, f.quad, qr[1], cards)
                 for f, qr in first]
        if not any(r.status is FaceStatus.ACCEPTED for _, r in found):
            found = self._with_colour(frame, list(located), found)
        if not self._all_read(frame, found):
            found = self._with_corners(frame, found)
            # the cards of a fan still unread, placed from a corner of the paper in view
            small = self._memo.of(frame, shrunk)
            found = with_free_corners(frame, found, bind(self._read_placed, frame), small)
        return found

    def _reported(self, frame: Image, found: list[tuple[Quad, IndexRead]],
                  ) -> list[tuple[Quad, IndexRead]]:
        """``found`` as reported: not a part of a card accepted, nor a quad that shows no
        index and is not card-like."""
        parts = parts_of([q for q, _ in found],
                         [r.status is FaceStatus.ACCEPTED for _, r in found])
        return [(q, r) for (q, r), part in zip(found, parts, strict=True)
                if not part and (r.status is not FaceStatus.NO_CARD or card_like(frame, q))]

    def _all_read(self, frame: Image, found: list[tuple[Quad, IndexRead]]) -> bool:
        """Whether nothing is left for the corner search and the free corners: every
        outline found accepted, each a card of its own, but for quads that show no index
        and are not card-like (which are not reported), and no paper left beside the cards
        (:func:`~tablectl.vision.corners.paper_left`); on an even table (a cloth, a
        pale felt: :func:`~tablectl.vision.background.off_background`) only paper that differs
        from the table counts, as a pale table is itself paper by colour."""
        cards = [(q, r) for q, r in found
                 if r.status is not FaceStatus.NO_CARD or card_like(frame, q)]
        accepted = {r.card for _, r in cards if r.status is FaceStatus.ACCEPTED}
        if not cards or len(accepted) != len(cards) or any(
                r.status is not FaceStatus.ACCEPTED for _, r in cards):
            return False
        small = self._memo.of(frame, shrunk)[1]
        skip = accepted_mask(frame.shape, found)
        self._pace()  # the paper left
        if not paper_left(frame, skip, small):
            return True
        off = off_background(small)
        return off is not None and not paper_left(frame, skip, small, off)

    def _with_colour(self, frame: Image, located: list[Found],
                     found: list[tuple[Quad, IndexRead]]) -> list[tuple[Quad, IndexRead]]:
        """Where no card found was accepted, the cards the colour masks find as well (a
        card before a wall of its own brightness, :func:`colour_cards`; enrolment takes
        them too, :mod:`tablectl.vision.finder`), each read and added where it shows an
        index (a colour quad is only a guess: a plate squared off is not reported). A
        quad squarer than a card (``parts``: a card whose end the hand holding it covers)
        is read grown past each side as well (:meth:`_read_found` with ``held``): only a
        grown quad whose read is accepted replaces it. A colour card with one corner on
        the frame's edge (:func:`~tablectl.vision.edge.one_corner_out`) is added only
        where its index is accepted (:meth:`_read_cut`); never reported cut."""
        colour = colour_cards(frame, [f.quad for f in located], parts=True)
        more = [self._read_cut(frame, f.quad) if f.cut
                else self._read_found(frame, f.quad, held=True) for f in colour]
        return found + [(q, r) for q, r in more
                        if r.status not in (FaceStatus.NO_CARD, FaceStatus.OUT_OF_FRAME)]

    def _read_cut(self, frame: Image, quad: Quad) -> tuple[Quad, IndexRead]:
        """A found card running into the frame's edge: ``OUT_OF_FRAME``, unless only one
        of its corners pokes out (:func:`~tablectl.vision.edge.one_corner_out`) and its
        index is accepted."""
        h, w = frame.shape[:2]
        if one_corner_out(quad, w, h):
            r = self.read_card(self._warp(frame, quad))
            if r.status is FaceStatus.ACCEPTED:
                return quad, r
        return quad, CUT

    def _read_found(self, frame: Image, quad: Quad, first: IndexRead | None = None,
                    cards: Sequence[Quad] = (), held: bool = False,
                    ) -> tuple[Quad, IndexRead]:
        """Read a found card (``first``: its read, where made already); a quad so near a
        square that which way up it is is a guess (:func:`~tablectl.vision.grow.squarish`)
        and that is not accepted as it is is read a quarter turn on as well, the better
        read kept; a quad squarer than a card that is not accepted may be part of one
        (:mod:`tablectl.vision.grow`): the first of its grown quads whose index is accepted
        replaces it. Neither is tried, where the outline was read in a frame's first pass
        (``first`` given), for a quad lying half inside one of ``cards`` (accepted in the
        same frame, :data:`PART_OF_CARD`): a part of that card (its index box, a court
        card's picture), which the frame reports once; nor, where cards were accepted,
        for one that is not light paper with print on it
        (:func:`~tablectl.vision.cardlike.card_like`, which judges paper against the
        frame's bright end: with cards accepted that is card paper, not a lamp or a wall
        as bright as the card): a patch of table between the cards. With ``held`` (a
        colour quad, :meth:`_with_colour`) a grown quad's added part need not be paper:
        the paper the colour mask misses past a held card's side is the fingers over it."""
        r = self.read_card(self._warp(frame, quad)) if first is None else first
        if first is not None and self._not_a_card(frame, quad, r, cards):
            return quad, r
        quad, r = read_snapped(frame, quad, lambda q: self.read_card(self._warp(frame, q)), r,
                               self._edge_grey)
        if r.status is not FaceStatus.ACCEPTED and squarish(quad):
            across = turned(quad)  # foreshortened: the card may lie the other way
            ra = self.read_card(self._warp(frame, across))
            if read_rank(ra) > read_rank(r):
                quad, r = across, ra
        self._pace()  # the pips of a refused card read
        quad, r = self._outset(frame, quad, r)
        if r.status is FaceStatus.ACCEPTED:
            return quad, r
        for g in grown_parts(quad, frame, held=held, no_index=r.status is FaceStatus.NO_CARD):
            rg = self.read_card(self._warp(frame, g))
            if rg.status is FaceStatus.ACCEPTED:
                return g, rg
        return quad, r

    def _not_a_card(self, frame: Image, quad: Quad, r: IndexRead, cards: Sequence[Quad],
                    ) -> bool:
        """Whether an outline read once (``r``) and not accepted is not read again
        (:meth:`_read_found`): near a square or part of a card's outline, and lying half
        inside a card accepted in the frame (``cards``) or, where cards were accepted, not
        card-like."""
        return (r.status is not FaceStatus.ACCEPTED and (squarish(quad) or partial(quad))
                and (part_of_any(quad, cards, PART_OF_CARD)
                     or (bool(cards) and not card_like(frame, quad))))

    def _outset(self, frame: Image, quad: Quad, r: IndexRead) -> tuple[Quad, IndexRead]:
        """A refused card whose pips name a card, read again from its quad widened
        (:mod:`tablectl.vision.outset`: the outline may cut off a blurred card's index);
        a blurred one whose pips are too few for a layout, from its quad grown past the
        end the hand covers (:func:`~tablectl.vision.outset.read_covered`); a read kept
        only where it is accepted."""
        h, w = frame.shape[:2]
        pips = self._evidence.pips  # the pips of a quad warped before, found once
        q, ro = read_outset(quad, r, (w, h), warp=lambda q: self._warp(frame, q),
                            pips_card=self._evidence.pips_card, read=self.read_card,
                            columns=pips.columns)
        if ro.status is FaceStatus.ACCEPTED:
            return q, ro
        return read_covered(quad, r, (w, h), warp=lambda q: self._warp(frame, q),
                            few_pips=pips.few, rows=pips.rows, read=self.read_card)

    def _read_placed(self, frame: Image, quad: Quad) -> tuple[Quad, IndexRead]:
        """A card placed from a free corner (:func:`with_free_corners`), read as an outline
        read unsure is, snapped onto its edges (:func:`read_snapped`), unless it shows no
        index at all (``NO_CARD``): such a placement is off any card's index corner, and
        its snapped quad, moved by at most a few pixels, was never accepted on the bench's
        frames or the development decks' (0 of 353 such reads, docs/camera.md §6, "Cost:
        the tail frames"), at a second full read each."""
        r = self.read_card(self._warp(frame, quad))
        if r.status is FaceStatus.NO_CARD:
            return quad, r
        return read_snapped(frame, quad, lambda s: self.read_card(self._warp(frame, s)), r,
                            self._edge_grey)

    def _corner_read(self, frame: Image, pair: GlyphPair, budget: list[int],
                     ) -> tuple[GlyphPair, IndexRead] | None:
        """Read a glyph pair as an index, then again along the rank-suit line that read
        found (:func:`realigned`: better placed, and upright where the first guess paired
        the suit with one digit of a ``10``). A sure read must not be contradicted by the
        second look; an unsure first read counts only if the second is sure and a third
        does not contradict it; of two sure looks the one graded higher
        (:func:`~tablectl.vision.indexread.corner_grade`) is kept. ``budget`` holds the reads
        left for this frame."""

        def look(p: GlyphPair) -> IndexRead:
            budget[0] -= 1
            return self._read_index(upright_crop(self._source_of(frame), p))[0]

        grade = bind(corner_grade, t=self._t)
        r = look(pair)
        if r.axis is None or r.card is None or budget[0] <= 0:
            return None
        again = realigned(pair, r.axis)
        r2 = look(again)
        if grade(r):
            if grade(r2) and r2.card == r.card:
                return (again, r2) if grade(r2) >= grade(r) else (pair, r)
            return (pair, r) if r2.card in (None, r.card) else None
        if not grade(r2) or r2.axis is None:
            return None
        third = realigned(again, r2.axis)
        r3 = look(third)
        if r3.card not in (None, r2.card):
            return None
        return (third, r3) if grade(r3) >= grade(r2) else (again, r2)

    def _viewed(self, frame: Image, pair: GlyphPair, held: CardMaps,
                hit: tuple[GlyphPair, IndexRead] | None, budget: list[int],
                ) -> tuple[GlyphPair, IndexRead] | None:
        """A pair read short of the index-only grade (``hit``) read again as it lies on the
        table (:func:`~tablectl.vision.corners.view_at`; a slant shortens an index): kept if
        it grades higher; a look reading another card cancels both."""
        view = view_at(held, pair.top)  # FLAT: seen square on, the same crop again
        alt = self._corner_read(frame, replace(pair, view=view), budget) if view != FLAT else None
        if alt is None or hit is None:
            return hit or alt
        if alt[1].card != hit[1].card:
            return None
        grade = bind(corner_grade, t=self._t)
        return alt if grade(alt[1]) > grade(hit[1]) else hit

    def _placed(self, frame: Image, q: Quad, first: IndexRead) -> tuple[Quad, IndexRead]:
        """A card found by its index corner, placed at ``q``, judged on its face: where the
        face leans to the card read but short of its gate, the placement is uncertain
        (:func:`~tablectl.vision.corners.placements`): the first placement whose face
        agrees is taken; else ``q`` with its own verdict."""
        out: tuple[Quad, IndexRead] | None = None
        for p in placements(q):
            r = self.second_look(first, self._warp(frame, p))
            if out is None:
                out = (p, r)
                if r.status is FaceStatus.ACCEPTED or r.face is None or r.face <= 0:
                    return out
            elif r.evidence == "index+face":
                return p, r
        assert out is not None
        return out

    def _with_corners(self, frame: Image, found: list[tuple[Quad, IndexRead]],
                      ) -> list[tuple[Quad, IndexRead]]:
        """``found`` with the cards whose index corner is seen outside every card accepted
        so far (:mod:`tablectl.vision.corners`); only reads the full gate accepts (with the
        stricter layout check :data:`~tablectl.vision.indexread.CORNER_LAYOUT`) count, and
        each is read twice.

        * Inside a found card read as the same card unsure: that read gives way (the
          outline stays if it :func:`~tablectl.vision.outline.fits` the card placed from its index).
        * Inside a found card read unsure or not at all whose outline fits: likewise; one
          whose outline lies within the card placed from the index is part of it, and
          gives way to it.
        * A card already accepted in this frame is not added again.
        * Inside a card-sized quad running out of the frame: that card, already reported
          ``OUT_OF_FRAME``; read after all if the card placed from its index lies
          :data:`MOSTLY_IN` inside the frame (only a sliver outside), else not added.
        * Otherwise added, placed from its index; ``OUT_OF_FRAME`` if that outline runs
          out of the frame. Not called where nothing is left to find (:meth:`_all_read`)."""
        h, w = frame.shape[:2]
        skip = accepted_mask(frame.shape, found)
        accepted = {r.card for _, r in found if r.status is FaceStatus.ACCEPTED}
        hits: list[tuple[GlyphPair, IndexRead]] = []
        budget = [CORNER_READS]
        # the rank-suit distance the cards accepted so far make likely, then each index read
        index_h = (self.profile.index_on_card or INDEX_ON_CARD)[2]
        spans = [RANK_SUIT * index_h * long_side(q) for q, r in found
                 if r.status is FaceStatus.ACCEPTED]
        self._pace(3)  # the glyph pairs: about three index reads' work
        pairs = glyph_pairs(frame, skip, CORNER_PAIRS if spans else CORNER_READS,
                            float(np.median(spans)) if spans else None)
        todo = by_scale([p for p in pairs if not p.faint], spans)
        # a faint rank's pair (a second, local cut): after every ordinary one, on reads of
        # its own (the fans spend the ordinary ones)
        faint = [p for p in pairs if p.faint]
        # the cards accepted so far tell how the table is seen (a camera at a slant)
        held = [q for q, r in found if r.status is FaceStatus.ACCEPTED]
        maps: list[CardMaps] = []  # made once, where a second look is first wanted
        view_budget, grade = [VIEW_READS], bind(corner_grade, t=self._t)
        while todo or faint:
            if not todo or budget[0] <= 0:
                todo, faint, budget = faint, [], [FAINT_READS]
                if not todo:
                    break
            pair = todo.pop(0)
            if any(np.hypot(*np.subtract(pair.top, p.top)) < 1.5 * p.distance
                   or np.hypot(*np.subtract(pair.bottom, p.top)) < 1.5 * p.distance
                   for p, _ in hits):
                continue
            if budget[0] <= 0:
                break
            hit = self._corner_read(frame, pair, budget)
            second = budget if pair.faint else view_budget
            if held and second[0] > 0 and (hit is None or grade(hit[1]) < 2):
                maps = maps or [card_maps(held)]
                hit = self._viewed(frame, pair, maps[0], hit, second)
            if hit is not None:
                hits.append(hit)
                spans.append(hit[0].distance)
                todo = by_scale(todo, spans) if not pair.faint else todo
        out = list(found)
        for pair, read in sorted(hits, key=lambda t: -t[1].confidence):
            if read.card in accepted or read.box is None:
                continue
            # a read short of the corner search's own deck check: its face must agree
            first = read if grade(read) == 2 else replace(read, face_only=True)
            q = card_quad(pair, read.box, first.tilt,
                          self.profile.index_on_card or INDEX_ON_CARD)
            inside = inside_share(q, w, h)
            # the face as far as it is in the frame (outside it is black): it must agree,
            # else the card's index-only gate decides, and a face of another rank refuses
            on_top = [fq for fq, fr in out if fr.status is FaceStatus.ACCEPTED]
            if covered(q, on_top) >= COVERED:  # its face is the cards' above it
                r = self.second_look(first, None)
            else:
                q, r = self._placed(frame, q, first)
            if r.status is not FaceStatus.ACCEPTED:
                continue
            accepted.add(r.card)
            merge_corner_card(out, q, r, (float(pair.top[0]), float(pair.top[1])), inside)
        return out

    def read_board(self, frame: Image, frame_time: float = 0.0,
                   whole_frame: bool = False) -> list[FaceRead]:
        """Find and read every card on one board frame; one read per card found (see
        :meth:`inspect_board` for ``whole_frame``)."""
        return [FaceRead(r.card, r.confidence, r.status, q, frame_time)
                for q, r in self.inspect_board(frame, whole_frame)]

