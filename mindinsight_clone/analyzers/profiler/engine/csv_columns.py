"""The columns a view needs from a profiler CSV file (kernel_details.csv has a million rows and 50+ columns), as a
`ColumnTable`: numbers float64 (NaN = empty / `N/A`), strings interned (trimmed).

Engine: pyarrow's CSV reader (multi-threaded C++, only the wanted columns converted, strings dictionary-encoded
as they are read), fed through the storage seam (`storage.open_binary`: a local file, or range reads of a remote
object). Measured against DuckDB's `read_csv` and polars on a 1M-row kernel_details.csv (docs/profiler.md,
"Engine"): the fastest of the three at the lowest peak memory, and it reads a Python file object.

The csv module path (`engine="python"`) gives the same table; it is what the arrow path falls back to for what it
cannot read exactly (a quoted cell spanning lines, rows with more cells than the header, a cell larger than the
biggest block) and the reference the tests compare the arrow path with. Both count what they skip in the file's
`ReadReport`: rows with fewer cells than the header (a truncated file), non-numeric cells read as absent.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.arrow_columns import (
    Interner,
    compact,
    floats,
    release_unused_memory,
    stripped,
)
from mindinsight_clone.analyzers.profiler.engine.column_query import ColumnTable
from mindinsight_clone.ingest import storage

log = logging.getLogger(__name__)
Engine = Literal["arrow", "python"]
BLOCK_BYTES = 1 << 20  # pyarrow's block per thread; a row must fit in one
MAX_BLOCK_BYTES = 1 << 27  # a cell up to ~64 MB is read (the csv path's field_size_limit); bigger: csv path
PYTHON_BATCH_ROWS = 50_000
TRIM_EVERY = 64  # blocks between two returns of freed memory
_SHORT = "fewer cells than the header (truncated file?)"


class _Fallback(Exception):
    """The arrow path cannot give exactly the csv path's answer for this file."""


def read_columns(csv_file: ascend_csv.CsvFile, numbers: Mapping[str, str], strings: Mapping[str, str],
                 engine: Engine = "arrow") -> ColumnTable:
    """`numbers` / `strings`: stored column -> CSV header. A header the file lacks gives an all-absent number
    column or an all-"" string column."""
    if engine == "arrow":
        try:
            return _read_arrow(csv_file, numbers, strings)
        except _Fallback as why:
            log.info("%s: read with the csv module (%s)", csv_file.report.label, why)
        except ImportError:  # pragma: no cover - pyarrow is a dependency
            pass
    return _read_python(csv_file, numbers, strings)


def lenient_numbers(cells: Sequence[Any], bad: Counter[str], column: str) -> np.ndarray:
    """float64 column from text cells; empty / `N/A` cells are NaN, other non-numeric cells too (counted in
    `bad[column]`)."""
    try:
        return np.array(cells, dtype=np.float64)  # numpy parses the strings (whitespace and tabs allowed)
    except ValueError:
        pass
    missing = ascend_csv.MISSING_CELLS
    try:
        return np.array(["nan" if c.strip() in missing else c for c in cells], dtype=np.float64)
    except ValueError:
        out = np.full(len(cells), np.nan)
        count = 0
        for i, cell in enumerate(cells):
            try:
                value = ascend_csv.number(cell)
            except ValueError:
                count += 1
                continue
            out[i] = np.nan if value is None else value
        if count:
            bad[column] += count
        return out


# ------------------------------------------------------------------------------------------------ arrow path
def _read_arrow(csv_file: ascend_csv.CsvFile, numbers: Mapping[str, str], strings: Mapping[str, str]) -> ColumnTable:
    import pyarrow as pa

    num_cols = {k: f"c{csv_file.index[h]}" for k, h in numbers.items() if csv_file.has(h)}
    str_cols = {k: f"c{csv_file.index[h]}" for k, h in strings.items() if csv_file.has(h)}
    block, lenient = BLOCK_BYTES, False
    while True:
        report = ascend_csv.ReadReport(csv_file.report.label)  # a retry starts with a clean report
        try:
            table = _stream(csv_file, num_cols, str_cols, block, lenient, report, numbers)
            break
        except pa.ArrowInvalid as err:
            text = str(err)
            if "conversion error" in text and not lenient:
                lenient = True  # a non-numeric cell: read the numbers as text, convert them leniently
            elif "straddl" in text and block < MAX_BLOCK_BYTES:
                block *= 4  # a row larger than the block
            else:
                raise _Fallback(text.splitlines()[0][:200]) from None
    csv_file.report.skipped.update(report.skipped)
    csv_file.report.notes.extend(report.notes)
    for key in strings:  # a column the file lacks: every cell ""
        if key not in table.ids:
            table.ids[key] = np.zeros(table.length, dtype=np.int8)
            table.strings[key] = ("",) if table.length else ()
    return table


def _stream(csv_file: ascend_csv.CsvFile, num_cols: Mapping[str, str], str_cols: Mapping[str, str], block: int,
            lenient: bool, report: ascend_csv.ReadReport, headers: Mapping[str, str]) -> ColumnTable:
    """The wanted columns, batch by batch from pyarrow's streaming CSV reader (a block of rows at a time: the
    file's wanted columns are never held as Arrow arrays whole). Numbers float64 (text when `lenient`), strings
    dictionary-encoded bytes; rows with fewer cells than the header counted in `report`. Raises _Fallback for
    rows the csv module would read differently, pa.ArrowInvalid for the caller's retries."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    short: list[int] = []
    odd: list[str] = []
    lock = threading.Lock()

    def invalid(row: Any) -> str:
        text = row.text or ""
        with lock:
            if row.actual_columns > row.expected_columns or '"' in text:
                odd.append(text[:80])  # more cells than the header, or a quoted cell spanning lines
            elif text.strip(" \t\r\n,"):
                short.append(1)
        return "skip"

    text_type = pa.dictionary(pa.int32(), pa.binary())
    types = {c: (pa.binary() if lenient else pa.float64()) for c in num_cols.values()}
    types.update({c: text_type for c in str_cols.values()})
    read = pa_csv.ReadOptions(column_names=[f"c{i}" for i in range(csv_file.width)], skip_rows=1,
                              block_size=block)
    parse = pa_csv.ParseOptions(invalid_row_handler=invalid)
    convert = pa_csv.ConvertOptions(include_columns=list(types), column_types=types, check_utf8=False,
                                    null_values=sorted(ascend_csv.MISSING_CELLS), strings_can_be_null=False)
    interners = {k: Interner(stripped) for k in str_cols}
    parts: dict[str, list[np.ndarray]] = {k: [] for k in (*num_cols, *str_cols)}
    bad: Counter[str] = Counter()  # non-numeric cells per number column
    length = 0
    try:
        with storage.open_binary(csv_file.path, ascend_csv.ROWS_BLOCK_BYTES) as handle:
            for n, batch in enumerate(pa_csv.open_csv(handle, read_options=read, parse_options=parse,
                                                      convert_options=convert)):
                if n % TRIM_EVERY == TRIM_EVERY - 1:
                    release_unused_memory()  # the parse's freed blocks back to the OS as it goes: a lower peak
                length += batch.num_rows
                for key, column in num_cols.items():
                    values = batch.column(column)
                    parts[key].append(lenient_numbers([stripped(c) for c in values.to_pylist()], bad, key)
                                      if lenient else floats(values))
                for key, column in str_cols.items():
                    parts[key].append(interners[key].ids_of(batch.column(column)))
    except OSError as err:
        raise _Fallback(ascend_csv.reason(err)) from None
    if odd:
        raise _Fallback(f"{len(odd)} row(s) the csv module reads differently, e.g. {odd[0]!r}")
    if short:
        report.skip(_SHORT, len(short))
    out_numbers = {k: _joined(parts.pop(k), np.float64) if k in num_cols else np.full(length, np.nan)
                   for k in headers}
    for key, count in bad.items():
        report.note(f"{count} non-numeric cell(s) in {headers[key]!r} read as absent")
    ids = {k: compact(_joined(parts.pop(k), np.int32), len(interners[k].ids)) for k in str_cols}
    texts = {k: interners[k].values if length else () for k in str_cols}
    return ColumnTable(out_numbers, ids, texts, length)


def _joined(chunks: list[np.ndarray], dtype: Any) -> np.ndarray:
    out = np.concatenate(chunks) if chunks else np.empty(0, dtype=dtype)
    chunks.clear()
    return out


# ------------------------------------------------------------------------------------------------ csv module path
class _TextInterner:
    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def ids_of(self, values: Sequence[str]) -> np.ndarray:
        """Dense ids of `values` (new values get the next ids, in order of first appearance)."""
        ids = self.ids
        for value in dict.fromkeys(values):  # distinct values, C speed
            if value not in ids:
                ids[value] = len(ids)
        return np.fromiter(map(ids.__getitem__, values), dtype=np.int32, count=len(values))


def _read_python(csv_file: ascend_csv.CsvFile, numbers: Mapping[str, str], strings: Mapping[str, str]) -> ColumnTable:
    report = csv_file.report
    num_keys = [k for k, h in numbers.items() if csv_file.has(h)]
    str_keys = [k for k, h in strings.items() if csv_file.has(h)]
    wanted = [csv_file.index[numbers[k]] for k in num_keys] + [csv_file.index[strings[k]] for k in str_keys]
    interners = {k: _TextInterner() for k in strings}
    bad: Counter[str] = Counter()
    parts: dict[str, list[np.ndarray]] = {k: [] for k in (*numbers, *strings)}
    length = 0
    for batch in (csv_file.batches(PYTHON_BATCH_ROWS, wanted) if wanted else ()):
        columns = list(zip(*batch, strict=True))
        length += len(batch)
        for i, key in enumerate(num_keys):
            parts[key].append(lenient_numbers(columns[i], bad, key))
        for i, key in enumerate(str_keys):
            parts[key].append(interners[key].ids_of(columns[len(num_keys) + i]))
    out_numbers = {k: np.concatenate(parts[k]) if k in num_keys and parts[k] else np.full(length, np.nan)
                   for k in numbers}
    for key, count in bad.items():
        report.note(f"{count} non-numeric cell(s) in {numbers[key]!r} read as absent")
    ids: dict[str, np.ndarray] = {}
    texts: dict[str, tuple[str, ...]] = {}
    for key in strings:
        if key in str_keys and parts[key]:
            ids[key] = np.concatenate(parts[key])
            raw = interners[key].ids
        else:
            ids[key] = np.zeros(length, dtype=np.int32)
            raw = {"": 0} if length else {}
        # trimmed; equal trimmed values share one id
        merged: dict[str, int] = {}
        remap = np.fromiter((merged.setdefault(t.strip(), len(merged)) for t in raw), dtype=np.int32,
                            count=len(raw))
        ids[key] = compact(remap[ids[key]] if remap.size else ids[key], len(merged))
        texts[key] = tuple(merged)
    return ColumnTable(out_numbers, ids, texts, length)
