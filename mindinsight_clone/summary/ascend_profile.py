"""Write a small synthetic Ascend profiler job, laid out as MindSpore >= 2.5 / MindFormers write it:
`<job>/profiler/rank_<N>/<host>_<pid>_<YYYYmmddHHMMSSfff>_ascend_ms/` with `profiler_info_<N>.json` and
`ASCEND_PROFILER_OUTPUT/` holding every file the Ascend views read (kernel_details.csv, op_statistic.csv,
step_trace_time.csv, communication.json, communication_matrix.json, memory_record.csv, operator_memory.csv,
npu_module_mem.csv, operator_details.csv, api_statistic.csv, trace_view.json) in the MindSpore flavour
(`Step ID`, `Block Num`, no `Stream Ptr`, components MindSpore/GE/APP, timestamps with the profiler's trailing tab).

The numbers are consistent with each other: step_trace_time.csv is computed from the kernel intervals (compute
kernels on one stream, all-reduces on another, overlapping the last compute kernels), op_statistic.csv is the
aggregation of kernel_details.csv, the trace holds the same kernels. Rank k computes (1 + 0.25 k) times slower,
so the cluster view has a slow rank. Used by scripts/make_demo_data and benchmarks; no ../shared needed.
"""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KERNEL_TYPES = (  # type, core, mean duration µs
    ("MatMulV2", "AI_CORE", 60.0), ("Conv2D", "AI_CORE", 85.0), ("Add", "AI_VECTOR_CORE", 6.0),
    ("Relu", "AI_VECTOR_CORE", 5.0), ("LayerNorm", "AI_VECTOR_CORE", 14.0), ("Softmax", "AI_VECTOR_CORE", 11.0),
    ("TransData", "AI_VECTOR_CORE", 9.0), ("FlashAttentionScore", "MIX_AIC", 120.0),
    ("Cast", "AI_VECTOR_CORE", 3.0), ("DropOutDoMask", "AI_CPU", 25.0),
)
GROUP = "10086240912338817711"
BASE_US = 1_767_268_800_000_000  # 2026-01-01 12:00 UTC; times are kept relative to it (float64 would round
# absolute µs to 0.25) and printed exactly
STEP_GAP_US = 400.0


@dataclass
class Kernel:
    step: int
    name: str
    type: str
    core: str
    start: float
    duration: float
    wait: float
    stream: int


def _abs(value: float) -> str:
    """Absolute µs with 3 decimals, exact: BASE_US + a relative time."""
    ns = round(value * 1000)
    return f"{BASE_US + ns // 1000}.{ns % 1000:03d}"


def _ts(value: float) -> str:
    return _abs(value) + "\t"  # the profiler's trailing tab


def _rank_kernels(rank: int, steps: int, per_step: int, seed: int) -> tuple[list[Kernel], list[tuple[float, float]]]:
    rng = random.Random(seed * 1009 + rank)
    slow = 1.0 + 0.25 * rank
    kernels: list[Kernel] = []
    spans: list[tuple[float, float]] = []
    t = 0.0
    for step in range(1, steps + 1):
        step_start = t
        t += 300.0 + rng.random() * 50  # preparing: host work before the first kernel
        compute_end = t
        for i in range(per_step):
            op_type, core, mean = KERNEL_TYPES[(i * 7 + i // 3) % len(KERNEL_TYPES)]
            gap = rng.random() * 4.0
            duration = round(mean * slow * (0.6 + 0.8 * rng.random()), 3)
            t += gap
            kernels.append(Kernel(step, f"{op_type}_{i}", op_type, core, round(t, 3), duration, round(gap, 3), 2))
            t += duration
            compute_end = t
        # two all-reduces on the communication stream: the first starts under the last compute kernels
        comm_start = compute_end - 120.0
        for j, size in enumerate((600.0, 900.0)):
            duration = round(size * (0.9 + 0.2 * rng.random()), 3)
            kernels.append(Kernel(step, f"hcom_allReduce__711_{j}_1", "hcom_allReduce_", "HCCL", round(comm_start, 3),
                                  duration, 0.0, 8))
            comm_start += duration + 5.0
        t = max(t, comm_start) + STEP_GAP_US
        spans.append((step_start, t))
    return kernels, spans


def _overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    total = 0.0
    for s1, e1 in a:
        for s2, e2 in b:
            total += max(0.0, min(e1, e2) - max(s1, s2))
    return total


def _step_rows(kernels: list[Kernel], spans: list[tuple[float, float]]) -> list[list[Any]]:
    rows = []
    for step, (start, end) in enumerate(spans, 1):
        mine = [k for k in kernels if k.step == step]
        compute = [(k.start, k.start + k.duration) for k in mine if k.core != "HCCL"]
        comm = [(k.start, k.start + k.duration) for k in mine if k.core == "HCCL"]
        computing = sum(e - s for s, e in compute)
        communication = sum(e - s for s, e in comm)
        overlapped = _overlap(compute, comm)
        not_overlapped = communication - overlapped
        free = (end - start) - computing - not_overlapped
        preparing = min(s for s, _ in compute) - start
        rows.append([step, computing, not_overlapped, overlapped, communication, free, end - start, 0,
                     not_overlapped, preparing])
    return [[r[0], *(round(v, 3) for v in r[1:])] for r in rows]


def _write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\r\n")
        writer.writerow(header)
        writer.writerows(rows)


def _kernel_details(path: Path, kernels: list[Kernel]) -> None:
    header = ["Step ID", "Model ID", "Task ID", "Stream ID", "Name", "Type", "OP State", "Accelerator Core",
              "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Num", "Mix Block Num", "HF32 Eligible",
              "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes", "Output Data Types",
              "Output Formats", "Context ID"]
    rows = []
    for task, k in enumerate(kernels, 1):
        hccl = k.core == "HCCL"  # msprof writes no task or stream for a communication kernel (N/A)
        shapes = "" if hccl else '"32,1024;1024,1024"'
        rows.append([k.step, 4294967295, "N/A" if hccl else task, "N/A" if hccl else k.stream, k.name, k.type,
                     "static", k.core, _ts(k.start), k.duration, k.wait, 0 if hccl else 24, 0, "NO", shapes,
                     "FLOAT16;FLOAT16", "ND;ND", '"32,1024"' if shapes else "", "FLOAT16", "ND", "N/A"])
    _write_csv(path, header, rows)


def _op_statistic(path: Path, kernels: list[Kernel]) -> None:
    groups: dict[tuple[str, str], list[float]] = {}
    for k in kernels:
        if k.core != "HCCL":
            groups.setdefault((k.type, k.core), []).append(k.duration)
    grand = sum(sum(v) for v in groups.values())
    ordered = sorted(groups.items(), key=lambda item: -sum(item[1]))
    rows: list[list[Any]] = [[t, core, len(v), round(sum(v), 3), min(v), round(sum(v) / len(v), 3), max(v),
                              round(sum(v) / grand * 100, 3)] for (t, core), v in ordered]
    _write_csv(path, ["OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)",
                      "Max Time(us)", "Ratio(%)"], rows)


def _communication(out: Path, kernels: list[Kernel], rank: int, ranks: int) -> None:
    comm: dict[str, Any] = {}
    matrix: dict[str, Any] = {}
    for k in kernels:
        if k.core != "HCCL":
            continue
        elapse = k.duration / 1000.0
        transit, wait, sync = elapse * 0.8, elapse * 0.15, elapse * 0.1
        size = round(k.duration * 0.09, 6)
        link = {"Transit Size(MB)": size, "Transit Time(ms)": transit, "Bandwidth(GB/s)": round(size / transit, 4),
                "Large Packet Ratio": 0.0, "Size Distribution": {}}
        zero = {"Transit Size(MB)": 0, "Transit Time(ms)": 0, "Bandwidth(GB/s)": 0, "Large Packet Ratio": 0,
                "Size Distribution": {}}
        steps = comm.setdefault(f"step{k.step}", {"p2p": {}, "collective": {}})
        steps["collective"][f"{k.name}@{GROUP}"] = {
            "Communication Time Info": {
                "Start Timestamp(us)": float(_abs(k.start)), "Elapse Time(ms)": elapse, "Transit Time(ms)": transit,
                "Wait Time(ms)": wait, "Synchronization Time(ms)": sync, "Idle Time(ms)": elapse - transit - wait,
                "Wait Time Ratio": round(wait / (wait + transit), 4),
                "Synchronization Time Ratio": round(sync / (sync + transit), 4)},
            "Communication Bandwidth Info": {"RDMA": zero, "HCCS": link, "PCIE": zero, "SDMA": link, "SIO": zero}}
        cells = matrix.setdefault(f"step{k.step}", {"p2p": {}, "collective": {}})["collective"]
        links = cells.setdefault(f"allreduce-total@{GROUP}", {})
        for dst in range(ranks):
            transport = "LOCAL" if dst == rank else "HCCS"
            time_ms = transit / (20 if dst == rank else 1)
            old = links.get(f"{rank}-{dst}", {"Transit Size(MB)": 0.0, "Transit Time(ms)": 0.0})
            size_sum, time_sum = old["Transit Size(MB)"] + size, old["Transit Time(ms)"] + time_ms
            links[f"{rank}-{dst}"] = {"Transport Type": transport, "Transit Size(MB)": size_sum,
                                      "Transit Time(ms)": time_sum, "Bandwidth(GB/s)": round(size_sum / time_sum, 4),
                                      "Op Name": k.name}
    for steps in comm.values():
        ops = steps["collective"]
        total_elapse = sum(o["Communication Time Info"]["Elapse Time(ms)"] for o in ops.values())
        ops["Total Op Info"] = {"Communication Time Info": {"Elapse Time(ms)": total_elapse},
                                "Communication Bandwidth Info": {}}
    (out / "communication.json").write_text(json.dumps(comm), encoding="utf-8")
    (out / "communication_matrix.json").write_text(json.dumps(matrix), encoding="utf-8")


def _memory(out: Path, kernels: list[Kernel], rank: int) -> None:
    rows, ops = [], []
    allocated = 800.0
    for i, k in enumerate(c for c in kernels if c.core != "HCCL"):  # as ascend_db_profile._memory_rows counts
        allocated = 800.0 + (i % 60) * 9.5 + rank * 20
        if i % 5 == 0:
            rows.append(["MindSpore", _ts(k.start), round(allocated, 4), 1536.0, round(allocated, 4), f"NPU:{rank}"])
            rows.append(["GE", _ts(k.start), 48.0, 74.75, "", f"NPU:{rank}"])
            rows.append(["MindSpore+GE", _ts(k.start), round(allocated + 48, 4), 1610.75, "", f"NPU:{rank}"])
        if i % 20 == 0:
            rows.append(["APP", _ts(k.start), "", 2048.0 + rank, "", f"NPU:{rank}"])
        if i % 3 == 0:
            size_kb = float(256 * (1 + (i * 37) % 97))
            ops.append([f"{k.name}/output0", size_kb, _ts(k.start), _ts(k.start + k.duration),
                        _ts(k.start + k.duration), k.duration, k.duration, round(allocated, 4), 1536.0,
                        round(allocated, 4), round(allocated - size_kb / 1024, 4), 1536.0,
                        round(allocated - size_kb / 1024, 4), f"NPU:{rank}"])
    _write_csv(out / "memory_record.csv", ["Component", "Timestamp(us)", "Total Allocated(MB)", "Total Reserved(MB)",
                                           "Total Active(MB)", "Device Type"], rows)
    _write_csv(out / "operator_memory.csv", [
        "Name", "Size(KB)", "Allocation Time(us)", "Release Time(us)", "Active Release Time(us)", "Duration(us)",
        "Active Duration(us)", "Allocation Total Allocated(MB)", "Allocation Total Reserved(MB)",
        "Allocation Total Active(MB)", "Release Total Allocated(MB)", "Release Total Reserved(MB)",
        "Release Total Active(MB)", "Device Type"], ops)


def _operator_details(path: Path, kernels: list[Kernel]) -> None:
    """One framework operator per kernel type: device time = its kernels' time; host time made up per call."""
    groups: dict[str, list[Kernel]] = {}
    for k in kernels:
        if k.core != "HCCL":
            groups.setdefault(k.type, []).append(k)
    rows = []
    for op_type, items in sorted(groups.items()):
        device = round(sum(k.duration for k in items), 3)
        aicore = round(sum(k.duration for k in items if k.core != "AI_CPU"), 3)
        stack = f"train.py(88): train_step;\nmodel.py({10 + len(op_type)}): construct"
        rows.append([f"ops.{op_type}", "32,1024;1024,1024", stack, round(3.5 * len(items), 3),
                     round(8.0 * len(items), 3), 0.0, device, 0.0, aicore])
    _write_csv(path, ["Name", "Input Shapes", "Call Stack", "Host Self Duration(us)", "Host Total Duration(us)",
                      "Device Self Duration(us)", "Device Total Duration(us)", "Device Self Duration With AICore(us)",
                      "Device Total Duration With AICore(us)"], rows)


def _api_statistic(path: Path, kernels: list[Kernel]) -> None:
    """One CANN API per kernel type (the launch of its kernels), with per-call times 4 + (i mod 5) µs."""
    counts: dict[str, int] = {}
    for k in kernels:
        counts[k.type] = counts.get(k.type, 0) + 1
    rows = []
    for op_type, n in sorted(counts.items()):
        calls = [4.0 + i % 5 for i in range(n)]
        mean = sum(calls) / n
        variance = sum((c - mean) ** 2 for c in calls) / n
        level = "hccl" if op_type.startswith("hcom") else "node"
        rows.append([level, f"{op_type}_launch", round(sum(calls), 3), n, round(mean, 3), min(calls), max(calls),
                     round(variance, 3)])
    _write_csv(path, ["Level", "API Name", "Time(us)", "Count", "Avg(us)", "Min(us)", "Max(us)", "Variance"], rows)


def _npu_module_mem(path: Path, spans: list[tuple[float, float]], rank: int) -> None:
    """Memory reserved per CANN module, sampled at each step start and end (most modules reserve nothing)."""
    modules = (("APP", 1536.0 + rank), ("HCCL", 404.0625), ("RUNTIME", 92.1875), ("GE", 76.0), ("SLOG", 0.0))
    rows = []
    for i, (start, end) in enumerate(spans):
        for ts in (start, end):
            for name, reserved in modules:
                grow = 0.046875 * i if name == "RUNTIME" else 0.0
                rows.append([name, _ts(ts), reserved + grow, f"NPU:{rank}"])
    _write_csv(path, ["Component", "Timestamp(us)", "Total Reserved(MB)", "Device"], rows)


def _trace(path: Path, kernels: list[Kernel], spans: list[tuple[float, float]]) -> None:
    hardware, hccl, overlap = 1000, 1001, 1002
    events: list[dict[str, Any]] = []
    for pid, name, index in ((hardware, "Ascend Hardware", 10), (hccl, "HCCL", 11), (overlap, "Overlap Analysis", 12)):
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": name}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": index}})
    for tid, name in ((2, "Stream 2"), (8, "Stream 8")):
        events.append({"ph": "M", "name": "thread_name", "pid": hardware, "tid": tid, "args": {"name": name}})
    events.append({"ph": "M", "name": "thread_name", "pid": hccl, "tid": 0, "args": {"name": f"Group {GROUP}"}})
    for tid, name in ((0, "Computing"), (1, "Communication"), (2, "Communication(Not Overlapped)"), (3, "Free")):
        events.append({"ph": "M", "name": "thread_name", "pid": overlap, "tid": tid, "args": {"name": name}})
    for k in kernels:
        ts, dur = _abs(k.start), k.duration
        events.append({"ph": "X", "name": k.name, "pid": hardware, "tid": k.stream, "ts": ts, "dur": dur,
                       "args": {"Task Type": k.core, "Stream Id": k.stream, "Step": k.step}})
        if k.core == "HCCL":
            events.append({"ph": "X", "name": k.name, "pid": hccl, "tid": 0, "ts": ts, "dur": dur, "args": {}})
        events.append({"ph": "X", "name": "Communication" if k.core == "HCCL" else "Computing", "pid": overlap,
                       "tid": 1 if k.core == "HCCL" else 0, "ts": ts, "dur": dur, "args": {}})
    for start, end in spans:
        events.append({"ph": "X", "name": "Step", "pid": overlap, "tid": 3, "ts": _abs(start),
                       "dur": round(end - start, 3), "args": {}})
    path.write_text(json.dumps(events), encoding="utf-8")


def write_ascend_job(job_dir: Path, ranks: int = 2, steps: int = 3, kernels_per_step: int = 120,
                     seed: int = 0) -> list[Path]:
    """Write the job; returns the rank folders. Deterministic for a given seed."""
    folders = []
    for rank in range(ranks):
        kernels, spans = _rank_kernels(rank, steps, kernels_per_step, seed)
        session = job_dir / "profiler" / f"rank_{rank}" / f"demo_{4100 + rank}_20260101120000{rank:03d}_ascend_ms"
        out = session / "ASCEND_PROFILER_OUTPUT"
        out.mkdir(parents=True, exist_ok=True)
        info = {"ms_profiler_info": {"rank_id": rank, "device_target": "Ascend"},
                "config": {"profiler_level": "Level1", "profile_memory": True, "schedule": {"active": steps}}}
        (session / f"profiler_info_{rank}.json").write_text(json.dumps(info, indent=2), encoding="utf-8")
        _kernel_details(out / "kernel_details.csv", kernels)
        _op_statistic(out / "op_statistic.csv", kernels)
        _write_csv(out / "step_trace_time.csv", [
            "Step", "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free", "Stage",
            "Bubble", "Communication(Not Overlapped and Exclude Receive)", "Preparing"], _step_rows(kernels, spans))
        _communication(out, kernels, rank, ranks)
        _memory(out, kernels, rank)
        _npu_module_mem(out / "npu_module_mem.csv", spans, rank)
        _operator_details(out / "operator_details.csv", kernels)
        _api_statistic(out / "api_statistic.csv", kernels)
        _trace(out / "trace_view.json", kernels, spans)
        folders.append(session)
    return folders
