"""Scores of one index read against a profile's exemplars (numpy only, no state).

:func:`top2` finds the best class of glyph and how clearly it wins; :func:`behind` how far
one class lies behind the best; :func:`lean` the tilt an index's layout shows. Used by
:class:`~tablectl.vision.recognise.Recogniser`.
"""

from __future__ import annotations

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
    if scores is None:
        scores = vecs @ v
    best = np.maximum.reduceat(scores, starts)
    classes = ids[starts]
    if allowed is not None:
        keep = allowed[classes]
        best, kept = best[keep], np.flatnonzero(keep)
    else:
        kept = np.arange(len(starts))
    top = np.argsort(-best, kind="stable")[:2]

    def winner(i: int) -> int:  # the exemplar that gives class ``i`` its score
        k = int(kept[i])
        a = int(starts[k])
        b = int(starts[k + 1]) if k + 1 < len(starts) else len(scores)
        return a + int(np.argmax(scores[a:b]))

    s1, k1, c1 = float(best[top[0]]), winner(int(top[0])), int(classes[kept[top[0]]])
    if len(top) < 2:
        return c1, s1, 2.0, 2.0
    s2, k2 = float(best[top[1]]), winner(int(top[1]))
    gap = max(1.0 - float(vecs[k1] @ vecs[k2]), 1e-3)
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
