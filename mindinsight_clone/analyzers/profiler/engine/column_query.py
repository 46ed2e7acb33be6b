"""The profiler's one filter / sort / page engine, with MindInsight's BaseAnalyser.query semantics, over columns.

A `ColumnTable` keeps numbers as float64 (NaN = absent), strings as integer ids (any signed dtype, int8..int32)
into a tuple of distinct values, and any other Python values (`from_rows`: a table of Python rows) as ids into a
tuple of distinct values too; so a kernel_details.csv of a million rows costs tens of MB, and only the rows of the
asked page become Python lists. Answer columns map to stored columns through `AnswerColumn` (a few answer columns
are derived: a unit change, a copy, a constant). A `Table` of Python rows is queried by the same rules
(`query_rows`: its rows are read as "value" columns, and the rows kept are returned as they are). The rules:

* filter `{column: {"in"|"not_in"|"partial_match_str_in": [values]}}`: `in` / `not_in` exact,
  `partial_match_str_in` a case-insensitive substring of the shown value; an unknown operator filters every row out,
  keys that are not columns are ignored; `size` counts the rows after filtering (before paging);
* sort `{"name": column, "type": "ascending"|"descending"}` (default descending): stable, absent values lowest,
  numbers before text (compared as text);
* group `{"limit": n, "offset": page}`: rows `[limit*offset, limit*(offset+1))`, only when either key is given
  (limit 10 and offset 0 by default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Kind = Literal["str", "num", "int", "const", "value"]
Row = list[Any]


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
    ids: dict[str, np.ndarray]  # integer ids (int8/int16/int32) into `strings[column]` (or `values[column]`)
    strings: dict[str, tuple[str, ...]]
    length: int
    values: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # "value" columns: any Python values

    @property
    def nbytes(self) -> int:
        arrays = [*self.numbers.values(), *self.ids.values()]
        return sum(a.nbytes for a in arrays) + sum(sum(len(s) for s in v) for v in self.strings.values())

    def take(self, mask: np.ndarray) -> ColumnTable:
        return ColumnTable({k: v[mask] for k, v in self.numbers.items()}, {k: v[mask] for k, v in self.ids.items()},
                           self.strings, int(mask.sum()) if mask.dtype == bool else len(mask), self.values)


def from_rows(col_names: Sequence[str], rows: Sequence[Sequence[Any]], only: Sequence[str] | None = None
              ) -> tuple[ColumnTable, tuple[AnswerColumn, ...]]:
    """Python rows as "value" columns (the names in `only`, else every column): each cell an id into the column's
    distinct values (equal values of one type share an id; an unhashable value, e.g. a list, has its own)."""
    ids: dict[str, np.ndarray] = {}
    values: dict[str, tuple[Any, ...]] = {}
    for index, name in enumerate(col_names):
        if only is not None and name not in only:
            continue
        seen: dict[tuple[type, Any], int] = {}
        distinct: list[Any] = []
        column = np.empty(len(rows), dtype=np.int64)
        for r, row in enumerate(rows):
            value = row[index]
            try:
                found = seen.setdefault((type(value), value), len(distinct))
            except TypeError:  # unhashable
                found = len(distinct)
            if found == len(distinct):
                distinct.append(value)
            column[r] = found
        ids[name], values[name] = column, tuple(distinct)
    table = ColumnTable({}, ids, {}, len(rows), values)
    return table, tuple(AnswerColumn(n, n, "value") for n in col_names if n in ids)


def value_matches(expected: dict[str, Any], actual: Any) -> bool:
    """MindInsight's condition on one cell: `in`, `not_in`, `partial_match_str_in` (case-insensitive)."""
    for key, wanted in expected.items():
        if key == "in":
            if actual not in wanted:
                return False
        elif key == "not_in":
            if actual in wanted:
                return False
        elif key == "partial_match_str_in":
            text = str(actual).lower()
            if not any(str(v).lower() in text for v in wanted):
                return False
        else:
            return False
    return True


def sort_key(value: Any) -> tuple[int, Any]:
    """Absent lowest, then numbers, then anything else as text."""
    if value is None:
        return (0, 0)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (1, value)
    return (2, str(value))


def _show(col: AnswerColumn, value: float) -> Any:
    if value != value:  # NaN
        return None
    if col.kind == "int":
        return int(value)
    shown = value * col.scale
    return round(shown, col.digits) if col.digits is not None else shown


def _distinct(table: ColumnTable, col: AnswerColumn) -> Sequence[Any]:
    return table.strings[col.source] if col.kind == "str" else table.values[col.source]


def _column_mask(table: ColumnTable, col: AnswerColumn, expected: dict[str, Any]) -> np.ndarray:
    if col.kind == "const":
        return np.full(table.length, value_matches(expected, col.const))
    if col.kind in ("str", "value"):
        distinct = _distinct(table, col)
        good = np.fromiter((value_matches(expected, s) for s in distinct), dtype=bool, count=len(distinct))
        return good[table.ids[col.source]] if good.size else np.zeros(table.length, dtype=bool)
    numbers = table.numbers[col.source]
    uniques, inverse = np.unique(numbers, return_inverse=True)
    good = np.fromiter((value_matches(expected, _show(col, float(u))) for u in uniques), dtype=bool,
                       count=uniques.size)
    return good[inverse.reshape(-1)] if good.size else np.zeros(table.length, dtype=bool)


def filter_mask(table: ColumnTable, cols: Sequence[AnswerColumn], filters: Any) -> np.ndarray:
    """The rows every condition of `filters` keeps (keys that are not columns, and non-dict conditions, ignored)."""
    by_name = {c.name: c for c in cols}
    mask = np.ones(table.length, dtype=bool)
    if isinstance(filters, dict):
        for key, expected in filters.items():
            if key in by_name and isinstance(expected, dict):
                mask &= _column_mask(table, by_name[key], expected)
    return mask


def _dense_ranks(distinct: Sequence[Any]) -> np.ndarray:
    """Each distinct value's place in sort_key order, equal keys sharing one (so ties keep the rows' order)."""
    keys = [sort_key(v) for v in distinct]
    rank = np.zeros(len(keys), dtype=np.int64)
    place, previous = -1, None
    for i in sorted(range(len(keys)), key=keys.__getitem__):
        if place < 0 or keys[i] != previous:
            place, previous = place + 1, keys[i]
        rank[i] = place
    return rank


def sort_order(table: ColumnTable, cols: Sequence[AnswerColumn], rows: np.ndarray, sort: Any) -> np.ndarray:
    """`rows` (indexes) ordered by `sort`; unchanged when it names no column."""
    col = next((c for c in cols if isinstance(sort, dict) and c.name == sort.get("name")), None)
    if col is None or col.kind == "const":
        return rows
    descending = (sort.get("type") or "descending") == "descending"
    if col.kind in ("str", "value"):
        rank = _dense_ranks(_distinct(table, col))
        key = rank[table.ids[col.source][rows]].astype(np.float64) if rank.size else np.zeros(rows.size)
        present = np.ones(rows.size)
    else:
        raw = table.numbers[col.source][rows] * (col.scale if col.kind == "num" else 1.0)
        present = (~np.isnan(raw)).astype(np.float64)
        key = np.nan_to_num(raw, nan=0.0)
    order = np.lexsort((-key, -present)) if descending else np.lexsort((key, present))
    return rows[order]


def page(rows: np.ndarray, group: Any) -> np.ndarray:
    """The page `group` asks for; every row when it gives neither limit nor offset."""
    if not isinstance(group, dict) or (group.get("limit") is None and group.get("offset") is None):
        return rows
    limit = 10 if group.get("limit") is None else int(group["limit"])
    offset = 0 if group.get("offset") is None else int(group["offset"])
    return rows[limit * offset: limit * (offset + 1)]


def query(table: ColumnTable, cols: tuple[AnswerColumn, ...], condition: dict[str, Any]) -> dict[str, Any]:
    """The `{"col_name", "object", "size"}` answer for an already validated condition."""
    rows = np.flatnonzero(filter_mask(table, cols, condition.get("filter_condition") or {}))
    ordered = sort_order(table, cols, rows, condition.get("sort_condition") or {})
    shown = page(ordered, condition.get("group_condition") or {})
    return {"col_name": [c.name for c in cols], "object": materialise(table, cols, shown), "size": int(rows.size)}


def materialise(table: ColumnTable, cols: tuple[AnswerColumn, ...], rows: np.ndarray) -> list[list[Any]]:
    out: list[list[Any]] = [[] for _ in range(rows.size)]
    for col in cols:
        if col.kind == "const":
            values: list[Any] = [col.const] * rows.size
        elif col.kind in ("str", "value"):
            distinct = _distinct(table, col)
            values = [distinct[i] for i in table.ids[col.source][rows].tolist()]
        else:
            values = [_show(col, v) for v in table.numbers[col.source][rows].tolist()]
        for row, value in zip(out, values, strict=True):
            row.append(value)
    return out


@dataclass(frozen=True)
class Table:
    """A profiler table of Python rows."""

    col_names: tuple[str, ...]
    rows: tuple[Row, ...]


def _pick(rows: Sequence[Row], indexes: np.ndarray) -> list[Row]:
    return [rows[i] for i in indexes.tolist()]


def filter_rows(rows: Sequence[Row], cols: Sequence[str], filters: dict[str, Any]) -> list[Row]:
    names = [k for k, v in filters.items() if k in cols and isinstance(v, dict)]
    if not names:
        return list(rows)
    table, answer_cols = from_rows(cols, rows, only=names)
    return _pick(rows, np.flatnonzero(filter_mask(table, answer_cols, filters)))


def sort_rows(rows: list[Row], cols: Sequence[str], sort: dict[str, Any] | None) -> list[Row]:
    if not sort or not sort.get("name") or sort["name"] not in cols:
        return rows
    table, answer_cols = from_rows(cols, rows, only=[sort["name"]])
    return _pick(rows, sort_order(table, answer_cols, np.arange(len(rows)), sort))


def page_rows(rows: list[Row], group: dict[str, Any] | None) -> list[Row]:
    return _pick(rows, page(np.arange(len(rows)), group))


def query_rows(table: Table, condition: dict[str, Any]) -> dict[str, Any]:
    """`query` over a table of Python rows (only the columns filtered or sorted on are read into the engine)."""
    cols = list(table.col_names)
    filters = condition.get("filter_condition") or {}
    rows = filter_rows(table.rows, cols, filters if isinstance(filters, dict) else {})
    size = len(rows)
    rows = page_rows(sort_rows(rows, cols, condition.get("sort_condition")), condition.get("group_condition"))
    return {"col_name": cols, "object": [list(r) for r in rows], "size": size}
