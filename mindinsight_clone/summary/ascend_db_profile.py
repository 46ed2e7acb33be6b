"""Write a small synthetic Ascend profiler job in the *database* export (`export_type` db), laid out as torch_npu
writes it: `<job>/profiler/<host>_<pid>_<ms>_ascend_pt/` with `profiler_info_<N>.json` and
`ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_<N>.db` + `analysis.db` (no CSV or JSON). Standard library sqlite3
only; the tables and columns are those of ../shared/fixtures/ascend_db (schema 1.0.0): names are ids into
STRING_IDS, times are ns, memory bytes; analysis.db holds StepTraceTime (µs) and CommAnalyzer* (ms, MB, GB/s).

The kernels, steps and communication are ascend_profile.py's (the text demo job), so both demo jobs show the same
kind of workload: compute kernels on stream 2, two all-reduces per step on stream 8, rank k computing (1 + 0.25 k)
times slower. Used by scripts/make_demo_data and benchmarks/ascend_db.py; no ../shared needed.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from mindinsight_clone.summary.ascend_profile import GROUP, Kernel, _rank_kernels, _step_rows

BASE_NS = 1_767_268_800_000_000_000  # 2026-01-01 12:00 UTC
PID = 4200
TABLES = {
    "STRING_IDS": "id INTEGER PRIMARY KEY, value TEXT",
    "META_DATA": "name TEXT, value TEXT",
    "RANK_DEVICE_MAP": "rankId INTEGER, deviceId INTEGER",
    "STEP_TIME": "id INTEGER, startNs INTEGER, endNs INTEGER",
    "ENUM_API_TYPE": "id INTEGER PRIMARY KEY, name TEXT",
    "TASK": "startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, "
            "globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER",
    "COMPUTE_TASK_INFO": "name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER, mixBlockDim INTEGER, "
                         "taskType INTEGER, opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER, "
                         "inputShapes INTEGER, outputFormats INTEGER, outputDataTypes INTEGER, outputShapes INTEGER, "
                         "attrInfo INTEGER",
    "COMMUNICATION_OP": "opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER, groupName INTEGER, "
                        "opId INTEGER PRIMARY KEY, relay INTEGER, retry INTEGER, dataType INTEGER, algType INTEGER, "
                        "count NUMERIC, opType INTEGER",
    "COMMUNICATION_TASK_INFO": "name INTEGER, globalTaskId INTEGER, taskType INTEGER, planeId INTEGER, "
                               "groupName INTEGER, notifyId INTEGER, rdmaType INTEGER, srcRank INTEGER, "
                               "dstRank INTEGER, transportType INTEGER, size INTEGER, dataType INTEGER, "
                               "linkType INTEGER, opId INTEGER",
    "CANN_API": "startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER PRIMARY KEY, "
                "name INTEGER",
    "PYTORCH_API": "startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER, "
                   "sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, "
                   "callchainId INTEGER, type INTEGER",
    "MEMORY_RECORD": "component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER, "
                     "totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER",
    "NPU_MEM": "type INTEGER, ddr NUMERIC, hbm NUMERIC, timestampNs INTEGER, deviceId INTEGER",
    "ENUM_MODULE": "id INTEGER PRIMARY KEY, name TEXT",
    "NPU_MODULE_MEM": "moduleId INTEGER, timestampNs INTEGER, totalReserved NUMERIC, deviceId INTEGER",
    "OP_MEMORY": "name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER, activeReleaseTime INTEGER, "
                 "duration INTEGER, activeDuration INTEGER, allocationTotalAllocated INTEGER, "
                 "allocationTotalReserved INTEGER, allocationTotalActive INTEGER, releaseTotalAllocated INTEGER, "
                 "releaseTotalReserved INTEGER, releaseTotalActive INTEGER, streamPtr INTEGER, deviceId INTEGER",
}
ANALYSIS_TABLES = {
    "StepTraceTime": "step TEXT, computing NUMERIC, communication_not_overlapped NUMERIC, overlapped NUMERIC, "
                     "communication NUMERIC, free NUMERIC, stage NUMERIC, bubble NUMERIC, "
                     "communication_not_overlapped_and_exclude_receive NUMERIC, preparing NUMERIC",
    "CommAnalyzerTime": "hccl_op_name TEXT, group_name TEXT, start_timestamp NUMERIC, elapse_time NUMERIC, "
                        "transit_time NUMERIC, wait_time NUMERIC, synchronization_time NUMERIC, idle_time NUMERIC, "
                        "step TEXT, type TEXT",
    "CommAnalyzerBandwidth": "hccl_op_name TEXT, group_name TEXT, transport_type TEXT, transit_size NUMERIC, "
                             "transit_time NUMERIC, bandwidth NUMERIC, large_packet_ratio NUMERIC, "
                             "package_size NUMERIC, count NUMERIC, total_duration NUMERIC, step TEXT, type TEXT",
    "CommAnalyzerMatrix": "hccl_op_name TEXT, group_name TEXT, src_rank TEXT, dst_rank TEXT, transport_type TEXT, "
                          "transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, step TEXT, type TEXT, "
                          "op_name TEXT",
}
ACL = 20000  # ENUM_API_TYPE id of `acl`
OP_API = 50001  # ENUM_API_TYPE id of `op`


class _Strings:
    """STRING_IDS: each text gets the next id (from 0x10000000, as the profiler's ids are sparse)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.ids.setdefault(text, 0x10000000 + len(self.ids))


def _ns(us: float) -> int:
    return BASE_NS + round(us * 1000)


def _create(path: Path, tables: dict[str, str]) -> sqlite3.Connection:
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    for name, columns in tables.items():
        con.execute(f"CREATE TABLE {name} ({columns})")
    return con


def _insert(con: sqlite3.Connection, table: str, rows: list[tuple[Any, ...]]) -> None:
    if rows:
        con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows)  # noqa: S608


def _device_rows(con: sqlite3.Connection, s: _Strings, kernels: list[Kernel], rank: int) -> None:
    task: list[tuple[Any, ...]] = []
    compute: list[tuple[Any, ...]] = []
    comm_op: list[tuple[Any, ...]] = []
    comm_task: list[tuple[Any, ...]] = []
    cann: list[tuple[Any, ...]] = []
    torch: list[tuple[Any, ...]] = []
    tid = (PID + rank) << 32 | (PID + rank)
    gid = 0
    for k in kernels:
        start, end = _ns(k.start), _ns(k.start + k.duration)
        launch = start - 40_000  # the host launches each kernel 40 µs before it runs
        if k.core == "HCCL":
            op_id = len(comm_op) + 1
            comm_op.append((s(k.name), start, end, gid, s(GROUP), op_id, 0, 0, 4, s("MESH-RING"), 4096 * op_id,
                            s(k.type)))
            for plane in range(2):  # a reduce and a notify per plane
                for j, (kind, size) in enumerate((("Reduce_Inline", 2 << 20), ("Notify_Wait", 0))):
                    t0 = start + 1000 * (2 * plane + j)
                    task.append((t0, t0 + 800, rank, gid, gid, PID + rank, s("SDMA"), 0, k.stream, gid, 4294967295))
                    comm_task.append((s(k.name), gid, s(kind), plane, s(GROUP), 0, 65535, rank, 1 - rank, 0, size,
                                      3, 1, op_id))
                    gid += 1
            continue
        task.append((start, end, rank, gid, gid, PID + rank, s("KERNEL_AICORE" if k.core == "AI_CORE"
                                                                 else "KERNEL_AIVEC"), 0, k.stream, gid, 4294967295))
        shapes = '"32,1024;1024,1024"'
        compute.append((s(k.name), gid, 24, 0, s(k.core), s(k.type), s("ND;ND"), s("FLOAT16;FLOAT16"), s(shapes),
                        s("ND"), s("FLOAT16"), s('"32,1024"'), s("N/A")))
        cann.append((launch, launch + 12_000, ACL, tid, gid, s("aclnn" + k.type)))
        torch.append((str(launch - 30_000), str(launch + 15_000), tid, gid, s("aten::" + k.type.lower()), gid, 0,
                      s("float16"), s("[32, 1024]"), None, OP_API))
        gid += 1
    _insert(con, "TASK", task)
    _insert(con, "COMPUTE_TASK_INFO", compute)
    _insert(con, "COMMUNICATION_OP", comm_op)
    _insert(con, "COMMUNICATION_TASK_INFO", comm_task)
    _insert(con, "CANN_API", cann)
    _insert(con, "PYTORCH_API", torch)


def _memory_rows(con: sqlite3.Connection, s: _Strings, kernels: list[Kernel], rank: int) -> None:
    record: list[tuple[Any, ...]] = []
    app: list[tuple[Any, ...]] = []
    ops: list[tuple[Any, ...]] = []
    mb = 1 << 20
    for i, k in enumerate(c for c in kernels if c.core != "HCCL"):
        allocated = (800 + (i % 60) * 9.5 + rank * 20) * mb
        ts = _ns(k.start)
        if i % 5 == 0:
            record.append((s("PTA"), ts, int(allocated), 1536 * mb, int(allocated), 0, rank))
            record.append((s("GE"), ts, 48 * mb, int(74.75 * mb), 0, 0, rank))
            record.append((s("PTA+GE"), ts, int(allocated) + 48 * mb, int(1610.75 * mb), int(allocated), 0, rank))
        if i % 20 == 0:
            app.append((s("app"), 0, (2048 + rank) * mb, ts, rank))
        if i % 3 == 0:
            size = 256 * 1024 * (1 + (i * 37) % 97)
            end = _ns(k.start + k.duration)
            ops.append((s(f"{k.name}/output0"), size, ts, end, end, end - ts, end - ts, int(allocated), 1536 * mb,
                        int(allocated), int(allocated) - size, 1536 * mb, int(allocated) - size, 0, rank))
    _insert(con, "MEMORY_RECORD", record)
    _insert(con, "NPU_MEM", app)
    _insert(con, "OP_MEMORY", ops)


MODULES = ((0, "SLOG"), (3, "HCCL"), (7, "RUNTIME"), (33, "APP"), (45, "GE"))  # ENUM_MODULE ids of the fixture


def _module_rows(con: sqlite3.Connection, spans: list[tuple[float, float]], rank: int) -> None:
    """Memory reserved per CANN module (bytes), at each step start and end, as the text demo's npu_module_mem.csv."""
    mb = 1 << 20
    reserved = {"APP": (1536.0 + rank) * mb, "HCCL": 404.0625 * mb, "RUNTIME": 92.1875 * mb, "GE": 76.0 * mb,
                "SLOG": 0.0}
    rows = []
    for i, (start, end) in enumerate(spans):
        for ts in (start, end):
            for module, name in MODULES:
                grow = 0.046875 * i * mb if name == "RUNTIME" else 0.0
                rows.append((module, _ns(ts), int(reserved[name] + grow), rank))
    _insert(con, "ENUM_MODULE", list(MODULES))
    _insert(con, "NPU_MODULE_MEM", rows)


def _analysis(path: Path, kernels: list[Kernel], spans: list[tuple[float, float]], rank: int, ranks: int) -> None:
    con = _create(path, ANALYSIS_TABLES)
    _insert(con, "StepTraceTime", [(str(r[0]), *r[1:]) for r in _step_rows(kernels, spans)])
    times: list[tuple[Any, ...]] = []
    bandwidth: list[tuple[Any, ...]] = []
    matrix: list[tuple[Any, ...]] = []
    for k in (k for k in kernels if k.core == "HCCL"):
        elapse = k.duration / 1000.0
        transit, wait, sync = elapse * 0.8, elapse * 0.15, elapse * 0.1
        size = round(k.duration * 0.09, 6)
        step = f"step{k.step}"
        times.append((k.name, GROUP, (_ns(k.start) // 1000), elapse, transit, wait, sync, elapse - transit - wait,
                      step, "collective"))
        for link in ("HCCS", "SDMA"):
            for packet, count in ((size / 13, 12), (size / 26, 2)):  # the size distribution
                bandwidth.append((k.name, GROUP, link, size, transit, round(size / transit, 4), 0.0, round(packet, 6),
                                  count, transit * count / 14, step, "collective"))
        for dst in range(ranks):
            time_ms = transit / (20 if dst == rank else 1)
            matrix.append(("allreduce-total", GROUP, str(rank), str(dst), "LOCAL" if dst == rank else "HCCS", size,
                           time_ms, round(size / time_ms, 4), step, "collective", k.name))
    _insert(con, "CommAnalyzerTime", times)
    _insert(con, "CommAnalyzerBandwidth", bandwidth)
    _insert(con, "CommAnalyzerMatrix", matrix)
    con.commit()
    con.close()


def write_profiler_db(path: Path, kernels: list[Kernel], spans: list[tuple[float, float]], rank: int) -> None:
    """One rank's `ascend_pytorch_profiler_<rank>.db`."""
    con = _create(path, TABLES)
    s = _Strings()
    _insert(con, "META_DATA", [("SCHEMA_VERSION", "1.0.0")])
    _insert(con, "RANK_DEVICE_MAP", [(rank, rank)])
    _insert(con, "ENUM_API_TYPE", [(ACL, "acl"), (OP_API, "op")])
    _insert(con, "STEP_TIME", [(step, _ns(a), _ns(b)) for step, (a, b) in enumerate(spans, 1)])
    _device_rows(con, s, kernels, rank)
    _memory_rows(con, s, kernels, rank)
    _module_rows(con, spans, rank)
    _insert(con, "STRING_IDS", [(i, text) for text, i in s.ids.items()])
    con.commit()
    con.close()


def write_ascend_db_job(job_dir: Path, ranks: int = 2, steps: int = 3, kernels_per_step: int = 120,
                        seed: int = 0) -> list[Path]:
    """Write the job; returns the rank folders. Deterministic for a given seed."""
    folders = []
    for rank in range(ranks):
        kernels, spans = _rank_kernels(rank, steps, kernels_per_step, seed)
        folder = job_dir / "profiler" / f"demo_{PID + rank}_{1767268800000 + rank}_ascend_pt"
        out = folder / "ASCEND_PROFILER_OUTPUT"
        out.mkdir(parents=True, exist_ok=True)
        info = {"rank_id": rank, "config": {"experimental_config": {"_profiler_level": "Level1",
                                                                    "_export_type": "db"}}}
        (folder / f"profiler_info_{rank}.json").write_text(json.dumps(info, indent=2), encoding="utf-8")
        write_profiler_db(out / f"ascend_pytorch_profiler_{rank}.db", kernels, spans, rank)
        _analysis(out / "analysis.db", kernels, spans, rank, ranks)
        folders.append(folder)
    return folders
