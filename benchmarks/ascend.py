"""Ascend profiler views on a synthetic 64-rank job: time to first answer of each view, peak RSS while loading,
server responsiveness while a big rank loads, and cluster-page latency.

    python benchmarks/ascend.py                    # 64 ranks; rank 0: kernel_details 1M rows, trace_view 500 MB
    python benchmarks/ascend.py --smoke            # 4 ranks; 20,000 rows, 5 MB (CI)
    python benchmarks/ascend.py --ranks 16 --kernel-rows 200000 --trace-mb 100

The job is made from ../shared/fixtures/ascend (torch_npu_level1, ranks 0/1 alternately), or, when ../shared is
absent, from the repo's synthetic job (mindinsight_clone/summary/ascend_profile.py). Every rank gets its own
step_trace_time.csv (per-rank factors, rank 3 computes longer by 30 % of its step, so the cluster has a slow rank); rank 0's
kernel_details.csv is its rows repeated (start times shifted) to `--kernel-rows` and its trace_view.json its
events repeated to `--trace-mb`. Layout as MindFormers writes it: `profiler/rank_N/<host>_<pid>_<ts>_ascend_ms/`.
The job is generated into a cache dir (`--cache`, reused when complete), never into the repo.

Then our real server (gunicorn, `mindinsight-clone start`) serves it and this script asks, one view at a time,
cold then warm, while sampling the server tree's RSS. During rank 0's trace load (the slowest view) it asks rank 1
and the cluster page from other connections to show the server keeps answering.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shutil
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


VIEWS: list[tuple[str, str, Any]] = [
    ("step-trace-time", "/profile/step-trace-time?{q}&device_id={r}", None),
    ("ops aicore_type", "/profile/ops/search?{q}", {"op_type": "aicore_type", "device_id": "{r}"}),
    ("ops aicore_detail (page 1, by duration)", "/profile/ops/search?{q}",
     {"op_type": "aicore_detail", "device_id": "{r}", "sort_condition": {"name": "duration_us"},
      "group_condition": {"limit": 20, "offset": 0}}),
    ("ops aicore_detail (search 'conv')", "/profile/ops/search?{q}",
     {"op_type": "aicore_detail", "device_id": "{r}", "filter_condition": {"op_name": {"partial_match_str_in":
                                                                                      ["conv"]}},
      "group_condition": {"limit": 20, "offset": 0}}),
    ("communication", "/profile/communication?{q}&device_id={r}", None),
    ("memory-record", "/profile/memory-record?{q}&device_id={r}", None),
    ("timeline-summary", "/profile/timeline-summary?dir=./job&device_id={r}", None),
    ("timeline window (5,000 longest)", "/profile/timeline?dir=./job&device_id={r}&max_events=5000", None),
]


def _fill(value: Any, rank: int) -> Any:
    if isinstance(value, str):
        return value.replace("{r}", str(rank))
    if isinstance(value, dict):
        return {k: _fill(v, rank) for k, v in value.items()}
    return value


def measure(base_dir: Path, ranks: int) -> None:
    port = common.free_port()
    base = f"http://{common.LOOPBACK}:{port}"
    workspace = Path(tempfile.mkdtemp(prefix="mic-ascend-ws-"))
    cli = [sys.executable, "-m", "mindinsight_clone"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
    started = subprocess.run([*cli, "start", "--port", str(port), "--summary-base-dir", str(base_dir),
                              "--workspace", str(workspace)], capture_output=True, text=True, timeout=120,
                             check=False, env=env, cwd=REPO)
    if started.returncode != 0:
        raise SystemExit(started.stdout + started.stderr)
    q = "train_id=./job&profile=profiler"
    try:
        root = common.listener_root(port)
        assert root is not None, "server is not listening"
        rss_idle = common.tree_memory(root)[0]
        with RssSampler(root) as sampler:
            cluster_cold, status, _ = _request(base, f"{API}/profile/cluster-step-trace?{q}")
            assert status == 200, status
            devices, _, _ = _request(base, f"{API}/profile/devices?{q}")
            cluster_warm, _, size = _request(base, f"{API}/profile/cluster-step-trace?{q}")
            answer = common.get_json(base, f"{API}/profile/cluster-step-trace?{q}")
            rows = []
            probes: list[float] = []
            for label, path, body in VIEWS:
                url = API + path.format(q=q, r=0)
                stop = threading.Event()

                def probe(stop: threading.Event = stop) -> None:
                    while not stop.is_set():
                        elapsed, _, _ = _request(base, f"{API}/profile/step-trace-time?{q}&device_id=1")
                        probes.append(elapsed)
                        elapsed, _, _ = _request(base, f"{API}/profile/cluster-step-trace?{q}")
                        probes.append(elapsed)
                        stop.wait(0.2)

                prober = threading.Thread(target=probe, daemon=True)
                prober.start()
                cpu0 = _tree_cpu(root)
                cold, status, nbytes = _request(base, url, _fill(body, 0))
                cpu = _tree_cpu(root) - cpu0
                stop.set()
                prober.join(timeout=30)
                warm, _, _ = _request(base, url, _fill(body, 0))
                rows.append((label, cold, cpu, warm, status, nbytes))
                print(f"{label}: {cold:.3f} s", flush=True)
            peak = sampler.peak
        rss_after = common.tree_memory(root)[0]
    finally:
        subprocess.run([*cli, "stop", "--port", str(port), "--workspace", str(workspace)], capture_output=True,
                       timeout=60, check=False, env=env, cwd=REPO)
        shutil.rmtree(workspace, ignore_errors=True)
    print("\n| view (rank 0) | first answer (s) | server CPU meanwhile (s) | warm (s) | status | bytes |")
    print("|---|---|---|---|---|---|")
    for label, cold, cpu, warm, status, nbytes in rows:
        print(f"| {label} | {cold:.3f} | {cpu:.3f} | {warm:.3f} | {status} | {nbytes:,} |")
    print("\n| cluster page | seconds |")
    print("|---|---|")
    print(f"| cluster-step-trace, {ranks} ranks, first answer | {cluster_cold:.3f} |")
    print(f"| cluster-step-trace, warm ({size:,} bytes) | {cluster_warm:.3f} |")
    print(f"| devices | {devices:.3f} |")
    slow = [(s["rank_id"], s["phase"]) for s in answer["slow_ranks"]] if answer else []
    print(f"\nslow ranks found: {slow}")
    if probes:
        print(f"other requests while rank 0 loads: {len(probes)} answered, max {max(probes):.3f} s, "
              f"median {sorted(probes)[len(probes) // 2]:.3f} s")
    print(f"server tree RSS: idle {rss_idle / 2**20:.0f} MB, peak while loading {peak / 2**20:.0f} MB, "
          f"after {rss_after / 2**20:.0f} MB")
    print(f"peak_rss_mb={peak / 2**20:.0f}; load average now {common.load_average()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--kernel-rows", type=int, default=1_000_000)
    parser.add_argument("--trace-mb", type=float, default=500.0)
    parser.add_argument("--smoke", action="store_true", help="4 ranks, 20,000 kernel rows, a 5 MB trace")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "mindinsight-clone-bench",
                        help="where the job is generated (reused when complete)")
    args = parser.parse_args()
    if args.smoke:
        args.ranks, args.kernel_rows, args.trace_mb = 4, 20_000, 5.0
    name = f"ascend-{args.ranks}ranks-{args.kernel_rows}rows-{args.trace_mb:g}mb"
    base_dir = args.cache / name
    job = base_dir / "job"
    if not (job / "bench.json").exists():
        shutil.rmtree(base_dir, ignore_errors=True)
        facts = generate(job, args.ranks, args.kernel_rows, args.trace_mb)
    else:
        facts = json.loads((job / "bench.json").read_text())
    print(f"machine: {common.machine_info()}")
    print(f"job: {facts}")
    measure(base_dir, args.ranks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
