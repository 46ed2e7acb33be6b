"""The run cache decided by a memory budget (--cache-memory-mb), with --max-cached-runs on top.

The big case is a 1,050-run base dir written by our SummaryWriter: with the default settings every run
is cached; with a small budget only the most recent runs that fit are, and the rest load on demand.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.store import cache_budget
from mindinsight_clone.store.data_manager import DataManager
from mindinsight_clone.store.point_store import ROW
from mindinsight_clone.store.run_cache import ROW_SLOT_BYTES
from mindinsight_clone.summary import SummaryWriter

RUNS = 1050
STEPS = 20


@pytest.fixture(scope="module")
def many_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("many")
    for i in range(RUNS):
        run = base / f"run_{i:04d}"
        with SummaryWriter(run, timestamp=1_700_000_000 + i, host="h") as w:
            for step in range(1, STEPS + 1):
                w.add_scalar("loss", 1.0 / step + i, step)
                w.add_scalar("acc", step / STEPS, step)
        for f in run.iterdir():  # run_1049 is the most recently updated
            os.utime(f, (1_700_000_000 + i, 1_700_000_000 + i))
    return base


def manager(base: Path, **kw: object) -> DataManager:
    return DataManager(settings_for_tests(summary_base_dir=str(base), reload_interval=0, **kw))


def test_choose_within_budget_keeps_the_most_recent_that_fit() -> None:
    sizes = {"a": 50, "b": 40, "c": 30, "d": 10}
    kept, left = cache_budget.choose_within_budget(["a", "b", "c", "d"], sizes.__getitem__, 95)
    assert (kept, left) == (["a", "b"], ["c", "d"])
    kept, left = cache_budget.choose_within_budget(["a", "b", "c", "d"], sizes.__getitem__, 100)
    assert (kept, left) == (["a", "b", "d"], ["c"])  # c does not fit; the smaller, older d still does
    assert cache_budget.choose_within_budget(["a", "b"], sizes.__getitem__, 1)[0] == ["a"]  # first always
    assert cache_budget.choose_within_budget(["a", "b", "c", "d"], sizes.__getitem__, 10**9, 2)[0] == ["a", "b"]


def test_default_settings_cache_a_thousand_runs(many_runs: Path) -> None:
    dm = manager(many_runs)
    dm.reload()
    assert dm.settings.max_cached_runs == 0 and dm.settings.cache_memory_mb == 1024
    assert len(dm.runs()) == RUNS  # max_run_count (10,000) lists them all, MindInsight's 999 would not
    cached = [r.train_id for r in dm.runs() if dm.cache_status(r.train_id) == "CACHED"]
    assert len(cached) == RUNS
    steps = [s.step for s in dm.run_cache("./run_0500").samples("scalar", "loss/scalar")]
    assert steps == list(range(1, STEPS + 1))
    assert 0 < dm.cached_bytes() <= dm.budget_bytes


def test_a_small_budget_keeps_the_most_recent_runs(many_runs: Path, caplog: pytest.LogCaptureFixture) -> None:
    dm = manager(many_runs, cache_memory_mb=1, max_run_count=RUNS)
    with caplog.at_level(logging.INFO, logger="mindinsight_clone.store.data_manager"):
        dm.reload()
    cached = [r.train_id for r in dm.runs() if dm.cache_status(r.train_id) == "CACHED"]
    assert 0 < len(cached) < RUNS
    assert dm.cached_bytes() <= dm.budget_bytes
    # the newest runs are the ones kept: run_1049, run_1048, ...
    assert sorted(cached) == [f"./run_{i:04d}" for i in range(RUNS - len(cached), RUNS)]
    assert any("not kept in memory" in rec.getMessage() for rec in caplog.records)
    # an old run asked for explicitly is loaded, and something else leaves to make room
    dm.cache_runs(["./run_0000"])
    dm.reload()
    assert dm.cache_status("./run_0000") == "CACHED"
    assert dm.cached_bytes() <= dm.budget_bytes
    assert [s.step for s in dm.run_cache("./run_0000").samples("scalar", "acc/scalar")] == list(range(1, STEPS + 1))


def test_max_cached_runs_still_caps_the_count(many_runs: Path) -> None:
    dm = manager(many_runs, max_cached_runs=15)
    dm.reload()
    cached = [r.train_id for r in dm.runs() if dm.cache_status(r.train_id) != "NOT_IN_CACHE"]
    assert len(cached) == 15


def test_runs_left_out_of_the_list_are_counted_and_logged(many_runs: Path,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    dm = manager(many_runs, max_run_count=1000, max_cached_runs=1)
    with caplog.at_level(logging.WARNING, logger="mindinsight_clone.store.data_manager"):
        dm.reload()
    assert len(dm.runs()) == 1000 and dm.runs_found == RUNS
    assert any("50 least recently updated are not listed" in rec.getMessage() for rec in caplog.records)


def test_the_estimate_follows_what_is_kept(tmp_path: Path) -> None:
    """A tag within its sample size keeps only its rows (24 bytes each, in memory); one past it keeps its rows
    and, once read, its sample as row numbers (run_cache.ROW_SLOT_BYTES each), not as Samples."""
    for n, steps in (("small", 10), ("big", 400), ("huge", 1500)):
        with SummaryWriter(tmp_path / n, timestamp=1_700_000_000, host="h") as w:
            for step in range(1, steps + 1):
                w.add_scalar("loss", 0.5, step)
    dm = manager(tmp_path)
    dm.reload()
    small = cache_budget.run_bytes(dm.run_cache("./small"))
    big = cache_budget.run_bytes(dm.run_cache("./big"))
    huge = cache_budget.run_bytes(dm.run_cache("./huge"))
    assert big - small == 390 * ROW.itemsize
    assert huge - small == 1000 * ROW_SLOT_BYTES + (1500 - 10) * ROW.itemsize  # scalar_samples = 1000
    dm.run_cache("./huge").samples("scalar", "loss/scalar")  # settled: the same estimate
    assert cache_budget.run_bytes(dm.run_cache("./huge")) == huge
