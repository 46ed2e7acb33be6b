"""Ingest speed and memory: read + parse + store a generated corpus at 1x, 2x, 4x its size.

    python benchmarks/ingest.py                # corpus S (12 runs x 2,500 steps x 20 scalars), scales 1,2,4
    python benchmarks/ingest.py --kind M       # scalars + histograms + images
    python benchmarks/ingest.py --smoke        # tiny, for CI

Each scale loads in a fresh subprocess (so peak RSS is that load's own) through the real store:
`DataManager.reload()` = scan, read records (CRC-checked), parse, sample into the caches. Prints MB/s,
values/s and peak RSS, and each scale's ratio to 1x: time should grow with the bytes, RSS should stay
flat (the caches are fixed-size reservoirs). MindInsight's figures on the same corpus come from
`benchmarks/peers.py`, which runs it in its own venv.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import corpus
from benchmarks.common import load_average


def child(base_dir: str) -> None:
    """Load `base_dir` once and print one JSON line of figures."""
    from mindinsight_clone.config import settings_for_tests
    from mindinsight_clone.store.data_manager import DataManager

    with tempfile.TemporaryDirectory() as ws:
        settings = settings_for_tests(summary_base_dir=base_dir, workspace=ws, reload_interval=0)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        manager = DataManager(settings)
        start = time.perf_counter()
        manager.reload()
        seconds = time.perf_counter() - start
        runs = manager.runs()
        statuses = {manager.cache_status(r.train_id) for r in runs}
        last_steps = []
        for run in runs:
            cache = manager.run_cache(run.train_id)
            for tag in cache.tags("scalar")[:1]:
                last_steps.append(cache.samples("scalar", tag)[-1].step)
    print(json.dumps({
        "seconds": seconds,
        "bytes": sum(r.total_bytes for r in runs),
        "runs": len(runs),
        "cached": sorted(statuses),
        "last_step": max(last_steps, default=0),
        "rss_before_mb": rss_before / 1024,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))


def measure(base_dir: Path) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--child", str(base_dir)], capture_output=True, text=True,
                         check=True, timeout=1800)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", default="S", choices=["S", "M"])
    parser.add_argument("--scales", default="1,2,4")
    parser.add_argument("--repeats", type=int, default=1, help="loads per scale; the median is shown")
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench" / "corpus")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0

    print(f"load average before: {load_average()}")
    print(f"{'corpus':>10} {'MB':>7} {'runs':>4} {'last':>6} {'load s':>7} {'MB/s':>7} {'peak RSS MB':>11} "
          f"{'x time':>6} {'x RSS':>6}")
    first: dict[str, float] | None = None
    for scale in (int(s) for s in args.scales.split(",")):
        spec = corpus.spec_for(args.kind, scale, smoke=args.smoke)
        out = args.cache / f"ours-{spec.name}"
        if not corpus.is_current(out, spec, "ours"):
            corpus.generate(spec, "ours", out, quiet=True)
        results = sorted((measure(out) for _ in range(max(1, args.repeats))), key=lambda r: r["seconds"])
        result = results[len(results) // 2]
        first = first or result
        mb = result["bytes"] / 1e6
        print(f"{spec.name:>10} {mb:7.1f} {result['runs']:4d} {result['last_step']:6d} {result['seconds']:7.2f} "
              f"{mb / result['seconds']:7.3f} {result['peak_rss_mb']:11.0f} "
              f"{result['seconds'] / first['seconds']:6.2f} {result['peak_rss_mb'] / first['peak_rss_mb']:6.2f}")
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
