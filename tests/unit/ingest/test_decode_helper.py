"""The decode helper process (ingest.decode_helper): it reads exactly what the worker reads, any failure of it
falls back to decoding in the worker, it never outlives its worker, and a reload uses it only above its
threshold (decode_helper_mb) and stops it when the load is read."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psutil
import pytest

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest import formats
from mindinsight_clone.ingest.decode_helper import DecodeHelper, HelperUnavailable
from mindinsight_clone.store.data_manager import DataManager
from mindinsight_clone.store.loader import RunLoader
from mindinsight_clone.store.point_store import PointRoot
from tests.unit.ingest.tfevents_files import tensorboardx_run
from tests.unit.store.summary_files import scalar_run


@pytest.fixture
def helper() -> Iterator[DecodeHelper]:
    h = DecodeHelper()
    assert h.start()
    yield h
    h.close()


def _load(run: Path, tmp: Path, helper: DecodeHelper | None) -> RunLoader:
    settings = settings_for_tests(summary_base_dir=str(run.parent), workspace=str(tmp / run.name / str(id(helper))))
    parser = formats.RecordsParser()
    parser.helper = helper
    loader = RunLoader("./" + run.name, run, settings, formats.parse_event, parse_records=parser,
                       points_root=PointRoot(settings.workspace), read_scalars=parser.read_scalars)
    loader.load_pass(sorted(p.name for p in run.iterdir()))
    return loader


def _points(loader: RunLoader) -> dict[str, list[tuple[int, float, str, str]]]:
    return {tag: [(s.step, s.wall_time, repr(s.value), s.source) for s in loader.cache.samples("scalar", tag)]
            for tag in loader.cache.tags("scalar")}


def test_the_helper_reads_what_the_worker_reads(tmp_path: Path, helper: DecodeHelper) -> None:
    ms = tmp_path / "ms"
    scalar_run(ms, range(0, 600, 2), ["loss", "lr", "acc"])
    tb = tmp_path / "tb"
    tensorboardx_run(tb, range(400), scalar_tags=("loss", "acc"), image_every=10**6, hist_every=10**6, text=False)
    for run in (ms, tb):
        here, there = _load(run, tmp_path, None), _load(run, tmp_path, helper)
        assert _points(there) == _points(here) and len(_points(here)) >= 2
        tag = next(iter(_points(here)))
        a, b = here.cache.scalar_window(tag, None, None, 10**6), there.cache.scalar_window(tag, None, None, 10**6)
        assert a is not None and b is not None and np.array_equal(a.values, b.values, equal_nan=True)
    assert helper.calls >= 2  # the blocks were decoded over there


def test_a_large_mindspore_block_is_decoded_in_the_worker(tmp_path: Path, helper: DecodeHelper) -> None:
    run = tmp_path / "big"
    path = scalar_run(run, range(6000), ["loss", "lr", "acc", "grad_norm"])
    size = path.stat().st_size
    assert size > formats.HELPER_MS_BLOCK_BYTES
    first = 12 + int.from_bytes(path.read_bytes()[:8], "little") + 4  # past the version event: scalar steps
    parser = formats.RecordsParser()
    parser.helper = helper
    end, arrays = parser.read_scalars(path, first, size, 1 << 20, 1 << 22)  # numpy lets go of the lock: kept here
    assert helper.calls == 0 and end == size and arrays.records == 6000
    end, arrays = parser.read_scalars(path, first, size, 1 << 20, 64 * 1024)  # a small block: over there
    assert helper.calls == 1 and first < end < size and arrays.records > 100


def test_a_helper_that_died_leaves_the_worker_to_decode(tmp_path: Path, helper: DecodeHelper) -> None:
    run = tmp_path / "run"
    scalar_run(run, range(300), ["loss"])
    pid = helper.pid
    assert pid is not None
    psutil.Process(pid).kill()
    psutil.Process(pid).wait(timeout=10)
    loaded = _load(run, tmp_path, helper)
    assert [s.step for s in loaded.cache.samples("scalar", "loss/scalar")] == list(range(300))
    deadline = time.monotonic() + 10  # its answer reader notices the end of the pipe on its own thread
    while helper.running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not helper.running and helper.calls == 0
    with pytest.raises(HelperUnavailable):
        helper.call(len, b"abc")


def test_a_call_that_raises_over_there_is_left_to_the_caller(helper: DecodeHelper) -> None:
    assert helper.call(len, b"abcd") == 4
    with pytest.raises(HelperUnavailable, match="ValueError"):
        helper.call(int, "not a number")
    assert helper.running and helper.call(len, b"") == 0  # the helper goes on serving


def test_a_busy_helper_leaves_the_call_to_the_caller() -> None:
    helper = DecodeHelper(max_in_flight=1)
    assert helper.start()
    try:
        slow = threading.Thread(target=helper.call, args=(time.sleep, 1.0))
        slow.start()
        deadline = time.monotonic() + 10
        while not helper.busy:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        with pytest.raises(HelperUnavailable, match="busy"):
            helper.call(len, b"")  # the caller decodes it itself instead of queueing
        slow.join()
        assert helper.call(len, b"ab") == 2
    finally:
        helper.close()


def test_close_stops_the_process(helper: DecodeHelper) -> None:
    proc = psutil.Process(helper.pid)
    helper.close()
    proc.wait(timeout=10)
    assert not helper.running
    with pytest.raises(HelperUnavailable):
        helper.call(len, b"x")


def test_the_helper_never_outlives_its_worker(tmp_path: Path) -> None:
    code = ("import os, sys\n"
            "from mindinsight_clone.ingest.decode_helper import DecodeHelper\n"
            "h = DecodeHelper(); h.start(); assert h.call(len, b'ab') == 2\n"
            "print(h.pid, flush=True)\n"
            "os._exit(0)\n")  # the worker vanishes without closing anything (as on SIGKILL)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    pid = int(out.stdout.strip().splitlines()[-1])
    deadline = time.monotonic() + 10
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the helper outlived its worker"
        time.sleep(0.05)


@pytest.mark.parametrize(("threshold_mb", "used"), [(0, False), (1, True), (64, False)])
def test_a_reload_uses_the_helper_only_above_its_threshold(tmp_path: Path, threshold_mb: int, used: bool) -> None:
    base = tmp_path / "base"
    for r in range(8):  # 2.7 MB of scalar records in all; the first 192 KB of each file would go to the helper
        scalar_run(base / f"run{r}", range(4000), ["loss", "lr", "acc", "grad_norm"], ts=1_700_000_000 + r)
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"),
                                  decode_helper_mb=threshold_mb)
    manager = DataManager(settings)
    try:
        manager.reload()
        assert (manager.decode_helper.calls > 0) is used
        assert not manager.decode_helper.running  # stopped once the load was read
        for r in range(8):
            steps = [s.step for s in manager.run_cache(f"./run{r}").samples("scalar", "grad_norm/scalar")]
            assert len(steps) == 1000 and steps == sorted(steps) and steps[-1] == 3999
    finally:
        manager.stop()


def test_long_mindspore_runs_do_not_start_the_helper(tmp_path: Path) -> None:
    """A big MindSpore block decodes in the worker (formats.HELPER_MS_BLOCK_BYTES): two runs of 3.4 MB give the
    helper at most their first 192 KB each, under a 1 MB threshold, so no helper process (its ~20 MB) is started."""
    base = tmp_path / "base"
    for r in range(2):
        scalar_run(base / f"run{r}", range(40_000), ["loss", "lr", "acc", "grad_norm"], ts=1_700_000_000 + r)
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(tmp_path / "ws"), decode_helper_mb=1)
    manager = DataManager(settings)
    try:
        manager.reload()
        assert sum(f.size for f in manager._runs["./run0"].summary_files) > 3 << 20
        assert manager.decode_helper.calls == 0 and manager.decode_helper.pid is None
        assert [s.step for s in manager.run_cache("./run1").samples("scalar", "loss/scalar")][-1] == 39_999
    finally:
        manager.stop()


def test_scalar_arrays_cross_the_pipe_packed_and_equal() -> None:
    """A block's columns are pickled as three packed arrays (one per column, not three per tag) and come back as
    the same tags, in order, with the same values; columns the tags share (MindSpore steps) stay shared."""
    import pickle
    import pickletools

    import numpy as np

    from mindinsight_clone.ingest.scalar_batch import ScalarArrays

    arrays = {f"t{i}/scalar": (np.arange(i, i + 5), np.arange(5) * 0.5, np.linspace(0, i, 5)) for i in range(300)}
    block = ScalarArrays("f", items=[(t, 0) for t in arrays], arrays=arrays, records=1500, wants_bytes=7)
    data = pickle.dumps(block, protocol=pickle.HIGHEST_PROTOCOL)
    back = pickle.loads(data)
    assert (back.source_file, back.items, back.records, back.wants_bytes) == ("f", block.items, 1500, 7)
    assert list(back.arrays) == list(arrays)
    for tag, cols in arrays.items():
        assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(cols, back.arrays[tag], strict=True))
    per_tag = pickle.dumps(arrays, protocol=pickle.HIGHEST_PROTOCOL)

    def arrays_made(pickled: bytes) -> int:  # an array is rebuilt by one REDUCE of numpy's _frombuffer
        return sum(op.name == "REDUCE" for op, _, _ in pickletools.genops(pickled))

    assert arrays_made(per_tag) >= 900 and arrays_made(data) < 10
    steps = np.arange(4)
    shared = ScalarArrays("g", arrays={"a": (steps, steps * 1.0, np.ones(4)), "b": (steps, steps * 1.0, np.zeros(4))})
    again = pickle.loads(pickle.dumps(shared))
    assert again.arrays["a"][0] is again.arrays["b"][0] and again.arrays["b"][2].tolist() == [0.0] * 4
