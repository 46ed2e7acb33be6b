"""Scalar windows at full resolution: time to answer `start_step/end_step/points` from the point store.

    python benchmarks/window.py                # a 200,000-step series, windows of 200,000 / 20,000 / 500 steps
    python benchmarks/window.py --steps 1000000
    python benchmarks/window.py --smoke

Builds one tag's point store (mindinsight_clone.store.point_store) in a temporary workspace, appended in
batches as the loader does, then times `ScalarSeries.window(start, end, points)` (binary search, read of
the window, M4 reduction) and the whole HTTP-free answer (`plugins.scalars.scalar_window`: + JSON) for each
window; medians and p95 over --repeats, warm page cache. Prints the figures and the load average.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest.values import SummaryValue
from mindinsight_clone.plugins import scalars
from mindinsight_clone.store.point_store import PointRoot
from mindinsight_clone.store.run_cache import RunCache

TAG = "loss/scalar"


def build(steps: int, workspace: Path) -> RunCache:
    cache = RunCache("./bench", settings_for_tests(), PointRoot(workspace).run_store("./bench"))
    rng = np.random.default_rng(0)
    values = np.exp(-np.arange(steps) / (steps / 5)) + 0.01 * rng.standard_normal(steps)
    values[rng.choice(steps, 20, replace=False)] = 50.0  # spikes
    batch = 50_000
    for a in range(0, steps, batch):
        cache.add_values([SummaryValue("scalar", TAG, s + 1, 1.7e9 + s, float(values[s]), "f")
                          for s in range(a, min(steps, a + batch))])
    return cache


def timed(fn: object, repeats: int) -> tuple[float, float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append((time.perf_counter() - t0) * 1000)
    out.sort()
    return statistics.median(out), out[min(len(out) - 1, int(len(out) * 0.95))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--points", type=int, default=1000, help="points asked (~ chart width)")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    steps, repeats = (5000, 3) if args.smoke else (args.steps, args.repeats)
    print(f"machine: {common.machine_info()}")
    with tempfile.TemporaryDirectory(prefix="mic-window-") as tmp:
        t0 = time.perf_counter()
        cache = build(steps, Path(tmp))
        print(f"series: {steps:,} steps of one tag, built in {time.perf_counter() - t0:.2f} s")
        cache.samples("scalar", TAG)  # settle the reservoir once, as the first default request would
        series = cache.points.get(TAG)
        assert series is not None
        print("| window (steps) | points | real points in it | store window p50 (ms) | p95 (ms) | "
              "answer incl. JSON p50 (ms) | p95 (ms) |")
        print("|---|---|---|---|---|---|---|")
        mid = steps // 2
        for width in sorted({steps, max(steps // 10, 1), min(500, steps)}, reverse=True):
            lo, hi = max(1, mid - width // 2), max(1, mid - width // 2) + width - 1
            if width == steps:
                lo, hi = 1, steps
            total = series.window(lo, hi, args.points).total
            p50, p95 = timed(lambda lo=lo, hi=hi: series.window(lo, hi, args.points), repeats)
            a50, a95 = timed(lambda lo=lo, hi=hi: scalars.scalar_window(cache, TAG, lo, hi, args.points), repeats)
            print(f"| {width:,} | {args.points} | {total:,} | {p50:.2f} | {p95:.2f} | {a50:.2f} | {a95:.2f} |")
        cache.close()
    print(f"load average: {common.load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
