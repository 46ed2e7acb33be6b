"""msprobe/dumps, nodes, tree, node, anomalies (issue 35) over the real msprobe 26.2 output in
../shared/fixtures/msprobe (MindSpore 2.10 and PyTorch dumps, checked against its EXPECTED.json), and a dump written
here as msprobe writes one (bare NaN tokens, a step still being written, a cut dump.json) without ../shared."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.analyzers.debugger import msprobe_dumps
from mindinsight_clone.ingest import msprobe_dump
from tests.conftest import SHARED, require_shared
from tests.integration.test_debugger_api import make_client

API = "/v1/mindinsight/msprobe"
MSPROBE = SHARED / "fixtures" / "msprobe"


def get(client: FlaskClient, path: str, status: int = 200, **query: Any) -> dict[str, Any]:
    response = client.get(f"{API}{path}", query_string=query)
    assert response.status_code == status, (path, query, response.get_data(as_text=True)[:300])
    body: dict[str, Any] = response.get_json()
    return body


def same(ours: Any, theirs: Any) -> bool:
    """A statistic as answered ("NAN"/"INF" strings for non-finite values) equals msprobe's number."""
    if theirs is None:  # msprobe wrote null
        return ours is None
    if isinstance(theirs, float) and not math.isfinite(theirs):
        return ours == ("NAN" if math.isnan(theirs) else "INF" if theirs > 0 else "-INF")
    return ours == pytest.approx(theirs, rel=1e-12)


# ---------------------------------------------------------------- the real files
@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[FlaskClient, dict[str, Any]]:
    require_shared(MSPROBE)
    expected = json.loads((MSPROBE / "EXPECTED.json").read_text())
    return make_client(MSPROBE, tmp_path_factory.mktemp("msprobe-ws")), expected


def test_every_dump_is_listed_with_its_steps_and_ranks(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    dumps = {d["dump_id"]: d for d in get(client, "/dumps")["dumps"]}
    for job, facts in expected["jobs"].items():
        if "dump" not in facts:
            continue
        dump = dumps[f"./{job}"]
        places = list(facts["dump"]["steps"])
        assert dump["steps"] == sorted({int(p.split("/")[0][4:]) for p in places}), job
        assert dump["ranks"] == sorted({p.split("/")[1] for p in places}), job
        first = facts["dump"]["steps"][places[0]]
        assert (dump["framework"], dump["task"], dump["level"]) == (first["framework"], first["task"], first["level"])
        assert dump["being_written"] == []


def test_nodes_per_step_and_rank_match_expected(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    for job, facts in expected["jobs"].items():
        for place, want in facts.get("dump", {}).get("steps", {}).items():
            step, rank = place.split("/")
            body = get(client, "/nodes", dump_id=f"./{job}", step=step[4:], rank=rank, limit=10_000)
            assert body["total"] == want["n_entries"] and body["complete"], (job, place)
            names = [n["name"] for n in body["nodes"]]
            if isinstance(want.get("entry_names"), list):
                assert names == want["entry_names"], (job, place)  # execution order
            tensors = sum(1 for n in body["nodes"] for g in ("inputs", "outputs", "parameters") for t in n[g] if "dtype" in t)
            assert tensors == want["n_tensor_leaves"], (job, place)
            by_phase = {p: sum(n["phase"] == p for n in body["nodes"]) for p in want["entries_by_phase"]}
            assert by_phase == want["entries_by_phase"], (job, place)
            tree = get(client, "/tree", dump_id=f"./{job}", step=step[4:], rank=rank)["nodes"]
            roots = {n["name"] for n in tree if n["parent"] is None}  # + entries construct.json does not name
            assert roots >= set(want["construct_json_roots"]), (job, place)
            assert sum(n["parent"] is not None for n in tree) == want["construct_json_entries"] - len(
                want["construct_json_roots"]), (job, place)
            bad = [n["name"] for n in body["nodes"] if n["bad"]]
            assert set(bad) >= set(want["entries_with_nan"]), (job, place)


def test_named_nodes_statistics(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    for key, entry in expected["entry_examples"].items():
        where, name = key.split(": ")
        job, step, rank = where.split("/")
        node = get(client, "/nodes", dump_id=f"./{job}", step=step[4:], rank=rank, search=name, limit=50)
        found = next(n for n in node["nodes"] if n["name"] == name)
        for theirs, ours in (("input_args", "inputs"), ("output", "outputs")):
            leaves = [x for x in entry.get(theirs, []) if isinstance(x, dict) and "dtype" in x]
            mine = [t for t in found[ours] if "dtype" in t]
            for leaf, answer in zip(leaves, mine, strict=False):
                assert answer["dtype"] == leaf["dtype"] and answer["shape"] == leaf["shape"]
                for stat in ("Max", "Min", "Mean", "Norm"):
                    assert same(answer[stat.lower()], leaf[stat]), (key, theirs, stat)


def test_first_nan_per_rank_and_the_node_across_steps(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    for job in ("lenet_statistics", "torch_lenet_statistics"):
        want = expected["first_nan"][job]
        body = get(client, "/anomalies", dump_id=f"./{job}")
        step, rank = want["step_dir"].split("/")
        assert len(body["first"]) == 1 and body["first_rank"] == rank
        first = body["first"][0]
        io, index = want["tensor"].split(".")
        assert (first["step"], first["node"], first["io"], first["index"]) == (int(step[4:]), want["entry"], io, index)
        for stat in ("Max", "Min", "Mean", "Norm"):
            assert same(first[stat.lower()], want[stat]), (job, stat)
        history = get(client, "/node", dump_id=f"./{job}", name=want["entry"])
        assert [s["step"] for s in history["steps"]] == list(range(expected["jobs"][job]["n_steps"]))
        assert history["stack"] and all(isinstance(f, str) for f in history["stack"])
    assert get(client, "/anomalies", dump_id="./pair_target_ms_statistics")["first"] == []


def test_a_cut_dump_lists_what_was_written(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, _ = real
    body = get(client, "/nodes", dump_id="./damaged_truncated_dump", step=1, limit=10_000)
    assert not body["complete"] and 0 < body["total"] < 66
    whole = get(client, "/nodes", dump_id="./lenet_statistics", step=1, limit=10_000)["nodes"]
    assert body["nodes"] == whole[: body["total"]]  # everything before the cut, exactly


@pytest.mark.parametrize("query", [{"dump_id": "../etc"}, {"dump_id": "./lenet_statistics", "step": "9"},
                                   {"dump_id": "./lenet_statistics", "rank": "rank7"},
                                   {"dump_id": "./lenet_statistics", "step": "x"},
                                   {"dump_id": "./lenet_statistics", "limit": "0"}])
def test_bad_requests_are_a_clear_400(real: tuple[FlaskClient, dict[str, Any]], query: dict[str, str]) -> None:
    client, _ = real
    body = get(client, "/nodes", status=400, **query)
    assert body["error_code"].startswith("5054") and body["error_msg"]


# ---------------------------------------------------------------- a dump written here
def tensor(values: list[float]) -> dict[str, Any]:
    return {"type": "mindspore.Tensor", "dtype": "Float32", "shape": [len(values)], "Max": max(values),
            "Min": min(values), "Mean": sum(values) / len(values), "Norm": math.sqrt(sum(v * v for v in values))}


def write_step(root: Path, step: int, rank: str, nan_at: str | None, cut: bool = False) -> None:
    folder = root / f"step{step}" / rank
    folder.mkdir(parents=True)
    data: dict[str, Any] = {}
    construct: dict[str, str | None] = {"Cell.net.Net.forward.0": None}
    for i, api in enumerate(("Mint.add.0.forward", "Mint.div.0.forward", "Mint.relu.0.forward")):
        out = tensor([1.0, 2.0 + i])
        if api == nan_at:
            out["Mean"] = out["Norm"] = float("nan")
        data[api] = {"input_args": [tensor([1.0, 2.0]), {"type": "int", "value": 2}], "input_kwargs": {},
                     "output": [out]}
        construct[api] = "Cell.net.Net.forward.0"
    data["Cell.net.Net.forward.0"] = {"input_args": [tensor([1.0, 2.0])], "input_kwargs": {},
                                      "output": [tensor([1.0, 4.0])], "parameters": {"weight": tensor([0.5])}}
    text = json.dumps({"task": "statistics", "level": "mix", "framework": "mindspore", "dump_data_dir": None,
                       "data": data}, indent=1)  # Python's json writes NaN bare, as msprobe does
    (folder / "dump.json").write_text(text[: len(text) * 2 // 3] if cut else text)
    (folder / "construct.json").write_text(json.dumps(construct))
    (folder / "stack.json").write_text(json.dumps({"0": [[*data], ["File net.py, line 3, in construct"]]}))


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    base = tmp_path_factory.mktemp("msprobe-made")
    root = base / "job" / "dump"
    for step in (0, 1, 2):
        write_step(root, step, "rank0", "Mint.div.0.forward" if step == 2 else None)
        write_step(root, step, "rank1", "Mint.add.0.forward" if step >= 1 else None)
    (root / "step3" / "rank0").mkdir(parents=True)  # msprobe writes dump.json at step(): still being written
    write_step(root, 3, "rank1", None, cut=True)
    return make_client(base, tmp_path_factory.mktemp("msprobe-made-ws"))


def test_made_dump_live_ranks_and_first_rank(made: FlaskClient) -> None:
    dump = get(made, "/dumps")["dumps"][0]
    assert dump["dump_id"] == "./job/dump" and dump["steps"] == [0, 1, 2, 3] and dump["ranks"] == ["rank0", "rank1"]
    assert dump["being_written"] == ["step3/rank0"] and dump["folders_cut"] is False
    live = get(made, "/nodes", dump_id="./job/dump", step=3, rank="rank0")
    assert live["total"] == 0 and not live["complete"]
    cut = get(made, "/nodes", dump_id="./job/dump", step=3, rank="1")
    assert not cut["complete"] and 0 < cut["total"] < 4
    first = get(made, "/anomalies", dump_id="./job/dump")
    assert first["first_rank"] == "rank1"  # rank1 went NaN at step 1, rank0 only at step 2
    assert [(f["rank"], f["step"], f["node"], f["io"], f["index"], f["mean"]) for f in first["first"]] == [
        ("rank1", 1, "Mint.add.0.forward", "output", "0", "NAN"), ("rank0", 2, "Mint.div.0.forward", "output", "0", "NAN")]
    node = get(made, "/nodes", dump_id="./job/dump", step=0, rank="0", search="NET")["nodes"][0]
    assert node["kind"] == "Cell" and node["parent"] is None and node["parameters"][0]["index"] == "weight"
    api = get(made, "/nodes", dump_id="./job/dump", step=0, rank="0", limit=1)["nodes"][0]
    assert api["parent"] == "Cell.net.Net.forward.0" and api["inputs"][1] == {"index": "1", "type": "int", "value": 2}
    history = get(made, "/node", dump_id="./job/dump", name="Mint.div.0.forward", rank="0")
    assert [s["step"] for s in history["steps"]] == [0, 1, 2] and history["stack"] == ["File net.py, line 3, in construct"]


def test_a_listing_cut_at_the_folder_limit_is_said_and_logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "base" / "job" / "dump"
    for step in (0, 1, 2):
        write_step(root, step, "rank0", None)
    client = make_client(tmp_path / "base", tmp_path / "ws")
    monkeypatch.setattr(msprobe_dumps, "MAX_FOLDERS", 2)
    with caplog.at_level(logging.WARNING):
        dump = get(client, "/dumps")["dumps"][0]
    assert dump["folders_cut"] is True and len(dump["steps"]) == 2
    assert any("not listed" in r.getMessage() for r in caplog.records)


# ---------------------------------------------------------------- compare
def post(client: FlaskClient, body: Any, status: int = 200) -> dict[str, Any]:
    response = client.post(f"{API}/compare", json=body)
    assert response.status_code == status, (body, response.get_data(as_text=True)[:300])
    answer: dict[str, Any] = response.get_json()
    return answer


def percent(cell: str) -> float | None:
    return None if cell in ("N/A", "unsupported", "") else float(cell.rstrip("%")) / (100 if cell.endswith("%") else 1)


@pytest.mark.parametrize(("step", "folder"), [(0, "statistics_csv"), (0, "statistics_dir_step0"),
                                              (1, "statistics_dir_step1")])
def test_our_compare_agrees_with_msprobe_on_every_row(real: tuple[FlaskClient, dict[str, Any]], step: int,
                                                      folder: str) -> None:
    client, _ = real
    pair = {"target": {"dump_id": "./pair_target_ms_statistics", "step": step, "rank": "rank0"},
            "bench": {"dump_id": "./pair_bench_ms_statistics", "step": step, "rank": 0}, "limit": 100_000}
    ours = {r["target_name"]: r for r in post(client, pair)["rows"]}
    file_id = next(f["file_id"] for f in get(client, "/files")["files"] if f"/{folder}/" in f["file_id"])
    theirs = get(client, "/compare_result", file_id=file_id)
    assert len(theirs["rows"]) == len(ours) == 167
    for row in theirs["rows"]:
        mine = ours[row["NPU Name"]]
        assert mine["bench_name"] == row["Bench Name"]
        assert mine["result"] == row["Result"], (row["NPU Name"], row["Err_message"], mine["err_message"])
        for col, key in (("Max diff", "max_diff"), ("Min diff", "min_diff"), ("Mean diff", "mean_diff"),
                         ("L2norm diff", "norm_diff"), ("NormRelativeErr", "norm_relative_err")):
            want = percent(row[col])
            if want is not None:
                assert mine[key] == pytest.approx(want, rel=1e-9, abs=1e-12), (row["NPU Name"], col)
    assert sum(r["result"] != "pass" for r in ours.values()) == sum(theirs["counts"][k] for k in ("warning", "error"))


def test_compare_first_divergence_filters_and_bad_bodies(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, _ = real
    pair = {"target": {"dump_id": "./pair_target_ms_statistics", "step": 0},
            "bench": {"dump_id": "./pair_bench_ms_statistics", "step": 0}}
    answer = post(client, {**pair, "result": "error", "limit": 5})
    assert answer["total"] == answer["counts"]["error"] and len(answer["rows"]) == 5
    assert {r["result"] for r in answer["rows"]} == {"error"}
    first = answer["first_divergence"]  # the float16 fc2 cell: its first row is a dtype error
    assert first["target_name"].startswith("Primitive.") and "dtype" in first["err_message"][0]
    same = post(client, {"target": pair["target"], "bench": pair["target"]})
    assert same["first_divergence"] is None and same["counts"]["pass"] == len(same["rows"])
    cross = post(client, {"target": pair["target"], "bench": {"dump_id": "./pair_bench_torch_statistics", "step": 0}})
    assert cross["unmatched"] > 0  # PyTorch names (Torch.*, Module.*) match no MindSpore row: said, not an error
    for bad in ({}, {"target": "x", "bench": pair["bench"]}, {**pair, "mode": "cosine"}, {**pair, "mode": "tensor"},
                {**pair, "result": "fine"}, {**pair, "limit": 0},
                {"target": {"dump_id": "./nope"}, "bench": pair["bench"]}):
        assert post(client, bad, status=400)["error_msg"]
    assert get(client, "/compare_result", status=400, file_id="../../etc/passwd")["error_msg"]


# ---------------------------------------------------------------- graph_visualize .vis.db
def test_vis_db_graphs_match_expected(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    listed = {g["graph_id"]: g for g in get(client, "/graphs")["graphs"]}
    checked = 0
    for tool in expected["tools"].values():
        for path, facts in tool.get("vis_db", {}).items():
            item = listed[f"./{path}"]
            assert item["error"] is None and item["kind"] == facts["tb_config"][0]["graph_type"]
            counts = {f"{g['graph']}|step{g['step']}|rank{g['rank']}|{g['side']}": g["nodes"] for g in item["graphs"]}
            assert counts == facts["nodes_by_graph"], path
            precision: dict[str, int] = {}
            types: dict[str, int] = {}
            for g in item["graphs"]:
                body = get(client, "/graph", graph_id=item["graph_id"], side=g["side"], step=g["step"], rank=g["rank"])
                assert len(body["nodes"]) == g["nodes"]
                for n in body["nodes"]:
                    key = "None" if n["precision_index"] is None else f"{n['precision_index']:g}"
                    precision[key] = precision.get(key, 0) + 1
                    types[str(n["type"])] = types.get(str(n["type"]), 0) + 1
                roots = [n["name"] for n in body["nodes"] if n["parent"] is None]
                assert roots == ["DefaultModel"]
            assert precision == facts["precision_index_counts"] and types == facts["node_type_counts"], path
            overflow = {(o["step"], o["rank"], o["data_source"], o["node_name"], o["overflow_level"])
                        for o in facts["overflow_nodes"]}
            ours = {(g["step"], g["rank"], g["side"], n["name"], n["overflow_level"]) for g in item["graphs"]
                    for n in get(client, "/graph", graph_id=item["graph_id"], side=g["side"], step=g["step"],
                                 rank=g["rank"])["nodes"] if n["overflow_level"]}
            assert ours == overflow, path
            checked += 1
    assert checked == 5
    detail = get(client, "/graph/node", graph_id=next(g for g in listed if "compare_statistics" in g),
                 name="Mint.div.0.forward", side="NPU", step=0, rank=0)
    assert "Mint.div.0.forward.input.0" in detail["inputs"] and detail["stack"]


def test_a_sqlite_file_that_is_not_msprobe_is_a_clear_error(tmp_path: Path) -> None:
    import sqlite3

    base = tmp_path / "base"
    (base / "g").mkdir(parents=True)
    sqlite3.connect(base / "g" / "other.vis.db").execute("CREATE TABLE t (x)").connection.commit()
    (base / "g" / "garbage.vis.db").write_bytes(b"not sqlite at all" * 100)
    client = make_client(base, tmp_path / "ws")
    graphs = {g["graph_id"]: g for g in get(client, "/graphs")["graphs"]}
    assert "not an msprobe" in graphs["./g/other.vis.db"]["error"]
    assert graphs["./g/garbage.vis.db"]["error"]
    assert get(client, "/graph", status=400, graph_id="./g/other.vis.db")["error_msg"]
    assert get(client, "/graph", status=400, graph_id="./g/nope.vis.db")["error_msg"]


def test_demo_dump_pair_shows_every_msprobe_view(tmp_path: Path) -> None:
    """The demo data's msprobe pair (scripts/make_demo_data): listed, the NaN found on rank 1 first, compared."""
    from mindinsight_clone.summary.msprobe_demo import write_msprobe_demo

    write_msprobe_demo(tmp_path / "base")
    client = make_client(tmp_path / "base", tmp_path / "ws")
    assert [d["dump_id"] for d in get(client, "/dumps")["dumps"]] == ["./msprobe_bench", "./msprobe_target"]
    first = get(client, "/anomalies", dump_id="./msprobe_target")
    assert first["first_rank"] == "rank1" and [(f["rank"], f["step"], f["node"]) for f in first["first"]] == [
        ("rank1", 2, "Mint.div.0.forward"), ("rank0", 3, "Mint.div.0.forward")]
    assert get(client, "/anomalies", dump_id="./msprobe_bench")["first"] == []
    compared = post(client, {"target": {"dump_id": "./msprobe_target"}, "bench": {"dump_id": "./msprobe_bench"}})
    assert compared["counts"]["error"] > 0 and "dtype" in compared["first_divergence"]["err_message"][0]
    # the target is a tensor dump: the NaN row of rank 1's normalised image shows in its values
    values = get(client, "/tensor", dump_id="./msprobe_target", step=2, rank="1", name="Mint.div.0.forward",
                 io="output", index="0", shape="[:, :]")
    assert values["value"]["dims"] == [4, 16] and values["value"]["data"][1] == ["NAN"] * 16
    assert "NAN" not in values["value"]["data"][0]


def test_trend_db_as_target_by_step_matrix(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    files = [f["file_id"] for f in get(client, "/files")["files"] if f["kind"] == "trend"]
    assert len(files) == 2
    for tool in ("data2db_lenet_statistics", "data2db_lenet_statistics_no_micro"):
        path, facts = next(iter(expected["tools"][tool]["trend_db"].items()))
        body = get(client, "/trend", file_id=f"./{path}", metric="forward", stat="norm")
        assert body["steps"] == facts["steps_in_trend_data"] and body["rank"] == 0
        assert body["metrics"][0] == "forward" and len(body["values"]) == len(body["targets"])
        nan_cells = {(r["target_name"], r["step"]) for r in facts["trend_rows_with_nan_norm"]
                     if r["metric_name"] == "forward"}
        nulls = {(t.split(" #")[0], body["steps"][j]) for i, t in enumerate(body["targets"])
                 for j, v in enumerate(body["values"][i]) if v is None}
        assert nan_cells and nan_cells <= nulls, tool
        first = get(client, "/nodes", dump_id="./lenet_statistics", step=0, search="Mint.sum.0.forward")["nodes"][0]
        assert body["values"][body["targets"].index("Mint.sum.input.0")][0] == pytest.approx(first["inputs"][0]["norm"])
    assert get(client, "/trend", status=400, file_id=files[0], stat="median")["error_msg"]
    assert get(client, "/trend", status=400, file_id=files[0], metric="sideways")["error_msg"]
    assert get(client, "/trend", status=400, file_id="./nope.trend.db")["error_msg"]


def test_the_first_anomaly_search_parses_only_files_that_can_hold_one(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean step (no nan/inf in its bytes) is skipped unparsed; the steps that hold a NaN are parsed and found."""
    root = tmp_path / "base" / "job" / "dump"
    for step in range(4):
        write_step(root, step, "rank0", "Mint.div.0.forward" if step == 3 else None)
    parsed: list[str] = []
    real = msprobe_dump.read_dump_json
    monkeypatch.setattr(msprobe_dump, "read_dump_json", lambda loc: parsed.append(loc.parent.parent.name) or real(loc))
    first = get(make_client(tmp_path / "base", tmp_path / "ws"), "/anomalies", dump_id="./job/dump")
    assert [(f["step"], f["node"]) for f in first["first"]] == [(3, "Mint.div.0.forward")]
    assert parsed == ["step3"]


def test_a_kept_comparison_pages_and_follows_a_changed_dump(tmp_path: Path) -> None:
    """Pages of one comparison are cut from the same rows (kept, not recomputed per page); a dump.json rewritten with
    other statistics is compared again."""
    from mindinsight_clone.summary.msprobe_demo import write_msprobe_demo

    write_msprobe_demo(tmp_path / "base")
    client = make_client(tmp_path / "base", tmp_path / "ws")
    sides = {"target": {"dump_id": "./msprobe_target", "step": 0}, "bench": {"dump_id": "./msprobe_bench", "step": 0}}
    whole = post(client, {**sides, "limit": 100_000})
    pages = [post(client, {**sides, "offset": o, "limit": 7}) for o in range(0, whole["total"], 7)]
    assert [r for p in pages for r in p["rows"]] == whole["rows"] and {p["total"] for p in pages} == {whole["total"]}
    errors = post(client, {**sides, "result": "error", "limit": 100_000})
    assert errors["rows"] == [r for r in whole["rows"] if r["result"] == "error"]
    assert errors["total"] == whole["counts"]["error"] == len(errors["rows"])
    dump = next((tmp_path / "base" / "msprobe_target").rglob("step0/rank0/dump.json"))
    data = json.loads(dump.read_text())
    name, entry = next((k, v) for k, v in data["data"].items() if v.get("output"))
    entry["output"][0]["Max"] = float("inf")  # a new Inf in the target's first output
    dump.write_text(json.dumps(data))
    again = post(client, {**sides, "limit": 100_000})
    row = next(r for r in again["rows"] if r["target_name"] == f"{name}.output.0")
    assert row["target_max"] == "INF" and row["result"] == "error"
    assert "NPU has nan or inf that Bench does not have." in " ".join(row["err_message"])
    assert again["rows"] != whole["rows"]


def test_a_tensor_dump_shows_a_slots_values_and_histogram(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    """Task `tensor`: a window of a slot's .npy (the tensors page's slicing and NaN/Inf text), and its histogram;
    step 2's 0/0 division gives NaN values, named as such."""
    import numpy as np

    client, _ = real
    folder = MSPROBE / "lenet_tensor" / "step2" / "proc5748"
    query = {"dump_id": "./lenet_tensor", "step": 2, "name": "Mint.div.0.forward", "io": "output", "index": "0"}
    want = np.load(folder / "dump_tensor_data" / "Mint.div.0.forward.output.0.npy")
    answer = get(client, "/tensor", **query, shape="[0, 0, :, :]")
    assert answer["value"]["dims"] == list(want.shape) and answer["shape"] == "[0, 0, :, :]"
    cells = [[None if isinstance(v, str) else v for v in row] for row in answer["value"]["data"]]
    got = np.array(cells, dtype=float)
    np.testing.assert_allclose(got, want[0, 0], equal_nan=True)
    nan_cells = {v for row in answer["value"]["data"] for v in row if isinstance(v, str)}
    assert nan_cells == ({"NAN"} if np.isnan(want[0, 0]).any() else set())
    assert np.isnan(want).any()  # the fixture's planted 0/0
    with_histogram = get(client, "/tensor", **query, detail="histogram")
    assert sum(b[2] for b in with_histogram["histogram"]) == int(np.isfinite(want).sum())
    assert with_histogram["value"]["statistics"]["overall_nan_count"] == int(np.isnan(want).sum())
    # a statistics dump holds no values; a bad detail or slot is a clear 400
    stats_only = {**query, "dump_id": "./lenet_statistics", "step": 2}
    assert "statistics only" in get(client, "/tensor", status=400, **stats_only)["error_msg"]
    assert get(client, "/tensor", status=400, **query, detail="all")["error_msg"]
    assert get(client, "/tensor", status=400, **{**query, "index": "9"})["error_msg"]


def test_a_tensor_file_name_cannot_leave_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "base" / "job" / "dump" / "step0" / "rank0"
    (folder / "dump_tensor_data").mkdir(parents=True)
    (tmp_path / "base" / "job" / "secret.npy").write_bytes(b"\x93NUMPY")
    leaf = {"type": "mindspore.Tensor", "dtype": "Float32", "shape": [1], "Max": 1.0, "Min": 1.0, "Mean": 1.0,
            "Norm": 1.0}
    data = {f"Mint.add.{i}.forward": {"input_args": [], "output": [{**leaf, "data_name": name}]}
            for i, name in enumerate(("../../secret.npy", "x.pt", "absent.npy"))}
    (folder / "dump.json").write_text(json.dumps({"task": "tensor", "level": "L1", "framework": "mindspore",
                                                  "data": data}))
    client = make_client(tmp_path / "base", tmp_path / "ws")
    messages = [get(client, "/tensor", status=400, dump_id="./job/dump", step=0, name=f"Mint.add.{i}.forward",
                    io="output", index="0")["error_msg"] for i in range(3)]
    assert "not a file name" in messages[0] and ".pt file is never unpickled" in messages[1]
    assert "not in dump_tensor_data" in messages[2]


def test_a_node_across_the_ranks_of_a_step(tmp_path: Path) -> None:
    """The demo's rank 1 divides 0 by 0 at step 2, rank 0 only at step 3: across the ranks of step 2 the node's
    output statistics are NaN on rank 1 alone."""
    from mindinsight_clone.summary.msprobe_demo import write_msprobe_demo

    write_msprobe_demo(tmp_path / "base")
    client = make_client(tmp_path / "base", tmp_path / "ws")
    query = {"dump_id": "./msprobe_target", "name": "Mint.div.0.forward", "across": "ranks"}
    at2 = get(client, "/node", **query, step=2)
    assert at2["step"] == 2 and [r["rank"] for r in at2["ranks"]] == ["rank0", "rank1"]
    mean = {r["rank"]: next(s["mean"] for s in r["slots"] if s["io"] == "output") for r in at2["ranks"]}
    assert isinstance(mean["rank0"], float) and mean["rank1"] == "NAN"
    assert get(client, "/node", **query)["step"] == 0  # the first step by default
    assert get(client, "/node", status=400, **{**query, "across": "both"})["error_msg"]
    assert get(client, "/node", status=400, **{**query, "name": "Nope.0.forward"})["error_msg"]
