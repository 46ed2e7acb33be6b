"""MindInsight's filter / sort / page semantics (tables.py) over numpy columns, for tables of millions of rows.

A `ColumnTable` keeps numbers as float64 (NaN = absent) and strings as integer ids (any signed dtype, int8..int32)
into a tuple of distinct values, so a kernel_details.csv of a million rows costs tens of MB; only the rows of the
asked page become Python lists.
Answer columns map to stored columns through `AnswerColumn` (a few answer columns are derived: a unit change,
a copy, a constant), and the results equal tables.query on the materialised rows:

* filter `in` / `not_in` (exact) and `partial_match_str_in` (case-insensitive substring of the shown value);
  an unknown operator filters every row out, keys that are not columns are ignored;
* sort stable, absent values lowest, default descending; group: `rows[limit*offset : limit*(offset+1)]`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from mindinsight_clone.analyzers.profiler.tables import value_matches

Kind = Literal["str", "num", "int", "const"]


@dataclass(frozen=True)
class AnswerColumn:
    name: str
    source: str = ""  # stored column ("" for const)
    kind: Kind = "num"
    scale: float = 1.0  # shown value = stored * scale (num)
    digits: int | None = None  # round the shown value
    const: Any = None


@dataclass(frozen=True)
class ColumnTable:
    numbers: dict[str, np.ndarray]  # float64
    ids: dict[str, np.ndarray]  # integer ids (int8/int16/int32) into `strings[column]`
    strings: dict[str, tuple[str, ...]]
    length: int

    @property
    def nbytes(self) -> int:
        arrays = [*self.numbers.values(), *self.ids.values()]
        return sum(a.nbytes for a in arrays) + sum(sum(len(s) for s in v) for v in self.strings.values())

    def take(self, mask: np.ndarray) -> ColumnTable:
        return ColumnTable({k: v[mask] for k, v in self.numbers.items()}, {k: v[mask] for k, v in self.ids.items()},
                           self.strings, int(mask.sum()) if mask.dtype == bool else len(mask))


def _show(col: AnswerColumn, value: float) -> Any:
    if value != value:  # NaN
        return None
    if col.kind == "int":
        return int(value)
    shown = value * col.scale
    return round(shown, col.digits) if col.digits is not None else shown


def _value_matcher(expected: dict[str, Any]) -> Callable[[Any], bool]:
    return functools.partial(value_matches, expected)


def _filter_mask(table: ColumnTable, col: AnswerColumn, expected: dict[str, Any]) -> np.ndarray:
    matches = _value_matcher(expected)
    if col.kind == "const":
        return np.full(table.length, matches(col.const))
    if col.kind == "str":
        good = np.fromiter((matches(s) for s in table.strings[col.source]), dtype=bool,
                           count=len(table.strings[col.source]))
        return good[table.ids[col.source]] if good.size else np.zeros(table.length, dtype=bool)
    values = table.numbers[col.source]
    uniques, inverse = np.unique(values, return_inverse=True)
    good = np.fromiter((matches(_show(col, float(u))) for u in uniques), dtype=bool, count=uniques.size)
    return good[inverse.reshape(-1)] if good.size else np.zeros(table.length, dtype=bool)


def _sort_order(table: ColumnTable, rows: np.ndarray, col: AnswerColumn, descending: bool) -> np.ndarray:
    if col.kind == "const":
        return rows
    if col.kind == "str":
        strings = table.strings[col.source]
        rank = np.empty(len(strings), dtype=np.int64)
        rank[sorted(range(len(strings)), key=strings.__getitem__)] = np.arange(len(strings))
        key = rank[table.ids[col.source][rows]].astype(np.float64) if len(strings) else np.zeros(rows.size)
        present = np.ones(rows.size)
    else:
        raw = table.numbers[col.source][rows] * (col.scale if col.kind == "num" else 1.0)
        present = (~np.isnan(raw)).astype(np.float64)
        key = np.nan_to_num(raw, nan=0.0)
    order = np.lexsort((-key, -present)) if descending else np.lexsort((key, present))
    return rows[order]


def query(table: ColumnTable, cols: tuple[AnswerColumn, ...], condition: dict[str, Any]) -> dict[str, Any]:
    """The `{"col_name", "object", "size"}` answer for an already validated condition."""
    by_name = {c.name: c for c in cols}
    mask = np.ones(table.length, dtype=bool)
    filters = condition.get("filter_condition") or {}
    if isinstance(filters, dict):
        for key, expected in filters.items():
            if key in by_name and isinstance(expected, dict):
                mask &= _filter_mask(table, by_name[key], expected)
    rows = np.flatnonzero(mask)
    sort = condition.get("sort_condition") or {}
    if isinstance(sort, dict) and sort.get("name") in by_name:
        rows = _sort_order(table, rows, by_name[sort["name"]], (sort.get("type") or "descending") == "descending")
    group = condition.get("group_condition") or {}
    if isinstance(group, dict) and (group.get("limit") is not None or group.get("offset") is not None):
        limit = 10 if group.get("limit") is None else int(group["limit"])
        offset = 0 if group.get("offset") is None else int(group["offset"])
        page = rows[limit * offset: limit * (offset + 1)]
    else:
        page = rows
    return {"col_name": [c.name for c in cols], "object": materialise(table, cols, page), "size": int(rows.size)}


def materialise(table: ColumnTable, cols: tuple[AnswerColumn, ...], rows: np.ndarray) -> list[list[Any]]:
    out: list[list[Any]] = [[] for _ in range(rows.size)]
    for col in cols:
        if col.kind == "const":
            values: list[Any] = [col.const] * rows.size
        elif col.kind == "str":
            strings = table.strings[col.source]
            values = [strings[i] for i in table.ids[col.source][rows].tolist()]
        else:
            values = [_show(col, v) for v in table.numbers[col.source][rows].tolist()]
        for row, value in zip(out, values, strict=True):
            row.append(value)
    return out
