"""Camera recognition on one core: latency, and what it reads on real and harsh frames.

Targets: <= 30 ms per overhead frame with up to 8 cards (640x480, and 1280x720 from the
harsh renderer of hardware_sim/camera_scene.py), <= 5 ms per shoe index read. Baselines
measured in the same run on the same frames: decoding the frame from JPEG (what every
MJPEG/RTSP frame costs before any recognition), and for the shoe the grey conversion plus
Otsu threshold of the index window (the least any reader does).

Real photographs (``../shared/corpus/cards``, skipped when absent; see
tests/vision/corpus.py): localisation recall on every scene, rank reading on the scenes'
found cards and of every card in the scenes (found by outline or index corner), held-out
photos of the enrolled deck, and ``many_designs`` (other designs and jokers: wrong among
accepted). ``--real-step N`` uses every N-th scene and design image.

Then one table row per development deck (tests/vision/decks.py: ``webcam_deck``,
``blackjack_webcam``, ``handheld_low``): enrolled on one photo per card where the set allows,
the rest read (right, wrong accepted, refused, not found), its scenes, and ``many_designs``
read with that deck's profile; ``handheld_low`` once more with the photos enrolment
refused retaken (``handheld_low_retaken``). Each deck is judged on its own row, never pooled.
Then ``webcam_deck`` and ``handheld_low`` enrolled on two and three photos per card
(``_x2``, ``_x3``: photos ``_1``, ``_11`` (and ``_6``) of the webcam deck, the first two or
three by number of the hand-held one) and read on the rest.
``--deck-step N`` reads every N-th single photo of a deck.

Each timing is given as wall-clock median and p95 and as the median and p95 CPU time of
the call (``cpu_median_ms``, ``cpu_p95_ms``), which a loaded, shared machine inflates far
less.

Run: ``.venv/bin/python bench/camera.py [--frames N]``. The last line is one JSON object.
``--timing-only`` leaves out the real photos: to pair the cost with other code, run this
script from a checkout of that code (``PYTHONPATH`` at it) and from this one, alternately.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from hardware_sim.camera import SHOE_ROI, DeckStyle, SimCamera, random_style
from hardware_sim.camera_scene import TABLE_FRAME, SceneCamera
from tablectl.domain.cards import FULL_DECK
from tablectl.vision.enrol import Enroller
from tablectl.vision.frozen import FrozenFeed
from tablectl.vision.liveboard import FRAME_READS, LiveBoard
from tablectl.vision.locate import quad_box
from tablectl.vision.model import FaceStatus, Image
from tablectl.vision.recognise import Recogniser
from tablectl.vision.stillness import Stillness

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.vision import corpus, decks


def _times(fn: Callable[[Image], object], items: Sequence[Image],
           repeat: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds of each call (the CPU time is the figure that a
    shared, loaded machine leaves comparable: one thread, so it is the work done)."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        for item in items:
            c0 = time.thread_time()
            t0 = time.perf_counter()
            fn(item)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
    return wall, cpu


def _summary(times: tuple[list[float], list[float]]) -> dict[str, float]:
    ms = sorted(times[0])
    cpu = sorted(times[1])
    return {"median_ms": round(statistics.median(ms), 3),
            "p95_ms": round(ms[math.ceil(0.95 * (len(ms) - 1))], 3),
            "cpu_median_ms": round(statistics.median(cpu), 3),
            "cpu_p95_ms": round(cpu[math.ceil(0.95 * (len(cpu) - 1))], 3)}


def main() -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=40, help="board frames per layout")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--real-step", type=int, default=1,
                    help="use every N-th real photo (1: all)")
    ap.add_argument("--deck-step", type=int, default=1,
                    help="read every N-th single photo of each development deck (1: all)")
    ap.add_argument("--decks-only", action="store_true",
                    help="only the per-deck table (no timings, no cluttered scenes)")
    ap.add_argument("--hold", type=int, default=10,
                    help="frames each scene of the live stream is held (default 10)")
    ap.add_argument("--frame-reads", type=int, default=FRAME_READS,
                    help=f"index reads a live frame may make (default {FRAME_READS})")
    ap.add_argument("--timing-only", action="store_true",
                    help="only the timings (no real photos): for runs paired with other code")
    args = ap.parse_args()
    small = [f"--{k.replace('_', '-')}" for k in ("frames", "repeat", "hold", "frame_reads")
             if getattr(args, k) < 1]
    if small:
        ap.error(f"{', '.join(small)} must be at least 1")
    cv2.setNumThreads(1)
    if args.decks_only:
        print(json.dumps({"decks": _decks(args.deck_step, args.real_step)}))
        return
    style = random_style(21)

    # Enrol board and shoe profiles of one deck (not timed).
    enrol = SimCamera(1, style, strength=0.4)
    board_e = Enroller("bench", "board")
    shoe_e = Enroller("bench", "shoe", SHOE_ROI)
    for card in FULL_DECK:
        board_e.add(enrol.board_frame([card], (95, 110))[0], card)
        shoe_e.add(enrol.shoe_frame(card), card)
    board_rec = Recogniser(board_e.build().with_verification(True, "bench"))
    shoe_rec = Recogniser(shoe_e.build().with_verification(True, "bench"))

    cam = SimCamera(2, style, strength=1.0)
    results: dict[str, object] = {"cv2": cv2.__version__, "threads": cv2.getNumThreads()}
    for name, n_cards, width in (("board_8_cards_85_100px", 8, (85.0, 100.0)),
                                 ("board_4_cards_110_130px", 4, (110.0, 130.0))):
        frames = [cam.board_frame(cam.shuffled_deck()[:n_cards], width)[0]
                  for _ in range(args.frames)]
        jpegs = [cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 90])[1] for f in frames]
        read = _summary(_times(board_rec.read_board, frames, args.repeat))
        base = _summary(_times(lambda j: cv2.imdecode(j, cv2.IMREAD_COLOR), jpegs,
                               args.repeat))
        reads = [board_rec.read_board(f) for f in frames]
        found = sum(len(r) for r in reads) / (n_cards * len(frames))
        accepted = sum(r.status is FaceStatus.ACCEPTED for rs in reads for r in rs)
        results[name] = {**read, "baseline_jpeg_decode": base,
                         "ratio_to_baseline": round(read["median_ms"] / base["median_ms"], 1),
                         "found": round(found, 3),
                         "accepted": round(accepted / (n_cards * len(frames)), 3)}
        print(f"{name}: {read['median_ms']:.1f} ms median, {read['p95_ms']:.1f} ms p95 per "
              f"640x480 frame ({read['cpu_median_ms']:.1f} ms CPU; target <= 30); JPEG "
              f"decode baseline "
              f"{base['median_ms']:.2f} ms; cards found {found:.1%}")

    results["table_1280x720_8_cards"] = _table(board_rec, style, args.frames, args.repeat)
    results["live_1280x720_8_cards"] = _live(board_rec, style, args.frames, args.hold,
                                             args.frame_reads)

    x, y, w, h = SHOE_ROI
    crops = [cam.shoe_frame(c)[y:y + h, x:x + w].copy() for c in FULL_DECK * 4]

    def otsu(img: Image) -> object:
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        return cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)

    shoe = _summary(_times(shoe_rec.read_index, crops, args.repeat))
    base = _summary(_times(otsu, crops, args.repeat))
    ok = float(np.mean([shoe_rec.read_index(c).status is FaceStatus.ACCEPTED for c in crops]))
    results["shoe_index_read"] = {**shoe, "baseline_grey_otsu": base,
                                  "ratio_to_baseline": round(shoe["median_ms"]
                                                             / base["median_ms"], 1),
                                  "accepted": round(ok, 3)}
    print(f"shoe index read: {shoe['median_ms']:.2f} ms median, {shoe['p95_ms']:.2f} ms p95 "
          f"({shoe['cpu_median_ms']:.2f} ms CPU; {w}x{h} window; target <= 5); grey+Otsu "
          f"baseline {base['median_ms']:.3f} ms")
    if not args.timing_only:
        results["real"] = _real(args.real_step)
        results["decks"] = _decks(args.deck_step, args.real_step)
    print(json.dumps(results))


def _decks(step: int, design_step: int) -> dict[str, object]:
    """One row per development deck (skipped where its folder is absent)."""
    out: dict[str, object] = {}
    print(decks.HEADER)
    print("|" + " --- |" * decks.HEADER.count(" | ") + " --- |")
    sets: list[tuple[Path, Callable[[], decks.DeckPhotos]]] = [
        (decks.WEBCAM, lambda: decks.webcam_deck(step)),
        (decks.BLACKJACK, decks.blackjack_webcam),
        (decks.HANDHELD, lambda: decks.handheld_low(step)),
        (decks.HANDHELD, lambda: decks.handheld_low(step, retake=True)),
        # several photos per card (spread.py): the one-photo rows above stay beside them
        (decks.WEBCAM, lambda: decks.webcam_deck(step, photos=(1, 11))),
        (decks.WEBCAM, lambda: decks.webcam_deck(step, photos=(1, 6, 11))),
        (decks.HANDHELD, lambda: decks.handheld_low(step, k=2)),
        (decks.HANDHELD, lambda: decks.handheld_low(step, k=3))]
    for folder, photos in sets:
        if not decks.available(folder) or not corpus.available():
            print(f"{folder.name}: skipped, {decks.skip_reason(folder)}")
            continue
        row = decks.deck_row(photos(), design_step)
        print(row.line(), flush=True)
        out[row.name] = row.as_json()
    return out


def _table(rec: Recogniser, style: DeckStyle, n: int, repeat: int) -> dict[str, object]:
    """Harsh 1280x720 frames (real-looking tables, any rotation, tilt, vignette, blur,
    phone JPEG) with 8 cards 120-170 px wide: time per frame, cards found and read."""
    cam = SceneCamera(3, style, strength=1.0)
    shots = [cam.frame(cam.shuffled_deck()[:8]) for _ in range(max(n, 1))]
    frames = [f for f, _ in shots]
    jpegs = [cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 90])[1] for f in frames]
    read = _summary(_times(rec.read_board, frames, repeat))
    base = _summary(_times(lambda j: cv2.imdecode(j, cv2.IMREAD_COLOR), jpegs, repeat))
    cards = found = right = accepted = wrong = 0
    for frame, truth in shots:
        reads = [r for r in rec.read_board(frame) if r.quad is not None]
        boxes = [quad_box((t.quad[0], t.quad[1], t.quad[2], t.quad[3])) for t in truth]
        quads = [quad_box(r.quad) for r in reads if r.quad is not None]
        cards += len(truth)
        for i, j in corpus.matches(quads, boxes):
            found += 1
            r = reads[i]
            right += r.card == truth[j].face
            if r.status is FaceStatus.ACCEPTED:
                accepted += 1
                wrong += r.card != truth[j].face
    out = {**read, "baseline_jpeg_decode": base,
           "ratio_to_baseline": round(read["median_ms"] / base["median_ms"], 1),
           "found": round(found / cards, 3), "right": round(right / cards, 3),
           "accepted": round(accepted / cards, 3), "wrong_accepted": wrong}
    w, h = TABLE_FRAME
    print(f"table {w}x{h}, 8 cards (harsh renderer): {read['median_ms']:.1f} ms median, "
          f"{read['p95_ms']:.1f} ms p95 per frame ({read['cpu_median_ms']:.1f} ms CPU, p95 "
          f"{read['cpu_p95_ms']:.1f} ms; target <= 30, p95 <= 45); JPEG decode baseline "
          f"{base['median_ms']:.2f} ms; found {found / cards:.1%}, read right "
          f"{right / cards:.1%}, accepted {accepted / cards:.1%}, wrong accepted {wrong}")
    return out


def _live(rec: Recogniser, style: DeckStyle, n: int, hold: int,
          frame_reads: int) -> dict[str, object]:
    """The table frames of :func:`_table` as a live camera sees them: each scene held
    ``hold`` frames (the renderer's frame, fresh sensor noise on each), read in turn by
    :class:`~tablectl.vision.liveboard.LiveBoard`. CPU per frame is the process's (the
    further looks run in a thread of their own, never beside the frame loop). Baselines in
    the same run, on the same frames: a second ``LiveBoard`` that finds the cards afresh on
    every frame (none taken for still: the frame loop of a scene that moves on every frame,
    a hand over the table), the two read frame by frame in turn; and each scene's frame
    read whole (``Recogniser.inspect_board``). Also: for the scenes whose first pass leaves
    something unread, the frames until their further looks end (``hold`` + 1 where they do
    not end within the scene)."""
    cam = SceneCamera(3, style, strength=1.0)
    frames = [cam.frame(cam.shuffled_deck()[:8])[0] for _ in range(max(n, 1))]
    rng = np.random.default_rng(7)
    live = LiveBoard(rec.profile, frame_reads)
    every = LiveBoard(rec.profile, frame_reads, Stillness(noise_levels=-1.0))
    frozen = FrozenFeed()
    per_frame_frozen: list[float] = []
    per_frame: list[float] = []
    per_frame_every: list[float] = []
    first_only: list[float] = []
    whole: list[float] = []
    ended: list[int] = []
    found_again = unread = 0
    try:
        for frame in frames:
            c0 = time.process_time()
            rec.inspect_board(frame)
            whole.append((time.process_time() - c0) * 1000)
            done, end = live.looks_done, None
            for k in range(max(hold, 1)):
                noisy = cv2.add(frame, rng.normal(0, 2, frame.shape).astype(np.int16),
                                dtype=cv2.CV_8U)
                c0 = time.process_time()
                frozen.update(noisy, len(per_frame_frozen) / 30.0)
                per_frame_frozen.append((time.process_time() - c0) * 1000)
                c0 = time.process_time()
                live.read(noisy)
                per_frame.append((time.process_time() - c0) * 1000)
                found_again += live.found_again
                unread += live.unread
                c0 = time.process_time()
                every.read(noisy)
                per_frame_every.append((time.process_time() - c0) * 1000)
                if k == 0:
                    first_only.append(per_frame[-1])
                if end is None and live.looks_done > done:
                    end = k
            if live.looking or end is not None:
                ended.append(end if end is not None else hold + 1)
    finally:
        live.close()
        every.close()

    def q(v: list[float], p: float) -> float:
        v = sorted(v)
        return round(v[math.ceil(p * (len(v) - 1))], 3)

    out = {"cpu_median_ms": round(statistics.median(per_frame), 3),
           "cpu_p95_ms": q(per_frame, 0.95), "cpu_max_ms": q(per_frame, 1.0),
           "scene_first_frame_median_ms": round(statistics.median(first_only), 3),
           "scene_first_frame_p95_ms": q(first_only, 0.95),
           "frames_found_afresh": found_again, "frames_not_read": unread,
           "frames": len(per_frame),
           "baseline_found_every_frame_median_ms": round(statistics.median(per_frame_every),
                                                         3),
           "baseline_found_every_frame_p95_ms": q(per_frame_every, 0.95),
           "baseline_whole_read_median_ms": round(statistics.median(whole), 3),
           "baseline_whole_read_p95_ms": q(whole, 0.95),
           "ratio_p95_to_found_every_frame": round(q(per_frame, 0.95)
                                                   / q(per_frame_every, 0.95), 2),
           "ratio_p95_to_baseline": round(q(per_frame, 0.95) / q(whole, 0.95), 2),
           "frozen_check_median_ms": round(statistics.median(per_frame_frozen), 4),
           "hold": hold, "frame_reads": frame_reads, "scenes_looked": len(ended),
           "frames_to_looks_median": statistics.median(ended) if ended else 0,
           "frames_to_looks_max": max(ended, default=0)}
    print(f"live table {TABLE_FRAME[0]}x{TABLE_FRAME[1]}, 8 cards, each scene held {hold} "
          f"frames: {out['cpu_median_ms']:.1f} ms CPU median, {out['cpu_p95_ms']:.1f} ms p95 "
          f"per frame (target <= 30, p95 <= 45; a scene's first frame "
          f"{out['scene_first_frame_median_ms']:.1f} median, "
          f"{out['scene_first_frame_p95_ms']:.1f} p95; cards found afresh on {found_again} "
          f"of {len(per_frame)} frames, {unread} still frames not read); "
          f"baselines: cards found afresh on every frame "
          f"{out['baseline_found_every_frame_median_ms']:.1f} ms median, "
          f"{out['baseline_found_every_frame_p95_ms']:.1f} ms p95; each frame read whole "
          f"{out['baseline_whole_read_median_ms']:.1f} ms median, "
          f"{out['baseline_whole_read_p95_ms']:.1f} ms p95; {len(ended)} of {len(frames)} "
          f"scenes needed further looks, done after {out['frames_to_looks_median']} frames "
          f"(median), {out['frames_to_looks_max']} at most; the frozen-feed check "
          f"{out['frozen_check_median_ms']:.3f} ms median a frame")
    return out


def _real(step: int) -> dict[str, object]:
    """The figures on the real-photo corpus (empty if it is absent)."""
    if not corpus.available():
        print(f"real photos: skipped, {corpus.SKIP_REASON}")
        return {}
    profile, report = corpus.enrol_bicycle()
    rec = Recogniser(profile)
    every = corpus.scenes(step)
    loc = corpus.localisation(every)
    ranks = corpus.read_ranks(rec, corpus.scenes(step, corpus.enrol_files()))
    held = corpus.read_singles(rec, corpus.held_out()[::step])
    designs = corpus.read_singles(rec, corpus.designs()[::step])
    print(f"real: enrolment of the 9-A deck from 24 photos: {report.summary()}")
    print(f"real: localisation {loc.found}/{loc.boxes} = {loc.rate:.1%} "
          f"({loc.quads} quads reported, {len(every)} scenes)")
    print(f"real: ranks on the scenes: {ranks.line()}")
    print(f"real: held-out photos of the deck: {held.line()}")
    print(f"real: other designs: {designs.line()}")
    return {
        "enrolment_passed": report.passed,
        "localisation_recall": round(loc.rate, 3), "boxes": loc.boxes, "quads": loc.quads,
        "rank_right": round(ranks.right / max(ranks.cards, 1), 3),
        "rank_accepted": round(ranks.accepted / max(ranks.cards, 1), 3),
        "rank_wrong_accepted": ranks.accepted_wrong,
        "scene_cards": ranks.boxes, "scene_cards_found": ranks.cards,
        "scene_accepted_right_share": round(ranks.accepted_right / max(ranks.boxes, 1), 3),
        "scene_accepted_right_share_iou": round(ranks.accepted_right_iou
                                                / max(ranks.boxes, 1), 3),
        "held_out_right": held.right, "held_out_total": held.total, "held_out_wrong": held.wrong,
        "designs_accepted": designs.accepted, "designs_wrong": designs.wrong,
        "designs_wrong_share": round(designs.wrong_share, 3),
        "jokers_accepted": designs.jokers_accepted,
    }


if __name__ == "__main__":
    main()
