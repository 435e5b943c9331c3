"""The real photographs in ``../shared/corpus/cards`` (beside the repository): loading,
ground truth, and the measures the tests and ``bench/camera.py`` share.

* ``cluttered_scenes``: phone and webcam photos of one Bicycle deck (ranks 9..A) with a
  PASCAL VOC box per visible card (class = rank name, suits not labelled). The suits of 59
  single-card photos were read by eye for this project: ``tests/data/cards/cluttered_suits.csv``
  (``use`` = ``enrol``: one photo per card, the enrolment set; ``check``: held out).
* ``many_designs``: 224x224 single-card crops of many deck designs, ``labels.csv``.

Big photos are shrunk to at most :data:`MAX_SIDE` px before anything is done with them (the
corpus has 4032x3024 phone pictures; a table camera gives 1280x720 or so).
"""

from __future__ import annotations

import csv
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from tablectl.domain.cards import Card, Rank
from tablectl.vision.enrol import Enroller, VerificationReport, parse_deck, verify
from tablectl.vision.locate import box_iou, locate_cards, quad_box
from tablectl.vision.model import FaceRead, FaceStatus, Image, Quad
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser


def _corpus() -> Path:
    """``shared/corpus/cards`` beside the repository, or beside a folder holding it (a git
    worktree under ``wt/``); ``TABLECTL_CARD_CORPUS`` names another place."""
    named = os.environ.get("TABLECTL_CARD_CORPUS")
    if named:
        return Path(named)
    repo = Path(__file__).resolve().parents[2]
    for up in repo.parents:
        if (up / "shared" / "corpus" / "cards").is_dir():
            return up / "shared" / "corpus" / "cards"
    return repo.parent / "shared" / "corpus" / "cards"


CORPUS: Final = _corpus()
SCENES: Final = CORPUS / "cluttered_scenes"
DESIGNS: Final = CORPUS / "many_designs"
SUITS_CSV: Final = Path(__file__).resolve().parents[1] / "data" / "cards" / "cluttered_suits.csv"
MAX_SIDE: Final = 1280
IOU: Final = 0.5
"""A found card counts when its quad's bounding box overlaps a truth box this much."""
STRIP: Final = 0.5
"""A read no box matched by :data:`IOU` still counts for a box no read matched when at
least this share of the box lies inside the read's quad: a scene's truth boxes are the
*visible* part of each card, so a card lying under another has a box that is a strip of
it, while a card found by its index corner is placed as a whole card (docs/camera.md §6,
"Scenes: small indices and the cluttered measure")."""
RANK_NAMES: Final = {"nine": Rank.NINE, "ten": Rank.TEN, "jack": Rank.JACK,
                     "queen": Rank.QUEEN, "king": Rank.KING, "ace": Rank.ACE}
SKIP_REASON: Final = f"the real-photo corpus is not there ({CORPUS})"

Box = tuple[float, float, float, float]


def available() -> bool:
    """Whether the corpus folders are there (tests skip with :data:`SKIP_REASON` if not)."""
    return SCENES.is_dir() and DESIGNS.is_dir()


def load(path: Path, max_side: int = MAX_SIDE) -> tuple[Image, float]:
    """A photo shrunk to at most ``max_side`` px, and the factor applied (JPEG decoding
    at a half or a quarter where the photo is big enough: a 12 MP photo decodes 5x faster)."""
    quarter = cv2.imread(str(path), cv2.IMREAD_REDUCED_COLOR_4)
    if quarter is None:
        raise OSError(f"{path}: not an image")
    img: Image = quarter
    side = 4 * max(img.shape[:2])
    if side < 4 * max_side:
        flag = cv2.IMREAD_REDUCED_COLOR_2 if side >= 2 * max_side else cv2.IMREAD_COLOR
        again = cv2.imread(str(path), flag)
        if again is None:
            raise OSError(f"{path}: not an image")
        img = again
        side = max(img.shape[:2]) * (2 if flag == cv2.IMREAD_REDUCED_COLOR_2 else 1)
    full = side  # the photo's own longest side (to within 4 px)
    s = min(1.0, max_side / max(img.shape[:2]))
    if s < 1.0:
        img = cv2.resize(img, (round(img.shape[1] * s), round(img.shape[0] * s)),
                         interpolation=cv2.INTER_AREA)
    return img, max(img.shape[:2]) / full


@dataclass(frozen=True)
class Scene:
    """One cluttered photo and its truth boxes (in the photo's own pixels)."""

    path: Path
    boxes: tuple[tuple[Rank, Box], ...]


def scenes(step: int = 1, exclude: frozenset[str] = frozenset()) -> list[Scene]:
    """Every ``step``-th scene (sorted by name, so the subset is fixed), minus ``exclude``."""
    out = []
    for img in sorted(p for p in SCENES.iterdir() if p.suffix.lower() in {".jpg", ".jpeg"}):
        if img.name in exclude:
            continue
        root = ET.parse(img.with_suffix(".xml")).getroot()
        boxes = []
        for obj in root.iter("object"):
            bb = obj.find("bndbox")
            assert bb is not None
            box = tuple(float(bb.findtext(k) or 0) for k in ("xmin", "ymin", "xmax", "ymax"))
            boxes.append((RANK_NAMES[obj.findtext("name") or ""], (box[0], box[1], box[2],
                                                                    box[3])))
        out.append(Scene(img, tuple(boxes)))
    return out[::step]


def suit_labels() -> list[tuple[str, Card, str]]:
    """``(file, card, use)`` rows of the suit labels (``use``: ``enrol`` or ``check``)."""
    with SUITS_CSV.open(newline="") as fh:
        return [(r["file"], Card.parse(r["card"]), r["use"]) for r in csv.DictReader(fh)]


def enrol_bicycle() -> tuple[DeckProfile, VerificationReport]:
    """The scenes' deck (9..A, 24 cards) enrolled from one ordinary photo per card, then
    verified by reading those photos back."""
    enroller = Enroller("bicycle-9a", "board", deck=parse_deck("9-A"))
    samples = []
    for name, card, use in suit_labels():
        if use != "enrol":
            continue
        img, _ = load(SCENES / name)
        enroller.add(img, card, name)
        samples.append((name, img, card))
    return verify(enroller.build(), samples)


def enrol_files() -> frozenset[str]:
    """The photos the enrolment uses (kept out of every measure)."""
    return frozenset(name for name, _, use in suit_labels() if use == "enrol")


@dataclass
class Recall:
    """Localisation over a set of scenes."""

    boxes: int = 0
    found: int = 0
    quads: int = 0
    """Quads reported (found cards, including those matching no box)."""

    @property
    def rate(self) -> float:
        return self.found / self.boxes if self.boxes else 0.0


def matches(quads: Sequence[Box], boxes: Sequence[Box]) -> Iterator[tuple[int, int]]:
    """Greedy one-to-one ``(quad index, box index)`` pairs with IoU >= :data:`IOU`."""
    pairs = sorted(((box_iou(q, b), i, j) for i, q in enumerate(quads)
                    for j, b in enumerate(boxes)), reverse=True)
    used_q: set[int] = set()
    used_b: set[int] = set()
    for iou, i, j in pairs:
        if iou < IOU or i in used_q or j in used_b:
            continue
        used_q.add(i)
        used_b.add(j)
        yield i, j


def box_inside(box: Box, quad: Quad) -> float:
    """The share of ``box``'s area (``(x0, y0, x1, y1)``) that lies inside ``quad``."""
    x0, y0, x1, y1 = box
    area = (x1 - x0) * (y1 - y0)
    if area <= 0:
        return 0.0
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    poly = np.array(quad, np.float32)
    if cv2.contourArea(poly, oriented=True) < 0:
        poly = poly[::-1].copy()  # both convex polygons the same way round
    inter, _ = cv2.intersectConvexConvex(corners, poly)
    return float(inter) / area


INDEX_AT: Final = (0.1, 0.12)
"""Where the centre of a card's index lies from its corner, in shares of the card's width
and height (a standard card's index sits 0.04 and 0.05 in, and is 0.19 of the height)."""


def index_points(quad: Quad) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where the two index corners of a card read at ``quad`` lie (near its first and its
    third corner: a card placed from its index corner starts there; an outline's read may
    come from either corner)."""
    p = np.array(quad, np.float64)
    a = p[0] + INDEX_AT[0] * (p[1] - p[0]) + INDEX_AT[1] * (p[3] - p[0])
    b = p[2] + INDEX_AT[0] * (p[3] - p[2]) + INDEX_AT[1] * (p[1] - p[2])
    return (float(a[0]), float(a[1])), (float(b[0]), float(b[1]))


def _holds(box: Box, quad: Quad) -> bool:
    """Whether an index corner of the card read at ``quad`` lies in ``box``."""
    return any(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in index_points(quad))


def read_matches(quads: Sequence[Quad], boxes: Sequence[Box],
                 ) -> Iterator[tuple[int, int, bool]]:
    """One-to-one ``(read index, box index, by_strip)`` pairs: first :func:`matches` on
    the quads' bounding boxes (IoU >= :data:`IOU`), then, among the reads and boxes left,
    a box at least :data:`STRIP` inside a read's quad that holds one of the read's index
    corners (:func:`index_points`: the card read shows its index in its visible part;
    in a fan the next card's strip lies inside the whole card too, but not its index), as
    many as can be matched one to one, each read to the box most inside it where there is
    a choice; a read matched so to a box of another rank counts wrong like any other."""
    taken_q: set[int] = set()
    taken_b: set[int] = set()
    for i, j in matches([quad_box(q) for q in quads], boxes):
        taken_q.add(i)
        taken_b.add(j)
        yield i, j, False
    # the boxes each read left may match, the most inside first
    edges: dict[int, list[int]] = {}
    best: dict[int, float] = {}
    for i, q in enumerate(quads):
        if i in taken_q:
            continue
        shares = sorted(((box_inside(b, q), j) for j, b in enumerate(boxes)
                         if j not in taken_b and _holds(b, q)), reverse=True)
        edges[i] = [j for share, j in shares if share >= STRIP]
        best[i] = shares[0][0] if shares else 0.0
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        """Kuhn's augmenting path: as many reads matched as can be (a read whose other
        index corner lies under the next card of a fan must not take that card's box from
        the card's own read)."""
        for j in edges[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in sorted(edges, key=lambda k: -best[k]):
        augment(i, set())
    for j, i in sorted(owner.items(), key=lambda t: t[1]):
        yield i, j, True


def localisation(items: Sequence[Scene]) -> Recall:
    """How many truth boxes a found quad covers (IoU >= 0.5 of its bounding box)."""
    r = Recall()
    for sc in items:
        img, s = load(sc.path)
        found = [quad_box(f.quad) for f in locate_cards(img)]
        boxes = [(b[0] * s, b[1] * s, b[2] * s, b[3] * s) for _, b in sc.boxes]
        r.boxes += len(boxes)
        r.quads += len(found)
        r.found += sum(1 for _ in matches(found, boxes))
    return r


@dataclass
class RankTally:
    """Rank reading on the scenes' found cards (suits are not labelled there)."""

    boxes: int = 0
    """Truth boxes in the scenes (every visible card)."""
    cards: int = 0
    """Truth boxes matched by a found card."""
    right: int = 0
    """Rank read right (any status: the hint)."""
    accepted: int = 0
    accepted_wrong: int = 0
    strips: int = 0
    """Of :attr:`cards`, those matched only by :data:`STRIP` (a box of the visible part of
    a card inside the whole card read); counted in every figure above."""
    strips_accepted: int = 0
    strips_wrong: int = 0

    @property
    def accepted_right(self) -> int:
        return self.accepted - self.accepted_wrong

    @property
    def accepted_right_iou(self) -> int:
        """Accepted right as counted by :data:`IOU` alone (the measure before strips)."""
        return self.accepted_right - (self.strips_accepted - self.strips_wrong)

    def line(self) -> str:
        return (f"{self.boxes} cards in the scenes, {self.cards} found: rank right "
                f"{self.right} ({self.right / max(self.cards, 1):.1%}), accepted "
                f"{self.accepted}, wrong among accepted {self.accepted_wrong}; accepted "
                f"right {self.accepted_right / max(self.boxes, 1):.1%} of all cards "
                f"({self.strips_accepted - self.strips_wrong} of them matched as visible "
                f"strips; by IoU alone {self.accepted_right_iou / max(self.boxes, 1):.1%})")


def read_ranks(rec: Recogniser, items: Sequence[Scene]) -> RankTally:
    """Read every scene; a truth box counts when a read matches it (:func:`read_matches`)."""
    t = RankTally()
    for sc in items:
        img, s = load(sc.path)
        reads = [r for r in rec.read_board(img) if r.quad is not None]
        boxes = [(b[0] * s, b[1] * s, b[2] * s, b[3] * s) for _, b in sc.boxes]
        quads = [r.quad for r in reads if r.quad is not None]
        t.boxes += len(boxes)
        for i, j, strip in read_matches(quads, boxes):
            read = reads[i]
            if read.status is FaceStatus.OUT_OF_FRAME:
                continue
            t.cards += 1
            t.strips += strip
            rank_ok = read.card is not None and read.card.rank is sc.boxes[j][0]
            t.right += rank_ok
            if read.status is FaceStatus.ACCEPTED:
                t.accepted += 1
                t.accepted_wrong += not rank_ok
                t.strips_accepted += strip
                t.strips_wrong += strip and not rank_ok
    return t


@dataclass
class GateTally:
    """Reads of single-card images with known labels."""

    total: int = 0
    right: int = 0
    """Accepted and right."""
    accepted: int = 0
    wrong: int = 0
    """Accepted and wrong (jokers included)."""
    jokers: int = 0
    jokers_accepted: int = 0

    @property
    def wrong_share(self) -> float:
        return self.wrong / self.accepted if self.accepted else 0.0

    def line(self) -> str:
        return (f"{self.total} images: accepted {self.accepted} (right {self.right}, wrong "
                f"{self.wrong} = {self.wrong_share:.1%}); jokers accepted "
                f"{self.jokers_accepted}/{self.jokers}")


def best_read(rec: Recogniser, img: Image) -> FaceRead | None:
    """The one card of a single-card image: the most confident accepted read, if any."""
    reads = rec.read_board(img, whole_frame=True)
    if not reads:
        return None
    return max(reads, key=lambda r: (r.status is FaceStatus.ACCEPTED, r.confidence))


def read_singles(rec: Recogniser, items: Sequence[tuple[Path, Card | None]]) -> GateTally:
    """Read single-card images (``None`` label: a joker)."""
    t = GateTally()
    for path, card in items:
        img, _ = load(path)
        read = best_read(rec, img)
        t.total += 1
        accepted = read is not None and read.status is FaceStatus.ACCEPTED
        if card is None:
            t.jokers += 1
            t.jokers_accepted += accepted
            t.wrong += accepted
            t.accepted += accepted
            continue
        if accepted:
            assert read is not None
            t.accepted += 1
            if read.card == card:
                t.right += 1
            else:
                t.wrong += 1
    return t


def designs() -> list[tuple[Path, Card | None]]:
    """The ``many_designs`` images and their labels (``None`` for a joker)."""
    with (DESIGNS / "labels.csv").open(newline="") as fh:
        return [(DESIGNS / r["file"], None if r["card"] == "joker" else Card.parse(r["card"]))
                for r in csv.DictReader(fh)]


def held_out() -> list[tuple[Path, Card | None]]:
    """The labelled single-card scenes not used for enrolment."""
    return [(SCENES / name, card) for name, card, use in suit_labels() if use == "check"]
