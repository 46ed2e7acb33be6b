"""The kernel table of an Ascend rank as numpy columns (kernel_details.csv; the database export's is built by
ascend_db_kernels.py into the same columns), and the operator-type rows of op_statistic.csv.

Both are format readers: rank_tables.py picks which one a rank is read with; the views (ascend_ops.py, advice, ...)
only see `KernelTable` and type rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mindinsight_clone.analyzers.profiler.engine import arrow_columns, ascend_csv, csv_columns
from mindinsight_clone.analyzers.profiler.engine.column_query import ColumnTable, Row
from mindinsight_clone.analyzers.profiler.engine.numbers import fmt
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
TYPE_COLUMNS = ("op_type", "execution_time", "execution_frequency", "percent", "core_type", "total_time_us",
                "avg_time_us", "min_time_us", "max_time_us")


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
            mask = core_mask(self.table, aicpu)
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

    version = "kernels-3"

    def encode(self, value: KernelTable) -> tuple[Any, dict[str, Any]]:
        return arrow_columns.column_table_to_arrow(value.table), {"problems": list(value.problems)}

    def decode(self, batches: Any, num_rows: int, schema: Any, meta: dict[str, Any]) -> KernelTable:
        table = arrow_columns.column_table_from_batches(batches, num_rows, schema)
        return KernelTable(table, tuple(meta.get("problems", ())))


KERNELS_CODEC = _KernelsCodec()


def core_mask(table: ColumnTable, aicpu: bool) -> np.ndarray:
    cores = table.strings["core"]
    is_cpu = np.array([c == AI_CPU for c in cores], dtype=bool)
    hit = is_cpu[table.ids["core"]] if cores else np.zeros(table.length, dtype=bool)
    return hit if aicpu else ~hit


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
    return KernelTable(plain_shapes(table), tuple(report.problems()))


SHAPE_COLUMNS = ("input_shapes", "output_shapes")


def plain_shapes(table: ColumnTable) -> ColumnTable:
    """Shapes without the literal quotes torch_npu writes around them (`"32,1024;1024,1024"` in both exports: the
    csv field is `\"\"\"32,1024;1024,1024\"\"\"`), as MindStudio Insight shows them."""
    for column in SHAPE_COLUMNS:
        if column in table.strings:
            table.strings[column] = tuple(unquote(s) for s in table.strings[column])
    return table


def unquote(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def type_row(op_type: str, core: str, count: int, total: float, min_us: float | None, avg: float | None,
              max_us: float | None, percent: float | None) -> Row:
    return [op_type, fmt(total / 1000.0), count, percent, core, total, avg, min_us, max_us]


def from_op_statistic(path: Location, rank: str) -> tuple[tuple[Row, ...], list[dict[str, Any]]]:
    """op_statistic.csv's rows (TYPE_COLUMNS), every core type."""
    required = ("OP Type", "Count", "Total Time(us)")
    csv_file = ascend_csv.open_csv(path, ascend_csv.label(OP_STATISTIC, rank), required)
    rows: list[Row] = []
    for raw in csv_file.rows():
        core = csv_file.get(raw, "Core Type")
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
        rows.append(type_row(csv_file.get(raw, "OP Type"), core, count, total, min_us, avg, max_us, ratio))
    csv_file.report.log()
    return tuple(rows), csv_file.report.problems()
