"""API latency under bounded concurrent load against a RUNNING server (loopback only).

    python benchmarks/api_latency.py --base http://127.0.0.1:8080 [--threads 4] [--seconds 20] [--smoke]

Discovers runs and tags from the server, then for each of scalars, images and histograms runs `--threads`
keep-alive client threads for at most `--seconds` seconds or `--max-requests` requests (whichever first),
rotating over (run, tag) pairs, and prints requests/s and p50/p95/p99/max latency. `--smoke` (CI): 2
threads, 2 s, 200 requests per kind. Stdlib only.
"""

from __future__ import annotations

import argparse
import http.client
import ipaddress
import json
import socket
import statistics
import sys
import threading
import time
import urllib.parse
from itertools import cycle

API = "/v1/mindinsight/datavisual"


def _loopback(host: str) -> bool:
    try:
        return all(ipaddress.ip_address(info[4][0]).is_loopback
                   for info in socket.getaddrinfo(host, None))
    except (OSError, ValueError):
        return False


def _get(conn: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
    conn.request("GET", path)
    resp = conn.getresponse()
    return resp.status, resp.read()


def discover(host: str, port: int) -> dict[str, list[str]]:
    conn = http.client.HTTPConnection(host, port, timeout=30)
    status, body = _get(conn, f"{API}/train-jobs?limit=999")
    jobs = json.loads(body)["train_jobs"] if status == 200 else []
    paths: dict[str, list[str]] = {"scalars": [], "images": [], "histograms": []}
    for job in jobs:
        tid = urllib.parse.quote(job["train_id"], safe="")
        plugins = job.get("plugins", {})
        for tag in plugins.get("scalar", []):
            paths["scalars"].append(f"{API}/scalar/metadata?train_id={tid}&tag={urllib.parse.quote(tag, safe='')}")
        for tag in plugins.get("image", []):
            paths["images"].append(f"{API}/image/metadata?train_id={tid}&tag={urllib.parse.quote(tag, safe='')}")
            paths["images"].append(
                f"{API}/image/single-image?train_id={tid}&tag={urllib.parse.quote(tag, safe='')}&step=-1")
        for tag in plugins.get("histogram", []):
            paths["histograms"].append(f"{API}/histograms?train_id={tid}&tag={urllib.parse.quote(tag, safe='')}")
    conn.close()
    return paths


def load(host: str, port: int, paths: list[str], threads: int, seconds: float, max_requests: int) -> dict[str, float]:
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    budget = [max_requests]
    deadline = time.monotonic() + seconds

    def worker(offset: int) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=30)
        it = cycle(paths[offset % len(paths):] + paths[:offset % len(paths)])
        while time.monotonic() < deadline:
            with lock:
                if budget[0] <= 0:
                    break
                budget[0] -= 1
            t0 = time.perf_counter()
            try:
                status, _ = _get(conn, next(it))
            except (OSError, http.client.HTTPException):
                status = 0
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=30)
            dt = time.perf_counter() - t0
            with lock:
                latencies.append(dt)
                if status != 200:
                    errors[0] += 1
        conn.close()

    start = time.monotonic()
    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(seconds + 60)
    wall = time.monotonic() - start
    if not latencies:
        return {"requests": 0, "errors": errors[0], "rps": 0.0}
    q = statistics.quantiles(latencies, n=100, method="inclusive")
    return {"requests": len(latencies), "errors": errors[0], "rps": len(latencies) / wall,
            "p50_ms": q[49] * 1e3, "p95_ms": q[94] * 1e3, "p99_ms": q[98] * 1e3, "max_ms": max(latencies) * 1e3}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default="http://127.0.0.1:8080")
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--max-requests", type=int, default=20_000)
    ap.add_argument("--smoke", action="store_true", help="tiny run for CI")
    args = ap.parse_args()
    if args.smoke:
        args.threads, args.seconds, args.max_requests = 2, 2.0, 200
    args.threads = max(1, min(args.threads, 32))
    args.seconds = max(0.1, min(args.seconds, 300.0))
    url = urllib.parse.urlsplit(args.base)
    host, port = url.hostname or "127.0.0.1", url.port or 80
    if not _loopback(host):
        print(f"refusing to load {host}: loopback only", file=sys.stderr)
        return 2
    paths = discover(host, port)
    failed = False
    for kind, kind_paths in paths.items():
        if not kind_paths:
            print(f"{kind:10s} no data")
            continue
        r = load(host, port, kind_paths, args.threads, args.seconds, args.max_requests)
        failed |= r["errors"] > 0
        print(f"{kind:10s} {r['requests']:6.0f} req {r['errors']:3.0f} err {r['rps']:8.1f} req/s  "
              f"p50 {r.get('p50_ms', 0):6.2f}  p95 {r.get('p95_ms', 0):6.2f}  p99 {r.get('p99_ms', 0):6.2f}  "
              f"max {r.get('max_ms', 0):7.2f} ms  ({args.threads} threads)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
