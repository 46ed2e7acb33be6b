"""Full-resolution point store, M4 windows against a brute-force reference, and the deferred reservoir."""

from __future__ import annotations

import errno
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest.values import SummaryValue
from mindinsight_clone.store.downsample import m4_indices
from mindinsight_clone.store.point_store import ROW, SPILL_ROWS, PointRoot, PointStore
from mindinsight_clone.store.run_cache import RunCache, RunNotCached


def brute_m4(steps: list[int], values: list[float], points: int) -> list[int]:
    """The definition, one point at a time: per equal-step bucket its first, last, min and max point."""
    n = len(steps)
    if n <= points:
        return list(range(n))
    buckets = max(points // 4, 1)
    span = steps[-1] - steps[0] + 1
    chosen: set[int] = set()
    groups: dict[int, list[int]] = {}
    for i, s in enumerate(steps):
        groups.setdefault((s - steps[0]) * buckets // span, []).append(i)
    for members in groups.values():
        chosen.update((members[0], members[-1]))
        real = [i for i in members if not math.isnan(values[i])]
        if real:
            chosen.add(min(real, key=lambda i: (values[i], i)))
            chosen.add(max(real, key=lambda i: (values[i], -i)))
    return sorted(chosen)


def spiky(n: int, seed: int = 0, start: int = 1, gaps: bool = True) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    steps = np.arange(start, start + n, dtype=np.int64)
    if gaps:  # irregular step spacing
        steps = np.cumsum(rng.integers(1, 4, size=n)) + start
    values = np.sin(np.arange(n) / 50.0) + 0.01 * rng.standard_normal(n)
    for i in rng.choice(n, size=8, replace=False):
        values[i] = rng.choice([-1, 1]) * rng.uniform(50, 100)  # planted one-step spikes
    values[n // 3] = np.nan
    values[n // 2] = np.inf
    return steps, values


@pytest.mark.parametrize(("n", "points"), [(10, 100), (100, 100), (101, 100), (5000, 400), (5000, 4), (5000, 7),
                                           (20000, 1000)])
def test_m4_matches_brute_force(n: int, points: int) -> None:
    steps, values = spiky(n, seed=n + points)
    got = m4_indices(steps, values, points).tolist()
    assert got == brute_m4(steps.tolist(), values.tolist(), points)
    assert len(got) <= max(points, 4)


def test_m4_keeps_every_planted_spike() -> None:
    steps, values = spiky(50_000, seed=3)
    keep = m4_indices(steps, values, 200)
    spikes = np.flatnonzero(np.abs(values) > 10)
    assert set(spikes.tolist()) <= set(keep.tolist())


def test_window_is_exact_small_and_reduced_large(tmp_path: Path) -> None:
    store = PointStore(tmp_path)
    series = store.series("loss/scalar")
    assert series is not None
    steps, values = spiky(30_000, seed=5)
    walls = 1e9 + steps.astype(float)
    for a in range(0, steps.size, 7000):  # appended in batches
        series.append(steps[a:a + 7000], walls[a:a + 7000], values[a:a + 7000], "f")
    lo, hi = int(steps[1000]), int(steps[1040])
    small = series.window(lo, hi, 100)
    assert small.total == 41 and small.steps.tolist() == steps[1000:1041].tolist()
    assert small.values.tolist() == values[1000:1041].tolist()
    big = series.window(None, None, 400)
    ref = brute_m4(steps.tolist(), values.tolist(), 400)
    assert big.total == steps.size and big.steps.tolist() == steps[ref].tolist()
    assert np.array_equal(big.values, values[ref], equal_nan=True)
    assert big.wall_times.tolist() == walls[ref].tolist()
    assert series.window(int(steps[-1]) + 1, None, 100).total == 0


def test_restart_truncates_the_series(tmp_path: Path) -> None:
    series = PointStore(tmp_path).series("t")
    assert series is not None
    series.append(np.arange(1, 11), np.zeros(10), np.arange(1, 11, dtype=float), "a")
    series.append(np.array([6, 7]), np.zeros(2), np.array([60.0, 70.0]), "b")
    w = series.window(None, None, 100)
    assert w.steps.tolist() == [1, 2, 3, 4, 5, 6, 7] and w.values.tolist()[-2:] == [60.0, 70.0]
    assert series.source_of(0) == "a" and series.source_of(6) == "b"


def _values(tag: str, steps: range | list[int], source: str, offset: float = 0.0) -> list[SummaryValue]:
    return [SummaryValue("scalar", tag, s, 1e9 + s, float(np.sin(s)) + offset, source) for s in steps]


def test_deferred_reservoir_equals_the_eager_one(tmp_path: Path) -> None:
    """With a store the reservoir is fed when read; the sample must be the same as without one."""
    settings = settings_for_tests(scalar_samples=50)
    root = PointRoot(tmp_path)
    with_store = RunCache("./r", settings, root.run_store("./r"))
    without = RunCache("./r", settings)
    batches = [
        _values("a/scalar", range(1, 400), "f1"),
        _values("a/scalar", range(400, 900), "f1"),
        _values("a/scalar", range(300, 700), "f2", offset=5.0),  # a restart (purge)
        _values("a/scalar", range(700, 3000, 3), "f2"),
    ]
    for batch in batches:
        with_store.add_values(batch)
        without.add_values(batch)
        assert with_store.samples("scalar", "a/scalar") == without.samples("scalar", "a/scalar")
    # and when the reads come only at the end
    used_before = root.budget.used
    late = RunCache("./r", settings, root.run_store("./r2"))
    for batch in batches:
        late.add_values(batch)
    assert late.samples("scalar", "a/scalar") == without.samples("scalar", "a/scalar")
    window = late.scalar_window("a/scalar", None, None, 100_000)
    assert window is not None and window.steps.tolist() == [*range(1, 700), *range(700, 3000, 3)]
    assert window.values[300:305].tolist() == [float(np.sin(s)) + 5.0 for s in range(301, 306)]
    series = late.points.get("a/scalar")
    assert series is not None and series.count == 699 + len(range(700, 3000, 3))
    late.close()
    assert series.count == 0 and not series.path.exists()
    assert root.budget.used == used_before  # `late`'s in-memory rows were given back


def test_a_settled_sample_is_kept_as_row_numbers(tmp_path: Path) -> None:
    """A reservoir fed from the store keeps its survivors as row numbers (ints, not Samples: a quarter of the
    memory), in memory and on disk alike; answers equal the eager reservoir's, also after a restart that
    truncates rows the sample pointed at."""
    settings = settings_for_tests(scalar_samples=100)
    root = PointRoot(tmp_path)
    for steps in (2_000, 10_000):  # rows in memory, rows in the series' file (past SPILL_ROWS)
        with_store = RunCache("./r", settings, root.run_store(f"./r{steps}"))
        without = RunCache("./r", settings)
        first = _values("a/scalar", range(1, steps + 1), "f1")
        with_store.add_values(first)
        without.add_values(first)
        assert with_store.samples("scalar", "a/scalar") == without.samples("scalar", "a/scalar")
        kept = with_store._reservoirs[("scalar", "a/scalar")].samples
        assert len(kept) == 100 and all(type(x) is int for x in kept)
        assert with_store.points.get("a/scalar").on_disk == (steps > 8192)  # type: ignore[union-attr]
        restart = _values("a/scalar", range(steps // 2, steps // 2 + 50), "f2", offset=3.0)
        with_store.add_values(restart)
        without.add_values(restart)
        assert with_store.samples("scalar", "a/scalar") == without.samples("scalar", "a/scalar")
        assert with_store.memo("scalar", "a/scalar", "k", len) == len(without.samples("scalar", "a/scalar"))
        with_store.close()


def test_a_request_holding_a_closed_cache_is_told_the_run_left(tmp_path: Path) -> None:
    """The run left the cache (its dir removed, or a reset) while a request still held its RunCache: the request
    gets RunNotCached (a 4xx), not an internal error from row slots whose series was deleted."""
    settings = settings_for_tests(scalar_samples=100)
    root = PointRoot(tmp_path)
    cache = RunCache("./r", settings, root.run_store("./r"))
    cache.add_values(_values("long/scalar", range(1, 2_001), "f1"))  # sampled: kept as row slots once read
    cache.add_values(_values("short/scalar", range(1, 51), "f1"))  # whole series: answered from its rows
    assert len(cache.memo("scalar", "long/scalar", "k", list)) == 100
    cache.close()
    for tag in ("long/scalar", "short/scalar"):
        with pytest.raises(RunNotCached):
            cache.memo("scalar", tag, "k2", list)
        with pytest.raises(RunNotCached):
            cache.memo("scalar", tag, "k3", list, from_rows=len)
    with pytest.raises(RunNotCached):
        cache.samples("scalar", "long/scalar")


def test_short_series_keep_no_samples_and_answer_like_the_reservoir(tmp_path: Path) -> None:
    """While a tag has at most `scalar_samples` points in order, its sample is its series: no Sample objects
    are kept, and every answer (samples, memo) equals the reservoir's, also once it grows past the capacity
    or restarts."""
    settings = settings_for_tests(scalar_samples=300)
    root = PointRoot(tmp_path)
    lazy = RunCache("./r", settings, root.run_store("./r"))
    eager = RunCache("./r", settings)
    batches = [
        _values("a/scalar", range(1, 120), "f1"),
        _values("a/scalar", range(120, 250), "f1"),
        _values("a/scalar", range(250, 900), "f1"),  # past the capacity: sampled from now on
        _values("a/scalar", range(500, 700), "f2", offset=5.0),  # a restart (purge)
    ]
    for i, batch in enumerate(batches):
        lazy.add_values(batch)
        eager.add_values(batch)
        assert lazy.samples("scalar", "a/scalar") == eager.samples("scalar", "a/scalar")
        assert lazy.memo("scalar", "a/scalar", "n", len) == len(eager.samples("scalar", "a/scalar"))
        kept = lazy._reservoirs[("scalar", "a/scalar")].samples
        assert (len(kept) == 0) == (i < 2)  # short: nothing kept besides the rows
    # a restart while still short takes the careful path and stays equal
    short = RunCache("./s", settings, root.run_store("./s"))
    short_eager = RunCache("./s", settings)
    for batch in (_values("b/scalar", range(1, 50), "f1"), _values("b/scalar", range(20, 60), "f2", offset=1.0)):
        short.add_values(batch)
        short_eager.add_values(batch)
    assert short.samples("scalar", "b/scalar") == short_eager.samples("scalar", "b/scalar")
    # two files in order (no restart): each sample still names its own file
    for batch in (_values("c/scalar", range(1, 30), "f1"), _values("c/scalar", range(30, 60), "f2")):
        short.add_values(batch)
        short_eager.add_values(batch)
    assert short.samples("scalar", "c/scalar") == short_eager.samples("scalar", "c/scalar")
    assert {s.source for s in short.samples("scalar", "c/scalar")} == {"f1", "f2"}
    assert short.has_samples("scalar", "c/scalar") and not short.has_samples("scalar", "nope/scalar")
    for cache in (lazy, short):
        cache.close()


def test_scalar_metadata_of_a_short_series_is_made_from_its_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    """A short series answers `scalar/metadata` from its stored rows (no Sample per row): the same JSON as the
    reservoir's answer, NaN and infinities (null) included, before and after it outgrows the capacity."""
    from mindinsight_clone.plugins import scalars
    from mindinsight_clone.store import run_cache

    settings = settings_for_tests(scalar_samples=300)
    root = PointRoot(tmp_path)
    lazy = RunCache("./r", settings, root.run_store("./r"))
    eager = RunCache("./r", settings)
    odd = [SummaryValue("scalar", "a/scalar", s, 1e9 + s, v, "f1")
           for s, v in ((1, math.nan), (2, math.inf), (3, -math.inf), (4, -0.0), (5, 1e-310))]
    made: list[int] = []
    real = run_cache._series_samples
    monkeypatch.setattr(run_cache, "_series_samples", lambda series: made.append(1) or real(series))
    for batch in (odd, _values("a/scalar", range(6, 250), "f1"), _values("a/scalar", range(250, 900), "f1")):
        lazy.add_values(batch)
        eager.add_values(batch)
        got = orjson.dumps(scalars.scalar_metadata(lazy, "a/scalar"))
        assert got == orjson.dumps(scalars.scalar_metadata(eager, "a/scalar"))
        assert got.count(b'"step"') == min(len(eager.samples("scalar", "a/scalar")), 300)
        assert batch is not odd or got.count(b'"value":null') == 3
    assert not made  # the short series' answers came from the rows
    lazy.close()


def test_unwritable_workspace_disables_the_store(tmp_path: Path) -> None:
    blocker = tmp_path / "ws"
    blocker.write_text("a file where the workspace should be")
    root = PointRoot(blocker)
    store = root.run_store("./r")
    assert not store.enabled
    cache = RunCache("./r", settings_for_tests(), store)
    cache.add_values(_values("a/scalar", range(1, 20), "f"))
    assert cache.scalar_window("a/scalar", None, None, 100) is None
    assert [s.step for s in cache.samples("scalar", "a/scalar")] == list(range(1, 20))


def test_a_store_that_could_not_be_made_says_why_and_is_made_once_it_can(tmp_path: Path) -> None:
    blocker = tmp_path / "ws"
    blocker.write_text("a file where the workspace should be")
    root = PointRoot(blocker)
    store = root.run_store("./r")
    assert store.failure is not None and store.failure.reason == "no_store"
    assert not root.probe(100)
    blocker.unlink()
    assert root.probe(100)  # the directory is made now; the probe's scratch file is gone again
    assert root.directory is not None and list(root.directory.iterdir()) == []
    assert root.run_store("./r").enabled and root.failure is None


def test_a_failed_write_marks_the_series_with_its_reason(tmp_path: Path) -> None:
    root = PointRoot(tmp_path, memory_budget=0)
    series = root.run_store("./r").series("t")
    assert series is not None
    steps, values = spiky(100, seed=1)
    series.append(steps[:50], steps[:50].astype(float), values[:50], "f")
    root.write_fault = OSError(errno.ENOSPC, "No space left on device")
    with pytest.raises(OSError):
        series.append(steps[50:], steps[50:].astype(float), values[50:], "f")
    assert series.failure is not None and series.failure.reason == "disk_full"
    assert series.count == 50 and series.path.stat().st_size == 50 * ROW.itemsize  # what was stored stays
    assert not root.probe(10)
    root.write_fault = OSError(errno.EIO, "Input/output error")
    with pytest.raises(OSError):
        root.run_store("./s").series("t").append(steps[:1], steps[:1].astype(float), values[:1], "f")  # type: ignore[union-attr]
    root.write_fault = None
    assert root.probe(10)


@pytest.mark.parametrize("budget", [0, 10_000, 10**9])
def test_short_series_in_memory_spill_to_disk_with_the_same_answers(tmp_path: Path, budget: int) -> None:
    """Within the budget a short series stays in memory; past SPILL_ROWS or the budget it moves to its file."""
    root = PointRoot(tmp_path / str(budget), memory_budget=budget)
    series = root.run_store("./r").series("t")
    assert series is not None
    steps, values = spiky(SPILL_ROWS + 500, seed=9)
    walls = steps.astype(float)
    series.append(steps[:100], walls[:100], values[:100], "f")
    assert series.on_disk == (budget < 100 * 24)
    assert series.window(None, None, 10**6).steps.tolist() == steps[:100].tolist()
    series.append(steps[100:], walls[100:], values[100:], "f")  # past SPILL_ROWS: on disk now
    assert series.on_disk and series.path.exists() and root.budget.used == 0
    w = series.window(None, None, 400)
    ref = brute_m4(steps.tolist(), values.tolist(), 400)
    assert w.steps.tolist() == steps[ref].tolist()
    series.append(np.array([int(steps[50])]), np.array([0.0]), np.array([7.0]), "g")  # a restart
    assert series.count == 51 and series.window(None, None, 100).values.tolist()[-1] == 7.0


def test_point_dirs_of_gone_processes_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    dead_pid = int(gone.stdout)
    base = tmp_path / "cache" / "points"
    for name in (f"{dead_pid}-abc", f"{os.getppid()}-def", "1-init", "notapid"):
        (base / name).mkdir(parents=True)
    PointRoot(tmp_path)
    left = sorted(p.name for p in base.iterdir() if not p.name.startswith(f"{os.getpid()}-"))
    assert left == sorted([f"{os.getppid()}-def", "1-init", "notapid"])


def test_series_files_stay_open_within_the_limit_and_close_with_their_series(tmp_path: Path) -> None:
    """Appends go through kept descriptors, never more than the limit open; evicted files reopen and keep every
    row; dropping a series closes its file."""
    root = PointRoot(tmp_path, memory_budget=0)  # every series on disk
    root.files.limit = 3
    store = root.run_store("./r")
    fd_dir = Path(f"/proc/{os.getpid()}/fd")
    open_before = len(list(fd_dir.iterdir())) if fd_dir.exists() else 0
    tags = [f"t{i}" for i in range(8)]
    for block in range(5):  # every tag of a block, block after block: the pattern of a wide run's load
        steps = np.arange(block * 10, block * 10 + 10)
        for i, tag in enumerate(tags):
            series = store.series(tag)
            assert series is not None
            series.append(steps, steps * 1.0, steps + float(i), "f")
        if fd_dir.exists():
            assert len(list(fd_dir.iterdir())) - open_before <= 3
    for i, tag in enumerate(tags):
        series = store.get(tag)
        assert series is not None and series.on_disk
        window = series.window(None, None, 10**6)
        assert window.steps.tolist() == list(range(50)) and window.values.tolist() == [s + float(i) for s in range(50)]
    store.close()
    root.close()
    if fd_dir.exists():
        assert len(list(fd_dir.iterdir())) == open_before
    assert not list(tmp_path.rglob("*.pts"))


def test_a_series_in_memory_grows_without_losing_rows_or_budget(tmp_path: Path) -> None:
    """Many small appends (the buffer grows by half) keep every row; a restart inside the rows truncates; the
    budget taken is given back when the series is dropped."""
    root = PointRoot(tmp_path, memory_budget=10**8)
    store = root.run_store("./r")
    series = store.series("t")
    assert series is not None
    for start in range(0, 3000, 7):
        steps = np.arange(start, start + 7)
        series.append(steps, steps * 2.0, np.sin(steps), "f")
    assert not series.on_disk and series.count == 3003
    assert root.budget.used >= 3003 * ROW.itemsize
    series.append(np.arange(1000, 1010), np.zeros(10), np.full(10, 7.0), "g")  # a restart at step 1000
    w = series.window(None, None, 10**6)
    assert w.steps.tolist() == list(range(1010)) and w.values[1000:].tolist() == [7.0] * 10
    assert w.values[:1000].tolist() == np.sin(np.arange(1000)).tolist()
    store.close()
    assert root.budget.used == 0
