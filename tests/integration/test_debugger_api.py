"""debugger/* over the real MindSpore 2.10 dump in ../shared/fixtures/mindspore_debug, through create_app.

Expected values come from the fixture's EXPECTED.json (written by the generator from the arrays it fed to and read
back from MindSpore) or are computed here with numpy from the .npy files; never from our own answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import SHARED, require_shared

DEBUG = SHARED / "fixtures" / "mindspore_debug"
DUMP = DEBUG / "dump"
API = "/v1/mindinsight/debugger"
DUMP_ID = "./dump/lenet"


def make_client(base: Path, workspace: Path, **settings: Any) -> FlaskClient:
    app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(workspace),
                                        **{"max_depth": 4, "reload_interval": 0, **settings}), start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app.test_client()


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    require_shared(DUMP)
    return json.loads((DUMP / "EXPECTED.json").read_text())["runs"]["lenet"]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    require_shared(DUMP)
    return make_client(DEBUG, tmp_path_factory.mktemp("dbg-ws"))


def get(client: FlaskClient, path: str, **query: Any) -> dict[str, Any]:
    response = client.get(f"{API}{path}", query_string=query)
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def table(client: FlaskClient, graph_id: int, iteration: int, **query: Any) -> dict[str, Any]:
    return get(client, "/tensors", dump_id=DUMP_ID, rank=0, graph_id=graph_id, iteration=iteration, limit=10000,
               **query)


def expected_node(t: dict[str, Any]) -> str | None:
    """The graph node of a tensor per EXPECTED.json: the execution-order kernel, or the parameter's name (graph
    inputs `inputs0`, `x` have no dots: their file name is their graph name)."""
    if t["op_type"] != "Parameter":
        return t["graph_node"]  # type: ignore[no-any-return]
    return t.get("parameter_name") or t["op_name"]  # type: ignore[no-any-return]


def test_dump_list_has_the_dumped_iterations_per_graph(client: FlaskClient, expected: dict[str, Any]) -> None:
    dumps = get(client, "/dumps")["dumps"]
    assert [d["dump_id"] for d in dumps] == [DUMP_ID]
    dump = dumps[0]
    assert dump["net_name"] == expected["net_name"]
    assert dump["ranks"] == [int(r.split("_")[1]) for r in expected["ranks"]]
    assert dump["device_target"] == expected["dump_metadata"]["rank_0"]["config.json"]["device_target"]
    got = {f"rank_{g['rank']}/graph_{g['graph_id']}": g["iterations"] for g in dump["graphs"]}
    assert got == {key: g["iterations_dumped"] for key, g in expected["graphs"].items()}


def test_every_tensor_statistic_matches_expected(client: FlaskClient, expected: dict[str, Any]) -> None:
    by_iteration: dict[tuple[int, int], dict[tuple[str, str, int], dict[str, Any]]] = {}
    for t in expected["tensors"]:
        by_iteration.setdefault((t["graph_id"], t["iteration"]), {})[(t["op_name"], t["io"], t["slot"])] = t
    seen = 0
    for (graph_id, iteration), tensors in by_iteration.items():
        answer = table(client, graph_id, iteration)
        assert answer["total"] == len(tensors)
        for row in answer["tensors"]:
            t = tensors[(row["op_name"], row["io"], row["slot"])]
            for key in ("op_type", "dtype", "shape", "count", "nan_count", "pos_inf_count", "neg_inf_count",
                        "zero_count", "finite_count", "neg_count", "pos_count", "npy_dtype"):
                assert row[key] == t[key], (key, t["path"])
            for key in ("min", "max", "mean", "std"):
                scale = max(abs(t["max"] or 0), abs(t["min"] or 0), 1e-30)
                assert row[key] == pytest.approx(t[key], rel=1e-9, abs=1e-12 * scale), (key, t["path"])
            assert row["node_name"] == expected_node(t), t["path"]
            assert row["execution_order"] == t["execution_order_index"], t["path"]
            seen += 1
    assert seen == expected["tensor_count"] == 641


def test_rows_come_in_execution_order(client: FlaskClient, expected: dict[str, Any]) -> None:
    rows = table(client, 0, 2)["tensors"]
    orders = [r["execution_order"] for r in rows if r["op_type"] != "Parameter"]
    assert orders == sorted(orders)
    assert all(r["op_type"] == "Parameter" for r in rows[len(orders):])  # parameters last


def test_renamed_kernels_are_paired(client: FlaskClient, expected: dict[str, Any]) -> None:
    for key, graph in expected["graphs"].items():
        graph_id = int(key.rsplit("_", 1)[1])
        iteration = graph["iterations_dumped"][0]
        rows = {r["op_name"]: r for r in table(client, graph_id, iteration)["tensors"]}
        for pair in graph["renamed_pairs"]:
            assert rows[pair["file_op_name"]]["node_name"] == pair["execution_order_name"]
            assert rows[pair["file_op_name"]]["node_match"] == "paired"


def test_search_node_filter_and_paging(client: FlaskClient) -> None:
    full = table(client, 0, 3)
    node = "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0"
    of_node = table(client, 0, 3, node_name=node)["tensors"]
    assert {(r["io"], r["slot"]) for r in of_node} == {("input", 0), ("input", 1), ("output", 0)}
    searched = table(client, 0, 3, search="CONV1-conv2d")
    assert searched["total"] == sum(1 for r in full["tensors"] if "conv1-conv2d" in r["op_name"].lower()
                                    or "conv1-conv2d" in (r["node_name"] or "").lower())
    page = get(client, "/tensors", dump_id=DUMP_ID, rank=0, graph_id=0, iteration=3, offset=10, limit=5)
    assert page["total"] == full["total"]
    assert [r["op_name"] for r in page["tensors"]] == [r["op_name"] for r in full["tensors"][10:15]]


def _file(expected: dict[str, Any], graph_id: int, iteration: int, op_part: str, io: str, slot: int) -> dict[str, Any]:
    found = [t for t in expected["tensors"] if t["graph_id"] == graph_id and t["iteration"] == iteration
             and (op_part in t["op_name"] if "-" in op_part else op_part == t["op_name"]) and t["io"] == io and t["slot"] == slot]
    assert len(found) == 1, [t["op_name"] for t in found]
    return found[0]


def test_window_values_are_the_files(client: FlaskClient, expected: dict[str, Any]) -> None:
    t = _file(expected, 0, 3, "conv1-Conv2d_Conv2D-op0", "output", 0)
    array = np.load(DUMP / t["path"])
    answer = get(client, "/tensor", dump_id=DUMP_ID, rank=0, graph_id=0, iteration=3, op_name=t["op_name"],
                 io="output", slot=0, shape="[1, 2, 3:9, :]")
    assert answer["value"]["dims"] == [4, 6, 28, 28]
    assert np.array_equal(np.array(answer["value"]["data"], dtype=np.float32), array[1, 2, 3:9, :])
    window = array[1, 2, 3:9, :]
    stats = answer["value"]["statistics"]
    assert stats["max"] == pytest.approx(float(window.max())) and stats["min"] == pytest.approx(float(window.min()))
    assert stats["overall_max"] == pytest.approx(t["max"]) and stats["overall_count"] == t["count"]
    default = get(client, "/tensor", dump_id=DUMP_ID, rank=0, graph_id=0, iteration=3, op_name=t["op_name"],
                  io="output", slot=0)
    assert default["shape"] == "[0, 0, :10, :10]"
    assert np.array_equal(np.array(default["value"]["data"], dtype=np.float32), array[0, 0, :10, :10])


def test_histogram_counts_every_finite_value(client: FlaskClient, expected: dict[str, Any]) -> None:
    t = _file(expected, 0, 2, "fc1-Dense_MatMul-op0", "output", 0)
    answer = get(client, "/tensor", dump_id=DUMP_ID, rank=0, graph_id=0, iteration=2, op_name=t["op_name"],
                 io="output", slot=0, detail="histogram")
    buckets = answer["histogram_buckets"]
    assert sum(b[2] for b in buckets) == t["finite_count"]
    assert buckets[0][0] == pytest.approx(t["min"]) and buckets[-1][0] + buckets[-1][1] == pytest.approx(t["max"])


def test_compare_two_iterations(client: FlaskClient, expected: dict[str, Any]) -> None:
    now = _file(expected, 0, 3, "fc2_weight", "output", 0)
    before = _file(expected, 0, 2, "fc2_weight", "output", 0)
    diff = np.load(DUMP / now["path"]).astype(np.float64) - np.load(DUMP / before["path"]).astype(np.float64)
    answer = get(client, "/tensor/compare", dump_id=DUMP_ID, rank=0, graph_id=0, iteration=3, other_iteration=2,
                 op_name="fc2_weight", io="output", slot=0, shape="[0:3, :]")
    stats = answer["diff_statistics"]
    assert stats["max"] == pytest.approx(diff.max()) and stats["min"] == pytest.approx(diff.min())
    assert stats["mean"] == pytest.approx(diff.mean(), abs=1e-12) and stats["std"] == pytest.approx(diff.std())
    assert np.allclose(np.array(answer["value"]["data"]), diff[0:3, :])
    assert answer["tensor"]["node_name"] == answer["other"]["node_name"] == "fc2.weight"


@pytest.mark.parametrize(("query", "code"), [
    ({"dump_id": "./nope", "rank": 0, "graph_id": 0, "iteration": 0}, "5054B285"),
    ({"dump_id": "../dump/lenet", "rank": 0, "graph_id": 0, "iteration": 0}, "5054B285"),
    ({"dump_id": DUMP_ID, "rank": 7, "graph_id": 0, "iteration": 0}, "5054B285"),
    ({"dump_id": DUMP_ID, "rank": 0, "graph_id": 0, "iteration": 1}, "5054B285"),  # ran, not dumped
    ({"dump_id": DUMP_ID, "rank": "x", "graph_id": 0, "iteration": 0}, "50540001"),
    ({"dump_id": DUMP_ID, "graph_id": 0, "iteration": 0}, "50540003"),
    ({"dump_id": DUMP_ID, "rank": 0, "graph_id": 0, "iteration": 0, "io": "both"}, "50540002"),
])
def test_tensor_table_errors(client: FlaskClient, query: dict[str, Any], code: str) -> None:
    response = client.get(f"{API}/tensors", query_string=query)
    assert response.status_code == 400
    assert response.get_json()["error_code"] == code


@pytest.mark.parametrize(("query", "code"), [
    ({"op_name": "nope", "io": "output", "slot": 0}, "5054B284"),
    ({"op_name": "fc2_weight", "io": "output", "slot": 0, "shape": "[0]"}, "50540002"),  # wrong rank of dims
    ({"op_name": "fc2_weight", "io": "output", "slot": 0, "shape": "[0:2, 500]"}, "50540002"),  # out of range
    ({"op_name": "fc2_weight", "io": "output", "slot": 0, "shape": "0, 1"}, "50540002"),
    ({"op_name": "fc2_weight", "io": "output", "slot": 0, "detail": "all"}, "50540002"),
])
def test_tensor_errors(client: FlaskClient, query: dict[str, Any], code: str) -> None:
    response = client.get(f"{API}/tensor", query_string={"dump_id": DUMP_ID, "rank": 0, "graph_id": 0,
                                                         "iteration": 3, **query})
    assert response.status_code == 400
    assert response.get_json()["error_code"] == code


def test_graph_of_a_dump_and_jump_from_a_tensor(client: FlaskClient, expected: dict[str, Any]) -> None:
    where = {"dump_id": DUMP_ID, "rank": 0, "graph_id": 0}
    root = get(client, "/graph/nodes", **where)["nodes"]
    assert {n["name"] for n in root} >= {"Default", "Gradients"}
    everything = get(client, "/graph/nodes/names", search="Conv2D", **where)["nodes"]
    assert everything
    node = "Gradients/Default/network-WithLossCell/_backbone-LeNet5/conv2-Conv2d/Grad_Conv2D/Conv2DBackpropInput-op1"
    found = get(client, "/graph/single-node", full_name=node, **where)
    assert found["name"].endswith("Conv2DBackpropInput-op1")
    response = client.get(f"{API}/graph/single-node", query_string={"full_name": "Default/nope", **where})
    assert response.get_json()["error_code"] == "5054B100"


def test_graph_nodes_carry_their_dumped_tensors(client: FlaskClient, expected: dict[str, Any]) -> None:
    scope = "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d"
    nodes = get(client, "/graph/nodes", dump_id=DUMP_ID, rank=0, graph_id=0, iteration=3, name=scope)["nodes"]
    conv = next(n for n in nodes if n["name"] == f"{scope}/Conv2D-op0")
    want = {(t["io"], t["slot"]): t for t in expected["tensors"] if t["iteration"] == 3
            and t["graph_node"] == f"{scope}/Conv2D-op0"}
    assert {(t["io"], t["slot"]): (t["shape"], t["max"]) for t in conv["tensors"]} == {
        k: (t["shape"], t["max"]) for k, t in want.items()}
    plain = get(client, "/graph/nodes", dump_id=DUMP_ID, rank=0, graph_id=0, name=scope)["nodes"]
    assert all("tensors" not in n for n in plain)  # without `iteration`: the graph views' answer as it is


def test_single_node_with_an_iteration_carries_dumped_tensors_at_every_level(client: FlaskClient,
                                                                              expected: dict[str, Any]) -> None:
    """A jump to a node (the debugger page's search, tree and hit links) lists each scope on the way down with the
    same `tensors` as `graph/nodes?iteration=` gives them."""
    where = {"dump_id": DUMP_ID, "rank": 0, "graph_id": 0}
    full = "Default/network-WithLossCell/_backbone-LeNet5/conv2-Conv2d/Conv2D-op0"
    answer = get(client, "/graph/single-node", full_name=full, iteration=2, **where)
    levels = []
    level: Any = answer
    while isinstance(level, dict) and "nodes" in level:
        levels.append(level)
        level = level.get("children")
    assert [lv["scope_name"] for lv in levels][-1] == full.rsplit("/", 1)[0]
    last = {n["name"]: n for n in levels[-1]["nodes"]}
    want = {(t["io"], t["slot"]): t["max"] for t in expected["tensors"] if t["iteration"] == 2
            and t["graph_node"] == full}
    assert want and {(t["io"], t["slot"]): t["max"] for t in last[answer["name"]]["tensors"]} == want
    for lv in levels:  # every level as graph/nodes?iteration= lists it
        listed = get(client, "/graph/nodes", iteration=2, name=lv["scope_name"], **where)["nodes"]
        assert [(n["name"], len(n.get("tensors", []))) for n in lv["nodes"]] == [
            (n["name"], len(n.get("tensors", []))) for n in listed]
    by_name = get(client, "/graph/single-node", name=answer["name"], iteration=2, **where)
    assert by_name["nodes"] == levels[0]["nodes"]
    plain = get(client, "/graph/single-node", full_name=full, **where)
    assert "tensors" not in json.dumps(plain)
