"""A small msprobe dump pair for the demo data (issue 35), written as msprobe 26.2 writes one (no MindSpore needed).

`write_msprobe_demo(out)` writes `out/msprobe_target/` and `out/msprobe_bench/`: a LeNet-like network's calls in
execution order over 4 steps of 2 ranks (`step<N>/rank<R>/dump.json`, `construct.json`, `stack.json`), statistics
computed with numpy from seeded tensors. In the target, rank 1 divides 0 by 0 at step 2 (its normalisation sees an
all-zero image: the first NaN of the job, rank 1 before rank 0 which follows at step 3), and `fc2` runs in float16
with a mis-scaled weight; the bench is the clean float32 run. The target is a task `tensor` dump: every tensor is
also in `dump_tensor_data/<node>.<io>.<index>.npy` (its `data_name`), so its values can be shown; the bench keeps
statistics only. Python's json writes NaN as the bare token msprobe's files hold. Shapes and names follow
../shared/fixtures/msprobe/README.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

CELLS = ("norm", "conv1", "relu", "fc1", "fc2")


_ARRAYS: dict[int, np.ndarray] = {}  # id(leaf) -> its tensor, while one step is written


def _leaf(x: np.ndarray, dtype: str = "Float32") -> dict[str, Any]:
    with np.errstate(invalid="ignore"):
        finite = x[np.isfinite(x)]
        leaf = {"type": "mindspore.Tensor", "dtype": dtype, "shape": list(x.shape),
                "Max": float(finite.max()) if finite.size else float("nan"),
                "Min": float(finite.min()) if finite.size else float("nan"),
                "Mean": float(x.mean()), "Norm": float(np.sqrt(np.sum(x.astype(np.float64) ** 2)))}
    _ARRAYS[id(leaf)] = x
    return leaf


def _save_tensors(data: dict[str, Any], folder: Path) -> None:
    """Each leaf's tensor as `dump_tensor_data/<node>.<io>.<index>.npy`, named in the leaf (msprobe's task tensor)."""
    (folder / "dump_tensor_data").mkdir(exist_ok=True)
    for node, entry in data.items():
        slots = [("input", str(i), leaf) for i, leaf in enumerate(entry.get("input_args", []))]
        slots += [("output", str(i), leaf) for i, leaf in enumerate(entry.get("output", []))]
        slots += [("parameters", name, leaf) for name, leaf in entry.get("parameters", {}).items()]
        for io, index, leaf in slots:
            leaf["data_name"] = f"{node}.{io}.{index}.npy"
            np.save(folder / "dump_tensor_data" / leaf["data_name"], _ARRAYS[id(leaf)])


def _step(rng: np.random.Generator, nan: bool, target: bool) -> tuple[dict[str, Any], dict[str, str | None]]:
    data: dict[str, Any] = {}
    parents: dict[str, str | None] = {"Cell.net.LeNet.forward.0": None}
    x = rng.standard_normal((4, 16), dtype=np.float32)
    if nan:
        x[1] = 0.0
    mean = x.mean(axis=1, keepdims=True)
    centered = x - mean
    std = np.sqrt((centered**2).mean(axis=1, keepdims=True))
    with np.errstate(invalid="ignore", divide="ignore"):
        normed = centered / std
    for name, args, out in (("Mint.sub.0.forward", [x, mean], centered), ("Mint.sqrt.0.forward", [std**2], std),
                            ("Mint.div.0.forward", [centered, std], normed)):
        data[name] = {"input_args": [_leaf(a) for a in args], "input_kwargs": {}, "output": [_leaf(out)]}
        parents[name] = "Cell.net.norm.Normalize.forward.0"
    data["Cell.net.norm.Normalize.forward.0"] = {"input_args": [_leaf(x)], "input_kwargs": {},
                                                 "output": [_leaf(normed)]}
    parents["Cell.net.norm.Normalize.forward.0"] = "Cell.net.LeNet.forward.0"
    h = normed
    for cell, width in (("fc1", 8), ("fc2", 4)):
        w = rng.standard_normal((h.shape[1], width), dtype=np.float32) * 0.3
        half = target and cell == "fc2"
        w_used = w * 4 if half else w
        out = (h @ w_used).astype(np.float16 if half else np.float32)
        dtype = "Float16" if half else "Float32"
        api = f"Primitive.matmul.MatMul.{CELLS.index(cell) - 3}.forward"
        data[api] = {"input_args": [_leaf(h, dtype), _leaf(w_used, dtype)], "input_kwargs": {},
                     "output": [_leaf(out, dtype)]}
        parents[api] = f"Cell.net.{cell}.Dense.forward.0"
        data[f"Cell.net.{cell}.Dense.forward.0"] = {"input_args": [_leaf(h, dtype)], "input_kwargs": {},
                                                    "output": [_leaf(out, dtype)],
                                                    "parameters": {"weight": _leaf(w_used)}}
        parents[f"Cell.net.{cell}.Dense.forward.0"] = "Cell.net.LeNet.forward.0"
        h = np.maximum(out.astype(np.float32), 0) if cell == "fc1" else out.astype(np.float32)
    data["Cell.net.LeNet.forward.0"] = {"input_args": [_leaf(x)], "input_kwargs": {}, "output": [_leaf(h)]}
    return data, parents


def write_msprobe_demo(out: Path, seed: int = 0, steps: int = 4) -> list[Path]:
    roots = []
    for role in ("target", "bench"):
        root = out / f"msprobe_{role}"
        for step in range(steps):
            for rank in (0, 1):
                rng = np.random.default_rng((seed, step, rank))  # the same data on both sides
                nan = role == "target" and ((rank == 1 and step >= 2) or (rank == 0 and step >= 3))
                data, parents = _step(rng, nan, role == "target")
                folder = root / f"step{step}" / f"rank{rank}"
                folder.mkdir(parents=True, exist_ok=True)
                task = "tensor" if role == "target" else "statistics"
                if role == "target":
                    _save_tensors(data, folder)
                _ARRAYS.clear()
                doc = {"task": task, "level": "mix", "framework": "mindspore",
                       "dump_data_dir": "dump_tensor_data" if role == "target" else None, "data": data}
                (folder / "dump.json").write_text(json.dumps(doc, indent=1))
                (folder / "construct.json").write_text(json.dumps(parents, indent=1))
                stack = {str(i): [[name], [f"File train.py, line {40 + i}, in construct, \n {name.split('.')[1]}(x)"]]
                         for i, name in enumerate(data)}
                (folder / "stack.json").write_text(json.dumps(stack, indent=1))
        roots.append(root)
    return roots
