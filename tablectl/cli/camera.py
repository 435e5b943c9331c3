"""``tablectl camera``: deck enrolment from photos (live: :mod:`tablectl.cli.camera_live`) and
reading images. OpenCV is loaded only when a command runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tablectl.cli.camera_live import enrol_live, print_margins, print_unseen
from tablectl.cli.errors import Exit, UsageError, stops_on
from tablectl.cli.output import Subparsers, print_json
from tablectl.config_urls import check_camera_url, checked
from tablectl.domain.cards import FULL_DECK, Card
from tablectl.domain.numbers import whole
from tablectl.domain.strictjson import brief

if TYPE_CHECKING:
    from tablectl.vision.model import Image


def _deck(text: str) -> tuple[Card, ...]:
    from tablectl.vision.enrol import parse_deck
    from tablectl.vision.model import EnrolmentError

    try:
        return parse_deck(text)
    except EnrolmentError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _camera(text: str) -> str:
    """``--live``: a camera as a ``[[sources]] url`` names one (``tablectl.config_urls``)."""
    return checked(check_camera_url, text)


def _roi(text: str) -> tuple[int, int, int, int]:
    try:
        x, y, w, h = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected x,y,w,h in pixels, got {brief(text)}") from None
    if min(x, y) < 0 or min(w, h) < 8:
        raise argparse.ArgumentTypeError(f"ROI {text!r}: x, y >= 0 and w, h >= 8 please")
    return x, y, w, h


def _camera_enrol(args: argparse.Namespace) -> int:
    from tablectl.vision.enrol import enrol_images, labels_from_csv
    from tablectl.vision.model import VisionError

    out = Path(args.out)
    if (out / "profile.json").exists() and not args.force:
        raise UsageError(f"{out}: a deck profile is already there (use --force to replace it)")
    if args.live:
        return enrol_live(args, out)
    if not args.images:
        raise UsageError("camera enrol: give IMAGES, or --live CAMERA")
    from tablectl.progress import progress

    with stops_on("camera enrol", {VisionError: Exit.USAGE, OSError: Exit.USAGE}):
        labels = labels_from_csv(Path(args.labels)) if args.labels else None
        # each image is read twice: once to enrol it, once to check the profile reads it back
        with progress(f"enrolling deck {args.deck_id}", total=2 * len(args.images)) as step:
            profile, report = enrol_images(args.deck_id, [Path(p) for p in args.images],
                                           args.mode, labels, args.roi, deck=args.deck,
                                           step=step)
    profile.save(out)
    print(f"{out}: deck {profile.deck_id!r}, {len(profile.cards)} exemplars from "
          f"{report.total} images; {report.summary()}")
    print_unseen(profile)
    print_margins(profile)
    for item, read in report.failures:
        print(f"  {item}: read {read}")
    for item, card in report.skipped:
        print(f"  {item}: no card index found for {card}: not enrolled from it (retake it)")
    return Exit.OK if report.passed and not report.skipped else Exit.FAILED


def _camera_recognise(args: argparse.Namespace) -> int:
    from tablectl.vision.enrol import load_image
    from tablectl.vision.explain import draw, draw_shoe
    from tablectl.vision.model import FaceRead, VisionError
    from tablectl.vision.profile import DeckProfile
    from tablectl.vision.recognise import Recogniser

    explain = Path(args.explain) if args.explain else None
    if explain is not None and explain.exists() and not explain.is_dir():
        raise UsageError(f"camera recognise: --explain {explain}: not a directory")
    with stops_on("camera recognise", {VisionError: Exit.USAGE}):
        rec = Recogniser(DeckProfile.load(Path(args.profile)))
        images = [(p, load_image(Path(p))) for p in args.images]
    if not rec.profile.verified:
        print(f"{args.profile}: profile not verified ({rec.profile.verification}); "
              "nothing will be accepted", file=sys.stderr)
    elif not rec.profile.two_kinds:
        print(f"{args.profile}: saved before faces and index-only gates were measured: "
              "reads rest on the index alone (enrol the deck again for both)",
              file=sys.stderr)
    if rec.profile.verified and rec.profile.held_back:
        print(f"{args.profile}: held back at verification, never accepted: "
              + " ".join(map(str, rec.profile.held_back)), file=sys.stderr)
    if explain is not None:
        with stops_on(f"camera recognise: --explain {explain}", {OSError: Exit.USAGE}):
            explain.mkdir(parents=True, exist_ok=True)
    for path, img in images:
        if args.mode == "shoe":
            shoe = rec.inspect_shoe(img)
            reads = [FaceRead(shoe.card, shoe.confidence, shoe.status, None)]
        else:
            found = rec.inspect_board(img, whole_frame=True)
            reads = [FaceRead(r.card, r.confidence, r.status, q) for q, r in found]
        if explain is not None:
            drawn = (draw_shoe(img, rec.profile.shoe_roi, shoe) if args.mode == "shoe"
                     else draw(img, found))
            with stops_on("camera recognise", {OSError: Exit.USAGE}):
                _write_image(explain / f"{Path(path).stem}.explain.png", drawn)
        if args.json:
            print_json([r.as_json() for r in reads])
        else:
            text = ", ".join(f"{r.card or '--'} {r.status.value} {r.confidence:.2f}"
                             for r in reads) or "no card found"
            print(f"{path}: {text}")
    return Exit.OK


def _write_image(out: Path, drawn: Image) -> None:
    import cv2

    if not cv2.imwrite(str(out), drawn):
        raise OSError(f"{out}: cannot write the explained image")


def add_camera(sub: Subparsers) -> None:
    """Register ``tablectl camera enrol`` and ``tablectl camera recognise``."""
    p = sub.add_parser("camera", help="camera card recognition: deck enrolment, reading")
    inner = p.add_subparsers(dest="camera_command", required=True, metavar="COMMAND")
    enrol = inner.add_parser(
        "enrol", help="enrol a deck from labelled images (As.jpg, 10h.png or a CSV), verify "
                      "it by reading every image back, write the profile (exit 1 if the "
                      "verification pass is not 100%%: the profile stays disabled)")
    enrol.add_argument("--deck-id", required=True)
    enrol.add_argument("--out", required=True, metavar="DIR", help="profile directory")
    enrol.add_argument("--mode", choices=["shoe", "board"], default="board",
                       help="board: one card per image, found and warped; shoe: the index "
                            "window of a shoe camera frame (--roi)")
    enrol.add_argument("--roi", type=_roi, metavar="X,Y,W,H",
                       help="shoe mode: the index window in the frame (default: all of it)")
    enrol.add_argument("--labels", metavar="CSV", help="file,card rows instead of file names")
    enrol.add_argument("--deck", type=_deck, default=FULL_DECK, metavar="CARDS",
                       help="the cards the deck has: full (default), a rank range such as "
                            "9-A or 6-A (short decks), or card codes; enrolment must show "
                            "every rank and suit of it and says which are missing")
    enrol.add_argument("--force", action="store_true", help="replace an existing profile")
    enrol.add_argument("--live", metavar="CAMERA", type=_camera,
                       help="enrol at the table from this camera (device index, file, RTSP or "
                            "HTTP MJPEG URL): the dealer shows each card, the console "
                            "confirms, then shows every card again for verification")
    enrol.add_argument("--frames", type=whole(1, 50), default=2,
                       help="frames taken per card shown (live enrolment, default 2)")
    enrol.add_argument("images", nargs="*", metavar="IMAGE")
    enrol.set_defaults(handler=_camera_enrol)
    rec = inner.add_parser("recognise", help="read cards in images against a deck profile")
    rec.add_argument("--profile", required=True, metavar="DIR")
    rec.add_argument("--mode", choices=["shoe", "board"], default="board")
    rec.add_argument("--json", action="store_true",
                     help="one JSON list per image: {card, confidence, status, quad}")
    rec.add_argument("--explain", metavar="DIR",
                     help="also write IMAGE.explain.png into DIR: the image with every card "
                          "found, its index windows and its read drawn on it (shoe mode: the "
                          "index window and its read)")
    rec.add_argument("images", nargs="+", metavar="IMAGE")
    rec.set_defaults(handler=_camera_recognise)
