"""Hostile graph files (issue 29): deep scope names, huge graphs, and the built graphs kept in memory.

A name of depth d made the scope tree hold d name scopes each named by its full path (~d²/2 characters): a 62 KB
`.ir` cost 1.45 GB. Each file here is written by the test with the project's own writers and served through
create_app; the peak memory of the request is measured with tracemalloc.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.plugins.graphs.limits import CUT_MARK, FOLD_SEPARATOR, MAX_NAME_CHARS, MAX_SCOPE_DEPTH
from mindinsight_clone.proto import anf_ir_pb2
from mindinsight_clone.server.app import create_app
from mindinsight_clone.server.services import EXTENSION_KEY
from mindinsight_clone.summary.debug_files import Network, Op, lenet, write_dump, write_graph_pb, write_mindir
from mindinsight_clone.summary.writer import SummaryWriter

DEPTH = 5000
PEAK_LIMIT = 40 << 20  # bytes; the unbounded build peaked at ~370 MB for this depth
MODELS = "/v1/mindinsight/models/graph"
DEBUGGER = "/v1/mindinsight/debugger/graph"
GRAPHS = "/v1/mindinsight/datavisual/graphs"


def deep_name(depth: int) -> str:
    return "/".join(f"s{i}" for i in range(depth)) + "/Conv2D-op0"


def ir_text(names: list[str]) -> str:
    """An `.ir` as MindSpore writes it, one Conv2D statement per name (each reading the previous one)."""
    lines = ["# IR entry: @g", "subgraph @g() {"]
    for i, name in enumerate(names):
        arg = f"%{i - 1}" if i else "%para1_w"
        lines += [f"  %{i}(x) = Conv2D({arg}) {{instance name: c}}",
                  "      : (<Tensor[Float32], (1)>) -> (<Tensor[Float32], (1)>)",
                  f"      # Fullname with scope: ({name})"]
    return "\n".join([*lines, f"  Return(%{len(names) - 1})", "}", ""])


def client_for(base: Path, tmp_path: Path, **settings: Any) -> FlaskClient:
    app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), max_depth=4,
                                        reload_interval=0, **settings), start_background=False)
    app.extensions[EXTENSION_KEY].data_manager.reload()
    return app.test_client()


def measured(call: Callable[[], Any]) -> tuple[Any, int]:
    """`call()` and the peak of the memory it allocated (bytes)."""
    tracemalloc.start()
    try:
        return call(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def check_bounded_tree(client: FlaskClient, path: str, **query: str) -> None:
    """The scope listing answers within the memory limit, says what was bounded, and the tree stops at the bound."""
    response, peak = measured(lambda: client.get(f"{path}/nodes", query_string=query))
    assert response.status_code == 200, response.get_json()
    assert peak < PEAK_LIMIT, f"peak {peak / 2**20:.0f} MB"
    body = response.get_json()
    notes = " ".join(body["notes"])
    assert f"deeper than {MAX_SCOPE_DEPTH} scope levels" in notes and f"longer than {MAX_NAME_CHARS}" in notes
    deepest = "/".join(f"s{i}" for i in range(MAX_SCOPE_DEPTH))
    listing = client.get(f"{path}/nodes", query_string={**query, "name": deepest}).get_json()["nodes"]
    op = next(n for n in listing if n["type"] == "Conv2D")
    assert op["name"].count("/") == MAX_SCOPE_DEPTH and len(op["name"]) <= MAX_NAME_CHARS
    assert op["name"].startswith("s0/s1/") and f"s{MAX_SCOPE_DEPTH}{FOLD_SEPARATOR}s" in op["name"]
    assert CUT_MARK in op["name"]


def test_deep_ir_scope_is_bounded_and_the_flat_list_keeps_the_full_name(tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "models").mkdir(parents=True)
    (base / "models" / "deep.ir").write_text(ir_text([deep_name(DEPTH), "Default/net/Conv2D-op1"]))
    client = client_for(base, tmp_path)
    check_bounded_tree(client, MODELS, model_id="./models/deep.ir")
    flat = client.get(MODELS, query_string={"model_id": "./models/deep.ir"}).get_json()
    assert flat["nodes"][0]["full_name"] == deep_name(DEPTH)  # nothing readable is lost
    assert client.get(f"{MODELS}/nodes", query_string={"model_id": "./models/deep.ir", "name": "Default/net"}
                      ).get_json()["nodes"][0]["name"] == "Default/net/Conv2D-op1"


def test_deep_mindir_scope_is_bounded(tmp_path: Path) -> None:
    net = Network("deep", [Op("Conv2D", deep_name(DEPTH), ["w"], (1,))], {"w": np.zeros(1, np.float32)})
    write_mindir(tmp_path / "base" / "models" / "deep.mindir", net)
    check_bounded_tree(client_for(tmp_path / "base", tmp_path), MODELS, model_id="./models/deep.mindir")


def test_deep_summary_graph_scope_is_bounded(tmp_path: Path) -> None:
    graph = anf_ir_pb2.GraphProto(name="g")
    name = deep_name(DEPTH)
    graph.node.add(name="1", op_type="Conv2D", full_name=name, scope=name.rpartition("/")[0])
    graph.parameters.add(name=deep_name(DEPTH // 2))  # a parameter with a deep name too
    graph.node[0].input.add(name=deep_name(DEPTH // 2))
    with SummaryWriter(tmp_path / "base" / "run") as writer:
        writer.add_graph(graph)
    check_bounded_tree(client_for(tmp_path / "base", tmp_path), GRAPHS, train_id="./run")


def test_deep_dump_graph_scope_is_bounded(tmp_path: Path) -> None:
    dump = tmp_path / "base" / "job" / "dump"
    write_dump(dump, lenet(np.random.default_rng(0)), [0], np.random.default_rng(1))
    deep = Network("deep", [Op("Conv2D", deep_name(DEPTH), ["w"], (1,))], {"w": np.zeros(1, np.float32)})
    write_graph_pb(dump / "rank_0" / "graphs" / "ms_output_trace_code_graph_0.pb", deep, "kernel_graph0")
    check_bounded_tree(client_for(tmp_path / "base", tmp_path), DEBUGGER, dump_id="./job/dump", rank="0",
                       graph_id="0")


def test_a_graph_over_max_graph_nodes_is_refused_clearly(tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "models").mkdir(parents=True)
    # 400 operators, each in its own 3-level scope: ~1,600 nodes with the scopes
    (base / "models" / "wide.ir").write_text(ir_text([f"a{i}/b/c/Conv2D-op{i}" for i in range(400)]))
    client = client_for(base, tmp_path, max_graph_nodes=1000)
    response = client.get(f"{MODELS}/nodes", query_string={"model_id": "./models/wide.ir"})
    assert response.status_code == 400
    body = response.get_json()
    assert body["error_code"] == "50545022" and "max_graph_nodes" in body["error_msg"]
    assert str(tmp_path) not in body["error_msg"]
    flat = client.get(MODELS, query_string={"model_id": "./models/wide.ir", "limit": 10}).get_json()
    assert flat["node_count"] == 401  # the flat node list still serves it


def test_built_graphs_are_kept_within_a_node_budget(tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "models").mkdir(parents=True)
    for k in range(3):  # ~800 nodes each with their scopes; the budget (2 x 1000) keeps two
        (base / "models" / f"m{k}.ir").write_text(ir_text([f"a{i}/b/Conv2D-op{i}" for i in range(260)]))
    client = client_for(base, tmp_path, max_graph_nodes=1000)
    for k in range(3):
        assert client.get(f"{MODELS}/nodes", query_string={"model_id": f"./models/m{k}.ir"}).status_code == 200
    kept = client.application.extensions[EXTENSION_KEY].extras["models"]._graphs
    assert len(kept) == 2 and kept.node_count <= 2000


def test_a_big_ir_is_read_in_linear_time(tmp_path: Path) -> None:
    """Each `# Fullname with scope` line scanned every id of the subgraph: 15,000 statements took ~6 s, 40,000 55 s."""
    base = tmp_path / "base"
    (base / "models").mkdir(parents=True)
    (base / "models" / "big.ir").write_text(ir_text([f"Default/b{i % 100}/Conv2D-op{i}" for i in range(15_000)]))
    client = client_for(base, tmp_path)
    started = time.perf_counter()
    flat = client.get(MODELS, query_string={"model_id": "./models/big.ir", "limit": 1}).get_json()
    assert flat["node_count"] == 15_001 and flat["nodes"][0]["inputs"] == ["w"]
    assert time.perf_counter() - started < 3  # ~0.4 s when linear
