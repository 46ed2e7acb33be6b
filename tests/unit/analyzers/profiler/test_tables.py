"""Search-condition validation and filter/sort/page semantics."""

from __future__ import annotations

from typing import Any

import pytest

from mindinsight_clone.analyzers.profiler.engine.column_query import Table
from mindinsight_clone.analyzers.profiler.engine.column_query import query_rows as query
from mindinsight_clone.analyzers.profiler.engine.numbers import fmt
from mindinsight_clone.analyzers.profiler.views import search
from mindinsight_clone.errors import MindInsightError

TABLE = Table(("op_type", "op_name", "t"), (["A", "A-op0", 3.0], ["B", "b-OP1", None], ["A", "A-op2", 1.0],
                                            ["C", "c", 3.0]))


def test_fmt_matches_goldens() -> None:
    assert fmt(0.991683 * 100) == 99.168
    assert fmt(0.00591433 * 100) == 0.591433
    assert fmt(0.0267263 * 1000) == 26.726
    assert fmt(0.00240297) == 0.002403
    assert fmt(89.6262 * 1000) == 89626.2


def test_filters() -> None:
    assert query(TABLE, {"filter_condition": {"op_type": {"in": ["A"]}}})["size"] == 2
    assert query(TABLE, {"filter_condition": {"op_type": {"not_in": ["A"]}}})["size"] == 2
    got = query(TABLE, {"filter_condition": {"op_name": {"partial_match_str_in": ["op"]}}})
    assert [r[1] for r in got["object"]] == ["A-op0", "b-OP1", "A-op2"]
    # unknown columns are ignored
    assert query(TABLE, {"filter_condition": {"nope": {"in": ["x"]}}})["size"] == 4


def test_sort_is_stable_with_none_first_ascending() -> None:
    got = query(TABLE, {"sort_condition": {"name": "t", "type": "ascending"}})["object"]
    assert [r[1] for r in got] == ["b-OP1", "A-op2", "A-op0", "c"]
    got = query(TABLE, {"sort_condition": {"name": "t"}})["object"]
    assert [r[1] for r in got] == ["A-op0", "c", "A-op2", "b-OP1"]


@pytest.mark.parametrize(("group", "names"), [
    ({"limit": 2}, ["A-op0", "b-OP1"]),
    ({"limit": 2, "offset": 1}, ["A-op2", "c"]),
    ({"offset": 1}, []),  # limit defaults to 10: page 1 is past the end
    ({}, ["A-op0", "b-OP1", "A-op2", "c"]),
])
def test_paging(group: dict[str, Any], names: list[str]) -> None:
    got = query(TABLE, {"group_condition": group})
    assert [r[1] for r in got["object"]] == names
    assert got["size"] == 4


@pytest.mark.parametrize(("body", "code"), [
    ("x", "50546082"),
    ({"op_type": "cpu_op_type", "device_id": 1}, "50546182"),
    ({"op_type": "pynative_type"}, "50546183"),
    ({"op_type": "cpu_op_type", "group_condition": []}, "50546184"),
    ({"op_type": "cpu_op_type", "group_condition": {"offset": 1000001}}, "50546184"),
    ({"op_type": "cpu_op_type", "sort_condition": {"name": 3}}, "50546185"),
    ({"op_type": "cpu_op_type", "filter_condition": []}, "50546186"),
    ({"op_type": "cpu_op_type", "filter_condition": {"op_type": {"in": "A"}}}, "50546186"),
])
def test_validation_codes(body: Any, code: str) -> None:
    with pytest.raises(MindInsightError) as info:
        search.validate_ops_condition(body)
    assert info.value.error_code == code


def test_validation_accepts_mindinsight_bodies() -> None:
    op_type, device, _body = search.validate_ops_condition(
        {"op_type": "aicore_detail", "device_id": "3", "filter_condition": {"is_display_detail": False},
         "sort_condition": {"name": "op_name", "type": ""}, "group_condition": {"limit": 100, "offset": 0}})
    assert (op_type, device) == ("aicore_detail", "3")


def test_python_rows_keep_their_values_and_ties_their_order() -> None:
    """Rows go through the one engine as "value" columns: each cell comes back as the object it was (1 and 1.0 and
    True stay apart; lists, which cannot be hashed, are kept too), equal sort keys keep the rows' order, and numbers
    sort before text."""
    rows = (["a", 1, [1, 2]], ["b", 1.0, {"k": 1}], ["c", True, None], ["d", None, [0]], ["e", "x", [1, 2]])
    table = Table(("name", "v", "extra"), rows)
    got = query(table, {"sort_condition": {"name": "v", "type": "ascending"}})["object"]
    assert [r[0] for r in got] == ["d", "a", "b", "c", "e"]  # None; 1 == 1.0 (a before b); then "True", "x"
    assert [type(r[1]) for r in got] == [type(None), int, float, bool, str]
    assert got[1][2] == [1, 2] and got[2][2] == {"k": 1}
    got = query(table, {"sort_condition": {"name": "v"}})["object"]
    assert [r[0] for r in got] == ["e", "c", "a", "b", "d"]  # descending, ties still a before b
    assert query(table, {"filter_condition": {"extra": {"in": [[1, 2]]}}})["size"] == 2
    assert query(table, {"filter_condition": {"v": {"in": [1]}}})["size"] == 3  # 1 == 1.0 == True, as MindInsight
