"""Profiler timeline benchmark: load a synthetic MindSpore-style trace_view.json and query it.

    python benchmarks/profiler.py             # 1,000,000 events
    python benchmarks/profiler.py --smoke     # 20,000 events (CI)
    python benchmarks/profiler.py --events N --naive   # also measure a plain orjson.loads for comparison

Each measurement runs in a fresh child process so that its peak RSS (ru_maxrss) is its own.
Prints file size, load time, peak memory, column memory and the time of typical queries.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

OP_NAMES = [f"Default/network-WithLossCell/_backbone-Net/layer{i}-Cell/Op{i % 23}-op{i}" for i in range(300)]
SCOPES = ["conv1-Conv2d", "bn1-BatchNorm2d", "relu-ReLU", "pool-MaxPool2d", "fc-Dense"]


def generate(path: Path, events: int, seed: int = 0) -> None:
    """A JSON array like MindSpore 2.10 writes: `M` metadata, then `X` events with ts/dur as strings."""
    rng = random.Random(seed)
    meta = [
        {"ph": "M", "name": "process_name", "pid": 2, "tid": 0, "args": {"name": "CPU OP"}},
        {"ph": "M", "name": "thread_name", "pid": 2, "tid": 0, "args": {"name": "Thread 0"}},
        {"ph": "M", "name": "process_name", "pid": 3, "tid": 0, "args": {"name": "Scope Layer"}},
    ]
    t = 1795313434593873.768
    with path.open("w") as out:
        out.write("[")
        out.write(", ".join(json.dumps(m) for m in meta))
        for i in range(events):
            dur = rng.expovariate(1 / 40.0)
            if i % 10 == 9:
                event = {"ph": "X", "name": SCOPES[i % len(SCOPES)], "pid": 3, "tid": i % 5, "ts": f"{t:.3f}",
                         "dur": f"{dur * 10:.3f}", "cat": "", "args": {}}
            else:
                event = {"ph": "X", "name": OP_NAMES[rng.randrange(len(OP_NAMES))], "pid": 2, "tid": 0,
                         "ts": f"{t:.3f}", "dur": f"{dur:.3f}", "cat": "", "args": {"type": "HostCpuOps"}}
            out.write(", ")
            out.write(json.dumps(event))
            t += dur + rng.random() * 5
        out.write("]")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def measure(path: Path, mode: str) -> dict[str, float]:
    import orjson

    from mindinsight_clone.analyzers.profiler.engine.trace_events import load_trace
    from mindinsight_clone.analyzers.profiler.views import timeline

    base = _peak_mb()
    started = time.perf_counter()
    if mode == "naive":
        data = orjson.loads(path.read_bytes())
        return {"load_s": time.perf_counter() - started, "peak_rss_mb": _peak_mb(), "base_rss_mb": base,
                "events": float(len(data))}
    trace = load_trace(path)
    load_s = time.perf_counter() - started
    figures = {"load_s": load_s, "peak_rss_mb": _peak_mb(), "base_rss_mb": base, "events": float(len(trace)),
               "columns_mb": trace.nbytes / 2**20}
    started = time.perf_counter()
    timeline.summary(trace)
    figures["summary_s"] = time.perf_counter() - started
    span = float(timeline.summary(trace)["total_time"]) * 1000.0
    started = time.perf_counter()
    body = orjson.dumps(timeline.events(trace, timeline.select(trace, timeline.Window(max_events=10_000))))
    figures["downsample_10k_s"] = time.perf_counter() - started
    figures["downsample_10k_mb"] = len(body) / 2**20
    started = time.perf_counter()
    window = timeline.Window(start_us=span * 0.45, end_us=span * 0.55)
    body = orjson.dumps(timeline.events(trace, timeline.select(trace, window)))
    figures["window_10pct_s"] = time.perf_counter() - started
    figures["window_10pct_mb"] = len(body) / 2**20
    started = time.perf_counter()
    body = orjson.dumps(timeline.events(trace, timeline.select(trace, timeline.Window())))
    figures["full_dump_s"] = time.perf_counter() - started
    figures["full_dump_mb"] = len(body) / 2**20
    figures["peak_rss_after_queries_mb"] = _peak_mb()
    return figures


def _child(path: Path, mode: str) -> dict[str, float]:
    proc = subprocess.run([sys.executable, __file__, "--measure", str(path), "--mode", mode],
                          capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--smoke", action="store_true", help="20,000 events")
    parser.add_argument("--naive", action="store_true", help="also measure orjson.loads of the whole file")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="columns", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.mode)))
        return
    events = 20_000 if args.smoke else args.events
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace_view.json"
        started = time.perf_counter()
        generate(path, events)
        print(f"generated {events:,} events, {path.stat().st_size / 2**20:.1f} MB in "
              f"{time.perf_counter() - started:.1f} s")
        for mode in ("columns", "naive") if args.naive else ("columns",):
            figures = _child(path, mode)
            print(f"[{mode}] " + ", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                                            for k, v in figures.items()))


if __name__ == "__main__":
    main()
