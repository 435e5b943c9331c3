"""The development decks of the card-photo corpus (found by ``corpus.py``) one by one: enrol
each deck on one photo per card (where the set allows), read the rest, and count per deck
(shared by ``tests/vision/test_decks.py`` and ``bench/camera.py``).

* ``webcam_deck``: 52 cards x 20 overhead webcam photos; enrolled on photo ``_1`` of each
  card, the other 19 read.
* ``blackjack_webcam``: enrolled on its 52 flattened crops; its 8 scenes read (45 cards,
  labelled by card set, no boxes).
* ``handheld_low``: ranks 2-6 (20 cards), 8-11 poor handheld photos each; enrolled on the
  first photo of each card, the rest read; with ``retake``, a card whose first photo
  enrolment refuses is enrolled from its next photo enrolment accepts (as docs/camera.md
  tells a casino to retake it), and that photo is not read.
* ``cluttered_scenes`` (the 9-A Bicycle deck) is measured by :mod:`tests.vision.corpus`.

Several photos per card (``webcam_deck(photos=(1, 11))``, ``handheld_low(k=2)``): every
one enrolled (enrolment measures the deck's own photo-to-photo spread from them,
``tablectl/vision/spread.py``), the others read, beside the one-photo rows.

A change tuned on one deck is judged by the others: every deck gets its own row, never one
pooled figure; ``many_designs`` is read with each deck's profile (designs never enrolled).
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tablectl.domain.cards import Card
from tablectl.vision.enrol import Enroller, VerificationReport, parse_deck, verify
from tablectl.vision.model import FaceStatus, NoIndexError
from tablectl.vision.profile import DeckProfile
from tablectl.vision.recognise import Recogniser

from . import corpus

WEBCAM: Final = corpus.CORPUS / "webcam_deck"
BLACKJACK: Final = corpus.CORPUS / "blackjack_webcam"
HANDHELD: Final = corpus.CORPUS / "handheld_low"


def available(folder: Path) -> bool:
    """Whether one deck's folder is there."""
    return (folder / "labels.csv").is_file()


def skip_reason(folder: Path) -> str:
    return f"the real-photo deck is not there ({folder})"


def _labels(folder: Path) -> list[tuple[Path, str]]:
    with (folder / "labels.csv").open(newline="") as fh:
        rows = list(csv.reader(fh))
    return [(folder / r[0], r[1]) for r in rows[1:] if len(r) >= 2]


def _number(path: Path) -> int:
    m = re.search(r"(\d+)\D*$", path.stem)
    return int(m.group(1)) if m else 0


@dataclass
class DeckPhotos:
    """One deck: its cards, the photos to enrol from and the single photos to read."""

    name: str
    deck: tuple[Card, ...]
    enrol: list[tuple[Path, Card]]
    singles: list[tuple[Path, Card]]
    scenes: list[tuple[Path, tuple[Card, ...]]] = field(default_factory=list)
    retakes: dict[Card, list[Path]] = field(default_factory=dict)
    """Photos to enrol a card from, in order, where its ``enrol`` photo is refused (a
    retake); the one used is then left out of ``singles``."""


def webcam_deck(step: int = 1, photos: tuple[int, ...] = (1,)) -> DeckPhotos:
    """Enrol photo ``_1`` of each card (or the photos numbered ``photos``: ``(1, 11)``
    enrols two photos per card); read every ``step``-th of the others."""
    rows = [(p, Card.parse(c)) for p, c in _labels(WEBCAM)]
    enrol = sorted(((p, c) for p, c in rows if _number(p) in photos),
                   key=lambda t: (t[1].index, _number(t[0])))
    rest = sorted(((p, c) for p, c in rows if _number(p) not in photos),
                  key=lambda t: (t[1].index, _number(t[0])))
    name = "webcam_deck" + (f"_x{len(photos)}" if len(photos) > 1 else "")
    return DeckPhotos(name, parse_deck("full"), enrol, rest[::step])


def blackjack_webcam() -> DeckPhotos:
    """Enrol the 52 crops; read the 8 scenes (no single photos are left to read)."""
    rows = _labels(BLACKJACK)
    enrol = [(p, Card.parse(c)) for p, c in rows if p.parent.name == "cards"]
    scenes = [(p, tuple(Card.parse(x) for x in c.split())) for p, c in rows
              if p.parent.name == "scenes"]
    return DeckPhotos("blackjack_webcam", parse_deck("full"), enrol, [], scenes)


def handheld_low(step: int = 1, retake: bool = False, k: int = 1) -> DeckPhotos:
    """Ranks 2-6: enrol the first photo of each card (the first ``k`` by number); read
    every ``step``-th other. With ``retake``, a card's photo enrolment refuses is replaced
    by the next of its photos (:func:`enrol`)."""
    rows = sorted(((p, Card.parse(c)) for p, c in _labels(HANDHELD)),
                  key=lambda t: (t[1].index, _number(t[0])))
    first: dict[Card, list[Path]] = {}
    for p, c in rows:
        if len(first.setdefault(c, [])) < k:
            first[c].append(p)
    enrol = [(p, c) for c, ps in first.items() for p in ps]
    rest = [(p, c) for p, c in rows if p not in first[c]]
    retakes: dict[Card, list[Path]] = {}
    if retake:
        for p, c in rest:
            retakes.setdefault(c, []).append(p)
    name = "handheld_low" + (f"_x{k}" if k > 1 else "") + ("_retaken" if retake else "")
    return DeckPhotos(name, parse_deck("2-6"), enrol, rest[::step], retakes=retakes)


@dataclass
class Enrolled:
    """A deck's profile, its verification, the photos enrolment could not use, and the
    retaken photos it used instead (not to be read)."""

    profile: DeckProfile
    report: VerificationReport
    skipped: list[str]
    retaken: list[Path] = field(default_factory=list)


RETAKE_ROUNDS: Final = 3
"""How many times the photos enrolment read back unsure are retaken (where a deck has
retakes), as docs/camera.md tells a casino to, before the profile is taken as it is."""


def enrol(photos: DeckPhotos) -> Enrolled:
    """Enrol ``photos.enrol`` (one or several photos per card; a photo with no index is
    skipped and named) and verify.

    Where the deck has retakes (``photos.retakes``), a card's photo enrolment refuses is
    replaced by its next retake, as a casino retakes it (docs/camera.md §5): one with no
    index at once, and the ones read back unsure (or wrong) for the next round, up to
    :data:`RETAKE_ROUNDS` times, the profile built again from the photos in use."""
    slots = [[path, card] for path, card in photos.enrol]
    left = {card: list(paths) for card, paths in photos.retakes.items()}
    skipped: list[str] = []
    for _ in range(RETAKE_ROUNDS + 1):
        enroller = Enroller(photos.name, "board", deck=photos.deck)
        samples = []
        for slot in slots:
            while True:
                path, card = slot
                img, _ = corpus.load(path)
                try:
                    enroller.add(img, card, path.name)
                except NoIndexError:
                    if path.name not in skipped:
                        skipped.append(path.name)
                    if left.get(card):
                        slot[0] = left[card].pop(0)
                        continue
                    break
                samples.append((path.name, img, card))
                break
        profile, report = verify(enroller.build(), samples)
        by_name = {slot[0].name: slot for slot in slots}
        again = [by_name[item] for item, _ in report.failures
                 if item in by_name and left.get(by_name[item][1])]
        if report.passed or not again:
            break
        for slot in again:
            if left.get(slot[1]):
                slot[0] = left[slot[1]].pop(0)
    first = {path for path, _ in photos.enrol}
    enrolled = {item for item, _, _ in samples}
    retaken = [slot[0] for slot in slots if slot[0] not in first and slot[0].name in enrolled]
    return Enrolled(profile, report, skipped, retaken)


@dataclass
class SingleTally:
    """Single photos of an enrolled deck: right, wrong accepted, refused, not found."""

    total: int = 0
    right: int = 0
    wrong: int = 0
    refused: int = 0
    """A card was found but not accepted."""
    not_found: int = 0
    confusions: Counter[str] = field(default_factory=Counter)
    """``"truth->read"`` of the wrong accepted reads."""

    def line(self) -> str:
        n = max(self.total, 1)
        wrong = " ".join(f"{k}x{v}" for k, v in self.confusions.most_common())
        return (f"{self.total} photos: right {self.right} ({self.right / n:.1%}), wrong "
                f"accepted {self.wrong}{' [' + wrong + ']' if wrong else ''}, refused "
                f"{self.refused}, not found {self.not_found}")


def read_singles(rec: Recogniser, items: Sequence[tuple[Path, Card]]) -> SingleTally:
    """Read single-card photos (the most confident accepted read of each)."""
    t = SingleTally()
    for path, card in items:
        img, _ = corpus.load(path)
        read = corpus.best_read(rec, img)
        t.total += 1
        if read is None or read.card is None:
            t.not_found += 1
        elif read.status is not FaceStatus.ACCEPTED:
            t.refused += 1
        elif read.card == card:
            t.right += 1
        else:
            t.wrong += 1
            t.confusions[f"{card}->{read.card}"] += 1
    return t


@dataclass
class SceneTally:
    """Scenes labelled by the set of cards they show (no boxes)."""

    cards: int = 0
    right: int = 0
    """Accepted reads of cards in the scene (each card once)."""
    wrong: int = 0
    """Accepted reads of a card not in the scene, or of one already accepted there."""
    reported: int = 0

    def line(self) -> str:
        return (f"{self.cards} cards in the scenes: accepted right {self.right} "
                f"({self.right / max(self.cards, 1):.1%}), wrong accepted {self.wrong}, "
                f"{self.reported} reads reported")


def read_scenes(rec: Recogniser, items: Sequence[tuple[Path, tuple[Card, ...]]],
                ) -> SceneTally:
    """Read each scene; every accepted read is checked against the scene's cards."""
    t = SceneTally()
    for path, cards in items:
        img, _ = corpus.load(path)
        reads = rec.read_board(img)
        t.cards += len(cards)
        t.reported += len(reads)
        left = set(cards)
        for r in reads:
            if r.status is not FaceStatus.ACCEPTED:
                continue
            if r.card in left:
                left.discard(r.card)
                t.right += 1
            else:
                t.wrong += 1
    return t


@dataclass
class DeckRow:
    """One development deck's row of the bench table."""

    name: str
    enrolment: str
    singles: SingleTally
    scenes: SceneTally | None
    designs: corpus.GateTally

    def line(self) -> str:
        s = self.singles
        n = max(s.total, 1)
        scene = ("-" if self.scenes is None else
                 f"{self.scenes.right}/{self.scenes.cards} right, {self.scenes.wrong} wrong")
        d = self.designs
        return (f"| {self.name} | {s.total} | {s.right} ({s.right / n:.1%}) | {s.wrong} | "
                f"{s.refused} | {s.not_found} | {scene} | {d.accepted} accepted, {d.wrong} "
                f"wrong, jokers {d.jokers_accepted} | {self.enrolment} |")

    def as_json(self) -> dict[str, object]:
        s = self.singles
        out: dict[str, object] = {
            "singles": s.total, "right": s.right, "wrong": s.wrong, "refused": s.refused,
            "not_found": s.not_found, "right_share": round(s.right / max(s.total, 1), 3),
            "designs_accepted": self.designs.accepted, "designs_wrong": self.designs.wrong,
            "jokers_accepted": self.designs.jokers_accepted, "enrolment": self.enrolment}
        if self.scenes is not None:
            out |= {"scene_cards": self.scenes.cards, "scene_right": self.scenes.right,
                    "scene_wrong": self.scenes.wrong}
        return out


HEADER: Final = ("| deck | singles | right | wrong accepted | refused | not found | scenes | "
                 "many_designs | enrolment read-back |")


def deck_row(photos: DeckPhotos, design_step: int = 1) -> DeckRow:
    """Enrol one deck and read its photos with the profile **as if enabled** (what the
    reader does once the casino has retaken the photos enrolment refused; the enrolment
    verdict is given beside it), and ``many_designs`` (designs never enrolled) with it."""
    enrolled = enrol(photos)
    rec = Recogniser(enrolled.profile.with_verification(True, "bench: read as if enabled"))
    singles = read_singles(rec, [(p, c) for p, c in photos.singles
                                 if p not in enrolled.retaken])
    scenes = read_scenes(rec, photos.scenes) if photos.scenes else None
    designs = corpus.read_singles(rec, corpus.designs()[::design_step])
    r = enrolled.report
    verdict = ("enabled" if r.passed else "enabled, some held back" if r.enabled
               else "not enabled")
    skipped = f", {len(enrolled.skipped)} photos with no index" if enrolled.skipped else ""
    if enrolled.retaken:
        skipped += f", {len(enrolled.retaken)} retaken"
    return DeckRow(photos.name, f"{r.correct}/{r.total} right, {r.wrong} wrong: {verdict}"
                   f"{skipped}", singles, scenes, designs)
