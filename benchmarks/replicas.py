"""Requests/s through nginx with 1 and 3 replicas over one S3 bucket (moto on loopback), and memory per replica.

    python benchmarks/replicas.py                  # 1 and 3 replicas, 10 s of wrk each, 16 connections
    python benchmarks/replicas.py --seconds 5 --replicas 1,2,3

Each replica is a real server started with the CLI (`mindinsight-clone start --summary-base-dir s3://...`, one
shared `--workspace`); nginx (tests/nginx_proxy.py: round robin, upstream keepalive) is in front. The load is `wrk`
(Debian's package; `apt-get install wrk`) cycling over a mix of cheap API calls answered from memory: train-jobs,
a run's scalar tags, a scalar's points, health. Before each measurement every replica is warmed (its run loaded).
Printed per replica count: requests/s and latency through nginx (and, with 1 replica, straight to the replica: the
proxy's own cost), the CPU seconds nginx and wrk used (the harness shares the cores with what it measures), and
RSS / PSS of each replica's gunicorn master + worker after the load (psutil).

The figures are about whether replicas scale on the cores there are and share one workspace cache, not absolute
speed: on a 2-core machine, 3 replicas + nginx + wrk + moto compete for the same 2 cores.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import common

from tests.nginx_proxy import running_nginx
from tests.s3_server import S3Server, running_s3_server
from tests.unit.store.summary_files import scalar_event, version_event, write_records

API = "/v1/mindinsight"
PATHS = [f"{API}/datavisual/train-jobs", f"{API}/datavisual/plugins?train_id=./run_0&manual_update=false",
         f"{API}/datavisual/scalar/metadata?train_id=./run_0&tag=loss/scalar",
         f"{API}/datavisual/scalar/metadata?train_id=./run_1&tag=lr/scalar", f"{API}/health"]
WRK_SCRIPT = """local paths = {%s}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i %% #paths) + 1])
end
"""


def make_bucket(server: S3Server, root: Path, runs: int = 4, steps: int = 1000) -> str:
    for run in range(runs):
        write_records(root / f"run_{run}" / "events.out.events.summary.100.0.h_MS",
                      [version_event(), *(scalar_event(s, {"loss": 1 / (s + 1), "lr": 0.1, "acc": s / steps})
                                          for s in range(steps))])
    server.upload_tree(root, "bench-replicas", "runs")
    return "s3://bench-replicas/runs"


def start_replica(port: int, url: str, options: str, workspace: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "mindinsight_clone", "start", "--port", str(port),
                             "--summary-base-dir", url, "--storage-options", options, "--workspace", str(workspace),
                             "--reload-interval", "0"], capture_output=True, text=True, timeout=120, check=False)
    if result.returncode != 0:
        raise RuntimeError(result.stdout + result.stderr)


def stop_replica(port: int, workspace: Path) -> None:
    subprocess.run([sys.executable, "-m", "mindinsight_clone", "stop", "--port", str(port), "--workspace",
                    str(workspace)], capture_output=True, timeout=60, check=False)


def warm(base: str) -> None:
    ok = common.wait_for(lambda: all(common.http_request(base, p)[0] == 200 for p in PATHS)
                         and len(common.get_json(base, PATHS[2])["metadatas"]) == 1000, timeout=60, interval=0.3)
    if not ok:
        raise RuntimeError(f"{base} did not serve the warm-up requests")


def wrk(base: str, script: Path, seconds: float, connections: int) -> dict[str, float]:
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds:.0f}s", "--latency", "-s", str(script), base]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60, check=False).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # wrk is the only child reaped meanwhile
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)", out)
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if rate is None:
        raise RuntimeError(out)
    return {"req_s": float(rate[1]), "p50_ms": _ms(p50), "p99_ms": _ms(p99),
            "non_2xx": float(errors[1]) if errors else 0.0, "wrk_cpu_s": round(cpu, 2)}


def _ms(match: re.Match[str] | None) -> float:
    if match is None:
        return float("nan")
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[match[2]]
    return float(match[1]) * scale


def measure(server: S3Server, url: str, count: int, seconds: float, connections: int, work: Path) -> dict[str, object]:
    workspace = work / f"ws-{count}"
    ports = [common.free_port() for _ in range(count)]
    options = json.dumps(server.storage_options)
    script = work / "mix.lua"
    script.write_text(WRK_SCRIPT % ", ".join(json.dumps(p) for p in PATHS), encoding="utf-8")
    try:
        for port in ports:
            start_replica(port, url, options, workspace)
        for port in ports:
            warm(f"http://127.0.0.1:{port}")
        row: dict[str, object] = {"replicas": count, "load before": common.load_average()}
        if count == 1:
            row["direct"] = wrk(f"http://127.0.0.1:{ports[0]}", script, seconds, connections)
        with running_nginx(work / f"nginx-{count}", common.free_port(), ports, keepalive=16) as proxy:
            nginx = psutil.Process(proxy.process.pid)
            before = _tree_cpu(nginx)
            row["nginx"] = wrk(proxy.url, script, seconds, connections)
            row["nginx_cpu_s"] = _tree_cpu(nginx) - before
        roots = [common.listener_root(p) for p in ports]
        row["memory_mb"] = [[round(v / 2**20, 1) for v in common.tree_memory(pid)[:2]] if pid else None
                            for pid in roots]
        row["load after"] = common.load_average()
        return row
    finally:
        for port in ports:
            stop_replica(port, workspace)


def _tree_cpu(process: psutil.Process) -> float:
    total = 0.0
    for proc in [process, *process.children(recursive=True)]:
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", default="1,3", help="replica counts to measure, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of wrk load per measurement")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        print("wrk is not installed: apt-get install wrk", file=sys.stderr)
        return 2
    print(json.dumps(common.machine_info()))
    print(f"uptime: {common.uptime()}")
    with tempfile.TemporaryDirectory(prefix="bench-replicas-") as tmp, running_s3_server(Path(tmp)) as server:
        work = Path(tmp)
        url = make_bucket(server, work / "tree")
        for count in (int(c) for c in args.replicas.split(",")):
            row = measure(server, url, count, args.seconds, args.connections, work)
            print(json.dumps(row), flush=True)
    print(f"uptime: {common.uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
