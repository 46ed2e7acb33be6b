"""Statistics in chunks and the watchpoint conditions, against numpy on whole arrays."""

from __future__ import annotations

import numpy as np
import pytest

from mindinsight_clone.analyzers.debugger import conditions as cond
from mindinsight_clone.analyzers.debugger.stats import tensor_stats
from mindinsight_clone.errors import DebuggerParamValueError


def _arrays() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    a = rng.normal(2.0, 3.0, 10_001).astype(np.float32)
    a[[5, 70, 900]] = [np.nan, np.inf, -np.inf]
    a[1000:1100] = 0
    return [a, rng.integers(-5, 5, 999).astype(np.int64), rng.random(300) > 0.5,
            np.full(10, np.nan, np.float32), np.zeros(0, np.float32), np.array([3.0])]


@pytest.mark.parametrize("array", _arrays(), ids=["float+nonfinite", "int64", "bool", "all-nan", "empty", "one"])
@pytest.mark.parametrize("chunk", [7, 333, 10**9])
def test_chunked_statistics_equal_numpy(array: np.ndarray, chunk: int) -> None:
    stats = tensor_stats(array[i:i + chunk] for i in range(0, max(array.size, 1), chunk))
    values = array.astype(np.float64)
    fin = values[np.isfinite(values)]
    assert stats.count == array.size and stats.finite_count == fin.size
    assert stats.nan_count == np.isnan(values).sum() and stats.pos_inf_count == np.isposinf(values).sum()
    assert stats.zero_count == (fin == 0).sum() and stats.neg_count == (fin < 0).sum()
    if fin.size:
        assert stats.min == fin.min() and stats.max == fin.max()
        assert stats.mean == pytest.approx(fin.mean(), rel=1e-12, abs=1e-12)
        assert stats.std == pytest.approx(fin.std(), rel=1e-9, abs=1e-12)
        assert stats.abs_mean == pytest.approx(np.abs(fin).mean(), rel=1e-12)
    else:
        assert stats.min is stats.max is stats.mean is stats.std is None


def test_statistics_conditions() -> None:
    a = _arrays()[0]
    stats = tensor_stats([a])
    assert cond.nan_or_inf(stats)[0]["actual"] == 3
    assert cond.nan_or_inf(tensor_stats([np.ones(3)])) == []
    fin = a[np.isfinite(a)].astype(np.float64)
    hits = cond.too_large(stats, {"max_gt": float(fin.max()) - 1, "mean_gt": 1e9, "abs_mean_gt": 0.0})
    assert [h["name"] for h in hits] == ["max_gt", "abs_mean_gt"]
    assert cond.too_small(stats, {"min_lt": float(fin.min())}) == []  # strictly below
    assert cond.all_zero(stats, {"zero_percentage_ge": 100}) == []
    share = 100 * 100 / a.size
    assert cond.all_zero(stats, {"zero_percentage_ge": share})[0]["actual"] == pytest.approx(share)


def test_range_condition() -> None:
    a = np.linspace(-10, 10, 2001)
    stats = tensor_stats([a])
    params = {"range_start_inclusive": -1.0, "range_end_inclusive": 1.0, "range_percentage_lt": 20.0,
              "max_min_gt": 19.0}
    hits = {h["name"]: h["actual"] for h in cond.range_check([a[:1000], a[1000:]], stats, params)}
    assert hits["range_percentage_lt"] == pytest.approx(201 * 100 / 2001)
    assert hits["max_min_gt"] == pytest.approx(20.0)


def test_two_iteration_conditions() -> None:
    prev = np.linspace(1, 2, 100)
    same = prev * (1 + 1e-7)
    moved = prev + 0.5
    assert cond.not_changed([(same, prev)], {"rtol": 1e-5, "atol": 1e-8})
    assert not cond.not_changed([(moved, prev)], {"rtol": 1e-5, "atol": 1e-8})
    assert not cond.not_changed([(np.full(3, np.nan), np.full(3, np.nan))], {"rtol": 1e-5, "atol": 1e-8})
    ratio = 0.5 / (prev.mean() + 1e-9)
    assert cond.update_ratio([(moved[:50], prev[:50]), (moved[50:], prev[50:])], 1e-9) == pytest.approx(ratio)
    assert cond.change_too_large([(moved, prev)], {"abs_mean_update_ratio_gt": 0.1, "epsilon": 1e-9})
    assert not cond.change_too_small([(moved, prev)], {"abs_mean_update_ratio_lt": 1e-4, "epsilon": 1e-9})


@pytest.mark.parametrize(("condition", "params", "message"), [
    ("too_large", {}, "at least one"),
    ("too_small", {"max_lt": "1"}, "must be a number"),
    ("all_zero", {"zero_percentage_ge": -1}, r"in \[0, 100\]"),
    ("range", {"max_min_lt": 0}, r"in \(0, inf\)"),
    ("range", {"range_percentage_gt": 10, "range_start_inclusive": 0}, "need both"),
    ("not_changed", {"rtol": float("inf")}, r"in \[0, inf\)"),
    ("nan_or_inf", {"max_gt": 1}, "no parameter"),
    ("overflow", {}, "unknown condition"),
])
def test_parameters_are_checked(condition: str, params: dict[str, object], message: str) -> None:
    with pytest.raises(DebuggerParamValueError, match=message):
        cond.checked_params(condition, params)


def test_defaults_fill_in() -> None:
    assert cond.checked_params("all_zero", None)[1] == {"zero_percentage_ge": 100.0}
    assert cond.checked_params("change_too_small", {})[1] == {"abs_mean_update_ratio_lt": 1e-4, "epsilon": 1e-9}
