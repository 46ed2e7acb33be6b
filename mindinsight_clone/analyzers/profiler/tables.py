"""A profiler table of Python rows, filtered, sorted and paged by the one engine (column_query.py, which states
MindInsight's BaseAnalyser.query rules): the rows are read as "value" columns, and the rows the engine keeps are
returned as they are."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler import column_query as engine

Row = list[Any]


@dataclass(frozen=True)
class Table:
    col_names: tuple[str, ...]
    rows: tuple[Row, ...]


def _pick(rows: Sequence[Row], indexes: np.ndarray) -> list[Row]:
    return [rows[i] for i in indexes.tolist()]


def filter_rows(rows: Sequence[Row], cols: Sequence[str], filters: dict[str, Any]) -> list[Row]:
    names = [k for k, v in filters.items() if k in cols and isinstance(v, dict)]
    if not names:
        return list(rows)
    table, answer_cols = engine.from_rows(cols, rows, only=names)
    return _pick(rows, np.flatnonzero(engine.filter_mask(table, answer_cols, filters)))


def sort_rows(rows: list[Row], cols: Sequence[str], sort: dict[str, Any] | None) -> list[Row]:
    if not sort or not sort.get("name") or sort["name"] not in cols:
        return rows
    table, answer_cols = engine.from_rows(cols, rows, only=[sort["name"]])
    return _pick(rows, engine.sort_order(table, answer_cols, np.arange(len(rows)), sort))


def page_rows(rows: list[Row], group: dict[str, Any] | None) -> list[Row]:
    return _pick(rows, engine.page(np.arange(len(rows)), group))


def query(table: Table, condition: dict[str, Any]) -> dict[str, Any]:
    """The `{"col_name", "object", "size"}` answer for an already validated condition (only the columns filtered
    or sorted on are read into the engine)."""
    cols = list(table.col_names)
    filters = condition.get("filter_condition") or {}
    rows = filter_rows(table.rows, cols, filters if isinstance(filters, dict) else {})
    size = len(rows)
    rows = page_rows(sort_rows(rows, cols, condition.get("sort_condition")), condition.get("group_condition"))
    return {"col_name": cols, "object": [list(r) for r in rows], "size": size}
