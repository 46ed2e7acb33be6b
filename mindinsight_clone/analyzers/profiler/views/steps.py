"""Steps derived from `cpu_op_execute_timestamp_<id>.txt` (CPU has no step-trace files in either layout).

Each line is `<full op name>;<kind>;<start ns>,<duration ms>,<thread> <start ns>,...`. The number of profiled
steps comes from `cpu_op_type_info` (type_occurrences / execution_frequency, the median over op types). An op
that ran `k * steps` times is assigned, in start order, `k` executions per step; a step spans from its first
start to its last end. This is a heuristic for graph mode, where every op of the graph runs once per step.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np

from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.analyzers.profiler.views.op_stats import load_table
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

NS_PER_US = 1000.0


@dataclass(frozen=True)
class OpExecutions:
    name: str
    start_ns: np.ndarray  # int64
    dur_us: np.ndarray  # float64


def parse_execute_timestamps(path: Location) -> tuple[OpExecutions, ...]:
    ops: list[OpExecutions] = []
    with storage.open_text(path) as handle:
        for line in handle:
            parts = line.strip().split(";")
            if len(parts) < 3:
                continue
            starts: list[int] = []
            durs: list[float] = []
            for triple in parts[2].split():
                fields = triple.split(",")
                try:
                    starts.append(int(fields[0]))
                    durs.append(float(fields[1]) * 1000.0)
                except (IndexError, ValueError):
                    continue
            if starts:
                order = np.argsort(np.array(starts, dtype=np.int64), kind="stable")
                ops.append(OpExecutions(parts[0], np.array(starts, dtype=np.int64)[order],
                                        np.array(durs, dtype=np.float64)[order]))
    return tuple(ops)


@dataclass(frozen=True)
class Step:
    step: int
    start_ns: int
    end_ns: int
    compute_us: float

    @property
    def duration_us(self) -> float:
        return (self.end_ns - self.start_ns) / NS_PER_US


def step_count(device: DeviceFiles, ops: tuple[OpExecutions, ...], cache: ParsedFileCache | None = None) -> int:
    table = load_table("cpu_op_type", device, cache)
    ratios = [row[1] / row[2] for row in table.rows if row[2]]
    if ratios:
        return max(1, round(statistics.median(ratios)))
    counts = [len(op.start_ns) for op in ops]
    return max(1, statistics.mode(counts)) if counts else 0


def derive_steps(ops: tuple[OpExecutions, ...], count: int) -> list[Step]:
    if count <= 0 or not ops:
        return []
    big = np.iinfo(np.int64).max
    first = np.full(count, big, dtype=np.int64)
    last = np.zeros(count, dtype=np.int64)
    compute = np.zeros(count, dtype=np.float64)
    for op in ops:
        n = len(op.start_ns)
        if n % count:
            continue
        starts = op.start_ns.reshape(count, n // count)
        ends = starts + (op.dur_us * NS_PER_US).astype(np.int64).reshape(count, n // count)
        first = np.minimum(first, starts.min(axis=1))
        last = np.maximum(last, ends.max(axis=1))
        compute += op.dur_us.reshape(count, n // count).sum(axis=1)
    return [Step(s + 1, int(first[s]), int(last[s]), float(compute[s])) for s in range(count) if first[s] != big]


def load_steps(device: DeviceFiles | None, cache: ParsedFileCache | None = None) -> tuple[list[Step], float]:
    """(steps, total op time in µs) for a device; ([], 0) without an execute-timestamp file."""
    path = device.file("cpu_op_execute_timestamp_{}.txt") if device else None
    if device is None or path is None:
        return [], 0.0
    ops = cached(cache, "cpu_op_execute_timestamp", path, parse_execute_timestamps)
    total = float(sum(op.dur_us.sum() for op in ops))
    return derive_steps(ops, step_count(device, ops, cache)), total


def steps_json(steps: list[Step]) -> list[dict[str, float | int]]:
    origin = steps[0].start_ns if steps else 0
    out: list[dict[str, float | int]] = []
    previous_end: int | None = None
    for step in steps:
        out.append({
            "step": step.step,
            "start_us": round((step.start_ns - origin) / NS_PER_US, 3),
            "duration_us": round(step.duration_us, 3),
            "compute_us": round(step.compute_us, 3),
            "interval_us": round((step.start_ns - previous_end) / NS_PER_US, 3) if previous_end is not None else 0.0,
        })
        previous_end = step.end_ns
    return out
