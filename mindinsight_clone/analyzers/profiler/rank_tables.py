"""The one seam between the profiler's views and the formats a rank is written in.

A rank (`layout.DeviceFiles`) is read by one adapter, picked by `format_of`: the Ascend text export (CSV and JSON
in ASCEND_PROFILER_OUTPUT/), the database export (`ascend_*_profiler_<rank>.db` + analysis.db), the old
MindSpore <= 2.2 layout (files directly in the profiler dir), or a host (CPU/GPU) rank of the current layout, whose
only table is its trace (its pages read MindSpore's host files, which op_stats.py, steps.py and memory.py read for
every format: an Ascend rank may have them too). Each adapter is a table of `Reader`s, one per table it has; a view
asks for a table by name (`load`, `has`, `source`; `reads`: whether the rank's format has the table at all) and
never looks at the format itself. A table an adapter lacks answers `has` False, and `load` raises
ProfilerFileNotFoundError naming the text export's file.

Every table loads to the same shape whatever the format (the database and old-layout readers make the text
readers' rows), so a view works for every adapter that has its tables:

| table | loads to |
|---|---|
| steps | (steps, problems); a step has the keys of `ascend_text_steps.FIELDS` |
| comm_ops | (ops, totals, problems) |
| comm_matrix | (cells, problems) |
| memory_record | (component -> [ts_us, allocated, reserved, active] array, problems) |
| operator_memory | (allocations, problems) |
| module_memory | (component -> [ts_us, NaN, reserved, NaN] array, problems) |
| operator_details, api_statistic | (column_query.Table, problems) |
| kernels | kernel_table.KernelTable |
| op_statistic | (type rows of every core, problems) — the text export only; elsewhere aggregated from kernels |
| trace | trace_events.TraceColumns, or None when unreadable (logged) |

| format | tables |
|---|---|
| text | all of the above |
| db | all but op_statistic |
| legacy | steps (the rest of its views are MindInsight's, legacy_*.py) |
| host | trace |
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from mindinsight_clone.analyzers.profiler.adapters.ascend_db import (
    ascend_db,
    ascend_db_kernels,
    ascend_db_operators,
    ascend_db_stats,
    ascend_db_tables,
    ascend_db_trace,
)
from mindinsight_clone.analyzers.profiler.adapters.ascend_text import (
    ascend_tables,
    ascend_text_comm,
    ascend_text_memory,
    ascend_text_steps,
    kernel_table,
)
from mindinsight_clone.analyzers.profiler.adapters.legacy import legacy_step_trace, legacy_steps
from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.engine.column_query import Table
from mindinsight_clone.analyzers.profiler.engine.rows_codec import ROWS_CODEC, SERIES_CODEC
from mindinsight_clone.analyzers.profiler.engine.trace_engine import TRACE_CODEC, load_trace
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.errors import ProfilerFileNotFoundError
from mindinsight_clone.ingest.storage import Location

log = logging.getLogger(__name__)
Format = Literal["text", "db", "legacy", "host"]
Cache = ParsedFileCache | None
TRACE_VIEW = "trace_view.json"
LEVEL1, MEMORY_WHY = ascend_db_tables.LEVEL1, ascend_db_tables.MEMORY_WHY  # when a table is written


@dataclass(frozen=True)
class Reader:
    """How one adapter reads one table."""

    load: Callable[[DeviceFiles, Cache], Any]
    source: Callable[[DeviceFiles], str]  # what answers and problems name as the table's origin
    locate: Callable[[DeviceFiles], Location | None]  # the file read (a cache key); None: not written
    has: Callable[[DeviceFiles, Cache], bool] | None = None  # default: `locate` found the file
    why: str = ""  # when the text export writes the table (named with its missing file)


def format_of(device: DeviceFiles) -> Format:
    """The one place a rank's format is decided: the database when the rank has one (also beside a text export),
    the old layout for a rank whose files lie directly in the profiler dir, the text export for a rank with NPU
    output, else a host rank."""
    if device.profiler_db is not None:
        return "db"
    if device.output is None and device.session is None:
        return "legacy"
    return "text" if device.is_ascend or _has_text_table(device) else "host"


def _has_text_table(device: DeviceFiles) -> bool:
    """Whether the output holds a text-export table besides the trace (torch_npu's Level_none with
    profile_memory writes memory_record.csv and no kernel table): such a rank is read as the text export."""
    return any(device.output_file(name) is not None for table, name in TEXT_FILES.items() if table != "trace")


def _reader(device: DeviceFiles, table: str) -> Reader | None:
    return ADAPTERS[format_of(device)].get(table)


def reads(table: str, device: DeviceFiles) -> bool:
    """Whether the rank's format has `table` at all, written or not (a host rank has no kernel table)."""
    return _reader(device, table) is not None


def has(table: str, device: DeviceFiles, cache: Cache = None) -> bool:
    """Whether the rank has `table` (its file was written, or its database table exists)."""
    reader = _reader(device, table)
    if reader is None:
        return False
    return reader.has(device, cache) if reader.has is not None else reader.locate(device) is not None


def load(table: str, device: DeviceFiles, cache: Cache = None) -> Any:
    """`table` of the rank (module docstring: its shape), cached; ProfilerFileNotFoundError when not written,
    MindInsightError when unreadable."""
    reader = _reader(device, table)
    if reader is None:  # named by the text export's file (on a host rank, with why the text export lacks it)
        why = TEXT[table].why if table in TEXT and format_of(device) == "host" else ""
        raise ProfilerFileNotFoundError(f"<{ascend_csv.label(TEXT_FILES.get(table, table), device.device_id)}>"
                                        + (f" ({why})" if why else ""))
    return reader.load(device, cache)


def source(table: str, device: DeviceFiles) -> str:
    """What an answer names as the origin of `table`: a file name, or `<table> in <database>`."""
    reader = _reader(device, table)
    return reader.source(device) if reader is not None else TEXT_FILES.get(table, table)


def locate(table: str, device: DeviceFiles) -> Location | None:
    """The file `table` is read from (None when not written): a cache key for answers derived from it."""
    reader = _reader(device, table)
    return reader.locate(device) if reader is not None else None


# --- the Ascend text export ------------------------------------------------------------------------------------


def _text(name: str, kind: str, parse: Callable[[Location, str], Any], why: str = "", codec: Any = None) -> Reader:
    """A reader of one text file parsed whole by `parse(path, rank)` and cached under `kind` (with a `codec`: kept
    in the workspace's table store too)."""

    def read(device: DeviceFiles, cache: Cache) -> Any:
        path = ascend_csv.require(device.output_file(name), name, device.device_id, why)
        return cached(cache, kind, path, lambda p: parse(p, device.device_id), codec=codec)

    return Reader(read, lambda _d: name, lambda d: d.output_file(name), why=why)


def _text_kernels(device: DeviceFiles, cache: Cache) -> kernel_table.KernelTable:
    name = kernel_table.KERNEL_DETAILS
    path = ascend_csv.require(device.output_file(name), name, device.device_id)
    return cached(cache, "ascend_kernels", path, lambda p: kernel_table.load_kernels(p, device.device_id),
                  codec=kernel_table.KERNELS_CODEC)


def _text_trace(device: DeviceFiles, cache: Cache) -> Any:
    path = device.output_file(TRACE_VIEW)
    if path is None:
        return None
    try:
        return cached(cache, "trace_view", path, load_trace, codec=TRACE_CODEC)
    except (OSError, ValueError) as err:  # orjson.JSONDecodeError is a ValueError
        log.warning("cannot read %s: %s", TRACE_VIEW, err)
        return None


def _text_ops(path: Location, rank: str) -> tuple[Any, Any, list[dict[str, Any]]]:
    ops, totals, skipped = ascend_text_comm.parse_ops(path, rank)
    problems = [{"file": ascend_csv.label(ascend_text_comm.COMMUNICATION, rank),
                 "message": f"{len(skipped)} entr(y/ies) skipped: not an object"}] if skipped else []
    return ops, totals, problems


def _text_matrix(path: Location, rank: str) -> tuple[Any, list[dict[str, Any]]]:
    cells, skipped = ascend_text_comm.parse_matrix(path, rank)
    problems = [{"file": ascend_csv.label(ascend_text_comm.MATRIX, rank),
                 "message": f"{len(skipped)} link(s) skipped: not `<src>-<dst>` with an object"}] if skipped else []
    return cells, problems


def _spec_table(spec: ascend_tables.TableSpec) -> Reader:
    return _text(spec.file, spec.file, lambda p, rank: ascend_tables.parse(p, spec, rank), spec.why, ROWS_CODEC)


TEXT: dict[str, Reader] = {
    "steps": _text(ascend_text_steps.STEP_TRACE_TIME, "step_trace_time", ascend_text_steps.parse),
    "comm_ops": _text(ascend_text_comm.COMMUNICATION, "communication", _text_ops, LEVEL1),
    "comm_matrix": _text(ascend_text_comm.MATRIX, "communication_matrix", _text_matrix, LEVEL1),
    "memory_record": _text(ascend_text_memory.MEMORY_RECORD, "memory_record", ascend_text_memory.parse_record,
                           MEMORY_WHY, SERIES_CODEC),
    "operator_memory": _text(ascend_text_memory.OPERATOR_MEMORY, "operator_memory",
                             ascend_text_memory.parse_operators),
    "module_memory": _text(ascend_text_memory.NPU_MODULE_MEM, "npu_module_mem", ascend_text_memory.parse_module_mem,
                           MEMORY_WHY, SERIES_CODEC),
    **{spec.table: _spec_table(spec) for spec in (ascend_tables.OPERATOR_DETAILS, ascend_tables.API_STATISTIC)},
    "kernels": Reader(_text_kernels, lambda _d: kernel_table.KERNEL_DETAILS,
                      lambda d: d.output_file(kernel_table.KERNEL_DETAILS)),
    "op_statistic": _text(kernel_table.OP_STATISTIC, "op_statistic", kernel_table.from_op_statistic),
    "trace": Reader(_text_trace, lambda _d: TRACE_VIEW, lambda d: d.output_file(TRACE_VIEW)),
}
# the text export's file of each table: what a missing table is named by
TEXT_FILES = {
    "steps": ascend_text_steps.STEP_TRACE_TIME, "comm_ops": ascend_text_comm.COMMUNICATION,
    "comm_matrix": ascend_text_comm.MATRIX, "memory_record": ascend_text_memory.MEMORY_RECORD,
    "operator_memory": ascend_text_memory.OPERATOR_MEMORY, "module_memory": ascend_text_memory.NPU_MODULE_MEM,
    "operator_details": ascend_tables.OPERATOR_DETAILS.file, "api_statistic": ascend_tables.API_STATISTIC.file,
    "kernels": kernel_table.KERNEL_DETAILS, "op_statistic": kernel_table.OP_STATISTIC, "trace": TRACE_VIEW,
}


# --- the database export ---------------------------------------------------------------------------------------


def _in_profiler_db(table: str) -> Callable[[DeviceFiles], str]:
    return lambda d: f"{table} in {ascend_db.profiler_db(d).name}"


def _in_analysis_db(table: str) -> Callable[[DeviceFiles], str]:
    return lambda d: ascend_db_tables.analysis_label(d, table)


def _analysis_table(table: str) -> Callable[[DeviceFiles, Cache], bool]:
    return lambda d, cache: ascend_db_tables.has_analysis_table(d, table, cache)


def _db_matrix(device: DeviceFiles, cache: Cache) -> tuple[Any, list[dict[str, Any]]]:
    cells, bad = ascend_db_tables.matrix(device, cache)
    label = ascend_db_tables.analysis_db(device).label
    return cells, [{"file": label, "message": f"{bad} link(s) skipped: src/dst rank not a number"}] if bad else []


def _db_kernels(device: DeviceFiles, cache: Cache) -> kernel_table.KernelTable:
    ref = ascend_db.profiler_db(device)

    def parse(_path: Location) -> kernel_table.KernelTable:
        table, problems = ascend_db_kernels.load_kernels(ref, cache)
        return kernel_table.KernelTable(kernel_table.plain_shapes(table), problems)

    return cached(cache, "ascend_db_kernels", ref.path, parse, codec=kernel_table.KERNELS_CODEC)


def _rows(load_rows: Callable[[DeviceFiles, Cache], Any], spec: ascend_tables.TableSpec
          ) -> Callable[[DeviceFiles, Cache], Any]:
    """The text export's table made from the database's rows, kept in the table store as the text one is (a restart
    reads it back instead of joining the database again)."""
    def derive(device: DeviceFiles, cache: Cache) -> tuple[Table, list[dict[str, Any]]]:
        rows, problems = load_rows(device, cache)
        return Table(spec.col_names, rows), list(problems)

    return _kept(f"db_{spec.table}", derive, ROWS_CODEC)


def _kept(kind: str, load: Callable[[DeviceFiles, Cache], Any], codec: Any) -> Callable[[DeviceFiles, Cache], Any]:
    """A table derived from the rank's database, kept in the table store under `kind` (keyed by the database)."""
    def read(device: DeviceFiles, cache: Cache) -> Any:
        return cached(cache, kind, ascend_db.profiler_db(device).path, lambda _p: load(device, cache), codec=codec)

    return read


def _profiler_db(device: DeviceFiles) -> Location | None:
    return device.profiler_db


def _analysis_or_profiler_db(device: DeviceFiles) -> Location | None:
    return device.analysis_db or device.profiler_db


DB: dict[str, Reader] = {
    "steps": Reader(ascend_db_tables.steps, _in_analysis_db(ascend_db_tables.STEP_TABLE), _analysis_or_profiler_db),
    "comm_ops": Reader(ascend_db_tables.ops, _in_analysis_db("CommAnalyzerTime"), lambda d: d.analysis_db,
                       _analysis_table("CommAnalyzerTime")),
    "comm_matrix": Reader(_db_matrix, _in_analysis_db("CommAnalyzerMatrix"), lambda d: d.analysis_db,
                          _analysis_table("CommAnalyzerMatrix")),
    "memory_record": Reader(_kept("db_memory_record", ascend_db_tables.memory_series, SERIES_CODEC),
                            _in_profiler_db("MEMORY_RECORD"), _profiler_db),
    "operator_memory": Reader(ascend_db_tables.operators, _in_profiler_db("OP_MEMORY"), _profiler_db),
    "module_memory": Reader(_kept("db_module_memory", ascend_db_stats.module_mem_series, SERIES_CODEC),
                            _in_profiler_db("NPU_MODULE_MEM"), _profiler_db),
    "operator_details": Reader(_rows(ascend_db_operators.operator_rows, ascend_tables.OPERATOR_DETAILS),
                               _in_profiler_db(ascend_tables.OPERATOR_DETAILS.db_table), _profiler_db),
    "api_statistic": Reader(_rows(ascend_db_stats.api_statistic_rows, ascend_tables.API_STATISTIC),
                            _in_profiler_db(ascend_tables.API_STATISTIC.db_table), _profiler_db),
    "kernels": Reader(_db_kernels, lambda d: ascend_db.profiler_db(d).name, _profiler_db),
    "trace": Reader(ascend_db_trace.trace, lambda d: ascend_db.profiler_db(d).name, _profiler_db),
}


# --- the old MindSpore <= 2.2 layout (the rest of its views are MindInsight's, legacy_*.py) ----------------------


LEGACY: dict[str, Reader] = {
    "steps": Reader(legacy_steps.steps, legacy_steps.label, legacy_steps.step_file),
}

# --- a host (CPU/GPU) rank of the current layout: a CPU-only session writes trace_view.json alone ------------------


HOST: dict[str, Reader] = {"trace": TEXT["trace"]}

ADAPTERS: dict[Format, dict[str, Reader]] = {"text": TEXT, "db": DB, "legacy": LEGACY, "host": HOST}

# What a user has to write for a table, said once per format (not per rank): a view without data names it.
_KERNEL_TABLES = "COMPUTE_TASK_INFO and TASK"
NEEDED: dict[Format, dict[str, str]] = {
    "text": TEXT_FILES,
    "db": {"steps": ascend_db_tables.STEP_TABLE, "comm_ops": "CommAnalyzerTime", "comm_matrix": "CommAnalyzerMatrix",
           "kernels": _KERNEL_TABLES, "op_statistic": _KERNEL_TABLES},
    "legacy": {"steps": legacy_step_trace.STEP_TRACE_FILE.format("<rank>")},
    "host": TEXT_FILES,  # what its Ascend pages would need: the text export's files
}
_FORMAT_NAMES: dict[Format, str] = {"text": "", "host": "host", "db": "database", "legacy": "old layout"}


def needs(tables: tuple[str, ...], devices: Iterable[DeviceFiles]) -> str:
    """What the ranks' formats need written for any of `tables`: the text export's files, then each other format's
    own names in brackets where they differ (`step_trace_time.csv (database: StepTraceTime)`)."""
    def names(fmt: Format) -> str:
        found = [NEEDED[fmt].get(t) or TEXT_FILES.get(t, t) for t in tables]
        return " or ".join(dict.fromkeys(found))

    formats = sorted({format_of(d) for d in devices}, key=list(_FORMAT_NAMES).index) or ["text"]
    first = names(formats[0])
    others = [f"{_FORMAT_NAMES[f]}: {names(f)}" for f in formats[1:] if names(f) != first]
    return f"{first} ({'; '.join(others)})" if others else first
