"""What several enrolment photos of one card tell: the deck's own photo-to-photo spread.

One photo per card tells enrolment how far two cards' indices lie apart
(:mod:`tablectl.vision.margins`) but not how far two photos of the *same* card do: blur,
tilt and light change an index's width and stroke weight from photo to photo, and a print
check set for sharp photos (``Thresholds.layout`` 0.10, ``Thresholds.index`` 0.93) refuses
a blurred photo of the right card. With two or more photos of a card, enrolment measures
that spread itself, leave-one-out over the card's photos:

* :func:`kept` chooses the exemplars: the captures of each card's first photo only (a
  later photo's glyphs, made exemplars, let wrong cards through: a blurred club that a
  blurred spade matched, another design's four of spades matched as the club).
* :func:`print_gates` sets each such card's print gates from how far its later photos lie
  from its first (the layout distance and whole-index correlation of each later photo's
  captures against the first photo's exemplars, the worst of them), loosened from the
  deck's general gates only so far that the nearest *other* card would still fail them:
  the layout gate stays under half the layout distance to the nearest card of another
  rank, the index gate over half way from the nearest other card's whole-index
  correlation to 1. A card with one photo keeps the general gates, as before. A read that
  passes only its card's own gates is accepted only when its face agrees.
* :func:`close_suits` names the suits whose glyphs the photos cannot tell apart (within
  twice the deck's own suit noise); a read of one needs its face to fit it at least as
  well as the same rank of another suit, and is never accepted on its index alone.

Only numpy here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from tablectl.domain.cards import Card
from tablectl.domain.strictjson import brief
from tablectl.vision.profile_check import unit_number

LAYOUT_SLACK: Final = 0.02
"""Added to the worst layout distance a card's photos showed among themselves (as
``profile.calibrate`` adds to the deck's 95th percentile)."""
INDEX_SLACK: Final = 0.03
"""Taken off the weakest whole-index correlation a card's photos showed among themselves
(as ``profile.calibrate`` takes off the glyph gate)."""

Rows = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class PrintGate:
    """One card's print gates measured from its own photos (``None``: the deck's)."""

    layout: float
    index: float
    photos: int
    """How many photos of the card measured them."""

    def as_json(self) -> dict[str, object]:
        return {"layout": round(self.layout, 4), "index": round(self.index, 4),
                "photos": self.photos}

    @classmethod
    def from_json(cls, value: object) -> PrintGate:
        """Read back :meth:`as_json` (raises ``ValueError`` or ``TypeError``)."""
        if not isinstance(value, dict):
            raise ValueError(f"print gate: expected an object, got {brief(value)}")
        photos = value.get("photos")
        if isinstance(photos, bool) or not isinstance(photos, int) or photos < 1:
            raise ValueError(f"print gate: photos: expected a count, got {brief(photos)}")
        return cls(unit_number(value.get("layout"), "print gate: layout"),
                   unit_number(value.get("index"), "print gate: index", -1.0, 1.0), photos)


class Captures:
    """The exemplars' card, photo, capture and derived flags and their vectors as arrays."""

    def __init__(self, cards: Sequence[Card], *, photos: Sequence[int],
                 captures: Sequence[int], derived: Sequence[bool], rank: Rows, suit: Rows,
                 index: Rows, layout: Rows) -> None:
        self.cards = list(cards)
        self.key = np.array([c.index for c in cards])
        self.rank_id = np.array([c.rank.value for c in cards])
        self.suit_id = np.array([c.suit.value for c in cards])
        self.photo = np.array(photos)
        self.capture = np.array(captures)
        self.derived = np.array(derived, bool)
        self.rank, self.suit, self.index, self.layout = rank, suit, index, layout

    def first_photos(self) -> npt.NDArray[np.bool_]:
        """Rows from each card's first photo."""
        first: dict[int, int] = {}
        for k, p in zip(self.key.tolist(), self.photo.tolist(), strict=True):
            first[k] = min(first.get(k, p), p)
        return np.array([first[k] == p for k, p in
                         zip(self.key.tolist(), self.photo.tolist(), strict=True)], bool)


def kept(c: Captures) -> npt.NDArray[np.bool_]:
    """Which rows to keep as glyph exemplars: those of each card's first photo. A later
    photo of a card is not made an exemplar: its captures measure the card's spread
    (:func:`print_gates`) and its face is enrolled, but its glyphs are not what a read is
    matched against. Every rule tried for adding them (docs/camera.md §6, "Enrolment from
    several photos per card": a later glyph kept where it comes no nearer another class,
    or another card, than the first photos do) let a wrong card through on some deck."""
    return c.first_photos()


def print_gates(c: Captures, keep: npt.NDArray[np.bool_], layout: float, index: float,
                ) -> dict[Card, PrintGate]:
    """Each card enrolled from two or more photos: its print gates, leave-one-out over its
    photos (``keep``: the exemplar rows, :func:`kept`; ``layout`` and ``index``: the
    deck's general gates, which a gate is never made stricter than)."""
    gates: dict[Card, PrintGate] = {}
    measured = ~c.derived
    for key in sorted(set(c.key.tolist())):
        card = c.cards[int(np.flatnonzero(c.key == key)[0])]
        mine = c.key == key
        photos = sorted(set(c.photo[mine & measured].tolist()))
        if len(photos) < 2:
            continue
        own_lay = 0.0
        own_idx = 1.0
        for i in np.flatnonzero(mine & measured):
            rest = mine & keep & (c.photo != c.photo[i])
            if not rest.any():
                continue
            own_lay = max(own_lay, float(np.abs(c.layout[rest] - c.layout[i]).max(axis=1).min()))
            own_idx = min(own_idx, float((c.index[rest] @ c.index[i]).max()))
        mine_kept = mine & keep
        if not mine_kept.any():
            continue
        other_rank = keep & (c.rank_id != c.rank_id[mine][0])
        other_card = keep & ~mine
        rival_lay = (float(np.abs(c.layout[mine_kept][:, None, :]
                                  - c.layout[other_rank][None, :, :]).max(axis=2).min())
                     if other_rank.any() else 2 * layout)
        rival_idx = (float((c.index[mine_kept] @ c.index[other_card].T).max())
                     if other_card.any() else index)
        lay_gate = max(layout, min(own_lay + LAYOUT_SLACK, rival_lay / 2))
        idx_gate = min(index, max(own_idx - INDEX_SLACK, (1.0 + rival_idx) / 2))
        gates[card] = PrintGate(round(min(lay_gate, 1.0), 4), round(idx_gate, 4), len(photos))
    return gates


def close_suits(c: Captures, keep: npt.NDArray[np.bool_]) -> frozenset[str]:
    """The suits whose glyphs this deck's photos cannot tell apart: leave-one-out over the
    kept captures, a suit whose nearest other suit's glyph comes (median over its captures)
    within twice the deck's own suit noise (the median gap from a capture's suit glyph to
    the nearest capture of its suit from another card or photo), and that other suit. A
    blurred deck's club and spade at a few pixels high: the face must then tell the suit
    (:mod:`tablectl.vision.evidence`)."""
    rows = np.flatnonzero(keep & ~c.derived)
    near: dict[str, list[tuple[float, str]]] = {}
    gaps: list[float] = []
    for i in rows:
        other = keep & (c.suit_id != c.suit_id[i])
        same = keep & ~c.derived & (c.suit_id == c.suit_id[i]) & (
            (c.key != c.key[i]) | (c.photo != c.photo[i]))
        if other.any():
            sims = c.suit[other] @ c.suit[i]
            j = int(np.argmax(sims))
            near.setdefault(str(c.suit_id[i]), []).append(
                (float(sims[j]), str(c.suit_id[other][j])))
        if same.any():
            gaps.append(1.0 - float((c.suit[same] @ c.suit[i]).max()))
    if not gaps:
        return frozenset()
    noise = float(np.median(gaps))
    out: set[str] = set()
    for suit, seen in near.items():
        seen.sort()
        close, rival = seen[len(seen) // 2]
        if 1.0 - close < 2 * noise:
            out |= {suit, rival}
    return frozenset(out)
