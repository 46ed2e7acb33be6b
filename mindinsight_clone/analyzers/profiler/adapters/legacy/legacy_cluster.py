"""Cluster views of the old layout: all ranks' files in one profiler dir (MindInsight's `Cluster*Analyser`).

* ranks: the `<rank>` of every `step_trace_raw_<rank>_detail_time.csv`, sorted;
* parallel context: `ascend_cluster_analyse_<mode>_<stages>_<rank size>_<rank>.csv` (or `gpu_...`) names the mode
  (`data-parallel`, `model-parallel`, `pipeline-parallel`), the stage count and the rank count; each holds one
  row per step then an average row: computation, communication alone, (pipeline:) stage, receive alone,
  collective communication alone, in ms;
* `hccl_raw_<rank>.csv`: per step (then `-` for the average) the communication cost, wait cost, link info
  (`{"src-dst": {"SDMA"|"RDMA"|...: [cost ms, size, bandwidth]}}`) and per-operator costs.

Views: `cluster-step-trace-summary`, `search-cluster-communication`, `search-cluster-link`, `communication-data`,
`cluster-peak-memory`. As in MindInsight, the step is read from the body's `filter_condition` (`step_id`, 0 = the
average); the answers' numbers are the files' own. A missing per-rank file is a 50546084 naming it, a step past
the file's end a 50546102; `total_step_num` is the step count every rank has (MindInsight: whichever file its
directory listing gave first).
"""

from __future__ import annotations

import csv
import io
import json
import logging
from dataclasses import dataclass
from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.legacy.legacy_files import dir_file, dir_names, read_json, read_lines
from mindinsight_clone.analyzers.profiler.engine import column_query
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import ProfilerFileNotFoundError, ProfilerRawFileError, ProfilerSearchConditionError

log = logging.getLogger(__name__)
STEP_NUM_NOT_SUPPORTED = 0x102
COLUMN_NOT_EXIST = 0x180
STEP_TRACE_PREFIX = "step_trace_raw_"
LINK_COLUMNS = ("src_dst", "link_type", "communication_cost", "communication_size", "band_width")
COMMUNICATION_COLUMNS = ("step_num", "communication_cost", "wait_cost")


@dataclass(frozen=True)
class ParallelContext:
    device_type: str | None  # "ascend" | "gpu" | None (no cluster analyse file)
    mode: str  # data-parallel | model-parallel | pipeline-parallel
    stage_num: int
    rank_size: int

    def cluster_file(self, rank: int) -> str:
        prefix = "ascend" if self.device_type == "ascend" else "gpu"
        return f"{prefix}_cluster_analyse_{self.mode}_{self.stage_num}_{self.rank_size}_{rank}.csv"


def ranks(pdir: ProfilerDir) -> list[int]:
    """The rank ids of the step trace files (a name whose rank part is not a number is skipped and logged)."""
    out = []
    for name in dir_names(pdir):
        if name.startswith(STEP_TRACE_PREFIX):
            part = name.split("_")[3] if name.count("_") >= 3 else ""
            if part.isdigit():
                out.append(int(part))
            else:
                log.warning("cluster: %s does not name a rank; left out", name)
    return sorted(out)


def parallel_context(pdir: ProfilerDir) -> ParallelContext:
    found = ParallelContext(None, "data-parallel", 1, 1)
    for name in dir_names(pdir):
        if name.startswith(("ascend_cluster_analyse", "gpu_cluster_analyse")):
            parts = name.split("_")
            try:
                ctx = ParallelContext(parts[0], parts[3], int(parts[4]), int(parts[5]))
            except (IndexError, ValueError):
                ctx = None
            if ctx is None or ctx.stage_num < 1 or ctx.rank_size < 1:
                log.warning("cluster: cannot read the parallel context from %s", name)
                continue
            found = ctx
    return found


def _lines(pdir: ProfilerDir, name: str, cache: ParsedFileCache | None) -> tuple[str, ...]:
    path = dir_file(pdir, name)
    if path is None:
        raise ProfilerFileNotFoundError(f"<{name}>")
    return tuple(line for line in read_lines(path, cache) if line.strip())


def _step_line(lines: tuple[str, ...], step: int, name: str) -> list[str]:
    """Line `step` (after the header) or the last (average) line for step 0."""
    if step == 0:
        if len(lines) < 2:
            raise ProfilerRawFileError(f"<{name}> has no rows.")
        return lines[-1].split(",")
    if not 0 < step < len(lines):
        raise ProfilerSearchConditionError(STEP_NUM_NOT_SUPPORTED, f"The step num must be in {[0, len(lines) - 2]}")
    return lines[step].split(",")


def _ms(cell: str, name: str) -> float:
    try:
        return round(float(cell) / 1e5, 4)
    except ValueError:
        raise ProfilerRawFileError(f"<{name}> has {cell!r} where a number belongs.") from None


def step_trace_info(pdir: ProfilerDir, rank: int, step: int, cache: ParsedFileCache | None) -> list[float]:
    """[iteration interval, fp+bp, tail, total] of one step (ms, 4 decimals)."""
    name = f"step_trace_raw_{rank}_detail_time.csv"
    cells = _step_line(_lines(pdir, name, cache), step, name)
    if len(cells) < 9:
        raise ProfilerRawFileError(f"<{name}> has a short row (truncated file?).")
    return [_ms(cells[6], name), _ms(cells[7], name), _ms(cells[8], name), _ms(cells[3], name)]


def bottleneck_info(pdir: ProfilerDir, ctx: ParallelContext, rank: int, step: int,
                    cache: ParsedFileCache | None) -> list[float]:
    """[iteration interval, then the cluster analyse file's columns] of one step."""
    name = ctx.cluster_file(rank)
    cells = _step_line(_lines(pdir, name, cache), step, name)
    interval = step_trace_info(pdir, rank, step, cache)[0]
    try:
        return [interval, *(float(c) for c in cells)]
    except ValueError:
        raise ProfilerRawFileError(f"<{name}> has a cell that is not a number.") from None


def _total_steps(pdir: ProfilerDir, cache: ParsedFileCache | None) -> str | int:
    """The last step number every rank's step trace has (as the file writes it), 0 without files."""
    best: tuple[int, str] | None = None
    for rank in ranks(pdir):
        lines = _lines(pdir, f"step_trace_raw_{rank}_detail_time.csv", cache)
        if len(lines) > 1:
            last = lines[-2].split(",")[0]
            key = int(last) if last.isdigit() else len(lines) - 2
            if best is None or key < best[0]:
                best = (key, last)
    return best[1] if best else 0


def _step_filters(condition: dict[str, Any]) -> tuple[int, int]:
    filters = condition.get("filter_condition") or {}
    if not isinstance(filters, dict):
        return 0, 0
    try:
        return int(filters.get("step_id", 0)), int(filters.get("stage_id", 0))
    except (TypeError, ValueError):
        raise ProfilerSearchConditionError(0x186, "The filter_condition in search_condition error, "
                                                  "step_id and stage_id must be integers.") from None


def cluster_step_trace(pdir: ProfilerDir, condition: dict[str, Any],
                       cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`profile/cluster-step-trace-summary`: per rank (of the stage asked, 0 = all) the step's phases."""
    ctx = parallel_context(pdir)
    step, stage = _step_filters(condition)
    info = []
    for rank in ranks(pdir):
        if ctx.mode == "data-parallel":
            info.append({"step_trace_info": step_trace_info(pdir, rank, step, cache), "rank_id": rank,
                         "profiler_dir": "profiler"})
            continue
        rank_stage = int(rank / max(1, int(ctx.rank_size / ctx.stage_num))) + 1
        if stage not in (0, rank_stage):
            continue
        info.append({"step_bottleneck_info": bottleneck_info(pdir, ctx, rank, step, cache), "rank_id": rank,
                     "profiler_dir": "profiler"})
    return {"total_step_num": _total_steps(pdir, cache), "stage_num": ctx.stage_num, "info": info,
            "size": len(info), "parallel-mode": ctx.mode}


# --- communication (hccl_raw_<rank>.csv) ----------------------------------------------------------


def _csv_rows(pdir: ProfilerDir, name: str, cache: ParsedFileCache | None) -> list[list[str]]:
    text = "\n".join(_lines(pdir, name, cache))
    try:
        return list(csv.reader(io.StringIO(text)))
    except csv.Error as err:
        raise ProfilerRawFileError(f"<{name}> cannot be read as CSV: {err}") from None


def _json_cell(cell: str, name: str) -> Any:
    try:
        return json.loads(cell)
    except ValueError:
        raise ProfilerRawFileError(f"<{name}> has a cell that is not JSON (truncated file?).") from None


def communication_info(pdir: ProfilerDir, rank: int, step: int, cache: ParsedFileCache | None) -> list[Any]:
    """[step, communication cost, wait cost, link info, operator costs] of one step (`-` = the average)."""
    name = f"hccl_raw_{rank}.csv"
    wanted = "-" if step == 0 else str(step)
    row = next((r for r in _csv_rows(pdir, name, cache) if r and r[0] == wanted), None)
    if row is None:
        return []
    try:
        out: list[Any] = [row[0], float(row[1]), float(row[2]), _json_cell(row[3], name)]
    except (IndexError, ValueError):
        raise ProfilerRawFileError(f"<{name}> has a short or non-numeric row for step {wanted}.") from None
    if len(row) > 4:
        out.append(_json_cell(row[4], name))
    return out


def _hccl_steps(pdir: ProfilerDir, cache: ParsedFileCache | None) -> int:
    """Steps every rank's hccl_raw file has (rows less header and average), 0 without files."""
    counts = [len(_lines(pdir, name, cache)) - 2 for name in dir_names(pdir) if name.startswith("hccl_raw")]
    counts = [c for c in counts if c > 0]
    return min(counts) if counts else 0


def _sort_and_page(rows: list[Any], columns: tuple[str, ...], condition: dict[str, Any]) -> list[Any]:
    sort = condition.get("sort_condition")
    if isinstance(sort, dict) and sort.get("name"):
        if sort["name"] not in columns:
            raise ProfilerSearchConditionError(COLUMN_NOT_EXIST, f"The column {sort['name']} does not exist.")
        rows = column_query.sort_rows(rows, list(columns), sort)
    group = condition.get("group_condition")
    return column_query.page_rows(rows, group if isinstance(group, dict) else None)


def cluster_communication(pdir: ProfilerDir, condition: dict[str, Any],
                          cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`profile/search-cluster-communication`: per rank [communication cost, wait cost, links, operators]."""
    step, _stage = _step_filters(condition)
    rows = []  # [step, communication cost, wait cost, the answer's info, rank]: sortable by the first three
    for rank in ranks(pdir):
        info = communication_info(pdir, rank, step, cache)
        rows.append([*(info[:3] if info else [None, None, None]), info[1:5], rank])
    size = len(rows)
    rows = _sort_and_page(rows, COMMUNICATION_COLUMNS, condition)
    return {"total_step_num": _hccl_steps(pdir, cache),
            "communication": [{"communication_info": row[3], "rank_id": row[4]} for row in rows], "size": size}


def link_rows(pdir: ProfilerDir, step: int, cache: ParsedFileCache | None) -> list[list[Any]]:
    """[src-dst, link type, cost, size, bandwidth] of every link every rank saw in the step."""
    out: list[list[Any]] = []
    for rank in ranks(pdir):
        info = communication_info(pdir, rank, step, cache)
        links = info[3] if len(info) > 3 and isinstance(info[3], dict) else {}
        for src_dst, by_type in links.items():
            for link_type, values in (by_type or {}).items():
                out.append([src_dst, link_type, *list(values)[:3]])
    return out


def cluster_link(pdir: ProfilerDir, condition: dict[str, Any], cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`profile/search-cluster-link`: the links, filtered by `src_rank` / `dst_rank` / `link_type` (plain
    strings: MindInsight put them in a regular expression), sorted and paged."""
    filters = condition.get("filter_condition") or {}
    filters = filters if isinstance(filters, dict) else {}
    step, _stage = _step_filters(condition)
    rows = link_rows(pdir, step, cache)
    src, dst, kind = filters.get("src_rank"), filters.get("dst_rank"), filters.get("link_type")

    def keep(row: list[Any]) -> bool:
        a, _, b = str(row[0]).partition("-")
        return ((src is None or a == str(src)) and (dst is None or b == str(dst))
                and (kind is None or str(row[1]).startswith(str(kind))))

    rows = [r for r in rows if keep(r)]
    size = len(rows)
    return {"cluster_link_info": _sort_and_page(rows, LINK_COLUMNS, condition), "size": size}


def communication_data(pdir: ProfilerDir, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    """`profile/communication-data`: every row of each device's hccl_raw file, JSON cells parsed."""
    data: dict[str, Any] = {}
    for device_id in pdir.device_ids:
        name = f"hccl_raw_{device_id}.csv"
        rows = _csv_rows(pdir, name, cache)
        if not rows:
            continue
        header, body = rows[0], [r for r in rows[1:] if r]
        numeric = all(r[0].isdigit() for r in body)
        items = []
        for r in body:
            item: dict[str, Any] = dict(zip(header, r, strict=False))
            item["step_num"] = int(r[0]) if numeric else r[0]
            for key in ("communication_cost", "wait_cost"):
                if key in item:
                    item[key] = float(item[key])
            for key in ("link_info", "communication_operator_cost"):
                if key in item:
                    item[key] = _json_cell(item[key], name)
            items.append(item)
        data[f"device{device_id}"] = items
    return data


def peak_memory(pdir: ProfilerDir, cache: ParsedFileCache | None = None) -> Any:
    """`profile/cluster-peak-memory`: `{rank_id, capacity, peak_mem}` from each rank's memory_usage_summary
    file; a rank without one is left out and logged (MindInsight: 400 "Read or write file fail.")."""
    if any(name.startswith("cpu_op_type_info_") for name in dir_names(pdir)):
        return {"is_heterogeneous": True}
    out = []
    for rank in ranks(pdir):
        path = dir_file(pdir, f"memory_usage_summary_{rank}.json")
        if path is None:
            log.info("cluster memory: rank %d has no memory_usage_summary file", rank)
            continue
        summary = read_json(path, cache)
        if isinstance(summary, dict):
            out.append({"rank_id": rank, "capacity": summary.get("capacity"), "peak_mem": summary.get("peak_mem")})
    return out
