"""The camera judged on every development deck at once, one process per deck row.

The rows of ``bench/camera.py``'s deck table (tests/vision/decks.py: each deck enrolled,
its single photos or scenes read, ``many_designs`` read with its profile) and the cluttered
9-A scenes (tests/vision/corpus.py: ranks on every 2nd scene, the held-out photos, the other
designs), each in its own process: the judging set docs/camera.md §6 quotes, in minutes
rather than the half hour of one process. Each deck is judged on its own row, never pooled.
Skipped, with the reason, where ``../shared/corpus/cards`` is absent.

Run: ``.venv/bin/python bench/camera_judge.py [--jobs 2] [--only handheld,blackjack]
[--step 5]`` (``--step``: every N-th ``webcam_deck`` photo). The last line is one JSON
object, a row per set.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SETS = ("handheld_retaken", "handheld", "bicycle", "blackjack", "webcam", "handheld_x2",
        "handheld_x3", "webcam_x2", "webcam_x3")


def judge(name: str, step: int) -> tuple[str, dict[str, object]]:
    """One set's printed lines and figures."""
    import cv2

    from tests.vision import corpus, decks

    cv2.setNumThreads(1)
    t0 = time.process_time()
    if not corpus.available():
        return f"{name}: skipped, {corpus.SKIP_REASON}", {}
    if name == "bicycle":
        from tablectl.vision.recognise import Recogniser

        profile, report = corpus.enrol_bicycle()
        rec = Recogniser(profile)
        ranks = corpus.read_ranks(rec, corpus.scenes(2, corpus.enrol_files()))
        held = corpus.read_singles(rec, corpus.held_out())
        des = corpus.read_singles(rec, corpus.designs())
        n = max(ranks.boxes, 1)
        text = (f"bicycle: enrol {report.summary()}\n  ranks every 2nd: {ranks.line()}\n"
                f"  held-out: {held.line()}\n  designs: {des.line()}")
        return text, {"accepted_right": ranks.accepted_right, "boxes": ranks.boxes,
                      "accepted_right_share": round(ranks.accepted_right / n, 3),
                      "accepted_right_iou": ranks.accepted_right_iou,
                      "wrong_accepted": ranks.accepted_wrong, "held_out_right": held.right,
                      "held_out_wrong": held.wrong, "designs_accepted": des.accepted,
                      "designs_wrong": des.wrong, "jokers_accepted": des.jokers_accepted,
                      "cpu_s": round(time.process_time() - t0, 1)}
    sets: dict[str, tuple[Path, Callable[[], decks.DeckPhotos]]] = {
        "webcam": (decks.WEBCAM, lambda: decks.webcam_deck(step)),
        "blackjack": (decks.BLACKJACK, decks.blackjack_webcam),
        "handheld": (decks.HANDHELD, lambda: decks.handheld_low(1)),
        "handheld_retaken": (decks.HANDHELD, lambda: decks.handheld_low(1, retake=True)),
        "webcam_x2": (decks.WEBCAM, lambda: decks.webcam_deck(step, photos=(1, 11))),
        "webcam_x3": (decks.WEBCAM, lambda: decks.webcam_deck(step, photos=(1, 6, 11))),
        "handheld_x2": (decks.HANDHELD, lambda: decks.handheld_low(1, k=2)),
        "handheld_x3": (decks.HANDHELD, lambda: decks.handheld_low(1, k=3)),
    }
    folder, photos = sets[name]
    if not decks.available(folder):
        return f"{name}: skipped, {decks.skip_reason(folder)}", {}
    row = decks.deck_row(photos())
    return row.line(), {**row.as_json(), "cpu_s": round(time.process_time() - t0, 1)}


def main() -> None:
    """Judge and print."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    ap.add_argument("--only", default="", help=f"comma-separated sets of: {', '.join(SETS)}")
    ap.add_argument("--step", type=int, default=5,
                    help="read every N-th webcam_deck photo (default 5)")
    a = ap.parse_args()
    names = [n for n in a.only.split(",") if n] or list(SETS)
    unknown = sorted(set(names) - set(SETS))
    if unknown or a.jobs < 1 or a.step < 1:
        ap.error(f"unknown sets {unknown}" if unknown else "--jobs and --step are at least 1")
    out: dict[str, object] = {}
    with ProcessPoolExecutor(a.jobs) as ex:
        futures = {n: ex.submit(judge, n, a.step) for n in names}
        for n in names:
            text, figures = futures[n].result()
            print(text, flush=True)
            out[n] = figures
    print(json.dumps(out))


if __name__ == "__main__":
    main()
