"""Target-vs-bench comparison of two msprobe dumps in statistics mode (issue 35), as `msprobe compare` does it.

One row per tensor or argument slot of the target (`<node>.input.<i>`, `<node>.input.<kwarg>[.<i>]`,
`<node>.output.<i>`, `<node>.parameters.<name>`, `<cell>.parameters_grad.<k>.<name>`), matched by name in the bench
(same framework: the names are the same; cross-framework mapping is not done here). Per row: the target and bench
statistics, their differences (target − bench) and relative errors |diff / bench| (None where bench is 0 or not a
number), and msprobe's verdict (README "msprobe compare", msprobe 26.2's indicator analysis):

* error: dtype, shape or plain-argument mismatch; NaN/Inf in the target's Max/Min that the bench does not have;
  an output whose norm relative error is above 0.5 while every input's relative errors are below 0.1;
* warning: a node whose largest output norm relative error is 10× its inputs' largest (said on its first output);
* pass otherwise. Unmatched rows have no bench and pass.

The first divergence is the first row, in execution order, that is not `pass`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mindinsight_clone.ingest.msprobe_dump import DumpFile, Node, Slot

OUTPUT_ERROR = 0.5  # an output's norm relative error above this ...
INPUT_CLEAN = 0.1  # ... while every input's relative errors are below this: error
WARN_FACTOR = 10.0  # an output's norm relative error this many times its inputs' largest: warning
STATS = ("max", "min", "mean", "norm")


@dataclass(slots=True)
class Row:
    node: str  # the dump.json entry the slot belongs to
    target_name: str
    bench_name: str | None
    io: str
    target: dict[str, Any]
    bench: dict[str, Any] | None
    diffs: dict[str, float | None] = field(default_factory=dict)
    rel: dict[str, float | None] = field(default_factory=dict)
    result: str = "pass"
    messages: list[str] = field(default_factory=list)
    tensor: dict[str, float | None] = field(default_factory=dict)  # tensor mode's metrics (empty otherwise)

    def json(self) -> dict[str, Any]:
        return {"node": self.node, "target_name": self.target_name, "bench_name": self.bench_name, "io": self.io,
                "result": self.result, "err_message": self.messages,
                "target_dtype": self.target.get("dtype"), "bench_dtype": (self.bench or {}).get("dtype"),
                "target_shape": self.target.get("shape"), "bench_shape": (self.bench or {}).get("shape"),
                **{f"target_{k}": stat_json(self.target.get(k)) for k in STATS},
                **{f"bench_{k}": stat_json((self.bench or {}).get(k)) for k in STATS},
                **{f"{k}_diff": stat_json(self.diffs.get(k)) for k in STATS},
                **{f"{k}_relative_err": stat_json(self.rel.get(k)) for k in STATS},
                "max_abs_err": stat_json(_abs(self.diffs.get("max"))),
                "max_relative_err": stat_json(self.rel.get("max")), "cosine": None,
                **{k: stat_json(v) for k, v in self.tensor.items()}}


TensorLoader = Callable[[str], np.ndarray]  # data_name -> the array (OSError / ValueError with a clear message)


def compare(target: DumpFile, bench: DumpFile,
            tensors: tuple[TensorLoader, TensorLoader] | None = None) -> dict[str, Any]:
    """`{"rows": [...], "first_divergence", "counts": {"pass", "warning", "error"}, "unmatched"}`.
    With `tensors` (tensor mode) every matched tensor row also gets the metrics of its two `.npy` arrays."""
    bench_slots = {name: slot for node in bench.nodes for name, slot in _named(node)}
    rows: list[Row] = []
    for node in target.nodes:
        node_rows = [_row(node.name, name, slot, bench_slots.get(name)) for name, slot in _named(node)]
        if tensors is not None:
            for row, (name, slot) in zip(node_rows, _named(node), strict=True):
                _add_tensor_metrics(row, slot, bench_slots.get(name), tensors)
        _judge_outputs(node_rows)
        rows += node_rows
    first = next((r for r in rows if r.result != "pass"), None)
    counts = {k: sum(r.result == k for r in rows) for k in ("pass", "warning", "error")}
    return {"rows": [r.json() for r in rows], "counts": counts,
            "unmatched": sum(r.bench_name is None for r in rows),
            "first_divergence": first.json() if first else None}


def _named(node: Node) -> list[tuple[str, Slot]]:
    grad = ".parameters_grad." in node.name
    return [(f"{node.name}.{s.index}" if grad else f"{node.name}.{s.io}.{s.index}", s) for s in node.slots]


def _row(node: str, name: str, slot: Slot, other: Slot | None) -> Row:
    io = "output" if slot.io == "output" else ("parameters" if slot.io == "parameters" else "input")
    mine = _facts(slot)
    row = Row(node, name, name if other is not None else None, io, mine, _facts(other) if other is not None else None)
    if other is None:
        return row
    theirs = row.bench or {}
    if slot.is_tensor != other.is_tensor:
        _flag(row, "error", "The type of NPU and Bench are inconsistent.")
        return row
    if not slot.is_tensor:
        a, b = mine.get("value"), theirs.get("value")
        if a != b:
            _flag(row, "error", "The value of NPU and Bench are inconsistent.")
        else:
            row.diffs = dict.fromkeys(STATS, 0.0)
            row.rel = dict.fromkeys(STATS, 0.0)
        if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
            row.diffs = {k: float(a) - float(b) for k in STATS}
            row.rel = {k: _rel(float(a) - float(b), float(b)) for k in STATS}
        return row
    for key in STATS:
        a, b = mine.get(key), theirs.get(key)
        row.diffs[key] = a - b if isinstance(a, float) and isinstance(b, float) else None
        row.rel[key] = _rel(row.diffs[key], b)
    if mine.get("dtype") != theirs.get("dtype"):
        _flag(row, "error", "The dtype of NPU and Bench are inconsistent.")
    if mine.get("shape") != theirs.get("shape"):
        _flag(row, "error", "The shape of NPU and Bench are inconsistent.")
    for key in ("max", "min"):
        a, b = mine.get(key), theirs.get(key)
        if isinstance(a, float) and not math.isfinite(a) and not (isinstance(b, float) and not math.isfinite(b)):
            _flag(row, "error", "NPU has nan or inf that Bench does not have.")
            break
    return row


def _judge_outputs(rows: list[Row]) -> None:
    """msprobe's output-relative-to-input checks over one node's rows."""
    # a Cell's parameters are among its inputs (a mis-scaled weight explains the output's error)
    inputs = [r for r in rows if r.io in ("input", "parameters") and r.bench is not None and r.rel]
    in_norm = [v for r in inputs if (v := r.rel.get("norm")) is not None and math.isfinite(v)]
    in_norm_max = max(in_norm, default=None)
    outputs = [r for r in rows if r.io == "output" and r.bench is not None]
    out_norms = [v for r in outputs if (v := r.rel.get("norm")) is not None and math.isfinite(v)]
    for row in outputs:
        out = row.rel.get("norm")
        if out is not None and math.isfinite(out) and in_norm and all(v < INPUT_CLEAN for v in in_norm) \
                and out > OUTPUT_ERROR:
            _flag(row, "error", "The NormRelativeErr of output is greater than 0.5.")
    # the node's largest output error against its largest input error, said on its first output row (as msprobe
    # 26.2 does: a two-output backward's warning lands on output.0 whichever output grew)
    if outputs and out_norms and in_norm_max is not None and max(out_norms) > WARN_FACTOR * in_norm_max:
        _flag(outputs[0], "warning", "The norm relative error of output is 10 times that of input.")


def _add_tensor_metrics(row: Row, slot: Slot, other: Slot | None, loaders: tuple[TensorLoader, TensorLoader]) -> None:
    if other is None or not slot.is_tensor or not other.is_tensor:
        return
    names = [(s.leaf or {}).get("data_name") for s in (slot, other)]
    if not all(isinstance(n, str) for n in names):
        row.messages.append("warning: no tensor file (data_name) to compare.")
        return
    try:
        a, b = (load(str(n)) for load, n in zip(loaders, names, strict=True))
    except (OSError, ValueError) as exc:
        row.messages.append(f"warning: {exc}")
        return
    row.tensor = tensor_metrics(a, b)


def tensor_metrics(target: np.ndarray, bench: np.ndarray) -> dict[str, float | None]:
    """msprobe's tensor-mode columns (README "msprobe compare"): Cosine (1 = identical), EucDist (L2 of the
    difference), MaxAbsErr, MaxRelativeErr (|diff| / |bench|, bench 0 left out), One/Five Thousandth(s) Err Ratio
    (share of elements whose relative error is below 0.001 / 0.005)."""
    a = np.asarray(target, dtype=np.float64).ravel()
    b = np.asarray(bench, dtype=np.float64).ravel()
    if a.shape != b.shape or a.size == 0:
        return {"cosine": None, "euc_dist": None, "max_abs_err": None, "max_relative_err": None,
                "one_thousandth_err_ratio": None, "five_thousandths_err_ratio": None}
    diff = np.abs(a - b)
    norms = float(np.linalg.norm(a)) * float(np.linalg.norm(b))
    cosine = float(np.dot(a, b) / norms) if norms > 0 else (1.0 if not diff.any() else None)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(b != 0, diff / np.abs(b), np.where(diff == 0, 0.0, np.inf))
    nonzero = rel[b != 0]
    return {"cosine": cosine, "euc_dist": float(np.linalg.norm(a - b)), "max_abs_err": float(diff.max()),
            "max_relative_err": float(nonzero.max()) if nonzero.size else 0.0,
            "one_thousandth_err_ratio": float(np.mean(rel < 0.001)),
            "five_thousandths_err_ratio": float(np.mean(rel < 0.005))}


def _flag(row: Row, level: str, message: str) -> None:
    row.messages.append(f"{level}: {message}")
    if level == "error" or row.result == "pass":
        row.result = level


def _facts(slot: Slot) -> dict[str, Any]:
    if slot.is_tensor:
        leaf = slot.leaf or {}
        return {"dtype": leaf.get("dtype"), "shape": leaf.get("shape"), **slot.stats()}
    leaf = slot.leaf or {}
    return {"dtype": leaf.get("type"), "value": leaf.get("value")}


def _rel(diff: float | None, bench: Any) -> float | None:
    if diff is None or not isinstance(bench, float) or bench == 0 or not math.isfinite(bench):
        return 0.0 if diff == 0 else None
    return abs(diff / bench)


def _abs(value: float | None) -> float | None:
    return None if value is None else abs(value)


def stat_json(value: Any) -> Any:
    """NaN/±Inf as MindInsight's tensor answers write them ("NAN", "INF", "-INF"); anything else as it is."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NAN" if math.isnan(value) else ("INF" if value > 0 else "-INF")
    return value
