"""legacy_files: the bounded, cached readers of the old profiler layout (rows, JSON, lines) and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindinsight_clone.analyzers.profiler.adapters.legacy.legacy_files import read_csv, read_json, read_lines
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.errors import ProfilerRawFileError


def test_csv_rows_short_rows_are_counted(tmp_path: Path) -> None:
    path = tmp_path / "aicore_intermediate_0_type.csv"
    path.write_text("kernel_type,total_time,execution_frequency,percent\nMatMul,1.5,3,0.6\nCast,0.5\n\nAdd,1,2,0.4\n")
    table = read_csv(path, None)
    assert table.header == ("kernel_type", "total_time", "execution_frequency", "percent")
    assert table.rows == (("MatMul", "1.5", "3", "0.6"), ("Add", "1", "2", "0.4"))
    assert table.problems == ({"file": path.name, "message":
                               "1 row(s) skipped: fewer cells than the header (truncated file?)"},)
    assert len(read_csv(path, None, keep_short=True).rows) == 3
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ProfilerRawFileError, match=r"<empty.csv> is empty"):
        read_csv(empty, None)


def test_json_bounds_and_damage(tmp_path: Path) -> None:
    path = tmp_path / "flops_summary_0.json"
    path.write_text('{"FLOPs": 1.5, "FLOPS": 2}')
    assert read_json(path, None) == {"FLOPs": 1.5, "FLOPS": 2}
    with pytest.raises(ProfilerRawFileError, match=r"<flops_summary_0.json> is too large \(26 bytes; .* 10 bytes"):
        read_json(path, None, limit=10)
    path.write_text('{"FLOPs": 1.')
    with pytest.raises(ProfilerRawFileError, match="not valid JSON"):
        read_json(path, None)
    with pytest.raises(ProfilerRawFileError, match=r"<missing.json> cannot be read") as err:
        read_json(tmp_path / "missing.json", None)
    assert str(tmp_path) not in err.value.message


def test_lines_cached_per_file_version(tmp_path: Path) -> None:
    path = tmp_path / "device_queue_profiling_0.txt"
    path.write_text("1 64 1 0 10\n0 2 1 0.5\n")
    cache = ParsedFileCache()
    assert read_lines(path, cache) == ("1 64 1 0 10", "0 2 1 0.5")
    path.write_text("1 64 1 3 10\n")  # rewritten: another size, re-read
    assert read_lines(path, cache) == ("1 64 1 3 10",)
    with pytest.raises(ProfilerRawFileError, match="too large"):
        read_lines(path, None, limit=4)
