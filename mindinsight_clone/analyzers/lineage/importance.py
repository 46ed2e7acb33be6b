"""Parameter importance for `POST optimizer/targets/search` (the model-lineage page's chart).

MindInsight 2.3.1 flattens the searched lineages into a pandas table, drops non-numeric columns and
scores each (target, hyper-parameter) pair by |Pearson correlation| over the rows where both are
present (`optimizer/utils/importances.py`); its scikit-learn import is not used for this. We do the
same with NumPy only: no pandas, no scikit-learn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

JsonDict = dict[str, Any]
METRIC_PREFIX = "[M]"
USER_DEFINED_PREFIX = "[U]"
USER_DEFINED_LIMIT = 100
LOSS = "loss"
NOT_TUNABLE = ("loss", "train_id", "device_num", "model_size", "test_dataset_count", "train_dataset_count")
NOT_ALL_NUMBERS, SAMPLES_NOT_ENOUGH, CORRELATION_NAN = 1, 2, 3
HISTOGRAM_BINS = 5

Column = list[Any]


def flatten(objects: Sequence[JsonDict]) -> dict[str, Column]:
    """Search-result objects -> columns (train_id, model fields, [M]metric, [U]user-defined), None-padded."""
    table: dict[str, Column] = {"train_id": []}
    user_count = 0
    for index, obj in enumerate(objects):
        table["train_id"].append(obj.get("summary_dir"))
        for key, value in _flat_items(obj.get("model_lineage", {})):
            if key not in table:
                if key.startswith(USER_DEFINED_PREFIX):
                    if user_count > USER_DEFINED_LIMIT:
                        continue
                    user_count += 1
                table[key] = [None] * index
            table[key].append(_parse_value(value))
        for values in table.values():
            if len(values) == index:
                values.append(None)
    return table


def _flat_items(lineage: JsonDict) -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for key, value in lineage.items():
        if key == "metric":
            items += [(f"{METRIC_PREFIX}{k}", v) for k, v in value.items()]
        elif key == "user_defined":
            items += [(f"{USER_DEFINED_PREFIX}{k}", v) for k, v in value.items()]
        else:
            items.append((key, value))
    return items


def _parse_value(value: Any) -> Any:
    if isinstance(value, str) and value.lower() in ("nan", "inf"):
        return math.nan
    return value


def _numeric(values: Column) -> Column | None:
    """The column as pandas would type it (int64 or float64 with NaN), or None if not all numbers."""
    present = [v for v in values if v is not None]
    if not present or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in present):
        return None
    if len(present) == len(values) and all(isinstance(v, int) for v in present):
        return list(values)
    return [math.nan if v is None else float(v) for v in values]


def _importance(xs: Column, ys: Column) -> tuple[float, int | None]:
    pairs = [(x, y) for x, y in zip(xs, ys, strict=True) if not _isnan(x) and not _isnan(y)]
    if len(pairs) <= 2:
        return 0, SAMPLES_NOT_ENOUGH
    a = np.array([p[0] for p in pairs], dtype=np.float64)
    b = np.array([p[1] for p in pairs], dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = float(np.corrcoef(a, b)[0, 1])
    if math.isnan(corr):
        return 0, CORRELATION_NAN
    return abs(corr), None


def _isnan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def histogram(values: Column, bins: int = HISTOGRAM_BINS) -> list[list[float]]:
    """[[left, width, count] x bins] over the finite values (MindInsight's calc_histogram)."""
    arr = np.asarray(values, dtype=np.float64)
    finite = arr[np.isfinite(arr)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    if low >= high:
        low, high = low - 0.5, high + 0.5
    with np.errstate(invalid="ignore"):
        counts, edges = np.histogram(arr[~np.isnan(arr)], bins=bins, range=(low, high))
    return [[float(edges[i]), float(edges[i + 1] - edges[i]), float(c)] for i, c in enumerate(counts)]


def _column_values(values: Column) -> Column:
    return [None if _isnan(v) else v for v in values]


def optimize_targets(objects: Sequence[JsonDict]) -> JsonDict:
    """The response body of `POST optimizer/targets/search` for already searched lineage objects."""
    raw = flatten(objects)
    train_ids = list(raw["train_id"])
    table: dict[str, Column] = {}
    unrecognized: list[JsonDict] = []
    for name, values in raw.items():
        numeric = _numeric(values)
        if numeric is not None:
            table[name] = numeric
        elif name.startswith(USER_DEFINED_PREFIX):
            unrecognized.append({"name": name, "unselected": True, "reason_code": NOT_ALL_NUMBERS})
    targets = [n for n in table if n.startswith(METRIC_PREFIX)] + ([LOSS] if LOSS in table else [])
    params = [n for n in table if not n.startswith(METRIC_PREFIX) and n not in NOT_TUNABLE]

    summaries: list[JsonDict] = []
    for target in targets:
        hypers: list[JsonDict] = []
        for param in params:
            importance, reason = _importance(table[param], table[target])
            info: JsonDict = {"name": param, "importance": importance}
            if reason is not None:
                info["reason_code"] = reason
            hypers.append(info)
        hypers.sort(key=lambda h: (-h["importance"], h["name"].startswith("["), h["name"]))
        summaries.append({"name": target, "buckets": histogram(table[target]), "hyper_parameters": hypers,
                          "data": _column_values(table[target])})
    summaries.sort(key=lambda s: str(s["name"]))
    return {
        "metadata": {
            "train_ids": train_ids,
            "possible_hyper_parameters": [{"name": p, "data": _column_values(table[p])} for p in params],
            "unrecognized_params": unrecognized,
        },
        "targets": summaries,
    }
