"""Camera recognition latency on one core: board frames and shoe index reads.

Targets (issue 8): <= 30 ms per 640x480 overhead frame with up to 8 cards, <= 5 ms per
shoe index read. Baselines measured in the same run on the same frames: decoding the frame
from JPEG (what every MJPEG/RTSP frame costs before any recognition), and for the shoe the
grey conversion plus Otsu threshold of the index window (the least any reader does).

Run: ``.venv/bin/python bench/camera.py [--frames N]``. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence

import cv2
import numpy as np

from hardware_sim.camera import SHOE_ROI, SimCamera, random_style
from tablectl.domain.cards import FULL_DECK
from tablectl.vision.enrol import Enroller
from tablectl.vision.model import Image, ReadStatus
from tablectl.vision.recognise import Recogniser


def _times(fn: Callable[[Image], object], items: Sequence[Image], repeat: int) -> list[float]:
    out: list[float] = []
    for _ in range(repeat):
        for item in items:
            t0 = time.perf_counter()
            fn(item)
            out.append((time.perf_counter() - t0) * 1000)
    return out


def _summary(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {"median_ms": round(statistics.median(ms), 3),
            "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 3)}


def main() -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=40, help="board frames per layout")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cv2.setNumThreads(1)
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
        accepted = sum(r.status is ReadStatus.ACCEPTED for rs in reads for r in rs)
        results[name] = {**read, "baseline_jpeg_decode": base,
                         "ratio_to_baseline": round(read["median_ms"] / base["median_ms"], 1),
                         "found": round(found, 3),
                         "accepted": round(accepted / (n_cards * len(frames)), 3)}
        print(f"{name}: {read['median_ms']:.1f} ms median, {read['p95_ms']:.1f} ms p95 per "
              f"640x480 frame (target <= 30); JPEG decode baseline "
              f"{base['median_ms']:.2f} ms; cards found {found:.1%}")

    x, y, w, h = SHOE_ROI
    crops = [cam.shoe_frame(c)[y:y + h, x:x + w].copy() for c in FULL_DECK * 4]

    def otsu(img: Image) -> object:
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        return cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)

    shoe = _summary(_times(shoe_rec.read_index, crops, args.repeat))
    base = _summary(_times(otsu, crops, args.repeat))
    ok = float(np.mean([shoe_rec.read_index(c).status is ReadStatus.ACCEPTED for c in crops]))
    results["shoe_index_read"] = {**shoe, "baseline_grey_otsu": base,
                                  "ratio_to_baseline": round(shoe["median_ms"]
                                                             / base["median_ms"], 1),
                                  "accepted": round(ok, 3)}
    print(f"shoe index read: {shoe['median_ms']:.2f} ms median, {shoe['p95_ms']:.2f} ms p95 "
          f"({w}x{h} window; target <= 5); grey+Otsu baseline {base['median_ms']:.3f} ms")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
