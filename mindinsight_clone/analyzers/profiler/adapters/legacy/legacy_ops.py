"""`POST profile/ops/search` over the old Ascend layout: MindInsight 2.3.1's AI Core / AI CPU tables.

An adapter into `column_query.Table` (queried with MindInsight's filter / sort / page semantics by
`column_query.query_rows`); the columns and numbers are those of MindInsight's `AicoreTypeAnalyser`,
`AicoreDetailAnalyser`, `AicpuTypeAnalyser` and `AicpuDetailAnalyser` (times in µs, rounded to 3 decimals from 1
up, 6 below):

* aicore_type, from `aicore_intermediate_<id>_type.csv`: kernel_type, total_time, execution_frequency,
  total_percent, avg_time;
* aicore_detail, from `aicore_intermediate_<id>_detail.csv` + `framework_raw_<id>.csv` (+ `flops_<id>.txt`):
  op_name, kernel_name, kernel_type, avg_execution_time, execution_frequency, the four FLOPs columns, op_info;
* aicpu_type, from `aicpu_intermediate_<id>.csv`: kernel_type, total_time, execution_frequency, percent;
* aicpu_detail, from the same file: kernel_name, kernel_type, avg_execution_time, dispatch_time,
  execution_frequency.

A missing file is an empty table (as in MindInsight). Where we answer differently (docs/api.md, improvements):
`total_percent` of files that already hold percents is not multiplied by 100 again, a detail row whose kernel
is not in framework_raw is skipped (MindInsight: 500), and the display switches never shift the sort column.
"""

from __future__ import annotations

import json
from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.legacy.legacy_files import dir_file, read_csv, read_lines
from mindinsight_clone.analyzers.profiler.engine import column_query, conditions
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.column_query import Row, Table
from mindinsight_clone.analyzers.profiler.engine.numbers import MS_TO_US, fmt, with_problems
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import ProfilerSearchConditionError

COLUMNS: dict[str, tuple[str, ...]] = {
    "aicore_type": ("kernel_type", "total_time", "execution_frequency", "total_percent", "avg_time"),
    "aicore_detail": ("op_name", "kernel_name", "kernel_type", "avg_execution_time", "execution_frequency",
                      "MFLOPs(10^6 cube)", "GFLOPS(10^9 cube)", "MFLOPs(10^6 vector)", "GFLOPS(10^9 vector)",
                      "op_info"),
    "aicpu_type": ("kernel_type", "total_time", "execution_frequency", "percent"),
    "aicpu_detail": ("kernel_name", "kernel_type", "avg_execution_time", "dispatch_time", "execution_frequency"),
}
# MindInsight 2.3.1 validates `sort_condition.name` against these lists (validate.py), which are not the
# analysers' columns: a name in the list but not in the table is its 50546180 "column does not exist".
SORT_SCOPE: dict[str, tuple[str, ...]] = {
    "aicore_type": ("op_type", "total_time", "execution_frequency", "percent"),
    "aicore_detail": ("op_name", "op_type", "avg_execution_time", "execution_frequency", "MFLOPs(10^6 cube)",
                      "GFLOPS(10^9 cube)", "MFLOPs(10^6 vector)", "GFLOPS(10^9 vector)", "full_op_name"),
    "aicpu_type": ("op_type", "total_time", "execution_frequency", "percent"),
    "aicpu_detail": ("op_name", "serial_number", "op_type", "avg_execution_time", "dispatch_time",
                     "execution_frequency", "run_start", "run_end"),
}
COLUMN_NOT_EXIST = 0x180
PERCENT_SUM_LIMIT = 2.0  # a `percent` column summing above this already holds percents (MindSpore 1.x files)


def _int(cell: str) -> int:
    return int(float(cell)) if "." in cell or "e" in cell.lower() else int(cell)


def _aicore_type(path: Any, cache: ParsedFileCache | None) -> tuple[tuple[Row, ...], list[dict[str, Any]]]:
    """MindInsight: `[type, fmt(total ms * 1000), count, fmt(percent * 100), fmt(total_us / count)]`.

    MindSpore 2.x writes `percent` as a fraction (MindInsight's `* 100` makes it a percent); MindSpore 1.x wrote
    it as a percent already, which MindInsight turns into 5760 %: such a column (summing to more than 2) is
    answered as written."""
    table = read_csv(path, cache)
    parsed: list[tuple[str, float, int, float]] = []
    problems = list(table.problems)
    bad = 0
    for row in table.rows:
        try:
            parsed.append((row[0], fmt(float(row[1]) * MS_TO_US), _int(row[2]), float(row[3])))
        except (ValueError, IndexError):
            bad += 1
    if bad:
        problems.append({"file": path.name, "message": f"{bad} row(s) skipped: not numbers where numbers belong"})
    scale = 1.0 if sum(p[3] for p in parsed) > PERCENT_SUM_LIMIT else 100.0
    rows = tuple([name, total, count, fmt(percent * scale), fmt(total / count) if count else 0.0]
                 for name, total, count, percent in parsed)
    return rows, problems


def _framework(path: Any, cache: ParsedFileCache | None) -> dict[str, list[Any]]:
    """full_kernel_name -> [op_name, kernel_name, kernel_type, subgraph, op_info] (framework_raw_<id>.csv)."""
    infos: dict[str, list[Any]] = {}
    for row in read_csv(path, cache, keep_short=True).rows:
        if len(row) < 8:
            continue
        try:
            op_info = json.loads(row[8]) if len(row) > 8 and row[8] else None
        except ValueError:
            op_info = None
        infos[row[3]] = [row[4], row[5], row[6], row[7], op_info]
    return infos


def _flops(path: Any, cache: ParsedFileCache | None) -> dict[str, list[str]]:
    """full_kernel_name -> the FLOPs cells of flops_<id>.txt (split on `,`, header line skipped)."""
    out: dict[str, list[str]] = {}
    for line in read_lines(path, cache)[1:]:
        cells = line.strip().split(",")
        if len(cells) > 1 and cells[1]:
            out[cells[0]] = cells[1:]
    return out


def _flops_cell(cell: str) -> Any:
    if cell == "-":
        return cell
    try:
        return fmt(float(cell))
    except ValueError:
        return cell


def _aicore_detail(pdir: ProfilerDir, device_id: str, cache: ParsedFileCache | None
                   ) -> tuple[tuple[Row, ...], list[dict[str, Any]]]:
    detail = dir_file(pdir, f"aicore_intermediate_{device_id}_detail.csv")
    framework = dir_file(pdir, f"framework_raw_{device_id}.csv")
    if detail is None or framework is None:
        return (), []
    infos = _framework(framework, cache)
    flops_path = dir_file(pdir, f"flops_{device_id}.txt")
    flops = _flops(flops_path, cache) if flops_path is not None else {}
    table = read_csv(detail, cache)
    problems = list(table.problems)
    rows: list[Row] = []
    unknown = bad = 0
    for row in table.rows:
        info = infos.get(row[0])
        if info is None:
            unknown += 1
            continue
        try:
            avg, count = fmt(float(row[1]) * MS_TO_US), _int(row[2])
        except (ValueError, IndexError):
            bad += 1
            continue
        cells = flops.get(row[0], ["-", "-", "-", "-"])
        if len(cells) > 3:
            rows.append([info[0], info[1], info[2], avg, count, *(_flops_cell(c) for c in cells[:4]), info[4]])
        else:  # MindInsight's three-value flops lines fill the fourth FLOPs column with the subgraph
            padded = [*cells, "-", "-", "-"][:3]
            rows.append([info[0], info[1], info[2], avg, count, *(_flops_cell(c) for c in padded), info[3],
                         info[4]])
    if unknown:
        problems.append({"file": detail.name, "message": f"{unknown} row(s) skipped: kernel not in {framework.name}"})
    if bad:
        problems.append({"file": detail.name, "message": f"{bad} row(s) skipped: not numbers where numbers belong"})
    return tuple(rows), problems


def _aicpu_rows(path: Any, cache: ParsedFileCache | None) -> tuple[list[tuple[str, float, float]], list[Any]]:
    """(kernel name, total_time ms, dispatch_time ms) per row; old 6-column files have no execution_time."""
    table = read_csv(path, cache, keep_short=True)
    out: list[tuple[str, float, float]] = []
    bad = 0
    for row in table.rows:
        try:
            out.append((row[1], float(row[2]), float(row[3])))
        except (ValueError, IndexError):
            bad += 1
    problems = list(table.problems)
    if bad:
        problems.append({"file": path.name, "message": f"{bad} row(s) skipped: not numbers where numbers belong"})
    return out, problems


def _aicpu_type(path: Any, cache: ParsedFileCache | None) -> tuple[tuple[Row, ...], list[Any]]:
    """Per type (the kernel name before `-`): summed time (µs, 3 decimals), count, percent of all (2 decimals)."""
    rows, problems = _aicpu_rows(path, cache)
    by_type: dict[str, list[float]] = {}
    for name, total, _dispatch in rows:
        by_type.setdefault(name.split("-")[0], []).append(total)
    totals = {k: (sum(v) * MS_TO_US, len(v)) for k, v in by_type.items()}
    everything = sum(t for t, _ in totals.values())
    out = tuple([k, round(t, 3), n, round(round(t, 3) / everything * 100, 2) if everything else 0.0]
                for k, (t, n) in totals.items())
    return out, problems


def _aicpu_detail(path: Any, cache: ParsedFileCache | None) -> tuple[tuple[Row, ...], list[Any]]:
    """Per kernel name: mean total and dispatch time (µs, 3 decimals) and the count."""
    rows, problems = _aicpu_rows(path, cache)
    sums: dict[str, list[float]] = {}
    for name, total, dispatch in rows:
        acc = sums.setdefault(name, [0.0, 0.0, 0])
        acc[0] += fmt(total)
        acc[1] += fmt(dispatch)
        acc[2] += 1
    out = tuple([k, k.split("-")[0], round(v[0] / v[2] * MS_TO_US, 3), round(v[1] / v[2] * MS_TO_US, 3), int(v[2])]
                for k, v in sums.items())
    return out, problems


def load(pdir: ProfilerDir, op_type: str, device_id: str, cache: ParsedFileCache | None
         ) -> tuple[Table, list[dict[str, Any]]]:
    """The whole table of `op_type` for one device, and what was skipped while reading it."""
    cols = COLUMNS[op_type]
    if op_type == "aicore_detail":
        rows, problems = _aicore_detail(pdir, device_id, cache)
        return Table(cols, rows), problems
    name = (f"aicore_intermediate_{device_id}_type.csv" if op_type == "aicore_type"
            else f"aicpu_intermediate_{device_id}.csv")
    path = dir_file(pdir, name)
    if path is None:
        return Table(cols, ()), []
    loader = {"aicore_type": _aicore_type, "aicpu_type": _aicpu_type, "aicpu_detail": _aicpu_detail}[op_type]
    rows, problems = loader(path, cache)
    return Table(cols, rows), problems


def _check_sort(op_type: str, condition: dict[str, Any]) -> None:
    """MindInsight's checks of `sort_condition.name`: its validation list (50546185; search.py accepts the other
    layout's columns too, which the old layout's tables do not have), then the table's columns (50546180)."""
    sort = condition.get("sort_condition")
    name = sort.get("name") if isinstance(sort, dict) else None
    if not name:
        return
    if name not in SORT_SCOPE[op_type]:
        raise conditions.sort_error(f"The sorted_name must be in {list(SORT_SCOPE[op_type])}")
    if name not in COLUMNS[op_type]:
        raise ProfilerSearchConditionError(COLUMN_NOT_EXIST, f"The column {name} does not exist.")


def _display(result: dict[str, Any], filters: dict[str, Any]) -> dict[str, Any]:
    """aicore_detail's `is_display_full_op_name` / `is_display_detail` switches drop op_name / op_info."""
    keep = [i for i, name in enumerate(result["col_name"])
            if not (name == "op_name" and filters.get("is_display_full_op_name", True) is False)
            and not (name == "op_info" and filters.get("is_display_detail", True) is False)]
    result["col_name"] = [result["col_name"][i] for i in keep]
    result["object"] = [[row[i] for i in keep] for row in result["object"]]
    return result


def search(pdir: ProfilerDir, op_type: str, device_id: str, condition: dict[str, Any],
           cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """The `{"col_name", "object", "size"}` answer (plus `problems` when rows were skipped)."""
    _check_sort(op_type, condition)
    table, problems = load(pdir, op_type, device_id, cache)
    filters = condition.get("filter_condition") or {}
    result = column_query.query_rows(table, condition)
    if op_type == "aicore_type":  # MindInsight prints the page's total times with format(.6f)
        for row in result["object"]:
            row[1] = float(format(row[1], ".6f"))
    if op_type == "aicore_detail" and isinstance(filters, dict):
        result = _display(result, filters)
    return with_problems(result, problems)
