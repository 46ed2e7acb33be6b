"""Bad input for the debugger: truncated and foreign .npy files, names that do not parse, a dump still being written,
a tensor far too big to load (a sparse 80 GB file), and a dump and model files read from S3 (moto on loopback)
answering exactly what the same files answer on disk.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient
from numpy.lib import format as npy_format

from tests.conftest import require_shared
from tests.integration.test_debugger_api import API, DUMP, DUMP_ID, make_client
from tests.integration.test_debugger_watchpoints import copy_dump
from tests.remote_base import s3_app
from tests.s3_server import S3Server

WHERE = {"dump_id": DUMP_ID, "rank": 0, "graph_id": 0}
HUGE_SHAPE = (200_000, 100_000)  # float32: 80 GB, a sparse file
HUGE_NAME = "MatMul.Default_huge-MatMul-op9.0.0.1795510518999999.output.0.DefaultFormat.Float32.npy"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_shared(DUMP)
    base = tmp_path_factory.mktemp("bad-input")
    copy_dump(base)
    return base


@pytest.fixture(scope="module")
def client(base: Path) -> FlaskClient:
    return make_client(base, base.parent / (base.name + "-ws"))


def iteration_dir(base: Path, iteration: int, graph_id: int = 0) -> Path:
    return base / "dump" / "lenet" / "rank_0" / "LeNet" / str(graph_id) / str(iteration)


def rows(client: FlaskClient, iteration: int) -> dict[str, Any]:
    response = client.get(f"{API}/tensors", query_string={**WHERE, "iteration": iteration, "limit": 10000})
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def test_truncated_npy_is_an_error_row_and_the_rest_is_served(base: Path, client: FlaskClient) -> None:
    folder = iteration_dir(base, 2)
    victim = next(p for p in sorted(folder.glob("Conv2D.*output.0*.npy")))
    whole = victim.read_bytes()
    victim.write_bytes(whole[:len(whole) // 2])
    not_npy = folder / victim.name.replace("output.0", "output.1")
    not_npy.write_bytes(b"this is no numpy file")
    answer = rows(client, 2)
    by_file = {r["file"]: r for r in answer["tensors"]}
    cut = by_file[victim.name]
    assert "truncated" in cut["error"] and cut["max"] is None and cut["count"] is None
    assert "not a .npy" in by_file[not_npy.name]["error"]
    assert sum(1 for r in answer["tensors"] if r["error"]) == 2
    assert answer["total"] == 196  # 195 tensors + the foreign file with a tensor file name
    query = {**WHERE, "iteration": 2, "op_name": cut["op_name"], "io": "output", "slot": 0}
    response = client.get(f"{API}/tensor", query_string=query)
    assert response.status_code == 400 and response.get_json()["error_code"] == "5054B286"
    check = client.post(f"{API}/watchpoints/check", json={"dump_id": DUMP_ID, "conditions": [{"id": "nan_or_inf"}],
                                                          "iterations": [2]}).get_json()
    assert check["error_count"] == 2 and {e["op_name"] for e in check["errors"]} == {cut["op_name"]}
    victim.write_bytes(whole)  # the writer finished: the file is read again (errors are never cached) once the
    time.sleep(1.1)  # listing that gave its size is refreshed (listings are kept for max(1 s, reload_interval))
    fixed = {r["file"]: r for r in rows(client, 2)["tensors"]}[victim.name]
    assert fixed["error"] is None and fixed["count"] == int(np.prod(np.load(victim).shape))


def test_names_that_do_not_parse_are_listed_as_skipped(base: Path, client: FlaskClient) -> None:
    folder = iteration_dir(base, 0)
    for name in ("garbage.npy", "Conv2D.x.0.0.1.output.0.npy", "Add.a.b.c.d.sideways.0.F.Float32.npy", "notes.txt"):
        (folder / name).write_bytes(b"x")
    answer = rows(client, 0)
    assert answer["total"] == 195
    skipped = {s["file"]: s["reason"] for s in answer["skipped_files"]}
    assert answer["skipped_count"] == 4 and set(skipped) == {"garbage.npy", "Conv2D.x.0.0.1.output.0.npy",
                                                             "Add.a.b.c.d.sideways.0.F.Float32.npy", "notes.txt"}
    assert "expected 9" in skipped["garbage.npy"] and "input|output" in skipped["Add.a.b.c.d.sideways.0.F.Float32.npy"]


def test_new_iterations_appear_while_the_dump_is_written(base: Path, client: FlaskClient) -> None:
    def iterations() -> list[int]:
        dump = client.get(f"{API}/dumps").get_json()["dumps"][0]
        return next(g["iterations"] for g in dump["graphs"] if g["graph_id"] == 0)

    assert iterations() == [0, 2, 3]
    shutil.copytree(iteration_dir(base, 3), iteration_dir(base, 5))
    deadline = time.monotonic() + 10
    while iterations() != [0, 2, 3, 5] and time.monotonic() < deadline:
        time.sleep(0.2)  # listings are kept for max(1 s, reload_interval)
    assert iterations() == [0, 2, 3, 5]
    assert rows(client, 5)["total"] == 195
    check = client.post(f"{API}/watchpoints/check", json={"dump_id": DUMP_ID, "conditions": [{"id": "not_changed"}],
                                                          "targets": "weights", "iterations": [5]}).get_json()
    # iteration 5 is a copy of 3: every weight is unchanged against its previous dumped iteration
    assert check["hit_count"] == 16 and {h["previous_iteration"] for h in check["hits"]} == {3}


def test_a_huge_tensor_is_read_by_its_window(base: Path, client: FlaskClient) -> None:
    path = iteration_dir(base, 0, graph_id=1).parent / "4" / HUGE_NAME
    with path.open("wb") as handle:
        npy_format.write_array_header_1_0(handle, {"descr": "<f4", "fortran_order": False, "shape": HUGE_SHAPE})
        offset = handle.tell()
        handle.seek(offset + (6 * HUGE_SHAPE[1] + 1005) * 4)
        handle.write(np.float32(3.5).tobytes())
        handle.truncate(offset + int(np.prod(HUGE_SHAPE)) * 4)  # sparse: no disk blocks for the zeros
    where = {"dump_id": DUMP_ID, "rank": 0, "graph_id": 1, "iteration": 4}
    started = time.monotonic()
    table = client.get(f"{API}/tensors", query_string={**where, "search": "huge"}).get_json()
    row = table["tensors"][0]
    assert row["shape"] == list(HUGE_SHAPE) and row["source"] == "deferred" and row["max"] is None
    query = {**where, "op_name": "Default_huge-MatMul-op9", "io": "output", "slot": 0, "shape": "[5:8, 1000:1010]"}
    answer = client.get(f"{API}/tensor", query_string=query).get_json()
    expected = np.zeros((3, 10), np.float32)
    expected[1, 5] = 3.5
    assert np.array_equal(np.array(answer["value"]["data"], np.float32), expected)
    assert answer["value"]["statistics"]["max"] == 3.5 and answer["value"]["statistics"]["overall_max"] is None
    assert time.monotonic() - started < 10  # reading 80 GB would take minutes
    too_big = client.get(f"{API}/tensor", query_string={**query, "shape": "[:, :]"})
    assert too_big.status_code == 400 and too_big.get_json()["error_code"] == "50545013"


# ------------------------------------------------------------------------------ s3:// base dir
S3_REQUESTS = [
    ("/debugger/dumps", {}),
    ("/debugger/tensors", {**WHERE, "iteration": 3, "limit": 1000}),
    ("/debugger/tensors", {**WHERE, "graph_id": 1, "iteration": 4, "limit": 1000}),
    ("/debugger/tensor", {**WHERE, "iteration": 3, "op_name": "Default_network-WithLossCell__backbone-LeNet5_"
                          "conv1-Conv2d_Conv2D-op0", "io": "output", "slot": 0, "shape": "[1, :, 2, 3:7]"}),
    ("/debugger/tensor", {**WHERE, "iteration": 3, "op_name": "fc1_weight", "io": "output", "slot": 0,
                          "detail": "histogram"}),
    ("/debugger/tensor/compare", {**WHERE, "iteration": 3, "other_iteration": 2, "op_name": "fc2_weight",
                                  "io": "output", "slot": 0}),
    ("/debugger/graph/nodes", {**WHERE, "name": "Default"}),
    ("/models/list", {}),
    ("/models/graph", {"model_id": "./mindir/lenet.mindir"}),
    ("/models/parameters", {"model_id": "./mindir/lenet.mindir"}),
    ("/models/parameters", {"model_id": "./mindir/lenet_train.ckpt"}),
]


def test_s3_answers_equal_local_ones(s3_server: S3Server, tmp_path: Path) -> None:
    require_shared(DUMP)
    local_base = tmp_path / "base"
    copy_dump(local_base)
    # a smaller dump (each object is a request to the loopback server): graph 1 whole, a few files of graph 0
    shutil.rmtree(iteration_dir(local_base, 0))
    for iteration in (2, 3):
        for path in iteration_dir(local_base, iteration).iterdir():
            if not (path.name.startswith(("Parameter.fc", "Parameter.learning")) or "conv1-Conv2d_Conv2D" in path.name):
                path.unlink()
    shutil.copytree(DUMP.parent / "mindir", local_base / "mindir", copy_function=shutil.copyfile)
    bucket = s3_server.bucket("debugger-dump")
    s3_server.upload_tree(local_base, bucket, "base")
    remote = s3_app(s3_server, f"s3://{bucket}/base", tmp_path / "ws-s3", max_depth=4).test_client()
    local = make_client(local_base, tmp_path / "ws-local")
    for path, query in S3_REQUESTS:
        url = f"/v1/mindinsight{path}"
        a, b = local.get(url, query_string=query), remote.get(url, query_string=query)
        assert a.status_code == b.status_code == 200, (path, b.get_json())
        left, right = a.get_json(), b.get_json()
        for item in [*left.get("models", []), *right.get("models", [])]:
            item.pop("mtime")  # the store's upload time, not the file's
        assert left == right, path
    body = {"dump_id": DUMP_ID, "conditions": [{"id": "too_large", "params": {"max_gt": 0.1}}, {"id": "not_changed"}]}
    a = local.post(f"{API}/watchpoints/check", json=body).get_json()
    b = remote.post(f"{API}/watchpoints/check", json=body).get_json()
    assert a == b and a["hit_count"] > 0
