"""The parse-once store (table_store.py): a restart answers from the Parquet files without parsing, a changed file is
parsed again, the budget drops the least recently used, a corrupt file is rebuilt, concurrent builders parse once.
Parses are counted (a wrapped parse function and the store's counters), never timed.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from mindinsight_clone.analyzers.profiler.adapters.ascend_text import kernel_table
from mindinsight_clone.analyzers.profiler.engine import trace_engine
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.column_query import query
from mindinsight_clone.analyzers.profiler.engine.table_store import MB, TableStore
from mindinsight_clone.analyzers.profiler.views import ascend_ops, timeline
from mindinsight_clone.ingest import storage
from tests.conftest import SHARED, require_shared

KERNELS = next(iter(sorted((SHARED / "fixtures" / "ascend").glob(
    "torch_npu_level1/profiler/*/ASCEND_PROFILER_OUTPUT/kernel_details.csv"))), SHARED / "missing")
PAGE = {"sort_condition": {"name": "duration_us"}, "group_condition": {"limit": 10, "offset": 0}}


class Counted:
    """load_kernels that counts its calls."""

    def __init__(self, delay: float = 0.0) -> None:
        self.calls = 0
        self.delay = delay
        self.lock = threading.Lock()

    def __call__(self, path: Path) -> kernel_table.KernelTable:
        with self.lock:
            self.calls += 1
        time.sleep(self.delay)
        return kernel_table.load_kernels(path, "0")


def kernels(store: TableStore, path: Path, parse: Counted) -> kernel_table.KernelTable:
    """Through a fresh in-memory cache (a new process, as far as memory goes), then wait for the store's write."""
    table = ParsedFileCache(store=store).get("ascend_kernels", path, parse, codec=kernel_table.KERNELS_CODEC)
    store.flush()
    return table


def answer(table: kernel_table.KernelTable) -> Any:
    return query(table.subset(False), ascend_ops.AICORE_DETAIL, PAGE)


@pytest.fixture
def kernel_file(tmp_path: Path) -> Path:
    require_shared(KERNELS)
    path = tmp_path / "src" / "kernel_details.csv"
    path.parent.mkdir()
    path.write_bytes(KERNELS.read_bytes())
    return path


def parquet_files(root: Path) -> list[Path]:
    return sorted(root.glob("*.parquet"))


def test_restart_answers_from_the_store_without_parsing(tmp_path: Path, kernel_file: Path) -> None:
    root, parse = tmp_path / "store", Counted()
    first = kernels(TableStore(root, 100 * MB), kernel_file, parse)
    assert parse.calls == 1 and len(parquet_files(root)) == 1
    restarted = TableStore(root, 100 * MB)  # a new process: nothing in memory
    again = kernels(restarted, kernel_file, parse)
    assert parse.calls == 1 and restarted.stats.hits == 1 and restarted.stats.builds == 0
    assert answer(again) == answer(first) and again.problems == first.problems
    assert again.table.length == first.table.length > 100


def test_a_changed_file_is_parsed_again_and_its_old_table_dropped(tmp_path: Path, kernel_file: Path) -> None:
    root, parse = tmp_path / "store", Counted()
    kernels(TableStore(root, 100 * MB), kernel_file, parse)
    old = parquet_files(root)
    lines = kernel_file.read_text().splitlines(keepends=True)
    kernel_file.write_text("".join(lines[:50]))  # rewritten: another size, mtime and (here) the same inode
    store = TableStore(root, 100 * MB)
    table = kernels(store, kernel_file, parse)
    assert parse.calls == 2 and table.table.length == 49
    assert len(parquet_files(root)) == 1 and parquet_files(root) != old
    assert store.stats.evictions == 1


def test_the_budget_drops_the_least_recently_used(tmp_path: Path, kernel_file: Path) -> None:
    sources = []
    for i in range(3):
        path = tmp_path / f"rank{i}" / "kernel_details.csv"
        path.parent.mkdir()
        path.write_bytes(kernel_file.read_bytes())
        sources.append(path)
    root, parse = tmp_path / "store", Counted()
    probe = TableStore(tmp_path / "probe", 100 * MB)
    kernels(probe, sources[0], Counted())
    size = parquet_files(tmp_path / "probe")[0].stat().st_size
    store = TableStore(root, int(size * 2.5))  # room for two tables
    kernels(store, sources[0], parse)
    time.sleep(0.05)
    kernels(store, sources[1], parse)
    time.sleep(0.05)
    kernels(store, sources[0], parse)  # a hit: rank0's table is now the most recently used
    time.sleep(0.05)
    kernels(store, sources[2], parse)  # over budget: rank1's table goes
    assert parse.calls == 3 and store.stats.evictions == 1 and len(parquet_files(root)) == 2
    kernels(store, sources[0], parse)
    kernels(store, sources[2], parse)
    assert parse.calls == 3  # both kept
    kernels(store, sources[1], parse)
    assert parse.calls == 4  # dropped, parsed again


def test_a_table_larger_than_the_budget_and_a_zero_budget_keep_nothing(tmp_path: Path, kernel_file: Path) -> None:
    parse = Counted()
    tiny = TableStore(tmp_path / "tiny", 1024)
    kernels(tiny, kernel_file, parse)
    assert tiny.stats.too_big == 1 and parquet_files(tmp_path / "tiny") == []
    off = TableStore(tmp_path / "off", 0)
    kernels(off, kernel_file, parse)
    assert parse.calls == 2 and not (tmp_path / "off").exists()


@pytest.mark.parametrize("damage", ["truncated", "garbage", "flipped byte", "other source"])
def test_a_corrupt_file_is_rebuilt(tmp_path: Path, kernel_file: Path, damage: str) -> None:
    root, parse = tmp_path / "store", Counted()
    first = kernels(TableStore(root, 100 * MB), kernel_file, parse)
    (target,) = parquet_files(root)
    data = bytearray(target.read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "garbage":
        data = bytearray(b"not parquet at all" * 100)
    elif damage == "flipped byte":  # inside the first data page: caught by the page checksum
        data[len(data) // 4] ^= 0xFF
    else:  # the file of another table put in its place
        other = tmp_path / "other.csv"
        other.write_text("".join(kernel_file.read_text().splitlines(keepends=True)[:20]))
        probe = TableStore(tmp_path / "probe", 100 * MB)
        kernels(probe, other, Counted())
        data = bytearray(parquet_files(tmp_path / "probe")[0].read_bytes())
    target.write_bytes(bytes(data))
    store = TableStore(root, 100 * MB)
    rebuilt = kernels(store, kernel_file, parse)
    assert store.stats.corrupt == 1 and parse.calls == 2
    assert answer(rebuilt) == answer(first)
    final = TableStore(root, 100 * MB)
    kernels(final, kernel_file, parse)
    assert final.stats.hits == 1 and parse.calls == 2  # the rebuilt file is whole


def test_concurrent_builders_parse_once_and_never_read_a_partial_file(tmp_path: Path, kernel_file: Path) -> None:
    """Six 'replicas' (own caches and stores, as separate processes have) ask at once: one parses (the others wait
    on its lock file), all get the same table, no temporary file is left."""
    root, parse = tmp_path / "store", Counted(delay=0.3)
    results: list[Any] = []
    errors: list[BaseException] = []

    def replica() -> None:
        try:
            results.append(answer(kernels(TableStore(root, 100 * MB), kernel_file, parse)))
        except BaseException as err:  # handed to the test thread
            errors.append(err)

    threads = [threading.Thread(target=replica) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors and len(results) == 6
    assert all(r == results[0] for r in results)
    assert parse.calls == 1
    assert [p.name for p in root.iterdir() if p.name.endswith(".tmp")] == []


def test_trace_round_trip_through_the_store(tmp_path: Path) -> None:
    events = [{"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "Ascend Hardware"}},
              {"ph": "X", "name": "k", "pid": 7, "tid": "s1", "ts": "10.5", "dur": 2, "cat": "c", "args": {"a": 1}},
              {"ph": "s", "name": "flow", "pid": 7, "tid": 0, "ts": 11, "id": "x", "bp": "e"},
              {"ph": "X", "name": "k", "pid": 7, "tid": "s1", "ts": 20, "dur": 3}] * 17000  # > one row group
    path = tmp_path / "trace_view.json"
    path.write_text(json.dumps(events))
    calls: list[int] = []

    def parse(p: Path) -> Any:
        calls.append(1)
        return trace_engine.load_trace(p)

    def get(store: TableStore) -> Any:
        trace = ParsedFileCache(store=store).get("trace_view", path, parse, codec=trace_engine.TRACE_CODEC)
        store.flush()
        return trace

    first = get(TableStore(tmp_path / "store", 100 * MB))
    again = get(TableStore(tmp_path / "store", 100 * MB))
    assert calls == [1]
    dump = lambda t: orjson.dumps(timeline.events(t, timeline.select(t, timeline.Window())))  # noqa: E731
    assert dump(again) == dump(first) and timeline.summary(again) == timeline.summary(first)
    assert len(again.blobs) == len(first.blobs) == 3  # 2 distinct args + 1 extra (id, bp), each stored once


def test_remote_key_has_no_inode(tmp_path: Path, kernel_file: Path) -> None:
    """Stats without an identity (remote objects) still key by location, size and mtime."""
    stat = storage.stat(kernel_file)
    assert stat.identity  # local: (device, inode)
    parse = Counted()
    store = TableStore(tmp_path / "store", 100 * MB)
    remote_like = storage.Entry(stat.name, kernel_file, False, True, False, stat.size, stat.mtime)
    store.get("ascend_kernels", kernel_file, remote_like, kernel_table.KERNELS_CODEC, parse)
    store.flush()
    store.get("ascend_kernels", kernel_file, remote_like, kernel_table.KERNELS_CODEC, parse)
    assert parse.calls == 1 and store.stats.hits == 1
