"""Scores of one index read against a profile's exemplars (numpy only, no state).

:func:`top2` finds the best class of glyph and how clearly it wins; :func:`behind` how far
one class lies behind the best; :func:`lean` the tilt an index's layout shows. Used by
:class:`~tablectl.vision.recognise.Recogniser`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


def top2(vecs: npt.NDArray[np.float32], ids: npt.NDArray[np.intp],
         starts: npt.NDArray[np.intp], v: npt.NDArray[np.float32],
         allowed: npt.NDArray[np.bool_] | None, *,
         scores: npt.NDArray[np.float32] | None = None) -> tuple[int, float, float, float]:
    """Best class, its score, its margin over the runner-up class, and the separation: that
    margin divided by how far apart the two winning exemplars are (``1 - e1.e2``), i.e.
    where the glyph lies between them along the line that tells them apart (1: exactly the
    winner; 0: halfway). ``scores`` is ``vecs @ v`` where the caller has it already."""
    groups = Groups.of(vecs, ids, starts)
    if scores is None:
        scores = vecs @ v
    keep = None if allowed is None else tuple(bool(a) for a in allowed)
    return groups.top2(scores, groups.best(scores), keep)


@dataclass(frozen=True, slots=True, eq=False)
class Groups:
    """Exemplars sorted by class (``vecs``; class ``ids[k]`` in rows ``rows[k]``, which
    start at ``starts``), the bounds as Python ints, made once per profile: :meth:`top2`
    ranks the dozen classes of one read in Python, where numpy's ``argsort`` and fancy
    indexing of arrays this small cost more than the ranking itself (docs/camera.md §6,
    "Cost: a look's small work")."""

    vecs: npt.NDArray[np.float32]
    starts: npt.NDArray[np.intp]
    ids: tuple[int, ...]
    rows: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, vecs: npt.NDArray[np.float32], ids: npt.NDArray[np.intp],
           starts: npt.NDArray[np.intp]) -> Groups:
        """The groups of ``vecs`` whose class ``ids`` start at rows ``starts``."""
        bounds = [*starts.tolist(), len(vecs)]
        return cls(vecs, starts, tuple(ids[starts].tolist()),
                   tuple(itertools.pairwise(bounds)))

    def best(self, scores: npt.NDArray[np.float32]) -> list[float]:
        """Each class's best score (``scores`` of every exemplar), class by class."""
        best: list[float] = np.maximum.reduceat(scores, self.starts).tolist()
        return best

    def top2(self, scores: npt.NDArray[np.float32], best: list[float],
             allowed: tuple[bool, ...] | None) -> tuple[int, float, float, float]:
        """:func:`top2` from the exemplars' ``scores`` and each class's ``best`` of them
        (:meth:`best`), the classes not ``allowed`` (by class id) left out: the same
        ranking as a stable ``argsort`` of the negated scores (ties: the earlier class)."""
        kept = (range(len(best)) if allowed is None
                else [k for k, c in enumerate(self.ids) if allowed[c]])
        top = sorted(kept, key=best.__getitem__, reverse=True)[:2]

        def winner(k: int) -> int:  # the exemplar that gives class ``k`` its score
            a, b = self.rows[k]
            return a + int(scores[a:b].argmax())  # ``np.argmax``, without its wrapper

        s1, k1, c1 = best[top[0]], winner(top[0]), self.ids[top[0]]
        if len(top) < 2:
            return c1, s1, 2.0, 2.0
        s2, k2 = best[top[1]], winner(top[1])
        gap = max(1.0 - float(self.vecs[k1] @ self.vecs[k2]), 1e-3)
        return c1, s1, s1 - s2, (s1 - s2) / gap


def behind(scores: npt.NDArray[np.float32], ids: npt.NDArray[np.intp],
           starts: npt.NDArray[np.intp], want: int,
           allowed: npt.NDArray[np.bool_] | None = None) -> tuple[float, float] | None:
    """Class ``want``'s score (its best exemplar's, ``scores`` as in :func:`top2`) and how
    far it lies behind the best other class (negative: it wins); ``None`` where ``want``
    has no exemplar or is not ``allowed``."""
    best = np.maximum.reduceat(scores, starts)
    classes = ids[starts]
    hit = np.flatnonzero(classes == want)
    if not hit.size or (allowed is not None and not allowed[want]):
        return None
    keep = classes != want
    if allowed is not None:
        keep &= allowed[classes]
    mine = float(best[hit[0]])
    rival = float(best[keep].max()) if keep.any() else -1.0
    return mine, rival - mine


def lean(layout: npt.NDArray[np.float32]) -> float:
    """The angle of the line from the rank's centre to the suit's from straight down (see
    :class:`~tablectl.vision.glyphs.IndexGlyphs` for the layout's columns)."""
    down = 0.5 + float(layout[2]) + float(layout[0]) / 2
    return float(np.arctan2(float(layout[3]), down))
