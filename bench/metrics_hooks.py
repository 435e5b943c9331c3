"""What the daemon's metrics cost per input, against the same daemon without them.

Method: ``bench/controller.py``'s seeded dealer records ``--hands`` whole hands of each of its
variants (card reads and dealer commands). Per run, a :class:`tablectl.daemon.TableDaemon` on
the in-memory journal and publisher (no disk, no broker: only CPU, which is what the hooks
add) applies every input and publishes its events and snapshots (``publish_pending``), as the
daemon's loop does; the same inputs once with ``daemon.metrics = None`` (the baseline) and
once with :class:`tablectl.metrics.TableMetrics` on (one hook per input, one per published
event), the two alternating run by run so that both see the same machine. Figures are medians
over ``--runs`` runs, microseconds per input; ``ratio`` is with / without (1.00: no cost).
The real read path also has an fsync and two network hops (``bench/latency.py --metrics``),
so the share of the hooks there is smaller still.

The last line printed is one JSON object with the figures.

Usage: ``.venv/bin/python bench/metrics_hooks.py [--hands 20] [--runs 5]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from controller import prepare  # noqa: E402  (bench/controller.py, beside this script)

from tablectl.clock import ManualClock  # noqa: E402
from tablectl.controller import ControllerInput, TableSetup, TableState  # noqa: E402
from tablectl.daemon import TableDaemon  # noqa: E402
from tablectl.journal.memory import MemoryJournal  # noqa: E402
from tablectl.metrics import TableMetrics  # noqa: E402
from tablectl.publish.base import MemoryPublisher  # noqa: E402


async def one_run(setup: TableSetup, initial: TableState, inputs: list[ControllerInput],
                  *, metrics: bool) -> float:
    """Microseconds per input of applying and publishing ``inputs``."""
    clock = ManualClock()
    daemon = TableDaemon(setup, initial, MemoryJournal(clock), MemoryPublisher(), clock=clock)
    daemon.recover()
    if metrics:
        daemon.metrics = TableMetrics(setup.game.value)
    await daemon.publish_pending()
    start = time.perf_counter()
    for inp in inputs:
        daemon.apply(inp)
        await daemon.publish_pending()
    return (time.perf_counter() - start) / len(inputs) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    setups, initial = prepare(args.hands)
    per: dict[str, dict[str, list[float]]] = {}
    for _ in range(args.runs):
        for name, setup, inputs, _engine in setups:
            row = per.setdefault(name, {"without": [], "with": []})
            for on in (False, True):
                row["with" if on else "without"].append(
                    asyncio.run(one_run(setup, initial, inputs, metrics=on)))
    out: dict[str, object] = {}
    for name, row in per.items():
        without, with_ = statistics.median(row["without"]), statistics.median(row["with"])
        out[name] = {"without_us": round(without, 2), "with_us": round(with_, 2),
                     "ratio": round(with_ / without, 3)}
        print(f"{name:28} without {without:8.1f} us/input  with {with_:8.1f} us/input  "
              f"ratio {with_ / without:.3f}")
    ratios = [float(v["ratio"]) for v in out.values()]  # type: ignore[index]
    out["ratio_median"] = round(statistics.median(ratios), 3)
    out["runs"] = args.runs
    print(f"median ratio with/without metrics: {out['ratio_median']:.3f} ({args.runs} runs)")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
