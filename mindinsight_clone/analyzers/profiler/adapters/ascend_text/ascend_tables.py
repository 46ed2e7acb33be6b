"""Two more tables of `ASCEND_PROFILER_OUTPUT/`, their specs and their text reader (operator_tables.py serves them):

* `operator_details.csv` (`profile/operator-details`): one row per framework operator: `Name, Input Shapes, Call
  Stack, Host Self/Total Duration(us), Device Self/Total Duration(us), Device Self/Total Duration With AICore(us)`
  (call stacks span lines inside quotes);
* `api_statistic.csv` (`profile/api-statistic`, profiler Level1+): one row per CANN API: `Level, API Name, Time(us),
  Count, Avg(us), Min(us), Max(us), Variance`.

A column the file lacks answers null; a row with a non-numeric time is skipped and counted in `problems`. The
database export answers the same tables: operator details computed from PYTORCH_API and the device work it
launched (ascend_db_operators.py), the API statistics aggregated from CANN_API (ascend_db_stats.py). `source` says
what was read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.column_query import Table
from mindinsight_clone.ingest.storage import Location


@dataclass(frozen=True)
class TableSpec:
    file: str
    columns: tuple[tuple[str, str, str], ...]  # (answer column, CSV header, "str" | "num" | "int")
    required: tuple[str, ...]
    search_column: str  # the column `search` matches (case-insensitive substring)
    default_sort: str
    why: str = ""  # when the file is written, for the not-found message
    db_table: str = ""  # the database export's table it comes from
    table: str = ""  # its name in rank_tables.py

    @property
    def col_names(self) -> tuple[str, ...]:
        return tuple(c for c, _, _ in self.columns)


OPERATOR_DETAILS = TableSpec(
    "operator_details.csv",
    (("name", "Name", "str"), ("input_shapes", "Input Shapes", "str"), ("call_stack", "Call Stack", "str"),
     ("host_self_us", "Host Self Duration(us)", "num"), ("host_total_us", "Host Total Duration(us)", "num"),
     ("device_self_us", "Device Self Duration(us)", "num"), ("device_total_us", "Device Total Duration(us)", "num"),
     ("device_self_aicore_us", "Device Self Duration With AICore(us)", "num"),
     ("device_total_aicore_us", "Device Total Duration With AICore(us)", "num")),
    ("Name",), "name", "device_total_us", "written with record_shapes / with_stack", "PYTORCH_API",
    "operator_details")
API_STATISTIC = TableSpec(
    "api_statistic.csv",
    (("level", "Level", "str"), ("api_name", "API Name", "str"), ("time_us", "Time(us)", "num"),
     ("count", "Count", "int"), ("avg_us", "Avg(us)", "num"), ("min_us", "Min(us)", "num"),
     ("max_us", "Max(us)", "num"), ("variance", "Variance", "num")),
    ("API Name", "Time(us)"), "api_name", "time_us", "written at profiler Level1 and above", "CANN_API",
    "api_statistic")
TABLES = {"operator-details": OPERATOR_DETAILS, "api-statistic": API_STATISTIC}


def parse(path: Location, spec: TableSpec, rank: str) -> tuple[Table, list[dict[str, Any]]]:
    csv_file = ascend_csv.open_csv(path, ascend_csv.label(spec.file, rank), spec.required)
    rows: list[list[Any]] = []
    for raw in csv_file.rows():
        row: list[Any] = []
        try:
            for _, header, kind in spec.columns:
                if not csv_file.has(header):
                    row.append(None)
                elif kind == "str":
                    row.append(csv_file.get(raw, header))
                else:
                    value = ascend_csv.number(csv_file.get(raw, header))
                    row.append(int(value) if kind == "int" and value is not None else value)
        except ValueError:
            csv_file.report.skip("non-numeric time or count")
            continue
        rows.append(row)
    csv_file.report.log()
    return Table(spec.col_names, tuple(rows)), csv_file.report.problems()
