"""Watchpoint conditions on msprobe statistics (analyzers/debugger/msprobe_watch.py) over hand-built DumpFiles: the
table, the alignment of a step with the previous one, each condition's rule, and the parameter checks."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from mindinsight_clone.analyzers.debugger import msprobe_watch as watch
from mindinsight_clone.errors import DebuggerParamValueError
from mindinsight_clone.ingest.msprobe_dump import DumpFile, Node, Slot

NAN, INF = float("nan"), float("inf")


def leaf(mx: Any, mn: Any, mean: Any, norm: Any) -> dict[str, Any]:
    return {"type": "mindspore.Tensor", "dtype": "Float32", "shape": [2, 2], "Max": mx, "Min": mn, "Mean": mean,
            "Norm": norm}


def dump(*nodes: tuple[str, list[tuple[str, str, Any]]]) -> DumpFile:
    return DumpFile("statistics", "mix", "mindspore", None,
                    [Node(name, [Slot(io, index, value) for io, index, value in slots]) for name, slots in nodes],
                    complete=True, size=0)


def rows_of(found: watch.Found, table: watch.StatsTable) -> list[tuple[str, str, str]]:
    return [(table.names[table.node[r]], *table.keys[table.code[r]]) for r in found.rows]


def test_table_keeps_tensor_slots_in_order_and_tells_null_from_nan() -> None:
    table = watch.stats_table(dump(
        ("A.0.forward", [("input", "0", leaf(1, 0, 0.5, 2)), ("input", "dim", {"type": "int", "value": 1}),
                         ("output", "0", leaf(NAN, None, "inf", 3))]),
        ("B.0.forward", [("input", "0", None), ("output", "0", leaf(True, 0, 0, 0))])))
    assert table.names == ["A.0.forward", "B.0.forward"] and len(table) == 3
    assert [table.keys[c] for c in table.code] == [("input", "0"), ("output", "0"), ("output", "0")]
    assert table.node.tolist() == [0, 0, 1]
    assert table.present.tolist() == [[True] * 4, [True, False, True, True], [False, True, True, True]]
    assert math.isnan(table.values[1, 0]) and table.values[1, 2] == INF  # "inf" text is a number, as stat_number
    found = watch.evaluate("nan_or_inf", {}, table)
    assert rows_of(found, table) == [("A.0.forward", "output", "0")]  # null is not NaN; a boolean is no number


def test_too_large_is_strict_and_reports_only_what_triggered() -> None:
    table = watch.stats_table(dump(("A.0.forward", [("output", "0", leaf(5.0, -1.0, 2.0, 9.0)),
                                                    ("output", "1", leaf(NAN, NAN, NAN, NAN))])))
    found = watch.evaluate("too_large", {"max_gt": 5.0}, table)
    assert len(found.rows) == 0  # strictly above
    found = watch.evaluate("too_large", {"max_gt": 4.0, "mean_gt": 3.0}, table)
    assert found.rows.tolist() == [0] and found.actual["max_gt"].tolist() == [5.0]
    assert math.isnan(found.actual["mean_gt"][0])  # did not trigger
    assert watch.evaluate("too_small", {"min_lt": 0.0}, table).rows.tolist() == [0]
    assert watch.evaluate("range", {"max_min_gt": 5.5}, table).actual["max_min_gt"].tolist() == [6.0]


def test_all_zero_needs_every_statistic_zero() -> None:
    table = watch.stats_table(dump(("A.0.forward", [
        ("output", "0", leaf(0, 0, 0, 0)),
        ("output", "1", leaf(0, 0, NAN, NAN)),  # MindSpore's Max/Min skip NaN elements: not all zero
        ("output", "2", leaf(0, 0, None, None)),  # an int tensor msprobe wrote no Mean/Norm for
        ("output", "3", leaf(0, -1, -0.5, 1))])))
    assert watch.evaluate("all_zero", {"zero_percentage_ge": 100.0}, table).rows.tolist() == [0, 2]


def test_change_between_steps_matches_node_io_index_not_position() -> None:
    before = watch.stats_table(dump(
        ("Gone.0.forward", [("output", "0", leaf(1, 1, 1, 1))]),
        ("W.0.forward", [("parameters", "weight", leaf(1, -1, 0, 10.0)), ("parameters", "bias", leaf(1, 0, 0.5, 4.0))]),
        ("Z.0.forward", [("output", "0", leaf(0, 0, 0, 0.0))])))
    after = watch.stats_table(dump(
        ("Z.0.forward", [("output", "0", leaf(1, 0, 0.5, 1.0))]),  # from 0: ratio 1 / epsilon
        ("W.0.forward", [("parameters", "bias", leaf(1, 0, 0.5, 4.0)), ("parameters", "weight", leaf(1, -1, 0, 12.0))]),
        ("New.0.forward", [("output", "0", leaf(9, 9, 9, 90.0))])))
    at = watch.align(before, after)
    assert at.tolist() == [3, 2, 1, -1]
    params = {"abs_mean_update_ratio_gt": 0.1, "epsilon": 1e-9}
    found = watch.evaluate("change_too_large", params, after, before)
    assert rows_of(found, after) == [("Z.0.forward", "output", "0"), ("W.0.forward", "parameters", "weight")]
    ratios = found.actual["abs_mean_update_ratio_gt"]
    assert ratios[0] == pytest.approx(1 / 1e-9) and ratios[1] == pytest.approx(2 / (10 + 1e-9))
    assert found.previous_rows is not None and found.previous_rows.tolist() == [3, 1]
    small = watch.evaluate("change_too_small", {"abs_mean_update_ratio_lt": 1e-4, "epsilon": 1e-9}, after, before)
    assert rows_of(small, after) == [("W.0.forward", "parameters", "bias")]
    same = watch.evaluate("not_changed", {"rtol": 1e-5, "atol": 1e-8}, after, before)
    assert rows_of(same, after) == [("W.0.forward", "parameters", "bias")] and same.actual["rtol"].tolist() == [0.0]
    assert len(watch.evaluate("change_too_large", params, after, None).rows) == 0  # the first dumped step


def test_change_ignores_nan_and_missing_norms() -> None:
    before = watch.stats_table(dump(("A.0.forward", [("output", "0", leaf(1, 1, 1, NAN)), ("output", "1", leaf(1, 1, 1, None))])))
    after = watch.stats_table(dump(("A.0.forward", [("output", "0", leaf(1, 1, 1, 5.0)), ("output", "1", leaf(1, 1, 1, 5.0))])))
    assert watch.align(before, after).tolist() == [0, 1]  # the same calls in the same order
    found = watch.evaluate("change_too_large", {"abs_mean_update_ratio_gt": 0.0, "epsilon": 1e-9}, after, before)
    assert len(found.rows) == 0
    unchanged = watch.evaluate("not_changed", {"rtol": 1.0, "atol": 1.0}, after, before)
    assert len(unchanged.rows) == 0  # NaN is never close; present in one step only is a change


def test_not_changed_within_tolerance() -> None:
    before = watch.stats_table(dump(("A.0.forward", [("output", "0", leaf(1.0, -1.0, 0.0, 100.0))])))
    after = watch.stats_table(dump(("A.0.forward", [("output", "0", leaf(1.0, -1.0, 5e-9, 100.0005))])))
    found = watch.evaluate("not_changed", {"rtol": 1e-5, "atol": 1e-8}, after, before)
    assert found.rows.tolist() == [0] and found.actual["rtol"][0] == pytest.approx((0.0005 - 1e-8) / 100)
    assert len(watch.evaluate("not_changed", {"rtol": 1e-6, "atol": 1e-8}, after, before).rows) == 0


def test_align_big_tables_with_a_renamed_node() -> None:
    slots = [("input", "0", leaf(1, 0, 0.5, 1.0)), ("output", "0", leaf(1, 0, 0.5, 1.0))]
    before = watch.stats_table(dump(*[(f"N.{i}.forward", slots) for i in range(5000)]))
    after = watch.stats_table(dump(*[(f"N.{i}.forward" if i else "M.0.forward", slots) for i in range(5000)]))
    at = watch.align(before, after)
    assert at[:2].tolist() == [-1, -1] and np.array_equal(at[2:], np.arange(2, 10_000))


def test_parameters_are_checked_as_conditions_py_does_and_unsupported_ones_refused() -> None:
    condition, params = watch.checked("change_too_large", {})
    assert condition.id == "change_too_large" and params == {"abs_mean_update_ratio_gt": 0.1, "epsilon": 1e-9}
    assert watch.checked("too_large", {"max_gt": "10"})[1] == {"max_gt": 10.0}  # query-string text
    assert watch.checked("all_zero", {"zero_percentage_ge": "100"})[1] == {"zero_percentage_ge": 100.0}
    for name, given, said in (
            ("nope", {}, "unknown condition"),
            ("too_large", {}, "needs at least one"),
            ("too_large", {"max_gt": "ten"}, "must be a number"),
            ("too_large", {"max_gt": "inf"}, "must be finite"),
            ("too_large", {"abs_mean_gt": "1"}, "mean of |x|"),
            ("range", {"range_start_inclusive": 0, "range_end_inclusive": 1, "range_percentage_gt": 5}, "values"),
            ("all_zero", {"zero_percentage_ge": 90}, "only 100"),
            ("not_changed", {"rtol": -1}, r"in \[0, inf\)"),
            ("change_too_small", {"epsilon_x": 1}, "has no parameter")):
        with pytest.raises(DebuggerParamValueError, match=said):
            watch.checked(name, given)


def test_described_conditions_leave_out_what_statistics_cannot_answer() -> None:
    described = watch.describe()
    by_id = {c["id"]: c for c in described["conditions"]}
    assert set(by_id) == {"nan_or_inf", "too_large", "too_small", "all_zero", "range", "not_changed",
                          "change_too_large", "change_too_small"}
    assert [p["name"] for p in by_id["too_large"]["params"]] == ["max_gt", "min_gt", "mean_gt"]
    assert [p["name"] for p in by_id["range"]["params"]] == ["max_min_lt", "max_min_gt"]
    assert by_id["all_zero"]["params"][0]["default"] == 100.0 and by_id["change_too_large"]["previous"]
    assert {(u["condition"], u["param"]) for u in described["unsupported"]} >= {("too_large", "abs_mean_gt"),
                                                                                 ("too_small", "abs_mean_lt")}
