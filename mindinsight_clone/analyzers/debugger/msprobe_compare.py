"""Target-vs-bench comparison of two msprobe dumps in statistics mode (issue 35), as `msprobe compare` does it.

One row per tensor or argument slot of the target (`<node>.input.<i>`, `<node>.input.<kwarg>[.<i>]`,
`<node>.output.<i>`, `<node>.parameters.<name>`, `<cell>.parameters_grad.<k>.<name>`), matched by name in the bench
(same framework: the names are the same), or through `pairs` (target row -> bench row: msprobe's cross-framework
api / cell / layer mapping, analyzers/debugger/msprobe_mapping.py). Per row: the target and bench
statistics, their differences (target − bench) and relative errors |diff / bench| (None where bench is 0 or not a
number), and msprobe's verdict (README "msprobe compare", msprobe 26.2's indicator analysis):

* error: dtype, shape or plain-argument mismatch; NaN/Inf in the target's Max/Min that the bench does not have;
  an output whose norm relative error is above 0.5 while every input's relative errors are below 0.1;
* warning: a node whose largest output norm relative error is 10× its inputs' largest, or above 0.1 when the inputs'
  largest is 0 (said on its first output);
* pass otherwise. Unmatched rows have no bench and pass.

The first divergence is the first row, in execution order, that is not `pass`.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mindinsight_clone.ingest.gc_pause import gc_paused
from mindinsight_clone.ingest.msprobe_dump import STAT_KEYS, DumpFile, Node, Slot, stat_number

OUTPUT_ERROR = 0.5  # an output's norm relative error above this ...
INPUT_CLEAN = 0.1  # ... while every input's relative errors are below this: error
WARN_FACTOR = 10.0  # an output's norm relative error this many times its inputs' largest: warning
ZERO_INPUT_WARN = 0.1  # ... or, when the inputs' largest is 0, an output's above this (msprobe's RelativeWarnChecker)
STATS = ("max", "min", "mean", "norm")


IO_CODES = ("input", "output", "parameters")
_NO_STATS = (None,) * len(STATS)
_LEAF_KEYS = tuple(theirs for theirs, _ in STAT_KEYS)  # Max, Min, Mean, Norm: STATS' order
PASS, WARNING, ERROR = 0, 1, 2
PAUSE_GC_ROWS = 10_000  # a page of more rows is built with the cyclic collector paused
RESULT_NAMES = ("pass", "warning", "error")


@dataclass
class Comparison:
    """One target-vs-bench comparison, kept compact: per row the two slots (references into the parsed dumps) and
    the statistics as (rows x 4) arrays with presence masks (a statistic can be absent, or NaN); a row's JSON is made
    only when it is asked for (a page), so a comparison of 300,000 rows is computed once and paged cheaply."""

    nodes: list[str]  # the node of each row
    names: list[str]
    io: np.ndarray  # int8 code into IO_CODES
    target_slots: list[Slot]
    bench_slots: list[Slot | None]
    target: np.ndarray  # float64 (rows x STATS); meaningful where `target_has`
    target_has: np.ndarray
    bench: np.ndarray
    bench_has: np.ndarray
    diffs: np.ndarray
    diffs_has: np.ndarray
    rel: np.ndarray
    rel_has: np.ndarray
    results: np.ndarray  # int8: PASS, WARNING, ERROR
    messages: dict[int, list[str]] = field(default_factory=dict)
    tensor: dict[int, dict[str, float | None]] = field(default_factory=dict)  # tensor mode's metrics
    bench_names: list[str | None] | None = None  # mapped comparisons: each row's bench row (None: by name)

    @property
    def size(self) -> int:
        return len(self.names)

    def counts(self) -> dict[str, int]:
        found = np.bincount(self.results, minlength=3)
        return {name: int(found[code]) for code, name in enumerate(RESULT_NAMES)}

    def unmatched(self) -> int:
        return sum(slot is None for slot in self.bench_slots)

    def select(self, result: str | None) -> np.ndarray:
        """The rows (in execution order) whose verdict is `result`, or every row."""
        if result is None:
            return np.arange(self.size)
        return np.flatnonzero(self.results == RESULT_NAMES.index(result))

    def first_divergence(self) -> dict[str, Any] | None:
        """The first row, in execution order, that is not `pass`."""
        hits = np.flatnonzero(self.results != PASS)
        return self.row_json(int(hits[0])) if hits.size else None

    def row_json(self, i: int) -> dict[str, Any]:
        return self.rows_json([i])[0]

    def rows_json(self, rows: list[int]) -> list[dict[str, Any]]:
        """The JSON of `rows` (msprobe's columns; NaN/±Inf as "NAN"/"INF"/"-INF", an absent figure null)."""
        with gc_paused() if len(rows) > PAUSE_GC_ROWS else nullcontext():  # millions of acyclic objects
            return self._rows_json(rows)

    def _rows_json(self, rows: list[int]) -> list[dict[str, Any]]:
        index = np.asarray(rows, dtype=np.int64)
        cells = {name: _cells(values[index], has[index]) for name, values, has in (
            ("target", self.target, self.target_has), ("bench", self.bench, self.bench_has),
            ("diff", self.diffs, self.diffs_has), ("rel", self.rel, self.rel_has))}
        out = []
        for n, i in enumerate(rows):
            other = self.bench_slots[i]
            mine_type, mine_shape = _type_and_shape(self.target_slots[i])
            theirs_type, theirs_shape = _type_and_shape(other) if other is not None else (None, None)
            target, bench, diff, rel = (cells[name][n] for name in ("target", "bench", "diff", "rel"))
            bench_name = self.names[i] if self.bench_names is None else self.bench_names[i]
            out.append({"node": self.nodes[i], "target_name": self.names[i],
                        "bench_name": bench_name if other is not None else None, "io": IO_CODES[self.io[i]],
                        "result": RESULT_NAMES[self.results[i]], "err_message": list(self.messages.get(i, ())),
                        "target_dtype": mine_type, "bench_dtype": theirs_type,
                        "target_shape": mine_shape, "bench_shape": theirs_shape,
                        **{f"target_{k}": target[j] for j, k in enumerate(STATS)},
                        **{f"bench_{k}": bench[j] for j, k in enumerate(STATS)},
                        **{f"{k}_diff": diff[j] for j, k in enumerate(STATS)},
                        **{f"{k}_relative_err": rel[j] for j, k in enumerate(STATS)},
                        "max_abs_err": stat_json(_abs(self.diffs[i, 0].item())) if self.diffs_has[i, 0] else None,
                        "max_relative_err": rel[0], "cosine": None,
                        **{k: stat_json(v) for k, v in self.tensor.get(i, {}).items()}})
        return out


def _cells(values: np.ndarray, has: np.ndarray) -> list[list[Any]]:
    """Rows of figures as JSON values: absent -> None, NaN/±Inf -> stat_json's text."""
    return [[stat_json(v) if h else None for v, h in zip(row, flags, strict=True)]
            for row, flags in zip(values.tolist(), has.tolist(), strict=True)]


def _type_and_shape(slot: Slot) -> tuple[Any, Any]:
    """A tensor's dtype and shape; a plain argument's type (and no shape)."""
    leaf = slot.leaf or {}
    return (leaf.get("dtype"), leaf.get("shape")) if slot.is_tensor else (leaf.get("type"), None)


TensorLoader = Callable[[str], np.ndarray]  # data_name -> the array (OSError / ValueError with a clear message)


class ComparisonCache:
    """The last few comparisons, by the two parsed dumps (the parse cache hands out the same DumpFile while a file is
    unchanged, so a changed dump.json is compared again), the mode and the mapping: the pages of one comparison cost
    a page."""

    def __init__(self, keep: int = 2) -> None:
        self._keep = keep
        self._items: OrderedDict[tuple[int, int, str, str], tuple[DumpFile, DumpFile, Comparison]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, target: DumpFile, bench: DumpFile, mode: str, make: Callable[[], Comparison],
            mapping: str = "") -> Comparison:
        """The kept comparison of the two dumps in `mode` with `mapping` (the mapping's identity: its kind and its
        file's content hash, "" when rows are matched by name), or `make()`'s."""
        key = (id(target), id(bench), mode, mapping)
        with self._lock:
            found = self._items.get(key)
            if found is not None and found[0] is target and found[1] is bench:  # not an id reused by another dump
                self._items.move_to_end(key)
                return found[2]
        made = make()
        with self._lock:
            self._items[key] = (target, bench, made)
            while len(self._items) > self._keep:
                self._items.popitem(last=False)
        return made


def compare(target: DumpFile, bench: DumpFile, tensors: tuple[TensorLoader, TensorLoader] | None = None,
            pairs: Mapping[str, str] | None = None) -> Comparison:
    """The comparison of every slot of `target` with the slot of the same name in `bench` (module docstring), or
    with the bench row `pairs` names for it (a row it does not name is unmatched). With `tensors` (tensor mode)
    every matched tensor row also gets the metrics of its two `.npy` arrays."""
    bench_slots = {name: slot for node in bench.nodes for name, slot in named_slots(node)}
    nodes: list[str] = []
    names: list[str] = []
    slots: list[Slot] = []
    others: list[Slot | None] = []
    bench_names: list[str | None] = []
    starts: list[int] = []  # the first row of each node
    for node in target.nodes:
        starts.append(len(names))
        for name, slot in named_slots(node):
            nodes.append(node.name)
            names.append(name)
            slots.append(slot)
            if pairs is None:
                others.append(bench_slots.get(name))
                continue
            paired = pairs.get(name)
            other = None if paired is None else bench_slots.get(paired)
            others.append(other)
            bench_names.append(paired if other is not None else None)
    n = len(names)
    io = np.array([_io_code(s.io) for s in slots], dtype=np.int8)
    mine = [s.is_tensor for s in slots]
    theirs = [o is not None and o.is_tensor for o in others]
    tgt, tgt_has = _stats(slots, mine)
    ben, ben_has = _stats(others, theirs)
    tensor_pair = np.array(mine, dtype=bool) & np.array(theirs, dtype=bool)
    both = tgt_has & ben_has & tensor_pair[:, None]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diffs = np.where(both, tgt - ben, 0.0)
        usable = both & (ben != 0) & np.isfinite(ben)
        rel = np.where(usable, np.abs(diffs / np.where(usable, ben, 1.0)), 0.0)
    rel_has = usable | (both & (diffs == 0))
    out = Comparison(nodes, names, io, slots, others, tgt, tgt_has, ben, ben_has, diffs, both.copy(), rel, rel_has,
                     np.zeros(n, dtype=np.int8), bench_names=None if pairs is None else bench_names)
    _judge_rows(out, mine, theirs, tensor_pair)
    if tensors is not None:
        for i in np.flatnonzero(tensor_pair).tolist():
            _add_tensor_metrics(out, i, tensors)
    _judge_outputs(out, starts, mine, theirs)
    return out


def _io_code(io: str) -> int:
    return 1 if io == "output" else (2 if io == "parameters" else 0)


def _stats(slots: list[Slot] | list[Slot | None], tensor: list[bool]) -> tuple[np.ndarray, np.ndarray]:
    """The Max/Min/Mean/Norm of each tensor slot (rows x 4) and where they are present (a statistic is absent, or
    a number that may be NaN)."""
    cells: list[float | None] = []
    for slot, is_tensor in zip(slots, tensor, strict=True):
        if not is_tensor or slot is None or slot.leaf is None:
            cells.extend(_NO_STATS)
            continue
        for key in _LEAF_KEYS:  # Slot.stats(), inline: a float as it is, anything else through stat_number
            value = slot.leaf.get(key)
            cells.append(value if type(value) is float else stat_number(value))
    has = np.array([c is not None for c in cells], dtype=bool).reshape(-1, len(STATS))
    values = np.array([0.0 if c is None else c for c in cells], dtype=np.float64).reshape(-1, len(STATS))
    return values, has


def _judge_rows(out: Comparison, mine: list[bool], theirs: list[bool], tensor_pair: np.ndarray) -> None:
    """Each matched row's own checks: type, plain value, dtype, shape, NaN/Inf the bench does not have."""
    finite_t = np.isfinite(out.target[:, :2]) | ~out.target_has[:, :2]  # max, min
    finite_b = np.isfinite(out.bench[:, :2]) | ~out.bench_has[:, :2]
    new_non_finite = (~finite_t & finite_b).any(axis=1)
    pair = tensor_pair.tolist()
    for i, (slot, other) in enumerate(zip(out.target_slots, out.bench_slots, strict=True)):
        if other is None:
            continue
        if mine[i] != theirs[i]:
            _flag(out, i, ERROR, "The type of NPU and Bench are inconsistent.")
        elif not pair[i]:
            _plain(out, i, (slot.leaf or {}).get("value"), (other.leaf or {}).get("value"))
        else:
            leaf, bench_leaf = slot.leaf or {}, other.leaf or {}
            if leaf.get("dtype") != bench_leaf.get("dtype"):
                _flag(out, i, ERROR, "The dtype of NPU and Bench are inconsistent.")
            if leaf.get("shape") != bench_leaf.get("shape"):
                _flag(out, i, ERROR, "The shape of NPU and Bench are inconsistent.")
            if new_non_finite[i]:
                _flag(out, i, ERROR, "NPU has nan or inf that Bench does not have.")


def _plain(out: Comparison, i: int, a: Any, b: Any) -> None:
    """Two plain arguments: equal (differences 0), or an error; numbers also get their difference."""
    if a != b:
        _flag(out, i, ERROR, "The value of NPU and Bench are inconsistent.")
    else:
        out.diffs[i], out.diffs_has[i], out.rel[i], out.rel_has[i] = 0.0, True, 0.0, True
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        diff = float(a) - float(b)
        rel = _rel(diff, float(b))
        out.diffs[i], out.diffs_has[i] = diff, True
        out.rel[i], out.rel_has[i] = (0.0 if rel is None else rel), rel is not None


def _judge_outputs(out: Comparison, starts: list[int], mine: list[bool], theirs: list[bool]) -> None:
    """msprobe's output-relative-to-input checks over each node's rows (`mine` / `theirs`: tensor slots)."""
    matched = [o is not None for o in out.bench_slots]
    judged_list = [m and a == b for m, a, b in zip(matched, mine, theirs, strict=True)]  # not a type mismatch
    norm_ok = (out.rel_has[:, 3] & np.isfinite(out.rel[:, 3])).tolist()
    norm = out.rel[:, 3].tolist()
    io = out.io.tolist()
    for node, start in enumerate(starts):
        end = starts[node + 1] if node + 1 < len(starts) else out.size
        # a Cell's parameters are among its inputs (a mis-scaled weight explains the output's error)
        in_norm = [norm[i] for i in range(start, end) if io[i] != 1 and judged_list[i] and norm_ok[i]]
        outputs = [i for i in range(start, end) if io[i] == 1 and matched[i]]
        if not outputs:
            continue
        out_norms = [norm[i] for i in outputs if norm_ok[i]]
        if in_norm and all(v < INPUT_CLEAN for v in in_norm):
            for i in outputs:
                if norm_ok[i] and norm[i] > OUTPUT_ERROR:
                    _flag(out, i, ERROR, "The NormRelativeErr of output is greater than 0.5.")
        # the node's largest output error against its largest input error, said on its first output row (as
        # msprobe 26.2 does: a two-output backward's warning lands on output.0 whichever output grew)
        if out_norms and in_norm:
            top_in, top_out = max(in_norm), max(out_norms)
            # inputs without error: msprobe warns only above ZERO_INPUT_WARN (not on any rounding of the output)
            if top_out > ZERO_INPUT_WARN if top_in == 0 else top_out > WARN_FACTOR * top_in:
                _flag(out, outputs[0], WARNING, "The norm relative error of output is 10 times that of input.")


def named_slots(node: Node) -> list[tuple[str, Slot]]:
    """A node's rows as (msprobe's row name, slot)."""
    grad = ".parameters_grad." in node.name
    return [(f"{node.name}.{s.index}" if grad else f"{node.name}.{s.io}.{s.index}", s) for s in node.slots]


def _add_tensor_metrics(out: Comparison, i: int, loaders: tuple[TensorLoader, TensorLoader]) -> None:
    slot, other = out.target_slots[i], out.bench_slots[i]
    assert other is not None
    names = [(s.leaf or {}).get("data_name") for s in (slot, other)]
    if not all(isinstance(n, str) for n in names):
        out.messages.setdefault(i, []).append("warning: no tensor file (data_name) to compare.")
        return
    try:
        a, b = (load(str(n)) for load, n in zip(loaders, names, strict=True))
    except (OSError, ValueError) as exc:
        out.messages.setdefault(i, []).append(f"warning: {exc}")
        return
    out.tensor[i] = tensor_metrics(a, b)


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


def _flag(out: Comparison, i: int, level: int, message: str) -> None:
    out.messages.setdefault(i, []).append(f"{RESULT_NAMES[level]}: {message}")
    if level == ERROR or out.results[i] == PASS:
        out.results[i] = level


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
