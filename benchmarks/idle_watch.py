"""Idle CPU of the real server over a summary base dir with many (empty) run dirs (issue 15).

    python benchmarks/idle_watch.py                  # 10,000 empty dirs, --reload-interval 3
    python benchmarks/idle_watch.py --dirs 2000 --reload-interval 1
    python benchmarks/idle_watch.py --smoke          # 200 dirs, short

Starts `mindinsight-clone start` on a free port with a temporary workspace, waits until it answers, lets
it settle, then samples the CPU time of the server's process tree (gunicorn master + worker) over a
window in which nothing is written, and prints it as a share of one core. Change watches are bounded
(summary_watcher.MAX_WATCHED_DIRS); past the bound changes are picked up by polling every reload interval.
Stops the server by pid at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import load_average

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MINDINSIGHT_")}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run([sys.executable, "-m", "mindinsight_clone", *args], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=120)


def tree_cpu(master: psutil.Process) -> float:
    total = 0.0
    for proc in [master, *master.children(recursive=True)]:
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            continue
    return total


def measure(dirs: int, reload_interval: int, settle: float, window: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        base, ws = Path(tmp) / "base", Path(tmp) / "ws"
        base.mkdir()
        for i in range(dirs):
            (base / f"run_{i:05d}").mkdir()
        port = free_port()
        started = cli("start", "--port", str(port), "--summary-base-dir", str(base), "--workspace", str(ws),
                      "--reload-interval", str(reload_interval))
        if started.returncode != 0:
            raise SystemExit(started.stdout + started.stderr)
        try:
            record = json.loads((ws / "run" / f"mindinsight-clone.{port}.pid").read_text())
            master = psutil.Process(record["pid"])
            time.sleep(settle)
            cpu0, t0 = tree_cpu(master), time.monotonic()
            time.sleep(window)
            cpu1, t1 = tree_cpu(master), time.monotonic()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/mindinsight/health", timeout=10) as resp:
                healthy = resp.status == 200
        finally:
            cli("stop", "--port", str(port), "--workspace", str(ws))
    return {"dirs": dirs, "cpu_share": (cpu1 - cpu0) / (t1 - t0), "healthy": float(healthy)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dirs", type=int, default=10_000)
    parser.add_argument("--reload-interval", type=int, default=3)
    parser.add_argument("--settle", type=float, default=10.0, help="seconds after start before sampling")
    parser.add_argument("--window", type=float, default=20.0, help="seconds of idle CPU sampled")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.dirs, args.settle, args.window = 200, 1.0, 2.0
    print(f"load average {load_average()}, {os.cpu_count()} cores")
    r = measure(args.dirs, args.reload_interval, args.settle, args.window)
    print(f"{r['dirs']} empty run dirs, reload interval {args.reload_interval} s: idle CPU "
          f"{100 * r['cpu_share']:.1f}% of one core over {args.window:.0f} s (healthy: {bool(r['healthy'])})")


if __name__ == "__main__":
    main()
