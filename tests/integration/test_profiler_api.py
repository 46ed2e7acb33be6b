"""Profiler endpoints through create_app, over MindInsight's old layout (reference corpus + goldens) and the
MindSpore 2.10 layout (fixtures). Expected numbers are computed here from the raw CSV files with `csv`."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import FIXTURES, REFERENCE, require_shared

API = "/v1/mindinsight"
CORPUS = REFERENCE / "corpus"
GOLDEN = REFERENCE / "golden"
NEW_RUNS = ["profiler_cpu", "profiler_only_legacy_api"]
# Goldens where we answer differently on purpose (see docs/profiler.md): absolute train_ids are refused,
# messages carry relative paths only, and a job without a profiler dir is a 4xx, not a 500.
DELIBERATE = {"297", "298", "300", "302"}


def _client(base: Path, tmp_path: Path) -> FlaskClient:
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"))
    return create_app(settings, start_background=False).test_client()


@pytest.fixture
def old_client(tmp_path: Path) -> FlaskClient:
    require_shared(CORPUS / "prof_cpu")
    return _client(CORPUS, tmp_path)


@pytest.fixture
def new_client(tmp_path: Path) -> FlaskClient:
    require_shared(FIXTURES / "profiler_cpu")
    return _client(FIXTURES, tmp_path)


def _framework(run: str) -> Path:
    return next((FIXTURES / run / "profiler").glob("*_ascend_ms/FRAMEWORK"))


def _csv(path: Path) -> list[list[str]]:
    with path.open(newline="") as handle:
        return list(csv.reader(handle))[1:]


def _search(client: FlaskClient, run: str, body: dict[str, Any]) -> Any:
    response = client.post(f"{API}/profile/ops/search?train_id=./{run}&profile=profiler", data=json.dumps(body), content_type="application/json")
    return response


def _goldens() -> list[Path]:
    if not GOLDEN.exists():
        return []
    return sorted(p for p in GOLDEN.glob("[0-9]*.json")
                  if (144 <= int(p.name[:3]) <= 181 or 295 <= int(p.name[:3]) <= 303) and p.name[:3] not in DELIBERATE)


# --- old layout: goldens ----------------------------------------------------------------------


@pytest.mark.parametrize("golden", _goldens(), ids=lambda p: p.name[:3])
def test_old_layout_matches_golden(old_client: FlaskClient, golden: Path) -> None:
    case = json.loads(golden.read_text())
    data = json.dumps(case["body"]) if "body" in case else None
    response = old_client.open(case["path"], method=case["method"], data=data, content_type="application/json")
    assert response.status_code == case["status"]
    assert response.get_json() == case["response"]


def test_propose_keeps_mindinsight_key_order(old_client: FlaskClient) -> None:
    response = old_client.get(f"{API}/profile/summary/propose?train_id=./prof_cpu&profile=profiler&device_id=0")
    assert response.data == b'{"common-proposer_type_label":null,"common-profiler_tutorial":null}'


def test_deliberate_differences(old_client: FlaskClient) -> None:
    # 297: an absolute train_id does not escape the base dir; it is refused like a traversal.
    response = old_client.get(f"{API}/profile/devices?train_id=/etc&profile=profiler")
    assert response.status_code == 400
    assert response.get_json()["error_code"] == "50540002"
    # 298: same code, relative path.
    response = old_client.get(f"{API}/profile/devices?train_id=./landscape&profile=profiler")
    assert response.get_json() == {"error_code": "50546083", "error_msg": "The dir <./landscape/profiler> not found."}
    # 300: MindInsight answers 500 here.
    response = old_client.get(f"{API}/profile/timeline-summary?dir=./landscape")
    assert response.status_code == 400
    assert response.get_json()["error_code"] == "50546083"
    # 302: no absolute path in the message.
    response = old_client.get(f"{API}/profile/timeline-summary?dir=./does_not_exist")
    assert response.status_code == 400
    body = response.get_json()
    assert body["error_code"] == "50545005"
    assert str(CORPUS) not in body["error_msg"] and "/work" not in body["error_msg"]


@pytest.mark.parametrize("url", [
    "/profile/devices?train_id=./nope&profile=profiler",
    "/profile/devices?train_id=./prof_cpu&profile=../prof_cpu",
    "/profile/devices?train_id=./prof_cpu/../..&profile=profiler",
    "/profile/timeline?dir=./nope",
    "/profile/timeline?dir=%2Fetc",
    "/profile/flops-summary?train_id=./landscape",
    "/profile/overview?train_id=./nope&profile=profiler",
])
def test_errors_never_show_absolute_paths(old_client: FlaskClient, url: str) -> None:
    response = old_client.get(API + url)
    assert 400 <= response.status_code < 500
    assert str(CORPUS.resolve()) not in response.get_data(as_text=True)


# --- new layout: numbers from the raw CSV files -------------------------------------------------


@pytest.mark.parametrize("run", NEW_RUNS)
def test_new_layout_devices(new_client: FlaskClient, run: str) -> None:
    response = new_client.get(f"{API}/profile/devices?train_id=./{run}&profile=profiler")
    assert response.get_json() == {"device_list": ["0"], "profiler_mode": "graph"}


@pytest.mark.parametrize("run", NEW_RUNS)
def test_new_layout_op_types_match_csv(new_client: FlaskClient, run: str) -> None:
    rows = _csv(_framework(run) / "cpu_op_type_info_0.csv")
    body = {"op_type": "cpu_op_type", "sort_condition": {"name": "total_compute_time", "type": "descending"}}
    answer = _search(new_client, run, body).get_json()
    assert answer["size"] == len(rows)
    expected = sorted(rows, key=lambda r: float(r[3]), reverse=True)
    assert [r[0] for r in answer["object"]] == [r[0] for r in expected]
    for got, raw in zip(answer["object"], expected, strict=True):
        assert got[1] == int(raw[1]) and got[2] == int(raw[2])
        assert got[3] == pytest.approx(float(raw[3]) * 1000, rel=1e-6, abs=1e-3)
        assert got[4] == pytest.approx(float(raw[4]) * 1000, rel=1e-6, abs=1e-3)
        assert got[5] == pytest.approx(float(raw[5]) * 100, rel=1e-4, abs=1e-3)


@pytest.mark.parametrize("run", NEW_RUNS)
def test_new_layout_op_info_match_csv(new_client: FlaskClient, run: str) -> None:
    rows = _csv(_framework(run) / "cpu_op_detail_info_0.csv")
    answer = _search(new_client, run, {"op_type": "cpu_op_info"}).get_json()
    assert answer["col_name"] == ["op_side", "op_type", "op_name", "full_op_name", "op_occurrences",
                                  "op_total_time", "op_avg_time", "total_time_proportion", "subgraph"]
    assert answer["size"] == len(rows) and len(answer["object"]) == len(rows)
    for got, raw in zip(answer["object"], rows, strict=True):  # no sort condition: file order
        assert got[:4] == raw[:4] and got[8] == raw[8]
        assert got[4] == int(raw[4])
        assert got[5] == pytest.approx(float(raw[5]) * 1000, rel=1e-6, abs=1e-3)
        assert got[7] == pytest.approx(float(raw[7]), abs=1e-6)


def test_search_filter_sort_and_paging(new_client: FlaskClient) -> None:
    run = "profiler_cpu"
    rows = _csv(_framework(run) / "cpu_op_detail_info_0.csv")
    # in / not_in on op_type
    answer = _search(new_client, run, {"op_type": "cpu_op_info",
                                       "filter_condition": {"op_type": {"in": ["ApplyMomentum", "MatMul"]}}}).get_json()
    assert answer["size"] == sum(r[1] in ("ApplyMomentum", "MatMul") for r in rows)
    answer = _search(new_client, run, {"op_type": "cpu_op_info",
                                       "filter_condition": {"op_type": {"not_in": ["ApplyMomentum"]}}}).get_json()
    assert answer["size"] == sum(r[1] != "ApplyMomentum" for r in rows)
    # partial match is case-insensitive, any of the strings
    answer = _search(new_client, run, {"op_type": "cpu_op_info",
                                       "filter_condition": {"op_name": {"partial_match_str_in": ["conv2d", "RELU"]}}}
                     ).get_json()
    assert answer["size"] == sum(("conv2d" in r[2].lower()) or ("relu" in r[2].lower()) for r in rows)
    # ascending sort by name, then pages of 5 (offset is a page number); size counts all filtered rows
    names = sorted(r[2] for r in rows)
    pages = []
    for page in range(0, (len(rows) + 4) // 5):
        answer = _search(new_client, run, {"op_type": "cpu_op_info",
                                           "sort_condition": {"name": "op_name", "type": "ascending"},
                                           "group_condition": {"limit": 5, "offset": page}}).get_json()
        assert answer["size"] == len(rows)
        pages.extend(r[2] for r in answer["object"])
    assert pages == names
    # past the end: an empty page
    answer = _search(new_client, run, {"op_type": "cpu_op_info", "group_condition": {"limit": 5, "offset": 99}}
                     ).get_json()
    assert answer["object"] == [] and answer["size"] == len(rows)
    # default sort type is descending
    answer = _search(new_client, run, {"op_type": "cpu_op_info", "sort_condition": {"name": "op_total_time"}}
                     ).get_json()
    times = [r[5] for r in answer["object"]]
    assert times == sorted(times, reverse=True)


@pytest.mark.parametrize(("body", "code"), [
    ({"op_type": "cpu_op_info", "device_id": 0}, "50546182"),
    ({"op_type": "nope"}, "50546183"),
    ({}, "50546183"),
    ({"op_type": "cpu_op_info", "group_condition": {"limit": 0}}, "50546184"),
    ({"op_type": "cpu_op_info", "group_condition": {"offset": -1}}, "50546184"),
    ({"op_type": "cpu_op_info", "group_condition": {"limit": True}}, "50546184"),
    ({"op_type": "cpu_op_info", "sort_condition": {"name": "op_total_time", "type": "up"}}, "50546185"),
    ({"op_type": "cpu_op_info", "sort_condition": {"name": "avg_time"}}, "50546185"),
    ({"op_type": "cpu_op_info", "filter_condition": {"op_type": {"like": ["x"]}}}, "50546186"),
    ({"op_type": "cpu_op_info", "filter_condition": {"op_type": {"in": [1]}}}, "50546186"),
    ({"op_type": "cpu_op_info", "filter_condition": {"other": {}}}, "50546186"),
    ({"op_type": "cpu_op_info", "device_id": "x"}, "50540001"),
    ([1, 2], "50546082"),
])
def test_search_condition_errors(new_client: FlaskClient, body: Any, code: str) -> None:
    response = _search(new_client, "profiler_cpu", body)
    assert response.status_code == 400
    assert response.get_json()["error_code"] == code


def test_search_bad_json_and_unknown_device(new_client: FlaskClient) -> None:
    response = new_client.post(f"{API}/profile/ops/search?train_id=./profiler_cpu&profile=profiler", data=b"{", content_type="application/json")
    assert response.get_json()["error_code"] == "50540002"
    answer = _search(new_client, "profiler_cpu", {"op_type": "cpu_op_type", "device_id": "7"}).get_json()
    assert answer["object"] == [] and answer["size"] == 0


@pytest.mark.parametrize("run", NEW_RUNS)
def test_new_layout_timeline(new_client: FlaskClient, run: str) -> None:
    trace_file = next((FIXTURES / run / "profiler").glob("*_ascend_ms/ASCEND_PROFILER_OUTPUT/trace_view.json"))
    raw = json.loads(trace_file.read_text())
    complete = [e for e in raw if e["ph"] == "X"]
    events = new_client.get(f"{API}/profile/timeline?dir=./{run}").get_json()
    assert len(events) == len(raw)
    assert sorted((e["name"], round(float(e["ts"]), 3)) for e in events if e["ph"] == "X") == sorted(
        (e["name"], round(float(e["ts"]), 3)) for e in complete)
    summary = new_client.get(f"{API}/profile/timeline-summary?dir=./{run}").get_json()
    assert summary["num_of_events"] == len(raw)
    first = min(float(e["ts"]) for e in complete)
    last = max(float(e["ts"]) + float(e["dur"]) for e in complete)
    assert summary["total_time"] == pytest.approx((last - first) / 1000, abs=1e-3)
    # downsampling keeps the longest events and every metadata event
    meta = sum(e["ph"] == "M" for e in raw)
    small = new_client.get(f"{API}/profile/timeline?dir=./{run}&max_events=10").get_json()
    assert len(small) == meta + 10
    longest = sorted((float(e["dur"]) for e in complete), reverse=True)[:10]
    assert sorted((e["dur"] for e in small if e["ph"] == "X"), reverse=True) == pytest.approx(longest, abs=1e-3)
    # a window keeps events overlapping it, sorted by start
    window = new_client.get(f"{API}/profile/timeline?dir=./{run}&start_us=0&end_us=1000").get_json()
    starts = [e["ts"] for e in window if e["ph"] == "X"]
    assert starts == sorted(starts)
    assert all(e["ts"] <= first + 1000 + 1e-3 and e["ts"] + e["dur"] >= first - 1e-3
               for e in window if e["ph"] == "X")


@pytest.mark.parametrize("query", ["max_events=0", "max_events=x", "start_us=abc", "end_us=nan"])
def test_timeline_bad_params(new_client: FlaskClient, query: str) -> None:
    response = new_client.get(f"{API}/profile/timeline?dir=./profiler_cpu&{query}")
    assert response.status_code == 400
    assert response.get_json()["error_code"] == "50546080"


@pytest.mark.parametrize("run", NEW_RUNS)
def test_new_layout_overview(new_client: FlaskClient, run: str) -> None:
    rows = _csv(_framework(run) / "cpu_op_type_info_0.csv")
    steps = round(int(rows[0][1]) / int(rows[0][2]))
    answer = new_client.get(f"{API}/profile/overview?train_id=./{run}&profile=profiler").get_json()
    assert answer["layout"] == "ms2" and answer["device_type"] == "cpu"
    assert answer["step_count"] == steps == len(answer["steps"])
    assert answer["op_total_time_us"] == pytest.approx(sum(float(r[3]) for r in rows) * 1000, rel=1e-6)
    top = max(rows, key=lambda r: float(r[3]))
    assert answer["top_op_types"][0]["op_type"] == top[0]
    assert answer["total_time_us"] >= max(s["duration_us"] for s in answer["steps"])
    assert all(h["code"] and h["message"] for h in answer["hints"])
    assert new_client.get(f"{API}/profile/overview?dir=./{run}").get_json() == answer


@pytest.mark.parametrize("run", NEW_RUNS)
def test_new_layout_memory_usage(new_client: FlaskClient, run: str) -> None:
    rows = _csv(_framework(run) / "cpu_ms_memory_record_0.txt")
    answer = new_client.get(f"{API}/profile/memory-usage?dir=./{run}").get_json()
    assert answer["count"] == len(rows) == len(answer["points"])
    assert answer["peak_allocated_bytes"] == max(int(r[1]) for r in rows)
    assert answer["peak_reserved_bytes"] == max(int(r[2]) for r in rows)
    small = new_client.get(f"{API}/profile/memory-usage?dir=./{run}&max_points=5").get_json()
    assert len(small["points"]) == 5
    assert max(p[1] for p in small["points"]) == answer["peak_allocated_bytes"]


def test_new_layout_mindinsight_shapes(new_client: FlaskClient) -> None:
    q = "train_id=./profiler_cpu&profile=profiler"
    assert new_client.get(f"{API}/profile/profile_info?{q}").get_json() == {}
    assert new_client.get(f"{API}/profile/memory-summary?dir=./profiler_cpu").get_json() == {"is_heterogeneous": True}
    assert new_client.get(f"{API}/profile/training-trace/graph?dir=./profiler_cpu").get_json() == {}
    response = new_client.get(f"{API}/profile/training-trace/target-time-info?dir=./profiler_cpu&type=fp")
    assert response.get_json()["error_code"] == "50546084"
    answer = new_client.post(f"{API}/profile/minddata-pipeline/op-queue?{q}", data="{}", content_type="application/json").get_json()
    assert answer["object"] == [] and answer["size"] == 0
    dirs = new_client.get(f"{API}/profile/dirs?train_id=./profiler_cpu").get_json()
    host_pages = [{"view": v, "has_data": True} for v in ("overview", "ops", "timeline", "steps", "memory", "pipeline")]
    assert dirs["profilers"] == [{"device_list": ["0"], "device_type": "cpu", "layout": "ms2", "profile": "profiler",
                                  "profiler_mode": "graph", "framework": "mindspore", "views": host_pages}]
    assert new_client.get(f"{API}/profile/dirs?train_id=./empty_run").get_json()["profilers"] == []


def test_multi_rank_sessions(tmp_path: Path) -> None:
    """Two processes (ranks 0 and 1) each write a session; the newest session wins for a repeated rank."""
    require_shared(FIXTURES / "profiler_cpu")
    source = _framework("profiler_cpu")
    profiler = tmp_path / "base" / "job" / "profiler"
    for name, rank in (("vm_1_20260101000000000_ascend_ms", "0"), ("vm_2_20260101000000001_ascend_ms", "1")):
        framework = profiler / name / "FRAMEWORK"
        framework.mkdir(parents=True)
        for kind in ("cpu_op_type_info", "cpu_op_detail_info"):
            shutil.copy(source / f"{kind}_0.csv", framework / f"{kind}_{rank}.csv")
    client = _client(tmp_path / "base", tmp_path)
    answer = client.get(f"{API}/profile/devices?train_id=./job&profile=profiler").get_json()
    assert answer["device_list"] == ["0", "1"]
    rows = _csv(source / "cpu_op_type_info_0.csv")
    for rank in ("0", "1"):
        result = client.post(f"{API}/profile/ops/search?train_id=./job&profile=profiler",
                             json={"op_type": "cpu_op_type", "device_id": rank}).get_json()
        assert result["size"] == len(rows)
