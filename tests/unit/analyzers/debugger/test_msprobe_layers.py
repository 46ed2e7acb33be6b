"""Layer mapping (analyzers/debugger/msprobe_layers.py) on a Megatron-like pair made here: MindSpore numbers the
pipeline stage's transformer layers globally (4, 5), PyTorch from 0; APIs below the layers, at the top, under
PyTorch's "optimizer" pseudo parent; backward nodes and a parameters_grad node. The expected pairs are what
mindstudio-probe 26.2's own generate_data_mapping_by_layer_mapping answered for these very files (run here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mindinsight_clone.analyzers.debugger.msprobe_layers import layer_pairs
from mindinsight_clone.ingest import msprobe_dump

MS, PT = "Cell.model.encoder", "Module.module.encoder"
TARGET = [  # (node, parent) in execution order
    (f"{MS}.ParallelTransformer.forward.0", None),
    (f"{MS}.layers.4.ParallelTransformerLayer.forward.0", f"{MS}.ParallelTransformer.forward.0"),
    ("Mint.add.0.forward", f"{MS}.layers.4.ParallelTransformerLayer.forward.0"),
    ("Functional.linear.0.forward", f"{MS}.layers.4.ParallelTransformerLayer.forward.0"),
    (f"{MS}.layers.5.ParallelTransformerLayer.forward.0", f"{MS}.ParallelTransformer.forward.0"),
    ("Mint.add.1.forward", f"{MS}.layers.5.ParallelTransformerLayer.forward.0"),
    ("Mint.mul.0.forward", None),
    ("Mint.mul.1.forward", None),
    (f"{MS}.layers.5.ParallelTransformerLayer.backward.0", None),
    ("Mint.add.1.backward", f"{MS}.layers.5.ParallelTransformerLayer.backward.0"),
    (f"{MS}.layers.5.ParallelTransformerLayer.parameters_grad.0", None),
    (f"{MS}.layers.4.ParallelTransformerLayer.backward.0", None),
    ("Mint.add.0.backward", f"{MS}.layers.4.ParallelTransformerLayer.backward.0"),
    (f"{MS}.ParallelTransformer.backward.0", None),
]
BENCH = [
    (f"{PT}.ParallelTransformer.forward.0", None),
    (f"{PT}.layers.0.ParallelTransformerLayer.forward.0", f"{PT}.ParallelTransformer.forward.0"),
    ("Torch.add.0.forward", f"{PT}.layers.0.ParallelTransformerLayer.forward.0"),
    ("Functional.linear.0.forward", f"{PT}.layers.0.ParallelTransformerLayer.forward.0"),
    (f"{PT}.layers.1.ParallelTransformerLayer.forward.0", f"{PT}.ParallelTransformer.forward.0"),
    ("Torch.add.1.forward", f"{PT}.layers.1.ParallelTransformerLayer.forward.0"),
    ("Tensor.mul.0.forward", None),
    (f"{PT}.layers.1.ParallelTransformerLayer.backward.0", None),
    ("Torch.add.1.backward", f"{PT}.layers.1.ParallelTransformerLayer.backward.0"),
    (f"{PT}.layers.1.ParallelTransformerLayer.parameters_grad.0", None),
    (f"{PT}.layers.0.ParallelTransformerLayer.backward.0", None),
    ("Torch.add.0.backward", f"{PT}.layers.0.ParallelTransformerLayer.backward.0"),
    ("Tensor.add_.0.forward", "optimizer"),
]
MSPROBE_SAID = {  # target node -> bench node (None: N/A), from msprobe 26.2's data mapping of these files
    f"{MS}.ParallelTransformer.forward.0": f"{PT}.ParallelTransformer.forward.0",
    f"{MS}.layers.4.ParallelTransformerLayer.forward.0": f"{PT}.layers.0.ParallelTransformerLayer.forward.0",
    "Mint.add.0.forward": "Torch.add.0.forward",
    "Functional.linear.0.forward": "Functional.linear.0.forward",
    f"{MS}.layers.5.ParallelTransformerLayer.forward.0": f"{PT}.layers.1.ParallelTransformerLayer.forward.0",
    "Mint.add.1.forward": "Torch.add.1.forward",
    "Mint.mul.0.forward": "Tensor.mul.0.forward",
    "Mint.mul.1.forward": None,
    f"{MS}.layers.5.ParallelTransformerLayer.backward.0": f"{PT}.layers.1.ParallelTransformerLayer.backward.0",
    "Mint.add.1.backward": "Torch.add.1.backward",
    # msprobe places a parameters_grad node at `<path>.<its own name>`, here `layers.5.5`: renumbered to `layers.1.5`,
    # which the bench (`layers.1.1`) does not have
    f"{MS}.layers.5.ParallelTransformerLayer.parameters_grad.0": None,
    f"{MS}.layers.4.ParallelTransformerLayer.backward.0": f"{PT}.layers.0.ParallelTransformerLayer.backward.0",
    "Mint.add.0.backward": "Torch.add.0.backward",
    f"{MS}.ParallelTransformer.backward.0": None,
}


def write(folder: Path, framework: str, nodes: list[tuple[str, str | None]]) -> tuple[Any, dict[str, str | None]]:
    tensor = {"type": f"{framework}.Tensor", "dtype": "Float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5,
              "Norm": 1.0}

    def entry(name: str) -> dict[str, Any]:
        if ".backward" in name:
            return {"input": [tensor], "output": [tensor]}
        if "parameters_grad" in name:
            return {"weight": [tensor]}
        return {"input_args": [tensor], "input_kwargs": {}, "output": [tensor]}

    folder.mkdir(parents=True)
    (folder / "dump.json").write_text(json.dumps({"task": "statistics", "level": "mix", "framework": framework,
                                                  "data": {n: entry(n) for n, _ in nodes}}))
    (folder / "construct.json").write_text(json.dumps(dict(nodes)))
    return msprobe_dump.read_dump_json(folder / "dump.json"), msprobe_dump.read_construct(folder / "construct.json")


def test_layers_renumbered_and_matched_by_position_as_msprobe(tmp_path: Path) -> None:
    target, mine = write(tmp_path / "ms", "mindspore", TARGET)
    bench, theirs = write(tmp_path / "pt", "pytorch", BENCH)
    pairs = layer_pairs(target, bench, mine, theirs, {"TopLayer": {"model": "module"}})
    suffixes = {".input.0", ".output.0"}
    want = {f"{node}{s}": (f"{other}{s}" if other else "N/A") for node, other in MSPROBE_SAID.items()
            for s in ({".weight"} if "parameters_grad" in node else suffixes)}
    assert pairs == want
    # the yaml's old top-level key `Cell` means TopLayer; without a rule only the top-level API meets its twin (both
    # also what msprobe answered)
    assert layer_pairs(target, bench, mine, theirs, {"Cell": {"model": "module"}}) == want
    found = {k: v for k, v in layer_pairs(target, bench, mine, theirs, {}).items() if v != "N/A"}
    assert found == {f"Mint.mul.0.forward{s}": f"Tensor.mul.0.forward{s}" for s in suffixes}
    assert layer_pairs(target, bench, {}, theirs, {"TopLayer": {"model": "module"}}) == {}  # no construct.json
