"""Deck profiles: the glyph exemplars enrolled from the deck in use, saved to a directory.

A profile directory holds ``profile.json`` (deck id, shoe ROI, thresholds, ink colours,
whether the verification pass enabled it, each card's index-only gate) and ``glyphs.npz``
(exemplar vectors and labels, and the enrolled faces). A profile that has not passed
verification never lets a read be auto-accepted.

Profiles saved before faces and index-only gates were measured (no ``gates`` in
``profile.json``) still load: they hold no faces and no gates, and their reads are judged on
the index alone, as they were when saved (``DeckProfile.two_kinds`` is then false, and
``camera recognise`` says so); enrol the deck again to get both kinds of evidence.

Only numpy is needed here (no OpenCV).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from tablectl.domain.cards import FULL_DECK, Card, Rank, Suit
from tablectl.domain.strictjson import brief
from tablectl.vision.margins import IndexGate, measure
from tablectl.vision.model import ProfileError, Thresholds
from tablectl.vision.profile_check import (
    check_arrays,
    check_npz_size,
    checked_deck_id,
    flag,
    read_meta,
    thresholds,
    unit_number,
)
from tablectl.vision.spread import (
    Captures,
    PrintGate,
    close_suits,
    kept,
    print_gates,
)

Vecs = npt.NDArray[np.float32]

FORMAT: Final = 1
_JSON: Final = "profile.json"
_NPZ: Final = "glyphs.npz"


@dataclass(frozen=True, slots=True)
class Exemplar:
    """One enrolled index: its card and the measurements of :class:`IndexGlyphs`.

    ``capture`` numbers the crop it came from (one per corner per frame); ``derived`` marks
    the rotated and blurred copies made from a capture; ``photo`` numbers the frame (one
    per :meth:`~tablectl.vision.enrol.Enroller.add`).
    """

    card: Card
    rank: Vecs
    suit: Vecs
    index: Vecs
    layout: Vecs
    chroma: Vecs
    capture: int = 0
    derived: bool = False
    photo: int = 0


def calibrate(exemplars: Sequence[Exemplar], base: Thresholds, *,
              across_photos: bool = True) -> Thresholds:
    """Loosen the print checks to the variation this rig really shows.

    Two captures of the same card (the two corners of one photo, or two frames of a fixed
    rig such as the shoe's) differ only by the camera. Where such pairs exist (at least
    8), the glyph and layout gates are relaxed so that 95% of those pairs would pass,
    within limits that keep them meaningful (accept >= 0.70, layout <= 0.15). They are
    never tightened below ``base``. The whole-index gate is not relaxed: on real
    photographs other deck designs' indices reach 0.93 against an enrolled one, so below
    that it tells nothing.

    Without ``across_photos`` (board photos, each its own view of the card) only the
    captures of one photo are paired: two photos of a card differ by more (blur, tilt,
    light), and that spread is measured card by card and bounded by the card's nearest
    rival (:mod:`tablectl.vision.spread`), never deck-wide here (deck-wide, from
    ``handheld_low``'s second photos, it let a blurred spade through as a club).
    """
    by_card: dict[Card, list[Exemplar]] = {}
    for e in exemplars:
        if not e.derived:
            by_card.setdefault(e.card, []).append(e)
    glyph, layout = [], []
    for group in by_card.values():
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if a.capture == b.capture or (a.photo != b.photo and not across_photos):
                    continue
                glyph.append(min(float(a.rank @ b.rank), float(a.suit @ b.suit)))
                layout.append(float(np.abs(a.layout - b.layout).max()))
    if len(glyph) < 8:
        return base
    return replace(
        base,
        accept=max(0.70, min(base.accept, float(np.percentile(glyph, 5)) - 0.03)),
        layout=min(0.15, max(base.layout, float(np.percentile(layout, 95)) + 0.02)),
    )


def missing_from(deck: Collection[Card], shown: Collection[Card]) -> str | None:
    """Why ``shown`` cannot enrol ``deck`` (a rank or a suit of the deck never shown), or
    ``None``. Cards may be missing as long as each rank and each suit was seen once.

    >>> from tablectl.domain.cards import parse_cards
    >>> print(missing_from(parse_cards("9s Ts 9h"), parse_cards("9s")).split("; ", 1)[1])
    missing ranks: T; missing suits: h (cards not shown: 9h Ts)
    """
    ranks = {c.rank for c in shown}
    suits = {c.suit for c in shown}
    want_r = sorted({c.rank for c in deck}, key=list(Rank).index)
    want_s = sorted({c.suit for c in deck}, key=list(Suit).index)
    no_r = [r.value for r in want_r if r not in ranks]
    no_s = [s.value for s in want_s if s not in suits]
    if not no_r and not no_s:
        return None
    parts = ([f"missing ranks: {' '.join(no_r)}"] if no_r else []) + (
        [f"missing suits: {' '.join(no_s)}"] if no_s else [])
    unseen = sorted(set(deck) - set(shown), key=lambda c: c.index)
    return ("enrolment must show every rank and every suit of the deck; " + "; ".join(parts)
            + f" (cards not shown: {' '.join(map(str, unseen))})")


@dataclass(frozen=True, slots=True, eq=False)
class DeckProfile:
    """Everything the recogniser knows about one physical deck design.

    Rows of the arrays are exemplars sorted by card; ``cards[i]`` labels row ``i`` of every
    array. Build with :meth:`from_exemplars`; enable with :meth:`with_verification`.

    Attributes:
        deck_id: the operator's name for the deck (matches the RFID deck id when both exist).
        cards: label of each exemplar row.
        rank_vecs, suit_vecs, index_vecs: normalised glyph vectors, one row per exemplar.
        layouts: index layout vectors, one row per exemplar.
        suit_chroma: mean paper-relative ink colour per enrolled suit.
        shoe_roi: ``(x, y, w, h)`` of the index window in shoe frames, or ``None``.
        thresholds: the decision gate.
        verified: ``True`` once a verification pass read every enrolled card back right.
        verification: a one-line summary of the last verification pass.
        deck: the cards this deck has (all 52, or a short deck such as 9..A); cards of the
            deck that were not enrolled are read from their rank and suit glyphs.
        index_on_card: where the index sits on this deck's cards, measured at enrolment:
            its top-left corner's offset from the card's corner (fractions of the card's
            width and height) and its height (fraction of the card's height); ``None``
            for a shoe profile, or one saved before this was measured (a standard card's
            is then assumed). Used to place a card found by its index alone.
        held_back: cards whose verification read was unsure: never accepted (always sent
            to the dealer) until the deck is enrolled again.
        face_cards, face_vecs: the enrolled faces (:mod:`tablectl.vision.face`), one row
            per board photo whose card was found whole; empty for a shoe profile.
        gates: each enrolled card's index-only gate (:mod:`tablectl.vision.margins`);
            empty in a profile saved before they were measured.
        noise: the deck's capture-to-capture index noise the gates were set from.
        print_gates: the layout and whole-index gates of each card enrolled from two or
            more photos, measured from how far its photos lie from each other
            (:mod:`tablectl.vision.spread`); a read that passes only these (not the
            deck's ``thresholds``) is accepted only when its face agrees.
        close_suits: the suits whose glyphs the enrolment photos could not tell apart
            (:func:`~tablectl.vision.spread.close_suits`): a read of one is accepted only
            if its face fits the card read at least as well as the same rank of any
            other suit.
        pip_suits, pip_vecs: the pips of the enrolled number cards whose pips read as
            their rank (:mod:`tablectl.vision.pips`), one normalised glyph per pip turned
            upright, and each one's suit: the deck's own pip shapes, to tell a read's suit
            by its pips.
    """

    deck_id: str
    cards: tuple[Card, ...]
    rank_vecs: Vecs
    suit_vecs: Vecs
    index_vecs: Vecs
    layouts: Vecs
    suit_chroma: dict[Suit, tuple[float, float]]
    shoe_roi: tuple[int, int, int, int] | None = None
    thresholds: Thresholds = field(default_factory=Thresholds)
    verified: bool = False
    verification: str = "not verified"
    deck: tuple[Card, ...] = FULL_DECK
    index_on_card: tuple[float, float, float] | None = None
    held_back: tuple[Card, ...] = ()
    face_cards: tuple[Card, ...] = ()
    face_vecs: Vecs | None = None
    gates: dict[Card, IndexGate] = field(default_factory=dict)
    noise: float = 0.0
    print_gates: dict[Card, PrintGate] = field(default_factory=dict)
    close_suits: frozenset[Suit] = frozenset()
    pip_suits: tuple[Suit, ...] = ()
    pip_vecs: Vecs | None = None

    def vectors(self) -> dict[str, Vecs | None]:
        """The exemplar and face vectors by name (``rank``, ``suit``, ``index``, ``layout``,
        ``face``)."""
        return {"rank": self.rank_vecs, "suit": self.suit_vecs, "index": self.index_vecs,
                "layout": self.layouts, "face": self.face_vecs}

    @property
    def two_kinds(self) -> bool:
        """Whether reads are judged on two kinds of evidence (index and face, else the
        per-card index-only gate); false for a profile saved before those were measured."""
        return bool(self.gates)

    @classmethod
    def from_exemplars(cls, deck_id: str, exemplars: Sequence[Exemplar],
                       shoe_roi: tuple[int, int, int, int] | None = None,
                       thresholds: Thresholds | None = None,
                       deck: Collection[Card] = FULL_DECK, *,
                       index_on_card: tuple[float, float, float] | None = None,
                       faces: Sequence[tuple[Card, Vecs]] = (),
                       pips: Sequence[tuple[Suit, Vecs]] = (),
                       across_photos: bool = True,
                       ) -> DeckProfile:
        """Assemble a (not yet verified) profile of ``deck``; without ``thresholds``, the
        defaults as :func:`calibrate` relaxes them for this rig. ``across_photos``: the
        frames of a fixed rig (the shoe): every frame's glyphs are exemplars and the gates
        are relaxed from pairs of frames; else (board photos) only each card's first
        photo's glyphs are, and the later photos measure the card's own spread
        (:mod:`tablectl.vision.spread`).

        Raises:
            ProfileError: an empty or overlong deck id, or one with control characters; no
                exemplars, a card that is not in ``deck``, or a rank or suit
                of ``deck`` that no exemplar shows (the message names what is missing).
        """
        deck_id = checked_deck_id(deck_id)
        if not exemplars:
            raise ProfileError("no exemplars: nothing was enrolled")
        cards = tuple(sorted(set(deck), key=lambda c: c.index))
        order = sorted(exemplars, key=lambda e: (e.card.index, e.photo))
        strays = sorted({e.card for e in order} - set(cards), key=lambda c: c.index)
        if strays:
            raise ProfileError("not in this deck: " + " ".join(map(str, strays)))
        problem = missing_from(cards, {e.card for e in order})
        if problem:
            raise ProfileError(problem)
        chroma: dict[Suit, tuple[float, float]] = {}
        for s in sorted({c.suit for c in cards}, key=list(Suit).index):
            rows = np.stack([e.chroma for e in order if e.card.suit is s])
            med = np.median(rows, axis=0)
            chroma[s] = (float(med[0]), float(med[1]))
        caps = Captures([e.card for e in order], photos=[e.photo for e in order],
                        captures=[e.capture for e in order],
                        derived=[e.derived for e in order],
                        **{k: np.stack([getattr(e, k) for e in order]).astype(np.float32)
                           for k in ("rank", "suit", "index", "layout")})
        # a fixed rig's frames are all exemplars, as before; of board photos, each card's
        # first (the later ones measure its spread: spread.py)
        keep = np.ones(len(order), bool) if across_photos else kept(caps)
        order = [e for e, k in zip(order, keep.tolist(), strict=True) if k]
        th = thresholds or calibrate(order, Thresholds(), across_photos=across_photos)
        rank_vecs = np.stack([e.rank for e in order]).astype(np.float32)
        margins = measure([e.card for e in order], rank_vecs, [e.capture for e in order],
                          [e.derived for e in order])
        faces = [f for f in faces if f[0] in set(cards)]
        return cls(
            deck_id=deck_id,
            cards=tuple(e.card for e in order),
            rank_vecs=rank_vecs,
            suit_vecs=np.stack([e.suit for e in order]).astype(np.float32),
            index_vecs=np.stack([e.index for e in order]).astype(np.float32),
            layouts=np.stack([e.layout for e in order]).astype(np.float32),
            suit_chroma=chroma,
            shoe_roi=shoe_roi,
            thresholds=th,
            deck=cards,
            index_on_card=index_on_card,
            face_cards=tuple(c for c, _ in faces),
            face_vecs=np.stack([v for _, v in faces]).astype(np.float32) if faces else None,
            gates=margins.gates,
            noise=margins.noise,
            print_gates=print_gates(caps, keep, th.layout, th.index),
            close_suits=frozenset(Suit(s) for s in close_suits(caps, keep)),
            pip_suits=tuple(s for s, _ in pips),
            pip_vecs=np.stack([v for _, v in pips]).astype(np.float32) if pips else None,
        )

    @property
    def unseen(self) -> tuple[Card, ...]:
        """Cards of the deck that were not enrolled (read from rank and suit glyphs)."""
        seen = set(self.cards)
        return tuple(c for c in self.deck if c not in seen)

    def with_verification(self, passed: bool, summary: str,
                          held_back: Collection[Card] = ()) -> DeckProfile:
        """A copy marked verified (enabled) or not, with the pass's summary and the cards
        it holds back."""
        return replace(self, verified=passed, verification=summary,
                       held_back=tuple(sorted(set(held_back), key=lambda c: c.index)))

    def save(self, directory: Path) -> None:
        """Write ``profile.json`` and ``glyphs.npz`` into ``directory`` (created if needed)."""
        directory.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": FORMAT,
            "deck_id": self.deck_id,
            "shoe_roi": list(self.shoe_roi) if self.shoe_roi else None,
            "thresholds": self.thresholds.as_dict(),
            "suit_chroma": {s.value: list(v) for s, v in self.suit_chroma.items()},
            "verified": self.verified,
            "verification": self.verification,
            "exemplars": len(self.cards),
            "deck": [str(c) for c in self.deck],
            "index_on_card": list(self.index_on_card) if self.index_on_card else None,
            "held_back": [str(c) for c in self.held_back],
            "gates": {str(c): g.as_json() for c, g in self.gates.items()},
            "noise": round(self.noise, 4),
            "print_gates": {str(c): g.as_json() for c, g in self.print_gates.items()},
            "close_suits": sorted(s.value for s in self.close_suits),
        }
        arrays: dict[str, npt.NDArray[np.generic]] = {
            "cards": np.array([str(c) for c in self.cards]),
            "rank": self.rank_vecs, "suit": self.suit_vecs, "index": self.index_vecs,
            "layout": self.layouts}
        if self.face_vecs is not None:
            arrays["face_cards"] = np.array([str(c) for c in self.face_cards])
            arrays["face"] = self.face_vecs
        if self.pip_vecs is not None:
            arrays["pip_suits"] = np.array([s.value for s in self.pip_suits])
            arrays["pips"] = self.pip_vecs
        np.savez_compressed(directory / _NPZ, allow_pickle=False, **arrays)
        (directory / _JSON).write_text(json.dumps(meta, indent=2) + "\n")

    @classmethod
    def load(cls, directory: Path) -> DeckProfile:
        """Read a profile directory written by :meth:`save`.

        Raises:
            ProfileError: missing files, unknown format, or inconsistent content.
        """
        meta_path, npz_path = directory / _JSON, directory / _NPZ
        try:
            meta = read_meta(meta_path)
            check_npz_size(npz_path)
            with np.load(npz_path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in ("cards", "rank", "suit", "index", "layout")}
                if "face" in data:  # absent in profiles saved before faces were enrolled
                    arrays["face"] = data["face"]
                    arrays["face_cards"] = data["face_cards"]
                if "pips" in data:  # absent in profiles saved before pips were enrolled
                    arrays["pips"] = data["pips"]
                    arrays["pip_suits"] = data["pip_suits"]
        except ProfileError:
            raise
        except FileNotFoundError as exc:
            raise ProfileError(f"not a deck profile (missing {Path(exc.filename).name})",
                               str(directory)) from exc
        except (OSError, ValueError, KeyError) as exc:
            raise ProfileError(f"unreadable deck profile: {exc}", str(directory)) from exc
        if meta.get("format") != FORMAT:
            raise ProfileError(f"unsupported profile format (want {FORMAT})", str(directory))
        try:
            check_arrays(arrays)
            cards = tuple(Card.parse(str(c)) for c in arrays["cards"])
            roi = meta.get("shoe_roi")
            return cls(
                deck_id=checked_deck_id(meta["deck_id"]),
                cards=cards,
                rank_vecs=arrays["rank"].astype(np.float32),
                suit_vecs=arrays["suit"].astype(np.float32),
                index_vecs=arrays["index"].astype(np.float32),
                layouts=arrays["layout"].astype(np.float32),
                suit_chroma={Suit(k): (unit_number(v[0], f"suit_chroma.{k}", -8.0, 8.0),
                                       unit_number(v[1], f"suit_chroma.{k}", -8.0, 8.0))
                             for k, v in _object(meta["suit_chroma"]).items()},
                shoe_roi=None if roi is None else _roi(roi),
                thresholds=Thresholds(**thresholds(meta["thresholds"])),
                verified=flag(meta["verified"], "verified"),
                verification=str(meta.get("verification", "")),
                deck=(FULL_DECK if "deck" not in meta
                      else _cards(meta["deck"], "deck")),
                index_on_card=_geometry(meta.get("index_on_card")),
                held_back=_cards(meta.get("held_back", []), "held_back"),
                face_cards=tuple(Card.parse(str(c)) for c in arrays.get("face_cards", ())),
                face_vecs=(arrays["face"].astype(np.float32) if "face" in arrays else None),
                gates={Card.parse(k): IndexGate.from_json(v)
                       for k, v in _object(meta.get("gates", {})).items()},
                noise=unit_number(meta.get("noise", 0.0), "noise"),
                print_gates={Card.parse(k): PrintGate.from_json(v)
                             for k, v in _object(meta.get("print_gates", {})).items()},
                close_suits=_suits(meta.get("close_suits", [])),
                pip_suits=tuple(Suit(str(x)) for x in arrays.get("pip_suits", ())),
                pip_vecs=(arrays["pips"].astype(np.float32) if "pips" in arrays else None),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ProfileError(f"inconsistent deck profile: {exc}", str(directory)) from exc


def _object(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected an object, got {brief(value)}")
    return value


def _suits(value: object) -> frozenset[Suit]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise ValueError(f"close_suits: expected a list of suits, got {brief(value)}")
    return frozenset(Suit(s) for s in value)


def _cards(value: object, where: str) -> tuple[Card, ...]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise ValueError(f"{where}: expected a list of card codes, got {brief(value)}")
    return tuple(Card.parse(c) for c in value)


def _roi(value: object) -> tuple[int, int, int, int]:
    """The saved ``shoe_roi``: four whole numbers, a window of at least one pixel."""
    if (not isinstance(value, list) or len(value) != 4
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise ValueError(f"shoe_roi: expected four whole numbers, got {brief(value)}")
    x, y, w, h = value
    if x < 0 or y < 0 or w < 1 or h < 1:
        raise ValueError(f"shoe_roi: {value!r} is not a window")
    return x, y, w, h


def _geometry(value: object) -> tuple[float, float, float] | None:
    """The saved ``index_on_card`` (absent in profiles saved before it was measured)."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 3:
        raise ValueError(f"index_on_card: expected 3 numbers, got {brief(value)}")
    x, y, h = (unit_number(v, "index_on_card") for v in value)
    if not (0.0 <= x < 0.5 and 0.0 <= y < 0.5 and 0.0 < h < 0.6):
        raise ValueError(f"index_on_card: {value!r} is not where an index can be")
    return x, y, h
