"""summary_watcher: which directories are runs, their files, limits, and change notification."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mindinsight_clone.ingest.summary_watcher import ChangeNotifier, scan_run, scan_runs, summary_sort_key

S = "events.out.events.summary.{}.0.host_MS"
L = "events.out.events.summary.{}.0.host_lineage"


def _touch(path: Path, size: int = 10, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def _ids(base: Path, **kwargs: int) -> list[str]:
    return [r.train_id for r in scan_runs(base, **kwargs).runs]


def test_what_counts_as_a_run(tmp_path: Path) -> None:
    _touch(tmp_path / "summary_run" / S.format(100))
    _touch(tmp_path / "lineage_only" / L.format(100))
    _touch(tmp_path / "pb_run" / "ms_output_optimize.pb")
    _touch(tmp_path / "memory_only" / "memory_usage_0.pb")
    _touch(tmp_path / "explain_only" / "events.summary.100.0.host_explain")
    _touch(tmp_path / "profiler_run" / "profiler" / "host_1_ascend_ms" / "FRAMEWORK" / "op.csv")
    (tmp_path / "empty_profiler" / "profiler" / "sub").mkdir(parents=True)
    _touch(tmp_path / "text_only" / "readme.txt")
    _touch(tmp_path / "nested" / "deep" / S.format(100))
    (tmp_path / "empty").mkdir()
    assert sorted(_ids(tmp_path)) == ["./lineage_only", "./pb_run", "./profiler_run", "./summary_run"]


def test_base_dir_itself_is_a_run(tmp_path: Path) -> None:
    _touch(tmp_path / S.format(5))
    _touch(tmp_path / "sub" / S.format(6))
    assert sorted(_ids(tmp_path)) == ["./", "./sub"]
    base = next(r for r in scan_runs(tmp_path).runs if r.train_id == "./")
    assert base.name == "." and base.path == tmp_path


def test_a_run_named_profiler_is_not_profiler_data_of_the_base_dir(tmp_path: Path) -> None:
    _touch(tmp_path / "profiler_cpu" / S.format(1))
    _touch(tmp_path / "profiler_cpu" / "profiler" / "x" / "op.csv")
    _touch(tmp_path / "profiler_legacy" / "profiler" / "op.csv")
    assert sorted(_ids(tmp_path)) == ["./profiler_cpu", "./profiler_legacy"]


def test_run_details(tmp_path: Path) -> None:
    run = tmp_path / "r"
    _touch(run / S.format(10), size=100, mtime=1_000)
    _touch(run / S.format(9), size=50, mtime=900)
    _touch(run / L.format(9), size=7, mtime=950)
    _touch(run / "graph.pb", size=3, mtime=800)
    _touch(run / "profiler" / "a.json", mtime=700)
    os.utime(run / "profiler", (1_200, 1_200))
    _touch(run / "notes.txt", size=1000, mtime=5_000)  # not a run file: ignored everywhere
    info = scan_run(tmp_path, "./r")
    assert info is not None
    assert [f.name for f in info.summary_files] == [S.format(9), S.format(10)]
    assert [f.name for f in info.lineage_files] == [L.format(9)]
    assert [f.name for f in info.pb_files] == ["graph.pb"]
    assert info.profiler_dirs == ["profiler"]
    assert info.summary_files[1].size == 100 and info.summary_files[1].mtime == 1_000
    assert info.create_time == 10.0  # timestamp in the newest summary file name
    assert info.update_time == 1_200  # newest mtime of run files and profiler dirs
    assert info.total_bytes == 160


def test_summary_files_sort_numerically() -> None:
    names = [S.format(10), S.format(9), S.format(100)]
    assert sorted(names, key=summary_sort_key) == [S.format(9), S.format(10), S.format(100)]


def test_create_time_without_summary_file_is_oldest_mtime(tmp_path: Path) -> None:
    _touch(tmp_path / "r" / "a.pb", mtime=500)
    _touch(tmp_path / "r" / "b.pb", mtime=600)
    info = scan_run(tmp_path, "./r")
    assert info is not None and info.create_time == 500 and info.update_time == 600


def test_symlinks_are_never_followed(tmp_path: Path) -> None:
    real = tmp_path / "outside"
    _touch(real / S.format(1))
    base = tmp_path / "base"
    base.mkdir()
    (base / "linked_run").symlink_to(real, target_is_directory=True)
    _touch(base / "r" / "plain.txt")
    (base / "r" / S.format(2)).symlink_to(real / S.format(1))
    assert _ids(base) == []
    assert scan_run(base, "./linked_run") is None


def test_max_run_count_keeps_the_most_recent(tmp_path: Path) -> None:
    for i in range(8):
        _touch(tmp_path / f"run_{i}" / S.format(i), mtime=10_000 + i)
    result = scan_runs(tmp_path, max_run_count=3)
    assert [r.train_id for r in result.runs] == ["./run_7", "./run_6", "./run_5"]
    assert result.total_runs == 8


def test_scan_is_bounded(tmp_path: Path) -> None:
    for i in range(30):
        _touch(tmp_path / f"run_{i:02d}" / S.format(i))
    result = scan_runs(tmp_path, max_scan_entries=10)
    assert result.truncated
    assert len(result.runs) <= 10


def test_missing_base_dir_gives_no_runs(tmp_path: Path) -> None:
    result = scan_runs(tmp_path / "nope")
    assert result.runs == [] and result.total_runs == 0


# ---------------------------------------------------------------------- ChangeNotifier
class _Recorder:
    def __init__(self) -> None:
        self.paths: list[str] = []
        self.event = threading.Event()

    def __call__(self, path: str) -> None:
        self.paths.append(path)
        self.event.set()

    def wait(self, timeout: float = 5.0) -> bool:
        ok = self.event.wait(timeout)
        self.event.clear()
        return ok

    def wait_for(self, match: Callable[[str], bool], timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(match(p) for p in list(self.paths)):
                return True
            time.sleep(0.05)
        return False


@pytest.fixture
def recorder() -> _Recorder:
    return _Recorder()


def test_notifier_reports_new_and_growing_files(tmp_path: Path, recorder: _Recorder) -> None:
    (tmp_path / "run").mkdir()
    notifier = ChangeNotifier(tmp_path, recorder)
    notifier.start()
    try:
        assert notifier.watching
        target = tmp_path / "run" / S.format(1)
        target.write_bytes(b"abc")
        assert recorder.wait()
        assert any(p.endswith(S.format(1)) for p in recorder.paths)
        with target.open("ab") as f:
            f.write(b"more")
        assert recorder.wait()
    finally:
        notifier.stop()


def test_notifier_ignores_reads(tmp_path: Path, recorder: _Recorder) -> None:
    target = _touch(tmp_path / "run" / S.format(1))
    notifier = ChangeNotifier(tmp_path, recorder)
    notifier.start()
    try:
        time.sleep(0.2)
        recorder.event.clear()
        target.read_bytes()  # what our own loader does
        assert not recorder.wait(0.7)
    finally:
        notifier.stop()


def test_reads_reach_no_python_at_all(tmp_path: Path, recorder: _Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Our loader opens every file it reads (1,000 runs: thousands of opens while loading). The watch's
    inotify mask leaves opens and no-write closes out, so not one event reaches the watchdog thread's
    Python (before: each open and close was decoded there and dropped, on the GIL the loader needs)."""
    target = _touch(tmp_path / "run" / S.format(1))
    seen: list[str] = []
    original = ChangeNotifier._on_event

    def counting(self: ChangeNotifier, event_type: str, src: str, dest: str, is_dir: bool) -> None:
        seen.append(event_type)
        original(self, event_type, src, dest, is_dir)

    monkeypatch.setattr(ChangeNotifier, "_on_event", counting)
    notifier = ChangeNotifier(tmp_path, recorder)
    notifier.start()
    try:
        time.sleep(0.2)
        seen.clear()
        for _ in range(20):
            target.read_bytes()
        time.sleep(0.5)
        assert seen == []
        with target.open("ab") as f:  # a write still wakes the loader
            f.write(b"more")
        assert recorder.wait()
        assert "modified" in seen
    finally:
        notifier.stop()


def test_notifier_waits_for_a_missing_base_dir(tmp_path: Path, recorder: _Recorder) -> None:
    base = tmp_path / "later"
    notifier = ChangeNotifier(base, recorder)
    notifier.start()  # must not raise
    try:
        assert not notifier.watching
        base.mkdir()
        assert recorder.wait()
        deadline = time.monotonic() + 5
        while not notifier.watching and time.monotonic() < deadline:
            time.sleep(0.05)
        assert notifier.watching
        (base / S.format(1)).write_bytes(b"x")
        assert recorder.wait()
    finally:
        notifier.stop()


def test_notifier_without_parent_does_not_raise(tmp_path: Path, recorder: _Recorder) -> None:
    notifier = ChangeNotifier(tmp_path / "a" / "b" / "c", recorder)
    notifier.start()
    notifier.stop()
    notifier.stop()  # idempotent


def test_thousands_of_dirs_watch_only_the_base_dir_and_never_overflow(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """10,000 run dirs: a recursive watch (10,000 inotify watches) overflowed the queue and watchdog
    re-added every watch in a loop, spinning a core while idle. Past the bound only the base dir is
    watched: idle means no overflow, and a new run still wakes the loader at once."""
    for i in range(10_000):
        (tmp_path / f"run_{i:05d}").mkdir()
    recorder = _Recorder()
    caplog.set_level(logging.INFO, logger="watchdog")
    notifier = ChangeNotifier(tmp_path, recorder)
    notifier.start()
    try:
        time.sleep(5.0)  # idle (watchdog overflowed and re-added every watch about every 3 s)
        overflow = [r.getMessage() for r in caplog.records if "overflow" in r.getMessage().lower()]
        assert overflow == []
        assert notifier.watching and not notifier.recursive
        assert "holds more than 1000 directories" in caplog.text
        (tmp_path / "run_new").mkdir()
        assert recorder.wait_for(lambda p: p.endswith("run_new"))
    finally:
        notifier.stop()


def test_watch_mode_follows_the_number_of_dirs(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"run_{i}").mkdir()
    recorder = _Recorder()
    notifier = ChangeNotifier(tmp_path, recorder, max_watched_dirs=10)
    notifier.start()
    try:
        assert notifier.recursive
        _touch(tmp_path / "run_0" / "events.out.events.summary.1.0.x")  # inside a run: seen at once
        assert recorder.wait_for(lambda p: p.endswith("summary.1.0.x"))
        for i in range(5, 12):
            (tmp_path / f"run_{i}").mkdir()
        notifier.refresh()
        assert not notifier.recursive  # 12 > 10: the base dir only
        for i in range(3, 12):
            (tmp_path / f"run_{i}").rmdir()
        notifier.refresh()
        assert notifier.recursive  # 3 <= 10 // 2: the whole tree again
        recorder.paths.clear()
        _touch(tmp_path / "run_1" / "events.out.events.summary.2.0.x")
        assert recorder.wait_for(lambda p: p.endswith("summary.2.0.x"))
    finally:
        notifier.stop()
