"""Discovery speed on a local base dir: `summary_watcher.scan_runs` over N runs (files, a profiler dir, clutter).

    python benchmarks/scan.py [--runs 3000] [--depth 1] [--repeats 5] [--repo PATH]

Every listing goes through `ingest.storage`; its local branch must stay plain `os.scandir` (no per-entry
stat beyond the files a run keeps). `--repo` imports the package from another checkout (e.g. main) so the
same tree can be timed before and after a change. Prints the median and best scan time and the runs found.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path


def make_tree(root: Path, runs: int) -> None:
    for i in range(runs):
        run = root / f"exp_{i:05d}"
        run.mkdir(parents=True)
        (run / f"events.out.events.summary.{1700000000 + i}.0.h_MS").write_bytes(b"\0" * 64)
        (run / f"events.out.events.summary.{1700000000 + i}.0.h_lineage").write_bytes(b"\0" * 16)
        for k in range(8):  # clutter a run holds (checkpoints, logs)
            (run / f"ckpt_{k}.ckpt").write_bytes(b"")
        if i % 10 == 0:
            prof = run / "profiler" / "rank_0" / "ASCEND_PROFILER_OUTPUT"
            prof.mkdir(parents=True)
            (prof / "op_statistic.csv").write_text("OP Type,Count\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--depth", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--repo", type=Path, help="import mindinsight_clone from this checkout")
    args = parser.parse_args()
    sys.path.insert(0, str(args.repo or Path(__file__).resolve().parents[1]))
    from mindinsight_clone.ingest import summary_watcher

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_tree(root, args.runs)
        summary_watcher.scan_runs(root, max_run_count=args.runs + 1, max_depth=args.depth)  # warm the dentry cache
        times = []
        found = 0
        for _ in range(args.repeats):
            start = time.perf_counter()
            result = summary_watcher.scan_runs(root, max_run_count=args.runs + 1, max_depth=args.depth)
            times.append(time.perf_counter() - start)
            found = len(result.runs)
    print(f"package: {Path(summary_watcher.__file__).resolve().parents[2]}")
    print(f"runs {args.runs} depth {args.depth}: found {found}, scan median {statistics.median(times) * 1000:.1f} ms, "
          f"best {min(times) * 1000:.1f} ms ({args.repeats} scans)")


if __name__ == "__main__":
    main()
