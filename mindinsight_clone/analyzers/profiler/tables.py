"""Filter, sort and page a profiler table the way MindInsight's BaseAnalyser.query does.

* filter: `{column: {"in"|"not_in"|"partial_match_str_in": [values]}}`; keys that are not columns are ignored,
  `partial_match_str_in` is a case-insensitive substring match on any of the values.
* size: the number of rows after filtering (before paging).
* sort: `{"name": column, "type": "ascending"|"descending"}` (default descending), stable, None first.
* group: `{"limit": n, "offset": page}`: rows `[limit*offset, limit*(offset+1))`; only when either key is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Row = list[Any]


@dataclass(frozen=True)
class Table:
    col_names: tuple[str, ...]
    rows: tuple[Row, ...]


def value_matches(expected: dict[str, Any], actual: Any) -> bool:
    """MindInsight's condition on one cell: `in`, `not_in`, `partial_match_str_in` (case-insensitive)."""
    for key, values in expected.items():
        if key == "in":
            if actual not in values:
                return False
        elif key == "not_in":
            if actual in values:
                return False
        elif key == "partial_match_str_in":
            text = str(actual).lower()
            if not any(str(v).lower() in text for v in values):
                return False
        else:
            return False
    return True


def filter_rows(rows: Sequence[Row], cols: Sequence[str], filters: dict[str, Any]) -> list[Row]:
    checks = [(cols.index(k), v) for k, v in filters.items() if k in cols and isinstance(v, dict)]
    if not checks:
        return list(rows)
    return [row for row in rows if all(value_matches(expected, row[i]) for i, expected in checks)]


def sort_rows(rows: list[Row], cols: Sequence[str], sort: dict[str, Any] | None) -> list[Row]:
    if not sort or not sort.get("name") or sort["name"] not in cols:
        return rows
    index = cols.index(sort["name"])
    reverse = (sort.get("type") or "descending") == "descending"

    def key(row: Row) -> tuple[int, Any]:
        value = row[index]
        if value is None:
            return (0, 0)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return (1, value)
        return (2, str(value))

    return sorted(rows, key=key, reverse=reverse)


def page_rows(rows: list[Row], group: dict[str, Any] | None) -> list[Row]:
    if not group:
        return rows
    limit, offset = group.get("limit"), group.get("offset")
    if limit is None and offset is None:
        return rows
    limit = 10 if limit is None else limit
    offset = 0 if offset is None else offset
    return rows[limit * offset: limit * (offset + 1)]


def query(table: Table, condition: dict[str, Any]) -> dict[str, Any]:
    """The `{"col_name", "object", "size"}` answer for an already validated condition."""
    cols = list(table.col_names)
    filters = condition.get("filter_condition") or {}
    rows = filter_rows(table.rows, cols, filters if isinstance(filters, dict) else {})
    size = len(rows)
    rows = sort_rows(rows, cols, condition.get("sort_condition"))
    rows = page_rows(rows, condition.get("group_condition"))
    return {"col_name": cols, "object": [list(r) for r in rows], "size": size}
