"""Every graph MindSpore wrote into the fixtures builds, and matches MANIFEST.json."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.ingest.event_parser import parse_summary_records
from mindinsight_clone.ingest.record_reader import read_all
from mindinsight_clone.plugins.graphs.build import build_graph
from mindinsight_clone.plugins.graphs.node import CONST, PARAMETER
from mindinsight_clone.plugins.graphs.query import GraphQuery
from tests.conftest import FIXTURES, require_shared


def _graph_runs() -> list[tuple[str, dict[str, Any]]]:
    manifest = FIXTURES / "MANIFEST.json"
    if not manifest.exists():
        return []
    runs = json.loads(manifest.read_text())["runs"]
    return [(run, g | {"path": info["path"]}) for run, info in runs.items() for g in info.get("graphs") or []]


RUNS = _graph_runs()


def _proto(entry: dict[str, Any]) -> Any:
    path = FIXTURES / entry["path"] / entry["file"]
    values = parse_summary_records(read_all(path).records, Path(path).name).values
    graphs = [v.value for v in values if v.plugin == "graph"]
    assert graphs, f"no graph in {path}"
    return graphs[-1]


def test_manifest_lists_graphs() -> None:
    require_shared(FIXTURES)
    counts = {run: g["nodes"] for run, g in RUNS}
    assert counts["lenet_collector"] == 76 and counts["summary_ops"] == 49 and counts["landscape"] == 52


@pytest.mark.parametrize(("run", "entry"), RUNS, ids=[r for r, _ in RUNS])
def test_fixture_graph_matches_manifest(run: str, entry: dict[str, Any]) -> None:
    proto = _proto(entry)
    assert len(proto.node) == entry["nodes"]
    assert len(proto.parameters) == entry["parameters"]
    assert len(proto.const_vals) == entry["const_vals"]
    model = build_graph(proto)
    ops = [n for n in model.nodes.values() if not n.is_scope and n.type not in (CONST, PARAMETER)]
    assert len(ops) == entry["nodes"]
    assert Counter(n.type for n in ops) == Counter(entry["op_type_counts"])
    assert len({op.scope for op in proto.node}) == entry["distinct_scopes"]
    depth = max(n.name.count("/") + 1 for n in model.nodes.values() if n.type == "name_scope")
    assert depth == entry["max_scope_depth"]
    for sample in entry["sample_node_full_names"]:
        assert sample in model.nodes or any(n.full_name == sample for n in ops)
    # every node is reachable from the root, and nodes/all returns every leaf once
    query = GraphQuery(model)
    leaves = [n for n in model.nodes.values() if not n.is_scope]
    assert sorted(n["name"] for n in query.all_nodes()) == sorted(n.name for n in leaves)
    for node in model.nodes.values():
        if node.scope:
            assert node.scope in model.nodes
    # the optimized view builds and keeps no gradient or optimizer operator
    optimized = build_graph(proto, optimized=True)
    assert not any(name.startswith("Gradients") for name in optimized.nodes)
    assert optimized.op_count < model.op_count
