"""ingest.msprobe_dump.read_entry / may_hold_non_finite (issue 35): one node of a dump.json found by a byte scan in
blocks and decoded alone, the same as the full parse gives it, wherever the block boundaries fall."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mindinsight_clone.ingest import msprobe_dump
from mindinsight_clone.ingest.storage import as_location

TENSOR = {"type": "mindspore.Tensor", "dtype": "Float32", "shape": [2, 3], "Max": 1.5, "Min": -2.0, "Mean": 0.25,
          "Norm": 3.0}


def write_dump(path: Path, names: list[str], ensure_ascii: bool = True) -> None:
    data = {name: {"input_args": [dict(TENSOR, Max=float(i))], "input_kwargs": {"dim": {"type": "int", "value": 1}},
                   "output": [dict(TENSOR, Mean=float("nan") if "bad" in name else 0.5)]}
            for i, name in enumerate(names)}
    doc = {"task": "statistics", "level": "L1", "framework": "mindspore", "dump_data_dir": None, "data": data}
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=ensure_ascii), encoding="utf-8")


def slots(node: msprobe_dump.Node | None) -> list[tuple[str, str, str]]:
    assert node is not None
    return [(s.io, s.index, json.dumps(s.leaf, sort_keys=True)) for s in node.slots]


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_every_node_read_alone_equals_the_full_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int,
                                                     ensure_ascii: bool) -> None:
    monkeypatch.setattr(msprobe_dump, "SCAN_BLOCK_BYTES", block)
    names = [f"Functional.relu.{i}.forward" for i in range(12)] + ["Cell.编码器.Dense.forward.0",
                                                                    "Functional.bad.0.forward"]
    path = tmp_path / "dump.json"
    write_dump(path, names, ensure_ascii)
    location = as_location(path)
    full = {n.name: n for n in msprobe_dump.read_dump_json(location).nodes}
    for name in names:
        assert slots(msprobe_dump.read_entry(location, name)) == slots(full[name]), name
    assert msprobe_dump.read_entry(location, "Functional.relu.1") is None  # a prefix of names is not a node
    assert msprobe_dump.read_entry(location, "statistics") is None  # a string value, not a member name
    assert msprobe_dump.may_hold_non_finite(location)


def test_cut_and_clean_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(msprobe_dump, "SCAN_BLOCK_BYTES", 16)
    path = tmp_path / "dump.json"
    write_dump(path, ["Functional.relu.0.forward", "Functional.relu.1.forward"])
    text = path.read_text()
    path.write_text(text[: text.index('"Functional.relu.1.forward"') + 60])  # msprobe still writing the second
    location = as_location(path)
    assert msprobe_dump.read_entry(location, "Functional.relu.0.forward") is not None
    assert msprobe_dump.read_entry(location, "Functional.relu.1.forward") is None
    assert not msprobe_dump.may_hold_non_finite(location)
    path.write_text(text.replace('"Mean": 0.5', '"Mean": NaN', 1))
    assert msprobe_dump.may_hold_non_finite(location)  # "NaN" cut by a 16-byte block boundary or not
    node = msprobe_dump.read_entry(location, "Functional.relu.0.forward")
    assert node is not None and math.isnan(node.slots[-1].stats()["mean"] or 0.0)


def test_a_node_across_steps_and_ranks_parses_no_whole_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.integration.test_debugger_api import make_client

    names = [f"Functional.relu.{i}.forward" for i in range(5)] + ["Functional.bad.0.forward"]
    for step in range(3):
        for rank in range(2):
            folder = tmp_path / "logs" / "dump" / f"step{step}" / f"rank{rank}"
            folder.mkdir(parents=True)
            write_dump(folder / "dump.json", names if step else names[:3])  # step 0 lacks the last nodes

    def refuse(_location: object) -> None:
        raise AssertionError("a whole dump.json was parsed")

    monkeypatch.setattr(msprobe_dump, "read_dump_json", refuse)
    client = make_client(tmp_path / "logs", tmp_path / "ws")
    api = "/v1/mindinsight/msprobe/node"
    steps = client.get(api, query_string={"dump_id": "./dump", "name": "Functional.bad.0.forward", "rank": "1"})
    assert steps.status_code == 200, steps.get_data(as_text=True)
    assert [s["step"] for s in steps.get_json()["steps"]] == [1, 2]
    outputs = [slot for slot in steps.get_json()["steps"][0]["slots"] if slot["io"] == "output"]
    assert outputs and outputs[0]["mean"] == "NAN"
    ranks = client.get(api, query_string={"dump_id": "./dump", "name": "Functional.relu.2.forward",
                                          "across": "ranks", "step": 0}).get_json()
    assert [r["rank"] for r in ranks["ranks"]] == ["rank0", "rank1"]
    missing = client.get(api, query_string={"dump_id": "./dump", "name": "Functional.nope.0.forward"})
    assert missing.status_code == 400 and "Functional.nope.0.forward" in missing.get_json()["error_msg"]
