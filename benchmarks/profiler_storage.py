"""Profiler views through the storage seam: per-request cost of each view, local and from a loopback S3 server
(moto's standalone server, as in the tests), and the number of S3 requests each view makes.

    python benchmarks/profiler_storage.py                    # local + S3, ../shared/fixtures/ascend (Level1, 2 ranks)
    python benchmarks/profiler_storage.py --local            # local only
    python benchmarks/profiler_storage.py --local --code /work/main   # the same views, another checkout's code
    python benchmarks/profiler_storage.py --smoke            # 3 repetitions

In process, no HTTP server: each "request" is what a route does (scan the profiler dir, then answer one view from
the parse cache the app keeps). `cold` parses the files (a fresh cache each time), `warm` answers from the cache.
Figures are medians over `--repeat` runs in ms; `S3 req` is the number of HTTP requests moto logged per call.
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
JOB = REPO.parent / "shared" / "fixtures" / "ascend" / "torch_npu_level1"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--smoke", action="store_true", help="3 repetitions")
    parser.add_argument("--local", action="store_true", help="local only (no S3 server)")
    parser.add_argument("--code", type=Path, default=REPO, help="checkout whose mindinsight_clone is measured")
    return parser.parse_args()


ARGS = _args()
sys.path.insert(0, str(ARGS.code.resolve()))
sys.path.insert(1, str(REPO))

from mindinsight_clone.analyzers.profiler import layout as layout_module  # noqa: E402
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache  # noqa: E402
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir, scan_profiler_dir  # noqa: E402
from mindinsight_clone.analyzers.profiler.views import memory_record, search, step_trace_time, timeline  # noqa: E402

View = Callable[[ProfilerDir, Any], Any]


def _cluster_step_trace(pdir: ProfilerDir, cache: Any) -> Any:
    """cluster_steps.py makes it; older checkouts (measured with --code) had it in step_trace_time.py."""
    try:
        from mindinsight_clone.analyzers.profiler.views import cluster_steps
    except ImportError:
        return step_trace_time.cluster_step_trace(pdir, cache)  # type: ignore[attr-defined]
    return cluster_steps.cluster_step_trace(pdir, cache)

VIEWS: dict[str, View] = {
    "scan + devices": lambda pdir, cache: (pdir.device_ids, pdir.device_type),
    "step-trace-time": lambda pdir, cache: step_trace_time.step_trace_time(pdir.devices["0"], cache),
    "cluster-step-trace": lambda pdir, cache: _cluster_step_trace(pdir, cache),
    "memory-record": lambda pdir, cache: memory_record.memory_record(pdir.devices["0"], 2000, 20, cache),
    "ops/search aicore_detail": lambda pdir, cache: search.search_ops(
        pdir, "aicore_detail", "0", {"op_type": "aicore_detail", "device_id": "0",
                                     "group_condition": {"limit": 20, "offset": 0}}, cache),
    "timeline-summary": lambda pdir, cache: _timeline(timeline.timeline_summary, pdir, cache),
    "timeline window": lambda pdir, cache: _timeline(
        timeline.timeline, pdir, timeline.Window(start_us=0.0, end_us=20_000.0, max_events=2000), cache),
}


def _timeline(view: Callable[..., Any], pdir: ProfilerDir, *args: Any) -> Any:
    """Rank 0's timeline view; checkouts before the adapter seam also took the layout and device type."""
    if "layout" in inspect.signature(view).parameters:
        return view(pdir.devices["0"], pdir.layout, pdir.device_type, *args)
    return view(pdir.devices["0"], *args)


def _scan(profiler_dir: Any, cache: ParsedFileCache) -> ProfilerDir:
    """What a route does first; the app's parse cache goes along where this checkout's scan takes it."""
    if "cache" in inspect.signature(scan_profiler_dir).parameters:
        return scan_profiler_dir(profiler_dir, "./job/profiler", cache)  # type: ignore[call-arg,unused-ignore]
    return scan_profiler_dir(profiler_dir, "./job/profiler")


def _measure(profiler_dir: Any, repeat: int, requests: Callable[[], int] | None) -> dict[str, tuple[float, ...]]:
    out: dict[str, tuple[float, ...]] = {}
    for name, view in VIEWS.items():
        cold, warm, cold_req, warm_req = [], [], [], []
        for _ in range(repeat):
            cache = ParsedFileCache()
            for times, reqs in ((cold, cold_req), (warm, warm_req)):
                before = requests() if requests else 0
                start = time.perf_counter()
                view(_scan(profiler_dir, cache), cache)  # a request: locate, then answer
                times.append((time.perf_counter() - start) * 1000)
                reqs.append((requests() - before) if requests else 0)
        out[name] = (statistics.median(cold), statistics.median(warm), statistics.median(cold_req),
                     statistics.median(warm_req))
    return out


def _print(title: str, figures: dict[str, tuple[float, ...]], with_requests: bool) -> None:
    print(f"\n### {title}\n")
    head = "| view | cold ms | warm ms |" + (" S3 req cold | S3 req warm |" if with_requests else "")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for name, (cold, warm, cold_req, warm_req) in figures.items():
        row = f"| {name} | {cold:,.2f} | {warm:,.2f} |"
        if with_requests:
            row += f" {cold_req:,.0f} | {warm_req:,.0f} |"
        print(row)


def main() -> None:
    if not JOB.exists():
        print(f"{JOB} is absent: the Ascend fixtures live in ../shared")
        return
    repeat = 3 if ARGS.smoke else ARGS.repeat
    print(f"code: {Path(layout_module.__file__).parents[3]}; job: {JOB.name} (2 ranks); repeat {repeat}; "
          f"load {os.getloadavg()[0]:.2f}")
    _print("local", _measure(JOB / "profiler", repeat, None), False)
    if ARGS.local:
        return
    from mindinsight_clone.ingest import storage
    from tests.s3_server import running_s3_server

    with tempfile.TemporaryDirectory() as tmp, running_s3_server(Path(tmp)) as s3:
        s3.upload_tree(JOB, "bench-profiler", "base/job")
        base = storage.base_location("s3://bench-profiler/base", s3.storage_options)
        pattern = re.compile(r'"(GET|HEAD|PUT|POST) ')

        def requests() -> int:
            return len(pattern.findall(s3.log_path.read_text(errors="replace")))

        _print(f"S3 (moto on loopback, {s3.endpoint})", _measure(base / "job" / "profiler", repeat, requests), True)


if __name__ == "__main__":
    main()
