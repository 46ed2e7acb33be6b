"""The compare graph built from two dumps (issue 35, POST msprobe/graph/build) against msprobe 26.2's own
`graph_visualize` of the same dumps in ../shared/fixtures/msprobe/graph_vis: node names, parents, types and order per
side, matched flags, matched_node_link and precision_index of every node; the built id answers GET graphs / graph /
graph/node as a .vis.db does; a bad id is a 400 saying to build again."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.conftest import SHARED, require_shared
from tests.integration.test_debugger_api import make_client

API = "/v1/mindinsight/msprobe"
MSPROBE = SHARED / "fixtures" / "msprobe"
KEYS = ("name", "parent", "type", "order", "precision_index", "matched")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    require_shared(MSPROBE)
    return make_client(MSPROBE, tmp_path_factory.mktemp("msprobe-graph-build-ws"))


def call(client: FlaskClient, method: str, path: str, status: int = 200, **kw: Any) -> dict[str, Any]:
    response = client.open(f"{API}{path}", method=method, **kw)
    assert response.status_code == status, (path, kw, response.get_data(as_text=True)[:300])
    body: dict[str, Any] = response.get_json()
    return body


def vis_db(folder: str) -> str:
    found = next((MSPROBE / "graph_vis" / folder).glob("*.vis.db"))
    return "./" + found.relative_to(MSPROBE).as_posix()


def proc(dump: str) -> str:
    return next((MSPROBE / dump / "step0").iterdir()).name


def built(client: FlaskClient, body: dict[str, Any]) -> str:
    answer = call(client, "POST", "/graph/build", json=body)
    assert answer["kind"] == "compare" and answer["error"] is None
    assert [g["side"] for g in answer["graphs"]] == ["NPU", "Bench"]
    graph_id: str = answer["graph_id"]
    assert graph_id.startswith("built:")
    return graph_id


def graph(client: FlaskClient, graph_id: str, side: str, step: int) -> dict[str, Any]:
    return call(client, "GET", "/graph", query_string={"graph_id": graph_id, "side": side, "step": step, "rank": 0})


def differences(client: FlaskClient, ours: str, theirs: str, step: int) -> list[tuple[str, str, Any, Any]]:
    """(side, node, ours, msprobe's) for every node whose facts or matched_node_link differ."""
    out: list[tuple[str, str, Any, Any]] = []
    for side in ("NPU", "Bench"):
        mine, msprobe = graph(client, ours, side, step), graph(client, theirs, side, step)
        assert mine["colors"] == msprobe["colors"]
        assert (mine["kind"], mine["step"], mine["rank"]) == (msprobe["kind"], msprobe["step"], msprobe["rank"])
        assert [n["name"] for n in mine["nodes"]] == [n["name"] for n in msprobe["nodes"]], side
        for a, b in zip(mine["nodes"], msprobe["nodes"], strict=True):
            if [a[k] for k in KEYS] != [b[k] for k in KEYS]:
                out.append((side, a["name"], {k: a[k] for k in KEYS}, {k: b[k] for k in KEYS}))
                continue
            q = {"graph_id": ours, "name": a["name"], "side": side, "step": step, "rank": 0}
            link = call(client, "GET", "/graph/node", query_string=q)["matched_node_link"]
            their_link = call(client, "GET", "/graph/node", query_string={**q, "graph_id": theirs})["matched_node_link"]
            if link != their_link:
                out.append((side, a["name"], link, their_link))
    return out


@pytest.mark.parametrize("step", [0, 1])
def test_statistics_graph_is_msprobes_node_for_node(client: FlaskClient, step: int) -> None:
    body = {"target": {"dump_id": "./pair_target_ms_statistics", "step": step, "rank": 0},
            "bench": {"dump_id": "./pair_bench_ms_statistics", "step": step, "rank": 0}}
    ours = built(client, body)
    assert differences(client, ours, vis_db("compare_statistics"), step) == []
    npu = graph(client, ours, "NPU", step)
    assert len(npu["nodes"]) == 67 and npu["overflow_check"] is False
    # a node's details: the target's statistics as msprobe writes them (strings) with the compare columns
    q = {"graph_id": ours, "name": "Cell._backbone.fc2.Dense.forward.0", "side": "NPU", "step": step, "rank": 0}
    detail = call(client, "GET", "/graph/node", query_string=q)
    theirs = call(client, "GET", "/graph/node", query_string={**q, "graph_id": vis_db("compare_statistics")})
    assert list(detail["inputs"]) == list(theirs["inputs"]) and list(detail["outputs"]) == list(theirs["outputs"])
    out = detail["outputs"]["Cell._backbone.fc2.Dense.forward.0.output.0"]
    their_out = theirs["outputs"]["Cell._backbone.fc2.Dense.forward.0.output.0"]
    for key in ("dtype", "shape", "Result", "Err_message"):
        assert out[key] == their_out[key], key
    assert float(out["Norm"]) == float(their_out["Norm"])
    assert float(out["NormRelativeErr"].rstrip("%")) == pytest.approx(float(their_out["NormRelativeErr"].rstrip("%")))
    assert detail["stack"] == theirs["stack"]


# msprobe's tensor mode judges a node with its tensor checkers (cosine, error ratios); our verdicts stay the
# statistics rules (docs/msprobe-compare.md), so these three nodes are coloured differently.
TENSOR_DIFFERENT = {("NPU", "Primitive.matmul.MatMul.0.backward"), ("NPU", "Primitive.conv2d.Conv2D.1.backward"),
                    ("NPU", "Cell._backbone.conv2.Conv2d.backward.0")}


def test_tensor_graph_differs_from_msprobe_only_where_its_tensor_checkers_judge(client: FlaskClient) -> None:
    body = {"target": {"dump_id": "./pair_target_ms_tensor", "step": 0, "rank": proc("pair_target_ms_tensor")},
            "bench": {"dump_id": "./pair_bench_ms_tensor", "step": 0, "rank": proc("pair_bench_ms_tensor")},
            "mode": "tensor"}
    ours = built(client, body)
    found = differences(client, ours, vis_db("compare_tensor"), 0)
    assert {(side, name) for side, name, _, _ in found} == TENSOR_DIFFERENT
    # everything but the precision index is msprobe's
    assert all({k: v for k, v in a.items() if k != "precision_index"} == {k: v for k, v in b.items()
               if k != "precision_index"} for _, _, a, b in found)
    q = {"graph_id": ours, "name": "Primitive.matmul.MatMul.0.backward", "side": "NPU", "step": 0, "rank": 0}
    slot = next(iter(call(client, "GET", "/graph/node", query_string=q)["inputs"].values()))
    assert "Cosine" in slot and "EucDist" in slot


CROSS = {"target": {"dump_id": "./pair_target_ms_statistics", "step": 0, "rank": 0},
         "bench": {"dump_id": "./pair_bench_torch_statistics", "step": 0, "rank": None},
         "mapping": {"layer": "configs/layer_mapping.yaml"}}
# The four backward calls of the two ReLU and MaxPool cells: `msprobe compare` (whose rows we pair) ranks a bench
# backward call among its node's backward calls, graph_visualize's layer mapping pairs the same call numbers; so the
# same nodes are matched with the same precision index, but these link to another call of the same cell.
CROSS_LINKS = {f"{side}:{name}" for side, names in (
    ("NPU", ("Cell._backbone.relu.ReLU.backward.0", "Cell._backbone.relu.ReLU.backward.2",
             "Cell._backbone.pool.MaxPool2d.backward.0", "Cell._backbone.pool.MaxPool2d.backward.1")),
    ("Bench", ("Module.relu.ReLU.backward.0", "Module.relu.ReLU.backward.2",
               "Module.pool.MaxPool2d.backward.0", "Module.pool.MaxPool2d.backward.1"))) for name in names}


def cross_differences(client: FlaskClient) -> list[tuple[str, str, Any, Any]]:
    body = {**CROSS, "bench": {**CROSS["bench"], "rank": proc("pair_bench_torch_statistics")}}
    return differences(client, built(client, body), vis_db("compare_cross_framework"), 0)


def test_cross_framework_graph_matches_and_colours_as_msprobe(client: FlaskClient) -> None:
    found = cross_differences(client)
    assert {f"{side}:{name}" for side, name, _, _ in found} == CROSS_LINKS
    assert all(isinstance(ours, list) for _, _, ours, _ in found)  # only matched_node_link differs


@pytest.mark.xfail(strict=True, reason="layer mapping: the 4 backward ReLU/MaxPool cells per side link to another "
                   "call of the same cell (msprobe compare's backward re-ranking, which our rows follow, vs "
                   "graph_visualize's mapping_dict); names, tree, matched flags and precision indices agree")
def test_cross_framework_links_are_msprobes(client: FlaskClient) -> None:
    assert cross_differences(client) == []


def test_built_ids_are_listed_and_bad_ids_say_to_build_again(client: FlaskClient) -> None:
    body = {"target": {"dump_id": "./pair_target_ms_statistics", "step": 1, "rank": 0},
            "bench": {"dump_id": "./pair_bench_ms_statistics", "step": 1, "rank": 0}}
    ours = built(client, body)
    assert built(client, body) == ours  # the id says what is built: the same body, the same id
    listed = {g["graph_id"]: g for g in call(client, "GET", "/graphs")["graphs"]}
    assert listed[ours]["kind"] == "compare" and {g["step"] for g in listed[ours]["graphs"]} == {1}
    for bad in ("built:%%%", "built:" + base64.urlsafe_b64encode(b'{"x": 1}').decode()):
        answer = call(client, "GET", "/graph", 400, query_string={"graph_id": bad, "side": "NPU"})
        assert "build it again" in answer["error_msg"]
    gone = "built:" + base64.urlsafe_b64encode(b'{"target":{"dump_id":"./nope"},"bench":{"dump_id":"./nope"}}').decode()
    assert "./nope" in call(client, "GET", "/graph", 400, query_string={"graph_id": gone, "side": "NPU"})["error_msg"]
    call(client, "POST", "/graph/build", 400, json={"target": {"dump_id": "./pair_target_ms_statistics"},
                                                    "bench": {"dump_id": "./pair_bench_ms_statistics"},
                                                    "mode": "tensor"})


def test_a_link_to_a_built_graph_is_built_on_first_use(tmp_path: Path) -> None:
    require_shared(MSPROBE)
    first = make_client(MSPROBE, tmp_path / "a")
    body = {"target": {"dump_id": "./pair_target_ms_statistics", "step": 0, "rank": 0},
            "bench": {"dump_id": "./pair_bench_ms_statistics", "step": 0, "rank": 0}}
    graph_id = built(first, body)
    fresh = make_client(MSPROBE, tmp_path / "b")  # a restarted server: nothing built yet
    listed = call(fresh, "GET", "/graphs", query_string={"graph_id": graph_id})["graphs"]
    assert any(g["graph_id"] == graph_id for g in listed)
    assert len(graph(fresh, graph_id, "Bench", 0)["nodes"]) == 67
