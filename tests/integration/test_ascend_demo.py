"""The demo data (scripts/make_demo_data, no ../shared needed) has an Ascend profile of 2 ranks that every Ascend
view answers without a problem, with numbers that agree across files; the ResNet run's graph still shows."""

from __future__ import annotations

import csv
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import REPO
from tests.integration.test_ascend_profiler import API, get, make_client, search

RUN = "resnet_lr0.05_bs128_momentum"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    subprocess.run([sys.executable, str(REPO / "scripts" / "make_demo_data"), str(out), "--steps", "120"],
                   check=True, capture_output=True, cwd=REPO)
    return out


@pytest.fixture
def client(demo: Path, tmp_path: Path) -> FlaskClient:
    return make_client(demo, tmp_path)


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return [{k: v.strip() for k, v in r.items()} for r in csv.DictReader(handle)]


def test_demo_job_is_listed_as_ascend_with_its_graph(client: FlaskClient) -> None:
    jobs = {j["train_id"]: j for j in client.get(f"{API}/datavisual/train-jobs?limit=999").get_json()["train_jobs"]}
    assert jobs[f"./{RUN}"]["profiler_type"] == "ascend"
    assert jobs[f"./{RUN}"]["profiler_dir"] == "./profiler"
    assert get(client, "devices", RUN).get_json()["device_list"] == ["0", "1"]
    plugins = client.get(f"{API}/datavisual/plugins?train_id=./{RUN}&manual_update=true").get_json()["plugins"]
    tag = plugins["graph"][0]
    nodes = client.get(f"{API}/datavisual/graphs/nodes?train_id=./{RUN}&tag={tag}").get_json()["nodes"]
    assert nodes, "the ResNet graph has nodes"


def test_every_view_answers_without_problems(client: FlaskClient) -> None:
    for rank in ("0", "1"):
        for view in ("step-trace-time", "communication", "memory-record", "operator-details", "api-statistic",
                     "npu-module-mem", "overview"):
            response = get(client, view, RUN, rank)
            assert response.status_code == 200 and "problems" not in response.get_json(), (view, rank)
        for op_type in ("aicore_type", "aicore_detail", "aicpu_type", "aicpu_detail"):
            answer = search(client, RUN, {"op_type": op_type, "device_id": rank}).get_json()
            assert answer["size"] > 0 and "problems" not in answer, (op_type, rank)
        summary = client.get(f"{API}/profile/timeline-summary?dir=./{RUN}&device_id={rank}").get_json()
        assert summary["num_of_events"] > 0 and "problems" not in summary
    cluster = get(client, "cluster-step-trace", RUN).get_json()
    assert [r["rank_id"] for r in cluster["ranks"]] == [0, 1]
    assert {"rank_id": 1, "phase": "computing"} in [{k: s[k] for k in ("rank_id", "phase")}
                                                    for s in cluster["slow_ranks"]]
    # the pages this stop added: compare, findings, the all-ranks matrix
    compare = get(client, "compare", RUN, "1", base_device_id="0").get_json()
    assert compare["op_types"] and compare["steps"]["computing_us"]["diff"] > 0 and "problems" not in compare
    advice = get(client, "advice", RUN).get_json()
    assert "problems" not in advice and {"slow_rank_step", "aicpu"} <= {f["id"] for f in advice["findings"]}
    matrix = get(client, "cluster-communication-matrix", RUN).get_json()
    assert matrix["ranks_read"] == [0, 1] and {c["src"] for c in matrix["cells"]} == {0, 1}


def test_demo_numbers_agree_across_files(demo: Path) -> None:
    for out in sorted((demo / RUN / "profiler").glob("rank_*/*_ascend_ms/ASCEND_PROFILER_OUTPUT")):
        kernels = _rows(out / "kernel_details.csv")
        steps = _rows(out / "step_trace_time.csv")
        stats = _rows(out / "op_statistic.csv")
        for step in steps:
            mine = [k for k in kernels if k["Step ID"] == step["Step"]]
            computing = sum(float(k["Duration(us)"]) for k in mine if k["Accelerator Core"] != "HCCL")
            communication = sum(float(k["Duration(us)"]) for k in mine if k["Accelerator Core"] == "HCCL")
            assert float(step["Computing"]) == pytest.approx(computing, abs=0.01)
            assert float(step["Communication"]) == pytest.approx(communication, abs=0.01)
            assert float(step["Overlapped"]) == pytest.approx(
                float(step["Communication"]) - float(step["Communication(Not Overlapped)"]), abs=0.01)
            assert float(step["Stage"]) == pytest.approx(float(step["Computing"]) + float(
                step["Communication(Not Overlapped)"]) + float(step["Free"]), abs=0.01)
        counts: dict[tuple[str, str], int] = {}
        for k in kernels:
            if k["Accelerator Core"] != "HCCL":
                counts[(k["Type"], k["Accelerator Core"])] = counts.get((k["Type"], k["Accelerator Core"]), 0) + 1
        assert {(s["OP Type"], s["Core Type"]): int(s["Count"]) for s in stats} == counts
        comm: dict[str, Any] = json.loads((out / "communication.json").read_text())
        hccl = [k for k in kernels if k["Accelerator Core"] == "HCCL"]
        ops = [op for step in comm.values() for key, op in step["collective"].items() if key != "Total Op Info"]
        assert len(ops) == len(hccl)
        for op, kernel in zip(ops, hccl, strict=True):
            assert op["Communication Time Info"]["Elapse Time(ms)"] == pytest.approx(float(kernel["Duration(us)"]) / 1000)
        trace = json.loads((out / "trace_view.json").read_text())
        hardware = [e for e in trace if e.get("ph") == "X" and e["pid"] == 1000]
        assert len(hardware) == len(kernels)
        # framework operators: one per kernel type, its device time that of its kernels; one API per type
        device_time: dict[str, float] = {}
        for k in kernels:
            if k["Accelerator Core"] != "HCCL":
                device_time[k["Type"]] = device_time.get(k["Type"], 0.0) + float(k["Duration(us)"])
        details = {r["Name"]: float(r["Device Total Duration(us)"]) for r in _rows(out / "operator_details.csv")}
        assert details == pytest.approx({f"ops.{t}": v for t, v in device_time.items()}, abs=0.01)
        launches = {r["API Name"]: int(r["Count"]) for r in _rows(out / "api_statistic.csv")}
        assert sum(launches.values()) == len(kernels)
        modules = {r["Component"] for r in _rows(out / "npu_module_mem.csv")}
        assert {"APP", "HCCL", "RUNTIME", "GE"} <= modules


def test_op_statistic_equals_the_kernel_aggregation(demo: Path, tmp_path: Path) -> None:
    """The same aicore_type table from op_statistic.csv and, with it removed, from kernel_details.csv."""
    client = make_client(demo, tmp_path)
    body = {"op_type": "aicore_type", "device_id": "1", "sort_condition": {"name": "op_type", "type": "ascending"}}
    from_stat = search(client, RUN, body).get_json()
    copy = tmp_path / "copy"
    import shutil
    shutil.copytree(demo / RUN, copy / RUN)
    next((copy / RUN / "profiler").glob("rank_1/*/ASCEND_PROFILER_OUTPUT/op_statistic.csv")).unlink()
    from_kernels = search(make_client(copy, tmp_path / "b"), RUN, body).get_json()
    assert (from_stat["source"], from_kernels["source"]) == ("op_statistic.csv", "kernel_details.csv")
    for a, b in zip(from_stat["object"], from_kernels["object"], strict=True):
        assert a[0] == b[0] and a[2] == b[2] and a[4] == b[4]
        assert a[5:] == pytest.approx(b[5:], abs=0.002) and a[3] == pytest.approx(b[3], abs=0.002)


DB_RUN = "lenet_lr0.001_bs64_adam"  # its profile is in the database export (summary/ascend_db_profile.py)


def test_demo_db_job_answers_every_view_from_its_databases(client: FlaskClient, demo: Path) -> None:
    jobs = {j["train_id"]: j for j in client.get(f"{API}/datavisual/train-jobs?limit=999").get_json()["train_jobs"]}
    assert jobs[f"./{DB_RUN}"]["profiler_type"] == "ascend"
    outputs = sorted((demo / DB_RUN / "profiler").glob("*_ascend_pt/ASCEND_PROFILER_OUTPUT"))
    assert [sorted(p.name for p in out.iterdir()) for out in outputs] == [
        ["analysis.db", f"ascend_pytorch_profiler_{r}.db"] for r in (0, 1)]  # no CSV or JSON: db only
    for rank, out in zip(("0", "1"), outputs, strict=True):
        with sqlite3.connect(f"{(out / f'ascend_pytorch_profiler_{rank}.db').as_uri()}?mode=ro", uri=True) as con:
            kernels = con.execute("SELECT (SELECT COUNT(*) FROM COMPUTE_TASK_INFO) + "
                                  "(SELECT COUNT(*) FROM COMMUNICATION_OP)").fetchone()[0]
            aicpu = con.execute("SELECT COUNT(*) FROM COMPUTE_TASK_INFO c JOIN STRING_IDS s ON s.id = c.taskType "
                                "WHERE s.value = 'AI_CPU'").fetchone()[0]
        con.close()
        with sqlite3.connect(f"{(out / 'analysis.db').as_uri()}?mode=ro", uri=True) as con:
            computing = [r[0] for r in con.execute("SELECT computing FROM StepTraceTime ORDER BY rowid")]
        con.close()
        for view in ("step-trace-time", "communication", "memory-record", "operator-details", "api-statistic",
                     "npu-module-mem", "overview"):
            response = get(client, view, DB_RUN, rank)
            assert response.status_code == 200 and "problems" not in response.get_json(), (view, rank)
        steps = get(client, "step-trace-time", DB_RUN, rank).get_json()["steps"]
        assert [s["computing_us"] for s in steps] == pytest.approx(computing) and len(steps) == 3
        detail = search(client, DB_RUN, {"op_type": "aicore_detail", "device_id": rank}).get_json()
        cpu = search(client, DB_RUN, {"op_type": "aicpu_detail", "device_id": rank}).get_json()
        assert (detail["size"] + cpu["size"], cpu["size"]) == (kernels, aicpu) and aicpu > 0
        summary = client.get(f"{API}/profile/timeline-summary?dir=./{DB_RUN}&device_id={rank}").get_json()
        assert summary["num_of_events"] > kernels and "problems" not in summary
    cluster = get(client, "cluster-step-trace", DB_RUN).get_json()
    assert [(s["rank_id"], s["phase"]) for s in cluster["slow_ranks"]] == [(1, "computing")]
