"""What a user waits for when the profiler page opens on a big Ascend rank: the overview tab's requests, all sent
at once as the browser does, until the last one answers. Our real server (gunicorn), cold (fresh workspace) and
after a restart (parsed tables on disk), on benchmarks/ascend.py's job (rank 0: 1M kernel rows, a 451 MB trace).

    python benchmarks/overview_tab.py                 # the default job, 3 interleaved repetitions
    python benchmarks/overview_tab.py --smoke         # 4 ranks, 20,000 kernel rows (seconds)
    python benchmarks/overview_tab.py --settle 2      # the page opened 2 s after the server started

Two request sets are timed on the same server build, interleaved:
  * `one tab` (issue 30: OverviewTab.vue for every layout): profile/overview, training-trace/graph, step-trace-time,
    summary/propose, flops-summary;
  * `before` (the Ascend-only overview it replaced): step-trace-time and ops/search ascend_type (top 10).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import common  # noqa: E402
from benchmarks.ascend import Q, Server, _job  # noqa: E402

ONE_TAB: list[tuple[str, Any]] = [
    (f"/profile/overview?{Q}&device_id=0", None),
    ("/profile/training-trace/graph?dir=./job&device_id=0&type=0", None),
    (f"/profile/step-trace-time?{Q}&device_id=0", None),
    (f"/profile/summary/propose?{Q}&device_id=0", None),
    ("/profile/flops-summary?train_id=./job&device_id=0", None),
]
BEFORE: list[tuple[str, Any]] = [
    (f"/profile/step-trace-time?{Q}&device_id=0", None),
    (f"/profile/ops/search?{Q}", {"op_type": "ascend_type", "device_id": "0", "group_condition": {"limit": 10, "offset": 0},
                                  "sort_condition": {"name": "execution_time", "type": "descending"}}),
]
SETS = {"one tab": ONE_TAB, "before": BEFORE}


def _all_at_once(server: Server, requests: list[tuple[str, Any]]) -> float:
    """Seconds until the last of `requests` (sent together) has answered; every answer must be 200."""
    t0 = time.perf_counter()
    with ThreadPoolExecutor(len(requests)) as pool:
        answers = list(pool.map(lambda r: server.ask(*r), requests))
    took = time.perf_counter() - t0
    assert all(status == 200 for _, status, _ in answers), answers
    return took


def measure(base_dir: Path, name: str, settle: float) -> tuple[float, float]:
    """(cold, after a restart) for one request set, asked `settle` seconds after each start."""
    workspace = Path(tempfile.mkdtemp(prefix="mic-overview-ws-"))
    took: list[float] = []
    try:
        for _start in ("cold", "restart"):  # the second start finds the parsed tables in the workspace
            server = Server(base_dir, workspace)
            try:
                time.sleep(settle)
                took.append(_all_at_once(server, SETS[name]))
            finally:
                server.stop()
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    return took[0], took[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--settle", type=float, default=0.0, help="seconds between a server's start and the requests")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench")
    args = parser.parse_args()
    ranks, rows, trace_mb = (4, 20_000, 5.0) if args.smoke else (8, 1_000_000, 451.0)
    print(f"machine: {common.machine_info()}")
    base_dir, facts = _job(args.cache, ranks, rows, trace_mb)
    print(f"job: {facts}")
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in SETS}
    for i in range(max(1, args.repeat)):
        for name in SETS if i % 2 == 0 else reversed(SETS):
            figures[name].append(measure(base_dir, name, args.settle))
            print(f"  {name}: cold {figures[name][-1][0]:.3f} s, after restart {figures[name][-1][1]:.3f} s", flush=True)
    print(f"\noverview tab of rank 0, every request sent at once {args.settle:g} s after the start, until the last "
          f"answer (median of {args.repeat}):")
    print(f"{'request set':<10} {'requests':>8} {'cold':>8} {'restart':>8}")
    for name, runs in figures.items():
        cold = statistics.median(r[0] for r in runs)
        restart = statistics.median(r[1] for r in runs)
        print(f"{name:<10} {len(SETS[name]):>8} {cold:>7.3f}s {restart:>7.3f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
