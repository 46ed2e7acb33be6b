"""Ascend profiler views on a synthetic many-rank job, our real server against DuckDB on the same files, in one run.

    python benchmarks/ascend.py                    # 8 ranks; rank 0: kernel_details 1M rows, trace_view 451 MB;
                                                   # then a 1,024-rank job for the cluster page; medians of 3
    python benchmarks/ascend.py --smoke            # 4 ranks; 20,000 rows, 5 MB; 16-rank cluster; once (CI)
    python benchmarks/ascend.py --ranks 16 --kernel-rows 200000 --trace-mb 100 --cluster-ranks 256 --repeat 1
    python benchmarks/ascend.py --repeat 1 --code /tmp/main-src  # the same, served by another checkout (before)

The job is made from ../shared/fixtures/ascend (torch_npu_level1, ranks 0/1 alternately), or, when ../shared is
absent, from the repo's synthetic job (mindinsight_clone/summary/ascend_profile.py). Every rank gets its own
step_trace_time.csv (per-rank factors, rank 3 computes longer by 30 % of its step, so the cluster has a slow rank); rank 0's
kernel_details.csv is its rows repeated (start times shifted) to `--kernel-rows` and its trace_view.json its
events repeated to `--trace-mb`. Layout as MindFormers writes it: `profiler/rank_N/<host>_<pid>_<ts>_ascend_ms/`.
The job is generated into a cache dir (`--cache`, reused when complete), never into the repo.

Then, per repetition (`--repeat`, medians printed):

1. **Cold**: our real server (gunicorn, `mindinsight-clone start`) on a fresh workspace. Rank 0's kernel table (page 1
   sorted by duration) and timeline summary are asked, each right after DuckDB (benchmarks/duckdb_floor.py, a fresh
   process, `--duckdb-threads` threads) did the same on the same file: its first page sorted by duration, its
   per-process trace summary. Meanwhile other connections keep asking rank 1's pages and the cluster page; their
   latencies are printed. The server tree's RSS is sampled throughout; every other view is asked cold then warm.
2. **Restart**: the server is stopped and started again on the same workspace: the two big views again, now answered
   from the parsed tables kept in `<workspace>/cache/profiler` (Parquet).

Last, the cluster page of a `--cluster-ranks` job (small files per rank) on a fresh server: cold and warm.
The goal (issue 19) is printed with each figure: first answers within 2x of DuckDB's, peak RSS <= 600 MB.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import common  # noqa: E402

SHARED_JOB = REPO.parent / "shared" / "fixtures" / "ascend" / "torch_npu_level1"
API = "/v1/mindinsight"
SLOW_RANK = 3
GENERATOR_VERSION = 2  # bumped when generate() changes what it writes (2: rank 3 computes 30 % of its step longer)


def _source_ranks(tmp: Path) -> list[Path]:
    """ASCEND_PROFILER_OUTPUT dirs of the source job (2 ranks)."""
    if SHARED_JOB.exists():
        return [next((SHARED_JOB / "profiler").glob(f"*/profiler_info_{r}.json")).parent / "ASCEND_PROFILER_OUTPUT"
                for r in (0, 1)]
    from mindinsight_clone.summary.ascend_profile import write_ascend_job
    return [f / "ASCEND_PROFILER_OUTPUT" for f in write_ascend_job(tmp / "source", ranks=2)]


def _link_or_copy(src: Path, dst: Path) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _step_trace(src: Path, dst: Path, rank: int) -> None:
    with src.open(newline="") as handle:
        rows = list(csv.reader(handle))
    factor = 1.0 + 0.02 * math.sin(rank)
    header, out = rows[0], [rows[0]]
    names = [c.strip() for c in header]
    computing = names.index("Computing")
    step_parts = [names.index(n) for n in ("Computing", "Communication(Not Overlapped)", "Free")]
    for row in rows[1:]:
        cells = [row[0]] + [f"{float(c) * factor:.3f}" for c in row[1:]]
        if rank == SLOW_RANK:  # computing longer by 30 % of the step, so its step is beyond the peers' tolerance
            step = sum(float(cells[i]) for i in step_parts)
            cells[computing] = f"{float(cells[computing]) + 0.3 * step:.3f}"
        out.append(cells)
    with dst.open("w", newline="") as handle:
        csv.writer(handle).writerows(out)


def _scale_kernels(src: Path, dst: Path, rows_wanted: int) -> None:
    with src.open(newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        rows = [r for r in reader if r]
    start_col = [c.strip() for c in header].index("Start Time(us)")
    starts = [float(r[start_col].strip()) for r in rows]
    span = max(starts) - min(starts) + 1000.0
    with dst.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        written, k = 0, 0
        while written < rows_wanted:
            for row, start in zip(rows, starts, strict=True):
                if written >= rows_wanted:
                    break
                row = list(row)
                row[start_col] = f"{start + k * span:.3f}\t"
                writer.writerow(row)
                written += 1
            k += 1


def _scale_trace(src: Path, dst: Path, mb_wanted: float) -> int:
    events = orjson.loads(src.read_bytes())
    meta = [e for e in events if e.get("ph") == "M"]
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    starts = [float(e["ts"]) for e in timed]
    span = max(starts) - min(starts) + 1000.0
    target = int(mb_wanted * 2**20)
    count = 0
    with dst.open("wb") as out:
        out.write(b"[" + b",".join(orjson.dumps(e) for e in meta))
        k = 0
        while out.tell() < target:
            chunk = []
            for event, start in zip(timed, starts, strict=True):
                copy = dict(event)
                copy["ts"] = f"{start + k * span:.3f}"
                chunk.append(orjson.dumps(copy))
            out.write(b"," + b",".join(chunk))
            count += len(chunk)
            k += 1
        out.write(b"]")
    return count + len(meta)


def generate(job: Path, ranks: int, kernel_rows: int, trace_mb: float) -> dict[str, Any]:
    """Write the job (see the module doc); returns what was written."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        sources = _source_ranks(Path(tmp))
        facts: dict[str, Any] = {"ranks": ranks, "source": "fixtures" if SHARED_JOB.exists() else "synthetic"}
        for rank in range(ranks):
            src = sources[rank % 2]
            session = job / "profiler" / f"rank_{rank}" / f"node{rank // 8}_{3000 + rank}_20260101120000000_ascend_ms"
            out = session / "ASCEND_PROFILER_OUTPUT"
            out.mkdir(parents=True, exist_ok=True)
            (session / f"profiler_info_{rank}.json").write_text(json.dumps({"ms_profiler_info": {"rank_id": rank}}))
            for path in src.iterdir():
                if path.name == "step_trace_time.csv":
                    _step_trace(path, out / path.name, rank)
                elif rank == 0 and path.name == "kernel_details.csv":
                    _scale_kernels(path, out / path.name, kernel_rows)
                elif rank == 0 and path.name == "trace_view.json":
                    facts["trace_events"] = _scale_trace(path, out / path.name, trace_mb)
                else:
                    _link_or_copy(path, out / path.name)
        big = job / "profiler" / "rank_0"
        facts["kernel_csv_mb"] = round(next(big.glob("*/ASCEND_PROFILER_OUTPUT/kernel_details.csv")).stat().st_size
                                       / 2**20, 1)
        facts["trace_mb"] = round(next(big.glob("*/ASCEND_PROFILER_OUTPUT/trace_view.json")).stat().st_size / 2**20, 1)
        facts["kernel_rows"] = kernel_rows
    facts["generate_s"] = round(time.perf_counter() - started, 1)
    facts["generator"] = GENERATOR_VERSION
    (job / "bench.json").write_text(json.dumps(facts))
    return facts


def _tree_cpu(root: int) -> float:
    """CPU seconds (user + system) used so far by the server's process tree: on a shared, loaded machine this is
    the fairer figure, wall time there includes waiting for a core."""
    total = 0.0
    for proc in common.process_tree(root):
        try:
            times = proc.cpu_times()
        except psutil.Error:  # a process may end between listing and reading
            continue
        total += times.user + times.system
    return total


class RssSampler:
    """Peak RSS of the server tree, from /proc/<pid>/statm (psutil memory_info) every 0.25 s. Not common.TreeSampler:
    its smaps reads (for PSS) take the target's mmap lock and slow a server that is allocating hard."""

    def __init__(self, root: int) -> None:
        self.root, self.peak = root, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            total = 0
            for proc in common.process_tree(self.root):
                try:
                    total += proc.memory_info().rss
                except psutil.Error:
                    continue
            self.peak = max(self.peak, total)
            self._stop.wait(0.25)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def _request(base: str, path: str, body: Any = None) -> tuple[float, int, int]:
    t0 = time.perf_counter()
    status, data = common.http_request(base, path, "POST" if body is not None else "GET", body, timeout=900)
    return time.perf_counter() - t0, status, len(data)


Q = "train_id=./job&profile=profiler"
KERNEL_PAGE = {"op_type": "aicore_detail", "device_id": "{r}", "sort_condition": {"name": "duration_us"},
               "group_condition": {"limit": 20, "offset": 0}}
BIG = [  # (label, path, body, DuckDB query of benchmarks/duckdb_floor.py, file)
    ("kernel table, page 1 by duration", "/profile/ops/search?{q}", KERNEL_PAGE, "kernel", "kernel_details.csv"),
    ("timeline summary", "/profile/timeline-summary?dir=./job&device_id={r}", None, "trace", "trace_view.json"),
]
VIEWS: list[tuple[str, str, Any]] = [
    ("step-trace-time", "/profile/step-trace-time?{q}&device_id={r}", None),
    ("ops aicore_type", "/profile/ops/search?{q}", {"op_type": "aicore_type", "device_id": "{r}"}),
    ("ops aicore_detail (search 'conv')", "/profile/ops/search?{q}",
     {"op_type": "aicore_detail", "device_id": "{r}", "filter_condition": {"op_name": {"partial_match_str_in":
                                                                                      ["conv"]}},
      "group_condition": {"limit": 20, "offset": 0}}),
    ("communication", "/profile/communication?{q}&device_id={r}", None),
    ("memory-record", "/profile/memory-record?{q}&device_id={r}", None),
    ("timeline window (5,000 longest)", "/profile/timeline?dir=./job&device_id={r}&max_events=5000", None),
]
# what other users ask while rank 0 loads: another rank's pages and the cluster page
PROBES: list[tuple[str, Any]] = [
    ("/profile/step-trace-time?{q}&device_id=1", None),
    ("/profile/ops/search?{q}", {**KERNEL_PAGE, "device_id": "1"}),
    ("/profile/timeline-summary?dir=./job&device_id=1", None),
    ("/profile/cluster-step-trace?{q}", None),
]


def _fill(value: Any, rank: int) -> Any:
    if isinstance(value, str):
        return value.replace("{r}", str(rank)).replace("{q}", Q)
    if isinstance(value, dict):
        return {k: _fill(v, rank) for k, v in value.items()}
    return value


class Server:
    """Our server (`mindinsight-clone start`, gunicorn) on a free port, with a given workspace."""

    code: Path | None = None  # another checkout's package to serve (`--code`), else this one's

    def __init__(self, base_dir: Path, workspace: Path) -> None:
        self.port = common.free_port()
        self.base = f"http://{common.LOOPBACK}:{self.port}"
        self.workspace = workspace
        self.cli = [sys.executable, "-m", "mindinsight_clone"]
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
        self.cwd = REPO
        if Server.code is not None:
            self.env["PYTHONPATH"] = str(Server.code)
            self.cwd = Server.code
        started = subprocess.run([*self.cli, "start", "--port", str(self.port), "--summary-base-dir", str(base_dir),
                                  "--workspace", str(workspace), "--timeout", "900"], capture_output=True, text=True,
                                 timeout=120, check=False, env=self.env, cwd=self.cwd)
        if started.returncode != 0:
            raise SystemExit(started.stdout + started.stderr)
        root = common.listener_root(self.port)
        assert root is not None, "server is not listening"
        self.root = root

    def stop(self) -> None:
        subprocess.run([*self.cli, "stop", "--port", str(self.port), "--workspace", str(self.workspace)],
                       capture_output=True, timeout=60, check=False, env=self.env, cwd=self.cwd)

    def ask(self, path: str, body: Any = None, rank: int = 0) -> tuple[float, int, int]:
        return _request(self.base, API + _fill(path, rank), _fill(body, rank))


class Prober:
    """While running, other connections ask PROBES in turn and record each answer's latency and status."""

    clients = 2  # `--probe-clients`

    def __init__(self, server: Server, clients: int | None = None) -> None:
        clients = Prober.clients if clients is None else clients
        self.server, self.latencies, self.errors = server, [], 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(clients)]

    def _run(self, offset: int) -> None:
        i = offset
        while not self._stop.is_set():
            path, body = PROBES[i % len(PROBES)]
            elapsed, status, _ = self.server.ask(path, body)
            self.latencies.append(elapsed)
            self.errors += status != 200
            i += 1
            self._stop.wait(0.25)  # each client: a request, a quarter second, the next (~8 requests/s for two)

    def __enter__(self) -> Prober:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=120)


def _duckdb(what: str, path: Path, threads: int) -> dict[str, Any]:
    out = subprocess.run([sys.executable, str(REPO / "benchmarks" / "duckdb_floor.py"), what, str(path),
                          "--threads", str(threads)], capture_output=True, text=True, timeout=900, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _rank0_file(base_dir: Path, name: str) -> Path:
    return next((base_dir / "job" / "profiler" / "rank_0").glob(f"*/ASCEND_PROFILER_OUTPUT/{name}"))


def measure_once(base_dir: Path, threads: int, detail: bool) -> dict[str, Any]:
    """One cold session (fresh workspace) and one restart on the same workspace. Returns the figures."""
    workspace = Path(tempfile.mkdtemp(prefix="mic-ascend-ws-"))
    out: dict[str, Any] = {"big": {}, "restart": {}, "views": []}
    try:
        server = Server(base_dir, workspace)
        try:
            out["rss_idle"] = common.tree_memory(server.root)[0]
            with RssSampler(server.root) as sampler:
                for label, path, body, what, name in BIG:
                    floor = _duckdb(what, _rank0_file(base_dir, name), threads)
                    with Prober(server) as prober:
                        cpu0 = _tree_cpu(server.root)
                        cold, status, _ = server.ask(path, body)
                        cpu = _tree_cpu(server.root) - cpu0
                    assert status == 200, (label, status)
                    print(f"{label}: ours {cold:.3f} s (server CPU {cpu:.2f} s), DuckDB {floor['seconds']:.3f} s "
                          f"(CPU {floor['cpu_s']:.2f} s)", flush=True)
                    out["big"][label] = {"ours": cold, "ours_cpu": cpu, "duckdb": floor["seconds"],
                                         "duckdb_cpu": floor["cpu_s"], "duckdb_rss": floor["peak_rss_mb"],
                                         "probes": sorted(prober.latencies), "probe_errors": prober.errors}
                if detail:
                    for label, path, body in VIEWS:
                        cpu0 = _tree_cpu(server.root)
                        cold, status, nbytes = server.ask(path, body)
                        cpu = _tree_cpu(server.root) - cpu0
                        warm, _, _ = server.ask(path, body)
                        out["views"].append((label, cold, cpu, warm, status, nbytes))
                    for label, path, body, _, _ in BIG:
                        out["big"][label]["warm"] = server.ask(path, body)[0]
                out["peak"] = sampler.peak
            out["rss_after"] = common.tree_memory(server.root)[0]
        finally:
            server.stop()
        server = Server(base_dir, workspace)  # restart: same workspace, parsed tables on disk
        try:
            with RssSampler(server.root) as sampler:
                for label, path, body, _, _ in BIG:
                    out["restart"][label] = server.ask(path, body)[0]
                out["restart_peak"] = sampler.peak
        finally:
            server.stop()
        cache = workspace / "cache" / "profiler"
        out["cache_mb"] = sum(f.stat().st_size for f in cache.glob("*.parquet")) / 2**20 if cache.exists() else 0.0
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    return out


def measure_cluster(base_dir: Path, ranks: int) -> dict[str, Any]:
    workspace = Path(tempfile.mkdtemp(prefix="mic-ascend-cluster-ws-"))
    try:
        server = Server(base_dir, workspace)
        try:
            cold, status, _ = server.ask("/profile/cluster-step-trace?{q}")
            assert status == 200, status
            warm, _, size = server.ask("/profile/cluster-step-trace?{q}")
            devices = server.ask("/profile/devices?{q}")[0]
            one_rank = server.ask(f"/profile/step-trace-time?{{q}}&device_id={ranks - 1}")[0]
            analysis = server.ask("/profile/cluster-analysis?{q}")[0]
            answer = common.get_json(server.base, f"{API}/profile/cluster-step-trace?{Q}", timeout=120)
        finally:
            server.stop()
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    return {"cold": cold, "warm": warm, "bytes": size, "devices": devices, "one_rank": one_rank,
            "analysis": analysis, "ranks_answered": len(answer["ranks"]) if answer else 0,
            "slow": [(s["rank_id"], s["phase"]) for s in answer["slow_ranks"]] if answer else []}


def _med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(runs: list[dict[str, Any]], cluster: dict[str, Any], facts: dict[str, Any], cluster_ranks: int,
           threads: int) -> None:
    first = runs[0]
    if first["views"]:
        print("\n| view (rank 0), first run | first answer (s) | server CPU meanwhile (s) | warm (s) | status | bytes |")
        print("|---|---|---|---|---|---|")
        for label, cold, cpu, warm, status, nbytes in first["views"]:
            print(f"| {label} | {cold:.3f} | {cpu:.3f} | {warm:.3f} | {status} | {nbytes:,} |")
    n = len(runs)
    print(f"\n### Rank 0 ({facts['kernel_rows']:,} kernel rows = {facts['kernel_csv_mb']} MB, trace "
          f"{facts['trace_mb']} MB = {facts.get('trace_events', 0):,} events), cold, medians of {n}")
    print(f"\n| first answer | ours: our gunicorn server (s) | DuckDB {threads} threads, same file (s) | ours / DuckDB "
          "| goal <= 2x | ours after a restart (s) | ours warm (s) |")
    print("|---|---|---|---|---|---|---|")
    verdicts = []
    for label, *_ in BIG:
        ours = _med([r["big"][label]["ours"] for r in runs])
        duck = _med([r["big"][label]["duckdb"] for r in runs])
        ratio = _med([r["big"][label]["ours"] / r["big"][label]["duckdb"] for r in runs])
        restart = _med([r["restart"][label] for r in runs])
        warm = first["big"][label].get("warm", float("nan"))
        met = ratio <= 2.0
        verdicts.append(met)
        print(f"| {label} | {ours:.2f} | {duck:.2f} | {ratio:.2f}x | {'met' if met else 'NOT met'} | {restart:.2f} "
              f"| {warm:.3f} |")
    print("\n| CPU seconds of the first answer | ours (server tree) | DuckDB |")
    print("|---|---|---|")
    for label, *_ in BIG:
        print(f"| {label} | {_med([r['big'][label]['ours_cpu'] for r in runs]):.2f} | "
              f"{_med([r['big'][label]['duckdb_cpu'] for r in runs]):.2f} |")
    peak = max(r["peak"] for r in runs) / 2**20
    duck_rss = max(r["big"][label]["duckdb_rss"] for r in runs for label, *_ in BIG)
    print(f"\npeak RSS while loading (server tree, all runs): {peak:.0f} MB (goal <= 600 MB: "
          f"{'met' if peak <= 600 else 'NOT met'}); DuckDB's process: {duck_rss} MB; idle "
          f"{first['rss_idle'] / 2**20:.0f} MB, after {first['rss_after'] / 2**20:.0f} MB; after a restart, peak "
          f"{max(r['restart_peak'] for r in runs) / 2**20:.0f} MB; parsed tables kept: {first['cache_mb']:.1f} MB")
    print("\n| while rank 0 loads: other requests (rank 1's pages, cluster page) | answered | errors | median (s) "
          "| p95 (s) | max (s) |")
    print("|---|---|---|---|---|---|")
    for label, *_ in BIG:
        lat = sorted(x for r in runs for x in r["big"][label]["probes"])
        errors = sum(r["big"][label]["probe_errors"] for r in runs)
        if lat:
            print(f"| during {label} | {len(lat)} | {errors} | {_med(lat):.3f} | {common.percentile(lat, 95):.3f} "
                  f"| {lat[-1]:.3f} |")
    print(f"\n### Cluster page, {cluster_ranks:,} ranks (small files per rank), fresh server")
    print("\n| cluster page | seconds |")
    print("|---|---|")
    print(f"| cluster-step-trace, {cluster_ranks} ranks, first answer | {cluster['cold']:.3f} |")
    print(f"| cluster-step-trace, warm ({cluster['bytes']:,} bytes) | {cluster['warm']:.3f} |")
    print(f"| devices | {cluster['devices']:.3f} |")
    print(f"| step-trace-time of rank {cluster_ranks - 1} | {cluster['one_rank']:.3f} |")
    print(f"| cluster-analysis | {cluster['analysis']:.3f} |")
    print(f"\nranks answered: {cluster['ranks_answered']}; slow ranks found: {cluster['slow']}")
    print(f"goal: first answers within 2x of DuckDB: {'met' if all(verdicts) else 'NOT met'}; "
          f"peak_rss_mb={peak:.0f}; load average now {common.load_average()}")


def _job(cache: Path, ranks: int, kernel_rows: int, trace_mb: float) -> tuple[Path, dict[str, Any]]:
    base_dir = cache / f"ascend-{ranks}ranks-{kernel_rows}rows-{trace_mb:g}mb"
    job = base_dir / "job"
    made = json.loads((job / "bench.json").read_text()) if (job / "bench.json").exists() else {}
    if made.get("generator") != GENERATOR_VERSION:  # absent, incomplete or made by an older generator
        shutil.rmtree(base_dir, ignore_errors=True)
        return base_dir, generate(job, ranks, kernel_rows, trace_mb)
    return base_dir, json.loads((job / "bench.json").read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--kernel-rows", type=int, default=1_000_000)
    parser.add_argument("--trace-mb", type=float, default=451.0)
    parser.add_argument("--cluster-ranks", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--duckdb-threads", type=int, default=2)
    parser.add_argument("--smoke", action="store_true", help="4 ranks, 20,000 kernel rows, a 5 MB trace, 16-rank "
                                                             "cluster, once")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench",
                        help="where the jobs are generated (reused when complete)")
    parser.add_argument("--probe-clients", type=int, default=2,
                        help="connections asking other pages while rank 0 loads (0: none)")
    parser.add_argument("--code", type=Path, default=None,
                        help="serve another checkout's mindinsight_clone (e.g. `git archive main` unpacked): before/after")
    args = parser.parse_args()
    Server.code = args.code.resolve() if args.code else None
    Prober.clients = args.probe_clients
    if args.smoke:
        args.ranks, args.kernel_rows, args.trace_mb, args.cluster_ranks, args.repeat = 4, 20_000, 5.0, 16, 1
    print(f"machine: {common.machine_info()}")
    base_dir, facts = _job(args.cache, args.ranks, args.kernel_rows, args.trace_mb)
    print(f"job: {facts}")
    cluster_dir, cluster_facts = _job(args.cache, args.cluster_ranks, 2000, 1.0)
    print(f"cluster job: {cluster_facts}")
    runs = [measure_once(base_dir, args.duckdb_threads, detail=i == 0) for i in range(max(1, args.repeat))]
    cluster = measure_cluster(cluster_dir, args.cluster_ranks)
    report(runs, cluster, facts, args.cluster_ranks, args.duckdb_threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
