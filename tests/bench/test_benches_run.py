"""Every bench script runs to its end on a small input and prints its figures as the last line.

No figure is judged here (timings belong in the bench output, not in tests): this only keeps
the scripts from rotting between the sessions that quote them: ``web_latency.py`` once failed
before printing its figures, because the snapshot it published had an older shape than the
daemon's and the web server ignored it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# script, small arguments, keys whose values must be numbers in the last line
CASES = [
    ("bridge.py", ["--frames", "2000", "--samples", "50", "--corrupt", "2000",
                   "--reference", "10"],
     ["decode_frames_per_s", "ref_host_reads_per_s", "ref_host_read_to_event_p50_ms"]),
    ("camera.py", ["--frames", "2", "--repeat", "1", "--real-step", "30", "--deck-step", "10"],
     ["threads"]),
    # the one quick deck (a row skipped, with its reason, where the corpus is absent)
    ("camera_judge.py", ["--jobs", "1", "--only", "blackjack"], []),
    ("controller.py", ["--hands", "2", "--runs", "1"], []),
    ("floor.py", ["--tables", "3,6", "--window", "2", "--real", "1"],
     ["events_per_s", "lag_p99_ms", "lost", "doubled"]),
    ("engine.py", ["--hands", "5", "--repeats", "1", "--evals", "200"],
     ["engine_hands_per_s", "eval_per_s", "engine_vs_pokerkit_shipped",
      "engine_vs_pokerkit_memo", "run_twice_cost_vs_once", "bomb_pot_cost_vs_plain",
      "double_board_cost_vs_plain"]),
    ("evaluate.py", ["--repeats", "1", "--scale", "0.01"], ["cross_check_disagreements"]),
    # equity.py runs latency.py --odds both when asked: that is covered by latency.py's case
    ("equity.py", ["--positions", "1", "--repeats", "1", "--pokerkit-samples", "5",
                   "--latency-samples", "0"],
     ["phevaluator_max_equity_difference", "omaha_hi_lo_over_high"]),
    ("soak.py", ["--hands", "2", "--variants", "1"], ["hands_played", "hands_mismatched"]),
    ("hostile.py", ["--commands", "10", "--rate", "200", "--burst", "200"],
     ["p99_ratio", "burst_dealer_s", "journal_bytes_per_refused", "rss_after_mb"]),
    ("latency.py", ["--samples", "20", "--metrics", "--odds", "both"],
     ["read_p50", "read_p99", "floor_p50", "rss_peak_mb", "p50_over_floor",
      "odds_p50_growth_ms"]),
    ("publish.py", ["--count", "20", "--runs", "1"], []),
    ("tournament_clock.py", ["--cycles", "2", "--level-seconds", "1"],
     ["readings", "max_error_ms", "max_error_new_process_ms"]),
    ("metrics_hooks.py", ["--hands", "1", "--runs", "1"], ["ratio_median"]),
    ("web_latency.py", ["--count", "20", "--runs", "1"],
     ["mqtt_p50", "sse_p50", "sse_delivered"]),
    # into the test's folder, not docs/img
    ("screenshots.py", ["--out", "img"], ["seconds"]),
]

SOAK = {"camera.py", "camera_judge.py", "soak.py", "screenshots.py", "floor.py", "latency.py",
        "publish.py", "hostile.py", "bridge.py", "tournament_clock.py", "metrics_hooks.py"}
"""The longest (12-75 s each on a busy machine; most of it starting daemons, brokers and
emulators): run by ``.ci/test --all`` (marker ``soak``); ``.ci/test`` runs the rest."""


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize(("script", "args", "keys"), [
    pytest.param(*c, id=c[0], marks=[pytest.mark.soak] if c[0] in SOAK else []) for c in CASES])
def test_bench_prints_its_figures(script: str, args: list[str], keys: list[str],
                                  tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=170, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    last = proc.stdout.strip().splitlines()[-1]
    figures = json.loads(last)
    assert isinstance(figures, dict) and figures
    for key in keys:
        value = figures[key]
        assert isinstance(value, int | float) and not isinstance(value, bool), (key, value)


def test_every_bench_script_is_covered() -> None:
    scripts = {p.name for p in (ROOT / "bench").glob("*.py")}
    assert scripts == {c[0] for c in CASES}
