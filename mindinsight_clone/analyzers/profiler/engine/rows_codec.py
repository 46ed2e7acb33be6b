"""The host tables <-> Parquet, so the table store (table_store.py) keeps them too, not only kernels and the trace:
a table of Python rows (`column_query.Table` with the problems of its parse: operator_details.csv, api_statistic.csv,
~2 s of CPU to parse 170,000 operator rows) by ROWS_CODEC, and memory series (component -> (n, 4) float64 array:
memory_record.csv, npu_module_mem.csv and their database tables) by SERIES_CODEC.

Each column is stored in the Arrow type every one of its values has (str, bool, int64, float64; None as null), so
a value reads back as the same Python object (1 stays an int, 1.0 a float, NaN a NaN). A column whose values mix
types is stored as JSON text per value (the standard library's, which keeps NaN and infinities).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from mindinsight_clone.analyzers.profiler.engine.column_query import Table

_TYPES = (("str", str), ("bool", bool), ("int", int), ("float", float))


def _kind(values: Sequence[Any]) -> str:
    """The one Python type of a column's values (None aside), else "json"; bool is not an int here."""
    present = {type(v) for v in values if v is not None}
    for kind, cls in _TYPES:
        if present <= {cls}:
            return kind
    return "json"


class _RowsCodec:
    """(Table, problems) <-> an Arrow table of columns `c0..cN` (names and kinds in the metadata)."""

    version = "rows-1"

    def encode(self, value: tuple[Table, list[dict[str, Any]]]) -> tuple[Any, dict[str, Any]]:
        import pyarrow as pa

        table, problems = value
        types = {"str": pa.string(), "bool": pa.bool_(), "int": pa.int64(), "float": pa.float64()}
        arrays, kinds = [], []
        for i in range(len(table.col_names)):
            values = [row[i] for row in table.rows]
            kind = _kind(values)
            array = None
            if kind != "json":
                try:
                    array = pa.array(values, type=types[kind], from_pandas=False)
                except (pa.ArrowInvalid, OverflowError):  # e.g. an int past int64
                    kind = "json"
            if array is None:
                array = pa.array([None if v is None else json.dumps(v) for v in values], type=pa.string())
            arrays.append(array)
            kinds.append(kind)
        names = [f"c{i}" for i in range(len(arrays))]
        arrow = pa.table(arrays, names=names) if arrays else pa.table({"c": pa.array([], type=pa.null())})
        return arrow, {"col_names": list(table.col_names), "kinds": kinds, "problems": list(problems),
                       "rows": len(table.rows)}

    def decode(self, batches: Iterable[Any], num_rows: int, schema: Any,
               meta: dict[str, Any]) -> tuple[Table, list[dict[str, Any]]]:
        import pyarrow as pa

        names, kinds = tuple(meta["col_names"]), meta["kinds"]
        if not names:
            return Table((), ()), list(meta.get("problems", []))
        arrow = pa.Table.from_batches(list(batches), schema=schema)
        columns = []
        for i, kind in enumerate(kinds):
            values = arrow.column(f"c{i}").to_pylist()
            if kind == "json":
                values = [None if v is None else json.loads(v) for v in values]
            columns.append(values)
        rows = tuple(list(row) for row in zip(*columns, strict=True))
        if len(rows) != meta.get("rows", len(rows)):
            raise ValueError(f"{len(rows)} rows read, {meta.get('rows')} written")
        return Table(names, rows), list(meta.get("problems", []))


ROWS_CODEC = _RowsCodec()


class _SeriesCodec:
    """(component -> (n, 4) float64 array, problems) <-> columns `component` (dictionary-encoded) and `v0..v3`, the
    components in their order, each one's rows in theirs."""

    version = "series-1"

    def encode(self, value: tuple[dict[str, Any], list[dict[str, Any]]]) -> tuple[Any, dict[str, Any]]:
        import numpy as np
        import pyarrow as pa

        series, problems = value
        names = list(series)
        widths = {np.asarray(a).shape[1] for a in series.values()} or {4}
        if len(widths) != 1:
            raise ValueError(f"series of widths {sorted(widths)}")
        width = widths.pop()
        arrays = [np.asarray(series[n], dtype=np.float64).reshape(-1, width) for n in names]
        stacked = np.concatenate(arrays) if arrays else np.empty((0, width))
        ids = np.repeat(np.arange(len(names), dtype=np.int32), [len(a) for a in arrays])
        columns = {"component": pa.DictionaryArray.from_arrays(pa.array(ids), pa.array(names, type=pa.string()))}
        columns.update({f"v{i}": pa.array(stacked[:, i]) for i in range(width)})
        return pa.table(columns), {"components": names, "width": width, "problems": list(problems)}

    def decode(self, batches: Iterable[Any], num_rows: int, schema: Any,
               meta: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        import numpy as np
        import pyarrow as pa

        names, width = meta["components"], int(meta["width"])
        arrow = pa.Table.from_batches(list(batches), schema=schema)
        ids = np.asarray(arrow.column("component").combine_chunks().indices, dtype=np.int64) if num_rows \
            else np.empty(0, dtype=np.int64)
        values = np.column_stack([arrow.column(f"v{i}").to_numpy() for i in range(width)]) if num_rows \
            else np.empty((0, width))
        series = {name: np.ascontiguousarray(values[ids == i]) for i, name in enumerate(names)}
        return series, list(meta.get("problems", []))


SERIES_CODEC = _SeriesCodec()
