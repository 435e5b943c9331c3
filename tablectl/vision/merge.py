"""Where a card found by its index corner goes among a frame's reads
(:meth:`tablectl.vision.recognise.Recogniser._with_corners`), and what the corner search
leaves out: the cards accepted so far, with their edges and shadows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from tablectl.vision.edge import MOSTLY_IN
from tablectl.vision.indexread import IndexRead
from tablectl.vision.model import FaceStatus, Quad
from tablectl.vision.outline import fits, quad_area, within

CUT: Final = IndexRead(None, FaceStatus.OUT_OF_FRAME, 0.0)
_UNSURE: Final = (FaceStatus.NEEDS_CONFIRMATION, FaceStatus.NO_CARD)


def accepted_mask(shape: tuple[int, ...], found: Sequence[tuple[Quad, IndexRead]],
                  ) -> npt.NDArray[np.uint8]:
    """255 over every card accepted in ``found``, grown a little (its edge and shadow)."""
    mask = np.zeros(shape[:2], np.uint8)
    for q, r in found:
        if r.status is FaceStatus.ACCEPTED:
            pts = np.array(q)
            mid = pts.mean(axis=0)
            cv2.fillConvexPoly(mask, np.round(mid + (pts - mid) * 1.08).astype(np.int32), 255)
    return mask


def merge_corner_card(out: list[tuple[Quad, IndexRead]], q: Quad, r: IndexRead,
                      at: tuple[float, float], inside: float) -> None:
    """Put the accepted read ``r`` of the card placed at ``q`` from an index whose top lies
    ``at`` into ``out`` (``inside``: the share of ``q`` in the frame):

    * that card's own unsure read there: ``r`` replaces it; the outline stays if it fits;
    * an unsure outline there that fits ``q`` (this card, not several merged): its read;
    * an unsure outline of part of this card (a cable or shadow across it): replaced;
    * a card reported running out of the frame there: read after all if all but a sliver
      of ``q`` is in the frame (:data:`MOSTLY_IN`), else left;
    * otherwise added (``OUT_OF_FRAME`` if under 0.7 of it is in the frame)."""
    around = [i for i, (fq, _) in enumerate(out)
              if cv2.pointPolygonTest(np.array(fq, np.float32), at, False) >= 0]
    same = [i for i in around if out[i][1].card == r.card]
    if same:
        out[same[0]] = (out[same[0]][0] if fits(out[same[0]][0], q) else q, r)
        return
    unsure = [i for i in around if out[i][1].status in _UNSURE and fits(out[i][0], q)]
    if unsure:
        out[unsure[0]] = (out[unsure[0]][0], r)
        return
    part = [i for i in around if out[i][1].status in _UNSURE and within(out[i][0], q)]
    if part:
        out[part[0]] = (q, r)
        return
    cut = [i for i in around if out[i][1].status is FaceStatus.OUT_OF_FRAME
           and quad_area(out[i][0]) <= 1.5 * quad_area(q)]
    if cut:
        if inside >= MOSTLY_IN:
            out[cut[0]] = (q, r)
        return
    out.append((q, CUT if inside < 0.7 else r))
