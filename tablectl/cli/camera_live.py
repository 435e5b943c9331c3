"""``tablectl camera enrol --live``: the dealer shows each card to a camera, the console
confirms each capture, then every card is shown once more to verify the profile
(:class:`tablectl.vision.live.LiveEnrolment` is the sans-IO core; this is its terminal)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tablectl.cli.errors import CommandError, Exit, UsageError, stops_on

if TYPE_CHECKING:
    from tablectl.vision.profile import DeckProfile


def _ask(prompt: str) -> str | None:
    """Print ``prompt``; the dealer's answer from stdin, lower-cased (None at its end)."""
    print(prompt, flush=True)
    line = sys.stdin.readline()
    return None if line == "" else line.strip().lower()


def enrol_live(args: argparse.Namespace, out: Path) -> int:
    """Enrol the deck ``args.deck_id`` from the camera ``args.live`` and save its profile in
    ``out``; exit 0 if the verification pass read every card back."""
    from tablectl.vision.live import CaptureReader, LiveEnrolment, LivePhase
    from tablectl.vision.model import VisionError

    try:
        reader = CaptureReader(args.live)
    except VisionError as exc:
        raise UsageError(f"camera enrol: {exc}") from exc
    live = LiveEnrolment(args.deck_id, args.mode, args.roi, args.deck)
    with stops_on("camera enrol", {VisionError: Exit.FAILED}):
        try:
            while live.phase is LivePhase.ENROL:
                card = live.current
                done, total = live.progress
                if _ask(f"[{done + 1}/{total}] show {card} to the camera, then press Enter "
                        "(q to stop)") in (None, "q"):
                    raise CommandError("camera enrol: stopped; nothing written")
                if not live.capture(reader.read(args.frames)):
                    print(f"no card index found: show {card} again")
                    continue
                answer = _ask(f"captured {card}: Enter to confirm, r to show it again")
                if answer is None:
                    return Exit.FAILED
                if answer.startswith("r"):
                    live.retake()
                    continue
                live.confirm()
            print("verification: show every card once more")
            while live.phase is LivePhase.VERIFY:
                card = live.current
                done, total = live.progress
                if _ask(f"[{done + 1}/{total}] verify: show {card}, then press Enter") is None:
                    return Exit.FAILED
                frames = reader.read(1)
                if not frames:
                    raise CommandError("camera enrol: the camera stopped")
                live.check(frames[0])
            profile, report = live.result()
        finally:
            reader.close()
    profile.save(out)
    print(f"{out}: deck {profile.deck_id!r} enrolled live; {report.summary()}")
    print_unseen(profile)
    print_margins(profile)
    for item, read in report.failures:
        print(f"  {item}: read {read}")
    return Exit.OK if report.passed else Exit.FAILED


def print_margins(profile: DeckProfile, n: int = 8) -> None:
    """Print what enrolment measured of its own deck: the closest pairs of cards by their
    index and by their face (leave-one-out over the photos), and the cards that need the
    face as well."""
    from tablectl.vision.margins import closest_pairs

    if not profile.gates:
        return
    pairs = closest_pairs(profile.gates, n)
    print(f"  closest pairs by index (rank glyph correlation; the deck's own noise "
          f"{profile.noise:.3f}):")
    for card, gate in pairs:
        verdict = ("too close to tell by the index alone: accepted only when the face "
                   "agrees" if gate.margin is None
                   else f"index alone needs a rank margin of {gate.margin:.2f}")
        print(f"    {card}/{gate.rival} {gate.closeness:.3f}: {verdict}")
    need = sorted((c for c, g in profile.gates.items() if g.margin is None),
                  key=lambda c: c.index)
    if need:
        print(f"  {len(need)} card(s) accepted only when their face agrees with the index: "
              + " ".join(map(str, need)))
    if profile.face_vecs is not None and profile.face_cards:
        from tablectl.vision.face import FaceBook

        book = FaceBook(profile.face_cards, profile.face_vecs)
        print("  closest pairs by face (leave-one-out over the enrolled faces; a read's face "
              "must beat the nearest other rank by the margin given):")
        for card, rival, close in book.closest(n):
            margin = book.gate(card)
            verdict = ("too close to tell by the face: the index alone decides"
                       if margin is None else f"face margin {margin:.2f}")
            print(f"    {card}/{rival} {close:.3f}: {verdict}")
    print_spread(profile)
    faceless = sorted(set(profile.cards) - set(profile.face_cards), key=lambda c: c.index)
    if faceless:
        print(f"  no face enrolled for {' '.join(map(str, faceless))} (no outline found in "
              "its photo): those are judged by their index-only gate")


def print_unseen(profile: DeckProfile) -> None:
    """Say which cards of the deck were never shown, and how they will be read."""
    if profile.unseen:
        n = len(profile.unseen)
        print(f"  {n} card{'s' if n > 1 else ''} of the deck {'were' if n > 1 else 'was'} "
              "not shown "
              f"({' '.join(map(str, profile.unseen))}): each is read from its rank and suit "
              "glyphs learnt apart and accepted only when both match as closely as a whole "
              "enrolled index; otherwise it goes to the dealer. Show them too for the "
              "most auto-accepts.")


def print_spread(profile: DeckProfile, n: int = 8) -> None:
    """Print what several photos per card told enrolment (:mod:`tablectl.vision.spread`):
    each card's print gates measured from its own photos (the loosest first), and the
    suits the photos could not tell apart by their glyphs."""
    gates = profile.print_gates
    if gates:
        t = profile.thresholds
        print(f"  spread between photos of the same card ({len(gates)} card(s) shown in two "
              f"or more photos; the deck's gates: layout {t.layout:.2f}, index "
              f"{t.index:.2f}; a read passing only its card's own is accepted only when "
              "its face agrees):")
        loosest = sorted(gates.items(), key=lambda cg: (cg[1].index - cg[1].layout,
                                                        cg[0].index))
        for card, g in loosest[:n]:
            print(f"    {card}: layout {g.layout:.2f}, index {g.index:.2f} "
                  f"({g.photos} photos)")
    else:
        print("  one photo per card: the deck's own spread between photos of a card is not "
              "measured (two or three photos of each card let enrolment measure it)")
    if profile.close_suits:
        suits = " ".join(s.value for s in sorted(profile.close_suits, key=lambda s: s.value))
        print(f"  suits too close to tell by their glyphs in these photos: {suits}: a read "
              "of one is accepted only when its face fits it at least as well as the "
              "other suits of its rank")
