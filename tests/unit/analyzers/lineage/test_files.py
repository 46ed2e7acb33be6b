from __future__ import annotations

import os
from pathlib import Path

from mindinsight_clone.analyzers.lineage.files import FileCache, file_order_key, parse_file
from tests.unit.analyzers.lineage.builders import eval_event, train_event, write_lineage


def test_file_order_uses_the_name_timestamp() -> None:
    names = ["e.summary.20.0.h_lineage", "e.summary.3.0.h_lineage", "e.summary.100.0.h_lineage"]
    assert sorted(names, key=file_order_key) == [names[1], names[0], names[2]]


def test_crc_damaged_record_is_skipped(tmp_path: Path) -> None:
    path = write_lineage(tmp_path, 1, train_event(lr=0.1), eval_event({"acc": 1.0}))
    data = bytearray(path.read_bytes())
    data[20] ^= 0xFF  # inside the first payload: its CRC no longer matches
    path.write_bytes(bytes(data))
    lineage = parse_file(path)
    assert lineage.train is None and lineage.evaluation is not None


def test_cache_rereads_only_changed_files(tmp_path: Path) -> None:
    a = write_lineage(tmp_path, 1, train_event(lr=0.1))
    b = write_lineage(tmp_path, 2, eval_event({"acc": 0.5}))
    cache = FileCache()
    first = cache.get(a)
    cache.get(b)
    assert cache.parses == 2
    assert cache.get(a) is first and cache.parses == 2
    write_lineage(tmp_path, 2, eval_event({"acc": 0.7}), eval_event({"acc": 0.8}))
    st = os.stat(b)
    os.utime(b, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    lineage = cache.get(b)
    assert cache.parses == 3 and lineage is not None and lineage.evaluation == {
        "metric": {"acc": 0.8}, "valid_dataset": {"valid_dataset_size": 32}}
    b.unlink()
    assert cache.get(b) is None
    cache.retain({str(a)})
    assert cache.get(a) is first
