"""Load `trace_view.json` (a JSON array of Chrome trace events, hundreds of MB) into `TraceColumns` with DuckDB.

Engine: DuckDB's `read_json(format='array')` parses the array with the GIL released (the file cut into `THREADS`
parts read in parallel, json_parts.py) and hands the events over in Arrow batches of `BATCH_ROWS` rows, fetched by
a second thread while this one dictionary-encodes the previous batch (arrow_columns.Interner) and copies it into
numpy columns: the file is never held whole, nor a dict per event.
Measured against the orjson streaming reader (trace_events.py) and polars on a 451 MB trace (docs/profiler.md,
"Engine"); pyarrow reads only newline-delimited JSON.

The keys read are ph/name/cat/pid/tid/ts/dur/args, the flow keys `id`/`bp`, and any other top-level key seen in the
file's first MB; keys other than the core ones are kept per event as one JSON object (`extra`), as the streaming
reader keeps them (a key that first appears after the first MB is not read: docs/profiler.md). The file is read
through the storage seam: DuckDB's files are parts of `storage.open_binary` handles (a local file, or range reads of
a remote object).

What DuckDB refuses (a damaged array, an object document `{"traceEvents": [...]}`, an element that is not an
object, an event over MAX_EVENT_BYTES) and a file that does not end with the array's `]` (DuckDB would silently
drop a cut last event) are read by the streaming reader, which keeps every complete event and says what was lost.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import uuid
from collections.abc import Generator
from typing import Any, Literal

import numpy as np
import orjson

from mindinsight_clone.analyzers.profiler.engine import json_parts, trace_events
from mindinsight_clone.analyzers.profiler.engine.arrow_columns import (
    GrowingColumns,
    IdsOf,
    Interner,
    batch_columns,
    compact,
    dictionary_column,
    floats,
    release_unused_memory,
)
from mindinsight_clone.analyzers.profiler.engine.trace_events import BlobArray, TraceColumns
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)
Engine = Literal["duckdb", "python"]
BATCH_ROWS = 1 << 16  # events per Arrow batch (~10 MB of DuckDB vectors in flight)
TRIM_EVERY = 8  # batches between two returns of freed memory
SAMPLE_BYTES = 1 << 20  # the events of the file's first MB are sampled for keys beyond the core ones
THREADS = max(1, min(4, os.cpu_count() or 1))
MAX_EVENT_BYTES = 1 << 22  # DuckDB's maximum_object_size: a bigger event goes to the streaming reader
MEMORY_LIMIT = "512MB"  # DuckDB's own buffers (the batches handed over are counted apart)
CORE = ("ph", "name", "cat", "pid", "tid", "ts", "dur", "args")
# keys besides the core ones always read: flow events (`ph` s/t/f) carry them, anywhere in the file. Every key
# declared costs DuckDB a lookup per event (the 16 other keys of the Trace Event Format would double the read time),
# so the others are read when the file's first SAMPLE_BYTES hold them.
FLOW_KEYS = ("id", "bp")
_TEXT = {"ph": "VARCHAR", "name": "VARCHAR", "cat": "VARCHAR", "ts": "VARCHAR", "dur": "VARCHAR"}


def load_trace(path: Location, engine: Engine = "duckdb") -> TraceColumns:
    """trace_view.json -> columns (duckdb), or the streaming orjson reader for what DuckDB cannot read."""
    if engine == "duckdb":
        try:
            return _load_duckdb(path)
        except Exception as err:  # duckdb raises its own error classes for anything it cannot read
            if isinstance(err, MemoryError):
                raise
            log.info("%s: read with the streaming reader (%s)", storage.describe(path),
                     str(err).splitlines()[0][:200] if str(err) else type(err).__name__)
    return trace_events.load_trace(path)


def _sample(path: Location, parts: list[json_parts.Part]) -> tuple[list[str], int]:
    """Top-level keys other than the core ones seen in the events of the file's first SAMPLE_BYTES (parsed with the
    streaming reader's slicer: cheap, and it works where DuckDB's own sampling would buffer a one-line file), and
    the file's event count estimated from the sample's bytes per event."""
    seen: dict[str, None] = {}
    slices = trace_events.iter_file_slices(path, [], SAMPLE_BYTES)
    try:
        events = next(slices, [])
    finally:
        slices.close()
    for event in events:
        if isinstance(event, dict):
            seen.update(dict.fromkeys(event))
    body = sum(p.end - p.start for p in parts)
    sampled = min(body, len(orjson.dumps(events)))
    # generous: the file's head holds the bigger metadata events, and pages of an array never filled cost nothing
    estimate = int(body * len(events) / sampled * 1.6) + 1024 if sampled else 1024
    return list(dict.fromkeys([*FLOW_KEYS, *(k for k in seen if k not in CORE)])), estimate


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _query(source: str, extra_keys: list[str], strict: bool) -> str:
    """strict: ts/dur read as DOUBLE and pid/tid as BIGINT by the JSON reader (numbers and numeric strings: what the
    profilers write; anything else fails the whole read); else ts/dur as text cast leniently (non-numeric: absent)
    and pid/tid as JSON values (ints or strings), which costs about a fifth more."""
    columns = {k: _TEXT.get(k, "JSON") for k in (*CORE, *extra_keys)}
    if strict:
        columns.update(ts="DOUBLE", dur="DOUBLE", pid="BIGINT", tid="BIGINT")
        times = "ts, dur"
    else:
        times = ", ".join(f"TRY_CAST(trim({k}, ' \t\r\n') AS DOUBLE) AS {k}" for k in ("ts", "dur"))
    spec = "{" + ", ".join(f"{_literal(k)}: '{t}'" for k, t in columns.items()) + "}"
    if extra_keys:
        pairs = ", ".join(f"{_literal(k)}, {_quote(k)}" for k in extra_keys)
        absent = " AND ".join(f"{_quote(k)} IS NULL" for k in extra_keys)
        extra = f"CASE WHEN {absent} THEN NULL ELSE json_merge_patch('{{}}', json_object({pairs})) END"
    else:
        extra = "NULL"
    # every name and literal above is quoted; `source` is our own seam:// token, never request input
    return (f"SELECT ph, name, cat, pid, tid, {times}, args, {extra} AS extra "  # noqa: S608
            f"FROM read_json({source}, format='array', columns={spec}, maximum_object_size={MAX_EVENT_BYTES})")


def _value_key(text: Any) -> Any:
    """pid/tid: an int (strict read), or the JSON value (ints and strings; 1, 1.0 and true share an id, as in the
    streaming reader)."""
    if text is None:
        return 0
    if isinstance(text, int):
        return text
    return trace_events.hashable(orjson.loads(text))


class _Blobs:
    """args / extra JSON texts: dictionary-encoded per batch in Arrow, the batches' dictionaries appended, and made
    distinct once at the end (`finish`): no Python object per blob, each distinct blob stored once."""

    def __init__(self) -> None:
        self.parts: list[Any] = []
        self.count = 0

    def ids_of(self, column: Any) -> np.ndarray:
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(column, pa.ChunkedArray):
            parts = [self.ids_of(chunk) for chunk in column.chunks]
            return np.concatenate(parts) if parts else np.empty(0, dtype=np.int32)
        if isinstance(column.type, pa.ExtensionType):  # DuckDB's JSON type arrives as an extension of string
            column = column.storage
        encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
        ids = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int32)
        ids[ids >= 0] += self.count
        self.parts.append(encoded.dictionary.cast(pa.binary()))
        self.count += len(encoded.dictionary)
        return ids

    def finish(self, *columns: np.ndarray) -> BlobArray:
        """The distinct blobs; the ids in `columns` (from ids_of) are rewritten to point into them."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if not self.parts:
            return BlobArray(pa.array([], type=pa.binary()))
        encoded = pc.dictionary_encode(pa.concat_arrays(self.parts))
        self.parts = []
        remap = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)
        for ids in columns:
            present = ids >= 0
            ids[present] = remap[ids[present]]
        return BlobArray(encoded.dictionary)


def _prefetched(reader: Any, depth: int = 2) -> Generator[Any, None, None]:
    """The batches of `reader`, fetched by another thread while this one converts the previous ones (DuckDB runs
    with the GIL released, so the parse and the conversion overlap)."""
    import queue

    batches: queue.Queue[Any] = queue.Queue(maxsize=depth)
    done = object()
    stop = threading.Event()

    def fetch() -> None:
        try:
            for batch in reader:
                while not stop.is_set():
                    try:
                        batches.put(batch, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            batches.put(done)
        except BaseException as err:  # handed to the consumer
            batches.put(err)

    thread = threading.Thread(target=fetch, name="trace-fetch", daemon=True)
    thread.start()
    try:
        while (item := batches.get()) is not done:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()


_lock = threading.Lock()


def _connect(location: Location, parts: list[json_parts.Part]) -> tuple[Any, str]:
    """A DuckDB connection that reads the parts of `location` (json_parts.py); the SQL list of their URLs."""
    import duckdb

    con = duckdb.connect(config={"threads": THREADS, "memory_limit": MEMORY_LIMIT})
    from mindinsight_clone.analyzers.profiler.engine.json_parts_fs import PartsFileSystem

    filesystem = PartsFileSystem(location, uuid.uuid4().hex, parts)
    with _lock:  # fsspec's registry of instances is process-wide
        con.register_filesystem(filesystem)
    return con, "[" + ", ".join(_literal(url) for url in filesystem.urls) + "]"


def _load_duckdb(path: Location) -> TraceColumns:
    parts = json_parts.split(path, THREADS)  # ValueError for a cut array (DuckDB would drop its last event silently)
    keys, estimate = _sample(path, parts)
    try:
        return _read(path, parts, keys, estimate, strict=True)
    except Exception as err:
        if "transform error" not in str(err):  # not a ts/dur that the strict read could not cast
            raise
    return _read(path, parts, keys, estimate, strict=False)


def _read(path: Location, pieces: list[json_parts.Part], keys: list[str], estimate: int, strict: bool) -> TraceColumns:
    con, source = _connect(path, pieces)
    dtypes = {k: np.float64 if k in ("ts", "dur") else np.int32 for k in (*CORE, "extra")}
    try:
        reader = con.sql(_query(source, keys, strict)).to_arrow_reader(BATCH_ROWS)
        strings, values, blobs = Interner(), Interner(_value_key), _Blobs()
        columns = GrowingColumns(dtypes, estimate)
        with contextlib.closing(_prefetched(reader)) as batches:
            for n, batch in enumerate(batches):
                if n % TRIM_EVERY == TRIM_EVERY - 1:
                    release_unused_memory()  # freed batches back to the OS as the read goes: a lower peak
                found = {key: strings.ids_of(batch.column(key)) for key in ("ph", "name", "cat")}
                found.update({key: values.ids_of(batch.column(key)) for key in ("pid", "tid")})
                found.update({key: blobs.ids_of(batch.column(key)) for key in ("args", "extra")})
                found.update(ts=floats(batch.column("ts")), dur=floats(batch.column("dur")))
                columns.add(found)
    finally:
        con.close()
    merged = _compacted(columns.finish(), strings, values)
    return TraceColumns(ph=merged["ph"], name=merged["name"], cat=merged["cat"], pid=merged["pid"],
                        tid=merged["tid"], ts=merged["ts"], dur=merged["dur"], args=merged["args"],
                        extra=merged["extra"], strings=strings.values, values=values.values,
                        blobs=blobs.finish(merged["args"], merged["extra"]), problems=())


def _compacted(columns: dict[str, np.ndarray], strings: Interner, values: Interner) -> dict[str, np.ndarray]:
    """ph/name/cat and pid/tid ids in the smallest dtype (args/extra stay int32: -1 and maybe millions of blobs)."""
    for key in ("ph", "name", "cat"):
        columns[key] = compact(columns[key], len(strings.ids))
    for key in ("pid", "tid"):
        columns[key] = compact(columns[key], len(values.ids))
    return columns


class _TraceCodec:
    """TraceColumns <-> Parquet (table_store.py). ph/name/cat/pid/tid/args/extra are dictionary columns (their ids
    are rebuilt on reading, so one file's dictionaries may differ from another's), ts/dur float64."""

    version = "trace-1"

    def encode(self, trace: TraceColumns) -> tuple[Any, dict[str, Any]]:
        import pyarrow as pa

        strings = pa.array(list(trace.strings), type=pa.string())
        values = pa.array([orjson.dumps(v).decode() for v in trace.values], type=pa.string())
        blobs = trace.blobs.array if isinstance(trace.blobs, BlobArray) else pa.array(list(trace.blobs), pa.binary())
        columns = {key: dictionary_column(getattr(trace, key), strings) for key in ("ph", "name", "cat")}
        columns.update({key: dictionary_column(getattr(trace, key), values) for key in ("pid", "tid")})
        columns.update({key: dictionary_column(getattr(trace, key), blobs) for key in ("args", "extra")})
        columns.update(ts=pa.array(trace.ts), dur=pa.array(trace.dur))
        return pa.table(columns), {"problems": list(trace.problems)}

    def decode(self, batches: Any, num_rows: int, schema: Any, meta: dict[str, Any]) -> TraceColumns:
        strings, values, blobs = Interner(), Interner(_value_key), _Blobs()
        interners: dict[str, IdsOf] = {"ph": strings, "name": strings, "cat": strings, "pid": values, "tid": values,
                                       "args": blobs, "extra": blobs}
        columns = _compacted(batch_columns(batches, num_rows, ("ts", "dur"), interners), strings, values)
        return TraceColumns(**columns, strings=strings.values, values=values.values,
                            blobs=blobs.finish(columns["args"], columns["extra"]),
                            problems=tuple(meta.get("problems", ())))


TRACE_CODEC = _TraceCodec()
