"""The second kind of evidence: the card's face away from its index corners.

A card accepted on its index alone rests on a few strokes of two glyphs; a jack read as the
queen of its suit, or a nine as a ten, can correlate 0.99 there. The rest of the face tells
those apart at a glance: the court picture, the count and layout of the pips. So at
enrolment the warped card's face is kept as one small vector per photo, and a read is
compared with the enrolled faces of every card.

The face vector: the canonical warped card (``recognise.CARD_W`` x ``CARD_H``) in grey,
relative to its own paper level, averaged down to :data:`GRID` cells (and blurred, so a
quad a few pixels off costs little), its four corners masked out (:data:`CORNER_MASK`: the
indices, in all four corners on some decks) and a thin border dropped (the card's edge and
whatever table a loose quad took in), then made zero-mean and unit-norm over the cells
kept: correlation is one dot product. The mask is symmetric under a half turn, so the
vector of the card lying the other way up is the same vector reversed.

Only numpy and OpenCV; no state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.domain.cards import Card
from tablectl.vision.levels import percentile
from tablectl.vision.model import Image

Vec = npt.NDArray[np.float32]

GRID: Final = (20, 28)
"""Face cells across and down (one cell is 10 canonical card px)."""
CORNER_MASK: Final = (0.24, 0.26)
"""Each corner's masked rectangle as fractions of the card's width and height."""
BORDER: Final = 1
"""Cells dropped along each side."""
FACE_ACCEPT: Final = 0.60
"""Least correlation of the face with an enrolled face of the card read."""
SHIFTS: Final = ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))
"""Cell shifts tried when comparing a read with the enrolled faces (a quad that is off by
up to a cell, 5% of the card, still lines up)."""


def _mask() -> npt.NDArray[np.bool_]:
    gw, gh = GRID
    keep = np.zeros((gh, gw), bool)
    keep[BORDER:gh - BORDER, BORDER:gw - BORDER] = True
    cw, ch = round(gw * CORNER_MASK[0]), round(gh * CORNER_MASK[1])
    for ys in (slice(0, ch), slice(gh - ch, gh)):
        for xs in (slice(0, cw), slice(gw - cw, gw)):
            keep[ys, xs] = False
    return keep


KEEP: Final = _mask()


def face_cells(card: Image) -> npt.NDArray[np.float32]:
    """The warped card's face as ``GRID`` cells of relative darkness (0 paper, 1 black),
    before masking: ``(rows, cols)``. Averaged down to twice the grid first (cheap), the
    paper level and blur taken there."""
    grey = card if card.ndim == 2 else cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    gw, gh = GRID
    mid8 = cv2.resize(grey, (2 * gw, 2 * gh), interpolation=cv2.INTER_AREA)
    mid = mid8.astype(np.float32)
    level = percentile(mid8, 90)
    paper = (float(np.percentile(mid, 90)) if level is None else level) + 1.0
    ink = 1.0 - np.minimum(mid / paper, 1.0)  # ``np.clip(.., 0, 1)``: no value is below +0
    ink = cv2.GaussianBlur(ink, (0, 0), 0.8)
    small = cv2.resize(ink, GRID, interpolation=cv2.INTER_AREA)
    return np.asarray(small, np.float32)


def _normed(cells: npt.NDArray[np.float32]) -> Vec:
    v = cells[KEEP].astype(np.float32)
    v = v - float(v.mean())
    n = float(np.linalg.norm(v))
    return (v / n).astype(np.float32) if n > 1e-6 else np.zeros_like(v)


def face_vector(card: Image) -> Vec:
    """One warped canonical card's face vector (see the module docstring)."""
    return _normed(face_cells(card))


def face_views(card: Image) -> npt.NDArray[np.float32]:
    """The face vectors of ``card`` at every shift of :data:`SHIFTS` and both ways up:
    ``(2 * len(SHIFTS), n)``; row 0 is :func:`face_vector` itself."""
    picked = face_cells(card).ravel()[_SHIFTED]
    # _normed of each shifted grid, the cells already picked out, all rows at once: each
    # row's sum is the pairwise sum numpy takes of the row alone (a contiguous last axis),
    # divided in float64 and rounded to float32 as ``picked.mean()`` is; each row's norm
    # its own dot product (``np.linalg.norm``), the division float32 by float32
    n_cells = picked.shape[1]
    means = (np.add.reduce(picked, axis=1).astype(np.float64) / n_cells).astype(np.float32)
    views = picked - means[:, None]
    for row in views:
        n = np.sqrt(row.dot(row))
        if n > 1e-6:
            np.divide(row, n, out=row)
        else:
            row[:] = 0.0
    out: npt.NDArray[np.float32] = np.concatenate([views, views[:, ::-1]])
    return out


def _shifted() -> npt.NDArray[np.intp]:
    """For each shift of :data:`SHIFTS`, which of the flattened grid's cells
    ``np.roll(cells, (dy, dx), axis=(0, 1))[KEEP]`` picks (computed once, not per read)."""
    gw, gh = GRID
    cells = np.arange(gw * gh).reshape(gh, gw)
    return np.stack([np.roll(cells, (dy, dx), axis=(0, 1))[KEEP] for dx, dy in SHIFTS])


_SHIFTED: Final = _shifted()


FACE_SHARE: Final = 0.3
"""A card's face gate is this share of how far its face lies from the nearest enrolled face
of another rank (``1 -`` their correlation, measured leave-one-out over the enrolled
faces): a read of the right card beats that rival by about the whole distance, a read of
the rival loses by it."""
FACE_GATE: Final = (0.05, 0.08)
"""The least and the most face margin any card's gate asks (with 0.03 as the least, a
club of another design read as the enrolled deck's club of the same rank passed at 0.047
on ``many_designs``)."""
FACE_TOO_CLOSE: Final = 0.06
"""A card whose face lies closer than this to another rank's cannot be told apart by its
face: its face never accepts (the index-only gate decides)."""
SUIT_SLACK: Final = 0.10
"""A face that fits an enrolled card of the same rank and another suit better by more than
this disagrees with the suit read (at the face's coarse grid suits differ little: on
``webcam_deck`` right reads fitted another suit better by up to 0.056 in 99 of 100, 0.128
at most)."""


@dataclass(frozen=True, slots=True)
class FaceVerdict:
    """How a warped card's face compares with the enrolled faces.

    Attributes:
        card: the card the index read.
        score: best correlation with an enrolled face of that card (``-1`` if none).
        rival: the best-matching enrolled card of another rank, and ``rival_score`` its
            correlation (the face's own answer when it disagrees).
    """

    card: Card
    score: float
    rival: Card | None
    rival_score: float
    gate: float | None = None
    """The margin this card's face must reach (measured at enrolment); ``None``: its face
    is too close to another rank's to decide."""
    suit_rival: Card | None = None
    """The enrolled card of the same rank and another suit the face fits best, and
    ``suit_score`` its correlation."""
    suit_score: float = -1.0

    @property
    def agrees(self) -> bool:
        """Whether the face supports the card read: good enough a fit, better than every
        other rank by the card's gate, and not clearly another suit's."""
        return (self.gate is not None and self.score >= FACE_ACCEPT
                and self.margin >= self.gate
                and self.suit_score <= self.score + SUIT_SLACK)

    @property
    def margin(self) -> float:
        """``score - rival_score``: how much better the face fits the index's card than any
        card of another rank."""
        return self.score - self.rival_score


class FaceBook:
    """The enrolled faces of one deck, for comparing a read with.

    Args:
        cards: the card of each row of ``vecs``.
        vecs: one :func:`face_vector` per enrolled photo.
    """

    def __init__(self, cards: Sequence[Card], vecs: npt.NDArray[np.float32]) -> None:
        self.cards = tuple(cards)
        self.vecs = vecs.astype(np.float32)
        self._index = {c: i for i, c in enumerate(sorted(set(self.cards),
                                                         key=lambda c: c.index))}
        self._row_card = np.array([self._index[c] for c in self.cards], np.intp)
        self._by_card = np.argsort(self._row_card, kind="stable")
        grouped = self._row_card[self._by_card]
        self._card_starts = np.flatnonzero(np.diff(grouped, prepend=-1) != 0)
        self._by_index = sorted(self._index, key=self._index.__getitem__)
        self._rivals: dict[Card, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        self.closeness, self.rivals = self._leave_one_out()

    def _leave_one_out(self) -> tuple[dict[Card, float], dict[Card, Card]]:
        """For each enrolled card, how closely its nearest enrolled face of another rank
        correlates with its own (either way up; the median over its photos), and that
        card: what the deck's faces can tell apart."""
        v = self.vecs
        sims = np.maximum(v @ v.T, v @ v[:, ::-1].T)
        seen: dict[Card, list[tuple[float, Card]]] = {}
        for i, c in enumerate(self.cards):
            other = [j for j, d in enumerate(self.cards) if d.rank is not c.rank]
            if not other:
                continue
            j = max(other, key=lambda k: float(sims[i, k]))
            seen.setdefault(c, []).append((float(sims[i, j]), self.cards[j]))
        close: dict[Card, float] = {}
        rivals: dict[Card, Card] = {}
        for c, rows in seen.items():
            rows.sort(key=lambda t: t[0])
            close[c], rivals[c] = rows[len(rows) // 2]
        return close, rivals

    def gate(self, card: Card) -> float | None:
        """The face margin a read of ``card`` must reach (:data:`FACE_SHARE` of its
        distance to the nearest other rank, within :data:`FACE_GATE`), ``None`` where the
        face is too close to another rank's (:data:`FACE_TOO_CLOSE`) or unmeasured."""
        close = self.closeness.get(card)
        if close is None or 1.0 - close < FACE_TOO_CLOSE:
            return None
        lo, hi = FACE_GATE
        return min(hi, max(lo, FACE_SHARE * (1.0 - close)))

    def closest(self, n: int = 8) -> list[tuple[Card, Card, float]]:
        """The ``n`` closest pairs of enrolled faces of different ranks (each pair once),
        closest first: ``(card, rival, correlation)``."""
        out: list[tuple[Card, Card, float]] = []
        seen: set[frozenset[Card]] = set()
        for c, close in sorted(self.closeness.items(), key=lambda t: (-t[1], t[0].index)):
            pair = frozenset((c, self.rivals[c]))
            if pair in seen:
                continue
            seen.add(pair)
            out.append((c, self.rivals[c], close))
            if len(out) >= n:
                break
        return out

    def has(self, card: Card) -> bool:
        """Whether ``card`` has an enrolled face."""
        return card in self._index

    def judge(self, card: Card, card_img: Image) -> FaceVerdict:
        """Compare the warped canonical ``card_img`` with every enrolled face."""
        views = face_views(card_img)
        scores = np.maximum.reduce(self.vecs @ views.T, axis=1)  # ``.max(axis=1)``
        # each card's best photo: the rows grouped by card once (as ``np.maximum.at`` into
        # a floor of -1 gives it)
        best = np.maximum(np.maximum.reduceat(scores[self._by_card], self._card_starts),
                          np.float32(-1.0)).tolist()
        own = float(best[self._index[card]]) if card in self._index else -1.0
        others, kin = self._rivals_of(card)
        rival, rival_score = self._first_best(others, best)
        suit_rival, suit_score = self._first_best(kin, best)
        return FaceVerdict(card, own, rival, rival_score, self.gate(card), suit_rival,
                           suit_score)

    def _rivals_of(self, card: Card) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Where in :meth:`judge`'s ``best`` (cards in index order) the cards of another
        rank than ``card`` lie, and the other cards of its rank: found once per card."""
        found = self._rivals.get(card)
        if found is None:
            found = (tuple(i for i, c in enumerate(self._by_index) if c.rank is not card.rank),
                     tuple(i for i, c in enumerate(self._by_index)
                           if c.rank is card.rank and c != card))
            self._rivals[card] = found
        return found

    def _first_best(self, at: tuple[int, ...], best: list[float]) -> tuple[Card | None, float]:
        """The card of ``best``'s positions ``at`` that scores highest above -1, the first
        of equal ones, and its score (``None, -1.0`` where none is above -1): what a loop
        over them keeping each score strictly above the best so far picks (``max`` from
        -1 keeps a score only where it is greater, so the first equal to the maximum is
        where the loop took it)."""
        scores = [best[i] for i in at]
        top = max([-1.0, *scores])
        if not top > -1.0:
            return None, -1.0
        return self._by_index[at[scores.index(top)]], top
