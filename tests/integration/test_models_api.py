"""models/* over the real MindSpore 2.10 model files in ../shared/fixtures/mindspore_debug (mindir/, ir/), checked
against their EXPECTED.json; plus model files written here with our own protos (external weights, a path-traversal
location, an encrypted and a foreign file), checked against the arrays written.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from mindinsight_clone.proto import mind_ir_pb2
from mindinsight_clone.summary.debug_files import Network, lenet, write_checkpoint, write_mindir
from tests.conftest import require_shared
from tests.integration.test_debugger_api import DEBUG, make_client

API = "/v1/mindinsight/models"
MINDIR = DEBUG / "mindir"
IR = DEBUG / "ir"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    require_shared(MINDIR)
    return make_client(DEBUG, tmp_path_factory.mktemp("models-ws"))


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    require_shared(MINDIR)
    found: dict[str, Any] = json.loads((MINDIR / "EXPECTED.json").read_text())
    return found


def get(client: FlaskClient, path: str, **query: Any) -> dict[str, Any]:
    response = client.get(f"{API}{path}", query_string=query)
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def error(client: FlaskClient, path: str, **query: Any) -> dict[str, Any]:
    response = client.get(f"{API}{path}", query_string=query)
    assert response.status_code == 400, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def test_model_files_are_listed_by_kind(client: FlaskClient) -> None:
    listed = {m["model_id"]: m["kind"] for m in get(client, "/list")["models"]}
    kinds = {".mindir": "mindir", ".ckpt": "checkpoint", ".ir": "ir", ".dot": "dot", ".pb": "pb"}
    on_disk = {}
    for path in DEBUG.rglob("*"):
        if path.suffix in kinds and "rank_0" not in path.parts:  # a dump's own graphs are the debugger's
            on_disk["./" + path.relative_to(DEBUG).as_posix()] = kinds[path.suffix]
    assert listed == on_disk
    assert listed["./mindir/lenet.mindir"] == "mindir" and listed["./ir/level3/ModelDigraph_0818.dot"] == "dot"


def test_discovery_depth_bounds_the_model_list(tmp_path: Path) -> None:
    require_shared(MINDIR)
    shallow = make_client(DEBUG, tmp_path, max_depth=1)
    listed = {m["model_id"] for m in shallow.get(f"{API}/list").get_json()["models"]}
    assert listed == {"./mindir/lenet.mindir", "./mindir/lenet.ckpt", "./mindir/lenet_train.ckpt"}


def test_mindir_graph_nodes_and_parameters(client: FlaskClient, expected: dict[str, Any]) -> None:
    facts = expected["lenet.mindir"]
    answer = get(client, "/graph", model_id="./mindir/lenet.mindir")
    assert answer["graph_name"] == facts["graph_name"]
    assert answer["node_count"] == len(answer["nodes"]) == facts["node_count"] == 30
    prefix = facts["graph_name"] + ":"
    assert [(p["name"], p["shape"]) for p in answer["parameters"]] == [
        (p["name"].removeprefix(prefix), p["dims"]) for p in facts["parameters"]]
    assert {p["dtype"] for p in answer["parameters"]} == {"float32"}  # MindIR's FLOAT
    assert answer["parameter_count"] == facts["parameter_count"] == 8
    op_types: dict[str, int] = {}
    for op_type, count in facts["node_op_types"].items():
        name = facts["primitives"][op_type[5:]] if op_type.startswith("REF::") else op_type
        op_types[name] = op_types.get(name, 0) + count
    got: dict[str, int] = {}
    for node in answer["nodes"]:
        got[node["op_type"]] = got.get(node["op_type"], 0) + 1
    assert got == op_types
    for first, node in zip(facts["first_nodes"], answer["nodes"], strict=False):
        assert node["full_name"] == first["domain"]
        assert node["inputs"] == [i.removeprefix(prefix) for i in first["inputs"]]
    assert answer["inputs"][0]["shape"] == facts["inputs"][0]["tensors"][0]["dims"]
    assert answer["facts"]["mind_ir_version"] == facts["mind_ir_version"]
    tree = get(client, "/graph/nodes", model_id="./mindir/lenet.mindir", name="Default")
    assert tree["nodes"]


def _check_stats(rows: list[dict[str, Any]], values: list[dict[str, Any]]) -> None:
    assert [r["name"] for r in rows] == [v["tag"] for v in values]
    for row, value in zip(rows, values, strict=True):
        assert row["shape"] == value["dims"] and row["count"] == value["count"]
        assert row["nan_count"] == value["nan_count"] and row["zero_count"] == value["zero_count"]
        assert row["min"] == value["min"] and row["max"] == value["max"]
        assert row["mean"] == pytest.approx(value["mean"], rel=1e-9, abs=1e-15)
        assert row["std"] == pytest.approx(value["std"], rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("name", ["lenet.ckpt", "lenet_train.ckpt"])
def test_checkpoint_statistics(client: FlaskClient, expected: dict[str, Any], name: str) -> None:
    answer = get(client, "/parameters", model_id=f"./mindir/{name}")
    rows = answer["parameters"]
    assert len(rows) == answer["total"] == expected[name]["value_count"]
    page = get(client, "/parameters", model_id=f"./mindir/{name}", offset=2, limit=3)
    assert page["parameters"] == rows[2:5] and page["total"] == len(rows)
    _check_stats(rows, expected[name]["values"])
    assert [r["dtype"] for r in rows] == [v["npy_dtype"] for v in expected[name]["values"]]


def test_mindir_weights_are_the_checkpoints(client: FlaskClient, expected: dict[str, Any]) -> None:
    """Exported and saved from the same live network: the MindIR's 8 weights have the checkpoint's statistics."""
    rows = get(client, "/parameters", model_id="./mindir/lenet.mindir")["parameters"]
    by_tag = {v["tag"]: v for v in expected["lenet.ckpt"]["values"]}
    _check_stats(rows, [by_tag[r["name"]] for r in rows])
    compared = get(client, "/parameters/compare", model_id="./mindir/lenet.mindir",
                   other_model_id="./mindir/lenet_train.ckpt")
    assert all(p["equal"] for p in compared["parameters"]) and len(compared["parameters"]) == 8
    assert compared["only_in_other"] == sorted(set(expected["load_checkpoint"]["names"]) - set(by_tag))


def test_ir_and_pb_graphs(client: FlaskClient) -> None:
    facts = json.loads((IR / "EXPECTED.json").read_text())
    for level in facts["levels"].values():
        for item in level["files"]:
            model_id = "./ir/" + item["path"]
            if item["kind"] == "ir" and item["path"].endswith(".ir"):
                answer = get(client, "/graph", model_id=model_id)
                assert answer["node_count"] == item.get("total_cnodes", 0), model_id
                assert answer["parameter_count"] == item.get("total_params", 0), model_id
                named = sum(1 for n in answer["nodes"] if n["full_name"])
                assert named == item["fullname_with_scope_count"] + item["scope_line_count"], model_id
            elif item["kind"] == "pb":
                answer = get(client, "/graph", model_id=model_id)
                assert answer["graph_name"] == item["graph_name"]
                assert (answer["node_count"], answer["parameter_count"]) == (item["node_count"],
                                                                             item["parameter_count"])
                assert [p["name"] for p in answer["parameters"]][:20] == item["parameter_names"]
            elif item["kind"] == "dot":
                text = get(client, "/text", model_id=model_id)
                assert text["text"] == (IR / item["path"]).read_text() and not text["truncated"]
                assert text["text"].startswith(item["starts_with"])


def test_text_pages(client: FlaskClient) -> None:
    path = IR / "level3" / "13_optimize_0741.dot"
    data = path.read_bytes()
    page = get(client, "/text", model_id="./ir/level3/13_optimize_0741.dot", offset=1000, limit=500)
    assert page["text"] == data[1000:1500].decode() and page["truncated"] and page["size"] == len(data)


@pytest.mark.parametrize(("path", "query", "code"), [
    ("/graph", {"model_id": "./nope.mindir"}, "5054B300"),
    ("/graph", {"model_id": "../mindir/lenet.mindir"}, "5054B300"),
    ("/graph", {"model_id": "./mindir/lenet.ckpt"}, "5054B302"),
    ("/parameters", {"model_id": "./ir/level1/graph_build_0_0094.ir"}, "5054B302"),
    ("/text", {"model_id": "./mindir/lenet.mindir"}, "5054B302"),
    ("/graph", {}, "50540003"),
    ("/parameters/compare", {"model_id": "./mindir/lenet.ckpt", "other_model_id": "./mindir/lenet.ckpt"}, "50540002"),
])
def test_model_errors(client: FlaskClient, path: str, query: dict[str, Any], code: str) -> None:
    assert error(client, path, **query)["error_code"] == code


# ------------------------------------------------------------------------------ files written with our own protos
@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[FlaskClient, Network]:
    base = tmp_path_factory.mktemp("written")
    net = lenet(np.random.default_rng(3))
    net.params["fc3.bias"][4] = np.nan
    write_mindir(base / "m" / "inline.mindir", net)
    write_mindir(base / "m" / "big.mindir", net, external=True)
    write_mindir(base / "m" / "escape.mindir", net, external=True)
    model = mind_ir_pb2.ModelProto()
    model.ParseFromString((base / "m" / "escape.mindir").read_bytes())
    model.graph.parameter[0].external_data.location = "../outside/data_0"  # a path-traversal attempt
    (base / "m" / "escape.mindir").write_bytes(model.SerializeToString())
    (base / "outside").mkdir()
    shutil.copy(base / "m" / "escape_variables" / "data_0", base / "outside" / "data_0")
    (base / "m" / "locked.mindir").write_bytes(struct.pack("<I", 0x7F3A5ED8) + os.urandom(300))
    (base / "m" / "foreign.mindir").write_bytes(b"\x00\xff" * 200)
    write_checkpoint(base / "m" / "cut.ckpt", net.params)
    data = (base / "m" / "cut.ckpt").read_bytes()
    (base / "m" / "cut.ckpt").write_bytes(data[:len(data) // 2])
    return make_client(base, tmp_path_factory.mktemp("written-ws"), max_depth=2), net


def test_external_weights_are_read_from_the_variables_folder(written: tuple[FlaskClient, Network]) -> None:
    client, net = written
    params = net.params
    rows = get(client, "/parameters", model_id="./m/big.mindir")["parameters"]
    for row in rows:
        array = params[row["name"]].astype(np.float64)
        fin = array[np.isfinite(array)]
        assert row["error"] is None and row["count"] == array.size and row["nan_count"] == np.isnan(array).sum()
        assert row["max"] == fin.max() and row["mean"] == pytest.approx(fin.mean(), abs=1e-12)
    assert get(client, "/parameters", model_id="./m/inline.mindir")["parameters"] == rows
    escaped = get(client, "/parameters", model_id="./m/escape.mindir")["parameters"]
    assert "not a file inside the model's folder" in escaped[0]["error"] and escaped[0]["max"] is None
    assert all(r["error"] is None for r in escaped[1:])


def test_encrypted_foreign_and_truncated_files(written: tuple[FlaskClient, Network]) -> None:
    client, net = written
    locked = error(client, "/graph", model_id="./m/locked.mindir")
    assert locked["error_code"] == "5054B301" and "encrypted MindIR (AES-GCM" in locked["error_msg"]
    foreign = error(client, "/graph", model_id="./m/foreign.mindir")
    assert foreign["error_code"] == "5054B301" and "not a MindIR" in foreign["error_msg"]
    cut = error(client, "/parameters", model_id="./m/cut.ckpt")
    assert cut["error_code"] == "5054B301" and "truncated" in cut["error_msg"]
    assert get(client, "/graph", model_id="./m/inline.mindir")["node_count"] == len(net.ops)  # still serving
