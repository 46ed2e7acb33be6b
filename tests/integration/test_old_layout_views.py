"""The views added since MindInsight (overview, step-trace-time, cluster-step-trace, compare, advice) over the old
layout (MindSpore <= 2.2: step_trace_raw, cluster analyse, AI Core type files; issue 30), with every number recomputed
here from the raw files with `csv`. They read the old layout through the same steps table as the newer ones."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.integration.test_old_profiler_api import API, CORPUS, _app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    if not CORPUS.exists():
        pytest.skip(f"{CORPUS} is absent: the old-layout profiles live in ../shared (present in CI)")
    return _app(CORPUS, tmp_path_factory.mktemp("old-views"))


def _csv(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]


def _trace(run: str, rank: int) -> list[dict[str, str]]:
    """The step rows of a step trace file, its average row (step `-`) left out."""
    header, rows = _csv(CORPUS / run / "profiler" / f"step_trace_raw_{rank}_detail_time.csv")
    return [dict(zip(header, r, strict=False)) for r in rows if r[0] != "-"]


def _cluster(rank: int) -> list[dict[str, str]]:
    header, rows = _csv(CORPUS / "cluster4" / "profiler" / f"ascend_cluster_analyse_pipeline-parallel_2_4_{rank}.csv")
    return [dict(zip(header, r, strict=True)) for r in rows[:-1]]  # the last row is the average


def get(client: FlaskClient, view: str, run: str, **query: Any) -> dict[str, Any]:
    response = client.get(f"{API}/profile/{view}", query_string={"train_id": f"./{run}", "profile": "profiler", **query})
    assert response.status_code == 200, (view, run, response.get_data(as_text=True)[:300])
    answer: dict[str, Any] = response.get_json()
    return answer


def test_overview_has_the_op_types_and_every_step(client: FlaskClient) -> None:
    answer = get(client, "overview", "run1", device_id="1")
    _, rows = _csv(CORPUS / "run1" / "profiler" / "aicore_intermediate_1_type.csv")
    total_us = sum(float(r[1]) * 1000 for r in rows)
    top = max(rows, key=lambda r: float(r[1]))
    trace = _trace("run1", 1)
    assert answer["step_count"] == len(trace) == 322
    assert answer["op_total_time_us"] == pytest.approx(total_us, abs=0.01)
    assert answer["top_op_types"][0]["op_type"] == top[0]
    assert answer["top_op_types"][0]["percent"] == pytest.approx(float(top[1]) * 1000 / total_us * 100, abs=0.001)
    assert answer["total_time_us"] == pytest.approx(sum(int(r["total"]) for r in trace) / 100, abs=0.01)
    assert "no_op_data" not in {h["code"] for h in answer["hints"]}  # it said "No operator statistics were written"


def test_overview_of_a_parallel_job_counts_the_device_phase_as_busy(client: FlaskClient) -> None:
    """A pipeline-parallel rank: its step's busy time is the step trace's fp+bp and tail (the cluster analyse file's
    computing leaves communication and bubbles out), so it is not called host-bound (it was: 91.9 % idle)."""
    answer = get(client, "overview", "cluster4", device_id="0")
    trace = _trace("cluster4", 0)
    for got, raw in zip(answer["steps"], trace, strict=True):
        assert got["compute_us"] == pytest.approx((int(raw["fp_and_bp"]) + int(raw["tail"])) / 100, abs=0.01)
    assert "host_bound" not in {h["code"] for h in answer["hints"]}


def test_step_trace_time_from_the_step_trace_alone(client: FlaskClient) -> None:
    answer = get(client, "step-trace-time", "run1", device_id="1")
    trace = _trace("run1", 1)
    assert [s["step"] for s in answer["steps"]] == [int(r["step_num"]) for r in trace]
    for got, raw in zip(answer["steps"], trace, strict=True):
        assert got["total_us"] == pytest.approx(int(raw["total"]) / 100, abs=0.005)
        assert got["fp_and_bp_us"] == pytest.approx(int(raw["fp_and_bp"]) / 100, abs=0.005)
        assert got["iteration_interval_us"] == pytest.approx(int(raw["iteration_interval"]) / 100, abs=0.005)
        assert got["computing_us"] is None  # a single device's old layout does not split the step: said, not made up
    assert "cluster analyse" in answer["problems"][0]["message"]


@pytest.mark.parametrize("rank", [0, 3])
def test_step_trace_time_takes_the_phases_from_the_cluster_analyse_file(client: FlaskClient, rank: int) -> None:
    answer = get(client, "step-trace-time", "cluster4", device_id=str(rank))
    trace, phases = _trace("cluster4", rank), _cluster(rank)
    assert len(answer["steps"]) == len(trace) == len(phases) and "problems" not in answer
    for got, raw, split in zip(answer["steps"], trace, phases, strict=True):
        total = int(raw["total"]) / 100
        computing = float(split["computation_time"]) * 1000
        alone = float(split["communication_alone_time"]) * 1000
        assert got["computing_us"] == pytest.approx(computing, abs=0.001)
        assert got["communication_not_overlapped_us"] == pytest.approx(alone, abs=0.001)
        assert got["bubble_us"] == pytest.approx(float(split["receive_alone_time"]) * 1000, abs=0.001)
        assert got["stage_us"] == pytest.approx(float(split["stage_time"]) * 1000, abs=0.001)
        assert got["free_us"] == pytest.approx(max(0.0, total - computing - alone), abs=0.01)


def test_cluster_step_trace_groups_the_pipeline_stages_named_by_the_files(client: FlaskClient) -> None:
    answer = get(client, "cluster-step-trace", "cluster4")
    # ascend_cluster_analyse_pipeline-parallel_2_4_<rank>.csv: 2 stages of 4 ranks, rank r in stage r // 2
    assert answer["peers"] == {"groups": [[0, 1], [2, 3]], "source": "cluster_analyse file name"}
    by_rank = {r["rank_id"]: r for r in answer["ranks"]}
    assert sorted(by_rank) == [0, 1, 2, 3] and "problems" not in answer
    for rank, row in by_rank.items():
        phases = _cluster(rank)
        assert row["step_count"] == len(phases)
        mean = sum(float(p["computation_time"]) * 1000 for p in phases) / len(phases)
        assert row["computing_us"] == pytest.approx(mean, abs=0.01)
    # stage 1 waits on receives (its bubble) and that is not a slow rank among its peers
    assert answer["slow_ranks"] == []


def test_compare_and_advice_read_the_old_layout(client: FlaskClient) -> None:
    compare = get(client, "compare", "cluster4", device_id="3", base_device_id="0")
    steps = compare["steps"]
    mean = {r: sum(float(p["computation_time"]) * 1000 for p in _cluster(r)) / len(_cluster(r)) for r in (0, 3)}
    assert steps["computing_us"]["value"] == pytest.approx(mean[3], abs=0.01)
    assert steps["computing_us"]["diff"] == pytest.approx(mean[3] - mean[0], abs=0.01)
    assert steps["step_count"] == {"value": 5, "base": 5, "diff": 0}
    advice = get(client, "advice", "cluster4")
    assert not [p for p in advice.get("problems", []) if "step" in p.get("file", "")], advice.get("problems")
    # the ranks are the old layout's own (they were left out: only ranks with an ASCEND_PROFILER_OUTPUT counted)
    ranks = sorted(int(p.name.split("_")[3]) for p in (CORPUS / "cluster4" / "profiler").glob("step_trace_raw_*"))
    assert advice["ranks"] == ranks
    rules = {r["id"]: r for r in advice["rules"]}
    assert rules["slow_rank_step"]["ranks_checked"] == ranks and rules["free_time"]["ranks_checked"] == ranks


def test_compare_of_single_ranks_uses_the_step_trace_total(client: FlaskClient) -> None:
    """Without a phase split (one device) the step total is the step trace's own, not the sum of null phases (0)."""
    answer = get(client, "compare", "devdir", device_id="10", base_device_id="0")
    mean = {r: sum(int(t["total"]) / 100 for t in _trace("devdir", r)) / len(_trace("devdir", r)) for r in (0, 10)}
    total = answer["steps"]["step_total_us"]
    assert total["value"] == pytest.approx(mean[10], abs=0.01) and total["base"] == pytest.approx(mean[0], abs=0.01)
    assert answer["steps"]["computing_us"] == {"value": None, "base": None, "diff": None}


def test_one_step_of_mindspore_1x_with_its_all_zero_average_row(tmp_path: Path) -> None:
    """MindSpore 1.1-1.5's step trace parser averages steps 2..N: with a single step the average row is all zeros
    (step 0, no `-`). MindInsight takes the last row by position; we read it too (it was refused as truncated),
    while a file whose last row is a step (cut) is still refused."""
    prof = tmp_path / "base" / "job" / "profiler"
    prof.mkdir(parents=True)
    header = "step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail"
    step = "1,1000000,3000000,2000000,1100000,2600000,100000,1500000,400000"
    (prof / "step_trace_raw_0_detail_time.csv").write_text(f"{header}\n{step}\n{','.join(['0'] * 9)}\n")
    (prof / "step_trace_raw_1_detail_time.csv").write_text(f"{header}\n{step}\n")  # cut: no average row
    client = _app(tmp_path / "base", tmp_path)
    graph = client.get(f"{API}/profile/training-trace/graph?dir=./job&device_id=0&type=1").get_json()
    assert graph["size"] == 1 and graph["summary"]["total_time"] == 0.0 and graph["summary"]["tail_percent"] == "0%"
    assert graph["training_trace_graph"][0][0] == {"name": "", "start": 0.0, "duration": 20.0}  # 2,000,000 × 10 ns
    steps = get(client, "step-trace-time", "job", device_id="0")["steps"]
    assert [(s["step"], s["total_us"], s["tail_us"]) for s in steps] == [(1, 20000.0, 4000.0)]
    cut = client.get(f"{API}/profile/training-trace/graph?dir=./job&device_id=1&type=1")
    assert cut.status_code == 400 and cut.get_json()["error_code"] == "50546087"


def test_mindspore_2_0_step_trace_with_float_stream_columns_is_read(tmp_path: Path) -> None:
    """MindSpore 2.0-2.1 (AscendStepTraceGenerator) typed the parallel-stream columns float, so numpy wrote
    `12300.000000000002` and `1.736408883704643e+17` there; MindInsight's int() refused every step's graph. They are
    read (rounded to system counts): the stream line shows the AllReduce; a cell that is no number still fails."""
    prof = tmp_path / "base" / "job" / "profiler"
    prof.mkdir(parents=True)
    stream = "stream_3_12_AllReduce-op1"
    header = ("step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,fp_and_bp,tail,"
              f"{stream},{stream}_start_point,{stream}_end_point")
    t0 = 173640888370464300  # system counts (10 ns)
    step = f"1,{t0},{t0 + 2_000_000},2000000,{t0 + 100_000},{t0 + 1_600_000},100000,1500000,400000"
    reduce = f"12300.000000000002,{float(t0 + 1_700_000)!r},{float(t0 + 1_712_300)!r}"
    average = f"-,{t0},{t0 + 2_000_000},2000000,{t0 + 100_000},{t0 + 1_600_000},100000,1500000,400000,{reduce}"
    (prof / "step_trace_raw_0_detail_time.csv").write_text(f"{header}\n{step},{reduce}\n{average}\n")
    (prof / "step_trace_raw_1_detail_time.csv").write_text(f"{header}\n{step},{reduce}\n"
                                                         f"{average.replace('12300.000000000002', 'nan')}\n")
    client = _app(tmp_path / "base", tmp_path)
    graph = client.get(f"{API}/profile/training-trace/graph?dir=./job&device_id=0&type=1")
    assert graph.status_code == 200, graph.get_json()
    lines = graph.get_json()["training_trace_graph"]
    assert lines[0] == [{"name": "", "start": 0.0, "duration": 20.0}]
    assert lines[2][1]["name"] == stream and lines[2][1]["duration"] == 0.123
    assert lines[2][1]["start"] == pytest.approx(17.0, abs=0.001)  # float64 keeps t0 to within 32 counts
    assert graph.get_json()["summary"]["total_time"] == 20.0
    bad = client.get(f"{API}/profile/training-trace/graph?dir=./job&device_id=1&type=0")
    assert bad.status_code == 400 and bad.get_json()["error_code"] == "50546087"


def test_column_definitions_describe_the_old_layout(client: FlaskClient) -> None:
    """profile/columns declares the old layout's units: aicore_type's total_time, converted by its declared unit,
    sums to the overview's operator time (read from the same file); every step-trace-time key is declared in µs."""
    defs = client.get(f"{API}/profile/columns").get_json()
    old = {c["name"]: c["unit"] for c in defs["old_layout"]["aicore_type"]}
    to_us = {"ms": 1000.0, "us": 1.0}[old["total_time"]]
    body = {"op_type": "aicore_type", "device_id": "1", "group_condition": {"limit": 100, "offset": 0}}
    answer = client.post(f"{API}/profile/ops/search?train_id=./run1&profile=profiler", json=body).get_json()
    col = answer["col_name"].index("total_time")
    assert 0 < len(answer["object"]) == answer["size"]  # one page holds every type
    total_us = sum(float(row[col]) for row in answer["object"]) * to_us
    assert total_us == pytest.approx(get(client, "overview", "run1", device_id="1")["op_total_time_us"], rel=1e-6)
    steps = {c["name"]: c["unit"] for c in defs["tables"]["steps"]}
    for step in get(client, "step-trace-time", "cluster4", device_id="0")["steps"]:
        assert set(step) <= set(steps)
        assert {steps[k] for k in step if k != "step"} == {"us"}
