"""The envelope keeps every value's min/max in a fixed number of buckets, whatever the sample dropped."""

from __future__ import annotations

import numpy as np

from mindinsight_clone.store.envelope import Envelope, ScalarStats


def test_spike_survives_in_envelope_and_stats() -> None:
    stats = ScalarStats()
    steps = np.arange(1, 10_001)
    values = np.zeros(10_000)
    values[4321] = 1e6  # one spike
    for chunk in range(0, 10_000, 1000):
        stats.update(steps[chunk:chunk + 1000], values[chunk:chunk + 1000])
    assert stats.count == 10_000 and stats.max == 1e6 and stats.min == 0.0
    assert stats.last_step == 10_000 and stats.last_value == 0.0
    buckets = stats.envelope.buckets()
    assert len(buckets) <= stats.envelope.size
    assert sum(b["count"] for b in buckets) == 10_000
    spike = [b for b in buckets if b["max"] == 1e6]
    assert len(spike) == 1 and spike[0]["step_start"] <= 4322 <= spike[0]["step_end"]


def test_grows_left_for_lower_steps_and_ignores_nan() -> None:
    env = Envelope(size=4)
    env.update(np.array([100, 101]), np.array([1.0, np.nan]))
    env.update(np.array([0]), np.array([-5.0]))
    buckets = env.buckets()
    assert sum(b["count"] for b in buckets) == 3
    assert min(b["min"] for b in buckets if b["min"] is not None) == -5.0
    assert buckets[0]["step_start"] <= 0 and buckets[-1]["step_end"] >= 101


def test_stats_as_dict_sends_null_for_non_finite() -> None:
    stats = ScalarStats()
    stats.update(np.array([1, 2]), np.array([np.nan, np.inf]))
    d = stats.as_dict()
    assert d["nan_count"] == 1 and d["last_value"] is None and d["max"] is None
