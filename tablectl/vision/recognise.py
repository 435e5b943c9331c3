"""Recognise cards in frames against an enrolled :class:`DeckProfile`.

Two rigs:

* **shoe** -- the profile's fixed index window (``shoe_roi``) is read as one index crop;
* **board** -- cards are found as bright convex quadrilaterals of playing-card aspect
  (Otsu on the blurred grey frame, with a Canny-edge fallback), warped to a canonical
  portrait card, and both index corners are read (the card may lie either way up).

Classification is normalised correlation against every exemplar; per class the best
exemplar counts. A read is **accepted** only if rank and suit both correlate at least
``accept``, beat the best other class by ``margin``, the ink colour fits the suit, the index
layout and the whole index patch match what was enrolled for that card (this is what refuses
a look-alike deck that was never enrolled), and the profile is verified. A clear index that
fails any of these is **needs_confirmation**; no index at all, or glyphs that match nothing
enrolled (``no_card`` threshold) is **no_card**.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.domain.cards import Card, Rank, Suit
from tablectl.vision.glyphs import IndexGlyphs, find_index
from tablectl.vision.model import CardRead, Image, Quad, ReadStatus
from tablectl.vision.profile import DeckProfile

CARD_W: Final = 200
CARD_H: Final = 280
DETECT_MAX: Final = 1024
CORNER: Final = (0.30, 0.36)
"""Index corner crop as fractions of the canonical card's width and height."""
CORNER_WIDE: Final = (0.42, 0.50)
"""The corner crop tried when the usual one shows no index (jumbo-index decks)."""
_SUITS: Final = tuple(Suit)
_RANKS: Final = tuple(Rank)


@dataclass(frozen=True, slots=True)
class IndexRead:
    """The classifier's full verdict on one index crop (for tuning and the verifier).

    ``card`` is the best guess (``None`` when nothing index-like was found); the scores are
    correlations; ``layout`` is a distance (lower is better).
    """

    card: Card | None
    status: ReadStatus
    confidence: float
    rank_score: float = 0.0
    suit_score: float = 0.0
    rank_margin: float = 0.0
    suit_margin: float = 0.0
    index_score: float = 0.0
    layout: float = 9.0
    colour_ok: bool = True
    deck_match: bool | None = None
    """Whether the index's print (whole-index correlation and layout) matches this deck's
    enrolment; ``None`` when the glyphs were too unsure to tell."""
    separation: float = 0.0
    """The weaker of the rank and suit separations (see :class:`Thresholds`)."""


_NONE: Final = IndexRead(None, ReadStatus.NO_CARD, 0.0)
_PRIORITY: Final = {ReadStatus.ACCEPTED: 2, ReadStatus.NEEDS_CONFIRMATION: 1,
                    ReadStatus.NO_CARD: 0}


def order_quad(pts: npt.NDArray[np.float32]) -> Quad:
    """Order 4 corner points clockwise from top-left, then rotate so the first side (top)
    is a short side: the quad then describes a portrait card.

    >>> order_quad(np.array([[0, 0], [140, 0], [140, 100], [0, 100]], np.float32))
    ((0.0, 100.0), (0.0, 0.0), (140.0, 0.0), (140.0, 100.0))
    """
    p = pts.reshape(4, 2).astype(np.float64)
    c = p.mean(axis=0)
    ang = np.arctan2(p[:, 1] - c[1], p[:, 0] - c[0])
    p = p[np.argsort(ang)]  # clockwise in image coordinates (y down)
    start = int(np.argmin(p[:, 0] + p[:, 1]))
    p = np.roll(p, -start, axis=0)
    top = np.hypot(*(p[1] - p[0]))
    side = np.hypot(*(p[2] - p[1]))
    if top > side:
        p = np.roll(p, 1, axis=0)
    q = [(float(x), float(y)) for x, y in p]
    return (q[0], q[1], q[2], q[3])


def _quad_from_contour(cnt: npt.NDArray[np.int32]) -> npt.NDArray[np.float32] | None:
    hull = cv2.convexHull(cnt)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.035, 0.05):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32)
    box = cv2.boxPoints(cv2.minAreaRect(hull))
    return np.asarray(box, np.float32)


def find_cards(frame: Image, min_width: float = 40.0) -> list[Quad]:
    """Card-shaped bright quadrilaterals in a BGR board frame, as portrait :data:`Quad` s.

    A quad is kept if its short side is at least ``min_width`` px, its aspect is that of a
    card (1.2..1.75) and its contour is convex enough (no merged, overlapping cards).
    Frames larger than :data:`DETECT_MAX` px are searched at reduced size (photos); the
    quads are returned in the frame's own pixels.
    """
    h, w = frame.shape[:2]
    scale = min(1.0, DETECT_MAX / max(h, w))
    small = frame if scale == 1.0 else cv2.resize(frame, (round(w * scale), round(h * scale)),
                                                  interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(grey, (5, 5), 0)
    _, binary = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    binary = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    quads = _quads(binary, min_width * scale)
    if not quads:
        med = float(np.median(blur))
        edges = cv2.Canny(blur, max(10.0, 0.5 * med), max(30.0, 1.2 * med))
        edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
        filled = np.zeros_like(edges)
        cnts, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(filled, cnts, -1, 255, -1)
        quads = [q for q in _quads(filled, min_width * scale) if _bright(binary, q)]
    if scale == 1.0:
        return quads
    return [_scaled(q, 1.0 / scale) for q in quads]


def _bright(binary: Image, q: Quad) -> bool:
    """Mostly paper inside: rejects dark shapes (pips, logos) found by their edges."""
    mask = np.zeros(binary.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(np.array(q)).astype(np.int32), 255)
    return float(cv2.mean(binary, mask=mask)[0]) >= 0.6 * 255


def _scaled(q: Quad, k: float) -> Quad:
    a, b, c, d = ((x * k, y * k) for x, y in q)
    return (a, b, c, d)


def whole_frame_quad(frame: Image) -> Quad | None:
    """The frame itself as a card, if it has a card's aspect (a tightly cropped card photo
    or scan, with no background to find the card against)."""
    h, w = frame.shape[:2]
    if not 1.2 <= max(h, w) / max(min(h, w), 1) <= 1.75:
        return None
    pts = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    return order_quad(pts)


def _quads(binary: Image, min_width: float) -> list[Quad]:
    cnts, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out: list[Quad] = []
    frame_area = binary.shape[0] * binary.shape[1]
    for cnt in cnts:
        area = cv2.contourArea(cnt)
        if area < min_width * min_width * 1.2 or area > 0.97 * frame_area:
            continue
        quad = _quad_from_contour(np.asarray(cnt, np.int32))
        if quad is None:
            continue
        qa = cv2.contourArea(quad)
        if qa <= 0 or area / qa < 0.88:
            continue
        q = order_quad(quad)
        a = np.hypot(q[1][0] - q[0][0], q[1][1] - q[0][1])
        b = np.hypot(q[2][0] - q[1][0], q[2][1] - q[1][1])
        c = np.hypot(q[3][0] - q[2][0], q[3][1] - q[2][1])
        d = np.hypot(q[0][0] - q[3][0], q[0][1] - q[3][1])
        short, long_ = (a + c) / 2, (b + d) / 2
        if short < min_width or not 1.2 <= long_ / short <= 1.75:
            continue
        out.append(q)
    out.sort(key=lambda q: (q[0][1], q[0][0]))
    return out


def warp_card(frame: Image, quad: Quad) -> Image:
    """The card under ``quad`` warped to a canonical ``CARD_W`` x ``CARD_H`` portrait."""
    src = np.array(quad, np.float32)
    dst = np.array([[0, 0], [CARD_W - 1, 0], [CARD_W - 1, CARD_H - 1], [0, CARD_H - 1]],
                   np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(frame, m, (CARD_W, CARD_H), flags=cv2.INTER_LINEAR)


def corner_crops(card: Image, corner: tuple[float, float] = CORNER) -> tuple[Image, Image]:
    """The top-left index crop and the bottom-right one turned upright (180 deg);
    ``corner`` is the crop's size as fractions of the card's width and height."""
    cw, ch = round(CARD_W * corner[0]), round(CARD_H * corner[1])
    tl = card[:ch, :cw]
    br = np.ascontiguousarray(card[CARD_H - ch:, CARD_W - cw:][::-1, ::-1])
    return tl, br


class Recogniser:
    """Reads card indices against one deck profile. Not thread-safe; cheap to construct.

    Args:
        profile: the enrolled deck. If it is not verified, nothing is ever accepted.
    """

    def __init__(self, profile: DeckProfile) -> None:
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
        chroma = np.array([profile.suit_chroma[s] for s in _SUITS], np.float32)
        self._chroma = chroma
        # Suits whose inks are close form one colour group (red / black, or four groups).
        d = np.linalg.norm(chroma[:, None, :] - chroma[None, :, :], axis=2)
        self._same_colour = d < 0.15
        other = d[~self._same_colour]
        self._group_gap = float(other.min()) if other.size else 0.0

    # --- one index crop -------------------------------------------------------------------

    def _allowed_suits(self, chroma: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
        if self._group_gap < 0.15:
            return np.ones(4, bool)
        d = np.linalg.norm(self._chroma - chroma[None, :], axis=1)
        best = int(np.argmin(d))
        others = d[~self._same_colour[best]]
        if others.size and float(others.min()) - float(d[best]) < 0.3 * self._group_gap:
            return np.ones(4, bool)  # colour ambiguous: let the glyph decide
        allowed: npt.NDArray[np.bool_] = self._same_colour[best].copy()
        return allowed

    def _classify(self, g: IndexGlyphs) -> IndexRead:
        t = self._t
        allowed = self._allowed_suits(g.chroma)
        rank_id, r_best, r_margin, r_sep = _top2(self._rank_vecs, self._rank_ids,
                                                 self._rank_starts, g.rank, None)
        suit_id, s_best, s_margin, s_sep = _top2(self._suit_vecs, self._suit_ids,
                                                 self._suit_starts, g.suit, allowed)
        s_any = float((self._suit_vecs @ g.suit).max())
        separated = (r_margin >= t.margin and s_margin >= t.margin
                     and r_sep >= t.separation and s_sep >= t.separation)
        colour_ok = s_best >= s_any - t.margin
        rank = _RANKS[rank_id]
        suit = _SUITS[suit_id]
        card = Card(rank, suit)
        conf = max(0.0, min(r_best, s_best))
        if min(r_best, s_any) < t.no_card:
            return IndexRead(None, ReadStatus.NO_CARD, conf, r_best, s_best, r_margin,
                             s_margin)
        # Deck checks: the index as a whole and its layout, against this card's enrolment
        # (or this rank's, if the card itself was not enrolled).
        same = (self._ranks == _RANKS.index(rank)) & (self._suits == _SUITS.index(suit))
        if not same.any():
            same = self._ranks == _RANKS.index(rank)
        idx_score = float((self.profile.index_vecs[same] @ g.index).max())
        lay = float(np.abs(self.profile.layouts[same] - g.layout[None, :]).max(axis=1).min())
        glyphs_sure = r_best >= t.accept and s_best >= t.accept and separated and colour_ok
        deck_match = (idx_score >= t.index and lay <= t.layout) if glyphs_sure else None
        ok = glyphs_sure and bool(deck_match) and self.profile.verified
        status = ReadStatus.ACCEPTED if ok else ReadStatus.NEEDS_CONFIRMATION
        return IndexRead(card, status, conf, r_best, s_best, r_margin, s_margin, idx_score,
                         lay, colour_ok, deck_match, min(r_sep, s_sep))

    def read_index(self, crop: Image) -> IndexRead:
        """Read one upright index crop (BGR)."""
        best = _NONE
        for g in find_index(crop):
            r = self._classify(g)
            if _better(r, best):
                best = r
        return best

    # --- rigs -----------------------------------------------------------------------------

    def shoe_crop(self, frame: Image) -> Image:
        """The index window of a shoe frame (the profile's ``shoe_roi``, else the frame)."""
        roi = self.profile.shoe_roi
        if roi is None:
            return frame
        return frame[roi[1]:roi[1] + roi[3], roi[0]:roi[0] + roi[2]]

    def inspect_shoe(self, frame: Image) -> IndexRead:
        """The full verdict on a shoe frame's index window."""
        return self.read_index(self.shoe_crop(frame))

    def read_shoe(self, frame: Image, frame_time: float = 0.0) -> CardRead:
        """Read the index window of one shoe frame."""
        r = self.inspect_shoe(frame)
        return CardRead(r.card, r.confidence, r.status, None, frame_time)

    def read_card(self, card_img: Image) -> IndexRead:
        """Read a warped canonical card: the top-left index, and the bottom-right one unless
        the first was accepted (the card may lie either way up); the better read wins. If
        neither corner shows an index, wider corners are tried (jumbo indices)."""
        best = _NONE
        for corner in (CORNER, CORNER_WIDE):
            tl, br = corner_crops(card_img, corner)
            a = self.read_index(tl)
            if a.status is ReadStatus.ACCEPTED:
                return a
            b = self.read_index(br)
            best = max((best, a, b), key=_rank)
            if best.status is not ReadStatus.NO_CARD:
                break  # an index was found at this size; a wider crop only adds clutter
        return best

    def inspect_board(self, frame: Image, whole_frame: bool = False,
                      ) -> list[tuple[Quad, IndexRead]]:
        """Every card found on a board frame with the full verdict on it.

        With ``whole_frame``, a frame where no card is found is read as one tightly cropped
        card (photos and scans of single cards); nothing is returned if that shows no index.
        """
        found = [(q, self.read_card(warp_card(frame, q))) for q in find_cards(frame)]
        if not found and whole_frame:
            q = whole_frame_quad(frame)
            if q is not None:
                r = self.read_card(warp_card(frame, q))
                if r.card is not None:
                    found.append((q, r))
        return found

    def read_board(self, frame: Image, frame_time: float = 0.0,
                   whole_frame: bool = False) -> list[CardRead]:
        """Find and read every card on one board frame; one read per card found (see
        :meth:`inspect_board` for ``whole_frame``)."""
        return [CardRead(r.card, r.confidence, r.status, q, frame_time)
                for q, r in self.inspect_board(frame, whole_frame)]


def _top2(vecs: npt.NDArray[np.float32], ids: npt.NDArray[np.intp],
          starts: npt.NDArray[np.intp], v: npt.NDArray[np.float32],
          allowed: npt.NDArray[np.bool_] | None) -> tuple[int, float, float, float]:
    """Best class, its score, its margin over the runner-up class, and the separation: that
    margin divided by how far apart the two winning exemplars are (``1 - e1.e2``), i.e.
    where the glyph lies between them along the line that tells them apart (1: exactly the
    winner; 0: halfway)."""
    scores = vecs @ v
    ends = [*starts[1:].tolist(), len(scores)]
    best: list[tuple[float, int, int]] = []
    for a, b in zip(starts.tolist(), ends, strict=True):
        cls = int(ids[a])
        if allowed is not None and not allowed[cls]:
            continue
        k = a + int(np.argmax(scores[a:b]))
        best.append((float(scores[k]), k, cls))
    best.sort(reverse=True)
    s1, k1, c1 = best[0]
    if len(best) < 2:
        return c1, s1, 2.0, 2.0
    s2, k2, _ = best[1]
    gap = max(1.0 - float(vecs[k1] @ vecs[k2]), 1e-3)
    return c1, s1, s1 - s2, (s1 - s2) / gap


def _rank(r: IndexRead) -> tuple[int, float]:
    return _PRIORITY[r.status], r.confidence


def _better(a: IndexRead, b: IndexRead) -> bool:
    return _rank(a) > _rank(b)
