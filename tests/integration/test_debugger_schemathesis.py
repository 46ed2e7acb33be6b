"""Schemathesis over the debugger/* and models/* operations of openapi.yaml, against the app on the real MindSpore
debugging fixtures (../shared/fixtures/mindspore_debug, read in place, --max-depth 4), so that generated requests
reach real dumps, tensors and model files: run with tests/integration/test_schemathesis.py's engine and checks (no
5xx, documented status codes, content types and body schemas). Real values are mixed in per path (a dump with one
of its graphs and iterations, a tensor of that iteration, a model file of the right kind).
"""

from __future__ import annotations

import collections
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import require_shared
from tests.integration.test_debugger_api import DEBUG
from tests.integration.test_schemathesis import API, CHECKS, MAX_EXAMPLES, RANDOM, run_engine

TAGS = ("debugger", "models")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    require_shared(DEBUG)
    app = create_app(settings_for_tests(summary_base_dir=str(DEBUG), workspace=str(tmp_path_factory.mktemp("dbg-st")),
                                        max_depth=4, reload_interval=0), start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app


def real_queries(app: Flask) -> dict[str, list[dict[str, Any]]]:
    client = app.test_client()
    out: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for dump in client.get(f"{API}/debugger/dumps").get_json()["dumps"]:
        for graph in dump["graphs"]:
            where = {"dump_id": dump["dump_id"], "rank": graph["rank"], "graph_id": graph["graph_id"]}
            out["/debugger/graph/nodes"] += [where, {**where, "name": "Default", "iteration": graph["iterations"][0]}]
            out["/debugger/graph/nodes/names"].append({**where, "search": "Conv"})
            for iteration in graph["iterations"]:
                out["/debugger/tensors"].append({**where, "iteration": iteration})
                rows = client.get(f"{API}/debugger/tensors", query_string={**where, "iteration": iteration,
                                                                          "limit": 12}).get_json()["tensors"]
                for row in rows:
                    tensor = {**where, "iteration": iteration, "op_name": row["op_name"], "io": row["io"],
                              "slot": row["slot"]}
                    out["/debugger/tensor"] += [tensor, {**tensor, "detail": "histogram"}]
                    out["/debugger/tensor/compare"].append({**tensor, "other_iteration": graph["iterations"][-1]})
                    if row["node_name"]:
                        out["/debugger/graph/single-node"].append({**where, "full_name": row["node_name"]})
    for model in client.get(f"{API}/models/list").get_json()["models"]:
        query = {"model_id": model["model_id"]}
        if model["kind"] in ("mindir", "ir", "pb"):
            out["/models/graph"].append(query)
            out["/models/graph/nodes"] += [query, {**query, "name": "Default"}]
            out["/models/graph/nodes/names"].append({**query, "search": "MatMul"})
            listed = client.get(f"{API}/models/graph/nodes", query_string=query).get_json()["nodes"]
            out["/models/graph/single-node"] += [{**query, "name": node["name"]} for node in listed[:3]]
        if model["kind"] in ("mindir", "checkpoint"):
            out["/models/parameters"].append(query)
            out["/models/parameters/compare"].append({**query, "other_model_id": "./mindir/lenet_train.ckpt"})
        if model["kind"] in ("ir", "dot"):
            out["/models/text"].append({**query, "limit": 200})
    return out


def test_debugger_and_model_operations_conform_to_the_document(app: Flask) -> None:
    fragments = real_queries(app)
    config = SchemathesisConfig.from_dict({
        "generation": {"mode": "all", "max-examples": MAX_EXAMPLES, "deterministic": not RANDOM, "database": "none"},
        "phases": {"stateful": {"enabled": False}},
        "checks": {"enabled": False, **{name: {"enabled": True} for name in CHECKS}},
        "headers": {"Accept-Encoding": "identity"},
        "workers": 1,
    })
    schema = schemathesis.openapi.from_wsgi(f"{API}/openapi.json", app, config=config).include(tag=list(TAGS))

    @schema.hook("before_generate_query")
    def _mix_in_real_queries(context: Any, strategy: Any) -> Any:
        choices = fragments.get(context.operation.path) if context.operation is not None else None
        if not choices:
            return strategy
        return st.one_of(strategy, st.sampled_from(choices))

    outcome = run_engine(schema)
    assert not outcome.errors, "\n".join(outcome.errors)
    assert not outcome.findings, "\n\n".join(map(str, outcome.findings.values()))
    reached = {label for label, counts in outcome.statuses.items() if counts[200]}
    documented = {f"{op.method.upper()} {op.path}" for op in (r.ok() for r in schema.get_all_operations())}
    assert len(documented) == 17 and reached >= documented - {"POST /debugger/watchpoints/check"}, (
        sorted(documented - reached))
