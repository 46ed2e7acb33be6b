"""msprobe's training-state monitor output in CSV (`TrainerMon`, config `"format": "csv"`; issue 35), read as the same
target × step trends as a data2db `.trend.db` (`msprobe_trend.read_trend`'s answer).

The layout, from mindstudio-probe 26.2 (`pytorch/monitor/module_hook.py`, `pytorch|mindspore/monitor/data_writers.py`
`CSVWriterWithAD`, `core/common/const.py` `MonitorConst`, `core/monitor/csv2db.py` and `utils.get_target_output_dir`,
which data2db uses to convert it):

* `$MONITOR_OUTPUT_DIR` (default `./monitor_output`) holds one folder per rank and run,
  `<%b%d_%H-%M-%S>-rank<R>-<8 hex of a uuid>` (`Nov29_15-29-52-rank0-3174cfb3`); data2db finds them with
  `re.match(r"([\\w-]{0,20})-rank(\\d{1,5})-")` and a time tag that parses, one folder per rank (a rank with two runs
  there: one of them, by listing order — here the newest time tag);
* in it, per metric and step range, `<metric>_<start>-<end>.csv` (`step_count_per_record` steps a file, 1 by
  default: `actv_0-0.csv`); the metrics data2db reads are `actv`, `actv_grad`, `exp_avg`, `exp_avg_sq`,
  `grad_unreduced`, `grad_reduced`, `param_origin`, `param_updated`, `other` (others, e.g. `linear_hook`, are skipped
  as data2db skips them);
* header `vpp_stage,name,step[,micro_step],<ops...>` (`micro_step` for actv/actv_grad and micro-batch gradients),
  the ops as configured (`norm,min,max,mean,zeros,nans,shape,dtype`); one row per target and step, written by pandas
  (`round(6)`, NaN as `nan`; `shape` quoted: `"[4, 8]"`). `name` is the module with `.input`/`.output` for
  activations (`layers.0.input`), the parameter for the others (`layers.0.weight`); the vpp stage is its own column.

The model answered, as data2db `--micro_step false` stores it and `read_trend` reads it back: metrics in data2db's
order, the ranks, one target per (name, vpp_stage, micro_step) and the real training steps. A target's name is `name`;
with more than one vpp stage in a metric it is `<vpp>:<name>` (msprobe's own tag), with micro-steps `<name> micro <m>`.
Statistics: a finite number as written; NaN and ±Inf are null (data2db stores NaN as NULL and ±Inf as ±(1e9 + 1),
and clamps beyond ±1e9 — this reader does not). A row whose vpp_stage/step/micro_step is not an integer, or with too
few cells (a cut last line), is skipped and counted; a file without the header's three first columns, not UTF-8, or
above MAX_FILE_BYTES is skipped and named with the reason. A folder still being written answers what is there.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Entry, Location

T = TypeVar("T")

METRICS = ("actv", "actv_grad", "exp_avg", "exp_avg_sq", "grad_unreduced", "grad_reduced", "param_origin",
           "param_updated", "other")  # Data2DBConst.METRICS_TRENDVIS_SUPPORTED, in its order (data2db's metric ids)
STATS = ("norm", "max", "min", "mean", "zeros", "nans")  # answered; msprobe's ops beyond these are not trends
RANK_DIR = re.compile(r"([\w-]{0,20})-rank(\d{1,5})-")  # MonitorConst.OUTPUT_DIR_PATTERN, used with re.match
CSV_FILE = re.compile(r"(?P<metric>\w+?)_(?P<start>\d+)-(?P<end>\d+)\.csv")  # <metric>_<start>-<end>.csv
TIME_FORMAT = "%b%d_%H-%M-%S"
HEADER = ("vpp_stage", "name", "step")
MAX_FILE_BYTES = 256 * 1024 * 1024  # one CSV file
MAX_FILES = 200_000  # CSV files of one rank folder listed
MAX_ROWS = 5_000_000  # rows read for one answer


class ParsedCache(Protocol):
    """A cache of parsed files by file version (analyzers/profiler/cache.ParsedFileCache is one)."""

    def get(self, kind: str, path: Location, parse: Callable[[Location], T], weight: int | None = None,
            entry: Entry | None = None) -> T: ...


def rank_of_dir(name: str) -> int | None:
    """The rank of a monitor output folder (`Nov29_15-29-52-rank0-3174cfb3` -> 0), else None (data2db's rule: the
    pattern and a time tag that parses)."""
    match = RANK_DIR.match(name)
    if match is None or _time_of(match.group(1)) is None:
        return None
    return int(match.group(2))


def metric_of_file(name: str) -> tuple[str, int] | None:
    """(metric, first step) of `<metric>_<start>-<end>.csv` for a metric data2db reads, else None."""
    match = CSV_FILE.fullmatch(name)
    if match is None or match.group("metric") not in METRICS:
        return None
    return match.group("metric"), int(match.group("start"))


def _time_of(tag: str) -> datetime | None:
    try:
        return datetime.strptime(tag, TIME_FORMAT)  # a tag to order by, as msprobe parses it
    except ValueError:
        return None


@dataclass(slots=True)
class CsvTable:
    """One monitor CSV: its rows as (vpp_stage, name, micro_step, step, {stat: value})."""

    stats: tuple[str, ...]
    rows: list[tuple[int, str, int, int, tuple[float | None, ...]]] = field(default_factory=list)
    bad_rows: int = 0

    def weight(self) -> int:
        return 200 + len(self.rows) * (120 + 24 * len(self.stats))


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_csv_table(location: Location) -> CsvTable:
    """Parse one monitor CSV. ValueError when it is not one (header) or not text; OSError when unreadable or too big."""
    data = storage.read_bytes(location, max_size=MAX_FILE_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{location.name} is not UTF-8 text") from exc
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:  # created, its header not written yet: no rows
        return CsvTable(())
    header = [h.strip() for h in header]
    if tuple(header[:3]) != HEADER:
        raise ValueError(f"{location.name} does not start with msprobe's monitor header "
                         f"{','.join(HEADER)} (it has {','.join(header[:4])[:200]})")
    micro = header.index("micro_step") if "micro_step" in header else None
    stats = tuple(s for s in STATS if s in header)
    where = [header.index(s) for s in stats]
    table = CsvTable(stats)
    width = len(header)
    try:
        for row in reader:
            if not row:
                continue
            if len(row) != width:  # a line cut by a writer still at work, or foreign
                table.bad_rows += 1
                continue
            try:
                vpp, step = int(row[0]), int(row[2])
                micro_step = int(row[micro]) if micro is not None else 0
            except ValueError:
                table.bad_rows += 1
                continue
            table.rows.append((vpp, row[1], micro_step, step, tuple(_number(row[j]) for j in where)))
    except csv.Error:  # e.g. an unclosed quote at a cut end: what was read stands
        table.bad_rows += 1
    return table


@dataclass(slots=True)
class RankDir:
    rank: int
    location: Location
    files: list[tuple[str, int, Entry]]  # (metric, first step, entry), by metric then first step
    cut: bool


def rank_dirs(root: Location) -> list[tuple[int, Entry]]:
    """The rank folders of a monitor output root, one per rank (the newest time tag when a rank has several)."""
    entries, _ = storage.list_dir(root, details=False)
    best: dict[int, tuple[datetime, str, Entry]] = {}
    for entry in entries:
        rank = rank_of_dir(entry.name) if entry.is_dir and not entry.is_symlink else None
        if rank is None:
            continue
        when = _time_of(RANK_DIR.match(entry.name).group(1))  # type: ignore[union-attr]  # matched just above
        key = (when or datetime.min, entry.name, entry)
        if rank not in best or key[:2] > best[rank][:2]:
            best[rank] = key
    return sorted(((rank, item[2]) for rank, item in best.items()), key=lambda pair: pair[0])


def list_rank(rank: int, folder: Entry) -> RankDir:
    entries, cut = storage.list_dir(folder.location, MAX_FILES, details=lambda name: metric_of_file(name) is not None)
    files = []
    for entry in entries:
        found = metric_of_file(entry.name) if entry.is_file and not entry.is_symlink else None
        if found is not None:
            files.append((found[0], found[1], entry))
    files.sort(key=lambda f: (METRICS.index(f[0]), f[1], f[2].name))
    return RankDir(rank, folder.location, files, cut)


def _label(name: str, vpp: int, micro: int, many_vpp: bool, many_micro: bool) -> str:
    label = f"{vpp}:{name}" if many_vpp else name
    return f"{label} micro {micro}" if many_micro else label


def read_monitor_trend(root: Location, metric: str | None, stat: str, rank: int | None,
                       cache: ParsedCache | None = None) -> dict[str, Any]:
    """`read_trend`'s answer for a monitor output root, plus `stats` (those the CSVs hold), `skipped_rows` (rows not
    read: cut or not numbers where integers belong), `skipped_files` ([{"file", "error"}]) and `truncated`."""
    if stat not in STATS:
        raise ValueError(f"'stat' should be one of {', '.join(STATS)}")
    folders = [list_rank(r, entry) for r, entry in rank_dirs(root)]
    present = {f[0] for folder in folders for f in folder.files}
    metrics = [m for m in METRICS if m in present]
    ranks = [folder.rank for folder in folders if folder.files]
    metric = metric or (metrics[0] if metrics else None)
    rank = ranks[0] if rank is None and ranks else rank
    if metric is not None and metric not in metrics:
        raise ValueError(f"no metric {metric!r} in this monitor output (it has {', '.join(metrics) or 'none'})")
    chosen = next((folder for folder in folders if folder.rank == rank), None)
    answer: dict[str, Any] = {"metrics": metrics, "ranks": ranks, "metric": metric, "rank": rank, "stat": stat,
                              "stats": [], "targets": [], "steps": [], "values": [], "skipped_rows": 0,
                              "skipped_files": [], "truncated": bool(chosen and chosen.cut)}
    if chosen is None or metric is None:
        return answer
    _fill(answer, _tables(chosen, metric, cache, answer), stat)
    if answer["stats"] and stat not in answer["stats"]:
        raise ValueError(f"no statistic {stat!r} in this monitor output's {metric} "
                         f"(it has {', '.join(answer['stats'])})")
    return answer


def _tables(folder: RankDir, metric: str, cache: ParsedCache | None, answer: dict[str, Any]) -> list[CsvTable]:
    tables = []
    rows = 0
    for name, _start, entry in folder.files:
        if name != metric:
            continue
        if rows >= MAX_ROWS:
            answer["truncated"] = True
            break
        try:
            table = (cache.get("msprobe-monitor-csv", entry.location, read_csv_table, entry=entry)
                     if cache is not None else read_csv_table(entry.location))
        except (OSError, ValueError) as exc:
            answer["skipped_files"].append({"file": f"{folder.location.name}/{entry.name}", "error": str(exc)})
            continue
        answer["skipped_rows"] += table.bad_rows
        rows += len(table.rows)
        tables.append(table)
    return tables


def _fill(answer: dict[str, Any], tables: Iterable[CsvTable], stat: str) -> None:
    stats: set[str] = set()
    cells: dict[tuple[int, str, int], dict[int, float | None]] = {}
    for table in tables:
        stats.update(table.stats)
        column = table.stats.index(stat) if stat in table.stats else None
        for vpp, name, micro, step, values in table.rows:
            cells.setdefault((vpp, name, micro), {})[step] = values[column] if column is not None else None
    keys = list(cells)
    many_vpp = len({k[0] for k in keys}) > 1
    many_micro = any(k[2] for k in keys)
    steps = sorted({s for per_step in cells.values() for s in per_step})
    answer["stats"] = [s for s in STATS if s in stats]
    answer["targets"] = [_label(name, vpp, micro, many_vpp, many_micro) for vpp, name, micro in keys]
    answer["steps"] = steps
    answer["values"] = [[cells[k].get(s) for s in steps] for k in keys]
