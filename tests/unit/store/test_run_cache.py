"""Tag limits, graph replacement and the public RunCache interface."""

from __future__ import annotations

import numpy as np

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest.values import Histogram, SummaryValue, Tensor
from mindinsight_clone.store.run_cache import RunCache


def scalar(tag: str, step: int, value: float = 1.0, source: str = "f") -> SummaryValue:
    return SummaryValue("scalar", tag, step, 1.0 + step, value, source)


def tensor(tag: str, step: int) -> SummaryValue:
    return SummaryValue("tensor", tag, step, 1.0, Tensor((1,), "DT_FLOAT32", np.zeros(1, np.float32)), "f")


def test_tag_limits_match_mindinsight_experiment() -> None:
    """LIMITS.md §2: 305 scalar + 8 tensor tags, 2 steps -> s011..s304 + t2..t7 (with MindInsight's 300)."""
    cache = RunCache("./x", settings_for_tests(max_tags_per_run=300))
    for step in (1, 2):
        values = [scalar(f"s{i:03d}/scalar", step) for i in range(305)]
        values += [tensor(f"t{i}/tensor", step) for i in range(8)]
        cache.add_values(values)
    assert cache.tags("scalar") == [f"s{i:03d}/scalar" for i in range(11, 305)]
    assert cache.tags("tensor") == [f"t{i}/tensor" for i in range(2, 8)]


def test_evicted_tag_never_comes_back_while_at_limit() -> None:
    cache = RunCache("./x", settings_for_tests(max_tags_per_run=2))
    cache.add_values([scalar("a", 1), scalar("b", 1)])
    cache.add_values([scalar("c", 1)])  # evicts a
    cache.add_values([scalar("a", 2)])  # still at the limit: a stays deleted
    assert cache.tags("scalar") == ["b", "c"]
    assert cache.samples("scalar", "a") == []


def test_newer_summary_graph_replaces_older_and_adds_optimized_view() -> None:
    cache = RunCache("./x", settings_for_tests())
    f1, f2 = "events.out.events.summary.1.0.h_MS", "events.out.events.summary.2.0.h_MS"
    cache.add_values([SummaryValue("graph", f1, 0, 1.0, "g1", f1)])
    cache.add_values([SummaryValue("graph", "net.pb", 0, 1.0, "pb", "net.pb")])
    cache.add_values([SummaryValue("graph", f2, 0, 2.0, "g2", f2)])
    assert cache.tags("graph") == sorted([f2, "net.pb"])
    assert cache.tags("optimized_graph") == sorted([f2 + " (optimized)", "net.pb (optimized)"])
    assert cache.samples("graph", f2)[0].value == "g2"


def test_histogram_with_too_many_buckets_is_dropped() -> None:
    cache = RunCache("./x", settings_for_tests())
    n = 91
    h = Histogram(np.arange(n, dtype=float), np.ones(n), np.ones(n), 0.0, float(n), 1.0)
    cache.add_values([SummaryValue("histogram", "w/histogram", 1, 1.0, h, "f")])
    assert cache.tags("histogram") == []


def test_version_grows_and_memo_follows_changes() -> None:
    cache = RunCache("./x", settings_for_tests())
    v0 = cache.version
    cache.add_values([scalar("a", 1)])
    assert cache.version > v0
    first = cache.memo("scalar", "a", "n", len)
    cache.add_values([scalar("a", 2)])
    assert first == 1 and cache.memo("scalar", "a", "n", len) == 2


def test_scalar_stats_cover_values_the_sample_dropped() -> None:
    cache = RunCache("./x", settings_for_tests(scalar_samples=10))
    values = [scalar("a", s, 1000.0 if s == 7 else 0.0) for s in range(1, 501)]
    cache.add_values(values)
    assert len(cache.samples("scalar", "a")) == 10
    stats = cache.scalar_stats("a")
    assert stats is not None and stats["count"] == 500 and stats["max"] == 1000.0
