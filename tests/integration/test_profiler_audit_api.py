"""Issue 21, profiler API additions: column definitions (units), the profile's start of kernel tables, which
framework wrote a profile, absences answered without a 400 when asked, hint arguments, events per process.

Real files read in place: ../shared/fixtures/ascend (torch_npu, 2 ranks, Level0/Level1), ../shared/fixtures/mindspore
(profiler_cpu, MindSpore 2.10) and the repo's own Ascend demo writer (MindSpore flavour). Expected values come from
the raw files (csv / json), never from the code under test.
"""

from __future__ import annotations

import csv
import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from mindinsight_clone.summary.ascend_profile import write_ascend_job
from tests.conftest import FIXTURES, SHARED, require_shared

API = "/v1/mindinsight"
ASCEND = SHARED / "fixtures" / "ascend"
TO_US = {"us": 1.0, "ms": 1000.0, "s": 1e6}


def _client(base: Path, tmp_path: Path) -> FlaskClient:
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), reload_interval=0)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app.test_client()


@pytest.fixture
def ascend(tmp_path: Path) -> FlaskClient:
    require_shared(ASCEND)
    return _client(ASCEND, tmp_path)


@pytest.fixture
def cpu(tmp_path: Path) -> FlaskClient:
    require_shared(FIXTURES / "profiler_cpu")
    return _client(FIXTURES, tmp_path)


def _output(job: str, rank: str) -> Path:
    return next((ASCEND / job / "profiler").glob(f"*/profiler_info_{rank}.json")).parent / "ASCEND_PROFILER_OUTPUT"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return [{k.strip(): (v or "").strip() for k, v in row.items()} for row in csv.DictReader(handle)]


def _search(client: FlaskClient, job: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(f"{API}/profile/ops/search?train_id=./{job}&profile=profiler", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.get_json()
    answer: dict[str, Any] = response.get_json()
    return answer


def _defs(client: FlaskClient) -> dict[str, dict[str, dict[str, Any]]]:
    answer = client.get(f"{API}/profile/columns").get_json()
    return {table: {c["name"]: c for c in cols} for table, cols in answer["tables"].items()}


def _us(value: float, unit: str | None) -> float:
    assert unit in TO_US, unit
    return value * TO_US[unit]


# --- column definitions ----------------------------------------------------------------------------------------


def test_column_definitions_cover_every_table_and_column(ascend: FlaskClient) -> None:
    tables = ascend.get(f"{API}/profile/columns").get_json()["tables"]
    op_types = ascend.get(f"{API}/profile/op-types").get_json()
    for op_type, names in op_types.items():  # every column ops/search can answer has a definition
        assert set(names) <= {c["name"] for c in tables[op_type]}, op_type
    for name in ("operator-details", "api-statistic"):
        assert name in tables
    for cols in tables.values():
        for col in cols:
            assert set(col) >= {"name", "unit"}
            assert col["unit"] in (None, "us", "ms", "percent", "fraction", "count")


@pytest.mark.parametrize("job", ["torch_npu_level0", "torch_npu_level1"])
def test_ascend_type_table_units_match_the_files(ascend: FlaskClient, job: str) -> None:
    """execution_time is the type's total in ms, total_time_us the same in µs: converted by their declared units,
    both equal the file's total (op_statistic.csv, or kernel_details.csv summed)."""
    defs = _defs(ascend)["aicore_type"]
    answer = _search(ascend, job, {"op_type": "aicore_type", "device_id": "0", "group_condition": {"limit": 100}})
    cols = answer["col_name"]
    stat = _output(job, "0") / "op_statistic.csv"
    if stat.exists():
        totals = {(r["OP Type"], r["Core Type"]): float(r["Total Time(us)"]) for r in _rows(stat)}
    else:
        totals = {}
        for r in _rows(_output(job, "0") / "kernel_details.csv"):
            if r["Accelerator Core"] not in ("AI_CPU", "HCCL"):
                key = (r["Type"], r["Accelerator Core"])
                totals[key] = totals.get(key, 0.0) + float(r["Duration(us)"])
    assert answer["object"]
    for raw in answer["object"]:
        row = dict(zip(cols, raw, strict=True))
        expected = totals[(row["op_type"], row["core_type"])]
        for col in ("execution_time", "total_time_us"):
            assert _us(row[col], defs[col]["unit"]) == pytest.approx(expected, rel=1e-3, abs=1e-3), col
    assert defs["percent"]["unit"] == "percent" and defs["execution_frequency"]["unit"] == "count"


def test_ascend_kernel_units_and_the_profiles_start(ascend: FlaskClient) -> None:
    """Kernel durations in their declared units equal Duration(us); start times are timestamps, and the answer names
    the profile's start (the rank's first kernel) they are relative to."""
    kernels = _rows(_output("torch_npu_level1", "0") / "kernel_details.csv")
    defs = _defs(ascend)["aicore_detail"]
    body = {"op_type": "aicore_detail", "device_id": "0", "sort_condition": {"name": "start_time_us",
                                                                             "type": "ascending"}}
    answer = _search(ascend, "torch_npu_level1", body)
    cols = answer["col_name"]
    first = min(float(k["Start Time(us)"]) for k in kernels)
    assert answer["time_origin_us"] == pytest.approx(first, abs=0.01)
    assert defs["start_time_us"]["unit"] == "us" and defs["start_time_us"].get("timestamp") is True
    durations = {(k["Name"], round(float(k["Start Time(us)"]))): float(k["Duration(us)"]) for k in kernels}
    for raw in answer["object"]:
        row = dict(zip(cols, raw, strict=True))
        expected = durations[(row["op_name"], round(row["start_time_us"]))]
        for col in ("avg_execution_time", "duration_us"):
            assert _us(row[col], defs[col]["unit"]) == pytest.approx(expected, abs=1e-3)
    assert not defs["duration_us"].get("timestamp")


def test_cpu_tables_units_match_the_files(cpu: FlaskClient) -> None:
    """MindSpore 2.10 CPU tables: the files hold ms; the answer's units say what it holds."""
    framework = next((FIXTURES / "profiler_cpu" / "profiler").glob("*_ascend_ms/FRAMEWORK"))
    rows = _rows(framework / "cpu_op_type_info_0.csv")
    defs = _defs(cpu)
    answer = _search(cpu, "profiler_cpu", {"op_type": "cpu_op_type", "device_id": "0"})
    cols = answer["col_name"]
    by_type = {r["op_type"]: r for r in rows}
    for raw in answer["object"]:
        row = dict(zip(cols, raw, strict=True))
        unit = defs["cpu_op_type"]["total_compute_time"]["unit"]
        total_ms = float(by_type[row["op_type"]]["total_compute_time"])
        assert _us(row["total_compute_time"], unit) == pytest.approx(total_ms * 1000, rel=1e-3)
    # the same column name is a percent in one table and a fraction in the other
    assert defs["cpu_op_type"]["total_time_proportion"]["unit"] == "percent"
    assert defs["cpu_op_info"]["total_time_proportion"]["unit"] == "fraction"
    info = _search(cpu, "profiler_cpu", {"op_type": "cpu_op_info", "device_id": "0"})
    shares = [dict(zip(info["col_name"], r, strict=True))["total_time_proportion"] for r in info["object"]]
    assert 0 < sum(shares) <= 1.0001


# --- which framework wrote a profile -----------------------------------------------------------------------------


def test_dirs_say_which_framework_wrote_the_profile(ascend: FlaskClient, tmp_path: Path) -> None:
    for job in ("torch_npu_level0", "torch_npu_level1"):
        info = json.loads(next((ASCEND / job / "profiler").glob("*/profiler_info_0.json")).read_text())
        assert "ms_profiler_info" not in info and "rank_id" in info  # torch_npu writes rank_id at the top
        entry = ascend.get(f"{API}/profile/dirs?train_id=./{job}").get_json()["profilers"][0]
        assert entry["layout"] == "ms2" and entry["framework"] == "pytorch"
    demo = tmp_path / "demo"
    write_ascend_job(demo / "job", ranks=1, steps=1, kernels_per_step=8)
    entry = _client(demo, tmp_path).get(f"{API}/profile/dirs?train_id=./job").get_json()["profilers"][0]
    assert entry["framework"] == "mindspore"


def test_dirs_framework_of_a_mindspore_cpu_session(cpu: FlaskClient) -> None:
    entry = cpu.get(f"{API}/profile/dirs?train_id=./profiler_cpu").get_json()["profilers"][0]
    assert entry["framework"] == "mindspore"


# --- an expected absence answered without an error status, when asked ------------------------------------------


def test_missing_ok_answers_an_absence_with_200(ascend: FlaskClient) -> None:
    query = "train_id=./torch_npu_level0&profile=profiler&device_id=0"
    plain = ascend.get(f"{API}/profile/communication?{query}")
    assert plain.status_code == 400 and plain.get_json()["error_code"] == "50546084"  # MindInsight clients: as ever
    asked = ascend.get(f"{API}/profile/communication?{query}&missing_ok=true")
    assert asked.status_code == 200
    assert asked.get_json() == {"missing": plain.get_json()}
    # a rank without output is an absence too
    rank7 = ascend.get(f"{API}/profile/step-trace-time?train_id=./torch_npu_level0&profile=profiler&device_id=7"
                       "&missing_ok=true")
    assert rank7.status_code == 200 and rank7.get_json()["missing"]["error_code"] == "50546084"
    # what is not an absence stays an error: an unknown job, a bad parameter
    gone = ascend.get(f"{API}/profile/communication?train_id=./nope&profile=profiler&device_id=0&missing_ok=true")
    assert gone.status_code == 400 and gone.get_json()["error_code"] == "50546083"
    bad = ascend.get(f"{API}/profile/communication?{query[:-1]}x&missing_ok=true")
    assert bad.status_code == 400


def test_missing_ok_keeps_a_damaged_file_an_error(tmp_path: Path) -> None:
    require_shared(ASCEND)
    job = tmp_path / "base" / "job" / "profiler" / "rank0_ascend_pt"
    out = job / "ASCEND_PROFILER_OUTPUT"
    out.mkdir(parents=True)
    (job / "profiler_info_0.json").write_text(json.dumps({"rank_id": 0}))
    (out / "step_trace_time.csv").write_text("Step,Computing\n1,2\n")
    (out / "communication.json").write_text("{not json")
    client = _client(tmp_path / "base", tmp_path)
    answer = client.get(f"{API}/profile/communication?train_id=./job&profile=profiler&device_id=0&missing_ok=1")
    assert answer.status_code == 400 and answer.get_json()["error_code"] == "50546087"


# --- hints carry what their sentence says, so a client can say it in its language ---------------------------------


def test_cpu_overview_hints_carry_their_arguments(cpu: FlaskClient) -> None:
    framework = next((FIXTURES / "profiler_cpu" / "profiler").glob("*_ascend_ms/FRAMEWORK"))
    rows = _rows(framework / "cpu_op_type_info_0.csv")
    total = sum(float(r["total_compute_time"]) for r in rows)
    top = max(rows, key=lambda r: float(r["total_compute_time"]))
    share = float(top["total_compute_time"]) / total * 100
    hints = cpu.get(f"{API}/profile/overview?train_id=./profiler_cpu&profile=profiler").get_json()["hints"]
    by_code = {h["code"]: h for h in hints}
    assert share >= 50 and "dominant_op_type" in by_code
    args = by_code["dominant_op_type"]["args"]
    assert args["op_type"] == top["op_type"] and args["percent"] == pytest.approx(share, abs=0.01)
    assert all(isinstance(h.get("args"), dict) for h in hints)


def test_ascend_overview_hints_carry_the_findings_evidence(ascend: FlaskClient) -> None:
    """The Ascend overview's hints are the advisor's findings of that rank: each carries the finding's evidence."""
    steps = _rows(_output("torch_npu_level0", "1") / "step_trace_time.csv")
    phases = ("Computing", "Communication(Not Overlapped)", "Free")
    free = statistics.fmean(float(r["Free"]) for r in steps)
    step = statistics.fmean(sum(float(r[p]) for p in phases) for r in steps)
    assert free / step > 0.10  # the fixture's rank 1 is free more than 10 % of its step
    query = "train_id=./torch_npu_level0&profile=profiler&device_id=1"
    hints = {h["code"]: h for h in ascend.get(f"{API}/profile/overview?{query}").get_json()["hints"]}
    row = hints["free_time"]["evidence"]["rows"][0]
    assert row["rank_id"] == 1 and row["share"] == pytest.approx(free / step, abs=1e-3)


# --- the timeline counts events per process, so a client can say what it does not show ---------------------------


@pytest.mark.parametrize("job", ["torch_npu_level0", "torch_npu_level1"])
def test_timeline_summary_counts_events_per_process(ascend: FlaskClient, job: str) -> None:
    events = json.loads((_output(job, "0") / "trace_view.json").read_text())
    names = {str(e["pid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    timed = Counter(str(e["pid"]) for e in events if e.get("ph") != "M" and "ts" in e)
    summary = ascend.get(f"{API}/profile/timeline-summary?dir=./{job}&device_id=0").get_json()
    got = {str(p["pid"]): (p["name"], p["events"]) for p in summary["processes"]}
    assert got == {pid: (names.get(pid), n) for pid, n in timed.items()}
    assert sum(n for _, n in got.values()) == sum(timed.values())


def test_timeline_keeps_the_processes_asked_for(ascend: FlaskClient) -> None:
    """`pids=`: the `max_events` longest events of those processes only, so a page showing some lanes gets its budget
    spent on them; metadata stays whole (lane names)."""
    events = json.loads((_output("torch_npu_level1", "0") / "trace_view.json").read_text())
    names = {str(e["pid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    npu = sorted(pid for pid, name in names.items() if name in ("Ascend Hardware", "HCCL", "Overlap Analysis"))
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    mine = [e for e in timed if str(e["pid"]) in npu]
    assert 100 < len(mine) < len(timed)
    url = f"{API}/profile/timeline?dir=./torch_npu_level1&device_id=0&pids={','.join(npu)}"
    answer = ascend.get(f"{url}&max_events=100").get_json()
    got = [e for e in answer if e["ph"] != "M"]
    assert len(got) == 100 and {str(e["pid"]) for e in got} <= set(npu)
    longest = sorted((round(float(e.get("dur", 0) or 0), 3) for e in mine), reverse=True)[:100]
    assert sorted((e.get("dur", 0) for e in got), reverse=True) == pytest.approx(longest, abs=1e-3)
    assert sum(e["ph"] == "M" for e in answer) == sum(e.get("ph") == "M" for e in events)
    assert len([e for e in ascend.get(url).get_json() if e["ph"] != "M"]) == len(mine)
    assert ascend.get(f"{url},{'9' * 70}").status_code == 400
