"""Write a small synthetic profile in the layout MindSpore <= 2.2 wrote on Ascend (MindInsight's own layout): every
rank's files directly in `<job>/profiler/`, suffixed with the rank id, as `../shared/reference/mindinsight/
old_profiler` has them (real files of that layout): operator tables (`aicore_intermediate_<r>_{type,detail}.csv`,
`framework_raw_<r>.csv`, `aicpu_intermediate_<r>.csv`), `step_trace_raw_<r>_detail_time.csv` (10 ns counts, an
average row `-`), `ascend_timeline_{display,summary}_<r>.json`, the data pipeline and queue files, FLOPs, HCCL and
the cluster analyses of a data-parallel job.

The numbers agree with each other: the step trace is built from the kernels (forward+backward kernels on one
stream, an all-reduce on another), the type table aggregates the detail table (its `percent` a fraction, as
MindSpore 2.x wrote it), the timeline holds the same kernels. Rank k computes (1 + 0.2 k) times slower. Used by
scripts/make_demo_data so the profiler page of this layout has data without ../shared.
"""

from __future__ import annotations

import csv
import itertools
import json
import random
from pathlib import Path
from typing import Any

# type, core, mean duration µs, FLOPs (MFLOPs) per run
KERNELS = (("MatMul", "AI_CORE", 55.0, 3.1), ("Conv2D", "AI_CORE", 80.0, 6.4), ("BiasAdd", "AI_CORE", 6.0, 0.1),
           ("ReLU", "AI_CORE", 4.0, 0.05), ("MaxPoolWithArgmax", "AI_CORE", 9.0, 0.2), ("Cast", "AI_CORE", 3.0, 0.0),
           ("TransData", "AI_CORE", 7.0, 0.0), ("ApplyMomentumD", "AI_CORE", 5.0, 0.02))
AICPU = (("DropoutGenMask", 30.0), ("GetNext", 12.0))
SCOPES = ("conv1-Conv2d", "conv2-Conv2d", "fc1-Dense", "fc2-Dense", "fc3-Dense")
PER_MS = 100_000  # step trace counts (10 ns) per ms
STREAM_COMPUTE, STREAM_REDUCE = 5, 7


def _write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def _kernels(rank: int, seed: int) -> list[dict[str, Any]]:
    """The kernels of one step: two of each type per scope, names as MindSpore printed them."""
    rng = random.Random(seed * 7919 + rank)
    slow = 1.0 + 0.2 * rank
    out = []
    op = 10
    for scope in SCOPES:
        for kind, _core, mean, flops in KERNELS:
            for side in ("Default", "Gradients/Default"):
                op += 1
                name = f"{kind}-op{op}"
                out.append({"full": f"{side}/network-WithLossCell/_backbone-LeNet5/{scope}/{name}", "name": name,
                            "type": kind, "scope": scope, "side": side.split("/")[0],
                            "dur_us": round(mean * slow * rng.uniform(0.7, 1.3), 3), "flops": flops})
    return out


def write_legacy_job(job: Path, ranks: int = 2, steps: int = 5, seed: int = 0) -> Path:
    """Write `<job>/profiler/` for `ranks` ranks and `steps` steps; returns the profiler dir."""
    prof = job / "profiler"
    prof.mkdir(parents=True, exist_ok=True)
    for rank in range(ranks):
        _write_rank(prof, rank, ranks, steps, seed)
    return prof


def _write_rank(prof: Path, rank: int, ranks: int, steps: int, seed: int) -> None:
    rng = random.Random(seed * 104729 + rank)
    kernels = _kernels(rank, seed)
    _ops(prof, rank, kernels, steps, rng)
    trace_rows, reduce = _step_trace(prof, rank, kernels, steps, rng)
    _timeline(prof, rank, kernels, trace_rows)
    _pipeline(prof, rank, steps, rng)
    _flops(prof, rank, kernels)
    _hccl(prof, rank, ranks, reduce, rng)
    # MindInsight's cluster analysis of a data-parallel job: per step its computation and communication alone (ms)
    comp = [sum(k["dur_us"] for k in kernels) / 1000 for _ in range(steps)]
    alone = [r / PER_MS * 0.3 for r in reduce]
    rows = [[round(c, 4), round(a, 4)] for c, a in zip(comp, alone, strict=True)]
    rows.append([round(sum(comp) / steps, 4), round(sum(alone) / steps, 4)])
    _write_csv(prof / f"ascend_cluster_analyse_data-parallel_1_{ranks}_{rank}.csv",
               ["computation_time", "communication_alone_time"], rows)


def _ops(prof: Path, rank: int, kernels: list[dict[str, Any]], steps: int, rng: random.Random) -> None:
    _write_csv(prof / f"aicore_intermediate_{rank}_detail.csv", ["full_kernel_name", "execution_time",
                                                                 "execution_frequency"],
               [[k["full"], k["dur_us"] / 1000, steps] for k in kernels])
    totals: dict[str, list[float]] = {}
    for k in kernels:
        totals.setdefault(k["type"], []).append(k["dur_us"] * steps / 1000)
    everything = sum(sum(v) for v in totals.values())
    _write_csv(prof / f"aicore_intermediate_{rank}_type.csv", ["kernel_type", "total_time", "execution_frequency",
                                                               "percent"],
               [[kind, sum(v), len(v) * steps, sum(v) / everything] for kind, v in totals.items()])
    framework = []
    for i, k in enumerate(kernels):
        shape = [32, 6 * (1 + i % 3), 14, 14]
        info = {"input_0": {"format": "NC1HWC0", "data_type": "FLOAT16", "shape": shape},
                "output_0": {"format": "NC1HWC0", "data_type": "FLOAT16", "shape": shape}}
        framework.append([i + 2, STREAM_COMPUTE, 32, k["full"], k["full"], k["name"], k["type"], k["side"],
                          json.dumps(info), 1])
    _write_csv(prof / f"framework_raw_{rank}.csv", ["task_id", "stream_id", "block_dim", "full_kernel_name",
                                                    "op_name", "kernel_name", "kernel_type", "subgraph", "op_info",
                                                    "graph_id"], framework)
    aicpu, serial, start = [], 0, 1000.0
    for step in range(steps):
        for j, (kind, mean) in enumerate(AICPU):
            serial += 1
            run = round(mean * rng.uniform(0.8, 1.2) / 1000, 6)
            dispatch = round(run * 0.1, 6)
            aicpu.append([serial, f"{kind}-op{90 + j}", run + dispatch, dispatch, run, start, start + run + dispatch])
            start += 50.0 + step
    _write_csv(prof / f"aicpu_intermediate_{rank}.csv", ["serial_number", "op_type", "total_time", "dispatch_time",
                                                         "execution_time", "run_start", "run_end"], aicpu)


def _step_trace(prof: Path, rank: int, kernels: list[dict[str, Any]], steps: int, rng: random.Random
                ) -> tuple[list[list[int]], list[int]]:
    """One row per step (10 ns counts) and each step's all-reduce duration."""
    fp_bp = int(sum(k["dur_us"] for k in kernels) * 100)
    rows, reduces = [], []
    start = 45_000_000_000 + rank * 1000
    for step in range(steps):
        interval = 0 if step == 0 else int(rng.uniform(0.2, 1.5) * PER_MS)
        tail = int(rng.uniform(1.0, 3.0) * PER_MS)
        fp = start + interval
        bp = fp + fp_bp
        end = bp + tail
        reduce = int(tail * 0.7)
        r_start = bp + int(tail * 0.1)
        rows.append([step + 1, start, end, end - start, fp, bp, interval, fp_bp, tail,
                     r_start, r_start + reduce, reduce])
        reduces.append(reduce)
        start = end
    average = [sum(r[c] for r in rows) // steps for c in range(1, len(rows[0]))]
    header = ["step_num", "start_point", "end_point", "total", "fp_point", "bp_point", "iteration_interval",
              "fp_and_bp", "tail", f"stream_{STREAM_REDUCE}_parallel_0_start_point",
              f"stream_{STREAM_REDUCE}_parallel_0_end_point", f"stream_{STREAM_REDUCE}_parallel_0"]
    _write_csv(prof / f"step_trace_raw_{rank}_detail_time.csv", header, [*rows, ["-", *average]])
    (prof / "step_trace_point_info.json").write_text(json.dumps(
        {"fp_start": kernels[0]["full"], "bp_end": kernels[-1]["full"]}))
    return [list(r) for r in rows], reduces


def _timeline(prof: Path, rank: int, kernels: list[dict[str, Any]], trace_rows: list[list[int]]) -> None:
    origin = trace_rows[0][1]
    events: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "pid": rank, "args": {"name": f"Ascend Device {rank}"}},
        {"name": "thread_name", "ph": "M", "pid": rank, "tid": STREAM_COMPUTE, "args": {"name": "Stream 5"}},
        {"name": "thread_name", "ph": "M", "pid": rank, "tid": STREAM_REDUCE, "args": {"name": "Stream 7 (HCCL)"}},
    ]
    for row in trace_rows:
        ts = (row[4] - origin) / 100  # µs
        for k in kernels:
            events.append({"name": k["name"], "ph": "X", "pid": rank, "tid": STREAM_COMPUTE, "ts": round(ts, 3),
                           "dur": k["dur_us"], "args": {"type": k["type"], "fullname": k["full"]}})
            ts += k["dur_us"]
        events.append({"name": "AllReduce", "ph": "X", "pid": rank, "tid": STREAM_REDUCE,
                       "ts": round((row[9] - origin) / 100, 3), "dur": round(row[11] / 100, 3)})
    (prof / f"ascend_timeline_display_{rank}.json").write_text(json.dumps(events))
    timed = [e for e in events if e["ph"] == "X"]
    end = max(e["ts"] + e["dur"] for e in timed)
    (prof / f"ascend_timeline_summary_{rank}.json").write_text(json.dumps(
        {"total_time": round(end / 1000, 4), "num_of_streams": 2, "num_of_ops": len(kernels) + 1,
         "op_exe_times": len(timed), "max_scope_name_num": 0}))


def _pipeline(prof: Path, rank: int, steps: int, rng: random.Random) -> None:
    _write_csv(prof / f"minddata_pipeline_raw_{rank}.csv",
               ["op_id", "op_type", "num_workers", "output_queue_size", "output_queue_average_size",
                "output_queue_length", "output_queue_usage_rate", "sample_interval", "parent_id", "children_id"],
               [[0, "Batch", 4, "", "", "", "", 10, "", "[1]"],
                [1, "Map", 8, "[40, 52, 61]", 51.0, 64, 0.797, 10, 0, "[2]"],
                [2, "MnistDataset", 1, "[3, 8, 5]", 5.333, 64, 0.083, 10, 1, ""]])
    lines, stamps = [], []
    for step in range(1, steps + 1):
        size = 0 if step == 1 else rng.randint(10, 60)
        stamp = 1000 * step
        stamps.append(stamp)
        lines += [f"1 64 {step} {size} {stamp}", f"0 0 {step} {rng.uniform(0.01, 0.05):.4f}",
                  f"0 1 {step} {rng.uniform(0.1, 0.5):.4f}", f"0 2 {step} {rng.uniform(0.2, 0.6):.4f}"]
    (prof / f"device_queue_profiling_{rank}.txt").write_text("\n".join(lines) + "\n")
    samples = [500 + 1000 * i for i in range(steps + 1)]
    series = {k: [rng.randint(5, 40) for _ in samples] for k in ("user_utilization", "sys_utilization")}
    device = {**series, "io_utilization": [rng.randint(0, 5) for _ in samples],
              "idle_utilization": [rng.randint(30, 80) for _ in samples]}
    ops = [{"op_id": op, "metrics": {k: [rng.randint(1, 20) for _ in samples] for k in series}} for op in (0, 1, 2)]
    (prof / f"minddata_cpu_utilization_{rank}.json").write_text(json.dumps(
        {"sampling_interval": 1000, "cpu_processor_num": 96, "time_stamp": samples, "device_info": device,
         "process_info": series, "op_info": ops}))
    (prof / f"pipeline_profiling_{rank}.json").write_text(json.dumps(
        {"sampling_interval": 10, "op_info": [{"op_id": 0, "op_type": "Batch", "num_workers": 4},
                                              {"op_id": 1, "op_type": "Map", "num_workers": 8},
                                              {"op_id": 2, "op_type": "MnistDataset", "num_workers": 1}]}))


def _flops(prof: Path, rank: int, kernels: list[dict[str, Any]]) -> None:
    total = round(sum(k["flops"] for k in kernels), 3)
    seconds = sum(k["dur_us"] for k in kernels) / 1e6
    (prof / f"flops_summary_{rank}.json").write_text(json.dumps(
        {"FLOPs": total, "FLOPS": round(total / 1000 / seconds, 3), "FLOPS_Utilization": round(2.5 - 0.3 * rank, 3)}))
    links: dict[tuple[str, str], float] = {}
    for k in kernels:
        chain = ["Total", k["side"], f"{k['scope']}({k['side']})"]
        for a, b in itertools.pairwise(chain):
            links[(a, b)] = links.get((a, b), 0.0) + k["flops"]
    nodes = sorted({n for pair in links for n in pair})
    (prof / f"flops_scope_{rank}.json").write_text(json.dumps(
        {"data": {"nodes": [{"name": n} for n in nodes],
                  "links": [{"source": a, "target": b, "value": round(v, 3)} for (a, b), v in links.items()]},
         "max_scope_num": 3}))
    with (prof / f"flops_{rank}.txt").open("w") as handle:
        handle.write("full_kernel_name, MFLOPs(10^6 cube), GFLOPS(10^9 cube), MFLOPs(10^6 vector), "
                     "GFLOPS(10^9 vector)\n")
        for k in kernels:
            if k["flops"]:
                handle.write(f"{k['full']}, {k['flops']}, {round(k['flops'] / k['dur_us'] * 1000, 3)}, 0, 0\n")


def _hccl(prof: Path, rank: int, ranks: int, reduce: list[int], rng: random.Random) -> None:
    rows: list[list[Any]] = []
    costs = [duration / PER_MS for duration in reduce]
    for step, duration in enumerate(reduce, 1):
        cost = duration / PER_MS
        links = {f"{rank}-{dst}": {"SDMA": [round(cost / ranks, 6), 2048.0, round(2048.0 / (cost / ranks) * 1000, 3)]}
                 for dst in range(ranks)}
        ops = {"stream_7_0_AllReduce-op95": [str(step), round(cost, 6), round(cost * rng.uniform(0.1, 0.4), 6), links]}
        rows.append([step, round(cost, 6), round(cost * 0.3, 6), json.dumps(links), json.dumps(ops)])
    mean = sum(costs) / len(costs)
    links = {f"{rank}-{dst}": {"SDMA": [round(mean / ranks, 6), 2048.0, round(2048.0 / (mean / ranks) * 1000, 3)]}
             for dst in range(ranks)}
    rows.append(["-", round(mean, 6), round(mean * 0.3, 6), json.dumps(links), json.dumps({})])
    _write_csv(prof / f"hccl_raw_{rank}.csv", ["step_num", "communication_cost", "wait_cost", "link_info",
                                               "communication_operator_cost"], rows)
