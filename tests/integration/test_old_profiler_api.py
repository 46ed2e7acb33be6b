"""MindInsight's old profiler layout (MindSpore <= 2.2 on Ascend/GPU): MindInsight 2.3.1's 84 answers over real files
(../shared/reference/mindinsight/old_profiler), the documented improvements, numbers recomputed here from the raw
files with `csv`/`json`, and damaged or missing files (each fails only its own view, with a clear error).

The corpus is read in place (create_app over it); cases that need other files use a copy in tmp_path.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import REFERENCE
from tests.remote_base import local_app

API = "/v1/mindinsight"
OLD = REFERENCE / "old_profiler"
CORPUS = OLD / "corpus"
GOLDEN = OLD / "golden"
# golden number -> why we answer differently (docs/api.md "Improvements over MindInsight 2.3.1", old layout);
# each is pinned by a test below
IMPROVEMENTS = {
    "000": "device_list from the data files (MindInsight lists only ids with a profiler_info file: [])",
    "023": "same, devdir device 1 request",
    "046": "same, devdir device 0 request",
    "001": "aicore total_percent as written by MindSpore 1.x (MindInsight multiplies percents by 100: 5760 %)",
    "006": "same, second page",
    "024": "same, devdir",
    "014": "timeline-summary from MindSpore 1.0's timeline_summary_<id>.json (MindInsight: only the summary default)",
    "015": "timeline from MindSpore 1.0's timeline_display_<id>.json (MindInsight: [])",
    "081": "communication-data for the ranks that have files (MindInsight: {} for want of profiler_info files)",
    "083": "cluster-peak-memory without memory files is [] (MindInsight: 400 'Read or write file fail.')",
}


def _app(base: Path, tmp: Path) -> FlaskClient:
    return local_app(base, tmp / "ws").test_client()


@pytest.fixture(scope="module")
def old_layout_client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    if not CORPUS.exists():
        pytest.skip(f"{CORPUS} is absent: the old-layout profiles live in ../shared (present in CI)")
    return _app(CORPUS, tmp_path_factory.mktemp("old-layout"))


def _goldens(improved: bool) -> list[Path]:
    if not GOLDEN.exists():
        return []
    return sorted(p for p in GOLDEN.glob("[0-9]*.json") if (p.name[:3] in IMPROVEMENTS) == improved)


def _send(client: FlaskClient, case: dict[str, Any]) -> Any:
    data = json.dumps(case["body"]) if "body" in case else None
    return client.open(case["path"], method=case["method"], data=data, content_type="application/json")


@pytest.mark.parametrize("golden", _goldens(False), ids=lambda p: p.name[:3])
def test_old_ascend_layout_matches_mindinsight(old_layout_client: FlaskClient, golden: Path) -> None:
    case = json.loads(golden.read_text())
    response = _send(old_layout_client, case)
    assert response.status_code == case["status"]
    assert response.get_json() == case["response"]


@pytest.mark.parametrize("golden", _goldens(True), ids=lambda p: p.name[:3])
def test_improvements_really_differ(old_layout_client: FlaskClient, golden: Path) -> None:
    case = json.loads(golden.read_text())
    response = _send(old_layout_client, case)
    assert (response.status_code, response.get_json()) != (case["status"], case["response"])


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="") as handle:
        return list(csv.reader(handle))[1:]


def _search(client: FlaskClient, run: str, body: dict[str, Any]) -> Any:
    return client.post(f"{API}/profile/ops/search?train_id=./{run}&profile=profiler", data=json.dumps(body), content_type="application/json")


# --- improvements, each against values computed here ----------------------------------------------------


@pytest.mark.parametrize("run", ["run1", "devdir", "cluster4"])
def test_improvement_device_list_from_the_files(old_layout_client: FlaskClient, run: str) -> None:
    ids = {int(m.group(1)) for p in (CORPUS / run / "profiler").iterdir()
           if (m := re.match(r"^[a-z_]+?_(\d+)(?:_[a-z_]+)?\.(?:csv|json|txt)$", p.name))}
    answer = old_layout_client.get(f"{API}/profile/devices?train_id=./{run}&profile=profiler").get_json()
    assert answer == {"device_list": [str(i) for i in sorted(ids)], "profiler_mode": ""}


def test_improvement_aicore_percent_as_written(old_layout_client: FlaskClient) -> None:
    rows = _rows(CORPUS / "run1" / "profiler" / "aicore_intermediate_1_type.csv")
    answer = _search(old_layout_client, "run1", {"op_type": "aicore_type", "device_id": "1",
                                                 "sort_condition": {"name": "total_time", "type": "descending"},
                                                 "group_condition": {"limit": 100, "offset": 0}}).get_json()
    assert answer["col_name"] == ["kernel_type", "total_time", "execution_frequency", "total_percent", "avg_time"]
    expected = sorted(rows, key=lambda r: float(r[1]), reverse=True)
    assert [r[0] for r in answer["object"]] == [r[0] for r in expected]
    for got, raw in zip(answer["object"], expected, strict=True):
        assert got[1] == pytest.approx(float(raw[1]) * 1000, abs=1e-3)
        assert got[2] == int(raw[2])
        assert got[3] == pytest.approx(float(raw[3]))  # a percent already: not * 100
        assert got[4] == pytest.approx(float(raw[1]) * 1000 / int(raw[2]), abs=1e-3)
    assert sum(float(r[3]) for r in rows) > 2  # the file holds percents (MindSpore 1.x), not fractions


def test_mindspore2_fraction_percent_is_made_a_percent(tmp_path: Path) -> None:
    """MindSpore 2.x writes `percent` as a fraction: multiplied by 100, as MindInsight does."""
    prof = tmp_path / "base" / "job" / "profiler"
    prof.mkdir(parents=True)
    (prof / "aicore_intermediate_0_type.csv").write_text(
        "kernel_type,total_time,execution_frequency,percent\nMatMul,0.75,3,0.75\nAdd,0.25,5,0.25\n")
    client = _app(tmp_path / "base", tmp_path)
    answer = _search(client, "job", {"op_type": "aicore_type", "device_id": "0"}).get_json()
    assert answer["object"] == [["MatMul", 750.0, 3, 75.0, 250.0], ["Add", 250.0, 5, 25.0, 50.0]]


def test_improvement_timeline_of_mindspore_1_0_names(old_layout_client: FlaskClient) -> None:
    prof = CORPUS / "run1" / "profiler"
    events = json.loads((prof / "timeline_display_1.json").read_text())
    answer = old_layout_client.get(f"{API}/profile/timeline?dir=./run1&device_id=1&device_type=ascend").get_json()
    assert answer == [e for e in events if e and not (e.get("tid") == 100001 and e.get("ph") != "M")]
    summary = json.loads((prof / "timeline_summary_1.json").read_text())
    got = old_layout_client.get(f"{API}/profile/timeline-summary?dir=./run1&device_id=1").get_json()
    assert got == {**summary, "max_scope_name_num": 0}
    # the GPU timeline of the same dir is not these files
    assert old_layout_client.get(f"{API}/profile/timeline?dir=./run1&device_id=1&device_type=gpu").get_json() == []


def test_improvement_communication_data_per_rank(old_layout_client: FlaskClient) -> None:
    answer = old_layout_client.get(f"{API}/profile/communication-data?train_id=./cluster4").get_json()
    assert sorted(answer) == [f"device{r}" for r in range(4)]
    for rank in range(4):
        with (CORPUS / "cluster4" / "profiler" / f"hccl_raw_{rank}.csv").open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        got = answer[f"device{rank}"]
        assert [g["step_num"] for g in got] == [r["step_num"] for r in rows]
        for g, r in zip(got, rows, strict=True):
            assert g["communication_cost"] == float(r["communication_cost"])
            assert g["wait_cost"] == float(r["wait_cost"])
            assert g["link_info"] == json.loads(r["link_info"])
            assert g["communication_operator_cost"] == json.loads(r["communication_operator_cost"])


def test_improvement_cluster_peak_memory(old_layout_client: FlaskClient, tmp_path: Path) -> None:
    response = old_layout_client.get(f"{API}/profile/cluster-peak-memory?train_id=./cluster4")
    assert response.status_code == 200 and response.get_json() == []
    base = tmp_path / "base"
    shutil.copytree(CORPUS / "cluster4", base / "cluster4")
    (base / "cluster4" / "profiler" / "memory_usage_summary_2.json").write_text(
        json.dumps({"capacity": 31744.0, "peak_mem": 1234.5, "other": 1}))
    answer = _app(base, tmp_path).get(f"{API}/profile/cluster-peak-memory?train_id=./cluster4").get_json()
    assert answer == [{"rank_id": 2, "capacity": 31744.0, "peak_mem": 1234.5}]


# --- numbers from the raw files ---------------------------------------------------------------------------


def _ms(cell: str) -> float:
    return round(int(cell) / 1e5, 4)


def test_step_trace_from_the_csv(old_layout_client: FlaskClient) -> None:
    path = CORPUS / "run1" / "profiler" / "step_trace_raw_1_detail_time.csv"
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    steps, average = rows[:-1], rows[-1]
    info = old_layout_client.get(
        f"{API}/profile/training-trace/target-time-info?dir=./run1&type=fp_and_bp&device_id=1").get_json()
    assert info["size"] == len(steps)
    assert info["info"]["fp_and_bp"] == [_ms(r["fp_and_bp"]) for r in steps]
    total = _ms(average["total"])
    assert info["summary"]["total_time"] == total
    assert info["summary"]["tail_percent"] == f"{round(_ms(average['tail']) / total * 100, 2)}%"
    for step, row in ((0, average), (5, steps[4])):
        graph = old_layout_client.get(
            f"{API}/profile/training-trace/graph?dir=./run1&type={step}&device_id=1").get_json()
        start = _ms(row["start_point"])
        assert graph["training_trace_graph"][0] == [{"name": "", "start": 0, "duration": _ms(row["total"])}]
        main = graph["training_trace_graph"][1]
        assert [p["name"] for p in main] == ["iteration_interval", "fp_and_bp", "tail"]
        assert main[1]["start"] == round(_ms(row["fp_point"]) - start, 4)
        assert main[2]["duration"] == _ms(row["tail"])
        streams = {c.split("_")[1] for c in row if c.startswith("stream_") and not c.endswith("point")}
        assert len(graph["training_trace_graph"]) == 2 + len(streams)
    response = old_layout_client.get(f"{API}/profile/training-trace/graph?dir=./run1&type=999&device_id=1")
    assert response.status_code == 400
    assert response.get_json() == {"error_code": "50546102", "error_msg": f"The step num must be in [0, {len(steps)}]"}


def test_cluster_step_trace_from_the_csv(old_layout_client: FlaskClient) -> None:
    prof = CORPUS / "cluster4" / "profiler"
    body = {"filter_condition": {"step_id": 2}}
    answer = old_layout_client.post(f"{API}/profile/cluster-step-trace-summary?train_id=./cluster4",
                                    data=json.dumps(body), content_type="application/json").get_json()
    assert answer["parallel-mode"] == "pipeline-parallel" and answer["stage_num"] == 2 and answer["size"] == 4
    for item in answer["info"]:
        rank = item["rank_id"]
        trace = (prof / f"step_trace_raw_{rank}_detail_time.csv").read_text().splitlines()[2].split(",")
        analyse = (prof / f"ascend_cluster_analyse_pipeline-parallel_2_4_{rank}.csv").read_text().splitlines()[2]
        assert item["step_bottleneck_info"] == [_ms(trace[6]), *(float(c) for c in analyse.split(","))]
    # one stage only (stage 2 = ranks 2 and 3)
    body = {"filter_condition": {"step_id": 0, "stage_id": 2}}
    answer = old_layout_client.post(f"{API}/profile/cluster-step-trace-summary?train_id=./cluster4",
                                    data=json.dumps(body), content_type="application/json").get_json()
    assert [i["rank_id"] for i in answer["info"]] == [2, 3]


def test_cluster_links_filter_sort_page(old_layout_client: FlaskClient) -> None:
    prof = CORPUS / "cluster4" / "profiler"
    links = []
    for rank in range(4):
        with (prof / f"hccl_raw_{rank}.csv").open(newline="") as handle:
            average = next(r for r in csv.reader(handle) if r[0] == "-")
        for src_dst, by_type in json.loads(average[3]).items():
            links += [[src_dst, kind, *values] for kind, values in by_type.items()]
    url = f"{API}/profile/search-cluster-link?train_id=./cluster4"
    answer = old_layout_client.post(url, data=json.dumps({}), content_type="application/json").get_json()
    assert answer == {"cluster_link_info": links, "size": len(links)}
    body = {"filter_condition": {"src_rank": "1"}, "sort_condition": {"name": "band_width", "type": "ascending"},
            "group_condition": {"limit": 2, "offset": 0}}
    answer = old_layout_client.post(url, data=json.dumps(body), content_type="application/json").get_json()
    ones = sorted((link for link in links if link[0].startswith("1-")), key=lambda link: link[4])
    assert answer == {"cluster_link_info": ones[:2], "size": len(ones)}
    body = {"filter_condition": {"src_rank": ".*"}}  # a plain string, not a regular expression
    assert old_layout_client.post(url, data=json.dumps(body), content_type="application/json").get_json()["size"] == 0
    response = old_layout_client.post(url, data=json.dumps({"sort_condition": {"name": "nope"}}), content_type="application/json")
    assert response.get_json() == {"error_code": "50546180", "error_msg": "The column nope does not exist."}


def test_aicpu_tables_from_the_csv(tmp_path: Path) -> None:
    prof = tmp_path / "base" / "job" / "profiler"
    prof.mkdir(parents=True)
    lines = ["serial_number,op_type,total_time,dispatch_time,execution_time,run_start,run_end",
             "1,GetNext-op1,0.5,0.1,0.4,10,10.5", "2,GetNext-op1,0.25,0.05,0.2,20,20.25",
             "3,Dropout-op7,1.5,0.5,1.0,30,31.5", "4,GetNext-op2,0.125,0.025,0.1,40,40.125"]
    (prof / "aicpu_intermediate_0.csv").write_text("\n".join(lines) + "\n")
    client = _app(tmp_path / "base", tmp_path)
    types = _search(client, "job", {"op_type": "aicpu_type", "device_id": "0",
                                    "sort_condition": {"name": "total_time"}}).get_json()
    total = (0.5 + 0.25 + 1.5 + 0.125) * 1000
    assert types == {"col_name": ["kernel_type", "total_time", "execution_frequency", "percent"], "size": 2,
                     "object": [["Dropout", 1500.0, 1, round(1500 / total * 100, 2)],
                                ["GetNext", 875.0, 3, round(875 / total * 100, 2)]]}
    detail = _search(client, "job", {"op_type": "aicpu_detail", "device_id": "0",
                                     "filter_condition": {"op_type": {"in": ["x"]}},
                                     "sort_condition": {"name": "avg_execution_time", "type": "ascending"}}).get_json()
    assert detail["col_name"] == ["kernel_name", "kernel_type", "avg_execution_time", "dispatch_time",
                                  "execution_frequency"]
    assert detail["object"] == [["GetNext-op2", "GetNext", 125.0, 25.0, 1], ["GetNext-op1", "GetNext", 375.0, 75.0, 2],
                                ["Dropout-op7", "Dropout", 1500.0, 500.0, 1]]


def test_aicore_detail_switches_and_sort_errors(old_layout_client: FlaskClient) -> None:
    body = {"op_type": "aicore_detail", "device_id": "1", "sort_condition": {"name": "avg_execution_time"},
            "filter_condition": {"is_display_full_op_name": False, "is_display_detail": False,
                                 "op_name": {"partial_match_str_in": ["matmul"]}}}
    answer = _search(old_layout_client, "run1", body).get_json()
    assert answer["col_name"] == ["kernel_name", "kernel_type", "avg_execution_time", "execution_frequency",
                                  "MFLOPs(10^6 cube)", "GFLOPS(10^9 cube)", "MFLOPs(10^6 vector)", "GFLOPS(10^9 vector)"]
    times = [row[2] for row in answer["object"]]
    assert times and times == sorted(times, reverse=True)  # sorted by the named column, whatever is shown
    assert all(row[1] == "MatMul" for row in answer["object"])
    for name, code in (("op_type", "50546180"), ("full_op_name", "50546180"), ("op_info", "50546185")):
        body = {"op_type": "aicore_detail", "device_id": "1", "sort_condition": {"name": name}}
        assert _search(old_layout_client, "run1", body).get_json()["error_code"] == code
    response = _search(old_layout_client, "run1", {"op_type": "aicore_type", "sort_condition": {"name": "avg_time"}})
    assert response.get_json() == {
        "error_code": "50546185", "error_msg": "The sort_condition in search_condition error, The sorted_name must be "
                                               "in ['op_type', 'total_time', 'execution_frequency', 'percent']"}


def test_legacy_timeline_window(old_layout_client: FlaskClient) -> None:
    events = json.loads((CORPUS / "run1" / "profiler" / "timeline_display_1.json").read_text())
    timed = [e for e in events if e.get("ph") != "M"]
    answer = old_layout_client.get(f"{API}/profile/timeline?dir=./run1&device_id=1&max_events=5").get_json()
    longest = sorted(timed, key=lambda e: -e.get("dur", 0))[:5]
    assert sorted(answer, key=lambda e: e["ts"]) == sorted(longest, key=lambda e: e["ts"])


def test_msprof_ranks(old_layout_client: FlaskClient) -> None:
    ranks = sorted(json.loads(p.read_text())["rank_id"]
                   for p in (CORPUS / "devdir" / "profiler").glob("PROF_*/device_*/info.json.*")
                   if not p.name.endswith(".done"))
    answer = old_layout_client.get(f"{API}/profile/msprof_timeline_option?dir=./devdir").get_json()
    assert answer == {"model_list": [], "rank_list": ranks}


def test_train_jobs_profiler_type(old_layout_client: FlaskClient) -> None:
    jobs = old_layout_client.get(f"{API}/datavisual/train-jobs?limit=100").get_json()["train_jobs"]
    assert {j["train_id"]: j["profiler_type"] for j in jobs} == {"./run1": "ascend", "./devdir": "ascend",
                                                                 "./cluster4": "ascend"}
    dirs = old_layout_client.get(f"{API}/profile/dirs?train_id=./cluster4").get_json()["profilers"]
    assert [(d["layout"], d["device_type"], d["device_list"]) for d in dirs] == [
        ("legacy", "ascend", ["0", "1", "2", "3"])]


# --- damaged and missing files: the view says which file, the others answer ---------------------------------


@pytest.fixture
def damaged(tmp_path: Path) -> tuple[FlaskClient, Path]:
    if not CORPUS.exists():
        pytest.skip(f"{CORPUS} is absent")
    base = tmp_path / "base"
    for run in ("devdir", "cluster4"):
        shutil.copytree(CORPUS / run, base / run, ignore=shutil.ignore_patterns("PROF_*"))
    for path in base.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return _app(base, tmp_path), base


def _cut(path: Path, keep: float = 0.6) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def test_truncated_step_trace(damaged: tuple[FlaskClient, Path]) -> None:
    client, base = damaged
    _cut(base / "devdir" / "profiler" / "step_trace_raw_10_detail_time.csv")
    response = client.get(f"{API}/profile/training-trace/graph?dir=./devdir&device_id=10")
    assert response.status_code == 400
    assert response.get_json() == {"error_code": "50546087", "error_msg":
                                   "Raw file error. <step_trace_raw_10_detail_time.csv> has no average row "
                                   "(truncated file?)."}
    assert str(base) not in response.get_data(as_text=True)
    # the other views of the dir, and the other devices' step trace, still answer
    assert client.get(f"{API}/profile/training-trace/target-time-info?dir=./devdir&type=tail&device_id=0"
                      ).status_code == 200
    assert _search(client, "devdir", {"op_type": "aicore_type", "device_id": "1"}).status_code == 200


def test_truncated_json_and_csv(damaged: tuple[FlaskClient, Path]) -> None:
    client, base = damaged
    _cut(base / "devdir" / "profiler" / "flops_summary_0.json")
    response = client.get(f"{API}/profile/flops-summary?train_id=./devdir&device_id=0")
    assert response.get_json() == {"error_code": "50546087", "error_msg":
                                   "Raw file error. <flops_summary_0.json> is not valid JSON (truncated file?)."}
    assert client.get(f"{API}/profile/flops-scope?train_id=./devdir&device_id=0").status_code == 200
    _cut(base / "cluster4" / "profiler" / "hccl_raw_1.csv", 0.99)  # the average row is cut inside its JSON
    response = client.post(f"{API}/profile/search-cluster-communication?train_id=./cluster4", data="{}", content_type="application/json")
    assert response.status_code == 400 and "<hccl_raw_1.csv>" in response.get_json()["error_msg"]
    cut_type = base / "devdir" / "profiler" / "aicore_intermediate_1_type.csv"
    _cut(cut_type, 0.5)
    answer = _search(client, "devdir", {"op_type": "aicore_type", "device_id": "1"}).get_json()
    kept = _rows(cut_type)
    assert answer["size"] == sum(len(r) == 4 for r in kept)
    assert answer["problems"] == [{"file": cut_type.name, "message":
                                   "1 row(s) skipped: fewer cells than the header (truncated file?)"}]


def test_missing_cluster_file(damaged: tuple[FlaskClient, Path]) -> None:
    client, base = damaged
    (base / "cluster4" / "profiler" / "ascend_cluster_analyse_pipeline-parallel_2_4_3.csv").unlink()
    response = client.post(f"{API}/profile/cluster-step-trace-summary?train_id=./cluster4", data="{}", content_type="application/json")
    assert response.get_json() == {"error_code": "50546084", "error_msg":
                                   "The file <ascend_cluster_analyse_pipeline-parallel_2_4_3.csv> not found."}
    # the proposals need every rank's files: they leave that part out, as MindInsight does
    answer = client.get(f"{API}/profile/summary/cluster-propose?train_id=./cluster4").get_json()
    assert "step_interval" not in answer and "cluster_link" in answer
    assert client.get(f"{API}/profile/cluster-flops?train_id=./cluster4").status_code == 200


# --- the demo data's profile of this layout (scripts/make_demo_data; no ../shared needed) ------------------------


def test_demo_profile_answers_every_view(tmp_path: Path) -> None:
    from mindinsight_clone.summary.legacy_profile import write_legacy_job

    prof = write_legacy_job(tmp_path / "base" / "demo", ranks=2, steps=4, seed=3)
    client = _app(tmp_path / "base", tmp_path)
    job = "train_id=./demo&profile=profiler"
    assert client.get(f"{API}/profile/devices?{job}").get_json()["device_list"] == ["0", "1"]
    jobs = client.get(f"{API}/datavisual/train-jobs").get_json()["train_jobs"]
    assert [(j["train_id"], j["profiler_type"]) for j in jobs] == [("./demo", "ascend")]
    for device in ("0", "1"):
        types = _search(client, "demo", {"op_type": "aicore_type", "device_id": device}).get_json()
        rows = _rows(prof / f"aicore_intermediate_{device}_type.csv")
        assert sorted(r[3] for r in types["object"]) == sorted(  # MindSpore 2.x fractions, made percents
            round(float(r[3]) * 100, 3) if float(r[3]) * 100 >= 1 else round(float(r[3]) * 100, 6) for r in rows)
        for op_type in ("aicore_detail", "aicpu_type", "aicpu_detail"):
            answer = _search(client, "demo", {"op_type": op_type, "device_id": device}).get_json()
            assert answer["size"] > 0 and "problems" not in answer
        graph = client.get(f"{API}/profile/training-trace/graph?dir=./demo&device_id={device}").get_json()
        average = _rows(prof / f"step_trace_raw_{device}_detail_time.csv")[-1]
        assert graph["summary"]["total_time"] == _ms(average[3]) and len(graph["training_trace_graph"]) == 3
        for url in (f"timeline?dir=./demo&device_id={device}", f"process_summary?{job}&device_id={device}",
                    f"flops-scope?train_id=./demo&device_id={device}"):
            response = client.get(f"{API}/profile/{url}")
            assert response.status_code == 200 and response.get_json(), url
        response = client.post(f"{API}/profile/minddata-cpu-utilization-summary?{job}",
                               data=json.dumps({"device_id": device}), content_type="application/json")
        assert response.status_code == 200 and response.get_json()["step_total_num"] == 4
    cluster = client.post(f"{API}/profile/cluster-step-trace-summary?train_id=./demo", data="{}", content_type="application/json").get_json()
    assert cluster["parallel-mode"] == "data-parallel" and cluster["size"] == 2
    assert client.get(f"{API}/profile/summary/cluster-propose?train_id=./demo").status_code == 200


def test_malformed_cluster_names(damaged: tuple[FlaskClient, Path]) -> None:
    """A cluster analyse file naming 0 stages is not a parallel context (no division by zero, no 500)."""
    client, base = damaged
    prof = base / "cluster4" / "profiler"
    for path in prof.glob("ascend_cluster_analyse_*.csv"):
        path.rename(path.with_name(path.name.replace("_2_4_", "_0_4_")))
    answer = client.post(f"{API}/profile/cluster-step-trace-summary?train_id=./cluster4", data="{}", content_type="application/json").get_json()
    assert answer["parallel-mode"] == "data-parallel" and answer["size"] == 4
    assert client.get(f"{API}/profile/summary/cluster-propose?train_id=./cluster4").status_code == 200
