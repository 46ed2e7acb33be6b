from __future__ import annotations

from typing import Any

import pytest

from mindinsight_clone.analyzers.lineage import query
from mindinsight_clone.analyzers.lineage.files import parse_events
from mindinsight_clone.analyzers.lineage.query import Row
from mindinsight_clone.analyzers.lineage.record import merge
from tests.unit.analyzers.lineage.builders import eval_event, graph_event, train_event, user_event


def _row(name: str, ts: int, lr: float, batch: int, metric: dict[str, Any] | None, tag: int | None = None,
         **user: Any) -> Row:
    events = [graph_event(batch), user_event(**user), train_event(lr, batch), eval_event(metric)]
    run = merge(name, 0.0, [parse_events(f"e.summary.{ts}.0.h_lineage", events)])
    assert run is not None
    return Row(run, str(batch), {} if tag is None else {"tag": tag})


@pytest.fixture
def rows() -> list[Row]:
    return [
        _row("./a", 10, 0.01, 8, {"acc": 0.5}, tag=2, note="first", seed=1),
        _row("./b", 30, 0.05, 4, {"acc": 0.9}, seed=2),
        _row("./c", 20, 0.1, 16, None, tag=5, note=3),
    ]


def _ids(result: dict[str, Any]) -> list[str]:
    return [o["summary_dir"] for o in result["object"]]


def test_default_order_is_newest_first(rows: list[Row]) -> None:
    result = query.search(rows, {})
    assert _ids(result) == ["./b", "./c", "./a"] and result["count"] == 3


@pytest.mark.parametrize(("condition", "expected"), [
    ({"learning_rate": {"eq": 0.05}}, ["./b"]),
    ({"learning_rate": {"lt": 0.05}}, ["./a"]),
    ({"learning_rate": {"le": 0.05}}, ["./b", "./a"]),
    ({"learning_rate": {"gt": 0.05}}, ["./c"]),
    ({"learning_rate": {"ge": 0.05}}, ["./b", "./c"]),
    ({"batch_size": {"in": [4, 16]}}, ["./b", "./c"]),
    ({"batch_size": {"not_in": [4, 16]}}, ["./a"]),
    ({"batch_size": {"ge": 4, "le": 8}}, ["./b", "./a"]),
    ({"metric/acc": {"gt": 0.6}}, ["./b"]),
    ({"metric/acc": {"lt": 1}}, ["./b", "./a"]),  # ./c has no metric: None never compares
    ({"user_defined/note": {"eq": "first"}}, ["./a"]),
    ({"user_defined/note": {"gt": "a"}}, ["./a"]),  # 3 > "a" is a TypeError: no match
    ({"summary_dir": {"in": ["./a", "./c"]}}, ["./c", "./a"]),
    ({"dataset_mark": {"eq": "16"}}, ["./c"]),
    ({"network": {"eq": "Net"}, "optimizer": {"not_in": ["Adam"]}}, ["./b", "./c", "./a"]),
])
def test_filters(rows: list[Row], condition: dict[str, Any], expected: list[str]) -> None:
    result = query.search(rows, condition)
    assert _ids(result) == expected and result["count"] == len(expected)


@pytest.mark.parametrize(("name", "kind", "expected"), [
    ("learning_rate", "ascending", ["./a", "./b", "./c"]),
    ("learning_rate", "descending", ["./c", "./b", "./a"]),
    ("metric/acc", "ascending", ["./c", "./a", "./b"]),  # None first
    ("metric/acc", "descending", ["./b", "./a", "./c"]),
    ("tag", "descending", ["./c", "./a", "./b"]),
    ("tag", None, ["./b", "./a", "./c"]),
    ("user_defined/note", "ascending", ["./b", "./c", "./a"]),  # None, then int before str (type names)
])
def test_sorting(rows: list[Row], name: str, kind: str | None, expected: list[str]) -> None:
    assert _ids(query.search(rows, {"sorted_name": name, "sorted_type": kind})) == expected


def test_paging_is_a_page_index(rows: list[Row]) -> None:
    assert _ids(query.search(rows, {"limit": 2})) == ["./b", "./c"]
    assert _ids(query.search(rows, {"limit": 2, "offset": 1})) == ["./a"]
    assert _ids(query.search(rows, {"offset": 0})) == ["./b", "./c", "./a"]  # default limit 10
    result = query.search(rows, {"limit": 2, "offset": 5})
    assert result["object"] == [] and result["count"] == 3 and result["customized"] == {}


def test_customized_types_from_the_page_only(rows: list[Row]) -> None:
    full = query.search(rows, {})["customized"]
    assert full["metric/acc"] == {"label": "metric/acc", "required": True, "type": "float"}
    assert full["user_defined/note"]["type"] == "mixed"
    assert full["user_defined/seed"] == {"label": "user_defined/seed", "required": False, "type": "int"}
    page = query.search(rows, {"limit": 1, "offset": 1})["customized"]  # ./c: no metric, note=3
    assert set(page) == {"user_defined/note"} and page["user_defined/note"]["type"] == "int"


def test_int_and_float_are_float() -> None:
    rows = [_row("./x", 1, 0.1, 8, {"m": 1}), _row("./y", 2, 0.1, 8, {"m": 0.5})]
    assert query.search(rows, {})["customized"]["metric/m"]["type"] == "float"


def test_lineage_types(rows: list[Row]) -> None:
    model = query.search(rows, {"lineage_type": {"eq": "model"}})["object"][0]
    assert set(model) == {"summary_dir", "model_lineage", "added_info"}
    dataset = query.search(rows, {"lineage_type": {"in": ["dataset"]}})["object"][0]
    assert set(dataset) == {"summary_dir", "dataset_graph", "added_info"}
    both = query.search(rows, {"lineage_type": {"not_in": []}})["object"][0]
    assert set(both) == {"summary_dir", "model_lineage", "dataset_graph", "added_info"}
    assert query.search(rows, {})["object"][2]["added_info"] == {"tag": 2}
