"""The JSON `.vis` of msprobe 1.2 to 8.2.0 (issue 35) through the graph routes.

../shared holds only `.vis.db` (msprobe 26.2). `write_old_vis` writes, from one of them, the `.vis` files msprobe
8.1 would have written for the same graphs (`GraphBuilder.to_json`: one file per step and rank, named
`{build|compare}_step<S>_rank<R>_<time>.vis`; a build graph at the top level, a compare as `NPU` / `Bench`; the
legend without `accuracy_level`; nodes in msprobe's map order, root first), and every answer about them must equal
the `.vis.db`'s. Bad input (cut JSON, JSON that is not msprobe's, a file above the size bound) is a 400 for that
file while the others are still served; those tests need no ../shared.
"""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from mindinsight_clone.ingest import msprobe_vis_json
from tests.conftest import SHARED, require_shared
from tests.integration.test_debugger_api import make_client
from tests.integration.test_msprobe_dumps_api import get

API = "/v1/mindinsight/msprobe"
GRAPH_VIS = SHARED / "fixtures" / "msprobe" / "graph_vis"


def _loads(text: Any, default: Any) -> Any:
    return json.loads(text) if isinstance(text, str) and text else default


def write_old_vis(db: Path, out: Path) -> list[tuple[Path, int, int]]:
    """The `.vis` files (one per step and rank) the old msprobe writes for the graphs of `db`: (path, step, rank)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        kind, task, tool_tip, micro_steps, overflow, colors = conn.execute(
            "SELECT graph_type, task, tool_tip, micro_steps, overflow_check, node_colors FROM tb_config").fetchone()
        stacks = {k: _loads(v, []) for k, v in conn.execute("SELECT id, stack_info FROM tb_stack")}
        places = conn.execute("SELECT DISTINCT step, rank FROM tb_nodes ORDER BY step, rank").fetchall()
        written = []
        for step, rank in places:
            sides = {side: _graph_dict(conn, stacks, step, rank, side) for side in ("NPU", "Bench")}
            doc: dict[str, Any] = ({"NPU": sides["NPU"], "Bench": sides["Bench"]} if kind == "compare"
                                   else dict(sides["NPU"]))
            if tool_tip:
                doc["ToolTip"] = tool_tip  # msprobe writes it as a JSON string
            legend = {c: {k: v for k, v in facts.items() if k != "accuracy_level"}
                      for c, facts in (_loads(colors, None) or {}).items()}
            if legend:
                doc["Colors"] = legend
            if micro_steps:
                doc["MicroSteps"] = micro_steps
            if task:
                doc["task"] = task
            doc["OverflowCheck"] = bool(overflow)
            path = out / f"{kind}_step{step}_rank{rank}_{db.name.split('_')[1].split('.')[0]}.vis"
            path.write_text(json.dumps(doc, indent=4))
            written.append((path, step, rank))
        return written
    finally:
        conn.close()


def _graph_dict(conn: sqlite3.Connection, stacks: dict[str, Any], step: int, rank: int, side: str) -> dict[str, Any]:
    rows = conn.execute("SELECT node_name, node_type, up_node, sub_nodes, precision_index, overflow_level, "
                        "micro_step_id, matched_node_link, stack_id, matched_distributed, input_data, output_data, "
                        "dump_data_dir FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? "
                        "ORDER BY node_order", (step, rank, side)).fetchall()
    if not rows:
        return {}
    nodes: dict[str, dict[str, Any]] = {}
    root = ""
    for (name, node_type, up, subs, precision, overflow, micro, link, stack_id, distributed, inputs, outputs,
         _dir) in rows:
        data: dict[str, Any] = {}
        if precision is not None:
            data["precision_index"] = precision
        if overflow:
            data["overflow_level"] = overflow
        node = {"id": name, "node_type": int(node_type), "output_data": _loads(outputs, {}),
                "input_data": _loads(inputs, {}), "upnode": up or "None", "subnodes": _loads(subs, []),
                "matched_node_link": _loads(link, []), "suggestions": {}, "stack_info": stacks.get(stack_id, []),
                "micro_step_id": micro, "data": data}
        if _loads(distributed, {}):
            node["matched_distributed"] = _loads(distributed, {})
        nodes[name] = node
        if not up:
            root = name
    ordered: dict[str, dict[str, Any]] = {}  # msprobe's node_map order: root first, parents before children
    todo = [root]
    while todo:
        name = todo.pop(0)
        ordered[name] = nodes[name]
        todo = list(nodes[name]["subnodes"]) + todo
    return {"root": root, "dump_data_dir": rows[0][-1] or "", "node": ordered}


# ---------------------------------------------------------------- same answers as the .vis.db
@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> tuple[FlaskClient, list[tuple[str, str, int, int]]]:
    """A base dir with the five real .vis.db files and the .vis files written from each: (db id, vis id, step, rank)."""
    require_shared(GRAPH_VIS)
    base = tmp_path_factory.mktemp("vis-json")
    found: list[tuple[str, str, int, int]] = []
    for db in sorted(GRAPH_VIS.glob("*/*.vis.db")):
        folder = base / db.parent.name
        folder.mkdir()
        (folder / db.name).write_bytes(db.read_bytes())
        (folder / "old").mkdir()
        for vis, step, rank in write_old_vis(db, folder / "old"):
            found.append((f"./{db.parent.name}/{db.name}", f"./{db.parent.name}/old/{vis.name}", step, rank))
    client = make_client(base, tmp_path_factory.mktemp("vis-json-ws"))
    return client, found


def test_every_old_vis_answers_what_its_vis_db_answers(pairs: tuple[FlaskClient, list[tuple[str, str, int, int]]]
                                                       ) -> None:
    client, found = pairs
    assert len({db for db, *_ in found}) == 5 and len(found) == 10  # 4 + 2 + 2 + 2 (step, rank) places
    listed = {g["graph_id"]: g for g in get(client, "/graphs")["graphs"]}
    details = 0
    for db_id, vis_id, step, rank in found:
        db, vis = listed[db_id], listed[vis_id]
        assert vis["error"] is None and vis["kind"] == db["kind"]
        assert vis["graphs"] == [g for g in db["graphs"] if (g["step"], g["rank"]) == (step, rank)], vis_id
        for g in vis["graphs"]:
            q = {"side": g["side"], "step": step, "rank": rank}
            ours, theirs = (get(client, "/graph", graph_id=i, **q) for i in (vis_id, db_id))
            assert ours["nodes"] == theirs["nodes"], (vis_id, g["side"])  # order, parents, colours, matched, stack ids
            assert (ours["steps"], ours["ranks"]) == ([step], [rank])  # one file per step and rank
            assert [{**c, "level": None} for c in theirs["colors"]] == ours["colors"]  # the old legend has no level
            same = ("kind", "side", "step", "rank", "overflow_check")
            assert {k: ours[k] for k in same} == {k: theirs[k] for k in same}
            for n in ours["nodes"]:
                a, b = (get(client, "/graph/node", graph_id=i, name=n["name"], **q) for i in (vis_id, db_id))
                assert {**a, "graph_id": db_id} == b, (vis_id, n["name"])
                details += 1
    assert details == 935  # every node of every graph
    # what the page colours: precision indices of the compare, matched flags of both sides
    summary = get(client, "/graph", graph_id=next(v for d, v, s, r in found if "compare_statistics" in d and s == 0),
                  side="NPU")["nodes"]
    assert any(n["precision_index"] for n in summary) and all(n["matched"] for n in summary)


# ---------------------------------------------------------------- a small old .vis written here
def _node(node_id: str, up: str, subs: list[str], node_type: int = 0, **data: Any) -> dict[str, Any]:
    return {"id": node_id, "node_type": node_type, "output_data": {f"{node_id}.output.0": {"Max": "1.0"}},
            "input_data": {}, "upnode": up, "subnodes": subs, "matched_node_link": [node_id] if up != "x" else [],
            "suggestions": {}, "stack_info": [f"File m.py, line 1, in {node_id}"], "micro_step_id": 0, "data": data}


def small_compare() -> dict[str, Any]:
    npu: dict[str, Any] = {"root": "DefaultModel", "dump_data_dir": "", "node": {
        "DefaultModel": _node("DefaultModel", "None", ["Module.a.forward.0", "Module.b.forward.0"]),
        "Module.a.forward.0": _node("Module.a.forward.0", "DefaultModel", ["Torch.add.0.forward"],
                                    precision_index=0.7, overflow_level="critical"),
        "Torch.add.0.forward": _node("Torch.add.0.forward", "Module.a.forward.0", [], 1, precision_index=math.nan),
        "Module.b.forward.0": _node("Module.b.forward.0", "DefaultModel", [], precision_index=0.1),
        "Lost.forward.0": _node("Lost.forward.0", "x", []),  # reached by no subnodes list
    }}
    bench = {"root": "DefaultModel", "dump_data_dir": "", "node": {
        k: v for k, v in npu["node"].items() if k != "Lost.forward.0"}}
    return {"NPU": npu, "Bench": bench, "ToolTip": "{}", "task": "summary", "OverflowCheck": True,
            "Colors": {"#FFFCF3": {"value": [0, 0.2], "description": "d"}, "#C7C7C7": {"value": [], "description": "u"}}}


@pytest.fixture()
def bad_base(tmp_path: Path) -> tuple[FlaskClient, Path]:
    base = tmp_path / "base"
    (base / "g").mkdir(parents=True)
    (base / "g" / "compare_step3_rank1_20250101000000.vis").write_text(json.dumps(small_compare()))  # NaN written bare
    return make_client(base, tmp_path / "ws"), base / "g"


def test_a_small_old_compare_vis(bad_base: tuple[FlaskClient, Path]) -> None:
    client, _ = bad_base
    item = get(client, "/graphs")["graphs"][0]
    assert item["kind"] == "compare" and item["error"] is None
    assert [(g["graph"], g["side"], g["step"], g["rank"], g["nodes"]) for g in item["graphs"]] == [
        ("NPU_3_1", "NPU", 3, 1, 5), ("Bench_3_1", "Bench", 3, 1, 4)]
    body = get(client, "/graph", graph_id=item["graph_id"], side="NPU")
    assert [(n["name"], n["parent"], n["order"], n["precision_index"], n["overflow_level"]) for n in body["nodes"]] == [
        ("Torch.add.0.forward", "Module.a.forward.0", 0, None, None),  # NaN: null, as SQLite stores it
        ("Module.a.forward.0", "DefaultModel", 1, 0.7, "critical"),
        ("Module.b.forward.0", "DefaultModel", 2, 0.1, None),
        ("DefaultModel", None, 3, None, None),
        ("Lost.forward.0", "x", 4, None, None)]
    assert [c["color"] for c in body["colors"]] == ["#FFFCF3", "#C7C7C7"] and body["overflow_check"] is True
    assert (body["steps"], body["ranks"]) == ([3], [1])
    node = get(client, "/graph/node", graph_id=item["graph_id"], name="Torch.add.0.forward", side="Bench", step=3,
               rank=1)
    assert node["outputs"] == {"Torch.add.0.forward.output.0": {"Max": "1.0"}} and node["stack"]
    assert node["matched_node_link"] == ["Torch.add.0.forward"]
    missing = get(client, "/graph/node", status=400, graph_id=item["graph_id"], name="Torch.add.0.forward")
    assert "NPU step 0 rank 0" in missing["error_msg"]  # this file holds step 3 rank 1 only


# ---------------------------------------------------------------- bad input
def test_bad_vis_files_are_a_400_and_the_rest_is_served(bad_base: tuple[FlaskClient, Path]) -> None:
    client, folder = bad_base
    whole = json.dumps(small_compare(), indent=4)
    (folder / "cut.vis").write_text(whole[: len(whole) // 2])
    (folder / "list.vis").write_text("[1, 2, 3]")
    (folder / "dump.vis").write_text(json.dumps({"task": "statistics", "level": "L1", "data": {}}))
    (folder / "no_bench.vis").write_text(json.dumps({"NPU": small_compare()["NPU"]}))
    (folder / "bad_node.vis").write_text(json.dumps({"root": "a", "node": {"a": [1]}}))
    (folder / "deep.vis").write_text("[" * 100_000 + "]" * 100_000)
    (folder / "latin1.vis").write_bytes(b'{"root": "\xff"}')
    with (folder / "huge.vis").open("wb") as sparse:  # above the bound: refused before a byte is read
        sparse.truncate(msprobe_vis_json.MAX_BYTES + 1)
    client.application.extensions["mindinsight_clone"].data_manager.reload()
    listed = {g["graph_id"].rsplit("/", 1)[1]: g for g in get(client, "/graphs")["graphs"]}
    expect = {"cut.vis": "is not valid JSON", "list.vis": "not an msprobe graph_visualize .vis (not a JSON object)",
              "dump.vis": "no 'node' object", "no_bench.vis": "no 'Bench' graph object",
              "bad_node.vis": "node 'a' of NPU_0_0 is not an object", "deep.vis": "not an msprobe",
              "latin1.vis": "is not valid JSON", "huge.vis": "above the 536870912 bytes allowed"}
    for name, words in expect.items():
        assert words in (listed[name]["error"] or ""), (name, listed[name])
        assert words in get(client, "/graph", status=400, graph_id=listed[name]["graph_id"])["error_msg"], name
        get(client, "/graph/node", status=400, graph_id=listed[name]["graph_id"], name="a")
    good = next(g for n, g in listed.items() if n.startswith("compare_step3"))
    assert good["error"] is None and len(get(client, "/graph", graph_id=good["graph_id"], side="Bench")["nodes"]) == 4
