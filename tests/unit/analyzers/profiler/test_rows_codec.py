"""rows_codec: a table of Python rows reads back from Parquet as the same values of the same types."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mindinsight_clone.analyzers.profiler.engine.column_query import Table
from mindinsight_clone.analyzers.profiler.engine.rows_codec import ROWS_CODEC


def _round_trip(table: Table, tmp_path: Path) -> tuple[Table, list[dict[str, Any]]]:
    arrow, meta = ROWS_CODEC.encode((table, [{"file": "x.csv", "message": "1 row skipped"}]))
    pq.write_table(arrow, tmp_path / "t.parquet", row_group_size=2)  # several row groups, as the store reads them
    parquet = pq.ParquetFile(tmp_path / "t.parquet")
    return ROWS_CODEC.decode(parquet.iter_batches(batch_size=2), parquet.metadata.num_rows, parquet.schema_arrow, meta)


def test_values_and_types_survive(tmp_path: Path) -> None:
    rows = (["a", 1, 1.0, True, None, 1, 2**70], ["b", None, math.nan, False, None, 2.5, 1],
            ["", 3, -math.inf, None, None, "x", 3])
    table, problems = _round_trip(Table(("s", "i", "f", "b", "none", "mixed", "big"), rows), tmp_path)
    assert table.col_names == ("s", "i", "f", "b", "none", "mixed", "big")
    assert problems == [{"file": "x.csv", "message": "1 row skipped"}]
    for got, want in zip(table.rows, rows, strict=True):
        assert isinstance(got, list)
        for g, w in zip(got, want, strict=True):
            assert type(g) is type(w) and (g == w or (isinstance(w, float) and math.isnan(w) and math.isnan(g)))


def test_an_empty_table(tmp_path: Path) -> None:
    table, _ = _round_trip(Table(("a", "b"), ()), tmp_path)
    assert table == Table(("a", "b"), ())


def test_memory_series_survive(tmp_path: Path) -> None:
    import numpy as np

    from mindinsight_clone.analyzers.profiler.engine.rows_codec import SERIES_CODEC

    series = {"PTA": np.array([[1.0, 2.0, np.nan, 4.0], [2.0, 3.0, 5.0, np.nan]]), "APP": np.empty((0, 4)),
              "GE": np.array([[0.5, np.nan, 7.0, np.nan]])}
    arrow, meta = SERIES_CODEC.encode((series, [{"message": "1 row skipped"}]))
    pq.write_table(arrow, tmp_path / "s.parquet", row_group_size=1)
    parquet = pq.ParquetFile(tmp_path / "s.parquet")
    back, problems = SERIES_CODEC.decode(parquet.iter_batches(batch_size=1), parquet.metadata.num_rows,
                                         parquet.schema_arrow, meta)
    assert list(back) == ["PTA", "APP", "GE"] and problems == [{"message": "1 row skipped"}]
    for name, want in series.items():
        assert back[name].shape == want.shape and back[name].dtype == np.float64
        np.testing.assert_array_equal(back[name], want)  # NaN where NaN
