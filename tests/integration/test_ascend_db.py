"""Ascend profiler endpoints over the real database export in ../shared/fixtures/ascend_db (2 ranks, Level0 and
Level1), read in place. Every expected number is computed here from the .db files with `sqlite3` (SQL joins and
window functions, plain Python loops), never with the code under test. Mixed jobs and broken databases are in
test_ascend_db_jobs.py.
"""

from __future__ import annotations

import hashlib
import sqlite3
import statistics
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests import ascend_reference
from tests.ascend_reference import trace_inputs
from tests.conftest import SHARED, require_shared
from tests.integration.test_ascend_profiler import API, get, make_client, search

ASCEND_DB = SHARED / "fixtures" / "ascend_db"
JOBS = ["torch_npu_db_level0", "torch_npu_db_level1"]
RANKS = ["0", "1"]
MB = 1 << 20
STEP_COLUMNS = {
    "computing_us": "computing", "communication_not_overlapped_us": "communication_not_overlapped",
    "overlapped_us": "overlapped", "communication_us": "communication", "free_us": "free", "stage_us": "stage",
    "bubble_us": "bubble",
    "communication_not_overlapped_exclude_receive_us": "communication_not_overlapped_and_exclude_receive",
    "preparing_us": "preparing",
}


def output(job: str, rank: str) -> Path:
    return ASCEND_DB / job / "profiler" / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"


def connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)


def query(path: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    con = connect(path)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def profiler_db(job: str, rank: str) -> Path:
    return output(job, rank) / f"ascend_pytorch_profiler_{rank}.db"


def analysis_db(job: str, rank: str) -> Path:
    return output(job, rank) / "analysis.db"


def _fingerprint() -> dict[str, tuple[int, float, str]]:
    """Every file under the fixture, with size, mtime and content hash (the views must write nothing there)."""
    return {str(p.relative_to(ASCEND_DB)): (p.stat().st_size, p.stat().st_mtime,
                                            hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(ASCEND_DB.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def untouched() -> Iterator[dict[str, tuple[int, float, str]]]:
    require_shared(ASCEND_DB)
    before = _fingerprint()
    yield before
    assert _fingerprint() == before, "a view wrote into (or beside) the user's databases"


@pytest.fixture(scope="module")
def client(untouched: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    return make_client(ASCEND_DB, tmp_path_factory.mktemp("ascend_db"))


# --- discovery -----------------------------------------------------------------------------------


def test_db_jobs_are_ascend_with_both_ranks(client: FlaskClient) -> None:
    jobs = client.get(f"{API}/datavisual/train-jobs?offset=0&limit=10").get_json()["train_jobs"]
    assert {j["train_id"]: j["profiler_type"] for j in jobs} == {f"./{j}": "ascend" for j in JOBS}
    for job in JOBS:
        assert get(client, "devices", job).get_json()["device_list"] == RANKS
        dirs = client.get(f"{API}/profile/dirs?train_id=./{job}").get_json()["profilers"]
        assert dirs[0]["device_type"] == "ascend" and dirs[0]["device_list"] == RANKS


# --- kernels -------------------------------------------------------------------------------------


def expected_kernels(job: str, rank: str) -> list[dict[str, Any]]:
    """kernel_details.csv's rows, from SQL: compute kernels joined to TASK (wait by a window function over every
    task of the stream), communication ops as HCCL kernels, the step from STEP_TIME."""
    sql = """
    WITH waits AS (
        SELECT globalTaskId, startNs, endNs, streamId, taskId,
               COALESCE(startNs - LAG(endNs) OVER (PARTITION BY streamId ORDER BY startNs), 0) AS waitNs
        FROM TASK)
    SELECT n.value, o.value, k.value, w.startNs, w.endNs, w.streamId, w.taskId, c.blockDim, w.waitNs,
           (SELECT value FROM STRING_IDS WHERE id = c.inputShapes), (SELECT value FROM STRING_IDS WHERE id = c.inputDataTypes),
           (SELECT value FROM STRING_IDS WHERE id = c.inputFormats), (SELECT value FROM STRING_IDS WHERE id = c.outputShapes),
           (SELECT value FROM STRING_IDS WHERE id = c.outputDataTypes), (SELECT value FROM STRING_IDS WHERE id = c.outputFormats)
    FROM COMPUTE_TASK_INFO c JOIN waits w ON w.globalTaskId = c.globalTaskId
    JOIN STRING_IDS n ON n.id = c.name JOIN STRING_IDS o ON o.id = c.opType JOIN STRING_IDS k ON k.id = c.taskType
    UNION ALL
    SELECT n.value, o.value, 'HCCL', op.startNs, op.endNs, NULL, NULL, NULL, NULL, '', '', '', '', '', ''
    FROM COMMUNICATION_OP op JOIN STRING_IDS n ON n.id = op.opName JOIN STRING_IDS o ON o.id = op.opType
    """
    path = profiler_db(job, rank)
    steps = query(path, "SELECT id, startNs, endNs FROM STEP_TIME")
    rows = []
    for name, op_type, core, start, end, stream, task, block, wait, *texts in query(path, sql):
        step = next((s for s, lo, hi in steps if lo <= start <= hi), None)
        rows.append({"op_name": name, "op_type": op_type, "core_type": core, "start_ns": start,
                     "duration_us": (end - start) / 1000, "stream_id": stream, "task_id": task, "block_dim": block,
                     "wait_time_us": None if wait is None else wait / 1000, "step_id": step,
                     **dict(zip(("input_shapes", "input_data_types", "input_formats", "output_shapes",
                                 "output_data_types", "output_formats"), texts, strict=True))})
        for shapes in ("input_shapes", "output_shapes"):  # torch_npu writes them quoted; shown without the quotes
            rows[-1][shapes] = (rows[-1][shapes] or "").strip('"')
    return sorted(rows, key=lambda r: r["start_ns"])


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_aicore_detail_is_every_kernel_of_the_database(client: FlaskClient, job: str, rank: str) -> None:
    expected = [r for r in expected_kernels(job, rank) if r["core_type"] != "AI_CPU"]
    answer = search(client, job, {"op_type": "aicore_detail", "device_id": rank}).get_json()
    assert "problems" not in answer
    cols = answer["col_name"]
    got = [dict(zip(cols, row, strict=True)) for row in answer["object"]]
    assert answer["size"] == len(got) == len(expected) > 100
    for row, want in zip(got, expected, strict=True):  # both in start order
        assert row["start_time_us"] == pytest.approx(want["start_ns"] / 1000, abs=0.5)
        assert row["avg_execution_time"] == pytest.approx(want["duration_us"] / 1000)
        assert row["full_op_name"] == row["op_name"] and row["subgraph"] == "" and row["op_info"] is None
        for key in ("op_name", "op_type", "core_type", "duration_us", "stream_id", "task_id", "block_dim",
                    "wait_time_us", "step_id", "input_shapes", "input_data_types", "input_formats", "output_shapes",
                    "output_data_types", "output_formats"):
            assert row[key] == (pytest.approx(want[key]) if isinstance(want[key], float) else want[key]), key


@pytest.mark.parametrize("job", JOBS)
def test_aicore_detail_sort_filter_page(client: FlaskClient, job: str) -> None:
    expected = expected_kernels(job, "1")
    body: dict[str, Any] = {"op_type": "aicore_detail", "device_id": "1",
                            "filter_condition": {"op_type": {"in": ["TransData", "hcom_allReduce_"]}},
                            "sort_condition": {"name": "duration_us", "type": "descending"},
                            "group_condition": {"limit": 7, "offset": 1}}
    answer = search(client, job, body).get_json()
    chosen = sorted((r for r in expected if r["op_type"] in ("TransData", "hcom_allReduce_")),
                    key=lambda r: -r["duration_us"])
    cols = answer["col_name"]
    assert answer["size"] == len(chosen)
    assert [row[cols.index("duration_us")] for row in answer["object"]] == \
        pytest.approx([r["duration_us"] for r in chosen[7:14]])


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_aicore_and_aicpu_types_aggregate_the_kernels(client: FlaskClient, job: str, rank: str) -> None:
    kernels = [r for r in expected_kernels(job, rank) if r["core_type"] != "HCCL"]
    grand = sum(r["duration_us"] for r in kernels)
    for op_type, aicpu in (("aicore_type", False), ("aicpu_type", True)):
        groups: dict[tuple[str, str], list[float]] = {}
        for r in kernels:
            if (r["core_type"] == "AI_CPU") == aicpu:
                groups.setdefault((r["op_type"], r["core_type"]), []).append(r["duration_us"])
        answer = search(client, job, {"op_type": op_type, "device_id": rank}).get_json()
        assert answer["source"] == f"ascend_pytorch_profiler_{rank}.db"
        cols = answer["col_name"]
        got = {(row[0], row[cols.index("core_type")]): dict(zip(cols, row, strict=True)) for row in answer["object"]}
        assert set(got) == set(groups)
        for key, durations in groups.items():
            row = got[key]
            assert row["execution_frequency"] == len(durations)
            assert row["total_time_us"] == pytest.approx(round(sum(durations), 3))
            assert row["execution_time"] == pytest.approx(sum(durations) / 1000, rel=1e-3)
            assert row["min_time_us"] == pytest.approx(min(durations))
            assert row["max_time_us"] == pytest.approx(max(durations))
            assert row["avg_time_us"] == pytest.approx(round(sum(durations) / len(durations), 3))
            assert row["percent"] == pytest.approx(round(sum(durations) / grand * 100, 3))
    aicpu = search(client, job, {"op_type": "aicpu_detail", "device_id": rank}).get_json()
    assert aicpu["size"] == sum(r["core_type"] == "AI_CPU" for r in kernels)


# --- steps ---------------------------------------------------------------------------------------


def expected_steps(job: str, rank: str) -> list[dict[str, Any]]:
    cols = ", ".join(STEP_COLUMNS.values())
    return [{"step": int(row[0]), **{k: float(v) for k, v in zip(STEP_COLUMNS, row[1:], strict=True)}}
            for row in query(analysis_db(job, rank), f"SELECT step, {cols} FROM StepTraceTime ORDER BY rowid")]


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_step_trace_time_is_analysis_db(client: FlaskClient, job: str, rank: str) -> None:
    answer = get(client, "step-trace-time", job, rank).get_json()
    assert "problems" not in answer
    expected = expected_steps(job, rank)
    assert len(answer["steps"]) == len(expected) == 1
    for got, want in zip(answer["steps"], expected, strict=True):
        assert got == pytest.approx(want)


@pytest.mark.parametrize("job", JOBS)
def test_cluster_step_trace_means_and_slow_ranks(client: FlaskClient, job: str) -> None:
    answer = get(client, "cluster-step-trace", job).get_json()
    assert "problems" not in answer
    means = {}
    for rank in RANKS:
        steps = expected_steps(job, rank)
        means[int(rank)] = {k: sum(s[k] for s in steps) / len(steps) for k in STEP_COLUMNS}
    assert [r["rank_id"] for r in answer["ranks"]] == [0, 1]
    for row in answer["ranks"]:
        assert {k: row[k] for k in STEP_COLUMNS} == pytest.approx(means[row["rank_id"]])
        assert row["step_count"] == 1
    slow = []
    for phase in ("computing_us", "communication_not_overlapped_us", "free_us"):
        values = {r: m[phase] for r, m in means.items()}
        if (max(values.values()) - min(values.values())) / statistics.mean(values.values()) > 0.05:
            median = statistics.median(values.values())
            slow += [(r, phase[:-3]) for r, v in values.items() if (v - median) / median > 0.05]
    assert sorted((s["rank_id"], s["phase"]) for s in answer["slow_ranks"]) == sorted(slow)


# --- communication -------------------------------------------------------------------------------


@pytest.mark.parametrize("rank", RANKS)
def test_communication_from_comm_analyzer_tables(client: FlaskClient, rank: str) -> None:
    path = analysis_db("torch_npu_db_level1", rank)
    answer = get(client, "communication", "torch_npu_db_level1", rank).get_json()
    assert "problems" not in answer
    times = query(path, "SELECT hccl_op_name, group_name, step, type, start_timestamp, elapse_time, transit_time, "
                        "wait_time, synchronization_time, idle_time FROM CommAnalyzerTime ORDER BY rowid")
    assert len(answer["ops"]) == len(times) == 4
    links: dict[str, dict[str, dict[str, Any]]] = {}
    for op, link, size, time_ms, gbps, large, count in query(
            path, "SELECT hccl_op_name, transport_type, transit_size, transit_time, bandwidth, large_packet_ratio, "
                  "count FROM CommAnalyzerBandwidth"):
        entry = links.setdefault(op, {}).setdefault(link, {  # the link's figures repeat on every packet-size row
            "size_mb": pytest.approx(size), "time_ms": pytest.approx(time_ms), "gbps": pytest.approx(gbps),
            "large_packet_ratio": pytest.approx(large), "packets": 0})
        entry["packets"] += count  # the packets of each size, as communication.json's Size Distribution counts
    for got, (name, group, step, kind, start, elapse, transit, wait, sync, idle) in zip(answer["ops"], times,
                                                                                        strict=True):
        assert (got["name"], got["group"], got["step"], got["type"]) == (name, group, int(step[4:]), kind)
        assert got["start_us"] == pytest.approx(start)
        assert [got[f"{k}_time_ms"] for k in ("elapse", "transit", "wait", "synchronization", "idle")] == \
            pytest.approx([elapse, transit, wait, sync, idle])
        assert got["wait_time_ratio"] == pytest.approx(round(wait / (wait + transit), 4))
        assert got["synchronization_time_ratio"] == pytest.approx(round(sync / (sync + transit), 4))
        assert got["bandwidth"] == links[name]
    total = answer["totals"]
    assert len(total) == 1 and total[0]["name"] == "Total Op Info"
    assert total[0]["elapse_time_ms"] == pytest.approx(sum(t[5] for t in times))
    transit, wait = sum(t[6] for t in times), sum(t[7] for t in times)
    assert total[0]["wait_time_ratio"] == pytest.approx(round(wait / (wait + transit), 4))
    hccs = [v["HCCS"] for v in links.values()]
    assert total[0]["bandwidth"]["HCCS"] == {
        "size_mb": pytest.approx(sum(h["size_mb"].expected for h in hccs)),
        "time_ms": pytest.approx(sum(h["time_ms"].expected for h in hccs)),
        "gbps": None, "large_packet_ratio": None, "packets": sum(h["packets"] for h in hccs)}
    matrix = query(path, "SELECT hccl_op_name, group_name, src_rank, dst_rank, transport_type, transit_size, "
                         "transit_time, bandwidth, step, type, op_name FROM CommAnalyzerMatrix ORDER BY rowid")
    assert len(answer["matrix"]) == len(matrix) > 0
    for got, (op, group, src, dst, link, size, time_ms, gbps, step, kind, name) in zip(answer["matrix"], matrix,
                                                                                      strict=True):
        assert got == {"op": op, "group": group, "src": int(src), "dst": int(dst), "transport": link,
                       "size_mb": pytest.approx(size), "time_ms": pytest.approx(time_ms), "gbps": pytest.approx(gbps),
                       "step": int(step[4:]), "type": kind, "op_name": name}


def test_communication_at_level0_says_which_table_is_missing(client: FlaskClient) -> None:
    assert not query(analysis_db("torch_npu_db_level0", "0"),
                     "SELECT name FROM sqlite_master WHERE name = 'CommAnalyzerTime'")
    response = get(client, "communication", "torch_npu_db_level0", "0")
    assert response.status_code == 400
    body = response.get_json()
    assert body["error_code"] == "50546084"
    assert "CommAnalyzerTime in analysis.db of rank 0" in body["error_msg"] and "Level1" in body["error_msg"]
    assert get(client, "step-trace-time", "torch_npu_db_level0", "0").status_code == 200  # the others answer


# --- memory --------------------------------------------------------------------------------------


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_memory_record_components_app_and_operators(client: FlaskClient, job: str, rank: str) -> None:
    path = profiler_db(job, rank)
    records = query(path, "SELECT s.value, m.timestamp, m.totalAllocated, m.totalReserved, m.totalActive "
                          "FROM MEMORY_RECORD m JOIN STRING_IDS s ON s.id = m.component")
    app = query(path, "SELECT n.timestampNs, n.hbm FROM NPU_MEM n JOIN STRING_IDS s ON s.id = n.type "
                      "WHERE s.value = 'app'")
    assert app, "the fixture has APP memory in NPU_MEM"
    answer = get(client, "memory-record", job, rank, max_points=100000, top=5).get_json()
    assert "problems" not in answer
    components = {r[0] for r in records} | {"APP"}
    assert set(answer["series"]) == components
    counts = {c: sum(r[0] == c for r in records) for c in components}
    counts["APP"] = len(app)
    assert answer["points"] == counts
    assert answer["peak_reserved_mb"] == pytest.approx(max([r[3] for r in records] + [a[1] for a in app]) / MB)
    assert answer["peak_allocated_mb"] == pytest.approx(max(r[2] for r in records) / MB)
    assert answer["series"]["APP"] == [[pytest.approx(ts / 1000, abs=0.5), None, pytest.approx(hbm / MB), None]
                                       for ts, hbm in sorted(app)]
    pta = sorted((r for r in records if r[0] == "PTA"), key=lambda r: r[1])
    assert [row[1:] for row in answer["series"]["PTA"]] == [pytest.approx([a / MB, b / MB, c / MB])
                                                           for _, _, a, b, c in pta]
    ops = query(path, "SELECT s.value, o.size, o.allocationTime, o.releaseTime, o.duration FROM OP_MEMORY o "
                      "JOIN STRING_IDS s ON s.id = o.name ORDER BY o.size DESC, o.rowid")
    assert answer["operator_count"] == len(ops)
    assert answer["top_operators"] == [
        {"name": n, "size_kb": pytest.approx(s / 1024), "allocation_time_us": pytest.approx(a / 1000, abs=0.5),
         "release_time_us": None if r is None else pytest.approx(r / 1000, abs=0.5),
         "duration_us": None if d is None else pytest.approx(d / 1000)} for n, s, a, r, d in ops[:5]]


def test_memory_record_downsampling_keeps_the_peaks(client: FlaskClient) -> None:
    answer = get(client, "memory-record", "torch_npu_db_level1", "0", max_points=10).get_json()
    assert all(len(rows) <= 10 for rows in answer["series"].values())
    shown = max(row[2] for rows in answer["series"].values() for row in rows if row[2] is not None)
    assert shown == pytest.approx(answer["peak_reserved_mb"])


# --- timeline ------------------------------------------------------------------------------------


def _union(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(a, b) for a, b in out]


def _length(intervals: list[tuple[int, int]]) -> int:
    return sum(b - a for a, b in intervals)


def expected_timeline(job: str, rank: str) -> dict[str, Any]:
    path = profiler_db(job, rank)
    python = query(path, "SELECT CAST(startNs AS INTEGER), CAST(endNs AS INTEGER) FROM PYTORCH_API")
    cann = query(path, "SELECT startNs, endNs FROM CANN_API")
    comm_tasks = {r[0] for r in query(path, "SELECT globalTaskId FROM COMMUNICATION_TASK_INFO")}
    tasks = query(path, "SELECT globalTaskId, startNs, endNs, streamId FROM TASK")
    compute = {r[0] for r in query(path, "SELECT globalTaskId FROM COMPUTE_TASK_INFO")}
    ops = query(path, "SELECT startNs, endNs FROM COMMUNICATION_OP")
    computing = _union([(s, e) for g, s, e, _ in tasks if g in compute])
    communication = _union(ops)
    both = _union(computing + communication)
    overlap = sum(max(0, min(b, d) - max(a, c)) for a, b in communication for c, d in computing)
    spans = python + cann + [(s, e) for _, s, e, _ in tasks] + ops
    return {
        "Python": len(python), "CANN": len(cann), "HCCL": len(ops) + len(comm_tasks),
        "Ascend Hardware": len(tasks) - len(comm_tasks), "streams": {st for g, _, _, st in tasks if g not in comm_tasks},
        "Computing": _length(computing), "Communication": _length(communication),
        "Communication(Not Overlapped)": _length(communication) - overlap,
        "Free": _length([(both[i][1], both[i + 1][0]) for i in range(len(both) - 1)]),
        "first_us": min(s for s, _ in spans) / 1000, "last_us": max(e for _, e in spans) / 1000,
    }


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_timeline_lanes_from_the_tables(client: FlaskClient, job: str, rank: str) -> None:
    want = expected_timeline(job, rank)
    summary = client.get(f"{API}/profile/timeline-summary?dir=./{job}&device_id={rank}").get_json()
    assert summary["first_ts_us"] == pytest.approx(want["first_us"], abs=0.5)
    assert summary["last_ts_us"] == pytest.approx(want["last_us"], abs=0.5)
    assert summary["total_time"] == pytest.approx((want["last_us"] - want["first_us"]) / 1000, abs=1e-3)
    events = client.get(f"{API}/profile/timeline?dir=./{job}&device_id={rank}").get_json()
    assert summary["num_of_events"] == len(events)
    processes = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    timed = [e for e in events if e["ph"] == "X"]
    assert summary["op_exe_times"] == len(timed)
    by_process: dict[str, list[dict[str, Any]]] = {}
    for event in timed:
        by_process.setdefault(processes[event["pid"]], []).append(event)
    for process in ("Python", "CANN", "HCCL", "Ascend Hardware"):
        assert len(by_process[process]) == want[process], process
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    hardware = [e for e in by_process["Ascend Hardware"]]
    assert {threads[(e["pid"], e["tid"])] for e in hardware} == {f"Stream {s}" for s in want["streams"]}
    lanes: dict[str, float] = {}
    for event in by_process["Overlap Analysis"]:
        lanes[event["name"]] = lanes.get(event["name"], 0.0) + event["dur"]
    for lane in ("Computing", "Communication", "Communication(Not Overlapped)", "Free"):
        assert lanes.get(lane, 0.0) == pytest.approx(want[lane] / 1000, abs=0.01), lane
    assert [e["ts"] for e in timed] == sorted(e["ts"] for e in timed)


def test_timeline_window_and_longest_events(client: FlaskClient) -> None:
    job, rank = "torch_npu_db_level1", "0"
    every = [e for e in client.get(f"{API}/profile/timeline?dir=./{job}&device_id={rank}").get_json()
             if e["ph"] == "X"]
    first = min(e["ts"] for e in every)
    window = client.get(f"{API}/profile/timeline?dir=./{job}&device_id={rank}&start_us=20000&end_us=30000"
                        "&max_events=50").get_json()
    shown = [e for e in window if e["ph"] == "X"]
    inside = [e for e in every if e["ts"] + e["dur"] >= first + 20000 and e["ts"] <= first + 30000]
    longest = sorted((e["dur"] for e in inside), reverse=True)[:50]
    assert len(shown) == 50 and sorted((e["dur"] for e in shown), reverse=True) == pytest.approx(longest)


def test_no_journal_or_lock_file_beside_the_databases(client: FlaskClient) -> None:
    for job in JOBS:
        for rank in RANKS:
            assert sorted(p.name for p in output(job, rank).iterdir()) == \
                sorted(["analysis.db", f"ascend_pytorch_profiler_{rank}.db"])


# --- documented shapes ---------------------------------------------------------------------------


def _draft4(node: Any) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema Draft 4 (`nullable: true` -> a null type allowed)."""
    if isinstance(node, dict):
        out = {k: _draft4(v) for k, v in node.items() if k != "nullable"}
        if node.get("nullable"):
            if "type" in out:
                out["type"] = [out["type"], "null"]
            else:
                out = {"anyOf": [out, {"type": "null"}]}
        return out
    if isinstance(node, list):
        return [_draft4(v) for v in node]
    return node


def test_answers_match_the_openapi_document(client: FlaskClient) -> None:
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    import yaml

    from tests.conftest import REPO
    spec = yaml.safe_load((REPO / "mindinsight_clone" / "server" / "openapi.yaml").read_text(encoding="utf-8"))
    components = _draft4(spec["components"])

    def check(path: str, method: str, answer: Any) -> None:
        schema = spec["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"]
        validator = jsonschema_rs.Draft4Validator({**_draft4(schema), "components": components})
        errors = [str(e) for e in validator.iter_errors(answer)]
        assert not errors, (path, errors[:3])

    for job in JOBS:
        q = f"train_id=./{job}&profile=profiler"
        for view in ("cluster-step-trace", "advice", "cluster-communication-matrix"):
            check(f"/profile/{view}", "get", client.get(f"{API}/profile/{view}?{q}").get_json())
        check("/profile/compare", "get", client.get(f"{API}/profile/compare?{q}&device_id=0&base_device_id=1").get_json())
        for rank in RANKS:
            for view in ("step-trace-time", "memory-record", "operator-details", "api-statistic", "npu-module-mem",
                         "overview") + (("communication",) if job.endswith("1") else ()):
                check(f"/profile/{view}", "get", client.get(f"{API}/profile/{view}?{q}&device_id={rank}").get_json())
            for op_type in ("aicore_type", "aicore_detail", "aicpu_type", "aicpu_detail"):
                answer = search(client, job, {"op_type": op_type, "device_id": rank,
                                              "group_condition": {"limit": 50, "offset": 0}}).get_json()
                check("/profile/ops/search", "post", answer)
            check("/profile/timeline-summary", "get",
                  client.get(f"{API}/profile/timeline-summary?dir=./{job}&device_id={rank}").get_json())


# --- operator details, API statistics, module memory ----------------------------------------------------------
# The references (tests/ascend_reference.py) are torch_npu's and msprof's own computations; each is first shown to
# reproduce the text export's file from that export's trace_view.json, then judges the database export's answer
# computed from the .db files with sqlite3 here.

ASCEND_TEXT = SHARED / "fixtures" / "ascend"
TEXT_JOBS = {"torch_npu_db_level0": "torch_npu_level0", "torch_npu_db_level1": "torch_npu_level1"}


def text_output(job: str, rank: str) -> Path:
    return ASCEND_TEXT / job / "profiler" / f"rank{rank}_ascend_pt" / "ASCEND_PROFILER_OUTPUT"


def _csv(path: Path) -> list[dict[str, str]]:
    import csv
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("job", list(TEXT_JOBS.values()))
@pytest.mark.parametrize("rank", RANKS)
def test_operator_reference_reproduces_the_text_export(job: str, rank: str) -> None:
    require_shared(ASCEND_TEXT)
    ops, enqueues, dequeues, launches, _ = trace_inputs(text_output(job, rank) / "trace_view.json")
    got = ascend_reference.operator_details(ops, enqueues, dequeues, launches)
    rows = _csv(text_output(job, rank) / "operator_details.csv")
    assert len(got) == len(rows) > 800
    for (payload, *numbers), row in zip(got, rows, strict=True):
        assert payload[0] == row["Name"]
        host = [float(row[f"Host {k} Duration(us)"]) for k in ("Self", "Total")]
        device = [float(row[k]) for k in ("Device Self Duration(us)", "Device Total Duration(us)",
                                          "Device Self Duration With AICore(us)",
                                          "Device Total Duration With AICore(us)")]
        assert numbers[:2] == pytest.approx(host, abs=0.003)  # trace_view.json rounds durations to 10 ns
        assert numbers[2:] == pytest.approx(device, abs=1e-6)


@pytest.mark.parametrize("rank", RANKS)
def test_api_reference_reproduces_the_text_export(rank: str) -> None:
    require_shared(ASCEND_TEXT)
    out = text_output("torch_npu_level1", rank)
    *_, apis = trace_inputs(out / "trace_view.json")
    rows = _csv(out / "api_statistic.csv")
    assert len(rows) == len(apis) > 50
    for row in rows:
        want = [row["Level"], row["API Name"], float(row["Time(us)"]), int(row["Count"]), float(row["Avg(us)"]),
                float(row["Min(us)"]), float(row["Max(us)"]), float(row["Variance"])]
        assert ascend_reference.api_statistic_row(row["Level"], row["API Name"],
                                                  apis[(row["API Name"], row["Level"])]) == want


def operator_inputs(job: str, rank: str) -> tuple[list[Any], list[Any], list[Any], dict[int, list[Any]]]:
    """The reference's inputs from the database with SQL: operators (PYTORCH_API type op), the task queue, and per
    CANN_API launch its first device task (compute kernel, MEMCPY_ASYNC task or communication op)."""
    path = profiler_db(job, rank)
    text = dict(query(path, "SELECT id, value FROM STRING_IDS"))
    crossed = query(path, "SELECT COUNT(*) FROM PYTORCH_API p JOIN STRING_IDS s ON s.id = p.inputShapes "
                          "WHERE p.type = 50001 AND s.value GLOB '*[a-z]*'")[0][0] > 0
    assert crossed, "the fixture's torch_npu wrote inputShapes and inputDtypes crossed (fixed in 2024-11)"
    stacks: dict[int, list[str]] = {}
    for chain, stack in query(path, "SELECT id, stack FROM PYTORCH_CALLCHAINS ORDER BY id, stackDepth"):
        stacks.setdefault(chain, []).append(text[stack])
    ops = [(int(s), int(e), tid, (text[name], text.get(shapes, "").strip(), ";\r\n".join(stacks.get(chain, []))))
           for s, e, tid, name, shapes, chain in query(
               path, "SELECT startNs, endNs, globalTid, name, inputDtypes, callchainId FROM PYTORCH_API "
                     "WHERE type = 50001 ORDER BY rowid")]
    corr = dict(query(path, "SELECT id, connectionId FROM CONNECTION_IDS"))
    queue = query(path, "SELECT CAST(startNs AS INTEGER), CAST(endNs AS INTEGER), globalTid, connectionId, name "
                        "FROM PYTORCH_API WHERE type = 50002 ORDER BY rowid")
    enqueues = [(s, tid, corr[c]) for s, _, tid, c, n in queue if text[n].startswith("Enqueue")]
    dequeues = sorted((s, e, corr[c]) for s, e, _, c, n in queue if text[n].startswith("Dequeue"))
    comm_tasks = {r[0] for r in query(path, "SELECT globalTaskId FROM COMMUNICATION_TASK_INFO")}
    cores = dict(query(path, "SELECT globalTaskId, taskType FROM COMPUTE_TASK_INFO"))
    candidates: dict[int, list[tuple[int, float, bool | None]]] = {}
    for gid, conn, start, end, kind in query(path, "SELECT globalTaskId, connectionId, startNs, endNs, taskType "
                                                   "FROM TASK WHERE connectionId IS NOT NULL"):
        if gid in comm_tasks:
            continue
        if gid in cores:
            core = text[cores[gid]]
            ai = None if core == "N/A" else core in ("AI_CORE", "AI_VECTOR_CORE")
            candidates.setdefault(conn, []).append((start, (end - start) / 1000, ai))
        elif text[kind] == "MEMCPY_ASYNC":
            candidates.setdefault(conn, []).append((start, (end - start) / 1000, False))
    for conn, start, end in query(path, "SELECT connectionId, startNs, endNs FROM COMMUNICATION_OP"):
        candidates.setdefault(conn, []).append((start, (end - start) / 1000, False))
    launches: dict[int, list[Any]] = {}
    for start, conn in query(path, "SELECT startNs, connectionId FROM CANN_API"):
        if conn in candidates:
            first = min(candidates[conn], key=lambda c: c[0])
            launches.setdefault(start, []).append(first[1:])
    return ops, enqueues, dequeues, launches


def _rounded(row: Sequence[Any]) -> tuple[Any, ...]:
    """Comparable and sortable: floats to the ns, None (unknown) as -1."""
    return tuple(round(v, 3) if isinstance(v, float) else -1 if v is None else v for v in row)


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_operator_details_from_pytorch_api(client: FlaskClient, job: str, rank: str) -> None:
    expected = ascend_reference.operator_details(*operator_inputs(job, rank))
    answer = get(client, "operator-details", job, rank, limit=1000).get_json()
    assert answer["source"] == f"PYTORCH_API in ascend_pytorch_profiler_{rank}.db"
    assert answer["col_name"] == ["name", "input_shapes", "call_stack", "host_self_us", "host_total_us",
                                  "device_self_us", "device_total_us", "device_self_aicore_us",
                                  "device_total_aicore_us"]
    assert answer["size"] == len(answer["object"]) == len(expected) > 800
    want = sorted(_rounded([*payload, *numbers]) for payload, *numbers in expected)
    assert sorted(_rounded(row) for row in answer["object"]) == want
    devices = [row[6] for row in answer["object"]]
    assert devices == sorted(devices, reverse=True)  # default: device total, largest first
    unknown = sum(e[-1] is None for e in expected)
    if job.endswith("level0"):  # Level0 records no kernel core: the AI Core share is unknown, and said so
        assert unknown > 0 and f"{unknown} operator(s)" in answer["problems"][0]["message"]
    else:
        assert unknown == 0 and "problems" not in answer
        assert any(row[7] for row in answer["object"]) and any(row[2] for row in answer["object"])


def test_operator_details_search_sort_page(client: FlaskClient) -> None:
    expected = ascend_reference.operator_details(*operator_inputs("torch_npu_db_level1", "1"))
    hits = sorted((e for e in expected if "conv" in e[0][0].lower()), key=lambda e: e[1])
    page = get(client, "operator-details", "torch_npu_db_level1", "1", search="Conv", sort_name="host_self_us",
               sort_type="ascending", limit=5, offset=1).get_json()
    assert page["size"] == len(hits) > 10
    assert [row[3] for row in page["object"]] == pytest.approx([e[1] for e in hits[5:10]])


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_api_statistic_aggregates_cann_api(client: FlaskClient, job: str, rank: str) -> None:
    durations: dict[tuple[str, str], list[float]] = {}
    for level, name, start, end in query(profiler_db(job, rank), "SELECT e.name, s.value, c.startNs, c.endNs FROM "
                                         "CANN_API c JOIN ENUM_API_TYPE e ON e.id = c.type "
                                         "JOIN STRING_IDS s ON s.id = c.name"):
        durations.setdefault((level, name), []).append((end - start) / 1000)
    answer = get(client, "api-statistic", job, rank, limit=1000).get_json()
    assert "problems" not in answer and answer["source"] == f"CANN_API in ascend_pytorch_profiler_{rank}.db"
    assert answer["size"] == len(durations) > 50
    want = {k: ascend_reference.api_statistic_row(*k, v) for k, v in durations.items()}
    assert {(r[0], r[1]): r for r in answer["object"]} == want
    assert [r[2] for r in answer["object"]] == sorted((r[2] for r in want.values()), reverse=True)


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_npu_module_mem_from_the_table(client: FlaskClient, job: str, rank: str) -> None:
    rows = query(profiler_db(job, rank), "SELECT e.name, m.timestampNs, m.totalReserved FROM NPU_MODULE_MEM m "
                                         "JOIN ENUM_MODULE e ON e.id = m.moduleId")
    per: dict[str, list[tuple[int, float]]] = {}
    for name, ts, reserved in rows:
        per.setdefault(name, []).append((ts, reserved / MB))
    answer = get(client, "npu-module-mem", job, rank, max_points=100000).get_json()
    assert "problems" not in answer and answer["source"] == f"NPU_MODULE_MEM in ascend_pytorch_profiler_{rank}.db"
    got = {c["component"]: c for c in answer["components"]}
    assert set(got) == set(per) and len(per) > 50
    for name, points in per.items():
        assert got[name]["points"] == len(points)
        assert got[name]["peak_reserved_mb"] == pytest.approx(max(v for _, v in points))
        assert got[name]["series"] == [[pytest.approx(ts / 1000, abs=0.5), pytest.approx(v)]
                                       for ts, v in sorted(points)]
    assert [c["component"] for c in answer["components"]] == sorted(per, key=lambda c: (-max(v for _, v in per[c]),
                                                                                         c))
    assert got["APP"]["peak_reserved_mb"] > 1000  # MB (bytes / 2^20), as npu_module_mem.csv writes it


@pytest.mark.parametrize("rank", RANKS)
def test_level0_answers_as_the_text_export_of_level0(client: FlaskClient, rank: str) -> None:
    """Level0 records no operator type or core: the database answers "N/A" where the text export of Level0 does."""
    require_shared(ASCEND_TEXT)
    kernels = _csv(text_output("torch_npu_level0", rank) / "kernel_details.csv")
    text_types = {(r["Type"], r["Accelerator Core"]) for r in kernels if r["Accelerator Core"] != "HCCL"}
    answer = search(client, "torch_npu_db_level0", {"op_type": "aicore_type", "device_id": rank}).get_json()
    cols = answer["col_name"]
    assert {(r[0], r[cols.index("core_type")]) for r in answer["object"]} == text_types == {("N/A", "N/A")}


# --- compare, overview, advice, the all-ranks matrix ----------------------------------------------------------


def op_type_totals(job: str, rank: str) -> dict[str, tuple[int, float]]:
    """op type -> (kernels, total µs), cores summed, communication left out (what op_statistic.csv sums)."""
    rows = query(profiler_db(job, rank), "SELECT o.value, COUNT(*), SUM(t.endNs - t.startNs) FROM COMPUTE_TASK_INFO c "
                                         "JOIN TASK t ON t.globalTaskId = c.globalTaskId "
                                         "JOIN STRING_IDS o ON o.id = c.opType GROUP BY o.value")
    return {name: (count, total / 1000) for name, count, total in rows}


def step_means(job: str, rank: str) -> dict[str, float]:
    steps = expected_steps(job, rank)
    return {k: statistics.fmean(s[k] for s in steps) for k in STEP_COLUMNS}


@pytest.mark.parametrize("job", JOBS)
def test_compare_two_database_ranks(client: FlaskClient, job: str) -> None:
    answer = get(client, "compare", job, "0", base_device_id="1").get_json()
    assert "problems" not in answer
    mine, base = op_type_totals(job, "0"), op_type_totals(job, "1")
    want = {t: (mine.get(t, (0, 0.0)), base.get(t, (0, 0.0))) for t in set(mine) | set(base)}
    assert {r["op_type"] for r in answer["op_types"]} == set(want)
    for row in answer["op_types"]:
        (count, total), (base_count, base_total) = want[row["op_type"]]
        assert (row["count"], row["base_count"]) == (count, base_count)
        assert (row["total_us"], row["base_total_us"]) == pytest.approx((total, base_total), abs=1e-3)
        assert row["diff_us"] == pytest.approx(total - base_total, abs=2e-3)
    diffs = [abs(r["diff_us"]) for r in answer["op_types"]]
    assert diffs == sorted(diffs, reverse=True)
    a, b = step_means(job, "0"), step_means(job, "1")
    for key in STEP_COLUMNS:
        assert answer["steps"][key] == {"value": pytest.approx(a[key]), "base": pytest.approx(b[key]),
                                        "diff": pytest.approx(a[key] - b[key], abs=1e-3)}
    total = [sum(m[k] for k in ("computing_us", "communication_not_overlapped_us", "free_us")) for m in (a, b)]
    assert answer["steps"]["step_total_us"]["value"] == pytest.approx(total[0])
    assert answer["steps"]["step_count"] == {"value": 1, "base": 1, "diff": 0}


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_overview_of_a_database_rank(client: FlaskClient, job: str, rank: str) -> None:
    answer = get(client, "overview", job, rank).get_json()
    assert "problems" not in answer and answer["device_type"] == "ascend"
    means = step_means(job, rank)
    step = sum(means[k] for k in ("computing_us", "communication_not_overlapped_us", "free_us"))
    assert answer["step_count"] == 1 and answer["avg_step_time_us"] == pytest.approx(step, abs=1e-3)
    assert answer["steps"][0]["compute_us"] == pytest.approx(means["computing_us"])
    types = op_type_totals(job, rank)
    assert answer["op_total_time_us"] == pytest.approx(sum(t for _, t in types.values()), abs=1e-2)
    top = sorted(types.items(), key=lambda kv: (-kv[1][1], kv[0]))[:5]
    assert [(t["op_type"], t["occurrences"]) for t in answer["top_op_types"]] == [(n, c) for n, (c, _) in top]
    path = profiler_db(job, rank)
    reserved = query(path, "SELECT MAX(totalReserved) FROM MEMORY_RECORD")[0][0]
    app = query(path, "SELECT MAX(n.hbm) FROM NPU_MEM n JOIN STRING_IDS s ON s.id = n.type WHERE s.value = 'app'")
    allocated = query(path, "SELECT MAX(totalAllocated) FROM MEMORY_RECORD")[0][0]
    assert answer["memory"] == {"peak_reserved_bytes": max(reserved, app[0][0]), "peak_allocated_bytes": allocated,
                                "peak_active_bytes": None}
    assert ("free_time" in [h["code"] for h in answer["hints"]]) == (means["free_us"] / step > 0.1)


def idle_gaps(path: Path) -> tuple[float, float]:
    """msprof-analyze's idle computation over the kernel table (compute kernels and communication ops): the gaps
    of 1 ms or more between a start and the latest end before it, as a share of the busy span; the longest (ns)."""
    spans = sorted(query(path, "SELECT t.startNs, t.endNs FROM COMPUTE_TASK_INFO c JOIN TASK t "
                               "ON t.globalTaskId = c.globalTaskId UNION ALL SELECT startNs, endNs FROM COMMUNICATION_OP"))
    latest, gaps, longest = spans[0][1], 0, 0
    for start, end in spans[1:]:
        if start - latest >= 1_000_000:
            gaps += start - latest
        longest = max(longest, start - latest)
        latest = max(latest, end)
    return gaps / (latest - spans[0][0]), longest


def link_gbps(paths: list[Path]) -> dict[tuple[int, int, str], float]:
    """src→dst bandwidth over every rank's `*-total` matrix entries (LOCAL and self links left out)."""
    sums: dict[tuple[int, int, str], list[float]] = {}
    for path in paths:
        for src, dst, link, size, time_ms in query(path, "SELECT src_rank, dst_rank, "
                                                   "transport_type, transit_size, transit_time FROM CommAnalyzerMatrix "
                                                   "WHERE hccl_op_name LIKE '%-total'"):
            if link != "LOCAL" and src != dst:
                acc = sums.setdefault((int(src), int(dst), link), [0.0, 0.0])
                acc[0] += size
                acc[1] += time_ms
    return {k: s / t for k, (s, t) in sums.items() if s > 0 and t > 0}


def rank_gbps(path: Path) -> dict[str, float]:
    """A rank's bandwidth per link type with a typical value: transit size / time summed over its operators."""
    sums: dict[str, list[float]] = {}
    for link, size, time_ms in query(path, "SELECT transport_type, transit_size, transit_time FROM "
                                     "CommAnalyzerBandwidth GROUP BY hccl_op_name, transport_type"):
        if link in ("HCCS", "PCIE", "RDMA") and size > 0:
            acc = sums.setdefault(link, [0.0, 0.0])
            acc[0] += size
            acc[1] += time_ms
    return {k: s / t for k, (s, t) in sums.items()}


@pytest.mark.parametrize("job", JOBS)
def test_advice_runs_every_rule_on_the_database(client: FlaskClient, job: str) -> None:
    answer = get(client, "advice", job).get_json()
    assert "problems" not in answer
    rules = {r["id"]: r for r in answer["rules"]}
    findings = {f["id"]: f for f in answer["findings"]}
    level1 = job.endswith("level1")
    for rule_id in ("slow_rank_step", "free_time", "aicpu", "dispatch_gap", "slow_link", "low_bandwidth"):
        if rule_id in ("slow_link", "low_bandwidth") and not level1:
            assert rules[rule_id]["status"] == "no_data"
            assert "CommAnalyzer" in rules[rule_id]["message"] and "Level1" in rules[rule_id]["message"]
            continue
        assert rules[rule_id]["ranks_checked"] == [0, 1], rule_id
        assert rules[rule_id]["status"] == ("found" if rule_id in findings else "ok"), rule_id
    assert rules["slow_rank_vote"]["status"] == "no_data"
    assert rules["slow_rank_vote"]["message"] == "needs CommAnalyzerTime of three ranks or more"
    # each rule's outcome, computed here from the tables
    free = {}
    for rank in RANKS:
        m = step_means(job, rank)
        step = m["computing_us"] + m["communication_not_overlapped_us"] + m["free_us"]
        if m["free_us"] / step > 0.1:
            free[int(rank)] = round(m["free_us"] / step, 4)
    assert {r["rank_id"]: r["share"] for r in findings["free_time"]["evidence"]["rows"]} == free and free
    aicpu = [query(profiler_db(job, r), "SELECT COUNT(*) FROM COMPUTE_TASK_INFO c JOIN STRING_IDS s "
                                        "ON s.id = c.taskType WHERE s.value = 'AI_CPU'")[0][0] for r in RANKS]
    assert ("aicpu" in findings) == any(aicpu)
    gaps = {int(r): idle_gaps(profiler_db(job, r))[0] for r in RANKS}
    assert ("dispatch_gap" in findings) == any(share > 0.1 for share in gaps.values())
    if level1:
        links = link_gbps([analysis_db(job, r) for r in RANKS])
        means = {t: statistics.fmean(v for (_, _, k), v in links.items() if k == t) for _, _, t in links}
        slow = [k for k, v in links.items() if v < 0.8 * means[k[2]]]
        assert ("slow_link" in findings) == bool(slow) and len(links) > 4
        typical = {"HCCS": 18.0, "PCIE": 20.0, "RDMA": 12.5}
        low = [(r, t) for r in RANKS for t, v in rank_gbps(analysis_db(job, r)).items() if v < 0.8 * typical[t]]
        assert ("low_bandwidth" in findings) == bool(low) and rank_gbps(analysis_db(job, "0"))


@pytest.mark.parametrize("job", JOBS)
def test_cluster_matrix_puts_the_database_ranks_together(client: FlaskClient, job: str) -> None:
    answer = get(client, "cluster-communication-matrix", job).get_json()
    assert "problems" not in answer
    if job.endswith("level0"):  # no CommAnalyzerMatrix at Level0: answered as a text job without matrices
        assert answer == {"ranks_read": [], "groups": [], "group": None, "op": None, "cells": []}
        return
    sizes: dict[str, float] = {}
    cells: dict[tuple[int, int], list[float]] = {}
    rows = [r for rank in RANKS for r in query(analysis_db(job, rank), "SELECT hccl_op_name, group_name, src_rank, "
                                                "dst_rank, transit_size, transit_time FROM CommAnalyzerMatrix")]
    for op, _, _, _, size, _ in rows:
        sizes[op] = sizes.get(op, 0.0) + size
    op = max(sorted(o for o in sizes if o.endswith("-total")), key=lambda o: sizes[o])
    for name, _, src, dst, size, time_ms in rows:
        if name == op:
            acc = cells.setdefault((int(src), int(dst)), [0.0, 0.0])
            acc[0] += size
            acc[1] += time_ms
    assert answer["ranks_read"] == [0, 1] and answer["op"] == op and len({r[1] for r in rows}) == 1
    assert {(c["src"], c["dst"]): (c["size_mb"], c["time_ms"], c["gbps"]) for c in answer["cells"]} == {
        k: (pytest.approx(s), pytest.approx(t), pytest.approx(round(s / t, 4))) for k, (s, t) in cells.items()}
