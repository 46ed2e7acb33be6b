"""The one engine (column_query) answers what MindInsight's rules give, written out plainly below as the oracle: over
typed numpy columns, and over Python rows (column_query.query_rows, "value" columns), on the same rows materialised."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mindinsight_clone.analyzers.profiler.engine import column_query
from mindinsight_clone.analyzers.profiler.engine.column_query import AnswerColumn, ColumnTable, materialise, query

COLS = (
    AnswerColumn("op_name", "name", "str"),
    AnswerColumn("op_type", "type", "str"),
    AnswerColumn("duration_ms", "duration", "num", scale=0.001, digits=6),
    AnswerColumn("step", "step", "int"),
    AnswerColumn("subgraph", kind="const", const=""),
)
NAMES = ["Conv2D_1", "conv2d_2", "MatMul", "add", "Add_3", ""]
TYPES = ["Conv2D", "MatMul", "Add", "N/A"]

rows_strategy = st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(TYPES),
                                   st.one_of(st.none(), st.sampled_from([0.5, 12.0, 12.0, 3.25, 1000.0])),
                                   st.one_of(st.none(), st.integers(0, 3))), max_size=40)
filter_strategy = st.dictionaries(
    st.sampled_from(["op_name", "op_type", "duration_ms", "step", "subgraph", "unknown"]),
    st.dictionaries(st.sampled_from(["in", "not_in", "partial_match_str_in", "bogus"]),
                    st.lists(st.one_of(st.sampled_from(NAMES + TYPES + ["conv", "ADD"]), st.sampled_from([0.012, 1, 0])),
                             max_size=3), min_size=1, max_size=2),
    max_size=2)
condition_strategy = st.fixed_dictionaries({}, optional={
    "filter_condition": filter_strategy,
    "sort_condition": st.fixed_dictionaries({"name": st.sampled_from([c.name for c in COLS])},
                                            optional={"type": st.sampled_from(["ascending", "descending"])}),
    "group_condition": st.fixed_dictionaries({}, optional={"limit": st.integers(1, 7), "offset": st.integers(0, 4)}),
})


def _oracle(cols: tuple[str, ...], rows: list[list[Any]], condition: dict[str, Any]) -> dict[str, Any]:
    """MindInsight's BaseAnalyser.query, row by row: filter, size, stable sort (absent lowest), page."""
    def matches(expected: dict[str, Any], actual: Any) -> bool:
        for op, wanted in expected.items():
            if (op == "in" and actual not in wanted) or (op == "not_in" and actual in wanted):
                return False
            if op == "partial_match_str_in" and not any(str(v).lower() in str(actual).lower() for v in wanted):
                return False
            if op not in ("in", "not_in", "partial_match_str_in"):
                return False
        return True

    filters = condition.get("filter_condition") or {}
    kept = [r for r in rows if all(matches(e, r[cols.index(k)]) for k, e in filters.items() if k in cols)]
    sort = condition.get("sort_condition")
    if sort and sort.get("name") in cols:
        i = cols.index(sort["name"])

        def key(row: list[Any]) -> tuple[int, Any]:
            v = row[i]
            return (0, 0) if v is None else (1, v) if isinstance(v, (int, float)) else (2, str(v))

        kept = sorted(kept, key=key, reverse=(sort.get("type") or "descending") == "descending")
    group = condition.get("group_condition") or {}
    shown = kept
    if group.get("limit") is not None or group.get("offset") is not None:
        limit, offset = group.get("limit") or 10, group.get("offset") or 0
        shown = kept[limit * offset: limit * (offset + 1)]
    return {"col_name": list(cols), "object": [list(r) for r in shown], "size": len(kept)}


def _build(rows: list[tuple[str, str, float | None, int | None]]) -> ColumnTable:
    names, types = list(dict.fromkeys(r[0] for r in rows)), list(dict.fromkeys(r[1] for r in rows))
    return ColumnTable(
        numbers={"duration": np.array([np.nan if r[2] is None else r[2] for r in rows], dtype=np.float64),
                 "step": np.array([np.nan if r[3] is None else r[3] for r in rows], dtype=np.float64)},
        ids={"name": np.array([names.index(r[0]) for r in rows], dtype=np.int32),
             "type": np.array([types.index(r[1]) for r in rows], dtype=np.int32)},
        strings={"name": tuple(names), "type": tuple(types)}, length=len(rows))


@settings(max_examples=300, deadline=None)
@given(rows=rows_strategy, condition=condition_strategy)
def test_same_answer_as_row_tables(rows: list[tuple[str, str, float | None, int | None]],
                                   condition: dict[str, Any]) -> None:
    table = _build(rows)
    materialised = materialise(table, COLS, np.arange(len(rows)))
    names = tuple(c.name for c in COLS)
    expected = _oracle(names, materialised, condition)
    assert query(table, COLS, condition) == expected
    assert column_query.query_rows(column_query.Table(names, tuple(materialised)), condition) == expected


def test_materialise_units_and_absent_values() -> None:
    table = _build([("a", "Add", 1500.0, 2), ("b", "Add", None, None)])
    assert materialise(table, COLS, np.arange(2)) == [["a", "Add", 1.5, 2, ""], ["b", "Add", None, None, ""]]
