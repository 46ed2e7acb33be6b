"""Memory of a run that writes more distinct tags than the tag limit keeps (issue 15).

    python benchmarks/dropped_tags.py                    # 50,000 and 200,000 tags x 3 steps
    python benchmarks/dropped_tags.py --tags 1000000     # any counts
    python benchmarks/dropped_tags.py --smoke            # tiny, for CI

Each count is loaded in a fresh subprocess through the real store (`DataManager.reload()`, MindInsight's
limit of 300 tags per run, `--max-tags-per-run 300`; the default is 100,000 since issue 32): one summary file,
one event per step holding every tag (our writer). Prints
the file size, the load time, the memory still held after the load (tracemalloc: allocated by Python and
not freed), the peak during it, the process RSS after it, and what the run reports as dropped.
Tags beyond the limit should cost next to nothing once the load is done.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import load_average


def write_run(run_dir: Path, tags: int, steps: int) -> Path:
    from mindinsight_clone.summary import SummaryWriter

    with SummaryWriter(run_dir, timestamp=1_795_000_000, host="bench") as w:
        for step in range(1, steps + 1):
            for i in range(tags):
                w.add_scalar(f"t{i}", float(step), step)
    return w.summary_path


def child(tags: int, steps: int) -> None:
    import tracemalloc

    import psutil

    from mindinsight_clone.config import settings_for_tests
    from mindinsight_clone.store.data_manager import DataManager

    with tempfile.TemporaryDirectory() as tmp:
        path = write_run(Path(tmp) / "base" / "run", tags, steps)
        gc.collect()
        rss_before = psutil.Process().memory_info().rss
        tracemalloc.start()
        manager = DataManager(settings_for_tests(summary_base_dir=str(Path(tmp) / "base"),
                                                 workspace=str(Path(tmp) / "ws"), reload_interval=0,
                                                 max_tags_per_run=300))
        start = time.perf_counter()
        manager.reload()
        seconds = time.perf_counter() - start
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        status = manager.run_status("./run")
        print(json.dumps({
            "tags": tags, "steps": steps, "file_mb": path.stat().st_size / 2**20, "load_s": seconds,
            "held_mb": held / 2**20, "peak_mb": peak / 2**20,
            "rss_growth_mb": (psutil.Process().memory_info().rss - rss_before) / 2**20,
            "kept_tags": len(manager.run_cache("./run").tags("scalar")),
            "dropped_reported": getattr(status, "dropped_tags", "n/a"),
        }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tags", type=int, nargs="*", default=[50_000, 200_000])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.tags[0], args.steps)
        return
    counts = [2_000] if args.smoke else args.tags
    print(f"load average {load_average()}")
    print(f"{'tags':>9} {'file MB':>8} {'load s':>7} {'held MB':>8} {'peak MB':>8} {'RSS +MB':>8} {'kept':>5}  dropped (reported)")
    for count in counts:
        out = subprocess.run([sys.executable, __file__, "--child", "--tags", str(count), "--steps", str(args.steps)],
                             capture_output=True, text=True, check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"{r['tags']:>9} {r['file_mb']:>8.1f} {r['load_s']:>7.2f} {r['held_mb']:>8.1f} {r['peak_mb']:>8.1f} "
              f"{r['rss_growth_mb']:>8.1f} {r['kept_tags']:>5}  {r['dropped_reported']}")


if __name__ == "__main__":
    main()
