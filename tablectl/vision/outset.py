"""A refused card's quad widened about its centre, to read an index the outline cut off.

On a hand-held photo the card is blurred and its rounded corners fade into the hand or the
wall behind it; the outline found (and snapped onto the card's edges,
:mod:`tablectl.vision.snap`) may then lie a little inside the card, and the index, printed
close to the corner, falls partly outside the warped corner crop: the card is refused,
though its pips read as a card (:meth:`~tablectl.vision.evidence.Evidence.pips_card`).
:func:`read_outset` reads such a card once more from its quad widened by :data:`OUTSET`
about its centre, or, where the quad takes in more than the card at one side, cut to
the card its pips place (:func:`trimmed`). :func:`read_covered` reads a blurred card
whose quad stops short of its lower end (the hand holding it covers that end, or the
outline stops above its lower pips: too few pips for any layout) from its quad grown
past that end to where the pips' rows, all in view then, place it (:func:`lowered`,
:func:`along`), or with the corner the fingers pulled in set where the other three place
it (:func:`completed`). Each quad is only a hypothesis: its read replaces the quad's only where
the full gate accepts it (docs/camera.md §6).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
import numpy.typing as npt

from tablectl.domain.cards import Card
from tablectl.vision.grow import BRIDGE_ASPECT, CARD_ASPECT
from tablectl.vision.indexread import IndexRead
from tablectl.vision.model import FaceStatus, Image, Quad
from tablectl.vision.pips import pip_columns

OUTSET: Final = 1.06
"""How much wider the quad is read again: each corner moved away from the quad's centre
to this multiple of its distance (6%: a corner crop's index margin on a hand-held card,
docs/camera.md §6)."""


COLUMN: Final = 0.30
"""Where a two-column pip layout's columns lie across the card (fraction of its width
from either side: :data:`~tablectl.vision.pips.LAYOUTS`)."""
TRIM_LEAST: Final = 0.04
"""How far (fraction of the quad's width) the card its pips place must lie off the quad's
sides for the quad to be read again cut to it; likewise (of its height) how far past
its end the card's covered end must lie for the quad to be read grown to it."""
SKEW_LEAST: Final = 0.15
"""How far (fraction of the quad's shorter side) one corner must lie from where the other
three place it (a parallelogram: a card's outline seen without much slant) for the quad
to be read with that corner set there (:func:`completed`)."""
REFIT_MOST: Final = 0.15
"""How far (fraction of the grown quad's height) the pips' rows may place the card's end
from where a card's shape first put it (:func:`read_covered`): they correct that guess,
they do not replace it."""


def outset(quad: Quad, factor: float = OUTSET) -> Quad:
    """``quad`` scaled by ``factor`` about the mean of its corners (corner order kept).

    >>> outset(((0.0, 0.0), (10.0, 0.0), (10.0, 20.0), (0.0, 20.0)), 1.1)
    ((-0.5, -1.0), (10.5, -1.0), (10.5, 21.0), (-0.5, 21.0))
    """
    pts = np.array(quad, np.float64)
    mid = pts.mean(axis=0)
    out = mid + factor * (pts - mid)
    return tuple((float(x), float(y)) for x, y in out)  # type: ignore[return-value]


def inside(quad: Quad, width: int, height: int) -> bool:
    """Every corner of ``quad`` lies within a ``width`` x ``height`` frame (px)."""
    return all(0.0 <= x <= width - 1 and 0.0 <= y <= height - 1 for x, y in quad)


def read_outset(quad: Quad, r: IndexRead, frame_size: tuple[int, int], *,
                warp: Callable[[Quad], Image],
                pips_card: Callable[[Image], Card | None],
                read: Callable[[Image], IndexRead],
                columns: Callable[[Image], tuple[float, float] | None] = pip_columns,
                ) -> tuple[Quad, IndexRead]:
    """``quad`` and its read ``r``; where ``r`` is refused (unsure, or no index read) and
    the pips of the card warped from ``quad`` read as a card (``pips_card``), the quad
    widened by :data:`OUTSET` and its read instead if that is accepted (``read`` applies
    the full gate); else, where the pips lie in two columns off the quad's middle, the
    quad cut to the card they place (:func:`trimmed`), likewise. ``frame_size``:
    ``(width, height)``; a quad running out of the frame is not read. ``warp`` gives the
    canonical card of a quad; ``columns`` is :func:`~tablectl.vision.pips.pip_columns`
    (or a reader's that keeps the pips it found)."""
    if r.status not in (FaceStatus.NEEDS_CONFIRMATION, FaceStatus.NO_CARD):
        return quad, r
    wide = outset(quad)
    if not inside(wide, *frame_size) or pips_card(warp(quad)) is None:
        return quad, r
    rw = read(warp(wide))
    if rw.status is FaceStatus.ACCEPTED:
        return wide, rw
    narrow = trimmed(quad, columns(warp(quad)))
    if narrow is None or not inside(narrow, *frame_size):
        return quad, r
    rn = read(warp(narrow))
    return (narrow, rn) if rn.status is FaceStatus.ACCEPTED else (quad, r)


def trimmed(quad: Quad, columns: tuple[float, float] | None) -> Quad | None:
    """``quad`` cut to the card its pips' two columns (``columns``: their mean x, as
    fractions of the quad's width, :func:`~tablectl.vision.pips.pip_columns`) say it is:
    the columns lie :data:`~tablectl.vision.pips.LAYOUTS`' 0.30 and 0.70 across the card,
    so their spacing gives its width and their place its sides (a quad that takes in the
    fingers beside a held card, hand-held D6-002, docs/camera.md §6). ``None`` where there
    are no columns or the card is the quad already (within :data:`TRIM_LEAST`).

    >>> trimmed(((0.0, 0.0), (10.0, 0.0), (10.0, 20.0), (0.0, 20.0)), (0.44, 0.76))
    ((2.0, 0.0), (10.0, 0.0), (10.0, 20.0), (2.0, 20.0))
    """
    if columns is None:
        return None
    width = (columns[1] - columns[0]) / (1.0 - 2.0 * COLUMN)
    lo = columns[0] - COLUMN * width
    hi = lo + width
    if abs(lo) < TRIM_LEAST and abs(hi - 1.0) < TRIM_LEAST:
        return None
    tl, tr, br, bl = (np.array(p, np.float64) for p in quad)
    out = (tl + lo * (tr - tl), tl + hi * (tr - tl), bl + hi * (br - bl), bl + lo * (br - bl))
    return tuple((round(float(x), 6), round(float(y), 6)) for x, y in out)  # type: ignore[return-value]


def along(quad: Quad, top: float, bottom: float) -> Quad:
    """``quad`` with its top side moved to ``top`` and its bottom side to ``bottom``
    (fractions of the quad's height along its left and right sides, from its top; under 0
    or over 1 grow it).

    >>> along(((0.0, 0.0), (10.0, 0.0), (10.0, 20.0), (0.0, 20.0)), 0.0, 1.25)
    ((0.0, 0.0), (10.0, 0.0), (10.0, 25.0), (0.0, 25.0))
    """
    tl, tr, br, bl = (np.array(p, np.float64) for p in quad)
    out = (tl + top * (bl - tl), tr + top * (br - tr), tr + bottom * (br - tr),
           tl + bottom * (bl - tl))
    return tuple((round(float(x), 6), round(float(y), 6)) for x, y in out)  # type: ignore[return-value]


def lowered(quad: Quad, aspect: float, down: bool = True) -> float:
    """How far (multiple of its height) ``quad`` grown past its lower end (``down``, else
    its upper end) is a card of ``aspect`` (long/short side ratio) on its kept end's side:
    a hand over a held card's end leaves the end opposite whole.

    >>> lowered(((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)), 1.4)
    1.4
    """
    p = np.array(quad, np.float64)
    kept = p[1] - p[0] if down else p[2] - p[3]
    height = (np.hypot(*(p[3] - p[0])) + np.hypot(*(p[2] - p[1]))) / 2.0
    return float(aspect * np.hypot(*kept) / height) if height > 0 else 0.0


def read_covered(quad: Quad, r: IndexRead, frame_size: tuple[int, int], *,
                 warp: Callable[[Quad], Image],
                 few_pips: Callable[[Image], float | None],
                 rows: Callable[[Image], tuple[float, float] | None],
                 read: Callable[[Image], IndexRead]) -> tuple[Quad, IndexRead]:
    """``quad`` and its read ``r``; where ``r`` is refused unsure on a print only the pips
    may decide (``r.pips``: a blurred card) and the card warped from ``quad`` shows pips
    too few for any layout (``few_pips``: their mean height, in its upper half where the
    lower end is covered, else its upper end), the quad grown past that end to a card's
    shape (:data:`~tablectl.vision.grow.CARD_ASPECT`, then
    :data:`~tablectl.vision.grow.BRIDGE_ASPECT`: :func:`lowered`); where the pips of a
    grown quad read as a layout (``rows``: :func:`~tablectl.vision.pips.pip_rows`), the
    quad grown to the end their rows place instead (within :data:`REFIT_MOST` of the
    guess) is read. Then, for a quad one of whose corners the fingers pulled in, the quad
    with that corner set where the other three place it (:func:`completed`), read where
    its pips read as a layout. The first read accepted is kept with its quad. Quads
    running out of the frame (``frame_size``) are not read."""
    if r.status is not FaceStatus.NEEDS_CONFIRMATION or not r.pips:
        return quad, r
    seen = few_pips(warp(quad))
    if seen is None:
        return quad, r
    down = seen < 0.5
    tried: list[float] = []
    for aspect in (CARD_ASPECT, BRIDGE_ASPECT):
        grow = lowered(quad, aspect, down)
        guess = along(quad, 0.0, grow) if down else along(quad, 1.0 - grow, 1.0)
        if grow < 1.0 + TRIM_LEAST or not inside(guess, *frame_size):
            continue
        placed = rows(warp(guess))
        if placed is None:
            continue
        end = placed[1] - 1.0 if down else -placed[0]  # past the guess's end
        total = grow * (1.0 + end)  # the card's height, the quad's being 1
        if abs(end) > REFIT_MOST or total < 1.0 + TRIM_LEAST or any(
                abs(total - t) < TRIM_LEAST for t in tried):
            continue
        tried.append(total)
        card = along(quad, 0.0, total) if down else along(quad, 1.0 - total, 1.0)
        if not inside(card, *frame_size):
            continue
        rc = read(warp(card))
        if rc.status is FaceStatus.ACCEPTED:
            return card, rc
    for card in completed(quad):
        if not inside(card, *frame_size) or rows(warp(card)) is None:
            continue
        rc = read(warp(card))
        if rc.status is FaceStatus.ACCEPTED:
            return card, rc
    return quad, r


def completed(quad: Quad) -> list[Quad]:
    """``quad`` with one corner set where the other three place it (a parallelogram),
    for each corner whose move makes the quad larger, largest first; none where every
    corner lies within :data:`SKEW_LEAST` of it already. A card's outline seen without
    much slant is near a parallelogram; a held card's corner under the fingers is
    found pulled in (hand-held H2-002, docs/camera.md §6).

    >>> completed(((0.0, 0.0), (10.0, 0.0), (10.0, 20.0), (4.0, 14.0)))[0]
    ((0.0, 0.0), (10.0, 0.0), (10.0, 20.0), (0.0, 20.0))
    """
    p = np.array(quad, np.float64)
    skew = p[0] + p[2] - p[1] - p[3]  # each corner's move to the parallelogram, +-
    short = min(float(np.hypot(*(p[(i + 1) % 4] - p[i]))) for i in range(4))
    if float(np.hypot(*skew)) < SKEW_LEAST * short:
        return []
    out: list[tuple[float, Quad]] = []
    for i, sign in ((0, -1.0), (1, 1.0), (2, -1.0), (3, 1.0)):
        q = p.copy()
        q[i] += sign * skew
        grows = _area(q) - _area(p)
        if grows > 0:
            out.append((grows, tuple((round(float(x), 6), round(float(y), 6))
                                     for x, y in q)))  # type: ignore[arg-type]
    return [q for _, q in sorted(out, key=lambda t: -t[0])]


def _area(p: npt.NDArray[np.float64]) -> float:
    """The area of the quad of corners ``p`` (shoelace)."""
    x, y = p[:, 0], p[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0)
