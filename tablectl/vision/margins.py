"""What enrolment measures of its own deck: how close each card's index comes to another's.

Leave-one-out over the enrolled index captures (one corner of one photo each): each
capture's rank glyph is compared with the captures of every other rank, and with its own
rank's other captures (other suits, the other corner). A card's **rival** is the card of
its suit whose rank glyph comes closest (``J``/``Q``, ``9``/``10``, ``6``/``8`` on many
decks); ``closeness`` is that correlation. Rank glyphs are what a wrong card accepted at
0.99 got wrong; suits keep the glyph gates of :class:`~tablectl.vision.model.Thresholds`.

From these each card gets its **index-only gate** (:class:`IndexGate`): where a read has only
the index to go on (a card found by its index corner, a face covered by another card, a
shoe's index window), it is accepted only if its rank glyph beats the best other rank by
``margin``: half the distance between the card's rank and its rival's, and never less than
the deck's own capture-to-capture spread (:data:`SPREAD_PERCENTILE`). A pair closer than
twice the median noise cannot be told apart by the index alone: such a card is accepted only
when its face agrees (``margin`` is ``None``).

Only numpy here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from tablectl.domain.cards import Card
from tablectl.vision.profile_check import unit_number

MIN_MARGIN: Final = 0.03
"""The least index-only margin any card gets."""
SPREAD_PERCENTILE: Final = 90
"""A deck whose own captures vary a lot (some badly cut, blurred or lit) gets index-only
margins no smaller than this percentile of its capture-to-capture gaps: a read of such a
deck may be that bad too."""
NOISE_FLOOR: Final = 0.02
"""The capture-to-capture noise assumed where the deck's own cannot be measured (every card
enrolled from a single capture)."""


@dataclass(frozen=True, slots=True)
class IndexGate:
    """One card's index-only gate, measured at enrolment.

    Attributes:
        rival: the card whose enrolled index comes closest (``None``: the only card).
        closeness: whole-index correlation with the rival's nearest capture.
        margin: how much better a read's index must match this card than any other to be
            accepted on its index alone; ``None``: never (the rival is too close to tell
            apart by the index; the face must agree).
    """

    rival: Card | None
    closeness: float
    margin: float | None

    def as_json(self) -> dict[str, object]:
        """For ``profile.json``."""
        return {"rival": None if self.rival is None else str(self.rival),
                "closeness": round(self.closeness, 4),
                "margin": None if self.margin is None else round(self.margin, 4)}

    @classmethod
    def from_json(cls, value: Mapping[str, object]) -> IndexGate:
        """Read back :meth:`as_json` (raises ``ValueError``, ``TypeError`` or ``KeyError``)."""
        rival = value["rival"]
        margin = value["margin"]
        close = value["closeness"]
        return cls(None if rival is None else Card.parse(str(rival)),
                   unit_number(close, "gates: closeness", -1.0, 1.0),
                   None if margin is None else unit_number(margin, "gates: margin"))


@dataclass(frozen=True, slots=True)
class DeckMargins:
    """The leave-one-out measure of a deck's indices.

    Attributes:
        gates: each enrolled card's :class:`IndexGate`.
        noise: the deck's capture-to-capture noise: the median, over the captures, of
            ``1 -`` the correlation of a capture's rank glyph with the nearest other capture
            of its rank.
    """

    gates: dict[Card, IndexGate]
    noise: float


def closest_pairs(gates: Mapping[Card, IndexGate], n: int = 8) -> list[tuple[Card, IndexGate]]:
    """The ``n`` cards whose rival comes closest (each pair once), closest first."""
    seen: set[frozenset[Card]] = set()
    out = []
    for card, gate in sorted(gates.items(), key=lambda t: (-t[1].closeness, t[0].index)):
        if gate.rival is None:
            continue
        pair = frozenset((card, gate.rival))
        if pair in seen:
            continue
        seen.add(pair)
        out.append((card, gate))
        if len(out) >= n:
            break
    return out


def measure(cards: Sequence[Card], rank_vecs: npt.NDArray[np.float32],
            captures: Sequence[int], derived: Sequence[bool]) -> DeckMargins:
    """Leave-one-out over the enrolled captures (rows of ``rank_vecs``; ``captures``
    numbers the crop each row came from, ``derived`` marks rotated and blurred copies: they
    are compared with, as a read is, but not left out in turn: only what the camera saw).

    Each capture's rank glyph is compared with every other capture's: of another rank (how
    close the nearest wrong rank comes) and of its own rank, from another card or corner (the
    deck's noise). Medians, not extremes: one badly cut capture must not set a card's gate.
    """
    keep = [i for i in range(len(cards)) if not derived[i]]
    ranks = np.array([c.rank.value for c in cards])
    caps = np.array(captures)
    der = np.array(derived, bool)
    sims = rank_vecs[keep] @ rank_vecs.T
    own_gaps: list[float] = []
    per_card: dict[Card, list[tuple[float, Card]]] = {}
    for k, i in enumerate(keep):
        other = ranks != ranks[i]  # derived copies too: a read is compared with them all
        if not other.any():
            continue
        j = int(np.flatnonzero(other)[np.argmax(sims[k, other])])
        per_card.setdefault(cards[i], []).append(
            (float(sims[k, j]), Card(cards[j].rank, cards[i].suit)))
        same = (ranks == ranks[i]) & (caps != caps[i]) & ~der
        if same.any():
            own_gaps.append(1.0 - float(sims[k, same].max()))
    noise = float(np.median(own_gaps)) if own_gaps else NOISE_FLOOR
    noise = max(noise, 0.005)
    spread = float(np.percentile(own_gaps, SPREAD_PERCENTILE)) if own_gaps else NOISE_FLOOR
    gates = {}
    for card, seen in per_card.items():
        seen.sort()
        close, rival = seen[len(seen) // 2]
        distance = 1.0 - close
        margin: float | None = max(MIN_MARGIN, spread, distance / 2)
        if distance < 2 * max(noise, MIN_MARGIN):
            margin = None
        gates[card] = IndexGate(rival, close, margin)
    return DeckMargins(gates, noise)
