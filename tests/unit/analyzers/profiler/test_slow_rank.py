"""The outlier tests and the vote (slow_rank.py), the stage inference (stages.py) and the peer rule
(cluster_steps.py) on numbers chosen here; expected answers are worked out in the test from the formulas."""

from __future__ import annotations

import statistics

import pytest

from mindinsight_clone.analyzers.profiler.views import cluster_steps, slow_rank, stages
from mindinsight_clone.analyzers.profiler.views.slow_rank import CollectiveTime


def _dixon_q(values: list[float]) -> float:
    """Dixon's ratio for the lowest value: r10 (n ≤ 7), r11 (≤ 10), r21 (≤ 13), r22 (above)."""
    x, n = sorted(values), len(values)
    if n <= 7:
        return (x[1] - x[0]) / (x[-1] - x[0])
    if n <= 10:
        return (x[1] - x[0]) / (x[-2] - x[0])
    if n <= 13:
        return (x[2] - x[0]) / (x[-2] - x[0])
    return (x[2] - x[0]) / (x[-3] - x[0])


@pytest.mark.parametrize("n", [4, 6, 8, 12, 30, 100])
def test_dixon_flags_a_far_low_value_and_nothing_in_an_even_spread(n: int) -> None:
    even = [100.0 + i for i in range(n)]
    assert _dixon_q(even) < slow_rank.DIXON_CRITICAL[n]
    assert slow_rank.dixon_low_outlier(even) is None
    low = [*even[1:], 0.0]  # one value far below the rest
    assert _dixon_q(low) > slow_rank.DIXON_CRITICAL[n]
    assert slow_rank.dixon_low_outlier(low) == n - 1
    assert slow_rank.low_outliers(low) == [n - 1]


def test_dixon_needs_three_values_and_four_distinct_ones() -> None:
    assert slow_rank.dixon_low_outlier([1.0, 100.0]) is None
    assert slow_rank.dixon_low_outlier([0.0, 100.0, 100.0, 101.0]) is None  # 3 distinct values: msprof's guard
    assert slow_rank.dixon_low_outlier([0.0, 100.0, 100.5, 101.0]) == 0  # Q = 100 / 101 > 0.920


def test_three_sigma_above_one_hundred_ranks() -> None:
    values = [10.0] * 120 + [0.0]
    assert slow_rank.dixon_low_outlier(values) is None  # beyond the Dixon table
    mean, std = statistics.fmean(values), statistics.pstdev(values)
    assert mean - 3 * std > 0.0  # the lone 0 is below mean − 3σ
    assert slow_rank.low_outliers(values) == [120]
    assert slow_rank.sigma_low_outliers([10.0 + (i % 7) for i in range(150)]) == []
    # a high outlier makes the shortest one the slow rank (the others all waited less than it worked)
    high = [10.0] * 119 + [9.9, 100.0]
    assert slow_rank.sigma_low_outliers(high) == [119]


def _times(group: str, name: str, values: dict[int, float], step: int = 1) -> list[CollectiveTime]:
    return [CollectiveTime(rank, group, step, name, ms) for rank, ms in values.items()]


def test_vote_counts_per_rank_and_leaves_out_p2p_and_incomplete_groups() -> None:
    ranks = range(8)
    times = []
    for op in range(5):
        values = {r: 10.0 + 0.1 * r + 0.01 * op for r in ranks}
        if op < 4:
            values[5] = 0.2  # rank 5 arrived last: its copy is short
        times += _times("world", f"hcom_allReduce__{op}", values)
    times += _times("world", "hcom_send__9", {r: 0.1 if r == 2 else 10.0 + r for r in ranks})  # p2p: ignored
    # a group whose second operator lacks a rank cannot be compared
    times += _times("half", "hcom_allGather__1", {0: 0.1, 1: 5.0, 2: 5.5, 3: 6.0})
    times += _times("half", "hcom_allGather__2", {0: 0.1, 1: 5.0, 2: 5.5})
    votes = slow_rank.vote(times)
    assert votes.votes == {5: 4}
    assert votes.tested == 5
    assert votes.excluded_groups == ["half"]
    assert {op["name"] for op in votes.ops} == {f"hcom_allReduce__{i}" for i in range(4)}


def test_stage_inference_as_msprof_analyze_makes_it() -> None:
    # PP 2 x DP 2: pipelines [0, 2] and [1, 3]; data-parallel groups [0, 1] and [2, 3]; the world group spans both
    links = [[0, 2], [1, 3]]
    assert stages.stages_from_groups(links, [[0, 1], [2, 3], [0, 1, 2, 3], [0], [3]]) == [[0, 1], [2, 3]]
    # PP 4 x TP 2: one pipeline [0, 2, 4, 6] (and [1, 3, 5, 7]); tensor-parallel pairs are the stages
    links = [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert stages.stages_from_groups(links, [[0, 1], [2, 3], [4, 5], [6, 7]]) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert stages.stages_from_groups([], [[0, 1]]) == []
    assert stages.merge_connected([[0, 1], [2], [1, 3], [4, 2]]) == [{0, 1, 3}, {2, 4}]


def _rank(rank_id: int, computing: float, comm: float, free: float) -> dict[str, float | int]:
    return {"rank_id": rank_id, "computing_us": computing, "communication_not_overlapped_us": comm, "free_us": free}


def test_peer_rule_ignores_phase_splits_within_tolerance() -> None:
    # equal step times, computing 25 % apart: nobody is slow
    ranks = [_rank(0, 400.0, 370.0, 40.0), _rank(1, 400.0, 369.4, 40.0), _rank(2, 500.0, 270.2, 40.0),
             _rank(3, 500.0, 270.0, 40.0)]
    assert cluster_steps.slow_ranks(ranks) == []
    assert not cluster_steps.spread_exceeds([cluster_steps.step_total(r) for r in ranks])


def test_peer_rule_names_the_slow_phase_among_peers() -> None:
    ranks = [_rank(0, 400.0, 265.0, 35.0), _rank(1, 400.0, 265.0, 35.0),   # stage 0: 700 µs
             _rank(2, 500.0, 270.0, 40.0), _rank(3, 662.0, 270.0, 40.0)]   # stage 1: 810 and 972 µs
    by_stage = cluster_steps.slow_ranks(ranks, [[0, 1], [2, 3]])
    median = statistics.median([810.0, 972.0])
    assert [(s["rank_id"], s["phase"]) for s in by_stage] == [(3, "computing")]
    assert by_stage[0]["step_deviation"] == pytest.approx((972 - median) / median, abs=1e-4)
    assert by_stage[0]["deviation"] == pytest.approx((662 - 581) / 581, abs=1e-4)
    # without the stages rank 2 would be called slow too (its stage is slower by design)
    assert [s["rank_id"] for s in cluster_steps.slow_ranks(ranks)] == [2, 3]
