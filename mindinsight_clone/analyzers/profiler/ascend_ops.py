"""`POST profile/ops/search` over Ascend output: `aicore_type`, `aicore_detail`, `aicpu_type`, `aicpu_detail`.

* `*_type`: one row per operator type and core from `op_statistic.csv`; where it is absent (profiler Level0), the
  same table aggregated from `kernel_details.csv` by `Type` and `Accelerator Core` (HCCL kernels are left out, as
  op_statistic.csv does). MindInsight's four columns come first (`execution_time` is the type's total in ms,
  `percent` its share of the total), then `core_type` and the µs figures.
* `*_detail`: one row per kernel from `kernel_details.csv` (MindInsight's columns first, then name, core, start,
  duration, wait, block dim, shapes, dtypes, formats, step, stream and task ids).
* `aicpu_*` are the rows whose core is `AI_CPU`; `aicore_*` are all the others (MindInsight's split);
  `ascend_type` / `ascend_detail` are every core (AI_CORE, AI_VECTOR_CORE, MIX_*, AI_CPU), so a page can show
  one table whose shares sum to 100 %.

kernel_details.csv is read into numpy columns (csv_columns.py, column_query.py), so a million rows cost tens of MB.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler import arrow_columns, ascend_csv, ascend_db, ascend_db_kernels, csv_columns
from mindinsight_clone.analyzers.profiler.cache import ParsedFileCache, cached
from mindinsight_clone.analyzers.profiler.column_query import AnswerColumn, ColumnTable, query
from mindinsight_clone.analyzers.profiler.layout import DeviceFiles
from mindinsight_clone.analyzers.profiler.numbers import fmt
from mindinsight_clone.analyzers.profiler.tables import Row, Table
from mindinsight_clone.analyzers.profiler.tables import query as rows_query
from mindinsight_clone.ingest.storage import Location

KERNEL_DETAILS = "kernel_details.csv"
OP_STATISTIC = "op_statistic.csv"
AI_CPU = "AI_CPU"
HCCL = "HCCL"

# stored column -> (CSV header, kind)
_KERNEL_STRINGS = {
    "name": "Name", "type": "Type", "core": "Accelerator Core",
    "input_shapes": "Input Shapes", "input_data_types": "Input Data Types", "input_formats": "Input Formats",
    "output_shapes": "Output Shapes", "output_data_types": "Output Data Types", "output_formats": "Output Formats",
}
_KERNEL_NUMBERS = {
    "start": "Start Time(us)", "duration": "Duration(us)", "wait": "Wait Time(us)", "block_dim": "Block Dim",
    "step": "Step Id", "stream": "Stream ID", "task": "Task ID",
}
_KERNEL_REQUIRED = ("Name", "Start Time(us)", "Duration(us)")

DETAIL_EXTRA = (
    AnswerColumn("core_type", "core", "str"),
    AnswerColumn("step_id", "step", "int"),
    AnswerColumn("stream_id", "stream", "int"),
    AnswerColumn("task_id", "task", "int"),
    AnswerColumn("start_time_us", "start", "num", digits=3),
    AnswerColumn("duration_us", "duration", "num"),
    AnswerColumn("wait_time_us", "wait", "num"),
    AnswerColumn("block_dim", "block_dim", "int"),
    AnswerColumn("input_shapes", "input_shapes", "str"),
    AnswerColumn("input_data_types", "input_data_types", "str"),
    AnswerColumn("input_formats", "input_formats", "str"),
    AnswerColumn("output_shapes", "output_shapes", "str"),
    AnswerColumn("output_data_types", "output_data_types", "str"),
    AnswerColumn("output_formats", "output_formats", "str"),
)
AICORE_DETAIL = (
    AnswerColumn("op_name", "name", "str"),
    AnswerColumn("op_type", "type", "str"),
    AnswerColumn("avg_execution_time", "duration", "num", scale=0.001, digits=6),  # ms (MindInsight)
    AnswerColumn("subgraph", kind="const", const=""),
    AnswerColumn("full_op_name", "name", "str"),
    AnswerColumn("op_info", kind="const", const=None),
    *DETAIL_EXTRA,
)
AICPU_DETAIL = (
    AnswerColumn("serial_number", "serial", "int"),
    AnswerColumn("op_type", "type", "str"),
    AnswerColumn("total_time", "duration", "num", scale=0.001, digits=6),  # ms
    AnswerColumn("dispatch_time", kind="const", const=None),  # not in kernel_details.csv
    AnswerColumn("run_start", "start", "num", digits=3),  # µs
    AnswerColumn("run_end", "end", "num", digits=3),  # µs
    AnswerColumn("op_name", "name", "str"),
    *DETAIL_EXTRA,
)
TYPE_COLUMNS = ("op_type", "execution_time", "execution_frequency", "percent", "core_type", "total_time_us",
                "avg_time_us", "min_time_us", "max_time_us")
# this project's own op types: all cores in one table (not MindInsight's; only over Ascend output)
ALL_CORES = {"ascend_type": "aicore_type", "ascend_detail": "aicore_detail"}  # -> the table with its columns
ASCEND_COLUMNS: dict[str, tuple[str, ...]] = {
    "ascend_type": TYPE_COLUMNS,
    "ascend_detail": tuple(c.name for c in AICORE_DETAIL),
    "aicore_type": TYPE_COLUMNS,
    "aicpu_type": TYPE_COLUMNS,
    "aicore_detail": tuple(c.name for c in AICORE_DETAIL),
    "aicpu_detail": tuple(c.name for c in AICPU_DETAIL),
}


@dataclass(frozen=True)
class KernelTable:
    table: ColumnTable
    problems: tuple[dict[str, Any], ...]
    subsets: dict[bool, ColumnTable] = field(default_factory=dict, compare=False)  # aicpu? -> rows

    def subset(self, aicpu: bool | None) -> ColumnTable:
        """The AI_CPU rows (aicpu), all the others (False) or every row (None), made once per loaded file."""
        if aicpu is None:
            return self.table
        if aicpu not in self.subsets:
            mask = _core_mask(self.table, aicpu)
            table = self.table
            sub = ColumnTable(dict(table.numbers), table.ids, table.strings, table.length) if mask.all() \
                else table.take(mask)
            if aicpu:  # aicpu_detail's serial number and end time (only there: a million rows cost 16 MB)
                sub.numbers["serial"] = np.arange(1, sub.length + 1, dtype=np.float64)
                sub.numbers["end"] = sub.numbers["start"] + sub.numbers["duration"]
            self.subsets[aicpu] = sub
        return self.subsets[aicpu]

    @property
    def nbytes(self) -> int:
        return self.table.nbytes


class _KernelsCodec:
    """KernelTable <-> Parquet (table_store.py): the columns, and the problems of the parse."""

    version = "kernels-2"

    def encode(self, value: KernelTable) -> tuple[Any, dict[str, Any]]:
        return arrow_columns.column_table_to_arrow(value.table), {"problems": list(value.problems)}

    def decode(self, batches: Any, num_rows: int, schema: Any, meta: dict[str, Any]) -> KernelTable:
        table = arrow_columns.column_table_from_batches(batches, num_rows, schema)
        return KernelTable(table, tuple(meta.get("problems", ())))


KERNELS_CODEC = _KernelsCodec()


def has_kernels(device: DeviceFiles) -> bool:
    """Whether the rank has a kernel table: kernel_details.csv, or the database export (COMPUTE_TASK_INFO ⋈ TASK)."""
    return device.profiler_db is not None if device.export == "db" else device.output_file(KERNEL_DETAILS) is not None


def has_op_statistic(device: DeviceFiles) -> bool:
    """Whether the rank's operator types come from op_statistic.csv (the text export at Level1+) rather than from
    its kernel table aggregated (Level0, and always for the database export, which stores no such table)."""
    return device.export == "text" and device.output_file(OP_STATISTIC) is not None


def types_label(device: DeviceFiles) -> str:
    """What a problem names as the source of the rank's operator types."""
    if device.export == "db":
        return ascend_db.profiler_db(device).name
    return OP_STATISTIC if has_op_statistic(device) else KERNEL_DETAILS


def is_ascend(device: DeviceFiles | None) -> bool:
    """Whether the device has Ascend (not only host CPU) output: one of the NPU tables exists."""
    return device is not None and device.is_ascend


def load_kernels(path: Location, rank: str = "?", engine: csv_columns.Engine = "arrow") -> KernelTable:
    """kernel_details.csv -> columns. Rows without a numeric start or duration are skipped (and reported)."""
    csv_file = ascend_csv.open_csv(path, ascend_csv.label(KERNEL_DETAILS, rank), _KERNEL_REQUIRED)
    report = csv_file.report
    table = csv_columns.read_columns(csv_file, _KERNEL_NUMBERS, _KERNEL_STRINGS, engine)
    good = ~np.isnan(table.numbers["start"]) & ~np.isnan(table.numbers["duration"])
    if not good.all():
        report.skip("no numeric start time or duration", int((~good).sum()))
        table = table.take(good)
    report.log()
    return KernelTable(table, tuple(report.problems()))


def kernels_for(device: DeviceFiles, cache: ParsedFileCache | None) -> KernelTable:
    if device.export == "db":
        return _db_kernels(device, cache)
    path = ascend_csv.require(device.output_file(KERNEL_DETAILS), KERNEL_DETAILS, device.device_id)
    return cached(cache, "ascend_kernels", path, lambda p: load_kernels(p, device.device_id), codec=KERNELS_CODEC)


def _db_kernels(device: DeviceFiles, cache: ParsedFileCache | None) -> KernelTable:
    ref = ascend_db.profiler_db(device)

    def parse(_path: Location) -> KernelTable:
        table, problems = ascend_db_kernels.load_kernels(ref, cache)
        return KernelTable(table, problems)

    return cached(cache, "ascend_db_kernels", ref.path, parse, codec=KERNELS_CODEC)


def _core_mask(table: ColumnTable, aicpu: bool) -> np.ndarray:
    cores = table.strings["core"]
    is_cpu = np.array([c == AI_CPU for c in cores], dtype=bool)
    hit = is_cpu[table.ids["core"]] if cores else np.zeros(table.length, dtype=bool)
    return hit if aicpu else ~hit


def detail(device: DeviceFiles, op_type: str, condition: dict[str, Any],
           cache: ParsedFileCache | None = None) -> dict[str, Any]:
    kernels = kernels_for(device, cache)
    aicpu = _cores(op_type)
    answer = query(kernels.subset(aicpu), AICPU_DETAIL if aicpu else AICORE_DETAIL, condition)
    starts = kernels.table.numbers["start"]
    # the profile's start (the rank's first kernel): timestamp columns are shown relative to it (column_defs.py)
    answer["time_origin_us"] = round(float(starts.min()), 3) if starts.size else None
    if kernels.problems:
        answer["problems"] = list(kernels.problems)
    return answer


def _type_row(op_type: str, core: str, count: int, total: float, min_us: float | None, avg: float | None,
              max_us: float | None, percent: float | None) -> Row:
    return [op_type, fmt(total / 1000.0), count, percent, core, total, avg, min_us, max_us]


def _cores(op_type: str) -> bool | None:
    """Which rows an op type holds: AI_CPU (True), the other cores (False) or all (None)."""
    return None if op_type in ALL_CORES else op_type.startswith("aicpu_")


def _from_op_statistic(path: Location, rank: str, aicpu: bool | None
                       ) -> tuple[tuple[Row, ...], list[dict[str, Any]]]:
    required = ("OP Type", "Count", "Total Time(us)")
    csv_file = ascend_csv.open_csv(path, ascend_csv.label(OP_STATISTIC, rank), required)
    rows: list[Row] = []
    for raw in csv_file.rows():
        core = csv_file.get(raw, "Core Type")
        if aicpu is not None and (core == AI_CPU) != aicpu:
            continue
        try:
            total = ascend_csv.number(csv_file.get(raw, "Total Time(us)"))
            count = int(float(csv_file.get(raw, "Count")))
            values = [ascend_csv.number(csv_file.get(raw, c))
                      for c in ("Min Time(us)", "Avg Time(us)", "Max Time(us)", "Ratio(%)")]
        except ValueError:
            csv_file.report.skip("non-numeric count or time")
            continue
        if total is None:
            csv_file.report.skip("no total time")
            continue
        min_us, avg, max_us, ratio = values
        rows.append(_type_row(csv_file.get(raw, "OP Type"), core, count, total, min_us, avg, max_us, ratio))
    csv_file.report.log()
    return tuple(rows), csv_file.report.problems()


def aggregate_types(kernels: KernelTable, aicpu: bool | None) -> tuple[Row, ...]:
    """op_statistic.csv's table from kernel rows: per (Type, Accelerator Core), HCCL kernels left out; the percent
    is of all non-HCCL kernel time (AI_CPU included), as op_statistic.csv's Ratio(%)."""
    table = kernels.table
    cores = table.strings["core"]
    is_hccl = np.array([c == HCCL for c in cores], dtype=bool)
    compute = ~is_hccl[table.ids["core"]] if cores else np.zeros(table.length, dtype=bool)
    keep = compute if aicpu is None else _core_mask(table, aicpu) & compute
    types, core_ids, dur = table.ids["type"][keep], table.ids["core"][keep], table.numbers["duration"][keep]
    if dur.size == 0:
        return ()
    grand = float(table.numbers["duration"][compute].sum()) or 1.0  # Ratio(%) is of all device compute time
    order = np.lexsort((core_ids, types))
    types, core_ids, dur = types[order], core_ids[order], dur[order]
    starts = np.flatnonzero(np.r_[True, (types[1:] != types[:-1]) | (core_ids[1:] != core_ids[:-1])])
    counts = np.diff(np.r_[starts, dur.size])
    totals = np.add.reduceat(dur, starts)
    mins, maxs = np.minimum.reduceat(dur, starts), np.maximum.reduceat(dur, starts)
    rows = []
    for i, start in enumerate(starts.tolist()):
        total = float(totals[i])
        rows.append(_type_row(table.strings["type"][types[start]], cores[core_ids[start]], int(counts[i]),
                              round(total, 3), float(mins[i]), round(total / counts[i], 3), float(maxs[i]),
                              round(total / grand * 100, 3)))
    return tuple(rows)


def types(device: DeviceFiles, op_type: str, condition: dict[str, Any],
          cache: ParsedFileCache | None = None) -> dict[str, Any]:
    aicpu = _cores(op_type)
    stat = device.output_file(OP_STATISTIC) if has_op_statistic(device) else None
    if stat is not None:
        rows, problems = cached(cache, f"op_statistic_{aicpu}", stat,
                                lambda p: _from_op_statistic(p, device.device_id, aicpu))
        source = OP_STATISTIC
    else:
        kernels = kernels_for(device, cache)
        rows, problems = aggregate_types(kernels, aicpu), list(kernels.problems)
        source = KERNEL_DETAILS if device.export == "text" else ascend_db.profiler_db(device).name
    answer = rows_query(Table(TYPE_COLUMNS, rows), condition)
    answer["source"] = source
    if problems:
        answer["problems"] = problems
    return answer


def search(device: DeviceFiles, op_type: str, condition: dict[str, Any],
           cache: ParsedFileCache | None = None) -> dict[str, Any]:
    if op_type.endswith("_type"):
        return types(device, op_type, condition, cache)
    return detail(device, op_type, condition, cache)
