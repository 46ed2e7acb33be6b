"""ingest/msprobe_vis_json: the old JSON `.vis` — the shapes, the node order, the step and rank of a file name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.ingest import msprobe_vis, msprobe_vis_json


def node(up: str, subs: list[str], **data: Any) -> dict[str, Any]:
    return {"node_type": 0, "upnode": up, "subnodes": subs, "input_data": {}, "output_data": {},
            "matched_node_link": [], "stack_info": [], "data": data}


BUILD = {"root": "M", "dump_data_dir": "", "node": {  # map order is not the answer's order
    "M": node("None", ["A", "B"]), "B": node("M", []), "A": node("M", ["A1", "A2"]),
    "A2": node("A", ["A"]), "A1": node("A", [])},  # a cycle (A2 -> A) is not followed twice
    "MicroSteps": 1, "OverflowCheck": False}


def names(vis: msprobe_vis_json.VisJson, graph: str = "NPU_0_0") -> list[str]:
    return [n["name"] for n in vis.nodes(graph)]


def test_build_is_one_graph_in_post_order() -> None:
    vis = msprobe_vis_json.parse(json.dumps(BUILD).encode(), "build_20250101000000.vis")
    assert vis.config() == {"graph_type": "build", "task": None, "overflow_check": False, "colors": [],
                            "ranks": [0], "steps": [0]}
    assert vis.graphs() == [{"graph": "NPU_0_0", "side": "NPU", "step": 0, "rank": 0, "nodes": 5}]
    assert names(vis) == ["A1", "A2", "A", "B", "M"]
    assert [n["order"] for n in vis.nodes("NPU_0_0")] == [0, 1, 2, 3, 4]
    assert vis.nodes("Bench_0_0") == [] and vis.node("NPU_0_0", "nope") is None


def test_without_its_root_the_parentless_nodes_start_the_walk() -> None:
    doc = {**BUILD, "root": "Gone"}
    assert names(msprobe_vis_json.parse(json.dumps(doc).encode(), "x.vis")) == ["A1", "A2", "A", "B", "M"]


@pytest.mark.parametrize(("name", "place"), [
    ("build_20250101000000.vis", (0, 0)), ("build_rank3_20250101000000.vis", (0, 3)),
    ("compare_step12_rank0_20250101000000.vis", (12, 0)), ("build_step2_merged1_20250101000000.vis", (2, 0)),
    ("renamed.vis", (0, 0))])
def test_step_and_rank_come_from_the_file_name(name: str, place: tuple[int, int]) -> None:
    vis = msprobe_vis_json.parse(json.dumps(BUILD).encode(), name)
    assert (vis.step, vis.rank) == place and vis.graphs()[0]["graph"] == f"NPU_{place[0]}_{place[1]}"


def test_open_graph_picks_the_reader_by_file_type(tmp_path: Path) -> None:
    (tmp_path / "build_20250101000000.vis").write_text(json.dumps(BUILD))
    with msprobe_vis.open_graph(tmp_path / "build_20250101000000.vis") as vis:
        assert vis.config()["graph_type"] == "build" and len(vis.nodes("NPU_0_0")) == 5
    (tmp_path / "b.vis").write_bytes(b"SQLite format 3\x00")  # named .vis: read as JSON whatever it holds
    with pytest.raises(ValueError, match="is not valid JSON"), msprobe_vis.open_graph(tmp_path / "b.vis"):
        pass
    (tmp_path / "c.vis.db").write_text(json.dumps(BUILD))
    with pytest.raises(ValueError, match="not an SQLite database"), msprobe_vis.open_graph(tmp_path / "c.vis.db"):
        pass
    with pytest.raises(OSError, match="above the 10 bytes allowed"):
        msprobe_vis_json.read(tmp_path / "build_20250101000000.vis", max_bytes=10)
