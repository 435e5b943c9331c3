"""The cheaper forms of the camera's per-read arithmetic give the same numbers as the plain
numpy and OpenCV forms they replace, on rendered cards and on the images of a read."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware_sim.camera import SimCamera, random_style, render_face
from hardware_sim.camera_scene import SceneCamera
from tablectl.domain.cards import Card
from tablectl.vision import levels
from tablectl.vision.cardview import CARD_H, CARD_W, corner_crops, warp_card, warp_source
from tablectl.vision.corners import GlyphPair, upright_crop
from tablectl.vision.face import KEEP, SHIFTS, face_cells, face_views
from tablectl.vision.glyphs import _DILATE_K, _without_lines, ink_image
from tablectl.vision.locate import locate_cards
from tablectl.vision.planes import planes


def _rendered(code: str, seed: int) -> np.ndarray:
    card = render_face(Card.parse(code), random_style(seed))
    return cv2.resize(card, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)


def _photo_greys() -> list[np.ndarray]:
    """Grey images as a read sees them: a rendered board frame, warped cards, corners."""
    cam = SimCamera(5, random_style(3), strength=1.0)
    frame, _ = cam.board_frame([Card.parse(c) for c in ("As", "Td", "7h", "Qc")])
    out = [cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)]
    for i, code in enumerate(("Kh", "2c", "9s", "Jd")):
        card = cv2.cvtColor(_rendered(code, i), cv2.COLOR_BGR2GRAY)
        out += [card, card[::4, ::4], corner_crops(card)[0]]
    return out


def test_levels_give_numpys_order_statistics() -> None:
    """Median and percentiles read off the counts are numpy's bit for bit; where numpy
    would interpolate between two different levels the helper says so (``None``)."""
    rng = np.random.default_rng(7)
    images = _photo_greys() + [rng.integers(0, 256, (h, w), dtype=np.uint8)
                               for h, w in ((1, 1), (1, 2), (7, 3), (40, 56), (90, 160))]
    asked = interpolated = 0
    for img in images:
        assert levels.median(img) == float(np.median(img))
        for q in (90, 97, 99, 99.5, 100, 0):
            got = levels.percentile(img, q)
            asked += 1
            if got is None:
                interpolated += 1
                at = int(np.floor((img.size - 1) * q / 100))
                lo, hi = np.sort(img.ravel())[[at, min(at + 1, img.size - 1)]]
                assert lo != hi
            else:
                assert got == float(np.percentile(img, q))
    assert interpolated < asked  # the counts answer most of them
    frame = SimCamera(6, random_style(4), strength=1.0).board_frame([Card.parse("5s")])[0]
    pix = frame[::4, ::4].reshape(-1, 3)
    got3 = levels.channel_percentiles(pix, 97)
    assert got3 is not None
    assert np.array_equal(got3, np.percentile(pix, 97, axis=0).astype(np.float32))


@pytest.mark.parametrize("code", ["Qh", "7c", "As", "Td"])
def test_face_views_are_the_shifted_grids_normalised(code: str) -> None:
    """Each view is the face grid rolled by its shift, masked, made zero-mean unit-norm
    (the plain form), and the second half the same reversed."""
    card = _rendered(code, 11)
    cells = face_cells(card)
    plain = []
    for dx, dy in SHIFTS:
        v = np.roll(cells, (dy, dx), axis=(0, 1))[KEEP].astype(np.float32)
        v = v - float(v.mean())
        plain.append((v / float(np.linalg.norm(v))).astype(np.float32))
    views = face_views(card)
    assert views.shape == (2 * len(SHIFTS), int(KEEP.sum()))
    assert np.array_equal(views[:len(SHIFTS)], np.stack(plain))
    assert np.array_equal(views[len(SHIFTS):], views[:len(SHIFTS), ::-1])


def _plain_without_lines(binary: np.ndarray) -> np.ndarray:
    hh, ww = binary.shape
    vert = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((max(3, int(0.45 * hh)), 1),
                                                            np.uint8))
    horiz = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((1, max(3, int(0.6 * ww))),
                                                             np.uint8))
    lines = cv2.dilate(cv2.bitwise_or(vert, horiz), _DILATE_K)
    return cv2.bitwise_and(binary, cv2.bitwise_not(lines))


@pytest.mark.parametrize("code", ["Kd", "Js", "9h", "3c"])
def test_line_removal_is_the_two_openings(code: str) -> None:
    """The index crop's lines (a court card's picture frame, the card's edge) come out as
    the two openings take them, whether or not the crop holds a line."""
    card = _rendered(code, 2)
    card[:, 40:42] = 0  # a long vertical line through the corner, as a frame line is
    seen_line = False
    for crop in (*corner_crops(card), *corner_crops(_rendered(code, 3))):
        _, ink = ink_image(crop)
        binary = cv2.threshold((ink * 255).astype(np.uint8), 60, 255, cv2.THRESH_BINARY)[1]
        plain = _plain_without_lines(binary)
        seen_line |= not np.array_equal(plain, binary)
        assert np.array_equal(_without_lines(binary), plain)
    assert seen_line


def test_planes_are_cv2_split() -> None:
    """A frame's planes (and a view's, as the finder passes) are ``cv2.split``'s."""
    frame = SimCamera(8, random_style(9), strength=1.0).board_frame([Card.parse("8d")])[0]
    for img in (frame, frame[3:-5, 7:-2]):
        assert all(np.array_equal(a, b) for a, b in zip(planes(img), cv2.split(img),
                                                         strict=True))


def test_cards_warped_from_the_warp_source_are_the_same() -> None:
    """A card warped from the frame with a fourth channel (:func:`warp_source`, made once
    a frame) is the card warped from the BGR frame, bit for bit: cards found, cards placed
    a few pixels off, a card running out of the frame; and so is an index crop turned
    upright for the corner search."""
    cam = SceneCamera(4, random_style(11), strength=1.0)
    frame, _ = cam.frame(cam.shuffled_deck()[:8])
    source = warp_source(frame)
    rng = np.random.default_rng(2)
    quads = [f.quad for f in locate_cards(frame)]
    assert len(quads) >= 4
    for q in list(quads):
        p = [(x + float(dx), y + float(dy)) for (x, y), (dx, dy)
             in zip(q, rng.normal(0, 3, (4, 2)), strict=True)]
        quads.append((p[0], p[1], p[2], p[3]))
    quads.append(((-40.0, -30.0), (120.0, -20.0), (130.0, 200.0), (-50.0, 190.0)))
    for q in quads:
        assert np.array_equal(warp_card(source, q), warp_card(frame, q))
    for top, bottom in (((300.5, 200.25), (310.0, 221.0)), ((5.0, 5.0), (-9.0, 20.0))):
        pair = GlyphPair(top, bottom)
        assert np.array_equal(upright_crop(source, pair), upright_crop(frame, pair))
