"""Watchpoint conditions as MindInsight's debugger defined them, as small pure functions (numpy, vectorised).

Parameters, defaults and value checks are MindInsight 2.x's (`debugger/conditionmgr/condition_list.py`, the offline
`debugger/api/conditions.py`); the checks themselves ran in MindSpore's C++ DbgServices (deleted in 2.4) and are
written here over numpy arrays, with these definitions (docs/debugger.md):

* statistics are over the finite values (as the tensor table shows them); percentages are of all elements;
* `nan_or_inf`: any NaN, +Inf or -Inf;
* `too_large` / `too_small`: `abs_mean` (mean of |x|), `max`, `min`, `mean` strictly above / below the threshold;
* `all_zero`: zeros / elements * 100 >= `zero_percentage_ge` (default 100);
* `range`: the share of elements within [range_start_inclusive, range_end_inclusive] below `range_percentage_lt` or
  above `range_percentage_gt` (both bounds needed for those); `max - min` below `max_min_lt` / above `max_min_gt`;
* `not_changed`: every element close to the previous iteration's, |x - p| <= atol + rtol * |p| (NaN never close);
* `change_too_large` / `change_too_small`: mean(|x - p|) / (mean(|p|) + epsilon) above / below the threshold.

A condition with several parameters hits when any of them triggers; every triggered parameter is reported with the
threshold and the actual value. Conditions that need the previous iteration compare a tensor with the same op, io
and slot in the graph's previous dumped iteration.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_clone.analyzers.debugger.stats import TensorStats
from mindinsight_clone.errors import DebuggerParamValueError


def _percentage(v: float) -> bool:
    return 0 <= v <= 100


def _normal(v: float) -> bool:
    return -math.inf < v < math.inf


def _abs(v: float) -> bool:
    return 0 <= v < math.inf


def _positive(v: float) -> bool:
    return 0 < v < math.inf


_RANGES: dict[Callable[[float], bool], str] = {_percentage: "in [0, 100]", _normal: "finite", _abs: "in [0, inf)",
                                               _positive: "in (0, inf)"}


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    check: Callable[[float], bool]
    default: float | None = None
    support: bool = False  # describes the check (a range bound); never triggers by itself
    visible: bool = True  # MindInsight's UI shows it


@dataclass(frozen=True, slots=True)
class Condition:
    id: str
    needs: str  # "stats" (the cached statistics), "array" (the values), "previous" (values of two iterations)
    params: tuple[Param, ...]
    mindinsight: str  # MindInsight's condition id(s)
    mindinsight_targets: str  # what MindInsight offered the condition for; a check uses the request's targets


Hit = dict[str, Any]  # {"name", "threshold", "actual"}

CONDITIONS: dict[str, Condition] = {c.id: c for c in (
    Condition("nan_or_inf", "stats", (), "tensor_overflow / weight_overflow / gradient_exploding", "all"),
    Condition("too_large", "stats", (Param("abs_mean_gt", _abs), Param("max_gt", _normal), Param("min_gt", _normal),
                                     Param("mean_gt", _normal)), "tensor_too_large / weight_too_large", "all"),
    Condition("too_small", "stats", (Param("abs_mean_lt", _abs), Param("max_lt", _normal), Param("min_lt", _normal),
                                     Param("mean_lt", _normal)), "tensor_too_small / weight_too_small", "all"),
    Condition("all_zero", "stats", (Param("zero_percentage_ge", _percentage, 100.0),), "tensor_all_zero", "all"),
    Condition("range", "array", (Param("range_start_inclusive", _normal, support=True),
                                 Param("range_end_inclusive", _normal, support=True),
                                 Param("range_percentage_lt", _percentage), Param("range_percentage_gt", _percentage),
                                 Param("max_min_lt", _positive), Param("max_min_gt", _abs)),
              "tensor_range / activation_range", "all"),
    Condition("not_changed", "previous", (Param("rtol", _abs, 1e-5), Param("atol", _normal, 1e-8, visible=False)),
              "weight_not_changed", "weights"),
    Condition("change_too_large", "previous", (Param("abs_mean_update_ratio_gt", _abs, 1e-1),
                                               Param("epsilon", _normal, 1e-9, visible=False)),
              "weight_change_too_large", "weights"),
    Condition("change_too_small", "previous", (Param("abs_mean_update_ratio_lt", _abs, 1e-4),
                                               Param("epsilon", _normal, 1e-9, visible=False)),
              "weight_change_too_small", "weights"),
)}
_AT_LEAST_ONE = {"too_large", "too_small", "range"}
_TOLERANCES = {"rtol", "atol", "epsilon"}


def describe() -> list[dict[str, Any]]:
    """The conditions, their parameters and defaults (for the UI's condition picker)."""
    return [{"id": c.id, "mindinsight": c.mindinsight, "needs": c.needs,
             "mindinsight_targets": c.mindinsight_targets, "params": [param_json(p) for p in c.params]}
            for c in CONDITIONS.values()]


def param_json(param: Param) -> dict[str, Any]:
    """A parameter as the condition pickers show it: name, default, accepted range, whether it is a range bound."""
    return {"name": param.name, "default": param.default, "range": _RANGES[param.check], "support": param.support,
            "visible": param.visible}


def checked_params(condition_id: Any, given: Any) -> tuple[Condition, dict[str, float]]:
    """The condition and its parameters (defaults filled in), or DebuggerParamValueError saying what is wrong."""
    condition = CONDITIONS.get(condition_id) if isinstance(condition_id, str) else None
    if condition is None:
        raise DebuggerParamValueError(f"unknown condition {condition_id!r}; known: {', '.join(CONDITIONS)}")
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise DebuggerParamValueError(f"params of {condition.id} must be an object")
    known = {p.name: p for p in condition.params}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise DebuggerParamValueError(f"{condition.id} has no parameter {', '.join(map(str, unknown))}; "
                                      f"it takes {', '.join(known) or 'none'}")
    values: dict[str, float] = {}
    for param in condition.params:
        raw = given.get(param.name, param.default)
        if raw is None:
            continue
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            raise DebuggerParamValueError(f"{condition.id}.{param.name} must be a number, got {raw!r}")
        value = float(raw)
        if not param.check(value):
            raise DebuggerParamValueError(f"{condition.id}.{param.name} must be {_RANGES[param.check]}, got {raw!r}")
        values[param.name] = value
    triggers = [p.name for p in condition.params if not p.support and p.name in values and p.name not in _TOLERANCES]
    if condition.id in _AT_LEAST_ONE and not triggers:
        raise DebuggerParamValueError(f"{condition.id} needs at least one of "
                                      f"{', '.join(p.name for p in condition.params if not p.support)}")
    if ({"range_percentage_lt", "range_percentage_gt"} & set(values)
            and not {"range_start_inclusive", "range_end_inclusive"} <= set(values)):
        raise DebuggerParamValueError("range_percentage_lt/gt need both range_start_inclusive and range_end_inclusive")
    return condition, values


# ---------------------------------------------------------------------- checks over statistics
def nan_or_inf(stats: TensorStats) -> list[Hit]:
    bad = stats.nonfinite_count
    return [{"name": "nan_or_inf", "threshold": 0, "actual": bad, "nan_count": stats.nan_count,
             "pos_inf_count": stats.pos_inf_count, "neg_inf_count": stats.neg_inf_count}] if bad else []


def _compare(params: Mapping[str, float], actual: Mapping[str, float | None]) -> list[Hit]:
    hits = []
    for name, threshold in params.items():
        figure = actual.get(name[:-3])
        if figure is None:
            continue
        if (name.endswith("_gt") and figure > threshold) or (name.endswith("_lt") and figure < threshold):
            hits.append({"name": name, "threshold": threshold, "actual": figure})
    return hits


def too_large(stats: TensorStats, params: Mapping[str, float]) -> list[Hit]:
    return _compare(params, {"abs_mean": stats.abs_mean, "max": stats.max, "min": stats.min, "mean": stats.mean})


def too_small(stats: TensorStats, params: Mapping[str, float]) -> list[Hit]:
    return too_large(stats, params)


def all_zero(stats: TensorStats, params: Mapping[str, float]) -> list[Hit]:
    threshold = params["zero_percentage_ge"]
    share = stats.zero_count * 100.0 / stats.count if stats.count else 0.0
    return [{"name": "zero_percentage_ge", "threshold": threshold, "actual": share}] if stats.count and \
        share >= threshold else []


# ---------------------------------------------------------------------- checks over values
def range_check(chunks: Iterable[np.ndarray], stats: TensorStats, params: Mapping[str, float]) -> list[Hit]:
    """`range` over the values (flat chunks); `max_min_*` from the statistics."""
    actual: dict[str, float | None] = {}
    spread = None if stats.max is None or stats.min is None else stats.max - stats.min
    actual["max_min"] = spread
    if "range_start_inclusive" in params and {"range_percentage_lt", "range_percentage_gt"} & set(params):
        low, high = params["range_start_inclusive"], params["range_end_inclusive"]
        inside = 0
        for chunk in chunks:
            with np.errstate(invalid="ignore"):
                inside += int(np.count_nonzero((chunk >= low) & (chunk <= high)))
        actual["range_percentage"] = inside * 100.0 / stats.count if stats.count else 0.0
    triggers = {k: v for k, v in params.items() if k not in ("range_start_inclusive", "range_end_inclusive")}
    return _compare(triggers, actual)


def not_changed(pairs: Iterable[tuple[np.ndarray, np.ndarray]], params: Mapping[str, float]) -> list[Hit]:
    """Hit when every element is close to the previous iteration's (numpy's isclose, equal_nan False)."""
    rtol, atol = params["rtol"], params["atol"]
    changed = 0
    total = 0
    for current, previous in pairs:
        total += current.size
        changed += int(current.size - np.count_nonzero(np.isclose(current, previous, rtol=rtol, atol=atol)))
    if total and not changed:
        return [{"name": "rtol", "threshold": rtol, "actual": 0.0, "changed_count": 0}]
    return []


def update_ratio(pairs: Iterable[tuple[np.ndarray, np.ndarray]], epsilon: float) -> float | None:
    """mean(|x - p|) / (mean(|p|) + epsilon) in float64 (NaN when a value is NaN; None for empty tensors)."""
    diff_sum = prev_sum = 0.0
    count = 0
    for current, previous in pairs:
        a = current.astype(np.float64, copy=False)
        b = previous.astype(np.float64, copy=False)
        diff_sum += float(np.abs(a - b).sum())
        prev_sum += float(np.abs(b).sum())
        count += a.size
    if not count:
        return None
    return (diff_sum / count) / (prev_sum / count + epsilon)


def change_too_large(pairs: Iterable[tuple[np.ndarray, np.ndarray]], params: Mapping[str, float]) -> list[Hit]:
    ratio = update_ratio(pairs, params["epsilon"])
    return _compare({"abs_mean_update_ratio_gt": params["abs_mean_update_ratio_gt"]},
                    {"abs_mean_update_ratio": ratio})


def change_too_small(pairs: Iterable[tuple[np.ndarray, np.ndarray]], params: Mapping[str, float]) -> list[Hit]:
    ratio = update_ratio(pairs, params["epsilon"])
    return _compare({"abs_mean_update_ratio_lt": params["abs_mean_update_ratio_lt"]},
                    {"abs_mean_update_ratio": ratio})
