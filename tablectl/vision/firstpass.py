"""A board frame's first pass: the cards found and each outline read once.

:meth:`~tablectl.vision.recognise.Recogniser.first_pass` makes it;
:meth:`~tablectl.vision.recognise.Recogniser.further_looks` ends the frame's read from it,
as :meth:`~tablectl.vision.recognise.Recogniser.inspect_board` would; a live camera's reads
(:mod:`tablectl.vision.liveboard`) spread those further looks over the next frames.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablectl.vision.framememo import Kept
from tablectl.vision.indexread import IndexRead
from tablectl.vision.locate import Found
from tablectl.vision.model import Image, Quad


@dataclass(frozen=True, slots=True)
class FirstPass:
    """One frame's first pass.

    Attributes:
        frame: the frame as read (8-bit BGR); it must not be changed while the pass is
            used (the further looks read it).
        located: every card outline the finder found.
        first: for each outline read (cut ones only where card-like), its quad and read.
        settled: what the frame reports where the first reads settle it (every outline
            accepted, nothing left for the further looks to find), else ``None``.
        reported: what the frame reports of its first reads alone (the settled result
            where it is settled; else the first reads but for parts of cards accepted and
            quads that show no index and are not card-like).
        memo: the whole-frame images made for the frame (a :class:`FrameMemo`'s
            :meth:`~tablectl.vision.framememo.FrameMemo.handed_over`).
    """

    frame: Image
    located: tuple[Found, ...]
    first: tuple[tuple[Found, tuple[Quad, IndexRead]], ...]
    settled: tuple[tuple[Quad, IndexRead], ...] | None
    reported: tuple[tuple[Quad, IndexRead], ...]
    memo: Kept


def quad_centre(q: Quad) -> tuple[float, float]:
    """A quad's centre (px)."""
    return sum(p[0] for p in q) / 4, sum(p[1] for p in q) / 4
