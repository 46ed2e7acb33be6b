"""Arrow arrays (what pyarrow's CSV reader, DuckDB and Parquet hand over) to the numpy columns the profiler views
query (column_query.ColumnTable, trace_events.TraceColumns), batch by batch.

Strings become dense integer ids into a tuple of distinct values (`Interner`; `compact` then picks the smallest
dtype): each batch is dictionary-encoded by Arrow (C++), and only its distinct values meet Python, so a million rows
of a few thousand names cost a few dict lookups per distinct value, not per row. Numbers become float64 with NaN for
absent cells.

Arrow buffers handed over by DuckDB stay alive as long as any array of their batch does, so everything kept is
copied out of the batch (`floats`), never viewed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")  # as the csv path reads files: bad bytes replaced
    return str(value)


class Interner:
    """Dense ids for the values of Arrow batches, in order of first appearance. `key` maps a batch's distinct value
    (str, bytes or None for an absent cell) to what is stored; values with equal keys share an id."""

    def __init__(self, key: Callable[[Any], Hashable] = _text) -> None:
        self.ids: dict[Hashable, int] = {}
        self._key = key

    @property
    def values(self) -> tuple[Any, ...]:
        return tuple(self.ids)

    def ids_of(self, array: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """int32 ids of `array`'s values (a plain or dictionary array; nulls go through `key(None)`)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(array, pa.ChunkedArray):
            parts = [self.ids_of(chunk) for chunk in array.chunks]
            return np.concatenate(parts) if parts else np.empty(0, dtype=np.int32)
        encoded = array if pa.types.is_dictionary(array.type) else pc.dictionary_encode(array)
        distinct = encoded.dictionary.to_pylist()
        if not distinct and not len(array):
            return np.empty(0, dtype=np.int32)
        ids, key = self.ids, self._key
        remap = np.fromiter((ids.setdefault(key(v), len(ids)) for v in (*distinct, None)), dtype=np.int32,
                            count=len(distinct) + 1)
        indices = encoded.indices
        if indices.null_count:
            indices = pc.fill_null(indices, len(distinct))  # the extra last slot: key(None)
        return remap[indices.to_numpy(zero_copy_only=False)]


def compact(ids: np.ndarray, count: int) -> np.ndarray:
    """`ids` (0 <= id < count, or -1) in the smallest signed integer dtype that holds them: a million ids of a few
    thousand names take 2 MB instead of 4 (numpy indexes with any integer dtype)."""
    dtype = np.int8 if count <= 127 else np.int16 if count <= 32767 else np.int32
    return ids if ids.dtype == dtype else ids.astype(dtype)


def stripped(value: Any) -> str:
    """The interning key of CSV cells: text without surrounding whitespace (the profiler's trailing tabs)."""
    return _text(value).strip()


def floats(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """float64 copy of a numeric Arrow array, NaN where null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if not pa.types.is_float64(array.type):
        array = pc.cast(array, pa.float64())
    out = array.to_numpy(zero_copy_only=False)
    return np.array(out, dtype=np.float64, copy=True)  # never a view into the batch (it would pin all of it)


def dictionary_column(ids: np.ndarray, values: Any, value_type: Any = None) -> pa.Array:
    """An Arrow dictionary array of int32 `ids` (-1 = null) into `values` (how tables are written to Parquet)."""
    import pyarrow as pa

    indices = pa.array(ids.astype(np.int32, copy=False), mask=ids < 0) if (ids < 0).any() else pa.array(ids)
    dictionary = values if isinstance(values, pa.Array) else pa.array(list(values), type=value_type)
    return pa.DictionaryArray.from_arrays(indices, dictionary)


def column_table_to_arrow(table: Any) -> pa.Table:
    """A ColumnTable as an Arrow table: `n:<column>` float64, `s:<column>` dictionary<int32, string>."""
    import pyarrow as pa

    arrays = {f"n:{k}": pa.array(v) for k, v in table.numbers.items()}
    arrays.update({f"s:{k}": dictionary_column(table.ids[k], table.strings[k], pa.string()) for k in table.ids})
    return pa.table(arrays) if arrays else pa.table({"n:": pa.array([], type=pa.float64())})


def column_table_from_batches(batches: Iterable[pa.RecordBatch], num_rows: int, schema: pa.Schema) -> Any:
    """The inverse of column_table_to_arrow, batch by batch."""
    from mindinsight_clone.analyzers.profiler.engine.column_query import ColumnTable

    numbers = [n for n in schema.names if n.startswith("n:") and n != "n:"]
    interners = {n: Interner() for n in schema.names if n.startswith("s:")}
    columns = batch_columns(batches, num_rows, numbers, interners)
    return ColumnTable({n[2:]: columns[n] for n in numbers},
                       {n[2:]: compact(columns[n], len(i.ids)) for n, i in interners.items()},
                       {n[2:]: i.values for n, i in interners.items()}, num_rows)


class IdsOf(Protocol):
    def ids_of(self, array: Any) -> np.ndarray: ...


def batch_columns(batches: Iterable[pa.RecordBatch], num_rows: int, numbers: Sequence[str],
                  ids: Mapping[str, IdsOf]) -> dict[str, np.ndarray]:
    """numpy columns from Arrow batches, filled into arrays of `num_rows` allocated once (no batch is kept, no
    concatenation doubles a column): `numbers` as float64, `ids` through each column's interner."""
    out = {k: np.empty(num_rows, dtype=np.float64) for k in numbers}
    out.update({k: np.empty(num_rows, dtype=np.int32) for k in ids})
    pos = 0
    for batch in batches:
        end = pos + batch.num_rows
        if end > num_rows:
            raise ValueError(f"more rows than the {num_rows} announced")
        for key in numbers:
            out[key][pos:end] = floats(batch.column(key))
        for key, interner in ids.items():
            out[key][pos:end] = interner.ids_of(batch.column(key))
        pos = end
    if pos != num_rows:
        raise ValueError(f"{pos} rows instead of the {num_rows} announced")
    return out


def release_unused_memory() -> None:
    """Give back to the OS what a big parse freed (Arrow's pool and glibc's heap keep freed memory for reuse: after
    a 450 MB trace that is a few hundred MB the process would hold until the next parse)."""
    import contextlib
    import ctypes
    import sys

    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # not glibc (musl): nothing to trim
            ctypes.CDLL("libc.so.6").malloc_trim(0)


def preload_engines() -> None:
    """Import the engines (pyarrow's CSV/compute/Parquet modules, DuckDB: ~0.3 s of CPU) ahead of a measurement.
    The app does not: the first big parse imports what it needs (a background import on the first profiler request
    slowed that request, e.g. the cluster page, by as much), and a server that never shows a profile never loads
    them."""
    import duckdb  # noqa: F401
    import pyarrow.compute
    import pyarrow.csv
    import pyarrow.parquet  # noqa: F401


class GrowingColumns:
    """numpy columns filled batch by batch into arrays allocated for an estimated row count (grown by half when the
    estimate was short; an estimate too high costs nothing: pages never written are never resident), instead of a
    list of small arrays per column joined at the end: no join doubling a column, no heap strewn with small blocks."""

    def __init__(self, dtypes: Mapping[str, Any], capacity: int) -> None:
        self.length = 0
        self.columns = {k: np.empty(max(1, capacity), dtype=t) for k, t in dtypes.items()}

    def add(self, values: Mapping[str, np.ndarray]) -> None:
        n = len(next(iter(values.values())))
        end = self.length + n
        capacity = len(next(iter(self.columns.values())))
        if end > capacity:
            grown = max(end, capacity + capacity // 2)
            for column in self.columns.values():
                column.resize(grown, refcheck=False)  # realloc: in place when it can be
        for key, array in values.items():
            self.columns[key][self.length:end] = array
        self.length = end

    def finish(self) -> dict[str, np.ndarray]:
        out = {}
        for key in list(self.columns):
            column = self.columns.pop(key)
            column.resize(self.length, refcheck=False)  # shrinks in place
            out[key] = column
        return out
