"""Check watchpoint conditions over a dump: which tensors of which iterations hit, in execution order.

`POST debugger/watchpoints/check` body: `{"dump_id", "conditions": [{"id", "params", "targets"?}],
"targets": "weights|gradients|activations|all" (default all), "ranks", "graph_ids", "iterations" (default all)}`.

Targets, as MindInsight's debugger chose nodes (`stream_cache/node_type_identifier.py`):

* weights: Parameter files whose parameter name ends in `.weight` or `.bias` (not under `optimizer-` or
  `Gradients/`; MindInsight's rule, which also takes the optimizer's `moments.*` accumulators);
* gradients: outputs of kernels whose full name starts with `Gradients/`;
* activations: outputs of activation kernels (ReLU, Sigmoid, Tanh, Softmax, GeLU, ... by op type) outside
  `Gradients/`;
* all: every dumped tensor, inputs and outputs.

Conditions over statistics use the tensor table's cached statistics (a second check reads no file); `range` and
the conditions over two iterations read the values in bounded chunks. Hits come in execution order (rank, graph,
iteration, then the kernel's execution-order index; Parameter files last); `first` gives, per iteration and
condition, the earliest hit: with `nan_or_inf`, the first kernel where NaN/Inf appears.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from mindinsight_clone.analyzers.debugger import conditions as cond
from mindinsight_clone.analyzers.debugger.dumps import DumpTree
from mindinsight_clone.analyzers.debugger.naming import KernelNames
from mindinsight_clone.analyzers.debugger.stats import TensorStats
from mindinsight_clone.analyzers.debugger.tensors import FactsSource, TensorItem
from mindinsight_clone.analyzers.debugger.values import open_array, paired_chunks, value_chunks
from mindinsight_clone.errors import DebuggerParamValueError, DebuggerTensorUnreadableError, ParamValueError
from mindinsight_clone.ingest.dump_layout import PARAMETER

TARGETS = ("weights", "gradients", "activations", "all")
ACTIVATIONS = frozenset({"elu", "fastgelu", "gelu", "hsigmoid", "hswish", "leakyrelu", "logsigmoid", "logsoftmax",
                         "prelu", "relu", "relu6", "reluv2", "sigmoid", "softmax", "tanh", "silu", "swish"})
MAX_HITS = 10_000  # hits returned (all are counted)
MAX_ERRORS_SHOWN = 100
MAX_CHECKED_TENSORS = 2_000_000  # tensors looked at by one request; past it the answer says `truncated`


def is_target(target: str, item: TensorItem, node: str | None) -> bool:
    name = item.name
    if target == "all":
        return True
    if target == "weights":
        if name.op_type != PARAMETER:
            return False
        full = (node or name.op_name).lower()
        weight = full.endswith((".weight", ".bias")) or (node is None and full.endswith(("_weight", "_bias")))
        return weight and "optimizer-" not in full and not full.startswith("gradients")
    full_name = (node or name.op_name).lower()
    gradient = full_name.startswith(("gradients/", "gradients_")) or full_name == "gradients"
    if name.io != "output" or name.op_type == PARAMETER:
        return False
    if target == "gradients":
        return gradient
    return not gradient and name.op_type.lower() in ACTIVATIONS


@dataclass(frozen=True, slots=True)
class Watch:
    condition: cond.Condition
    params: dict[str, float]
    target: str


def parse_request(body: Any) -> tuple[str, list[Watch], dict[str, list[int] | None]]:
    """(dump_id, watches, {"ranks", "graph_ids", "iterations"} filters) from the POST body."""
    if not isinstance(body, Mapping):
        raise ParamValueError("the body must be a JSON object")
    dump_id = body.get("dump_id")
    if not isinstance(dump_id, str) or not dump_id:
        raise ParamValueError("dump_id (a string) is required")
    default_target = _target(body.get("targets", "all"))
    raw = body.get("conditions")
    if not isinstance(raw, list) or not raw:
        raise DebuggerParamValueError("conditions must be a non-empty list of {\"id\", \"params\"}")
    watches = []
    for item in raw:
        if not isinstance(item, Mapping):
            raise DebuggerParamValueError("each condition must be an object {\"id\", \"params\"}")
        condition, values = cond.checked_params(item.get("id"), item.get("params"))
        watches.append(Watch(condition, values, _target(item["targets"]) if "targets" in item else default_target))
    filters = {key: _int_list(body.get(key), key) for key in ("ranks", "graph_ids", "iterations")}
    return dump_id, watches, filters


def _target(value: Any) -> str:
    if value not in TARGETS:
        raise DebuggerParamValueError(f"targets must be one of {', '.join(TARGETS)}, got {value!r}")
    return str(value)


def _int_list(value: Any, key: str) -> list[int] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ParamValueError(f"{key} must be a list of integers")
    return list(value)


@dataclass
class CheckResult:
    hits: list[dict[str, Any]] = field(default_factory=list)
    hit_count: int = 0
    first: dict[tuple[int, int, int, str], dict[str, Any]] = field(default_factory=dict)
    checked_tensors: int = 0
    checked_iterations: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    error_count: int = 0
    no_previous: int = 0  # tensors a two-iteration condition could not check (no previous iteration or tensor)
    truncated: bool = False

    def answer(self) -> dict[str, Any]:
        return {"hits": self.hits, "hit_count": self.hit_count, "hits_truncated": self.hit_count > len(self.hits),
                "first": list(self.first.values()), "checked_tensors": self.checked_tensors,
                "checked_iterations": self.checked_iterations, "errors": self.errors, "error_count": self.error_count,
                "not_checked_without_previous": self.no_previous, "truncated": self.truncated}


class IterationSource(Protocol):
    """What the check needs from the DebuggerService (kept as a protocol: the service imports this module)."""

    facts: FactsSource

    def iteration(self, tree: DumpTree, rank: int, graph_id: int,
                  iteration: int) -> tuple[list[TensorItem], KernelNames, Any]: ...


def check(service: IterationSource, tree: DumpTree, watches: Sequence[Watch],
          filters: Mapping[str, list[int] | None]) -> CheckResult:
    """Run `watches` over the chosen ranks / graphs / iterations of `tree` (oldest iteration first)."""
    result = CheckResult()
    for rank in tree.root.ranks:
        if filters.get("ranks") is not None and rank not in (filters["ranks"] or []):
            continue
        for graph_id in tree.graph_ids(rank):
            if filters.get("graph_ids") is not None and graph_id not in (filters["graph_ids"] or []):
                continue
            iterations = tree.iterations(rank, graph_id)
            for position, iteration in enumerate(iterations):
                if filters.get("iterations") is not None and iteration not in (filters["iterations"] or []):
                    continue
                previous = iterations[position - 1] if position else None
                if not _check_iteration(service, tree, rank, graph_id, iteration, previous, watches, result):
                    result.truncated = True
                    return result
    return result


def _check_iteration(service: IterationSource, tree: DumpTree, rank: int, graph_id: int, iteration: int,
                     previous: int | None, watches: Sequence[Watch], result: CheckResult) -> bool:
    items, names, _ = service.iteration(tree, rank, graph_id, iteration)
    result.checked_iterations += 1
    chosen = [(i, names.node_of(i.name.op_type, i.name.op_name)) for i in items]
    wanted = [(item, node) for item, node in chosen if any(is_target(w.target, item, node[0]) for w in watches)]
    if result.checked_tensors + len(wanted) > MAX_CHECKED_TENSORS:
        return False
    result.checked_tensors += len(wanted)
    facts = service.facts.facts([item for item, _ in wanted], force=True)
    prev_items: dict[tuple[str, str, int], TensorItem] | None = None
    for (item, (node, index, _how)), fact in zip(wanted, facts, strict=True):
        if fact.get("stats") is None:
            _error(result, rank, graph_id, iteration, item, fact.get("error", "unreadable"))
            continue
        stats = TensorStats.from_dict(fact["stats"])
        for watch in watches:
            if not is_target(watch.target, item, node):
                continue
            try:
                if watch.condition.needs == "previous":
                    if prev_items is None:
                        prev_items = _previous_items(service, tree, rank, graph_id, previous)
                    other = prev_items.get(item.key)
                    if other is None:
                        result.no_previous += 1
                        continue
                    hits = _two_iterations(watch, item, other)
                elif watch.condition.needs == "array":
                    hits = cond.range_check(value_chunks(open_array(item)), stats, watch.params)
                else:
                    hits = _on_stats(watch, stats)
            except (DebuggerTensorUnreadableError, ValueError, TypeError) as exc:
                _error(result, rank, graph_id, iteration, item, str(exc))
                continue
            if hits:
                _record(result, watch, rank, graph_id, iteration, previous, item, node, index, hits)
    return True


def _on_stats(watch: Watch, stats: TensorStats) -> list[cond.Hit]:
    cid = watch.condition.id
    if cid == "nan_or_inf":
        return cond.nan_or_inf(stats)
    if cid in ("too_large", "too_small"):
        return cond.too_large(stats, watch.params)
    return cond.all_zero(stats, watch.params)


def _two_iterations(watch: Watch, item: TensorItem, other: TensorItem) -> list[cond.Hit]:
    current, previous = open_array(item), open_array(other)
    if current.header.shape != previous.header.shape:
        raise ValueError(f"shape {list(current.header.shape)} differs from the previous iteration's "
                         f"{list(previous.header.shape)}")
    pairs: Iterator[tuple[np.ndarray, np.ndarray]] = paired_chunks(current, previous)
    check = {"not_changed": cond.not_changed, "change_too_large": cond.change_too_large,
             "change_too_small": cond.change_too_small}[watch.condition.id]
    return check(pairs, watch.params)


def _previous_items(service: IterationSource, tree: DumpTree, rank: int, graph_id: int,
                    previous: int | None) -> dict[tuple[str, str, int], TensorItem]:
    if previous is None:
        return {}
    items, _, _ = service.iteration(tree, rank, graph_id, previous)
    out: dict[tuple[str, str, int], TensorItem] = {}
    for item in items:  # the newest file of a tensor wins (items are in execution order, then time)
        known = out.get(item.key)
        if known is None or item.name.timestamp > known.name.timestamp:
            out[item.key] = item
    return out


def _record(result: CheckResult, watch: Watch, rank: int, graph_id: int, iteration: int, previous: int | None,
            item: TensorItem, node: str | None, index: int | None, hits: list[cond.Hit]) -> None:
    result.hit_count += 1
    hit = {"condition": watch.condition.id, "rank": rank, "graph_id": graph_id, "iteration": iteration,
           "op_name": item.name.op_name, "io": item.name.io, "slot": item.name.slot, "value": hits[0]["actual"],
           "op_type": item.name.op_type, "node_name": node, "execution_order": index, "timestamp": item.name.timestamp,
           "params": hits, "previous_iteration": previous if watch.condition.needs == "previous" else None}
    if len(result.hits) < MAX_HITS:
        result.hits.append(hit)
    key = (rank, graph_id, iteration, watch.condition.id)
    result.first.setdefault(key, hit)  # items arrive in execution order: the first one seen is the earliest


def _error(result: CheckResult, rank: int, graph_id: int, iteration: int, item: TensorItem, why: str) -> None:
    result.error_count += 1
    if len(result.errors) < MAX_ERRORS_SHOWN:
        result.errors.append({"rank": rank, "graph_id": graph_id, "iteration": iteration,
                              "op_name": item.name.op_name, "io": item.name.io, "slot": item.name.slot, "error": why})
