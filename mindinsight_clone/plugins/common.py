"""Helpers shared by the data-kind plugins (lookups with MindInsight's error messages)."""

from __future__ import annotations

import math

from mindinsight_clone.errors import MindInsightError
from mindinsight_clone.store.reservoir import Sample
from mindinsight_clone.store.run_cache import RunCache

NO_DATA_FOR_TAG = "Detail: Invalid parameter value. Can not find any data in this train job by given tag."


def tag_samples(cache: RunCache, plugin: str, tag: str, error: type[MindInsightError]) -> list[Sample]:
    """The kept samples of `tag` in `plugin`, or `error` with MindInsight's message.

    A tag of another data kind (e.g. a scalar tag asked for as a histogram) is refused with the same
    "not exist" error (MindInsight answers 500 for some of these; see docs/api.md).
    """
    samples = cache.samples(plugin, tag)
    if samples:
        return samples
    other = cache.plugin_of(tag)
    if other is not None and other != plugin:
        kind = "loss landscape" if plugin == "loss_landscape" else plugin
        raise error(f"Detail: there is no {kind} data in this tag: {tag}")
    raise error(NO_DATA_FOR_TAG)


def calc_histogram_bins(count: int) -> int:
    """MindInsight's `calc_histogram_bins`: how many equal buckets to show for `count` values."""
    number_per_bucket = 10
    max_bins = 30
    if not count:
        return 1
    if count <= 5:
        return 2
    if count <= 10:
        return 3
    if count <= 280:
        # note that math.ceil(281/10) + 1 equals 30
        return math.ceil(count / number_per_bucket) + 1
    return max_bins
