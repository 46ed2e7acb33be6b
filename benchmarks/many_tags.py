"""Memory and load time of a run with thousands of scalar tags kept whole (issue 32).

    python benchmarks/many_tags.py                          # 1,000 / 5,000 / 10,000 tags x 300 steps
    python benchmarks/many_tags.py --tags 20000 --steps 100
    python benchmarks/many_tags.py --tags 5000 --profile    # cProfile top lines of the load

Each count is loaded in a fresh subprocess through the real store (`DataManager.reload()`, default settings
except `--max-tags-per-run` when given): one summary file written by our SummaryWriter, one event per step
holding every tag, LLM-style names (`local_norm/layer_3/attn`, `expert_load/layer_12/expert_7`, ...).
Prints the load time, the memory held after the load (tracemalloc), its peak, the RSS growth, what
`cache_budget.run_bytes` estimates for the run, and the bytes held per tag.
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


def llm_tags(count: int) -> list[str]:
    """`count` tag names grouped by prefix as large-model training writes them."""
    names: list[str] = []
    layer = 0
    while len(names) < count:
        names += [f"local_norm/layer_{layer}/{part}" for part in ("attn", "mlp", "input", "post_attn")]
        names += [f"expert_load/layer_{layer}/expert_{e}" for e in range(64)]
        names += [f"grad_norm/layer_{layer}/{part}" for part in ("qkv", "proj", "fc1", "fc2")]
        layer += 1
    return names[:count]


def write_run(run_dir: Path, tags: int, steps: int) -> Path:
    from mindinsight_clone.summary import SummaryWriter

    names = llm_tags(tags)
    with SummaryWriter(run_dir, timestamp=1_795_000_000, host="bench") as w:
        for step in range(1, steps + 1):
            for i, name in enumerate(names):
                w.add_scalar(name, step * 0.5 + i, step)
    return w.summary_path


def child(tags: int, steps: int, max_tags: int, profile: bool) -> None:
    import cProfile
    import pstats
    import tracemalloc

    import psutil

    from mindinsight_clone.config import settings_for_tests
    from mindinsight_clone.store.cache_budget import run_bytes
    from mindinsight_clone.store.data_manager import DataManager

    with tempfile.TemporaryDirectory() as tmp:
        path = write_run(Path(tmp) / "base" / "run", tags, steps)
        overrides = {"max_tags_per_run": max_tags} if max_tags else {}
        manager = DataManager(settings_for_tests(summary_base_dir=str(Path(tmp) / "base"),
                                                 workspace=str(Path(tmp) / "ws"), reload_interval=0, **overrides))
        gc.collect()
        rss_before = psutil.Process().memory_info().rss
        prof = cProfile.Profile() if profile else None
        if not profile:
            tracemalloc.start()
        start = time.perf_counter()
        if prof:
            prof.enable()
        manager.reload()
        if prof:
            prof.disable()
        seconds = time.perf_counter() - start
        gc.collect()
        held, peak = tracemalloc.get_traced_memory() if not profile else (0, 0)
        tracemalloc.stop()
        cache = manager.run_cache("./run")
        if prof:
            pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(12)
        print(json.dumps({
            "tags": tags, "steps": steps, "file_mb": path.stat().st_size / 2**20, "load_s": seconds,
            "held_mb": held / 2**20, "peak_mb": peak / 2**20,
            "rss_growth_mb": (psutil.Process().memory_info().rss - rss_before) / 2**20,
            "estimate_mb": run_bytes(cache) / 2**20,
            "kept_tags": len(cache.tags("scalar")),
            "dropped": manager.run_status("./run").dropped_tags,
        }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tags", type=int, nargs="*", default=[1_000, 5_000, 10_000])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--max-tags-per-run", type=int, default=0, help="0: the default setting")
    parser.add_argument("--profile", action="store_true", help="cProfile the load (no tracemalloc figures)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.tags[0], args.steps, args.max_tags_per_run, args.profile)
        return
    print(f"load average {load_average()}")
    print(f"{'tags':>7} {'steps':>5} {'file MB':>8} {'load s':>7} {'held MB':>8} {'peak MB':>8} {'RSS +MB':>8} "
          f"{'est. MB':>8} {'held B/tag':>10} {'kept':>6} dropped")
    for count in args.tags:
        cmd = [sys.executable, __file__, "--child", "--tags", str(count), "--steps", str(args.steps),
               "--max-tags-per-run", str(args.max_tags_per_run)] + (["--profile"] if args.profile else [])
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        if args.profile:
            print(proc.stderr)
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(f"{r['tags']:>7} {r['steps']:>5} {r['file_mb']:>8.1f} {r['load_s']:>7.2f} {r['held_mb']:>8.1f} "
              f"{r['peak_mb']:>8.1f} {r['rss_growth_mb']:>8.1f} {r['estimate_mb']:>8.1f} "
              f"{r['held_mb'] * 2**20 / max(r['kept_tags'], 1):>10.0f} {r['kept_tags']:>6} {r['dropped']}")


if __name__ == "__main__":
    main()
