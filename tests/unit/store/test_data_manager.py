"""DataManager over real files: incremental loads, new/deleted files, LRU, problems, wake-ups."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.errors import TrainJobNotExistError
from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.store import discovery
from mindinsight_clone.store.data_manager import DataManager
from tests.unit.store.summary_files import scalar_event, scalar_run, summary_name, version_event, write_records


def manager(base: Path, **kw: object) -> DataManager:
    return DataManager(settings_for_tests(summary_base_dir=str(base), reload_interval=0, **kw))


def steps(dm: DataManager, tid: str, tag: str = "loss/scalar") -> list[int]:
    return [s.step for s in dm.run_cache(tid).samples("scalar", tag)]


def test_appended_records_are_picked_up_incrementally(tmp_path: Path) -> None:
    f = scalar_run(tmp_path / "run", range(1, 11), ["loss"])
    dm = manager(tmp_path)
    dm.reload()
    assert steps(dm, "./run") == list(range(1, 11))
    read_before = dm.run_status("./run").bytes_read
    write_records(f, [scalar_event(s, {"loss": 1.0}) for s in range(11, 16)], mode="ab")
    dm.reload()
    assert steps(dm, "./run") == list(range(1, 16))
    status = dm.run_status("./run")
    assert status.cache_status == "CACHED" and status.bytes_read > read_before
    assert status.bytes_read == status.bytes_total == f.stat().st_size


def test_second_file_is_picked_up_and_newer_file_wins(tmp_path: Path) -> None:
    scalar_run(tmp_path / "run", range(1, 11), ["loss"], ts=1_700_000_000)
    dm = manager(tmp_path)
    dm.reload()
    # a restart at step 6 written to a newer file
    write_records(tmp_path / "run" / summary_name(1_700_000_100),
                  [version_event(), *[scalar_event(s, {"loss": 42.0}) for s in range(6, 9)]])
    dm.reload()
    samples = dm.run_cache("./run").samples("scalar", "loss/scalar")
    assert [s.step for s in samples] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert [s.value for s in samples[5:]] == [42.0, 42.0, 42.0]


def test_deleted_file_resets_the_run(tmp_path: Path) -> None:
    old = scalar_run(tmp_path / "run", range(1, 6), ["loss"], ts=1_700_000_000)
    scalar_run(tmp_path / "run", range(10, 13), ["loss"], ts=1_700_000_100)
    dm = manager(tmp_path)
    dm.reload()
    generation = dm.loader("./run").generation  # type: ignore[union-attr]
    assert steps(dm, "./run") == [1, 2, 3, 4, 5, 10, 11, 12]
    old.unlink()
    dm.reload()
    assert steps(dm, "./run") == [10, 11, 12]
    assert dm.loader("./run").generation > generation  # type: ignore[union-attr]


def test_deleted_run_disappears(tmp_path: Path) -> None:
    f = scalar_run(tmp_path / "run", range(1, 3), ["loss"])
    dm = manager(tmp_path)
    dm.reload()
    f.unlink()
    (tmp_path / "run").rmdir()
    dm.reload()
    assert dm.runs() == []
    with pytest.raises(TrainJobNotExistError):
        dm.run_cache("./run")


def test_tag_eviction_through_files(tmp_path: Path) -> None:
    scalar_run(tmp_path / "run", range(1, 3), ["a", "b", "c"])
    dm = manager(tmp_path, max_tags_per_run=2)
    dm.reload()
    assert dm.run_cache("./run").tags("scalar") == ["b/scalar", "c/scalar"]


def test_lru_keeps_most_recent_runs_and_cache_runs_stamps(tmp_path: Path) -> None:
    for i in range(3):
        scalar_run(tmp_path / f"r{i}", range(1, 3), ["loss"])
        time.sleep(0.01)
    dm = manager(tmp_path, max_cached_runs=2)
    dm.reload()
    assert dm.cache_status("./r0") == "NOT_IN_CACHE"
    assert {dm.cache_status("./r1"), dm.cache_status("./r2")} == {"CACHED"}
    result = dm.cache_runs(["./r0", "./nope", "../etc"])
    assert result == [{"train_id": "./r0", "cache_status": "NOT_IN_CACHE"}]  # status before the load
    dm.reload()
    assert dm.cache_status("./r0") == "CACHED"
    assert dm.cache_status("./r1") == "NOT_IN_CACHE"  # the least recently used one left
    with pytest.raises(TrainJobNotExistError, match="in cache"):
        dm.run_cache("./r1")


def test_truncated_file_is_reported_with_offset(tmp_path: Path) -> None:
    f = scalar_run(tmp_path / "run", range(1, 5), ["loss"])
    data = f.read_bytes()
    tail = frame_record(scalar_event(5, {"loss": 1.0}))
    f.write_bytes(data + tail[:-7])
    dm = manager(tmp_path)
    dm.reload()
    status = dm.run_status("./run")
    assert steps(dm, "./run") == [1, 2, 3, 4]
    assert status.is_integrity is False
    assert [(p.file, p.offset, p.kind) for p in status.problems] == [(f.name, len(data), "truncated")]


def test_load_status_goes_init_loading_loaded(tmp_path: Path) -> None:
    scalar_run(tmp_path / "run", range(1, 3), ["loss"])
    dm = manager(tmp_path)
    assert dm.load_status == "init"
    dm.reload()
    assert dm.load_status == "loaded"


def test_background_thread_wakes_on_file_change(tmp_path: Path) -> None:
    f = scalar_run(tmp_path / "run", range(1, 3), ["loss"])
    dm = DataManager(settings_for_tests(summary_base_dir=str(tmp_path), reload_interval=300))
    dm.start()
    try:
        assert dm.wait_until_loaded(10)
        time.sleep(0.2)  # let the notifier arm
        write_records(f, [scalar_event(3, {"loss": 1.0})], mode="ab")
        t0 = time.monotonic()
        while time.monotonic() - t0 < 5 and steps(dm, "./run")[-1] != 3:
            time.sleep(0.02)
        elapsed = time.monotonic() - t0
        assert steps(dm, "./run")[-1] == 3
        assert elapsed < 1.5, f"flushed step took {elapsed:.2f}s to show"
    finally:
        dm.stop()


def test_the_watch_is_armed_beside_the_first_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Arming the watch (one per directory: a thousand for many runs) runs on a thread of its own: neither
    `start()` (the server's start) nor the reload thread's first load waits for it; once armed, a change
    wakes the loop as before."""
    f = scalar_run(tmp_path / "run", range(1, 3), ["loss"])
    armed_on: list[str] = []
    original = discovery.start_notifier

    def start_notifier(*args: Any) -> Any:
        armed_on.append(threading.current_thread().name)
        return original(*args)

    monkeypatch.setattr(discovery, "start_notifier", start_notifier)
    dm = DataManager(settings_for_tests(summary_base_dir=str(tmp_path), reload_interval=300))
    dm.start()
    try:
        assert dm.wait_until_loaded(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (dm._notifier is not None and dm._notifier.watching):
            time.sleep(0.02)
        assert armed_on == ["mi-watch-setup"]
        write_records(f, [scalar_event(3, {"loss": 1.0})], mode="ab")
        while time.monotonic() < deadline and steps(dm, "./run")[-1:] != [3]:
            time.sleep(0.02)
        assert steps(dm, "./run") == [1, 2, 3]  # woken by the watch, not by the 300 s interval
    finally:
        dm.stop()
    assert dm._notifier is None


def test_start_creates_no_thread_at_construction(tmp_path: Path) -> None:
    dm = manager(tmp_path)
    assert dm._thread is None


def test_a_run_asked_for_while_the_others_load_is_loaded_next(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """After a restart over many runs, the one somebody asks for (a "still loading" answer) jumps the queue: it
    is loaded right after the runs already being loaded, not after every run more recent than it."""
    import os

    from mindinsight_clone.store import data_manager as dm_module

    for i in range(12):
        run = tmp_path / f"run_{i:02d}"
        scalar_run(run, range(1, 3), ["loss"])
        for path in (run, *run.iterdir()):
            os.utime(path, (1_000 + i, 1_000 + i))  # run_11 is the most recent: loaded first
    monkeypatch.setattr(dm_module, "LOAD_THREADS", 1)
    dm = manager(tmp_path)
    order: list[str] = []
    gate = threading.Event()
    load = dm._load

    def recording_load(loader: Any) -> None:
        order.append(loader.train_id)
        if len(order) == 1:
            gate.wait(10)  # the first run is loading when the request comes
        load(loader)

    dm._load = recording_load  # type: ignore[method-assign]
    cycle = threading.Thread(target=dm.reload)
    cycle.start()
    deadline = time.monotonic() + 10
    while not order and time.monotonic() < deadline:
        time.sleep(0.01)
    assert dm.still_loading("./run_00") == "CACHING"  # the least recent run: it would be loaded last
    gate.set()
    cycle.join(10)
    assert order[:2] == ["./run_11", "./run_00"]
    assert sorted(order) == [f"./run_{i:02d}" for i in range(12)]  # each loaded once
    assert steps(dm, "./run_00") == [1, 2] and dm.still_loading("./run_00") is None


def test_a_request_for_a_run_the_cycle_will_load_waits_for_it(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`run_cache(wait_s=...)` for a run the current cycle has yet to load moves it to the front and waits for
    its first pass (bounded): the request answers with the run's data instead of "loading"."""
    import os

    from mindinsight_clone.store import data_manager as dm_module

    for i in range(6):
        run = tmp_path / f"run_{i:02d}"
        scalar_run(run, range(1, 4), ["loss"])
        for path in (run, *run.iterdir()):
            os.utime(path, (1_000 + i, 1_000 + i))
    monkeypatch.setattr(dm_module, "LOAD_THREADS", 1)
    dm = manager(tmp_path)
    gate = threading.Event()
    order: list[str] = []
    load = dm._load

    def gated_load(loader: Any) -> None:
        order.append(loader.train_id)
        if len(order) == 1:
            gate.wait(10)
        load(loader)

    dm._load = gated_load  # type: ignore[method-assign]
    cycle = threading.Thread(target=dm.reload)
    cycle.start()
    deadline = time.monotonic() + 10
    while not order and time.monotonic() < deadline:
        time.sleep(0.01)
    assert dm.run_cache("./run_00").tags("scalar") == []  # no wait asked: at once, nothing loaded yet
    got: list[list[str]] = []
    waiter = threading.Thread(target=lambda: got.append(dm.run_cache("./run_00", wait_s=10).tags("scalar")))
    waiter.start()
    time.sleep(0.2)
    assert not got  # waiting, while the first run still loads
    gate.set()
    waiter.join(10)
    cycle.join(10)
    assert got == [["loss/scalar"]] and order[:2] == ["./run_05", "./run_00"]
    start = time.monotonic()
    assert dm.run_cache("./run_03", wait_s=10).tags("scalar") == ["loss/scalar"]  # loaded: no wait
    assert time.monotonic() - start < 1


def test_a_wide_run_is_read_in_blocks_of_many_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step of hundreds of tags is long: the block reader asks for WIDE_ROWS steps a block, so each tag's series
    gets a few appends, not one per few steps (the store's cost is per tag and block), and every point is kept."""
    from mindinsight_clone.ingest import scalar_batch
    from mindinsight_clone.store import point_store

    tags = [f"layer_{i:03d}/local_norm" for i in range(300)]
    scalar_run(tmp_path / "wide", range(2000), tags)
    appends: dict[str, int] = {}
    original = point_store.ScalarSeries.append

    def counting(self: point_store.ScalarSeries, *args: Any) -> None:
        appends[self._path] = appends.get(self._path, 0) + 1
        original(self, *args)

    monkeypatch.setattr(point_store.ScalarSeries, "append", counting)
    dm = manager(tmp_path, decode_helper_mb=0)
    dm.reload()
    assert len(appends) == len(tags)
    assert max(appends.values()) <= 2000 // scalar_batch.WIDE_ROWS + 4  # 36 without (512 KB blocks)
    window = dm.run_cache("./wide").scalar_window("layer_299/local_norm/scalar", None, None, 10**6)
    assert window is not None and window.steps.tolist() == list(range(2000))
    assert window.values[-1] == 1999 * 0.5 + 299
