"""Ascend profiler endpoints through create_app over the real Ascend output in ../shared/fixtures/ascend (2 ranks,
Level0 and Level1), read in place. Every expected number is computed here from the raw files with `csv` / `json`,
never with the code under test. The MindSpore-flavour and broken-input tests are in test_ascend_flavours.py.
"""

from __future__ import annotations

import csv
import json
import shutil
import statistics
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import FIXTURES, SHARED, require_shared

API = "/v1/mindinsight"
ASCEND = SHARED / "fixtures" / "ascend"
CLUSTER_REFERENCE = SHARED / "reference" / "ascend" / "cluster_analysis_output"
JOBS = ["torch_npu_level0", "torch_npu_level1"]
RANKS = ["0", "1"]
STEP_FIELDS = {
    "computing_us": "Computing", "communication_not_overlapped_us": "Communication(Not Overlapped)",
    "overlapped_us": "Overlapped", "communication_us": "Communication", "free_us": "Free", "stage_us": "Stage",
    "bubble_us": "Bubble",
    "communication_not_overlapped_exclude_receive_us": "Communication(Not Overlapped and Exclude Receive)",
    "preparing_us": "Preparing",
}


def make_client(base: Path, tmp_path: Path) -> FlaskClient:
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app.test_client()


@pytest.fixture
def client(tmp_path: Path) -> FlaskClient:
    require_shared(ASCEND)
    return make_client(ASCEND, tmp_path)


def output(job: str, rank: str, base: Path = ASCEND) -> Path:
    return next((base / job / "profiler").glob(f"**/profiler_info_{rank}.json")).parent / "ASCEND_PROFILER_OUTPUT"


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return [{k.strip(): (v or "").strip() for k, v in row.items()} for row in csv.DictReader(handle)]


def get(client: FlaskClient, endpoint: str, job: str, rank: str | None = None, **extra: Any) -> Any:
    query = f"train_id=./{job}&profile=profiler" + (f"&device_id={rank}" if rank is not None else "")
    query += "".join(f"&{k}={v}" for k, v in extra.items())
    return client.get(f"{API}/profile/{endpoint}?{query}")


def search(client: FlaskClient, job: str, body: dict[str, Any]) -> Any:
    return client.post(f"{API}/profile/ops/search?train_id=./{job}&profile=profiler", data=json.dumps(body), content_type="application/json")


def num(text: str) -> float | None:
    return None if text in ("", "N/A") else float(text)


# --- discovery ---------------------------------------------------------------------------------


@pytest.mark.parametrize("job", JOBS)
def test_devices_list_both_ranks(client: FlaskClient, job: str) -> None:
    answer = get(client, "devices", job).get_json()
    assert answer["device_list"] == RANKS


def test_train_jobs_say_ascend(client: FlaskClient) -> None:
    jobs = client.get(f"{API}/datavisual/train-jobs?offset=0&limit=10").get_json()["train_jobs"]
    assert {j["train_id"]: j["profiler_type"] for j in jobs} == {f"./{j}": "ascend" for j in JOBS}
    dirs = client.get(f"{API}/profile/dirs?train_id=./torch_npu_level1").get_json()["profilers"]
    assert dirs[0]["device_type"] == "ascend" and dirs[0]["device_list"] == RANKS


# --- step trace ---------------------------------------------------------------------------------


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_step_trace_time_matches_the_file(client: FlaskClient, job: str, rank: str) -> None:
    rows = read_csv(output(job, rank) / "step_trace_time.csv")
    answer = get(client, "step-trace-time", job, rank).get_json()
    assert "problems" not in answer
    assert len(answer["steps"]) == len(rows) == 1
    for step, row in zip(answer["steps"], rows, strict=True):
        assert step["step"] == int(row["Step"])
        for key, header in STEP_FIELDS.items():
            assert step[key] == pytest.approx(float(row[header])), key
        # the README's formulas hold on what we answer
        assert step["overlapped_us"] == pytest.approx(step["communication_us"] - step["communication_not_overlapped_us"])


@pytest.mark.parametrize("job", JOBS)
def test_cluster_step_trace_averages_and_slow_ranks(client: FlaskClient, job: str) -> None:
    answer = get(client, "cluster-step-trace", job).get_json()
    per_rank: dict[int, dict[str, float]] = {}
    for rank in RANKS:
        rows = read_csv(output(job, rank) / "step_trace_time.csv")
        per_rank[int(rank)] = {k: sum(float(r[h]) for r in rows) / len(rows) for k, h in STEP_FIELDS.items()}
    assert [r["rank_id"] for r in answer["ranks"]] == [0, 1]
    for rank in answer["ranks"]:
        for key in STEP_FIELDS:
            assert rank[key] == pytest.approx(per_rank[rank["rank_id"]][key])
    # the documented rule (docs/profiler.md), evaluated here on the raw numbers: no stage information in these
    # files, so every rank is a peer of the other; a rank is slow when its step time (the three phases) is more
    # than 5 % above the peers' median, in the phase furthest above that phase's median
    phases = ("computing_us", "communication_not_overlapped_us", "free_us")
    totals = {r: sum(v[p] for p in phases) for r, v in per_rank.items()}
    median_total = statistics.median(totals.values())
    expected = []
    for r, v in per_rank.items():
        if totals[r] > median_total * 1.05:
            excess = {p: v[p] - statistics.median(w[p] for w in per_rank.values()) for p in phases}
            phase = max(phases, key=excess.__getitem__)
            expected.append((r, phase[:-3], excess[phase] / statistics.median(w[phase] for w in per_rank.values())))
    assert [(s["rank_id"], s["phase"]) for s in answer["slow_ranks"]] == [(r, p) for r, p, _ in expected]
    for slow, (_, _, deviation) in zip(answer["slow_ranks"], expected, strict=True):
        assert slow["deviation"] == pytest.approx(deviation, abs=1e-4)
    assert answer["peers"] == {"source": "all ranks", "groups": [[0, 1]]}
    if job == "torch_npu_level0":  # 116.3 vs 100.6 ms a step, 81.5 vs 64.6 ms of it exposed communication
        assert [(s["rank_id"], s["phase"]) for s in answer["slow_ranks"]] == [(0, "communication_not_overlapped")]
    else:  # 136.6 vs 131.9 ms: within 5 % of the median, so no rank is slow
        assert answer["slow_ranks"] == []


# --- operators ------------------------------------------------------------------------------------


def _expected_types(job: str, rank: str) -> list[list[Any]]:
    out = output(job, rank)
    if (out / "op_statistic.csv").exists():
        return [[r["OP Type"], int(r["Count"]), float(r["Total Time(us)"]), float(r["Min Time(us)"]),
                 float(r["Avg Time(us)"]), float(r["Max Time(us)"]), float(r["Ratio(%)"]), r["Core Type"]]
                for r in read_csv(out / "op_statistic.csv") if r["Core Type"] != "AI_CPU"]
    groups: dict[tuple[str, str], list[float]] = {}
    kernels = [r for r in read_csv(out / "kernel_details.csv") if r["Accelerator Core"] != "HCCL"]
    for r in kernels:
        if r["Accelerator Core"] != "AI_CPU":
            groups.setdefault((r["Type"], r["Accelerator Core"]), []).append(float(r["Duration(us)"]))
    grand = sum(float(r["Duration(us)"]) for r in kernels)
    return [[t, len(v), round(sum(v), 3), min(v), round(sum(v) / len(v), 3), max(v), round(sum(v) / grand * 100, 3),
             core] for (t, core), v in groups.items()]


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_aicore_type_matches_op_statistic_or_kernel_aggregation(client: FlaskClient, job: str, rank: str) -> None:
    expected = _expected_types(job, rank)
    answer = search(client, job, {"op_type": "aicore_type", "device_id": rank}).get_json()
    cols = answer["col_name"]
    assert cols[:4] == ["op_type", "execution_time", "execution_frequency", "percent"]
    assert answer["size"] == len(expected) == len(answer["object"])
    assert answer["source"] == ("op_statistic.csv" if job.endswith("1") else "kernel_details.csv")
    got = {(row[0], row[cols.index("core_type")]): dict(zip(cols, row, strict=True)) for row in answer["object"]}
    for op_type, count, total, low, avg, high, ratio, core in expected:
        row = got[(op_type, core)]
        assert row["execution_frequency"] == count
        assert row["total_time_us"] == pytest.approx(total)
        assert row["execution_time"] == pytest.approx(total / 1000, rel=1e-3)
        assert (row["min_time_us"], row["max_time_us"]) == (pytest.approx(low), pytest.approx(high))
        assert row["avg_time_us"] == pytest.approx(avg)
        assert row["percent"] == pytest.approx(ratio)


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_aicore_detail_sort_search_and_paging(client: FlaskClient, job: str, rank: str) -> None:
    rows = [r for r in read_csv(output(job, rank) / "kernel_details.csv") if r["Accelerator Core"] != "AI_CPU"]
    body: dict[str, Any] = {"op_type": "aicore_detail", "device_id": rank,
                            "sort_condition": {"name": "duration_us", "type": "descending"},
                            "group_condition": {"limit": 10, "offset": 1}}
    answer = search(client, job, body).get_json()
    cols = answer["col_name"]
    assert answer["size"] == len(rows)
    by_duration = sorted(rows, key=lambda r: -float(r["Duration(us)"]))  # stable, like the API
    page = by_duration[10:20]
    assert [r[cols.index("op_name")] for r in answer["object"]] == [r["Name"] for r in page]
    for got, raw in zip(answer["object"], page, strict=True):
        row = dict(zip(cols, got, strict=True))
        assert row["duration_us"] == pytest.approx(float(raw["Duration(us)"]))
        assert row["avg_execution_time"] == pytest.approx(float(raw["Duration(us)"]) / 1000)
        assert row["wait_time_us"] == pytest.approx(float(raw["Wait Time(us)"]))
        assert row["start_time_us"] == pytest.approx(float(raw["Start Time(us)"]), abs=0.5)
        assert row["op_type"] == raw["Type"] and row["core_type"] == raw["Accelerator Core"]
        assert row["step_id"] == int(raw["Step Id"])
        assert row["input_shapes"] == raw.get("Input Shapes", "").strip('"')  # torch_npu quotes it: shown without
        assert raw.get("Input Shapes", "") in ("", "N/A") or raw["Input Shapes"].startswith('"')
    # search: case-insensitive substring on op_name, ascending by name
    body = {"op_type": "aicore_detail", "device_id": rank,
            "filter_condition": {"op_name": {"partial_match_str_in": ["TRANSDATA"]}},
            "sort_condition": {"name": "op_name", "type": "ascending"}, "group_condition": {"limit": 5, "offset": 0}}
    answer = search(client, job, body).get_json()
    matching = sorted(r["Name"] for r in rows if "transdata" in r["Name"].lower())
    assert answer["size"] == len(matching) > 0
    assert [r[0] for r in answer["object"]] == matching[:5]
    # filter by type (exact), not_in
    some_type = rows[0]["Type"]
    body = {"op_type": "aicore_detail", "device_id": rank, "filter_condition": {"op_type": {"not_in": [some_type]}}}
    assert search(client, job, body).get_json()["size"] == sum(r["Type"] != some_type for r in rows)


def test_aicpu_tables_are_empty_without_ai_cpu_kernels(client: FlaskClient) -> None:
    for op_type in ("aicpu_type", "aicpu_detail"):
        answer = search(client, "torch_npu_level1", {"op_type": op_type, "device_id": "0"}).get_json()
        assert answer["size"] == 0 and answer["object"] == []


def test_ops_search_rejects_unknown_sort_column(client: FlaskClient) -> None:
    body = {"op_type": "aicore_detail", "device_id": "0", "sort_condition": {"name": "nope"}}
    response = search(client, "torch_npu_level1", body)
    assert response.status_code == 400 and response.get_json()["error_code"] == "50546185"


# --- communication ----------------------------------------------------------------------------------


@pytest.mark.parametrize("rank", RANKS)
def test_communication_matches_the_json_files(client: FlaskClient, rank: str) -> None:
    out = output("torch_npu_level1", rank)
    raw = json.loads((out / "communication.json").read_text())
    matrix = json.loads((out / "communication_matrix.json").read_text())
    answer = get(client, "communication", "torch_npu_level1", rank).get_json()
    expected_ops = [(step, key, info) for step, kinds in raw.items() for entries in kinds.values()
                    for key, info in entries.items() if key != "Total Op Info"]
    assert len(answer["ops"]) == len(expected_ops) == 4
    for op, (step, key, info) in zip(answer["ops"], expected_ops, strict=True):
        times = info["Communication Time Info"]
        assert f"{op['name']}@{op['group']}" == key and op["step"] == int(step[4:])
        assert op["elapse_time_ms"] == times["Elapse Time(ms)"]
        assert op["transit_time_ms"] == times["Transit Time(ms)"]
        assert op["wait_time_ms"] == times["Wait Time(ms)"]
        assert op["synchronization_time_ms"] == times["Synchronization Time(ms)"]
        assert op["idle_time_ms"] == times["Idle Time(ms)"]
        assert op["wait_time_ratio"] == times["Wait Time Ratio"]
        assert op["synchronization_time_ratio"] == times["Synchronization Time Ratio"]
        links = info["Communication Bandwidth Info"]
        assert set(op["bandwidth"]) == set(links)
        for link, values in links.items():
            packets = sum(entry[0] for entry in values["Size Distribution"].values())
            assert op["bandwidth"][link] == {"size_mb": values["Transit Size(MB)"], "time_ms": values["Transit Time(ms)"],
                                             "gbps": values["Bandwidth(GB/s)"],
                                             "large_packet_ratio": values["Large Packet Ratio"], "packets": packets}
    assert [t["name"] for t in answer["totals"]] == ["Total Op Info"]
    cells = [(key.split("@")[0], pair, link) for kinds in matrix.values() for entries in kinds.values()
             for key, links in entries.items() for pair, link in links.items()]
    assert len(answer["matrix"]) == len(cells)
    for cell, (op, pair, link) in zip(answer["matrix"], cells, strict=True):
        assert (cell["op"], f"{cell['src']}-{cell['dst']}") == (op, pair)
        assert (cell["transport"], cell["size_mb"], cell["time_ms"], cell["gbps"]) == (
            link["Transport Type"], link["Transit Size(MB)"], link["Transit Time(ms)"], link["Bandwidth(GB/s)"])
    assert {c["src"] for c in answer["matrix"]} == {int(rank)}


def test_communication_missing_at_level0_says_why(client: FlaskClient) -> None:
    response = get(client, "communication", "torch_npu_level0", "1")
    assert response.status_code == 400
    body = response.get_json()
    assert body["error_code"] == "50546084"
    assert "communication.json of rank 1" in body["error_msg"] and "Level1" in body["error_msg"]
    # every other view of that rank still answers
    assert get(client, "step-trace-time", "torch_npu_level0", "1").status_code == 200
    assert get(client, "memory-record", "torch_npu_level0", "1").status_code == 200


# --- memory --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("job", JOBS)
@pytest.mark.parametrize("rank", RANKS)
def test_memory_record_peaks_series_and_top_operators(client: FlaskClient, job: str, rank: str) -> None:
    out = output(job, rank)
    rows = read_csv(out / "memory_record.csv")
    answer = get(client, "memory-record", job, rank, max_points=10_000).get_json()
    reserved = [float(r["Total Reserved(MB)"]) for r in rows if r["Total Reserved(MB)"]]
    allocated = [float(r["Total Allocated(MB)"]) for r in rows if r["Total Allocated(MB)"]]
    assert answer["peak_reserved_mb"] == max(reserved)
    assert answer["peak_allocated_mb"] == max(allocated)
    components = {r["Component"] for r in rows}
    assert set(answer["series"]) == components
    for component in components:
        mine = sorted((r for r in rows if r["Component"] == component), key=lambda r: float(r["Timestamp(us)"]))
        series = answer["series"][component]
        assert len(series) == answer["points"][component] == len(mine)
        for point, row in zip(series, mine, strict=True):
            assert point[0] == pytest.approx(float(row["Timestamp(us)"]), abs=0.5)
            assert point[1:] == [num(row["Total Allocated(MB)"]), num(row["Total Reserved(MB)"]),
                                 num(row["Total Active(MB)"])]
    ops = read_csv(out / "operator_memory.csv")
    top = sorted(ops, key=lambda r: -float(r["Size(KB)"]))[:20]
    assert [(o["name"], o["size_kb"]) for o in answer["top_operators"]] == [(r["Name"], float(r["Size(KB)"])) for r in top]
    assert answer["operator_count"] == len(ops)


def test_memory_record_downsampling_keeps_the_peaks(client: FlaskClient) -> None:
    full = get(client, "memory-record", "torch_npu_level1", "0", max_points=10_000).get_json()
    small = get(client, "memory-record", "torch_npu_level1", "0", max_points=10).get_json()
    assert small["peak_reserved_mb"] == full["peak_reserved_mb"]
    for component, series in small["series"].items():
        assert len(series) <= 10
        for col in (1, 2):
            values = [p[col] for p in full["series"][component] if p[col] is not None]
            if values:
                assert max(p[col] for p in series if p[col] is not None) == max(values)
        assert [p[0] for p in series] == sorted(p[0] for p in series)


# --- timeline --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("job", JOBS)
def test_timeline_from_trace_view(client: FlaskClient, job: str) -> None:
    events = json.loads((output(job, "1") / "trace_view.json").read_text())
    summary = client.get(f"{API}/profile/timeline-summary?dir=./{job}&device_id=1").get_json()
    assert summary["num_of_events"] == len(events)
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    first = min(float(e["ts"]) for e in timed)
    assert summary["first_ts_us"] == pytest.approx(first, abs=0.01)
    answer = client.get(f"{API}/profile/timeline?dir=./{job}&device_id=1").get_json()
    assert len(answer) == len(events)
    lanes = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    assert {"Ascend Hardware", "HCCL", "Overlap Analysis"} <= lanes
    assert lanes == {e["args"]["name"] for e in answer if e["ph"] == "M" and e["name"] == "process_name"}
    # windowing: the 10 longest complete events of the first 20 ms
    window = client.get(f"{API}/profile/timeline?dir=./{job}&device_id=1&start_us=0&end_us=20000&max_events=10")
    picked = [e for e in window.get_json() if e["ph"] != "M"]
    inside = [e for e in timed if float(e["ts"]) <= first + 20000 and float(e["ts"]) + float(e.get("dur", 0)) >= first]
    longest = sorted((float(e.get("dur", 0)) for e in inside), reverse=True)[:10]
    assert sorted((e.get("dur", 0) for e in picked), reverse=True) == pytest.approx(longest, abs=1e-3)


# --- cluster_analysis_output -------------------------------------------------------------------------------


def test_cluster_analysis_absent_then_shown(client: FlaskClient, tmp_path: Path) -> None:
    assert get(client, "cluster-analysis", "torch_npu_level1").get_json() == {"available": False}
    require_shared(CLUSTER_REFERENCE)
    base = tmp_path / "base"
    shutil.copytree(ASCEND / "torch_npu_level1", base / "job")
    shutil.copytree(CLUSTER_REFERENCE, base / "job" / "profiler" / "cluster_analysis_output")
    answer = get(make_client(base, tmp_path), "cluster-analysis", "job").get_json()
    assert answer["available"] is True and "problems" not in answer
    rows = read_csv(CLUSTER_REFERENCE / "cluster_step_trace_time.csv")
    assert len(answer["step_trace"]) == len(rows) == 18
    for got, row in zip(answer["step_trace"], rows, strict=True):
        assert (got["type"], str(got["index"])) == (row["Type"], row["Index"])
        assert got["computing_us"] == pytest.approx(float(row["Computing"]))
        assert got["free_us"] == pytest.approx(float(row["Free"]))
        assert got["preparing_us"] is None  # the analyser writes no Preparing column
    groups = json.loads((CLUSTER_REFERENCE / "communication_group.json").read_text())
    assert answer["communication_group"] == groups
    comm = json.loads((CLUSTER_REFERENCE / "cluster_communication.json").read_text())
    expected = sum(len(per_rank) for steps in comm.values() for entries in steps.values()
                   for per_rank in entries.values())
    assert len(answer["communication"]) == expected
    matrix = json.loads((CLUSTER_REFERENCE / "cluster_communication_matrix.json").read_text())
    assert len(answer["matrix"]) == sum(len(links) for steps in matrix.values() for entries in steps.values()
                                        for links in entries.values())


def test_train_jobs_profiler_type_cpu_for_the_mindspore_2_cpu_layout(tmp_path: Path) -> None:
    """issue 15: MindSpore 2.10's CPU profile (`*_ascend_ms/FRAMEWORK/cpu_op_*`, a CPU-only trace_view.json) is
    `cpu`, as MindInsight's legacy CPU layout is; jobs without a profiler stay `""`."""
    require_shared(FIXTURES / "profiler_cpu")
    jobs = make_client(FIXTURES, tmp_path).get(f"{API}/datavisual/train-jobs?offset=0&limit=50").get_json()["train_jobs"]
    types = {j["train_id"]: j["profiler_type"] for j in jobs}
    assert types["./profiler_cpu"] == "cpu"
    assert types["./profiler_only_legacy_api"] == "cpu"
    assert {t for tid, t in types.items() if tid not in ("./profiler_cpu", "./profiler_only_legacy_api")} == {""}
