"""Many concurrent clients against the real gunicorn server on loopback, bounded in time and count.

    python benchmarks/load.py                         # 200 clients x 60 s over corpus S
    python benchmarks/load.py --clients 50 --seconds 20 --summary-base-dir DIR
    python benchmarks/load.py --smoke                 # 20 clients x 5 s over a tiny corpus (CI)

Starts `mindinsight-clone start` on a free loopback port (the user's command, default settings plus
--ours-arg flags), waits until every run serves its last step, then runs N client threads, each on
its own keep-alive connection, cycling through the read endpoints a UI uses: scalar/metadata of every
(run, tag), scalars (comparison), train-jobs, plugins, single-job and health. Reports requests,
errors (non-200 answers and socket errors), req/s, p50/p95/p99/max, and the RSS of the server's
process tree and of its largest process (the worker) before and after. The server is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common
import corpus as corpus_mod

API = "/v1/mindinsight/datavisual"


def paths_for(manifest: dict[str, object]) -> list[str]:
    runs = list(manifest["runs"])  # type: ignore[call-overload]
    tags = list(manifest["scalar_tags"])  # type: ignore[call-overload]
    out = [f"{API}/scalar/metadata?train_id=./{r}&tag={t}" for r in runs for t in tags]
    mix = [f"{API}/train-jobs?limit=999", "/v1/mindinsight/health"]
    mix += [f"{API}/plugins?train_id=./{r}" for r in runs]
    mix += [f"{API}/single-job?train_id=./{r}&plugin_name=scalar" for r in runs]
    mix += [f"{API}/scalars?train_id=./{runs[0]}&train_id=./{runs[-1]}&tag={tags[0]}"]
    # interleave: about one non-scalar request in every five
    step = max(1, len(out) // max(len(mix), 1) // 4 or 1)
    merged: list[str] = []
    for i, path in enumerate(out):
        merged.append(path)
        if i % step == 0 and mix:
            merged.append(mix[(i // step) % len(mix)])
    return merged


def largest_rss(pid: int) -> int:
    best = 0
    for proc in common.process_tree(pid):
        try:
            best = max(best, proc.memory_info().rss)
        except psutil.Error:  # it may exit while we look
            continue
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=200, help="concurrent client threads (default 200)")
    parser.add_argument("--seconds", type=float, default=60, help="duration of the load (default 60)")
    parser.add_argument("--max-requests", type=int, default=2_000_000, help="stop after this many requests")
    parser.add_argument("--summary-base-dir", type=Path, help="serve this dir (default: generated corpus)")
    parser.add_argument("--kind", choices=["S", "M"], default="S", help="generated corpus (default S)")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench")
    parser.add_argument("--ours-arg", action="append", default=[], help="extra flag for `mindinsight-clone start`")
    parser.add_argument("--timeout", type=float, default=600, help="most seconds to wait for the data to load")
    parser.add_argument("--smoke", action="store_true", help="20 clients x 5 s over a tiny corpus")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON line too")
    args = parser.parse_args(argv)
    if args.smoke:
        args.clients, args.seconds = min(args.clients, 20), min(args.seconds, 5)
    if not 1 <= args.clients <= 2000:
        parser.error("--clients must be in 1..2000")
    if not 0 < args.seconds <= 3600:
        parser.error("--seconds must be in (0, 3600]")

    if args.summary_base_dir is not None:
        base_dir = args.summary_base_dir.resolve()
        runs = sorted(p.name for p in base_dir.iterdir() if p.is_dir())
        manifest: dict[str, object] = {"runs": runs, "scalar_tags": [], "last_step": None}
    else:
        spec = corpus_mod.spec_for(args.kind, 1, args.smoke)
        base_dir = args.cache.expanduser() / "corpora" / f"{spec.name}-ms"
        if not corpus_mod.is_current(base_dir, spec, "ms"):
            print(f"generating corpus {spec.name} in {base_dir} ...", flush=True)
            corpus_mod.generate(spec, "ms", base_dir, quiet=True)
        loaded = corpus_mod.read_manifest(base_dir)
        assert loaded is not None
        manifest = loaded

    port = common.free_port()
    base = f"http://{common.LOOPBACK}:{port}"
    workspace = Path(tempfile.mkdtemp(prefix="mic-load-ws-"))
    cli = [sys.executable, "-m", "mindinsight_clone"]
    print(f"machine: {common.machine_info()}")
    print(common.byte_compile_ours())
    t0 = time.monotonic()
    started = subprocess.run([*cli, "start", "--port", str(port), "--summary-base-dir", str(base_dir),
                              "--workspace", str(workspace), *args.ours_arg], capture_output=True, text=True,
                             timeout=120, check=False)
    if started.returncode != 0:
        print(started.stdout, started.stderr, file=sys.stderr)
        return 1
    try:
        root = common.listener_root(port)
        if root is None:
            print("server is not listening", file=sys.stderr)
            return 1
        if not manifest["scalar_tags"]:
            manifest = discover(base, manifest, args.timeout)
        else:
            wait_loaded(base, manifest, args.timeout)
        print(f"data loaded {time.monotonic() - t0:.1f} s after start; {len(manifest['runs'])} runs")  # type: ignore[arg-type]
        rss_before, _, nprocs = common.tree_memory(root)
        worker_before = largest_rss(root)
        paths = paths_for(manifest)
        print(f"load: {args.clients} clients x {args.seconds:.0f} s (at most {args.max_requests:,} requests) over "
              f"{len(paths)} URLs; load average {common.load_average()}", flush=True)
        stats = common.run_load(base, paths, args.clients, args.seconds, args.max_requests,
                                connect_stagger=min(1.0, args.seconds / 10))
        rss_after, _, _ = common.tree_memory(root)
        worker_after = largest_rss(root)
        health = common.http_request(base, "/v1/mindinsight/health")[0]
    finally:
        subprocess.run([*cli, "stop", "--port", str(port), "--workspace", str(workspace)], capture_output=True,
                       timeout=60, check=False)
    summary = stats.summary()
    print()
    print("| clients | seconds | requests | errors | req/s | p50 ms | p95 ms | p99 ms | max ms | MB read |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {summary['clients']} | {summary['seconds']} | {summary['requests']:,} | {summary['errors']:,} | "
          f"{summary['req_per_s']:,} | {summary['p50_ms']} | {summary['p95_ms']} | {summary['p99_ms']} | "
          f"{summary['max_ms']} | {summary['mb_read']} |")
    if stats.error_kinds:
        print(f"errors by kind: {stats.error_kinds}")
    print(f"RSS of the server tree ({nprocs} processes): before {rss_before / 1e6:.0f} MB, after "
          f"{rss_after / 1e6:.0f} MB; largest process (worker): before {worker_before / 1e6:.0f} MB, after "
          f"{worker_after / 1e6:.0f} MB")
    print(f"health after the load: {health}; load average {common.load_average()}")
    if args.json:
        print(json.dumps(summary | {"rss_before_mb": round(rss_before / 1e6, 1), "rss_after_mb": round(
            rss_after / 1e6, 1), "worker_rss_before_mb": round(worker_before / 1e6, 1),
            "worker_rss_after_mb": round(worker_after / 1e6, 1), "health_after": health}))
    return 0 if health == 200 and not math.isnan(stats.req_per_s) else 1


def wait_loaded(base: str, manifest: dict[str, object], timeout: float) -> None:
    """Post the runs to train-job-caches and wait until every run serves its last step (bounded)."""
    runs = list(manifest["runs"])  # type: ignore[call-overload]
    tag = manifest["probe_tag"]
    last = int(manifest["last_step"])  # type: ignore[call-overload]

    def done() -> bool:
        common.http_request(base, f"{API}/train-job-caches", "POST", {"train_ids": [f"./{r}" for r in runs]})
        for run in runs:
            body = common.get_json(base, f"{API}/scalar/metadata?train_id=./{run}&tag={tag}")
            try:
                if int(body["metadatas"][-1]["step"]) < last:
                    return False
            except (TypeError, KeyError, IndexError, ValueError):
                return False
        return True

    if not common.wait_for(done, timeout, interval=0.2):
        raise SystemExit(f"the data did not load within {timeout:.0f} s")


def discover(base: str, manifest: dict[str, object], timeout: float) -> dict[str, object]:
    """For a user's dir: wait until train-jobs lists the runs and take the scalar tags of the first."""
    found: dict[str, object] = {}

    def listed() -> bool:
        body = common.get_json(base, f"{API}/train-jobs?limit=999")
        jobs = body.get("train_jobs", []) if isinstance(body, dict) else []
        if not jobs:
            return False
        runs = [j["train_id"].removeprefix("./") for j in jobs]
        common.http_request(base, f"{API}/train-job-caches", "POST", {"train_ids": [f"./{r}" for r in runs[:15]]})
        tags = common.get_json(base, f"{API}/plugins?train_id=./{runs[0]}")
        scalars = tags.get("plugins", {}).get("scalar", []) if isinstance(tags, dict) else []
        if scalars:
            found.update(runs=runs[:15], scalar_tags=scalars[:20])
        return bool(scalars)

    if not common.wait_for(listed, timeout, interval=0.5):
        raise SystemExit(f"no run with scalars was listed within {timeout:.0f} s")
    return manifest | found


if __name__ == "__main__":
    sys.exit(main())
