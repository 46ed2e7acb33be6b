"""`profile/advice` and `profile/cluster-step-trace` through create_app over jobs this module writes number by
number (tests/ascend_jobs.py): every rule on data made to trigger it and on data that must not, and the
pipeline-parallel job whose ranks were all called slow. Expected values are worked out here from the numbers
written, with the formulas docs/profiler.md states."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests import ascend_jobs as aj
from tests.conftest import require_shared
from tests.integration.test_ascend_profiler import API, CLUSTER_REFERENCE, make_client, read_csv

PHASES = ("computing_us", "communication_not_overlapped_us", "free_us")


def _mix(job: Path) -> None:
    """4 ranks; rank 0 triggers free time, AI CPU, dispatch gaps and low bandwidth, rank 2→3 is a slow link;
    ranks 1..3 hold the near misses that must not trigger."""
    free_us = {0: 150.0, 1: 50.0, 2: 95.0, 3: 0.0}  # per 1000 µs step: 15 %, 5 %, 9.5 %, 0 %
    for r in range(4):
        aj.write_steps(job, r, [aj.step_row(1, 700.0, 300.0 - free_us[r], free_us[r])])
    # AI CPU: rank 0 has a 25 µs task (>= 20), rank 1 only 15 µs ones, rank 2 none
    aj.write_op_statistic(job, 0, [("MatMul", "AI_CORE", 10, 900.0, 80.0, 100.0), ("Unique", "AI_CPU", 4, 80.0,
                                                                                      15.0, 25.0)])
    aj.write_op_statistic(job, 1, [("MatMul", "AI_CORE", 10, 900.0, 80.0, 100.0), ("Unique", "AI_CPU", 4, 56.0,
                                                                                      12.0, 15.0)])
    aj.write_op_statistic(job, 2, [("MatMul", "AI_CORE", 10, 900.0, 80.0, 100.0)])
    # device tasks: rank 0 waits 2 ms twice in a 20 ms span (20 %); rank 1 has 0.9 ms gaps (below 1 ms) only;
    # rank 2 has one 1.5 ms gap in a 20.5 ms span (7 %)
    aj.write_kernels(job, 0, [("a", "MatMul", "AI_CORE", 0.0, 8000.0), ("b", "MatMul", "AI_CORE", 10000.0, 4000.0),
                              ("c", "MatMul", "AI_CORE", 16000.0, 4000.0)])
    aj.write_kernels(job, 1, [("a", "MatMul", "AI_CORE", i * 1900.0, 1000.0) for i in range(11)])
    aj.write_kernels(job, 2, [("a", "MatMul", "AI_CORE", 0.0, 9000.0), ("b", "MatMul", "AI_CORE", 5000.0, 4000.0),
                              ("c", "MatMul", "AI_CORE", 10500.0, 10000.0)])
    # bandwidth: rank 0 HCCS 10 GB/s (56 % of 18) in small packets; rank 1 HCCS 17 GB/s (94 %); rank 1 RDMA
    # 11 GB/s (88 % of 12.5); rank 0 SIO is slow but has no typical value
    ops = {0: {"HCCS": aj.link(100.0, 10.0, packets=50, large_ratio=0.0), "SIO": aj.link(1.0, 1.0, 1)},
           1: {"HCCS": aj.link(170.0, 10.0, packets=5, large_ratio=1.0), "RDMA": aj.link(110.0, 10.0, 5, 1.0)},
           2: {}, 3: {}}
    for r in range(4):
        aj.write_communication(job, r, {"collective": {"hcom_allReduce__1_0_1@g": aj.comm_op(10.0, ops[r])}})
    # links: HCCS among the 4 ranks at 18 GB/s except 2→3 at 7 GB/s; LOCAL copies are far faster and left out
    for src in range(4):
        cells = {f"{src}-{dst}": aj.matrix_link("HCCS", 36.0, 2.0 if (src, dst) != (2, 3) else 36.0 / 7.0)
                 for dst in range(4) if dst != src}
        cells[f"{src}-{src}"] = aj.matrix_link("LOCAL", 36.0, 0.05)
        aj.write_matrix(job, src, {"allreduce-total@g": cells, "allreduce-top1@g": cells})


def _clean(job: Path) -> None:
    """4 ranks where no rule may trigger: all numbers near but on the right side of each threshold."""
    for r in range(4):
        aj.write_steps(job, r, [aj.step_row(1, 800.0, 105.0 + r, 95.0 - r)])  # free 9.2–9.5 %, totals equal
        aj.write_op_statistic(job, r, [("MatMul", "AI_CORE", 10, 900.0, 80.0, 100.0),
                                       ("Unique", "AI_CPU", 2, 38.0, 18.0, 19.9)])
        aj.write_kernels(job, r, [("a", "MatMul", "AI_CORE", i * 1999.0, 1000.0) for i in range(10)])
        links = {"HCCS": aj.link(150.0, 10.0, 5, 1.0), "RDMA": aj.link(101.0, 10.0, 5, 1.0)}  # 83 %, 81 %
        aj.write_communication(job, r, {"collective": {
            f"hcom_allReduce__{k}_0_1@g": aj.comm_op(10.0 + 0.1 * r + k, links) for k in range(3)}})
        cells = {f"{r}-{dst}": aj.matrix_link("HCCS", 36.0, 2.0 + 0.2 * dst) for dst in range(4) if dst != r}
        aj.write_matrix(job, r, {"allreduce-total@g": cells})


def _votes(job: Path) -> None:
    """10 ranks in one group, 5 all-reduces; rank 5's copy is short in 4 of them (the others waited for it);
    tiny kernel tables on every rank (more than the advisor reads)."""
    for r in range(10):
        aj.write_steps(job, r, [aj.step_row(1, 700.0, 250.0, 50.0)])
        aj.write_kernels(job, r, [("a", "MatMul", "AI_CORE", 0.0, 10.0), ("b", "MatMul", "AI_CORE", 10.0, 10.0)])
        ops = {f"hcom_allReduce__{k}_0_1@world": aj.comm_op(0.2 if (r == 5 and k < 4) else 10.0 + 0.1 * r + k)
               for k in range(5)}
        aj.write_communication(job, r, {"collective": ops})


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("advice")
    _mix(root / "mix")
    _clean(root / "clean")
    _votes(root / "votes")
    aj.pipeline_job(root / "pp_equal", computing={0: 400_000.0, 1: 400_000.0, 2: 500_000.0, 3: 500_000.0},
                    totals_us={0: 809_400.0, 1: 810_200.0, 2: 809_800.0, 3: 810_000.0})
    # stages by design: stage 0 700 ms a step, stage 1 810 ms, and rank 3 truly slow (972 ms, in computing)
    aj.pipeline_job(root / "pp_slow", computing={0: 300_000.0, 1: 300_000.0, 2: 500_000.0, 3: 662_000.0},
                    totals_us={0: 700_000.0, 1: 700_000.0, 2: 810_000.0, 3: 972_000.0})
    return root


@pytest.fixture(scope="module")
def client(base: Path, tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    return make_client(base, tmp_path_factory.mktemp("ws"))


def _advice(client: FlaskClient, job: str) -> dict[str, Any]:
    response = client.get(f"{API}/profile/advice?train_id=./{job}&profile=profiler")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def _finding(answer: dict[str, Any], rule: str) -> dict[str, Any] | None:
    found = [f for f in answer["findings"] if f["id"] == rule]
    return found[0] if found else None


def _status(answer: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["status"] for r in answer["rules"]}


def test_every_finding_says_its_rule_threshold_and_view(client: FlaskClient) -> None:
    answer = _advice(client, "mix")
    assert {f["id"] for f in answer["findings"]} == {"free_time", "aicpu", "dispatch_gap", "low_bandwidth",
                                                     "slow_link"}
    views = {"free_time": "overview", "aicpu": "ops", "dispatch_gap": "timeline", "low_bandwidth": "communication",
             "slow_link": "communication"}
    for f in answer["findings"]:
        assert f["view"] == views[f["id"]]
        assert f["rule"] and f["threshold"] and f["title"] and f["detail"]
        assert f["severity"] in ("high", "medium", "low")
    order = [{"high": 0, "medium": 1, "low": 2}[f["severity"]] for f in answer["findings"]]
    assert order == sorted(order)


def test_free_time_above_ten_percent(client: FlaskClient) -> None:
    f = _finding(_advice(client, "mix"), "free_time")
    assert f is not None and f["ranks"] == [0]  # 15 %; 5 %, 9.5 % and 0 % stay quiet
    assert f["evidence"]["rows"][0]["share"] == pytest.approx(150 / 1000)
    assert f["severity"] == "medium"  # not above 25 %
    assert _finding(_advice(client, "clean"), "free_time") is None


def test_aicpu_operators_of_twenty_microseconds(client: FlaskClient) -> None:
    f = _finding(_advice(client, "mix"), "aicpu")
    assert f is not None and f["ranks"] == [0]  # rank 1's AI CPU tasks stay under 20 µs
    row = f["evidence"]["rows"][0]
    assert (row["op_type"], row["count"], row["total_us"], row["max_us"]) == ("Unique", 4, 80.0, 25.0)
    assert row["share"] == pytest.approx(80 / 980, abs=1e-4)
    clean = _advice(client, "clean")
    assert _finding(clean, "aicpu") is None and _status(clean)["aicpu"] == "ok"


def test_dispatch_gaps(client: FlaskClient) -> None:
    f = _finding(_advice(client, "mix"), "dispatch_gap")
    assert f is not None and f["ranks"] == [0]
    row = f["evidence"]["rows"][0]
    # tasks 0–8000, 10000–14000, 16000–20000: two 2 ms gaps in a 20 ms span
    assert (row["gaps"], row["gap_total_us"], row["span_us"], row["longest_us"], row["longest_at_us"]) == (
        2, 4000.0, 20000.0, 2000.0, 8000.0)
    assert row["share"] == pytest.approx(0.2)
    assert _finding(_advice(client, "clean"), "dispatch_gap") is None  # 0.999 ms gaps are not long


def test_bandwidth_far_below_the_typical(client: FlaskClient) -> None:
    f = _finding(_advice(client, "mix"), "low_bandwidth")
    assert f is not None and f["ranks"] == [0]
    row = f["evidence"]["rows"][0]
    assert (row["transport"], row["gbps"], row["typical_gbps"], row["cause"]) == ("HCCS", 10.0, 18.0, "small packets")
    assert row["utilization"] == pytest.approx(10 / 18, abs=1e-4)
    assert f["threshold"]["typical_gbps"] == {"HCCS": 18.0, "PCIE": 20.0, "RDMA": 12.5}
    assert _finding(_advice(client, "clean"), "low_bandwidth") is None


def test_slow_link(client: FlaskClient) -> None:
    f = _finding(_advice(client, "mix"), "slow_link")
    assert f is not None
    rows = f["evidence"]["rows"]
    speeds = [18.0] * 11 + [7.0]  # the 12 HCCS links, LOCAL left out; `-top1` entries not counted twice
    assert [(r["src"], r["dst"]) for r in rows] == [(2, 3)]
    assert rows[0]["gbps"] == pytest.approx(7.0) and rows[0]["type_mean_gbps"] == pytest.approx(
        statistics.fmean(speeds), abs=1e-3)
    assert f["ranks"] == [2, 3]
    clean = _advice(client, "clean")
    assert _finding(clean, "slow_link") is None and _status(clean)["slow_link"] == "ok"


def test_slow_rank_by_voting(client: FlaskClient) -> None:
    answer = _advice(client, "votes")
    f = _finding(answer, "slow_rank_vote")
    assert f is not None and f["ranks"] == [5]
    assert f["evidence"]["votes"] == [{"rank_id": 5, "votes": 4}] and f["evidence"]["ops_tested"] == 5
    # Dixon r11 for 10 ranks: (x2 − x1) / (x9 − x1) against 0.638
    values = sorted([0.2] + [10.0 + 0.1 * r for r in range(10) if r != 5])
    assert (values[1] - values[0]) / (values[-2] - values[0]) > 0.638
    assert f["severity"] == "high"  # 4 of 5 operators
    clean = _advice(client, "clean")  # 4 ranks, evenly spread times: no vote
    assert _finding(clean, "slow_rank_vote") is None and _status(clean)["slow_rank_vote"] == "ok"
    assert _status(_advice(client, "mix"))["slow_rank_vote"] == "ok"


def test_kernel_tables_are_bounded_and_the_rest_named(client: FlaskClient) -> None:
    answer = _advice(client, "votes")
    rule = next(r for r in answer["rules"] if r["id"] == "dispatch_gap")
    assert answer["max_kernel_ranks"] == 8
    # the voted rank first, then by id
    assert rule["ranks_checked"] == [0, 1, 2, 3, 4, 5, 6, 7] and rule["skipped_ranks"] == [8, 9]
    assert any(p.get("rule") == "dispatch_gap" and "2 rank(s) not checked" in p["message"]
               for p in answer["problems"])


def test_rules_without_their_files_say_so(client: FlaskClient) -> None:
    status = _status(_advice(client, "pp_equal"))
    assert status["aicpu"] == "no_data" and status["dispatch_gap"] == "no_data" and status["slow_link"] == "no_data"


# --- the pipeline-parallel job ---------------------------------------------------------------------------------


def _old_rule(ranks: list[dict[str, Any]]) -> set[int]:
    """The rule this branch replaced: per phase, imbalanced when (max − min) / mean > 5 %, then every rank more than
    5 % above the median of that phase was slow."""
    slow = set()
    for p in PHASES:
        values = [r[p] for r in ranks]
        if (max(values) - min(values)) / statistics.fmean(values) > 0.05:
            slow |= {r["rank_id"] for r in ranks if r[p] > statistics.median(values) * 1.05}
    return slow


def test_pipeline_stages_with_equal_step_times_have_no_slow_rank(client: FlaskClient) -> None:
    answer = client.get(f"{API}/profile/cluster-step-trace?train_id=./pp_equal&profile=profiler").get_json()
    ranks = answer["ranks"]
    totals = [sum(r[p] for p in PHASES) for r in ranks]
    assert min(totals) == pytest.approx(809_400.0) and max(totals) == pytest.approx(810_200.0)
    assert ranks[2]["computing_us"] / ranks[0]["computing_us"] == pytest.approx(1.25)
    assert _old_rule(ranks) == {0, 1, 2, 3}  # the data reproduces the report: every rank was flagged
    assert answer["slow_ranks"] == []
    assert answer["rule"]["tolerance"] == 0.05
    assert _finding(_advice(client, "pp_equal"), "slow_rank_step") is None


def test_pipeline_stages_are_peers_and_the_slow_phase_is_named(client: FlaskClient) -> None:
    answer = client.get(f"{API}/profile/cluster-step-trace?train_id=./pp_slow&profile=profiler").get_json()
    assert answer["peers"] == {"source": "communication", "groups": [[0, 1], [2, 3]]}
    ranks = {r["rank_id"]: r for r in answer["ranks"]}
    median = statistics.median([810_000.0, 972_000.0])
    assert [(s["rank_id"], s["phase"]) for s in answer["slow_ranks"]] == [(3, "computing")]
    slow = answer["slow_ranks"][0]
    assert slow["step_deviation"] == pytest.approx((972_000 - median) / median, abs=1e-4)
    computing_median = statistics.median([ranks[2]["computing_us"], ranks[3]["computing_us"]])
    assert slow["deviation"] == pytest.approx((662_000 - computing_median) / computing_median, abs=1e-4)
    f = _finding(_advice(client, "pp_slow"), "slow_rank_step")
    assert f is not None and f["ranks"] == [3] and f["view"] == "cluster"


def test_stages_from_parallel_group_info(client: FlaskClient, base: Path) -> None:
    job = base / "pp_meta"
    aj.pipeline_job(job, computing={0: 300_000.0, 1: 300_000.0, 2: 500_000.0, 3: 662_000.0},
                    totals_us={0: 700_000.0, 1: 700_000.0, 2: 810_000.0, 3: 972_000.0})
    groups = {"1": {"group_name": "dp", "global_ranks": [0, 1]}, "2": {"group_name": "dp", "global_ranks": [2, 3]},
              "3": {"group_name": "pp", "global_ranks": [0, 2]}, "4": {"group_name": "pp", "global_ranks": [1, 3]}}
    for r in range(4):
        (aj.output_dir(job, r) / "communication.json").unlink()
        (aj.output_dir(job, r).parent / "profiler_metadata.json").write_text(
            json.dumps({"parallel_group_info": groups}), encoding="utf-8")
    answer = client.get(f"{API}/profile/cluster-step-trace?train_id=./pp_meta&profile=profiler").get_json()
    assert answer["peers"] == {"source": "parallel_group_info", "groups": [[0, 1], [2, 3]]}
    assert [s["rank_id"] for s in answer["slow_ranks"]] == [3]


def test_stages_from_the_cluster_analyser_output(tmp_path: Path) -> None:
    """The 16-rank reference job: its ranks' step splits, and msprof-analyze's own stage rows beside them. Stage 1
    waits in receives (bubbles) by design; among peers nobody is slow, among all ranks all of stage 1 would be."""
    require_shared(CLUSTER_REFERENCE)
    rows = read_csv(CLUSTER_REFERENCE / "cluster_step_trace_time.csv")
    job = tmp_path / "base" / "job"
    headers = aj.STEP_HEADER[1:-1]
    for row in rows:
        if row["Type"] == "rank":
            aj.write_steps(job, int(row["Index"]), [[row["Step"], *(row[h] for h in headers), ""]])
    shutil.copytree(CLUSTER_REFERENCE, job / "profiler" / "cluster_analysis_output")
    client = make_client(tmp_path / "base", tmp_path / "ws")
    answer = client.get(f"{API}/profile/cluster-step-trace?train_id=./job&profile=profiler").get_json()
    stages = [sorted(int(x) for x in r["Index"].strip("()").split(",")) for r in rows if r["Type"] == "stage"]
    assert answer["peers"] == {"source": "cluster_analysis_output", "groups": stages}
    totals = {int(r["Index"]): sum(float(r[h]) for h in ("Computing", "Communication(Not Overlapped)", "Free"))
              for r in rows if r["Type"] == "rank"}
    expected = [r for stage in stages for r in stage
                if totals[r] > statistics.median(totals[x] for x in stage) * 1.05]
    assert [s["rank_id"] for s in answer["slow_ranks"]] == expected == []
    everyone = statistics.median(totals.values())
    assert [r for r, v in totals.items() if v > everyone * 1.05] == list(range(8, 16))
