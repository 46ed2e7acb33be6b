"""One run's data in memory: plugin -> tag -> reservoir, with MindInsight's tag limits.

Tag limits (LIMITS.md §2): at most `max_tags_per_run` tags over all plugins, `max_tensor_tags` tensor tags
and `max_graph_tags` graph (and optimized_graph) tags. TensorBoard text tags have their own limit,
`max_text_tags`, and do not count toward `max_tags_per_run` (Megatron writes one per argument, ~400).
When a new tag would break a limit, the oldest-seen tag of that plugin (or overall) is deleted with its
samples and remembered; while the run is at its limit a deleted tag never comes back. A graph read from a
summary file replaces the graphs of older summary files (only one summary-file graph is shown); `.pb` graph
files are tags of their own.

Writers: only the loader (one thread at a time per run). Readers: any request thread; they get copies.
`version` grows on every change; other areas key their derived caches on it.

Scalars with a point store (`point_store.PointStore`, every point on disk): a batch of steps that strictly
increase past the newest stored one is only appended to the store; the tag's reservoir is brought up to
date when somebody reads it (`_settle`: the same seeded draws over the stored rows, so the same sample as
feeding them one by one), which keeps per-point Python work off the loading path. A batch that goes back
in steps settles the reservoir first and is then added the careful way (purge), as without a store.
"""

from __future__ import annotations

import functools
import gc
import itertools
import logging
import re
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np

from mindinsight_clone.config import Settings
from mindinsight_clone.errors import TrainJobNotExistError
from mindinsight_clone.ingest.gc_pause import gc_paused
from mindinsight_clone.ingest.values import ALL_PLUGIN_NAMES, SAMPLES_PER_TAG, SummaryValue
from mindinsight_clone.store.envelope import ScalarStats
from mindinsight_clone.store.point_store import ROW, PointStore, ScalarSeries, StoreFailure, Window
from mindinsight_clone.store.reservoir import Reservoir, Sample, is_row_slot, slot_row

T = TypeVar("T")
log = logging.getLogger(__name__)

GRAPH_PLUGINS = ("graph", "optimized_graph")
OPTIMIZED_SUFFIX = " (optimized)"
_SUMMARY_FILE = re.compile(r"summary\.\d+")
_PINNED_GRAPH_TAGS = frozenset({"ms_output_optimize.pb", "ms_output_optimize.pb (optimized)"})
MAX_DELETED_TAGS_FACTOR = 100
MAX_ORIGINAL_HISTOGRAM_BUCKETS = 90  # MindInsight: deleted-tags set capacity = 100 x tag limit
OWN_LIMIT_PLUGINS = ("text",)  # limited by their own setting only, not counted in max_tags_per_run
ROW_SLOT_BYTES = 40  # a kept scalar sample held as its stored row (list slot + int: 36 bytes, rounded up)


def reservoir_sizes(settings: Settings) -> dict[str, int]:
    """Samples kept per tag, by plugin (0 = all), from ingest.values.SAMPLES_PER_TAG."""
    return {kind: getattr(settings, size) if isinstance(size, str) else size for kind, size in SAMPLES_PER_TAG.items()}


def is_summary_graph_tag(tag: str) -> bool:
    return bool(_SUMMARY_FILE.search(tag)) and not tag.endswith("_lineage")


class RunCache:
    """Samples of one run. Thread-safe: one writer lock, readers get snapshots."""

    def __init__(self, train_id: str, settings: Settings, points: PointStore | None = None) -> None:
        self.train_id = train_id
        self.points = points if points is not None else PointStore(None)
        self._fed: dict[str, int] = {}  # scalar tag -> stored rows already fed to its reservoir
        self._sizes = reservoir_sizes(settings)
        self._max_tags = settings.max_tags_per_run
        self._max_per_plugin = {
            "tensor": settings.max_tensor_tags,
            "graph": settings.max_graph_tags,
            "optimized_graph": settings.max_graph_tags,
            "text": settings.max_text_tags,
        }
        self._lock = threading.RLock()
        self._tags: dict[str, str] = {}  # tag -> plugin, in first-seen order (dicts keep order)
        self._tags_by_plugin: dict[str, dict[str, None]] = {p: {} for p in ALL_PLUGIN_NAMES}
        self._reservoirs: dict[tuple[str, str], Reservoir] = {}
        self._deleted: set[str] = set()
        self._scalar_stats: dict[str, ScalarStats] = {}
        # stored rows of each scalar tag already counted in its stats: the rows an in-order batch appends to the
        # point store are counted when the stats are first asked for (`_fold_stats`), not while loading
        self._stats_rows: dict[str, int] = {}
        self._memo: dict[tuple[str, str, Any], tuple[int, Any]] = {}
        self.version = 0
        self.dropped_tags = 0  # tags evicted by the tag limits so far (each counted when it goes)
        self._closed = False  # the run left the cache: its point store is gone, requests holding it are told so

    # ---------------------------------------------------------------- reading
    def tags(self, plugin: str) -> list[str]:
        with self._lock:
            return sorted(self._tags_by_plugin.get(plugin, ()))

    def tag_count(self) -> int:
        with self._lock:
            return len(self._tags)

    def stats_count(self) -> int:
        """Scalar tags whose exact stats (with their envelope) are held (for the memory estimate)."""
        with self._lock:
            return len(self._scalar_stats)

    def all_tags(self) -> dict[str, list[str]]:
        with self._lock:
            return {p: sorted(tags) for p, tags in self._tags_by_plugin.items()}

    def has_tag(self, plugin: str, tag: str) -> bool:
        with self._lock:
            return (plugin, tag) in self._reservoirs

    def plugin_of(self, tag: str) -> str | None:
        with self._lock:
            return self._tags.get(tag)

    def samples(self, plugin: str, tag: str) -> list[Sample]:
        """Kept samples in ascending step order; [] if the tag is unknown for this plugin."""
        with self._lock:
            whole = self._whole_series(plugin, tag)
            if whole is not None:
                return _series_samples(whole)
            self._settle(plugin, tag)
            res = self._reservoirs.get((plugin, tag))
            return self._kept(tag, res) if res is not None else []

    def has_samples(self, plugin: str, tag: str) -> bool:
        """`samples(plugin, tag)` would not be empty (without making them)."""
        with self._lock:
            whole = self._whole_series(plugin, tag)
            if whole is not None:
                return whole.count > 0
            self._settle(plugin, tag)
            res = self._reservoirs.get((plugin, tag))
            return bool(res is not None and res.samples)

    def scalar_stats(self, tag: str) -> dict[str, Any] | None:
        with self._lock:
            self._fold_stats(tag)
            stats = self._scalar_stats.get(tag)
            if stats is None:
                return None
            out = stats.as_dict()
            out["envelope"] = stats.envelope.buckets()
            return out

    def memo(self, plugin: str, tag: str, key: Any, compute: Callable[[list[Sample]], T],
             from_rows: Callable[[np.ndarray], T] | None = None) -> T:
        """`compute(samples)` cached until that tag's reservoir changes (for derived views). A scalar tag
        whose sample is its whole series (see `_whole_series`) is computed each time and not cached:
        with thousands of short runs the cached views would cost more memory than the points. For such a
        tag, `from_rows` (the same view made from the stored rows, point_store.ROW) skips making Samples."""
        with self._lock:
            self._check_open()
            whole = self._whole_series(plugin, tag)
            if whole is not None:
                self._memo.pop((plugin, tag, key), None)
                if from_rows is not None:
                    rows = whole.rows(0, whole.count)
                else:
                    samples = _series_samples(whole)
        if whole is not None:
            return from_rows(rows) if from_rows is not None else compute(samples)
        with self._lock:
            res = self._reservoirs.get((plugin, tag))
            stamp = res.mutations if res is not None else -1
            hit = self._memo.get((plugin, tag, key))
            if hit is None or hit[0] != stamp:
                self._settle(plugin, tag)
                stamp = res.mutations if res is not None else -1
            if hit is not None and hit[0] == stamp:
                return hit[1]  # type: ignore[no-any-return]
            samples = self._kept(tag, res) if res is not None else []
        value = compute(samples)
        with self._lock:
            self._memo[(plugin, tag, key)] = (stamp, value)
        return value

    def scalar_window(self, tag: str, start_step: int | None, end_step: int | None,
                      points: int) -> Window | None:
        """Every stored point of scalar `tag` in the step window, M4-reduced to at most `points`;
        None when the tag has no full-resolution series (no store, or a write failed)."""
        with self._lock:
            if ("scalar", tag) not in self._reservoirs:
                return None
            series = self.points.get(tag)
        if series is None or series.broken:
            return None
        return series.window(start_step, end_step, points)

    def point_failure(self, tag: str) -> StoreFailure | None:
        """Why scalar `tag` has no full-resolution series (a failed write, no store directory), if it failed."""
        series = self.points.get(tag)
        if series is not None and series.failure is not None:
            return series.failure
        return self.points.failure

    def failed_point_bytes(self) -> int:
        """Bytes the point store would need to hold every point of the scalar tags whose series failed
        (0: nothing failed); the loader probes for that much before reading the run again."""
        with self._lock:
            tags = list(self._scalar_stats) if self.points.failure is not None else list(self.points.failures())
            for tag in tags:
                self._fold_stats(tag)
            return sum(self._scalar_stats[t].count if t in self._scalar_stats else 1 for t in tags) * ROW.itemsize

    def close(self) -> None:
        """Delete this run's point store (the run left the cache or was reset). A request still holding this
        cache then gets `RunNotCached` (a 4xx, as it would a moment later) where it needed the stored rows."""
        with self._lock:
            self._closed = True
            self.points.close()

    def _check_open(self) -> None:
        if self._closed:
            raise RunNotCached

    def _whole_series(self, plugin: str, tag: str) -> ScalarSeries | None:
        """The point-store series of scalar `tag` when its sample is simply every stored row: the series holds
        at most the reservoir's capacity, every row came in step order and none was fed to the reservoir yet.
        Such a tag keeps no Sample objects (1,000 runs x 4 tags x 500 steps would be 2 million); its
        samples are made from the rows when asked. Caller holds the lock."""
        if plugin != "scalar":
            return None
        res = self._reservoirs.get(("scalar", tag))
        if res is None or res.samples or res.counter or not res.capacity or self._fed.get(tag, 0):
            return None
        series = self.points.get(tag)
        if series is None or series.broken or series.count > res.capacity:
            return None
        return series

    def _settle(self, plugin: str, tag: str) -> None:
        """Feed the reservoir of scalar `tag` the stored rows it has not seen (caller holds the lock). The draws
        need no row's content: the survivors are kept as row slots (see `_kept`)."""
        if plugin != "scalar":
            return
        series = self.points.get(tag)
        res = self._reservoirs.get(("scalar", tag))
        if series is None or res is None:
            return
        fed = self._fed.get(tag, 0)
        if fed < series.count:
            res.extend_increasing_rows(series.count - fed, fed)
            self._fed[tag] = series.count

    def _kept(self, tag: str, res: Reservoir) -> list[Sample]:
        """The kept samples of `tag`'s reservoir as Samples (a copy): row slots are made from the stored rows
        (caller holds the lock). A scalar sample fed from the point store is kept as its row number (36 bytes)
        instead of a Sample (176 bytes): 240,000 kept samples of 12 runs x 20 tags cost 9 MB, not 42 MB."""
        slots: list[Any] = res.samples
        rows = [slot_row(x) for x in slots if is_row_slot(x)]
        if not rows:
            return list(slots)
        self._check_open()
        series = self.points.get(tag)
        assert series is not None, "row slots without their series"
        made = iter(_take_samples(series, rows))
        return [next(made) if is_row_slot(x) else x for x in slots]

    def _materialize(self, tag: str, res: Reservoir) -> None:
        """Turn row slots into Samples before the careful path compares, purges or truncates the series."""
        if any(is_row_slot(x) for x in res.samples):
            res.samples = self._kept(tag, res)

    # ---------------------------------------------------------------- writing
    def add_values(self, values: Iterable[SummaryValue]) -> None:
        """Add parsed values in file order.

        Scalars are admitted (tag limits, in first-seen order) as they come, but their samples are
        grouped per tag and added in one batch at the end (fast path); other kinds are added at once.
        A scalar tag evicted later in the same batch loses its pending samples, as it would one by one.
        """
        with self._lock:
            # tag -> its values; holds no reservoir, so a tag evicted later in the batch costs nothing more
            pending: dict[str, list[SummaryValue]] = {}
            for sv in values:
                if sv.plugin == "scalar":
                    entry = pending.get(sv.tag)
                    if entry is None:
                        if not self._admit_tag("scalar", sv.tag):
                            continue
                        entry = pending[sv.tag] = []
                    entry.append(sv)
                else:
                    self._add_one(sv)
            for tag, svs in pending.items():
                res = self._reservoirs.get(("scalar", tag))
                if res is not None:  # still admitted
                    self._add_scalar_batch(tag, res, svs)
            self.version += 1

    def _admit_tag(self, plugin: str, tag: str) -> bool:
        """Register `tag` if new, evicting per MindInsight; False if it must be dropped."""
        if tag in self._tags:
            return True
        victim = self._victim(plugin)
        if victim is not None:
            if tag in self._deleted:
                return False
            self._delete_tag(victim)
            self.dropped_tags += 1
        self._tags[tag] = plugin
        self._tags_by_plugin.setdefault(plugin, {})[tag] = None
        self._reservoirs[(plugin, tag)] = Reservoir(self._sizes.get(plugin, 0))
        return True

    def _victim(self, plugin: str) -> str | None:
        limit = self._max_per_plugin.get(plugin)
        by_plugin = self._tags_by_plugin.get(plugin, {})
        if limit is not None and len(by_plugin) >= limit:
            for tag in by_plugin:
                if tag not in _PINNED_GRAPH_TAGS:
                    return tag
        if plugin in OWN_LIMIT_PLUGINS:
            return None
        own = sum(len(self._tags_by_plugin[p]) for p in OWN_LIMIT_PLUGINS)
        if len(self._tags) - own >= self._max_tags:
            for tag, tag_plugin in self._tags.items():
                if tag not in _PINNED_GRAPH_TAGS and tag_plugin not in OWN_LIMIT_PLUGINS:
                    return tag
        return None

    def _delete_tag(self, tag: str) -> None:
        if len(self._deleted) < self._max_tags * MAX_DELETED_TAGS_FACTOR:
            self._deleted.add(tag)
        plugin = self._tags.pop(tag, None)
        if plugin is None:
            return
        self._tags_by_plugin.get(plugin, {}).pop(tag, None)
        self._reservoirs.pop((plugin, tag), None)
        self._scalar_stats.pop(tag, None)
        self._stats_rows.pop(tag, None)
        if plugin == "scalar":
            self._fed.pop(tag, None)
            self.points.drop(tag)

    def _add_one(self, sv: SummaryValue) -> None:
        if sv.plugin == "histogram" and len(sv.value.left) > MAX_ORIGINAL_HISTOGRAM_BUCKETS:
            return  # MindInsight drops such steps (re-binning them is too slow)
        if sv.plugin in GRAPH_PLUGINS and is_summary_graph_tag(sv.tag):
            # a summary file's graph replaces the graphs of older summary files
            for old in [t for t in self._tags_by_plugin.get(sv.plugin, {}) if is_summary_graph_tag(t)]:
                self._delete_tag(old)
        if self._admit_tag(sv.plugin, sv.tag):
            self._reservoirs[(sv.plugin, sv.tag)].add(Sample(sv.step, sv.wall_time, sv.value, sv.source_file))
        if sv.plugin == "graph":
            # one graph gives two views: as recorded, and optimized (MindInsight's optimized_graph)
            self._add_one(SummaryValue("optimized_graph", sv.tag + OPTIMIZED_SUFFIX, sv.step, sv.wall_time,
                                       sv.value, sv.source_file))

    def add_parsed(self, batch: Any) -> None:
        """Add an `event_parser.ParsedColumns` (one file's values, scalars as columns); same result as
        `add_values` on the same values in file order."""
        gc_was_enabled = gc.isenabled()
        gc.disable()  # hundreds of thousands of cycle-free Samples: generational passes would dominate
        try:
            self._add_parsed(batch)
        finally:
            if gc_was_enabled:
                gc.enable()

    def _add_parsed(self, batch: Any) -> None:
        with self._lock:
            pending: dict[str, int] = {}  # tag -> first sample in its column (no reservoir held: see add_values)
            for item in batch.items:
                if type(item) is tuple:
                    tag, start = item
                    if tag in pending or not self._admit_tag("scalar", tag):
                        continue
                    pending[tag] = start
                else:
                    self._add_one(item)
            cols = batch.scalars
            arrays = getattr(batch, "arrays", None) or {}  # numpy columns (ingest.scalar_batch)
            for tag, start in pending.items():
                res = self._reservoirs.get(("scalar", tag))
                if res is None:  # evicted later in the batch
                    continue
                if tag in arrays:
                    steps, walls, vals = arrays[tag]
                    self._add_scalar_arrays(tag, res, steps[start:], walls[start:], vals[start:],
                                            batch.source_file)
                else:
                    col = cols[tag]
                    i = 3 * start
                    self._add_scalar_columns(tag, res, col[i::3], col[i + 1::3], col[i + 2::3],
                                             batch.source_file)
            self.version += 1

    def _add_scalar_batch(self, tag: str, res: Reservoir, svs: list[SummaryValue]) -> None:
        if not svs:
            return
        sources = [sv.source_file for sv in svs]
        self._add_scalar_columns(tag, res, [sv.step for sv in svs], [sv.wall_time for sv in svs],
                                 [sv.value for sv in svs], sources[0],
                                 None if sources.count(sources[0]) == len(sources) else sources)

    def _add_scalar_arrays(self, tag: str, res: Reservoir, steps: np.ndarray, walls: np.ndarray,
                           values: np.ndarray, source: str) -> None:
        """Columns as numpy arrays (the vectorised decoder's output)."""
        if not steps.size:
            return
        if not self._store_increasing(tag, res, steps, walls, values, source):
            self._add_scalar_columns(tag, res, steps.tolist(), walls.tolist(), values.tolist(), source)
        # else: stored in order; its stats are counted from the rows when first asked for (`_fold_stats`)

    def _store_increasing(self, tag: str, res: Reservoir, steps: np.ndarray, walls: np.ndarray,
                          values: np.ndarray, source: str) -> bool:
        """Append a strictly increasing batch past the stored steps to the point store only (the
        reservoir settles when read); False if the careful path must take it."""
        series = self.points.series(tag)
        if series is None or series.broken:
            return False
        last = series.last_step
        newest = res.samples[-1] if res.samples else None
        if newest is not None and not is_row_slot(newest) and (last is None or newest.step > last):
            last = newest.step  # a purge kept higher steps of the same file (MindInsight's rule)
        if last is not None and int(steps[0]) <= last:
            return False
        if steps.size > 1 and not bool(np.all(steps[1:] > steps[:-1])):
            return False
        try:
            series.append(steps, walls, values, source)
        except OSError as exc:
            log.warning("run %s tag %s: point store write failed (%s); full-resolution windows of this tag "
                        "are no longer served, the sample is", self.train_id, tag, exc)
            self._settle("scalar", tag)
            return False
        res.mutations += 1
        return True

    def _update_stats(self, tag: str, steps: np.ndarray, values: np.ndarray) -> None:
        """Count values in the stats directly (the careful path; `_fold_stats` ran before it touched the rows)."""
        stats = self._scalar_stats.get(tag)
        if stats is None:
            stats = self._scalar_stats[tag] = ScalarStats()
        stats.update(steps, values)

    def _fold_stats(self, tag: str) -> None:
        """Count the stored rows of `tag` not counted in its stats yet (caller holds the lock)."""
        series = self.points.get(tag)
        done = self._stats_rows.get(tag, 0)
        if series is None or done >= series.count:
            return
        stats = self._scalar_stats.get(tag)
        if stats is None:
            stats = self._scalar_stats[tag] = ScalarStats()
        try:
            for start in range(done, series.count, FOLD_ROWS):
                rows = series.rows(start, min(start + FOLD_ROWS, series.count))
                stats.update(rows["step"], rows["value"])
        except (OSError, ValueError) as exc:  # the rows cannot be read back (file gone or cut): keep what they had
            log.warning("run %s tag %s: stored rows %d-%d unreadable, not counted in its stats (%s)", self.train_id,
                        tag, done, series.count, exc)
        self._stats_rows[tag] = series.count

    def _add_scalar_columns(self, tag: str, res: Reservoir, step_list: list[int], walls: list[float],
                            vals: list[float], source: str, sources: list[str] | None = None) -> None:
        n = len(step_list)
        if not n:
            return
        steps = np.array(step_list, dtype=np.int64)
        values = np.array(vals, dtype=np.float64)
        if sources is None and self._store_increasing(tag, res, steps, np.array(walls, dtype=np.float64),
                                                      values, source):
            return  # counted in the stats from the rows when first asked for
        self._fold_stats(tag)  # before the rows change: a restart truncates them
        self._settle("scalar", tag)
        self._materialize(tag, res)
        series = self.points.get(tag)
        if series is not None and not series.broken:
            try:  # the store follows the files: a restart truncates, then these points are appended
                for seg_steps, seg_walls, seg_vals in _increasing_segments(steps, np.array(walls), values):
                    series.append(seg_steps, seg_walls, seg_vals, source)
            except OSError as exc:
                log.warning("run %s tag %s: point store write failed (%s); full-resolution windows of this "
                            "tag are no longer served, the sample is", self.train_id, tag, exc)
        last = res.last_step
        if (last is None or step_list[0] > last) and (n == 1 or bool(np.all(steps[1:] > steps[:-1]))):
            new = tuple.__new__
            if sources is None:
                def make(i: int) -> Sample:
                    return new(Sample, (step_list[i], walls[i], vals[i], source))
            else:
                def make(i: int) -> Sample:
                    return new(Sample, (step_list[i], walls[i], vals[i], sources[i]))

            res.extend_increasing_lazy(n, make)
        else:
            for i in range(n):
                res.add(Sample(step_list[i], walls[i], vals[i], sources[i] if sources is not None else source))
        if series is not None:
            self._fed[tag] = series.count
            self._stats_rows[tag] = series.count  # the rows stored now are the values counted next
        self._update_stats(tag, steps, values)

    # ---------------------------------------------------------------- memory budget (store/cache_budget.py)
    def memory_estimate(self, cost: Callable[[str, Sample], int]) -> int:
        """Sum over tags of `cost(plugin, newest sample) x samples kept`: the run's estimated size.

        A scalar reservoir is fed lazily from the point store (`_settle`), so it counts the samples it
        will hold once settled: its kept samples plus the stored rows it has not seen, up to its capacity.
        A tag whose sample is its whole series (`_whole_series`) keeps no samples: it counts its rows
        while they are in memory (24 bytes each), nothing once they are in their file."""
        total = 0
        with self._lock:
            for (plugin, tag), res in self._reservoirs.items():
                whole = self._whole_series(plugin, tag)
                if whole is not None:
                    total += 0 if whole.on_disk else whole.count * ROW.itemsize
                    continue
                kept = len(res.samples)
                newest = res.samples[-1] if res.samples else _SCALAR_PROXY
                if plugin == "scalar":
                    series = self.points.get(tag)
                    unfed = series.count - self._fed.get(tag, 0) if series is not None else 0
                    kept = min(res.capacity or kept + unfed, kept + max(unfed, 0))
                    if series is not None and not series.broken and (not res.samples or is_row_slot(newest)):
                        # settles into row slots (`_kept`) over the series' rows (in memory while short)
                        total += ROW_SLOT_BYTES * kept + (0 if series.on_disk else series.count * ROW.itemsize)
                        continue
                if kept:
                    total += cost(plugin, newest) * kept
        return total


_SCALAR_PROXY = Sample(0, 0.0, 0.0, "")  # stands in for a scalar reservoir's samples before it settles



_make_sample = functools.partial(tuple.__new__, Sample)  # Sample from a 4-tuple, mapped: ~2x a comprehension


def _take_samples(series: ScalarSeries, rows: list[int]) -> list[Sample]:
    """Stored rows `rows` (ascending) of `series` as Samples."""
    taken = series.take(np.array(rows, dtype=np.int64))
    steps, walls, values = taken["step"].tolist(), taken["wall_time"].tolist(), taken["value"].tolist()
    with gc_paused():
        return list(map(_make_sample, zip(steps, walls, values, map(series.source_of, rows), strict=True)))


def _series_samples(series: ScalarSeries) -> list[Sample]:
    """Every stored row of `series` as Samples (a short series: at most a reservoir's capacity)."""
    rows = series.rows(0, series.count)
    steps, walls, values = rows["step"].tolist(), rows["wall_time"].tolist(), rows["value"].tolist()
    n = len(steps)
    bounds = [(first, source) for first, source in series.segments() if first < n]
    if len(bounds) == 1 and bounds[0][0] == 0:  # the common case: one file
        sources: Iterable[str] = itertools.repeat(bounds[0][1], n)
    else:
        listed: list[str] = []
        for j, (first, source) in enumerate(bounds):
            listed.extend([source] * ((bounds[j + 1][0] if j + 1 < len(bounds) else n) - first))
        listed.extend([""] * (n - len(listed)))
        sources = listed
    with gc_paused():
        return list(map(_make_sample, zip(steps, walls, values, sources, strict=False)))  # repeat() is endless


def _increasing_segments(steps: np.ndarray, walls: np.ndarray,
                         values: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Split at every step that is not above its predecessor (each segment then appends in order)."""
    cuts = (np.flatnonzero(steps[1:] <= steps[:-1]) + 1).tolist()
    bounds = [0, *cuts, int(steps.size)]
    return [(steps[a:b], walls[a:b], values[a:b]) for a, b in itertools.pairwise(bounds)]


FOLD_ROWS = 1 << 20  # rows read back at a time to count them in a tag's stats


class RunNotCached(TrainJobNotExistError):
    def __init__(self) -> None:
        super().__init__("Can not find the given train job in cache.")
