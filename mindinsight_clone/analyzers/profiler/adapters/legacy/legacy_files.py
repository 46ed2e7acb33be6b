"""Reading the files of MindInsight's old profiler layout (MindSpore <= 2.2 on Ascend/GPU), for the `legacy_*` views.

The files sit directly in the profiler dir, suffixed with the device (rank) id: `aicore_intermediate_1_type.csv`,
`step_trace_raw_0_detail_time.csv`, `hccl_raw_3.csv`, `flops_summary_2.json`, ... Every read goes through the
storage seam (`ingest.storage`, local and `s3://` alike) and the parsed file cache, lazily (a file is read when a
view asks for it). Bounds and problem reporting are those of the Ascend readers (`ascend_csv`): a CSV is read
row by row and a row shorter than its header is skipped and counted in a `ReadReport`; a JSON file over
`MAX_JSON_BYTES`, an unreadable file or one that is not JSON raises `ProfilerRawFileError` naming the file,
never its absolute path. A file that is simply absent is `None` here: each view decides, as MindInsight did,
whether that is an empty answer or a `ProfilerFileNotFoundError`.
"""

from __future__ import annotations

import csv
import logging
from dataclasses import dataclass, field
from typing import Any

import orjson

from mindinsight_clone.analyzers.profiler.engine.ascend_csv import (
    HEADER_BLOCK_BYTES,
    ReadReport,
    data_rows,
    open_text,
    reason,
)
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import ProfilerRawFileError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)

MAX_JSON_BYTES = 512 << 20  # a JSON file is parsed whole: one bigger than this is refused with a clear error
MAX_TEXT_BYTES = 512 << 20  # the same for the small text files read whole (device queue, min cycle counter...)


@dataclass(frozen=True)
class CsvTable:
    """A CSV file as read: its header and its rows (each as long as the header; shorter rows were skipped)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    problems: tuple[dict[str, Any], ...] = ()
    nbytes: int = field(default=0, compare=False)

    def column(self, name: str) -> int | None:
        try:
            return self.header.index(name)
        except ValueError:
            return None


def label(path: Location) -> str:
    """How a file is named to clients: its name only (never the absolute path or URL)."""
    return path.name


def _read_csv(path: Location, keep_short: bool = False) -> CsvTable:
    report = ReadReport(label(path))
    rows: list[tuple[str, ...]] = []
    size = 0
    try:
        with open_text(path) as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if not header:
                raise ProfilerRawFileError(f"<{label(path)}> is empty (no header line).")
            for row in data_rows(reader, len(header), report, keep_short):
                rows.append(tuple(row))
                size += sum(len(c) for c in row)
    except OSError as err:
        raise ProfilerRawFileError(f"<{label(path)}> cannot be read: {reason(err)}") from None
    report.log()
    return CsvTable(tuple(header), tuple(rows), tuple(report.problems()), size)


def read_csv(path: Location, cache: ParsedFileCache | None, keep_short: bool = False) -> CsvTable:
    """The rows of a CSV file with a header line (parsed once per file version through `cache`)."""
    kind = "legacy_csv_all" if keep_short else "legacy_csv"
    return cached(cache, kind, path, lambda p: _read_csv(p, keep_short))


def _read_whole(path: Location, limit: int, kind: str, the_limit: str) -> bytes:
    """A file's bytes; ProfilerRawFileError when it cannot be read or is over `limit` (`the_limit`: how the message
    names the limit)."""
    try:
        with storage.open_binary(path, HEADER_BLOCK_BYTES) as handle:
            size = storage.file_size(handle)
            if size > limit:
                log.warning("%s: %d bytes, over the %d-byte limit for a %s file read whole; not read",
                            storage.describe(path), size, limit, kind)
                raise ProfilerRawFileError(f"<{label(path)}> is too large ({size} bytes; {the_limit} {limit} bytes).")
            return handle.read()  # type: ignore[no-any-return]
    except OSError as err:
        raise ProfilerRawFileError(f"<{label(path)}> cannot be read: {reason(err)}") from None


def _read_json(path: Location, limit: int = MAX_JSON_BYTES) -> Any:
    data = _read_whole(path, limit, "JSON", "the limit for a JSON file is")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        log.warning("%s is not valid JSON: %s", storage.describe(path), err)
        raise ProfilerRawFileError(f"<{label(path)}> is not valid JSON (truncated file?).") from None


def read_json(path: Location, cache: ParsedFileCache | None, limit: int = MAX_JSON_BYTES) -> Any:
    """A JSON file parsed whole (cached per file version); `ProfilerRawFileError` when unusable or over `limit`."""
    return cached(cache, f"legacy_json:{limit}", path, lambda p: _read_json(p, limit))


def _read_lines(path: Location, limit: int = MAX_TEXT_BYTES) -> tuple[str, ...]:
    return tuple(_read_whole(path, limit, "text", "the limit is").decode("utf-8", "replace").splitlines())


def read_lines(path: Location, cache: ParsedFileCache | None, limit: int = MAX_TEXT_BYTES) -> tuple[str, ...]:
    """A small text file as its lines (cached per file version); `ProfilerRawFileError` over `limit`."""
    return cached(cache, f"legacy_lines:{limit}", path, lambda p: _read_lines(p, limit))


def dir_file(pdir: ProfilerDir, name: str) -> Location | None:
    """A file directly in the profiler dir, found in the scan's listing (no stat per lookup)."""
    return pdir.listings.file(pdir.path, name)


def dir_names(pdir: ProfilerDir) -> list[str]:
    """The regular files directly in the profiler dir, sorted by name."""
    return [e.name for e in pdir.listings(pdir.path) if e.is_file]


def dir_subdirs(pdir: ProfilerDir) -> list[str]:
    return [e.name for e in pdir.listings(pdir.path) if e.is_dir]
