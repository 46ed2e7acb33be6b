"""`profile/cluster-analysis`: what the Ascend cluster analyser (msprof-analyze) wrote, when a job has it.

`cluster_analysis_output/` sits in the profiler dir (beside the rank folders, where msprof-analyze writes it by
default) or in the job dir. Files: cluster_step_trace_time.csv (`Step,Type,Index,` + the step_trace_time columns,
one row per rank and per stage), cluster_communication.json (`{p2p|collective: {stepN: {"<op>@<group>": {rank:
{...}}}}}`), cluster_communication_matrix.json (same nesting, `{"<src>-<dst>": {...}}`), communication_group.json.
Each file is optional; a broken one is named in `problems` and the others still answer. For a job of database
exports msprof-analyze writes cluster_analysis.db instead (read by ascend_db_cluster.py; preferred when both are
there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mindinsight_clone.analyzers.profiler.adapters.ascend_db import ascend_db_cluster
from mindinsight_clone.analyzers.profiler.adapters.ascend_text import ascend_text_comm
from mindinsight_clone.analyzers.profiler.adapters.ascend_text.ascend_text_steps import FIELDS
from mindinsight_clone.analyzers.profiler.engine import ascend_csv
from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache
from mindinsight_clone.analyzers.profiler.engine.numbers import step_of, with_problems
from mindinsight_clone.analyzers.profiler.layout import ProfilerDir
from mindinsight_clone.errors import MindInsightError
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.storage import Location

FOLDER = "cluster_analysis_output"
STEP_TRACE = "cluster_step_trace_time.csv"
COMMUNICATION = "cluster_communication.json"
MATRIX = "cluster_communication_matrix.json"
GROUPS = "communication_group.json"
Reader = Callable[[Location], tuple[Any, list[dict[str, Any]]]]


def find(pdir: ProfilerDir) -> Location | None:
    for base in (pdir.path, pdir.path.parent):
        folder = base / FOLDER
        if storage.is_dir(folder):  # a real dir, never a symlink
            return folder
    return None


def _file(folder: Location, name: str) -> Location | None:
    path = folder / name
    return path if storage.is_file(path) else None


def _step_trace(path: Location) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    csv_file = ascend_csv.open_csv(path, STEP_TRACE, ("Type", "Index", "Computing"))
    rows = []
    for raw in csv_file.rows():
        index = csv_file.get(raw, "Index")
        row: dict[str, Any] = {"step": csv_file.get(raw, "Step") or None, "type": csv_file.get(raw, "Type"),
                               "index": int(index) if index.isdigit() else index}
        try:
            row.update({key: ascend_csv.number(csv_file.get(raw, header)) for key, header in FIELDS.items()})
        except ValueError:
            csv_file.report.skip("non-numeric time")
            continue
        if isinstance(row["step"], str) and row["step"].isdigit():
            row["step"] = int(row["step"])
        rows.append(row)
    csv_file.report.log()
    return rows, csv_file.report.problems()


def _communication(path: Location) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    data = ascend_text_comm.load_json(path, COMMUNICATION)
    ops = []
    for kind, steps in data.items():
        for step_key, entries in (steps.items() if isinstance(steps, dict) else ()):
            for key, per_rank in (entries.items() if isinstance(entries, dict) else ()):
                name, group = ascend_text_comm.split_key(key)
                for rank, info in (per_rank.items() if isinstance(per_rank, dict) else ()):
                    if isinstance(info, dict):
                        row = ascend_text_comm.op_row(name, group, step_of(step_key), kind, info)
                        row["rank_id"] = int(rank) if str(rank).isdigit() else rank
                        ops.append(row)
    return ops, []


def _matrix(path: Location) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    data = ascend_text_comm.load_json(path, MATRIX)
    cells = []
    for kind, steps in data.items():
        for step_key, entries in (steps.items() if isinstance(steps, dict) else ()):
            for key, links in (entries.items() if isinstance(entries, dict) else ()):
                op, group = ascend_text_comm.split_key(key)
                for pair, link in (links.items() if isinstance(links, dict) else ()):
                    src, _, dst = str(pair).partition("-")
                    if isinstance(link, dict) and src.isdigit() and dst.isdigit():
                        cells.append(ascend_text_comm.link_row(op, group, step_of(step_key), kind, src, dst, link))
    return cells, []


def stage_rows(pdir: ProfilerDir) -> list[dict[str, Any]]:
    """The `stage` rows of cluster_step_trace_time.csv (msprof-analyze's pipeline stages), [] when absent or
    unreadable; reads that file only."""
    folder = find(pdir)
    path = _file(folder, STEP_TRACE) if folder is not None else None
    if path is None:
        return []
    try:
        rows, _ = _step_trace(path)
    except MindInsightError:
        return []
    return [r for r in rows if r["type"] == "stage"]


def cluster_analysis(pdir: ProfilerDir, cache: ParsedFileCache | None = None) -> dict[str, Any]:
    folder = find(pdir)
    if folder is None:
        return {"available": False}
    database = _file(folder, ascend_db_cluster.CLUSTER_DB)  # the output of a job of database exports
    if database is not None:
        return ascend_db_cluster.cluster_analysis(database, cache)
    answer: dict[str, Any] = {"available": True, "step_trace": [], "communication": [], "matrix": [],
                              "communication_group": None}
    problems: list[dict[str, Any]] = []
    readers: tuple[tuple[str, str, Reader], ...] = (
        ("step_trace", STEP_TRACE, _step_trace), ("communication", COMMUNICATION, _communication),
        ("matrix", MATRIX, _matrix),
        ("communication_group", GROUPS, lambda p: (ascend_text_comm.load_json(p, GROUPS), [])))
    for key, name, read in readers:
        path = _file(folder, name)
        if path is None:
            problems.append({"file": name, "message": "missing"})
            continue
        try:
            value, file_problems = read(path)
        except MindInsightError as err:
            problems.append({"file": name, "message": err.message})
            continue
        problems.extend(file_problems)
        answer[key] = value
    return with_problems(answer, problems)
