"""The reservoir keeps exactly MindInsight's steps (LIMITS.md §1), with a fast path that agrees."""

from __future__ import annotations

import random

import pytest

from mindinsight_clone.store.reservoir import Reservoir, Sample, randbelow


def kept(seq: list[int], capacity: int, source: str = "f") -> list[int]:
    res = Reservoir(capacity)
    for s in seq:
        res.add(Sample(s, 0.0, float(s), source))
    return [s.step for s in res.samples]


def mindspore_steps(n: int) -> list[int]:
    """What MindSpore 2.10's SummaryRecord wrote for steps 1..n in corpus/run_basic: 2, 2, 3, ..., n."""
    return [2, *range(2, n + 1)]


def test_randbelow_is_randint() -> None:
    a, b = random.Random(0), random.Random(0)
    assert all(a.randint(0, n) == randbelow(b.getrandbits, n + 1) for n in range(20_000))


def test_image_steps_match_golden_187() -> None:
    assert kept(mindspore_steps(30), 10) == [3, 4, 5, 13, 15, 22, 24, 26, 28, 30]


def test_tensor_steps_match_golden_192() -> None:
    assert kept(mindspore_steps(30), 20) == [2, 4, 5, 6, 7, 8, 9, 10, 12, 13, 15, 17, 19, 20, 23, 24, 25, 26, 27, 30]


def test_scalar_reservoir_shape_matches_golden_185() -> None:
    steps = kept(mindspore_steps(1200), 1000)
    assert len(steps) == 1000 and steps[0] == 2 and steps[-3:] == [1198, 1199, 1200]
    assert steps[:5] == [2, 3, 5, 7, 8]


@pytest.mark.parametrize("capacity", [1, 3, 10, 50])
@pytest.mark.parametrize("n", [0, 1, 5, 49, 50, 51, 500])
def test_fast_paths_agree_with_one_by_one(capacity: int, n: int) -> None:
    batch = [Sample(s, float(s), float(s), "f") for s in range(1, n + 1)]
    slow = Reservoir(capacity)
    for s in batch:
        slow.add(s)
    fast = Reservoir(capacity)
    fast.extend_increasing(batch)
    lazy = Reservoir(capacity)
    lazy.extend_increasing_lazy(n, lambda i: batch[i])
    assert slow.samples == fast.samples == lazy.samples
    assert slow.counter == fast.counter == lazy.counter


def test_newest_step_always_kept() -> None:
    res = Reservoir(5)
    for s in range(1, 1000):
        res.add(Sample(s, 0.0, 0.0, "f"))
        assert res.samples[-1].step == s
    assert len(res) == 5


def test_restart_in_newer_file_drops_stale_later_steps() -> None:
    res = Reservoir(0)
    for s in range(1, 11):
        res.add(Sample(s, 0.0, 1.0, "old"))
    res.add(Sample(5, 0.0, 2.0, "new"))  # training restarted at step 5 in a new file
    assert [s.step for s in res.samples] == [1, 2, 3, 4, 5]
    assert res.samples[-1].value == 2.0 and res.samples[-1].source == "new"


def test_same_step_later_value_replaces_earlier() -> None:
    res = Reservoir(10)
    res.add(Sample(1, 0.0, 1.0, "f"))
    res.add(Sample(2, 0.0, 1.0, "f"))
    res.add(Sample(2, 0.0, 9.0, "f"))
    assert [(s.step, s.value) for s in res.samples] == [(1, 1.0), (2, 9.0)]


def test_out_of_order_step_from_same_file_keeps_later_steps_of_that_file() -> None:
    res = Reservoir(0)
    for s in (1, 2, 5, 6):
        res.add(Sample(s, 0.0, 0.0, "f"))
    res.add(Sample(3, 0.0, 0.0, "f"))
    assert [s.step for s in res.samples] == [1, 2, 3, 5, 6]


def test_purge_scales_counter_like_mindinsight() -> None:
    res = Reservoir(0)
    for s in range(1, 11):
        res.add(Sample(s, 0.0, 0.0, "a"))
    assert res.counter == 10
    res.purge(6, "b")  # keeps 1..5
    assert res.counter == round(10 * 5 / 10)


def test_bulk_draws_leave_the_generator_where_one_by_one_would() -> None:
    """Batches through the fast path, then slow adds, then a restart: same as one by one throughout."""
    rnd = random.Random(7)
    slow, lazy = Reservoir(20), Reservoir(20)
    step = 0
    for _ in range(30):
        n = rnd.randint(0, 60)
        batch = [Sample(step + i + 1, 0.0, float(i), "f") for i in range(n)]
        step += n
        for s in batch:
            slow.add(s)
        lazy.extend_increasing_lazy(n, lambda i, b=batch: b[i])  # type: ignore[misc]
        if rnd.random() < 0.2 and step > 5:  # a restart a few steps back
            back = Sample(step - 3, 0.0, 0.0, "g")
            slow.add(back)
            lazy.add(back)
            step -= 3
        assert slow.samples == lazy.samples and slow.counter == lazy.counter


@pytest.mark.parametrize("capacity", [1, 7, 1000])
def test_vectorised_draws_agree_with_the_draw_loop_on_long_series(capacity: int) -> None:
    """Batches of up to 60,000 rows (a counter crossing many powers of two, the draws vectorised by block) keep the
    same samples, counter and generator state as `extend_increasing`, which draws one by one."""
    rnd = random.Random(capacity)
    loop, rows = Reservoir(capacity), Reservoir(capacity)
    step = 0
    for _ in range(6):
        n = rnd.choice([1, 17, 999, 4_096, 60_000])
        batch = [Sample(step + i + 1, 0.0, float(i), "f") for i in range(n)]
        loop.extend_increasing(batch)
        rows.extend_increasing_rows(n, step)  # row r of the series is step r + 1
        step += n
        assert [~slot + 1 for slot in rows.samples] == [s.step for s in loop.samples]
        assert rows.counter == loop.counter
        assert rows._random().getstate() == loop._random().getstate()
