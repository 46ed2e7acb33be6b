"""`ascend_type` / `ascend_detail` (issue 34): every core type in one operator table, AI_CPU included, shares
summing to 100 % — over a copy of ../shared/fixtures/ascend's Level1 job with one AI_CPU operator added (the
fixtures have none), as the real export writes it (op_statistic.csv row + kernel_details.csv launches)."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from tests.conftest import require_shared
from tests.integration.test_ascend_profiler import ASCEND, make_client, output, read_csv, search

JOB = "torch_npu_level1"


def add_aicpu_operator(out: Path) -> None:
    """DropOutDoMaskV3 on AI_CPU, 5.5 % of the time: the other ratios scaled down so the file still sums to 100."""
    stat = out / "op_statistic.csv"
    rows = list(csv.reader(stat.open(newline="")))
    for r in rows[1:]:
        r[7] = f"{float(r[7]) * 0.945:.3f}"
    rows.append(["DropOutDoMaskV3", "AI_CPU", "24", "520.0", "20.0", "21.667", "23.0", "5.5"])
    with stat.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    kernels = out / "kernel_details.csv"
    lines = list(csv.reader(kernels.open(newline="")))
    head = lines[0]
    row = list(lines[1])
    row[head.index("Name")], row[head.index("Type")] = "AicpuDropOutDoMaskV3", "DropOutDoMaskV3"
    row[head.index("Accelerator Core")] = "AI_CPU"
    with kernels.open("a", newline="") as handle:
        csv.writer(handle).writerow(row)


@pytest.fixture
def client(tmp_path: Path) -> FlaskClient:
    require_shared(ASCEND)
    base = tmp_path / "base"
    shutil.copytree(ASCEND / JOB, base / JOB)
    add_aicpu_operator(output(JOB, "0", base))
    return make_client(base, tmp_path)


def test_ascend_type_lists_every_core_and_sums_to_100(client: FlaskClient, tmp_path: Path) -> None:
    stat = read_csv(output(JOB, "0", tmp_path / "base") / "op_statistic.csv")
    answer = search(client, JOB, {"op_type": "ascend_type", "device_id": "0",
                                  "group_condition": {"limit": 100, "offset": 0}}).get_json()
    cols = answer["col_name"]
    assert answer["size"] == len(stat)
    cores = {r[cols.index("core_type")] for r in answer["object"]}
    assert {"AI_CPU", "AI_VECTOR_CORE", "AI_CORE", "MIX_AIV"} <= cores
    assert sum(r[cols.index("percent")] for r in answer["object"]) == pytest.approx(100, abs=0.05)
    # MindInsight's own op types keep their split
    aicore = search(client, JOB, {"op_type": "aicore_type", "device_id": "0"}).get_json()
    assert aicore["size"] == len(stat) - 1


def test_ascend_detail_finds_the_aicpu_kernel(client: FlaskClient) -> None:
    body = {"op_type": "ascend_detail", "device_id": "0",
            "filter_condition": {"op_name": {"partial_match_str_in": ["AicpuDropOutDoMaskV3"]}}}
    answer = search(client, JOB, body).get_json()
    assert answer["size"] == 1
    assert answer["object"][0][answer["col_name"].index("core_type")] == "AI_CPU"


def test_ascend_type_is_only_for_ascend_output(client: FlaskClient) -> None:
    response = client.post("/v1/mindinsight/profile/ops/search?train_id=./nope&profile=profiler",
                           json={"op_type": "ascend_type", "device_id": "0"})
    assert response.status_code >= 400
