"""The debugger over dumps written here (summary/debug_files.py, no ../shared needed): several ranks, a
statistic.csv (Ascend/GPU statistics dumps), a dump whose graphs/ holds only the .ir text, and the demo data of
scripts/make_demo_data. Expected values are computed with numpy from the files written.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from mindinsight_clone.summary.debug_files import lenet, write_dump
from tests.conftest import REPO
from tests.integration.test_debugger_api import API, make_client

DUMP_ID = "./job/dump"
NAN_OP = 8  # fc1's BiasAdd in summary/debug_files.lenet


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("written-dump")
    write_dump(base / "job" / "dump", lenet(np.random.default_rng(5)), [0, 1, 2], np.random.default_rng(6), ranks=2,
               nan_from=2, nan_op=NAN_OP)
    return base


def folder(base: Path, rank: int, iteration: int) -> Path:
    return base / "job" / "dump" / f"rank_{rank}" / "LeNet5" / "0" / str(iteration)


@pytest.fixture(scope="module")
def client(base: Path, tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    _statistic_csv(base)
    for pb in (base / "job" / "dump" / "rank_1" / "graphs").glob("*.pb"):
        pb.unlink()  # rank 1 keeps only the .ir text of its graph
    return make_client(base, tmp_path_factory.mktemp("written-ws"))


STAT_HEADER = ["Op Type", "Op Name", "Task ID", "Stream ID", "Timestamp", "IO", "Slot", "Data Size", "Data Type",
               "Shape", "Max Value", "Min Value", "Avg Value", "Count", "Negative Zero Count", "Positive Zero Count",
               "NaN Count", "Negative Inf Count", "Positive Inf Count", "Zero Count"]
CSV_ONLY = 3  # tensors of rank 0 iteration 1 whose .npy is replaced by a statistic.csv row


def _statistic_csv(base: Path) -> None:
    """rank 0 iteration 1: a statistic.csv row for the first 4 MatMul files; the .npy of 3 of them removed."""
    where = folder(base, 0, 1)
    files = sorted(where.glob("MatMul.*.npy"))[:CSV_ONLY + 1]
    with (where / "statistic.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(STAT_HEADER)
        for path in files:
            parts = path.name[:-4].split(".")
            a = np.load(path).astype(np.float64)
            writer.writerow([parts[0], parts[1].replace("_", "/"), parts[2], parts[3], parts[4], parts[5], parts[6],
                             a.nbytes, "float32", str(tuple(a.shape)), a.max(), a.min(), a.mean(), a.size,
                             int((a < 0).sum()), int((a > 0).sum()), 0, 0, 0, int((a == 0).sum())])
    for path in files[:CSV_ONLY]:
        path.rename(path.with_suffix(".kept"))


def table(client: FlaskClient, rank: int, iteration: int) -> list[dict[str, Any]]:
    response = client.get(f"{API}/tensors", query_string={"dump_id": DUMP_ID, "rank": rank, "graph_id": 0,
                                                          "iteration": iteration, "limit": 1000})
    assert response.status_code == 200, response.get_json()
    rows: list[dict[str, Any]] = response.get_json()["tensors"]
    return rows


def test_every_rank_is_listed(client: FlaskClient) -> None:
    dumps = client.get(f"{API}/dumps").get_json()["dumps"]
    assert [d["dump_id"] for d in dumps] == [DUMP_ID]
    assert dumps[0]["ranks"] == [0, 1] and dumps[0]["net_name"] == "LeNet5"
    assert dumps[0]["graphs"] == [{"rank": r, "graph_id": 0, "iterations": [0, 1, 2]} for r in (0, 1)]


def test_nan_per_rank_and_the_first_bad_op(base: Path, client: FlaskClient) -> None:
    answer = client.post(f"{API}/watchpoints/check", json={"dump_id": DUMP_ID, "conditions": [{"id": "nan_or_inf"}],
                                                           "ranks": [1]}).get_json()
    bad = {p.name for p in folder(base, 1, 2).glob("*.npy") if np.isnan(np.load(p)).any()}
    assert bad and {h["rank"] for h in answer["hits"]} == {1}
    hit_files = {row["file"] for row in table(client, 1, 2) if row["nan_count"]}
    assert hit_files == bad
    assert len(answer["hits"]) == len(bad)
    first = answer["first"][0]
    assert (first["iteration"], first["io"], first["execution_order"]) == (2, "output", NAN_OP)
    assert first["node_name"] == lenet(np.random.default_rng(5)).ops[NAN_OP].full_name


def test_statistic_csv_rows_stand_in_for_missing_files(base: Path, client: FlaskClient) -> None:
    rows = table(client, 0, 1)
    from_csv = [r for r in rows if r["source"] == "statistic.csv"]
    assert len(from_csv) == CSV_ONLY
    for row in from_csv:
        kept = next(folder(base, 0, 1).glob(f"*{row['op_name']}*{row['timestamp']}*.kept"))
        a = np.load(kept.open("rb")).astype(np.float64)
        assert row["shape"] == list(a.shape) and row["count"] == a.size and row["std"] is None
        assert row["max"] == pytest.approx(a.max()) and row["mean"] == pytest.approx(a.mean())
        response = client.get(f"{API}/tensor", query_string={"dump_id": DUMP_ID, "rank": 0, "graph_id": 0,
                                                             "iteration": 1, "op_name": row["op_name"], "io": row["io"],
                                                             "slot": row["slot"]})
        assert response.get_json()["error_code"] == "5054B286" and "not dumped" in response.get_json()["error_msg"]
    assert sum(1 for r in rows if r["source"] == "npy") == len(rows) - CSV_ONLY


def test_graph_from_the_ir_text_when_there_is_no_pb(client: FlaskClient) -> None:
    where = {"dump_id": DUMP_ID, "graph_id": 0}
    for rank in (0, 1):
        listing = client.get(f"{API}/graph/nodes", query_string={**where, "rank": rank, "name": "Default"}).get_json()
        assert listing["nodes"], rank
    rows = table(client, 1, 0)
    params = {r["op_name"]: r["node_name"] for r in rows if r["op_type"] == "Parameter"}
    assert params["fc1_weight"] == "fc1.weight" and len(params) == 8


def test_demo_data_has_a_dump_with_a_nan_and_model_files(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    subprocess.run([sys.executable, str(REPO / "scripts" / "make_demo_data"), str(out), "--steps", "20"], check=True,
                   capture_output=True, cwd=REPO)
    client = make_client(out, tmp_path / "ws", max_depth=1)  # the default depth finds them
    dumps = client.get(f"{API}/dumps").get_json()["dumps"]
    assert [d["dump_id"] for d in dumps] == ["./lenet_dump"]
    answer = client.post(f"{API}/watchpoints/check", json={"dump_id": "./lenet_dump",
                                                           "conditions": [{"id": "nan_or_inf"}]}).get_json()
    assert {f["iteration"] for f in answer["first"]} == {3, 4}
    assert {f["execution_order"] for f in answer["first"]} == {NAN_OP}
    models = {m["model_id"]: m["kind"] for m in client.get("/v1/mindinsight/models/list").get_json()["models"]}
    assert set(models.values()) == {"mindir", "checkpoint", "ir", "dot"}
