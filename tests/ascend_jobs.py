"""Small Ascend profiler jobs written by the tests themselves, number by number, in the text export's layout
(`<job>/profiler/rank<N>_ascend_pt/profiler_info_<N>.json` + `ASCEND_PROFILER_OUTPUT/`, torch_npu spelling). Each
file is optional, so a test writes exactly what one rule needs with the numbers that must (or must not) trigger it.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

STEP_HEADER = ["Step", "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free", "Stage",
               "Bubble", "Communication(Not Overlapped and Exclude Receive)", "Preparing"]
KERNEL_HEADER = ["Step Id", "Name", "Type", "Accelerator Core", "Start Time(us)", "Duration(us)", "Wait Time(us)",
                 "Block Dim", "Input Shapes", "Input Data Types", "Input Formats", "Output Shapes",
                 "Output Data Types", "Output Formats"]
OP_STAT_HEADER = ["OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)", "Max Time(us)",
                  "Ratio(%)"]
LINKS = ("HCCS", "PCIE", "RDMA", "SDMA", "SIO")


def output_dir(job: Path, rank: int) -> Path:
    out = job / "profiler" / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True, exist_ok=True)
    info = out.parent / f"profiler_info_{rank}.json"
    if not info.exists():
        info.write_text(json.dumps({"rank_id": rank, "config": {}}), encoding="utf-8")
    return out


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def step_row(step: int, computing: float, comm_not_overlapped: float, free: float, overlapped: float = 0.0,
             bubble: float = 0.0) -> list[Any]:
    """One step_trace_time.csv row (µs); Stage = step span − bubble, as the profiler writes it."""
    span = computing + comm_not_overlapped + free
    return [step, computing, comm_not_overlapped, overlapped, comm_not_overlapped + overlapped, free, span - bubble,
            bubble, comm_not_overlapped - bubble, 100.0]


def write_steps(job: Path, rank: int, rows: Iterable[Sequence[Any]]) -> None:
    write_csv(output_dir(job, rank) / "step_trace_time.csv", STEP_HEADER, rows)


def link(size_mb: float = 0.0, time_ms: float = 0.0, packets: int = 0, large_ratio: float = 0.0) -> dict[str, Any]:
    """A `Communication Bandwidth Info` entry; `packets` packets of equal size."""
    each = size_mb / packets if packets else 0.0
    return {"Transit Size(MB)": size_mb, "Transit Time(ms)": time_ms,
            "Bandwidth(GB/s)": round(size_mb / time_ms, 4) if time_ms else 0, "Large Packet Ratio": large_ratio,
            "Size Distribution": {str(each): [packets, time_ms]} if packets else {}}


def comm_op(elapse_ms: float, links: dict[str, dict[str, Any]] | None = None, start_us: float = 0.0) -> dict[str, Any]:
    bandwidth = {name: link() for name in LINKS}
    bandwidth.update(links or {})
    return {"Communication Time Info": {"Start Timestamp(us)": start_us, "Elapse Time(ms)": elapse_ms,
                                        "Transit Time(ms)": elapse_ms * 0.5, "Wait Time(ms)": elapse_ms * 0.5,
                                        "Synchronization Time(ms)": 0.0, "Idle Time(ms)": 0.0,
                                        "Wait Time Ratio": 0.5, "Synchronization Time Ratio": 0.0},
            "Communication Bandwidth Info": bandwidth}


def write_communication(job: Path, rank: int, ops: dict[str, dict[str, dict[str, Any]]], step: int = 1) -> None:
    """`ops`: {"collective"|"p2p": {"<name>@<group>": comm_op(...)}}."""
    (output_dir(job, rank) / "communication.json").write_text(json.dumps({f"step{step}": ops}), encoding="utf-8")


def write_matrix(job: Path, rank: int, entries: dict[str, dict[str, dict[str, Any]]], step: int = 1) -> None:
    """`entries`: {"<op>-<top1|total>@<group>": {"<src>-<dst>": {"Transport Type", "Transit Size(MB)", ...}}}."""
    data = {f"step{step}": {"collective": entries}}
    (output_dir(job, rank) / "communication_matrix.json").write_text(json.dumps(data), encoding="utf-8")


def matrix_link(transport: str, size_mb: float, time_ms: float) -> dict[str, Any]:
    return {"Transport Type": transport, "Transit Size(MB)": size_mb, "Transit Time(ms)": time_ms,
            "Bandwidth(GB/s)": round(size_mb / time_ms, 4), "Op Name": "hcom_allReduce__1_0_1"}


def write_kernels(job: Path, rank: int, kernels: Iterable[tuple[str, str, str, float, float]], step: int = 1,
                  dtypes: str = "FLOAT16") -> None:
    """`kernels`: (name, type, core, start µs, duration µs)."""
    rows = [[step, name, op_type, core, f"{start:.3f}\t", duration, 0.0, 8, '"4,4"', dtypes, "ND", '"4,4"', dtypes,
             "ND"] for name, op_type, core, start, duration in kernels]
    write_csv(output_dir(job, rank) / "kernel_details.csv", KERNEL_HEADER, rows)


def write_op_statistic(job: Path, rank: int, rows: Iterable[tuple[str, str, int, float, float, float]]) -> None:
    """`rows`: (type, core, count, total µs, min µs, max µs); avg and ratio are computed."""
    rows = list(rows)
    grand = sum(r[3] for r in rows) or 1.0
    write_csv(output_dir(job, rank) / "op_statistic.csv", OP_STAT_HEADER,
              [[t, core, n, total, lo, round(total / n, 3), hi, round(total / grand * 100, 3)]
               for t, core, n, total, lo, hi in rows])


def pipeline_job(job: Path, computing: dict[int, float], totals_us: dict[int, float],
                 stages: Sequence[Sequence[int]] = ((0, 1), (2, 3)), p2p_elapse_ms: float = 5.0) -> None:
    """A pipeline-parallel job: `stages` of data-parallel ranks; rank r's step splits into computing[r], free =
    5 % of its total and the rest communication not overlapped (stage 0 waits in receives: its bubble). Each
    stage all-reduces in its own group; send/receive pairs link rank i of each stage with rank i of the next
    (the pipeline groups `pp<i>`), as Megatron lays PP x DP out."""
    for index, stage in enumerate(stages):
        for position, rank in enumerate(stage):
            total = totals_us[rank]
            free = 0.05 * total
            comm = total - computing[rank] - free
            bubble = comm * 0.5 if index == 0 else 0.0
            write_steps(job, rank, [step_row(1, computing[rank], comm, free, bubble=bubble)])
            ops: dict[str, dict[str, Any]] = {"collective": {}, "p2p": {}}
            ops["collective"][f"hcom_allReduce__{index}_0_1@dp{index}"] = comm_op(comm / 1000 * 0.5)
            kind = "hcom_receive_" if index == 0 else "hcom_send_"
            ops["p2p"][f"{kind}_{position}_0_1@pp{position}"] = comm_op(p2p_elapse_ms)
            write_communication(job, rank, ops)
