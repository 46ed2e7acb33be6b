"""msprobe compare in tensor mode (issue 35): the metrics from the real .npy pair in ../shared/fixtures/msprobe agree
with msprobe 26.2's own tensor compare_result csv (Cosine, EucDist, MaxAbsErr,
MaxRelativeErr, One/Five Thousandth(s) Err Ratio); a statistics dump is refused."""

from __future__ import annotations

import csv
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import require_shared
from tests.integration.test_debugger_api import make_client
from tests.integration.test_msprobe_dumps_api import API, MSPROBE


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    require_shared(MSPROBE)
    return make_client(MSPROBE, tmp_path_factory.mktemp("msprobe-tensor-ws"))


def test_tensor_metrics_agree_with_msprobe(client: FlaskClient) -> None:
    pair = {"target": {"dump_id": "./pair_target_ms_tensor"}, "bench": {"dump_id": "./pair_bench_ms_tensor"},
            "mode": "tensor", "limit": 100_000}
    response = client.post(f"{API}/compare", json=pair)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    ours = {r["target_name"]: r for r in response.get_json()["rows"]}
    path = next((MSPROBE / "compare" / "tensor_csv").glob("compare_result_*.csv"))
    with path.open(newline="") as handle:
        theirs = list(csv.DictReader(handle))
    checked = 0
    for row in theirs:
        mine: dict[str, Any] = ours[row["NPU Name"]]
        for col, key in (("Cosine", "cosine"), ("EucDist", "euc_dist"), ("MaxAbsErr", "max_abs_err"),
                         ("MaxRelativeErr", "max_relative_err"), ("One Thousandth Err Ratio", "one_thousandth_err_ratio"),
                         ("Five Thousandths Err Ratio", "five_thousandths_err_ratio")):
            if row[col] in ("N/A", "unsupported", "") or mine.get(key) is None:
                continue
            assert mine[key] == pytest.approx(float(row[col]), rel=1e-5, abs=1e-6), (row["NPU Name"], col)
            checked += 1
    assert checked > 800  # 143-147 rows per column hold numbers
    statistics = {**pair, "target": {"dump_id": "./pair_target_ms_statistics"}}
    refused = client.post(f"{API}/compare", json=statistics)
    assert refused.status_code == 400 and "tensor" in refused.get_json()["error_msg"]
