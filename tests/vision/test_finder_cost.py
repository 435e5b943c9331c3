"""The finder's and the reads' cheaper arithmetic (docs/camera.md §6, "Cost: the finder's
and the reads' small work on Python floats") gives what the numpy forms it replaced gave:
the quad ordered, its corners judged square, the balanced frame's planes, the ink map and
the face's cells clipped, a glyph's norm, the bottom-right index crop turned; on random
quads and on the images of rendered frames."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from hardware_sim.camera import random_style, render_face
from hardware_sim.camera_scene import SceneCamera
from tablectl.domain.cards import Card
from tablectl.vision.cardview import CARD_H, CARD_W, corner_crops
from tablectl.vision.face import GRID, face_cells
from tablectl.vision.glyphs import _CLOSE_K, _PAPER_FLOOR, CANON_H, fit_glyph, ink_image
from tablectl.vision.levels import percentile
from tablectl.vision.locate import (
    _EDGE_K,
    _fit_quad,
    _masks,
    _square_enough,
    balanced,
    order_quad,
    shrunk,
    white_balanced,
)
from tablectl.vision.model import Quad
from tablectl.vision.planes import planes
from tablectl.vision.split import coverage


def _order_quad_numpy(pts: npt.NDArray[np.float32]) -> Quad:
    """``order_quad`` as it was, on numpy arrays."""
    p = pts.reshape(4, 2).astype(np.float64)
    c = p.mean(axis=0)
    ang = np.arctan2(p[:, 1] - c[1], p[:, 0] - c[0])
    p = p[np.argsort(ang)]
    start = int(np.argmin(p[:, 0] + p[:, 1]))
    turn = [(start + i) % 4 for i in range(4)]
    if np.hypot(*(p[turn[1]] - p[turn[0]])) > np.hypot(*(p[turn[2]] - p[turn[1]])):
        turn = turn[3:] + turn[:3]
    q = p[turn].tolist()
    return (q[0][0], q[0][1]), (q[1][0], q[1][1]), (q[2][0], q[2][1]), (q[3][0], q[3][1])


def _square_enough_numpy(q: npt.NDArray[np.float32]) -> bool:
    """``_square_enough`` as it was, corner by corner."""
    for i in range(4):
        a = q[i - 1] - q[i]
        b = q[(i + 1) % 4] - q[i]
        na, nb = float(np.hypot(*a)), float(np.hypot(*b))
        if na < 1e-3 or nb < 1e-3:
            return False
        if abs(float(a @ b) / (na * nb)) > 0.574:
            return False
    return True


def _fit_glyph_norm(patch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``fit_glyph`` as it was, with ``np.linalg.norm``, into a 24 x 32 box."""
    h, w = patch.shape
    s = min(24 / w, 32 / h)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    small = cv2.resize(patch, (nw, nh),
                       interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    canvas = np.zeros((32, 24), np.float32)
    ox, oy = (24 - nw) // 2, (32 - nh) // 2
    canvas[oy:oy + nh, ox:ox + nw] = small
    v = np.asarray(cv2.GaussianBlur(canvas, (0, 0), 0.8), np.float32).ravel()
    v = v - np.float32(float(np.add.reduce(v)) / v.size)
    n = float(np.linalg.norm(v))
    out: npt.NDArray[np.float32] = (v / n if n > 1e-6 else v).astype(np.float32)
    return out


def _quads(n: int) -> list[npt.NDArray[np.float32]]:
    """Random quads of every kind the finder meets: any four points, whole-pixel corners,
    upright rectangles with their corners in any order (ties in the sums and angles), and
    turned card-shaped ones."""
    rng = np.random.default_rng(7)
    out = []
    for k in range(n):
        kind = k % 4
        if kind == 0:
            q = rng.uniform(0, 1280, (4, 2))
        elif kind == 1:
            q = rng.integers(0, 640, (4, 2)).astype(np.float64)
        elif kind == 2:
            (x, y), (w, h) = rng.integers(0, 500, 2), rng.integers(20, 200, 2)
            q = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)
        else:
            t = rng.uniform(0, np.pi)
            turn = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
            w, h = rng.uniform(30, 150), rng.uniform(30, 150)
            q = rng.uniform(100, 500, 2) + (np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
                                            / 2) @ turn.T
        out.append(q.astype(np.float32)[rng.permutation(4)])
    return out


def test_order_quad_is_the_numpy_one() -> None:
    """The same corners in the same order, bit for bit, as the numpy form."""
    for q in _quads(4000):
        assert order_quad(q) == _order_quad_numpy(q)


def test_square_enough_is_the_corner_by_corner_one() -> None:
    """The same verdict as the corner-by-corner float32 arithmetic, on random quads (most
    fail at some corner) and on ordered card-like ones (all four corners asked)."""
    quads = _quads(4000)
    quads += [np.array(order_quad(q), np.float32) for q in quads[3::4]]
    quads += [np.array([[0, 0], [0, 0], [5, 5], [0, 5]], np.float32)]  # a side of length 0
    verdicts = [_square_enough(q) for q in quads]
    assert verdicts == [_square_enough_numpy(q) for q in quads]
    assert 100 < sum(verdicts) < len(verdicts)


def _frames() -> list[np.ndarray]:
    cam = SceneCamera(3, random_style(21), strength=1.0)
    return [cv2.resize(cam.frame(cam.shuffled_deck()[:8])[0], (640, 360),
                       interpolation=cv2.INTER_AREA)]


def test_balanced_planes_are_the_balanced_frames() -> None:
    """The planes the white balance keeps are the balanced frame's own (what the masks
    split again before), and the frame is :func:`white_balanced`'s."""
    frames = _frames()
    cast = frames[0].copy()
    cast[..., 0] = (cast[..., 0] * 0.7).astype(np.uint8)  # a colour cast: balanced for sure
    kept = 0
    for img in [*frames, cast]:
        out, split = balanced(img)
        assert np.array_equal(out, white_balanced(img))
        if split is None:
            assert out is img
            continue
        kept += 1
        for a, b in zip(split, planes(out), strict=True):
            assert np.array_equal(a, b)
    assert kept >= 1


def test_clipped_maps_are_numpys_clip() -> None:
    """The ink map and the face's cells, clipped without ``np.clip``, are the clipped ones
    bit for bit; a glyph's norm is ``np.linalg.norm``'s; the turned crop numpy's."""
    for i, code in enumerate(("Kh", "2c", "9s", "Td", "As")):
        card = cv2.resize(render_face(Card.parse(code), random_style(i)), (CARD_W, CARD_H),
                          interpolation=cv2.INTER_AREA)
        tl, br = corner_crops(card)
        assert np.array_equal(br, np.ascontiguousarray(
            card[CARD_H - br.shape[0]:, CARD_W - br.shape[1]:][::-1, ::-1]))
        for crop in (tl, br):
            scaled, ink = ink_image(crop)
            assert scaled.shape[0] == CANON_H
            grey = cv2.min(cv2.min(*cv2.split(scaled)[:2]), cv2.split(scaled)[2])
            paper = cv2.morphologyEx(grey, cv2.MORPH_CLOSE, _CLOSE_K).astype(np.float32)
            want = np.clip((paper - grey) / np.maximum(paper, _PAPER_FLOOR), 0.0, 1.0)
            assert np.array_equal(ink, want)
            for patch in (ink[10:70, 5:45], ink[:40, :20], ink[50:, 30:]):
                assert np.array_equal(fit_glyph(patch, (24, 32)), _fit_glyph_norm(patch))
        grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
        gw, gh = GRID
        mid8 = cv2.resize(grey, (2 * gw, 2 * gh), interpolation=cv2.INTER_AREA)
        level = percentile(mid8, 90)
        assert level is not None
        ink_f = 1.0 - np.clip(mid8.astype(np.float32) / (level + 1.0), 0.0, 1.0)
        want_cells = cv2.resize(cv2.GaussianBlur(ink_f, (0, 0), 0.8), GRID,
                                interpolation=cv2.INTER_AREA)
        assert np.array_equal(face_cells(card), want_cells)


def _harsh_smalls() -> list[np.ndarray]:
    """The finder's balanced 640 px images of harsh frames (cards apart and overlapping)."""
    cam = SceneCamera(11, random_style(21), strength=1.0)
    return [balanced(shrunk(cam.frame(cam.shuffled_deck()[:8], overlap=k == 1)[0])[1])[0]
            for k in range(2)]


def test_one_opening_serves_the_level_cuts() -> None:
    """The masks cut from the whiteness opened once are the cuts opened one by one (Otsu's,
    the paper level's and the two bright levels'), on harsh frames and a plain ramp."""
    ramp = np.tile(np.arange(256, dtype=np.uint8), (64, 3)).reshape(64, 768)[:, :600]
    ramps = [cv2.merge([ramp, ramp, ramp])]
    for small in [*_harsh_smalls(), *ramps]:
        masks, paper, white, _ = _masks(small)
        otsu_t, _ = cv2.threshold(white, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        top = float(np.percentile(white[::4, ::4], 99.5))
        cuts = (otsu_t, max(otsu_t * 0.8, 60.0), top * 0.85, top * 0.72)
        want = [cv2.morphologyEx(cv2.threshold(white, t, 255, cv2.THRESH_BINARY)[1],
                                 cv2.MORPH_OPEN, _EDGE_K) for t in cuts]
        for got, w in zip((masks[0], masks[3], masks[4], masks[5]), want, strict=True):
            assert np.array_equal(got, w)
        assert np.array_equal(paper, cv2.threshold(white, cuts[1], 255,
                                                   cv2.THRESH_BINARY)[1])


def _coverage_line_by_line(gx: np.ndarray, gy: np.ndarray, a: np.ndarray, b: np.ndarray,
                           low: float) -> float:
    """``split.coverage`` as it was, the five lines one at a time."""
    d = (b - a) / max(float(np.hypot(*(b - a))), 1e-9)
    nrm = np.array([-d[1], d[0]])
    t = np.linspace(0.04, 0.96, 60)
    base = a[None, :] + (b - a)[None, :] * t[:, None]
    h, w = gx.shape[:2]
    hit = np.zeros(60, bool)
    for k in (-2.0, -1.0, 0.0, 1.0, 2.0):
        ij = np.round(base + nrm * k).astype(np.int64)
        ij[:, 0] = np.clip(ij[:, 0], 0, w - 1)
        ij[:, 1] = np.clip(ij[:, 1], 0, h - 1)
        vx = gx[ij[:, 1], ij[:, 0]].astype(np.float64)
        vy = gy[ij[:, 1], ij[:, 0]].astype(np.float64)
        across = np.abs(vx * nrm[0] + vy * nrm[1])
        hit |= (across >= low) & (across >= 0.85 * np.hypot(vx, vy))
    return float(np.count_nonzero(hit)) / 60


def test_coverage_at_once_is_line_by_line() -> None:
    """A cut's five lines sampled at once give the coverage the lines one by one gave, on
    the gradients of a harsh frame and segments in any direction, some running off it."""
    grey = cv2.cvtColor(_harsh_smalls()[1], cv2.COLOR_BGR2GRAY)
    gx = cv2.Sobel(grey, cv2.CV_16S, 1, 0)
    gy = cv2.Sobel(grey, cv2.CV_16S, 0, 1)
    rng = np.random.default_rng(5)
    values = set()
    for _ in range(3000):
        a, b = rng.uniform(-20, 660, 2), rng.uniform(-20, 660, 2) * (1, 360 / 640)
        low = float(rng.uniform(5, 80))
        got = coverage(gx, gy, a, b, low)
        assert got == _coverage_line_by_line(gx, gy, a, b, low)
        values.add(got)
    assert len(values) > 20


def _fit_quad_every_quad(cnt: np.ndarray, area: float) -> tuple[float, np.ndarray] | None:
    """``_fit_quad`` as it was: every candidate quad scored, the kept points looked up on
    the dilated patch as a bool array, clipped to it."""
    x, y, w, h = cv2.boundingRect(cnt)
    f = min(1.0, 5.0 / max(0.1 * float(np.sqrt(area)), 1.0))
    flat = cnt.reshape(-1, 2)
    at = ((flat - np.array([x, y])) * f + 6).round().astype(np.int32)
    patch = np.zeros((round(h * f) + 12, round(w * f) + 12), np.uint8)
    cv2.drawContours(patch, [at], -1, 255, -1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    patch = cv2.morphologyEx(patch, cv2.MORPH_CLOSE, kernel)
    holes, _ = cv2.findContours(patch, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(patch, holes, -1, 255, -1)
    patch = cv2.morphologyEx(patch, cv2.MORPH_OPEN, kernel)
    parts, _ = cv2.findContours(patch, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not parts:
        return None
    body = np.zeros(patch.shape, np.uint8)
    cv2.drawContours(body, [max(parts, key=cv2.contourArea)], -1, 1, -1)
    keep = np.asarray(cv2.dilate(body, kernel), bool)
    ij = np.minimum(np.maximum(at, 0), (patch.shape[1] - 1, patch.shape[0] - 1))
    sel = flat[keep[ij[:, 1], ij[:, 0]]]
    if len(sel) < 4:
        return None
    hull = cv2.convexHull(sel.astype(np.float32))
    hull_area = float(cv2.contourArea(hull))
    peri = cv2.arcLength(hull, True)
    quads = [np.asarray(cv2.boxPoints(cv2.minAreaRect(hull)), np.float32)]
    for eps in (0.02, 0.035, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4 and cv2.isContourConvex(approx):
            quads.append(approx.reshape(4, 2).astype(np.float32))
    best = None
    for q in quads:
        inter, _ = cv2.intersectConvexConvex(hull, q.reshape(-1, 1, 2))
        union = hull_area + float(cv2.contourArea(q)) - inter
        iou = inter / union if union > 0 else 0.0
        if best is None or iou > best[0]:
            best = (iou, q)
    return best


def test_fit_quad_is_the_every_quad_one() -> None:
    """Every outer contour of a harsh frame's masks big enough to be fitted gets the same
    fill and the same corners as when every candidate quad was scored."""
    fitted = 0
    for small in _harsh_smalls():
        for mask in _masks(small)[0]:
            cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for cnt in cnts:
                area = float(cv2.contourArea(cv2.convexHull(cnt)))
                if area < 200:
                    continue
                got, want = _fit_quad(cnt, area), _fit_quad_every_quad(cnt, area)
                assert (got is None) == (want is None)
                if got is not None and want is not None:
                    fitted += 1
                    assert got[0] == want[0] and np.array_equal(got[1], want[1])
    assert fitted > 50
