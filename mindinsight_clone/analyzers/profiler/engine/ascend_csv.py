"""Read the CSV files of `ASCEND_PROFILER_OUTPUT/` in both flavours and both header generations.

torch_npu (`*_ascend_pt`) and MindSpore (`*_ascend_ms`) write the same files with small differences (see
../shared/fixtures/ascend/README.md): `Step Id` / `Step ID`, an optional leading `Device_id`, `Block Dim` /
`Block Num`, memory_record with or without `Stream Ptr`, step_trace_time with or without `Preparing`. Headers are
mapped to one canonical spelling here, so the views never see the flavour. Cells lose the trailing tab the
profiler writes after timestamps (`1736408883704643.212\\t`) and CRLF line ends.

A missing file or a header without the columns a view needs raises a domain error naming the file and the rank;
rows that cannot be read (truncated, non-numeric where a number is needed) are skipped and counted in a
`ReadReport` whose problems the views answer beside their data, and which is logged.
"""

from __future__ import annotations

import csv
import io
import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import IO, Any

from mindinsight_clone.errors import ProfilerFileNotFoundError, ProfilerRawFileError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)

# lower-cased spelling -> canonical header (the torch_npu spelling of the fixtures)
_ALIASES = {
    "step id": "Step Id",
    "step_id": "Step Id",
    "block num": "Block Dim",
    "device id": "Device_id",
}
MISSING_CELLS = frozenset(("", "N/A", "NA", "-", "null", "None"))
csv.field_size_limit(1 << 26)  # call stacks in operator_details.csv can be long
HEADER_BLOCK_BYTES = 64 << 10  # read-ahead when only the header line is wanted (remote: one small range request)
ROWS_BLOCK_BYTES = 8 << 20  # read-ahead while streaming rows (remote: one range request per 8 MiB)


def open_text(path: Location, block_bytes: int = ROWS_BLOCK_BYTES) -> IO[str]:
    """A CSV file as text through the storage seam (UTF-8, bad bytes replaced, `newline=""` as csv wants).
    `block_bytes` is the remote read-ahead; a remote (unbuffered) file gets a buffer as a local one has."""
    handle: Any = storage.open_binary(path, block_bytes)
    if not isinstance(handle, io.BufferedIOBase):
        handle = io.BufferedReader(handle, buffer_size=min(block_bytes, 1 << 20))
    return io.TextIOWrapper(handle, encoding="utf-8", errors="replace", newline="")


def canonical(name: str) -> str:
    text = name.strip().lstrip("\ufeff").strip()
    return _ALIASES.get(text.lower(), text)


@dataclass
class ReadReport:
    """What a reader skipped, by reason; `problems` is what the API answers."""

    label: str
    skipped: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def skip(self, reason: str, rows: int = 1) -> None:
        self.skipped[reason] += rows

    def note(self, message: str) -> None:
        self.notes.append(message)

    def problems(self) -> list[dict[str, Any]]:
        out = [{"file": self.label, "message": f"{n} row(s) skipped: {reason}"} for reason, n in self.skipped.items()]
        out.extend({"file": self.label, "message": note} for note in self.notes)
        return out

    def log(self) -> None:
        for problem in self.problems():
            log.warning("%s: %s", problem["file"], problem["message"])


def label(name: str, rank: str) -> str:
    return f"{name} of rank {rank}"


def require(path: Location | None, name: str, rank: str, why: str = "") -> Location:
    if path is None:
        detail = f"<{label(name, rank)}>" + (f" ({why})" if why else "")
        raise ProfilerFileNotFoundError(detail)
    return path


def reason(err: Exception) -> str:
    """Why a read failed, in words a client may see: never the file's absolute path or URL (both backends put it
    in the OSError's text), which goes to the log instead."""
    log.warning("profiler file read failed: %s", err)
    if isinstance(err, OSError):
        return err.strerror or type(err).__name__
    return str(err)


def number(cell: str) -> float | None:
    """A float, or None for an empty / `N/A` cell; ValueError for anything else."""
    text = cell.strip()
    if text in MISSING_CELLS:
        return None
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"not a finite number: {text!r}")
    return value


@dataclass
class CsvFile:
    """An open CSV file: canonical header -> column index, and the data rows (lists of raw cells)."""

    path: Location
    report: ReadReport
    index: dict[str, int]
    width: int

    def has(self, column: str) -> bool:
        return column in self.index

    def get(self, row: list[str], column: str) -> str:
        """The cleaned cell of `column`, "" when the column is absent or the row is short."""
        i = self.index.get(column)
        return row[i].strip() if i is not None and i < len(row) else ""

    def batches(self, size: int, columns: Sequence[int]) -> Iterator[list[tuple[str, ...]]]:
        """Lists of up to `size` rows, each the tuple of the cells at `columns` (like `rows`, but only the wanted
        cells are kept: holding whole rows of a 60-column file costs far more memory and time)."""
        pick = itemgetter(*columns) if len(columns) > 1 else (lambda row: (row[columns[0]],))
        width, short = self.width, 0
        out: list[tuple[str, ...]] = []
        append = out.append
        with open_text(self.path) as handle:
            reader = csv.reader(handle)
            next(reader, None)
            try:
                for row in reader:
                    if len(row) >= width:
                        append(pick(row))
                        if len(out) >= size:
                            yield out
                            out = []
                            append = out.append
                    elif any(c.strip() for c in row):
                        short += 1
            except csv.Error as err:
                self.report.note(f"unreadable from line {reader.line_num}: {err}")
        if short:
            self.report.skip("fewer cells than the header (truncated file?)", short)
        if out:
            yield out

    def rows(self) -> Iterator[list[str]]:
        """Data rows with at least as many cells as the header; shorter ones (a truncated tail) are skipped."""
        with open_text(self.path) as handle:
            reader = csv.reader(handle)
            next(reader, None)
            yield from data_rows(reader, self.width, self.report)


def data_rows(reader: Any, width: int, report: ReadReport, keep_short: bool = False) -> Iterator[list[str]]:
    """The rows left in a csv `reader` but blank lines; rows with fewer than `width` cells are skipped and counted
    in `report` (kept with `keep_short`); a CSV error ends the rows with a note in `report`."""
    try:
        for row in reader:
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) < width and not keep_short:
                report.skip("fewer cells than the header (truncated file?)")
                continue
            yield row
    except csv.Error as err:
        report.note(f"unreadable from line {reader.line_num}: {err}")


def open_csv(path: Location, lbl: str, required: Sequence[str]) -> CsvFile:
    """Read the header of `path`; ProfilerRawFileError when it is empty or lacks a `required` column."""
    try:
        with open_text(path, HEADER_BLOCK_BYTES) as handle:
            header = next(csv.reader(handle), None)
    except (OSError, csv.Error) as err:
        raise ProfilerRawFileError(f"<{lbl}> cannot be read: {reason(err)}") from None
    if not header:
        raise ProfilerRawFileError(f"<{lbl}> is empty (no header line).")
    index: dict[str, int] = {}
    for i, name in enumerate(header):
        index.setdefault(canonical(name), i)
    missing = [c for c in required if c not in index]
    if missing:
        raise ProfilerRawFileError(f"<{lbl}> lacks the column(s) {', '.join(missing)}.")
    # The profiler writes every cell of every row, so a row shorter than the header is a cut one (truncated file).
    return CsvFile(path, ReadReport(lbl), index, len(header))
