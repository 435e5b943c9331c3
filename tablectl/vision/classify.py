"""One index's glyph pair classified against an enrolled :class:`DeckProfile` (numpy only).

Classification is normalised correlation against every exemplar; per class the best
exemplar counts (:func:`~tablectl.vision.scores.top2`). The verdict
(:class:`~tablectl.vision.indexread.IndexRead`) carries the deck checks (the whole index and
its layout against the card's enrolment) and which second kind of evidence the read needs:
none, its face (``face_only``), or its pips (``pips``). Kept apart from the reader
(:mod:`tablectl.vision.recognise`), which finds cards and their indices.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from tablectl.domain.cards import Card, Rank, Suit
from tablectl.vision.evidence import INDEX_ONLY_GLYPHS, Evidence
from tablectl.vision.glyphs import IndexGlyphs
from tablectl.vision.indexread import IndexRead
from tablectl.vision.model import FaceStatus
from tablectl.vision.profile import DeckProfile
from tablectl.vision.scores import Groups, behind, lean

PRINT_SLACK: Final = 0.03
"""How far short of ``Thresholds.index`` a read's whole index may come and still be
accepted, when its face agrees as well (``face_only``): the face is the second,
independent check that the print is this deck's. An index read small or blurred (a webcam
over a table, a deck enrolled from sharp scans) correlates less closely with its enrolled
print than a photo like the enrolment's; its layout (sizes and gaps relative to the rank's
height) does not blur, so it gets no slack: the reads of another suit of the same rank
accepted with a layout slack of 0.03 all lay past ``Thresholds.layout``. On its index alone
such a read is refused as before. The face compares ranks and tells suits apart only
coarsely, so the suit glyph of such a read must stand on its own as on an index-only read
(:data:`~tablectl.vision.evidence.INDEX_ONLY_GLYPHS`): with the general gate a seven of
spades of another design was accepted as the club at a suit correlation of 0.89."""
PIPS_BEHIND: Final = 0.015
"""How far behind its best the index's glyphs may score the card a blurred card's pips
read, for the pips to decide it (:meth:`Classifier.behind`,
:meth:`~tablectl.vision.recognise.Recogniser.read_card`): a 10-px rank read as another
rank, a suit as the other of its colour, by less than this."""
_SUITS: Final = tuple(Suit)
_RANKS: Final = tuple(Rank)


class Classifier:
    """Classifies glyph pairs against one profile's exemplars (cut out once, not per read).

    Args:
        profile: the enrolled deck (nothing is accepted unless it is verified, nor a card
            it holds back).
        evidence: the profile's second kinds of evidence (which reads the pips may decide).
    """

    def __init__(self, profile: DeckProfile, evidence: Evidence) -> None:
        self.profile = profile
        self._t = profile.thresholds
        ranks = np.array([_RANKS.index(c.rank) for c in profile.cards])
        suits = np.array([_SUITS.index(c.suit) for c in profile.cards])
        self._rank_order = np.argsort(ranks, kind="stable")
        self._rank_ids = ranks[self._rank_order]
        self._rank_vecs = profile.rank_vecs[self._rank_order]
        self._rank_starts = np.flatnonzero(np.r_[True, np.diff(self._rank_ids) != 0])
        self._suit_order = np.argsort(suits, kind="stable")
        self._suit_ids = suits[self._suit_order]
        self._suit_vecs = profile.suit_vecs[self._suit_order]
        self._suit_starts = np.flatnonzero(np.r_[True, np.diff(self._suit_ids) != 0])
        self._ranks = ranks
        self._suits = suits
        self._rank_groups = Groups.of(self._rank_vecs, self._rank_ids, self._rank_starts)
        self._suit_groups = Groups.of(self._suit_vecs, self._suit_ids, self._suit_starts)
        self._cards = {(r, s): Card(_RANKS[r], _SUITS[s])
                       for r in range(len(_RANKS)) for s in range(len(_SUITS))}
        # Each card's and each rank's exemplars, cut out once (not per read).
        self._card_rows: dict[tuple[int, int], tuple[npt.NDArray[np.float32],
                                                     npt.NDArray[np.float32]]] = {}
        for key in set(zip(ranks.tolist(), suits.tolist(), strict=True)):
            same = (ranks == key[0]) & (suits == key[1])
            self._card_rows[key] = (profile.index_vecs[same], profile.layouts[same])
        self._rank_layouts = {r: profile.layouts[ranks == r] for r in set(ranks.tolist())}
        # each enrolled layout's lean, taken once (the read's tilt is measured against
        # the nearest one's)
        self._card_leans = {k: [lean(row) for row in rows[1]]
                            for k, rows in self._card_rows.items()}
        self._rank_leans = {r: [lean(row) for row in rows]
                            for r, rows in self._rank_layouts.items()}
        self._held_back = frozenset(profile.held_back)
        self._print_gates = profile.print_gates
        self._evidence = evidence
        chroma = np.array([profile.suit_chroma.get(s, (9.0, 9.0)) for s in _SUITS], np.float32)
        self._chroma = chroma
        # Suits whose inks are close form one colour group (red / black, or four groups).
        d = np.linalg.norm(chroma[:, None, :] - chroma[None, :, :], axis=2)
        self._same_colour = d < 0.15
        other = d[~self._same_colour]
        self._group_gap = float(other.min()) if other.size else 0.0
        self._same_rows: tuple[tuple[bool, ...], ...] = tuple(
            tuple(row) for row in self._same_colour.tolist())

    def allowed_suits(self, chroma: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
        """The suits an index of ink ``chroma`` may be (its colour group, or all four where
        the colour is ambiguous or the deck's suits are not told apart by ink)."""
        allowed = self._allowed(chroma)
        return np.ones(4, bool) if allowed is None else np.array(allowed, bool)

    def _allowed(self, chroma: npt.NDArray[np.float32]) -> tuple[bool, ...] | None:
        """:meth:`allowed_suits` by suit as Python bools, ``None`` for all four (what
        :meth:`classify` asks for each read: the distances in float32 as before, the rest
        on Python floats, which hold them exactly)."""
        if self._group_gap < 0.15:
            return None
        diff = self._chroma - chroma[None, :]
        d: list[float] = np.sqrt(np.add.reduce(diff * diff, axis=1)).tolist()  # ``norm``
        best = d.index(min(d))  # ``np.argmin``: the first of equal ones
        same = self._same_rows[best]
        others = [x for x, s in zip(d, same, strict=True) if not s]
        if others and min(others) - d[best] < 0.3 * self._group_gap:
            return None  # colour ambiguous: let the glyph decide
        return same

    def classify(self, g: IndexGlyphs) -> IndexRead:
        """The verdict on one glyph pair: the best card, its scores and gates."""
        t = self._t
        allowed = self._allowed(g.chroma)
        ranks, suits = self._rank_groups, self._suit_groups
        rank_scores = self._rank_vecs @ g.rank
        rank_id, r_best, r_margin, r_sep = ranks.top2(rank_scores, ranks.best(rank_scores),
                                                      None)
        suit_scores = self._suit_vecs @ g.suit
        suit_best = suits.best(suit_scores)
        suit_id, s_best, s_margin, s_sep = suits.top2(suit_scores, suit_best, allowed)
        s_any = max(suit_best)  # ``suit_scores.max()``: the best of the classes' best
        separated = (r_margin >= t.margin and s_margin >= t.margin
                     and r_sep >= t.separation and s_sep >= t.separation)
        colour_ok = s_best >= s_any - t.margin
        card = self._cards[(rank_id, suit_id)]
        conf = max(0.0, min(r_best, s_best))
        if min(r_best, s_any) < t.no_card:
            return IndexRead(None, FaceStatus.NO_CARD, conf, r_best, s_best, r_margin,
                             s_margin)
        # Deck checks: the index as a whole and its layout, against this card's enrolment
        # (or this rank's, if the card itself was not enrolled).
        rows = self._card_rows.get((rank_id, suit_id))
        if rows is not None:
            idx_score = float(np.maximum.reduce(rows[0] @ g.index))  # ``.max()``
            layouts, leans = rows[1], self._card_leans[(rank_id, suit_id)]
        else:
            # A card of the deck that was not enrolled (a partial enrolment): its rank and
            # suit were learnt apart, so each glyph must match its own class as closely as
            # a whole index would; the layout is checked against the rank's enrolments.
            layouts, leans = self._rank_layouts[rank_id], self._rank_leans[rank_id]
            idx_score = min(r_best, s_best)
        dists: list[float] = np.maximum.reduce(np.abs(layouts - g.layout[None, :]),
                                               axis=1).tolist()  # ``.max(axis=1)``
        lay = min(dists)
        tilt = lean(g.layout) - leans[dists.index(lay)]  # the nearest (first) layout's
        glyphs_sure = r_best >= t.accept and s_best >= t.accept and separated and colour_ok
        deck_match = (idx_score >= t.index and lay <= t.layout) if glyphs_sure else None
        own = self._print_gates.get(card)   # measured from the card's own photos
        near = ((idx_score >= t.index - PRINT_SLACK and lay <= t.layout)
                or (own is not None and idx_score >= own.index and lay <= own.layout))
        face_only = (glyphs_sure and not deck_match and self.profile.two_kinds and near
                     and s_best >= INDEX_ONLY_GLYPHS)
        pips = not (deck_match or face_only) and self._evidence.pips_index(  # evidence.py
            card, (r_best, s_best), (r_margin, s_margin), colour_ok)
        face_only = face_only or pips
        ok = (((glyphs_sure and (bool(deck_match) or face_only)) or pips)
              and self.profile.verified and card not in self._held_back)
        status = FaceStatus.ACCEPTED if ok else FaceStatus.NEEDS_CONFIRMATION
        return IndexRead(card, status, conf, r_best, s_best, r_margin, s_margin, idx_score,
                         lay, colour_ok, None if face_only else deck_match, min(r_sep, s_sep),
                         g.box, g.axis, tilt, face_only=face_only, pips=pips)

    def behind(self, g: IndexGlyphs, card: Card) -> IndexRead | None:
        """A read of ``card`` from glyph pair ``g`` whose best card is another, where its
        rank and suit glyphs score ``card``'s at :data:`~tablectl.vision.evidence.PIPS_RANK`
        and ``PIPS_SUIT`` and within :data:`PIPS_BEHIND` of the best (the suit among those
        of its ink): a read the pips may decide (``pips``), else ``None``."""
        rank = behind(self._rank_vecs @ g.rank, self._rank_ids, self._rank_starts,
                      _RANKS.index(card.rank))
        suit = behind(self._suit_vecs @ g.suit, self._suit_ids, self._suit_starts,
                      _SUITS.index(card.suit), self.allowed_suits(g.chroma))
        if (rank is None or suit is None or max(rank[1], suit[1]) > PIPS_BEHIND
                or not self._evidence.pips_index(card, (rank[0], suit[0]), (1.0, 1.0), True)
                or not self.profile.verified or card in self._held_back):
            return None
        return IndexRead(card, FaceStatus.ACCEPTED, min(rank[0], suit[0]), rank[0], suit[0],
                         -rank[1], -suit[1], box=g.box, axis=g.axis, face_only=True,
                         pips=True)
