"""Many runs (issue 13): a base dir of N small runs plus rank groups, served by the real server.

    python benchmarks/many_runs.py [--runs 10000] [--groups 4 --ranks 8] [--out DIR] [--smoke]

Writes (with our SummaryWriter) `exp_<i>` runs of a few steps and `job_<g>/output/summary/rank_<r>` rank
groups four levels down, starts the server with `--max-depth 4 --max-run-count <all>` and the DEFAULT
cache settings, then prints: the time until every run is listed, the time until every run is cached,
the server's memory (RSS/PSS of the process tree), and the latency of what the summary list asks for
(a page of 100 entries with collapse_groups at random offsets, a search, a group's ranks). No
assertions; `--smoke` (CI) uses 300 runs.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common

from mindinsight_clone.summary import SummaryWriter

API = "/v1/mindinsight/datavisual"
MTIME0 = 1_700_000_000


def make_many_runs(base: Path, runs: int, groups: int = 0, ranks: int = 8, steps: int = 5,
                   rank_steps: int = 200) -> list[str]:
    """Write `runs` plain runs and `groups` rank groups of `ranks` runs under `base`; their train_ids."""
    ids: list[str] = []
    for i in range(runs):
        with SummaryWriter(base / f"exp_{i:05d}", timestamp=MTIME0 + i, host="bench") as w:
            for step in range(1, steps + 1):
                w.add_scalar("loss", 1.0 / step + i * 1e-4, step)
        ids.append(f"./exp_{i:05d}")
    for g in range(groups):
        for r in range(ranks):
            run = base / f"job_{g}" / "output" / "summary" / f"rank_{r}"
            with SummaryWriter(run, timestamp=MTIME0 + runs + g, host="bench", device_id=r) as w:
                for step in range(1, rank_steps + 1):
                    w.add_scalar("loss", (1.0 + 0.1 * r) / step, step)
                    w.add_scalar("lr", 0.01 * (1 + r), step)
            ids.append(f"./job_{g}/output/summary/rank_{r}")
    return ids


def _latency(base: str, paths: list[str]) -> tuple[float, float]:
    times = []
    for path in paths:
        t0 = time.perf_counter()
        status, _ = common.http_request(base, path, timeout=30)
        if status == 200:
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return common.percentile(times, 50), common.percentile(times, 95)


def _cached_count(base: str, total: int) -> int:
    n = 0
    for page in range(0, (total + 998) // 999):
        body = common.get_json(base, f"{API}/train-jobs?offset={page}&limit=999", timeout=30)
        if body is None:
            return -1
        n += sum(1 for j in body["train_jobs"] if j["cache_status"] == "CACHED")
    return n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--out", type=Path, default=None, help="base dir to write (default: a temp dir)")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.groups, args.ranks, args.timeout = 300, 2, 4, 120
    base_dir = args.out or Path(tempfile.mkdtemp(prefix="mic-many-runs-"))
    base_dir.mkdir(parents=True, exist_ok=True)
    print(f"machine: {common.machine_info()}")
    print(common.byte_compile_ours())
    t0 = time.monotonic()
    ids = make_many_runs(base_dir, args.runs, args.groups, args.ranks)
    print(f"wrote {len(ids):,} runs ({args.groups} groups x {args.ranks} ranks) in {base_dir} "
          f"in {time.monotonic() - t0:.1f} s", flush=True)

    port = common.free_port()
    base = f"http://{common.LOOPBACK}:{port}"
    workspace = Path(tempfile.mkdtemp(prefix="mic-many-ws-"))
    cli = [sys.executable, "-m", "mindinsight_clone"]
    t0 = time.monotonic()
    started = subprocess.run([*cli, "start", "--port", str(port), "--summary-base-dir", str(base_dir),
                              "--workspace", str(workspace), "--max-depth", "4",
                              "--max-run-count", str(len(ids) + 100)],
                             capture_output=True, text=True, timeout=120, check=False)
    if started.returncode != 0:
        print(started.stdout, started.stderr, file=sys.stderr)
        return 1
    try:
        root = common.listener_root(port)
        if root is None:
            print("server is not listening", file=sys.stderr)
            return 1

        def listed() -> bool:
            body = common.get_json(base, f"{API}/train-jobs?limit=1", timeout=30)
            return body is not None and body["total"] == len(ids)

        ok = common.wait_for(listed, args.timeout, interval=0.2)
        t_listed = time.monotonic() - t0
        ok = ok and common.wait_for(lambda: _cached_count(base, len(ids)) == len(ids), args.timeout, interval=1.0)
        t_cached = time.monotonic() - t0
        rss, pss, nprocs = common.tree_memory(root)
        entries = common.get_json(base, f"{API}/train-jobs?limit=1&collapse_groups=true", timeout=30)["total"]
        rng = random.Random(0)
        pages = [f"{API}/train-jobs?collapse_groups=true&limit=100&offset={rng.randrange(max(1, entries // 100))}"
                 for _ in range(40)]
        searches = [f"{API}/train-jobs?collapse_groups=true&limit=100&search={urllib.parse.quote(q)}"
                    for q in ("exp_0123", "rank_", "job_1", "no-such-run", "EXP_09") * 8]
        group_q = urllib.parse.quote("./job_0/output/summary")
        group = [f"{API}/train-jobs?group={group_q}&limit=999"] * 40
        p_page, p_search, p_group = _latency(base, pages), _latency(base, searches), _latency(base, group)
    finally:
        subprocess.run([*cli, "stop", "--port", str(port), "--workspace", str(workspace)], capture_output=True,
                       timeout=60, check=False)
    print()
    print(f"runs: {len(ids):,} ({entries:,} list entries with collapse_groups); default cache settings; "
          f"{'all listed and cached' if ok else 'TIMED OUT'}")
    print("| what | figure |")
    print("|---|---|")
    print(f"| start -> every run listed | {t_listed:.1f} s |")
    print(f"| start -> every run cached | {t_cached:.1f} s |")
    print(f"| server memory (RSS / PSS, {nprocs} processes) | {rss / 2**20:.0f} MB / {pss / 2**20:.0f} MB |")
    print(f"| train-jobs page of 100 (collapse_groups), p50 / p95 | {p_page[0]:.1f} / {p_page[1]:.1f} ms |")
    print(f"| train-jobs search, page of 100, p50 / p95 | {p_search[0]:.1f} / {p_search[1]:.1f} ms |")
    print(f"| train-jobs group= (one job's ranks), p50 / p95 | {p_group[0]:.1f} / {p_group[1]:.1f} ms |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
