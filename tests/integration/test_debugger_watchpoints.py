"""debugger/watchpoints/check over the real MindSpore dump, and over a copy with NaN/Inf planted into .npy files.

Every expected hit set is computed here from the .npy files with numpy (the conditions as docs/debugger.md defines
them, MindInsight's parameters) and EXPECTED.json's execution order; none comes from our answers.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from tests.conftest import require_shared
from tests.integration.test_debugger_api import API, DUMP, DUMP_ID, make_client

Key = tuple[int, int, str, str, int]  # graph, iteration, op_name, io, slot
ACTIVATIONS = {"relu", "sigmoid", "tanh", "softmax", "gelu", "fastgelu"}


@pytest.fixture(scope="module")
def tensors() -> list[dict[str, Any]]:
    require_shared(DUMP)
    found: list[dict[str, Any]] = json.loads((DUMP / "EXPECTED.json").read_text())["runs"]["lenet"]["tensors"]
    return found


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    require_shared(DUMP)
    return make_client(DUMP.parent, tmp_path_factory.mktemp("wp-ws"))


def copy_dump(target: Path) -> Path:
    """A writable copy of the fixture dump at `target/dump/lenet` (the fixture's files and folders are read-only)."""
    dest = target / "dump" / "lenet"
    shutil.copytree(DUMP / "lenet", dest, copy_function=shutil.copyfile)
    for folder, _dirs, _files in os.walk(dest):
        os.chmod(folder, 0o755)
    return dest


def check(client: FlaskClient, *conditions: dict[str, Any], **body: Any) -> dict[str, Any]:
    response = client.post(f"{API}/watchpoints/check", json={"dump_id": DUMP_ID, "conditions": list(conditions),
                                                              **body})
    assert response.status_code == 200, response.get_json()
    answer: dict[str, Any] = response.get_json()
    assert answer["error_count"] == 0, answer["errors"]
    return answer


def hit_keys(answer: dict[str, Any], condition: str | None = None) -> set[Key]:
    return {(h["graph_id"], h["iteration"], h["op_name"], h["io"], h["slot"]) for h in answer["hits"]
            if condition is None or h["condition"] == condition}


def key(t: dict[str, Any]) -> Key:
    return (t["graph_id"], t["iteration"], t["op_name"], t["io"], t["slot"])


def values(root: Path, t: dict[str, Any]) -> np.ndarray:
    array = np.load(root / t["path"])
    return array.astype(np.float64)


def expect(tensors: list[dict[str, Any]], root: Path, rule: Callable[[np.ndarray], bool]) -> set[Key]:
    return {key(t) for t in tensors if rule(values(root, t))}


def finite(a: np.ndarray) -> np.ndarray:
    return a[np.isfinite(a)]


# ------------------------------------------------------------------------------ conditions on the real dump
def test_too_large_and_too_small(client: FlaskClient, tensors: list[dict[str, Any]]) -> None:
    answer = check(client, {"id": "too_large", "params": {"max_gt": 5.0}},
                   {"id": "too_small", "params": {"abs_mean_lt": 1e-3}})
    assert hit_keys(answer, "too_large") == expect(tensors, DUMP, lambda a: finite(a).size > 0
                                                   and finite(a).max() > 5.0)
    assert hit_keys(answer, "too_small") == expect(tensors, DUMP, lambda a: finite(a).size > 0
                                                   and np.abs(finite(a)).mean() < 1e-3)
    assert answer["checked_tensors"] == len(tensors) and answer["checked_iterations"] == 4


def test_all_zero_default_is_100_percent(client: FlaskClient, tensors: list[dict[str, Any]]) -> None:
    answer = check(client, {"id": "all_zero"})
    assert hit_keys(answer) == expect(tensors, DUMP, lambda a: a.size > 0 and np.count_nonzero(a == 0) == a.size)
    half = check(client, {"id": "all_zero", "params": {"zero_percentage_ge": 50}})
    assert hit_keys(half) == expect(tensors, DUMP, lambda a: a.size > 0 and np.count_nonzero(a == 0) * 100 / a.size
                                    >= 50)
    assert hit_keys(answer) < hit_keys(half)


def test_range(client: FlaskClient, tensors: list[dict[str, Any]]) -> None:
    answer = check(client, {"id": "range", "params": {"range_start_inclusive": -0.1, "range_end_inclusive": 0.1,
                                                      "range_percentage_gt": 90, "max_min_gt": 20}})
    def rule(a: np.ndarray) -> bool:
        inside = np.count_nonzero((a >= -0.1) & (a <= 0.1)) * 100 / a.size if a.size else 0
        spread = finite(a).max() - finite(a).min() if finite(a).size else None
        return bool(inside > 90 or (spread is not None and spread > 20))
    assert hit_keys(answer) == expect(tensors, DUMP, rule)


def _pairs(tensors: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(tensor, the same op/io/slot in the graph's previous dumped iteration) for every tensor that has one."""
    iterations: dict[int, list[int]] = {}
    for t in tensors:
        iterations.setdefault(t["graph_id"], [])
        if t["iteration"] not in iterations[t["graph_id"]]:
            iterations[t["graph_id"]].append(t["iteration"])
    index = {key(t): t for t in tensors}
    out = []
    for t in tensors:
        its = sorted(iterations[t["graph_id"]])
        position = its.index(t["iteration"])
        if position:
            other = index.get((t["graph_id"], its[position - 1], t["op_name"], t["io"], t["slot"]))
            if other is not None:
                out.append((t, other))
    return out


def test_not_changed_between_dumped_iterations(client: FlaskClient, tensors: list[dict[str, Any]]) -> None:
    answer = check(client, {"id": "not_changed"}, targets="all")
    expected = {key(t) for t, p in _pairs(tensors)
                if np.isclose(values(DUMP, t), values(DUMP, p), rtol=1e-5, atol=1e-8).all()}
    assert expected and hit_keys(answer) == expected  # e.g. learning_rate and momentum never change
    assert all(h["previous_iteration"] is not None for h in answer["hits"])


def test_weight_change_ratio(client: FlaskClient, tensors: list[dict[str, Any]]) -> None:
    answer = check(client, {"id": "change_too_large", "params": {"abs_mean_update_ratio_gt": 0.05}},
                   {"id": "change_too_small", "params": {"abs_mean_update_ratio_lt": 0.05}}, targets="weights")

    def ratio(t: dict[str, Any], p: dict[str, Any]) -> float:
        a, b = values(DUMP, t), values(DUMP, p)
        return float(np.abs(a - b).mean() / (np.abs(b).mean() + 1e-9))

    weights = [(t, p) for t, p in _pairs(tensors) if t["op_type"] == "Parameter"
               and (t.get("parameter_name") or "").endswith((".weight", ".bias"))]
    assert weights
    assert hit_keys(answer, "change_too_large") == {key(t) for t, p in weights if ratio(t, p) > 0.05}
    assert hit_keys(answer, "change_too_small") == {key(t) for t, p in weights if ratio(t, p) < 0.05}


def test_filters_and_bad_bodies(client: FlaskClient, tensors: list[dict[str, Any]]) -> None:
    answer = check(client, {"id": "too_large", "params": {"max_gt": 5.0}}, iterations=[3], graph_ids=[0], ranks=[0])
    assert {k[1] for k in hit_keys(answer)} == {3} and answer["checked_iterations"] == 1
    for body, code in [
        ({"dump_id": DUMP_ID, "conditions": [{"id": "too_large"}]}, "5054B081"),  # needs a parameter
        ({"dump_id": DUMP_ID, "conditions": [{"id": "range", "params": {"range_percentage_lt": 5}}]}, "5054B081"),
        ({"dump_id": DUMP_ID, "conditions": [{"id": "all_zero", "params": {"zero_percentage_ge": 101}}]}, "5054B081"),
        ({"dump_id": DUMP_ID, "conditions": [{"id": "nan_or_inf", "params": {"x": 1}}]}, "5054B081"),
        ({"dump_id": DUMP_ID, "conditions": [{"id": "overflow"}]}, "5054B081"),
        ({"dump_id": DUMP_ID, "conditions": [{"id": "nan_or_inf"}], "targets": "bias"}, "5054B081"),
        ({"dump_id": DUMP_ID, "conditions": []}, "5054B081"),
        ({"dump_id": "./nope", "conditions": [{"id": "nan_or_inf"}]}, "5054B285"),
        ({"conditions": [{"id": "nan_or_inf"}]}, "50540002"),
        ({"dump_id": DUMP_ID, "conditions": [{"id": "nan_or_inf"}], "iterations": "3"}, "50540002"),
    ]:
        response = client.post(f"{API}/watchpoints/check", json=body)
        assert response.status_code == 400, body
        assert response.get_json()["error_code"] == code, (body, response.get_json())


def test_conditions_carry_mindinsights_defaults(client: FlaskClient) -> None:
    listed = client.get(f"{API}/watchpoints/conditions").get_json()
    params = {c["id"]: {p["name"]: p["default"] for p in c["params"]} for c in listed["conditions"]}
    assert params["all_zero"] == {"zero_percentage_ge": 100}
    assert params["not_changed"] == {"rtol": 1e-5, "atol": 1e-8}
    assert params["change_too_large"] == {"abs_mean_update_ratio_gt": 0.1, "epsilon": 1e-9}
    assert params["change_too_small"] == {"abs_mean_update_ratio_lt": 1e-4, "epsilon": 1e-9}
    assert set(params) == {"nan_or_inf", "too_large", "too_small", "all_zero", "range", "not_changed",
                           "change_too_large", "change_too_small"}


# ------------------------------------------------------------------------------ planted NaN / Inf
@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory, tensors: list[dict[str, Any]]) -> tuple[FlaskClient, Path]:
    """A copy of the dump where iteration 3 of graph 0 went bad: NaN in the fc1 BiasAdd output and the ReLU input
    after it, NaN in a gradient kernel's output, +Inf in the fc1.weight Parameter file."""
    require_shared(DUMP)
    base = tmp_path_factory.mktemp("planted")
    root = copy_dump(base)

    def plant(t: dict[str, Any], value: float) -> None:
        path = root.parent.parent / t["path"].replace("lenet/", "dump/lenet/", 1)
        array = np.load(path)
        array.reshape(-1)[array.size // 2] = value
        np.save(path, array)

    it3 = [t for t in tensors if t["graph_id"] == 0 and t["iteration"] == 3]
    plant(next(t for t in it3 if "fc1-Dense_BiasAdd" in t["op_name"] and t["io"] == "output"), np.nan)
    relu = min((t for t in it3 if t["op_type"] == "ReLU" and t["io"] == "input"
                and t["execution_order_index"] > next(u for u in it3 if "fc1-Dense_BiasAdd" in u["op_name"])
                ["execution_order_index"]), key=lambda t: t["execution_order_index"])
    plant(relu, np.nan)
    plant(next(t for t in it3 if (t["graph_node"] or "").startswith("Gradients/") and t["io"] == "output"
               and t["op_type"] == "MatMul"), np.nan)
    plant(next(t for t in it3 if t["op_name"] == "fc1_weight"), np.inf)
    return make_client(base, base.parent / (base.name + "-ws")), base


def test_nan_or_inf_hits_and_first_bad_op(planted: tuple[FlaskClient, Path], tensors: list[dict[str, Any]]) -> None:
    client, base = planted
    bad = [t for t in tensors if not np.isfinite(values(base / "dump", t)).all()]
    assert len(bad) == 4
    answer = check(client, {"id": "nan_or_inf"})
    assert hit_keys(answer) == {key(t) for t in bad}
    kernels = [t for t in bad if t["op_type"] != "Parameter"]
    earliest = min(kernels, key=lambda t: (t["execution_order_index"], t["io"] != "input", t["slot"]))
    first = [f for f in answer["first"] if f["iteration"] == 3]
    assert len(first) == 1
    assert (first[0]["op_name"], first[0]["io"]) == (earliest["op_name"], earliest["io"])
    assert first[0]["node_name"] == earliest["graph_node"]
    orders = [h["execution_order"] for h in answer["hits"] if h["execution_order"] is not None]
    assert orders == sorted(orders)  # hits come in execution order
    nan_hit = next(h for h in answer["hits"] if h["op_name"] == earliest["op_name"])
    assert nan_hit["params"][0]["nan_count"] == 1 and nan_hit["value"] == 1


def test_targets_pick_weights_gradients_activations(planted: tuple[FlaskClient, Path],
                                                    tensors: list[dict[str, Any]]) -> None:
    client, base = planted
    bad = [t for t in tensors if not np.isfinite(values(base / "dump", t)).all()]
    weights = check(client, {"id": "nan_or_inf"}, targets="weights")
    assert hit_keys(weights) == {key(t) for t in bad if t["op_name"] == "fc1_weight"}
    gradients = check(client, {"id": "nan_or_inf"}, targets="gradients")
    assert hit_keys(gradients) == {key(t) for t in bad if (t["graph_node"] or "").startswith("Gradients/")
                                   and t["io"] == "output"}
    activations = check(client, {"id": "nan_or_inf"}, targets="activations")
    assert hit_keys(activations) == {key(t) for t in bad if t["op_type"].lower() in ACTIVATIONS
                                     and t["io"] == "output"}
    table = client.get(f"{API}/tensors", query_string={"dump_id": DUMP_ID, "rank": 0, "graph_id": 0,
                                                       "iteration": 3, "limit": 1000}).get_json()
    flagged = {(r["op_name"], r["io"], r["slot"]) for r in table["tensors"]
               if r["nan_count"] or r["pos_inf_count"] or r["neg_inf_count"]}
    assert flagged == {(t["op_name"], t["io"], t["slot"]) for t in bad}
