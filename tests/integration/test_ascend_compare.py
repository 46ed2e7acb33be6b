"""`profile/compare` and the tables the Ascend views lacked (operator-details, api-statistic, npu-module-mem,
cluster-communication-matrix, overview) through create_app over ../shared/fixtures/ascend, read in place. Every
expected number is computed here from the raw files with `csv` / `json`."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import require_shared
from tests.integration.test_ascend_profiler import (
    ASCEND,
    STEP_FIELDS,
    get,
    make_client,
    output,
    read_csv,
)

L0, L1 = "torch_npu_level0", "torch_npu_level1"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    require_shared(ASCEND)
    return make_client(ASCEND, tmp_path_factory.mktemp("ws"))


def _op_types(job: str, rank: str) -> dict[str, tuple[int, float]]:
    """op_type -> (count, total µs), cores summed: op_statistic.csv, else kernel_details.csv without HCCL."""
    out = output(job, rank)
    acc: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    if (out / "op_statistic.csv").exists():
        for r in read_csv(out / "op_statistic.csv"):
            acc[r["OP Type"]][0] += int(r["Count"])
            acc[r["OP Type"]][1] += float(r["Total Time(us)"])
    else:
        for r in read_csv(out / "kernel_details.csv"):
            if r["Accelerator Core"] != "HCCL":
                acc[r["Type"]][0] += 1
                acc[r["Type"]][1] += float(r["Duration(us)"])
    return {k: (int(v[0]), v[1]) for k, v in acc.items()}


def _step_means(job: str, rank: str) -> dict[str, float]:
    rows = read_csv(output(job, rank) / "step_trace_time.csv")
    return {k: statistics.fmean(float(r[h]) for r in rows) for k, h in STEP_FIELDS.items()}


def _check_compare(answer: dict[str, Any], value: tuple[str, str], base: tuple[str, str]) -> None:
    mine, theirs = _op_types(*value), _op_types(*base)
    assert {r["op_type"] for r in answer["op_types"]} == set(mine) | set(theirs)
    for row in answer["op_types"]:
        count, total = mine.get(row["op_type"], (0, 0.0))
        base_count, base_total = theirs.get(row["op_type"], (0, 0.0))
        assert (row["count"], row["base_count"]) == (count, base_count)
        assert row["total_us"] == pytest.approx(total, abs=1e-3)
        assert row["base_total_us"] == pytest.approx(base_total, abs=1e-3)
        assert row["diff_us"] == pytest.approx(total - base_total, abs=2e-3)
    diffs = [abs(r["diff_us"]) for r in answer["op_types"]]
    assert diffs == sorted(diffs, reverse=True)  # largest differences first
    a, b = _step_means(*value), _step_means(*base)
    for key in STEP_FIELDS:
        assert answer["steps"][key]["value"] == pytest.approx(a[key])
        assert answer["steps"][key]["base"] == pytest.approx(b[key])
        assert answer["steps"][key]["diff"] == pytest.approx(a[key] - b[key], abs=1e-3)
    phases = ("computing_us", "communication_not_overlapped_us", "free_us")
    assert answer["steps"]["step_total_us"]["diff"] == pytest.approx(
        sum(a[p] for p in phases) - sum(b[p] for p in phases), abs=1e-3)


def test_compare_two_ranks_of_one_job(client: FlaskClient) -> None:
    answer = get(client, "compare", L1, "0", base_device_id="1").get_json()
    assert "problems" not in answer
    _check_compare(answer, (L1, "0"), (L1, "1"))
    assert answer["steps"]["step_count"] == {"value": 1, "base": 1, "diff": 0}


def test_compare_ranks_of_two_jobs(client: FlaskClient) -> None:
    # Level1 (op_statistic.csv) against Level0 (kernel_details.csv aggregated: it has no op_statistic.csv)
    answer = get(client, "compare", L1, "1", base_train_id=f"./{L0}", base_profile="profiler",
                 base_device_id="0").get_json()
    _check_compare(answer, (L1, "1"), (L0, "0"))


def test_compare_bad_base(client: FlaskClient) -> None:
    missing = get(client, "compare", L1, "0", base_device_id="7")
    assert missing.status_code == 400 and missing.get_json()["error_code"] == "50546084"
    assert "rank 7" in missing.get_json()["error_msg"]
    bad = get(client, "compare", L1, "0", base_device_id="x")
    assert bad.status_code == 400 and bad.get_json()["error_code"] == "50540001"
    unknown = get(client, "compare", L1, "0", base_train_id="./nope", base_profile="profiler")
    assert unknown.status_code == 400 and unknown.get_json()["error_code"] == "50546083"
    escape = get(client, "compare", L1, "0", base_train_id="../x", base_profile="profiler")
    assert escape.status_code == 400


def _csv_rows(job: str, rank: str, name: str) -> list[dict[str, str]]:
    return read_csv(output(job, rank) / name)


def test_operator_details_search_sort_and_page(client: FlaskClient) -> None:
    rows = _csv_rows(L1, "0", "operator_details.csv")
    answer = get(client, "operator-details", L1, "0", limit=1000).get_json()
    assert answer["size"] == len(rows) and len(answer["object"]) == min(1000, len(rows))
    cols = answer["col_name"]
    assert cols[:3] == ["name", "input_shapes", "call_stack"]
    totals = sorted((float(r["Device Total Duration(us)"]) for r in rows), reverse=True)
    assert [row[cols.index("device_total_us")] for row in answer["object"]] == totals[:1000]  # default sort
    hits = [r for r in rows if "conv" in r["Name"].lower()]
    page = get(client, "operator-details", L1, "0", search="Conv", sort_name="host_self_us", sort_type="ascending",
               limit=5, offset=1).get_json()
    assert page["size"] == len(hits)
    expected = sorted(float(r["Host Self Duration(us)"]) for r in hits)[5:10]
    assert [row[cols.index("host_self_us")] for row in page["object"]] == expected
    multi_line = [r for r in rows if "\n" in r["Call Stack"]]
    assert multi_line, "call stacks span lines in the file"
    bad = get(client, "operator-details", L1, "0", sort_name="nope")
    assert bad.status_code == 400 and bad.get_json()["error_code"] == "50546080"


def test_api_statistic(client: FlaskClient) -> None:
    rows = _csv_rows(L1, "1", "api_statistic.csv")
    answer = get(client, "api-statistic", L1, "1", limit=1000).get_json()
    assert answer["size"] == len(rows)
    cols = answer["col_name"]
    first = max(rows, key=lambda r: float(r["Time(us)"]))
    top = answer["object"][0]
    assert (top[cols.index("api_name")], top[cols.index("level")], top[cols.index("count")]) == (
        first["API Name"], first["Level"], int(first["Count"]))
    assert top[cols.index("time_us")] == float(first["Time(us)"])
    missing = get(client, "api-statistic", L0, "0")
    assert missing.status_code == 400 and missing.get_json()["error_code"] == "50546084"
    assert "Level1" in missing.get_json()["error_msg"]


def test_npu_module_mem(client: FlaskClient) -> None:
    rows = _csv_rows(L0, "1", "npu_module_mem.csv")
    per: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        per[r["Component"]].append(float(r["Total Reserved(MB)"]))
    answer = get(client, "npu-module-mem", L0, "1", max_points=6).get_json()
    got = {c["component"]: c for c in answer["components"]}
    assert set(got) == set(per)
    for name, values in per.items():
        assert got[name]["peak_reserved_mb"] == max(values) and got[name]["points"] == len(values)
        assert len(got[name]["series"]) <= 6 and max(p[1] for p in got[name]["series"]) == max(values)
    peaks = [c["peak_reserved_mb"] for c in answer["components"]]
    assert peaks == sorted(peaks, reverse=True)


def test_cluster_communication_matrix_puts_every_rank_together(client: FlaskClient) -> None:
    expected: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    groups = set()
    for rank in ("0", "1"):
        data = json.loads((output(L1, rank) / "communication_matrix.json").read_text())
        for kinds in data.values():
            for entries in kinds.values():
                for key, links in entries.items():
                    op, _, group = key.partition("@")
                    groups.add(group)
                    if op == "allreduce-total":
                        for pair, link in links.items():
                            src, dst = map(int, pair.split("-"))
                            expected[(src, dst)][0] += link["Transit Size(MB)"]
                            expected[(src, dst)][1] += link["Transit Time(ms)"]
    answer = get(client, "cluster-communication-matrix", L1).get_json()
    assert answer["ranks_read"] == [0, 1] and answer["op"] == "allreduce-total"
    assert [g["group"] for g in answer["groups"]] == sorted(groups) and answer["groups"][0]["ranks"] == [0, 1]
    assert {(c["src"], c["dst"]) for c in answer["cells"]} == set(expected)
    assert {c["src"] for c in answer["cells"]} == {0, 1}  # rows of both ranks' files
    for cell in answer["cells"]:
        size, time = expected[(cell["src"], cell["dst"])]
        assert cell["size_mb"] == pytest.approx(size) and cell["time_ms"] == pytest.approx(time)
        assert cell["gbps"] == pytest.approx(size / time, abs=1e-4)
    other = get(client, "cluster-communication-matrix", L1, op="allreduce-top1").get_json()
    assert other["op"] == "allreduce-top1"
    bad = get(client, "cluster-communication-matrix", L1, group="nope")
    assert bad.status_code == 400 and bad.get_json()["error_code"] == "50546080"
    assert get(client, "cluster-communication-matrix", L0).get_json()["cells"] == []  # Level0: no matrix


@pytest.mark.parametrize("job", [L0, L1])
def test_overview_of_an_ascend_rank(client: FlaskClient, job: str) -> None:
    answer = get(client, "overview", job, "0").get_json()
    means = _step_means(job, "0")
    step = sum(means[k] for k in ("computing_us", "communication_not_overlapped_us", "free_us"))
    assert answer["device_type"] == "ascend" and answer["step_count"] == 1
    assert answer["avg_step_time_us"] == pytest.approx(step, abs=1e-3)
    assert answer["steps"][0]["compute_us"] == pytest.approx(means["computing_us"])
    types = _op_types(job, "0")
    total = sum(t for _, t in types.values())
    assert answer["op_total_time_us"] == pytest.approx(total, abs=1e-2)
    top = sorted(types.items(), key=lambda kv: -kv[1][1])[:5]
    assert [t["op_type"] for t in answer["top_op_types"]] == [name for name, _ in top]
    records = _csv_rows(job, "0", "memory_record.csv")
    peak = max(float(r["Total Reserved(MB)"]) for r in records if r["Total Reserved(MB)"])
    assert answer["memory"]["peak_reserved_bytes"] == round(peak * (1 << 20))
    free_share = means["free_us"] / step
    assert ("free_time" in [h["code"] for h in answer["hints"]]) == (free_share > 0.1)


def test_new_answers_keep_working_without_the_shared_fixtures(tmp_path: Path) -> None:
    """The additive endpoints on a job without NPU tables say which file is missing."""
    from tests import ascend_jobs as aj

    aj.write_steps(tmp_path / "job", 0, [aj.step_row(1, 10.0, 5.0, 1.0)])
    c = make_client(tmp_path, tmp_path / "ws")
    for endpoint in ("operator-details", "api-statistic", "npu-module-mem"):
        response = get(c, endpoint, "job", "0")
        assert response.status_code == 400 and response.get_json()["error_code"] == "50546084", endpoint
    overview = get(c, "overview", "job", "0").get_json()
    assert overview["step_count"] == 1 and overview["top_op_types"] == [] and overview["memory"] is None
    assert {p["part"] for p in overview["problems"]} == {"top_op_types", "memory"}


def test_answers_match_the_openapi_document(client: FlaskClient) -> None:
    import schemathesis
    import yaml

    from tests.integration.test_openapi import DOCUMENT

    schema = schemathesis.openapi.from_dict(yaml.safe_load(DOCUMENT.read_text(encoding="utf-8")))
    views = {"compare": {"base_device_id": "1"}, "advice": {}, "operator-details": {}, "api-statistic": {},
             "npu-module-mem": {}, "cluster-communication-matrix": {}, "overview": {}, "cluster-step-trace": {},
             "communication": {}}
    refused: dict[str, set[str]] = {L0: set(), L1: set()}
    for job in (L0, L1):
        for view, extra in views.items():
            response = get(client, view, job, "0", **extra)
            schema[f"/profile/{view}"]["GET"].validate_response(response)  # raises on a mismatch, 400s included
            if response.status_code != 200:
                refused[job].add(view)
    # Level1 writes every file; Level0 has no API statistics nor communication.json (documented 400s, validated above)
    assert refused == {L0: {"api-statistic", "communication"}, L1: set()}, refused


def test_compare_defaults_the_base_profile_and_rank(client: FlaskClient) -> None:
    """base_profile defaults to profile and base_device_id to device_id: rank 1 of Level1 against rank 1 of Level0."""
    answer = get(client, "compare", L1, "1", base_train_id=f"./{L0}").get_json()
    _check_compare(answer, (L1, "1"), (L0, "1"))
