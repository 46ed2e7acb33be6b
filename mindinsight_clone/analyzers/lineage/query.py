"""Filter, sort and page lineage runs: the body of `POST lineagemgr/lineages` (MindInsight's Querier).

Pure functions over RunLineage values; the condition must already be validated (condition.validate).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mindinsight_clone.analyzers.lineage.condition import CONTROL_KEYS, LINEAGE_TYPES
from mindinsight_clone.analyzers.lineage.record import RunLineage

JsonDict = dict[str, Any]
DEFAULT_LIMIT = 10
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq, "lt": operator.lt, "gt": operator.gt, "le": operator.le, "ge": operator.ge}


@dataclass(frozen=True)
class Row:
    """One run as the query sees it: its lineage, its dataset_mark and its tag/remark."""

    run: RunLineage
    mark: str | None
    added_info: Mapping[str, Any]

    def value(self, key: str) -> Any:
        if key == "tag":
            return self.added_info.get("tag")
        return self.run.value(key, self.mark)


def matches(op: str, expected: Any, actual: Any) -> bool:
    """MindInsight's ExpressionType.is_match: None never compares; incomparable types do not match."""
    if actual is None and op in ("lt", "gt", "le", "ge"):
        return False
    try:
        if op == "in":
            return bool(operator.contains(expected, actual))
        if op == "not_in":
            return not operator.contains(expected, actual)
        return bool(_COMPARE[op](actual, expected))
    except TypeError:
        return False


def keep(row: Row, condition: Mapping[str, Any]) -> bool:
    for key, ops in condition.items():
        if key in CONTROL_KEYS:
            continue
        actual = row.value(key)
        if not all(matches(op, expected, actual) for op, expected in ops.items()):
            return False
    return True


def _cmp(a: Any, b: Any) -> int:
    """None sorts first; values that cannot be compared are ordered by their type names."""
    if a is None or b is None:
        return (a is not None) - (b is not None)
    try:
        return int(a > b) - int(a < b)
    except TypeError:
        ta, tb = type(a).__name__, type(b).__name__
        return int(ta > tb) - int(ta < tb)


def sort_rows(rows: list[Row], condition: Mapping[str, Any]) -> list[Row]:
    """Newest first, then (stably) by `sorted_name` if given."""
    rows = sorted(rows, key=lambda r: r.run.order_key, reverse=True)
    name = condition.get("sorted_name")
    if name is None:
        return rows
    reverse = condition.get("sorted_type") == "descending"
    def compare(x: Row, y: Row) -> int:
        return _cmp(x.value(name), y.value(name))

    return sorted(rows, key=functools.cmp_to_key(compare), reverse=reverse)


def page(rows: list[Row], condition: Mapping[str, Any]) -> list[Row]:
    """`offset` is a page index; without limit and offset every row is returned."""
    if "limit" not in condition and "offset" not in condition:
        return rows
    limit = condition.get("limit", DEFAULT_LIMIT)
    offset = condition.get("offset", 0)
    return rows[offset * limit:(offset + 1) * limit]


def customized(rows: Sequence[Row]) -> JsonDict:
    """Columns for metric/* and user_defined/* seen on this page, with their value type."""
    types: dict[str, set[str]] = {}
    for row in rows:
        for group, values in (("metric", row.run.metric), ("user_defined", row.run.user_defined)):
            for key, value in values.items():
                types.setdefault(f"{group}/{key}", set()).add(type(value).__name__)
    out: JsonDict = {}
    for label, names in types.items():
        if len(names) == 1:
            kind = next(iter(names))
        elif names <= {"int", "float"}:
            kind = "float"
        else:
            kind = "mixed"
        out[label] = {"label": label, "required": label.startswith("metric/"), "type": kind}
    return out


def lineage_types(condition: Mapping[str, Any]) -> list[str]:
    param = condition.get("lineage_type")
    if not param:
        return list(LINEAGE_TYPES)
    if param.get("in") is not None:
        return list(param["in"])
    if "eq" in param:
        return [param["eq"]]
    return [t for t in LINEAGE_TYPES if t not in param.get("not_in", [])]


def to_object(row: Row, parts: Sequence[str]) -> JsonDict:
    # summary_dir always: a row must stay identifiable even when lineage_type selects no part.
    obj: JsonDict = {"summary_dir": row.run.train_id}
    if "model" in parts:
        obj["model_lineage"] = row.run.model_lineage(row.mark)
    if "dataset" in parts:
        obj["dataset_graph"] = row.run.dataset_graph
    obj["added_info"] = dict(row.added_info)
    return obj


def filter_rows(rows: Sequence[Row], condition: Mapping[str, Any]) -> list[Row]:
    """Filtered and sorted rows, before paging."""
    return sort_rows([r for r in rows if keep(r, condition)], condition)


def search(rows: Sequence[Row], condition: Mapping[str, Any]) -> JsonDict:
    """The response body: {count, customized, object}."""
    found = filter_rows(rows, condition)
    shown = page(found, condition)
    parts = lineage_types(condition)
    return {"count": len(found), "customized": customized(shown), "object": [to_object(r, parts) for r in shown]}
